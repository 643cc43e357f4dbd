"""Z3 obligations (docs/design/nz-layout.md 7.2-7.4): every baseline row, the stronger cases, wraparound,
counterexample validity, unknown-is-never-proven, caching and typed errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from planner.errors import RequestError
from planner.proofs import ProofError, Prover, check, errors
from planner.proofs.concrete import admitted, evaluate, goal_holds, offset_value
from planner.proofs.dtype import Reading, goal_dtype
from planner.proofs.encode import constant_high
from planner.proofs.expr import parse_expr
from planner.proofs.protocol import Binding, ProofsCheckRequest
from planner.proofs.prover import DIVIDES_BY_ZERO, VACUOUS
from planner.proofs.scope import make_scope

_BINDINGS = TypeAdapter(list[Binding])


def bindings(*entries: dict[str, Any]) -> list[Binding]:
    return _BINDINGS.validate_python(list(entries))


def spmd(name: str, extent: int | str) -> dict[str, Any]:
    return {"kind": "spmd", "name": name, "extent": extent}


def assign(name: str, expr: int | str, bits: int | None = None) -> dict[str, Any]:
    return {"kind": "assign", "name": name, "expr": expr, "bits": bits}


def loop(name: str, start: int | str, stop: int | str, step: int | str = 1) -> dict[str, Any]:
    return {"kind": "for", "name": name, "start": start, "stop": stop, "step": step}


def kind(kind_name: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind_name, "name": name, **fields}


def statuses(prover: Prover, expr: str, factor: int) -> tuple[str, str]:
    return prover.check(expr, "multiple_of", factor).status, prover.check(expr, "non_negative").status


def assert_breaks(
    prover: Prover, expr: str, goal: str, factor: int = 1, division: str = "floor"
) -> dict[str, int]:
    """A refutation's counterexample is admissible and breaks the goal under the concrete semantics,
    read as the verdict says, and its `value` is the offset's executed value there."""
    verdict = prover.check(expr, goal, factor, division)  # type: ignore[arg-type]
    assert verdict.status == "refuted" and verdict.counterexample is not None
    assert verdict.reading is not None
    env = verdict.counterexample
    assert list(env) == sorted(env)
    assert admitted(env, prover.scope, verdict.reading)
    tree = parse_expr(expr)
    bits = goal_dtype(prover.scope.type_of(tree), prover.scope.index).bits
    value = offset_value(tree, env, prover.scope, verdict.reading)
    assert value == verdict.value
    assert not goal_holds(goal, value, factor, bits)
    return env


# --- 7.2 baseline-outcome table, as the product answers it (7.3) --------------------------------

BLOCK = [kind("block_idx", "blk")]
PRODUCT_ROWS = [
    pytest.param([spmd("nb", 2), assign("n0", "nb * 256")], "n0", 16, ("proven", "proven"), id="spmd-n0"),
    pytest.param([spmd("nb", 2), assign("n0", "nb * 8")], "n0", 16, ("refuted", "proven"), id="nb*8"),
    pytest.param(
        [spmd("nb", 2), assign("n0", "nb * 256 - 256")], "n0", 16, ("proven", "refuted"), id="nb*256-256"
    ),
    pytest.param(BLOCK, "(blk % 2) * 512", 16, ("proven", "proven"), id="blk%2"),
    pytest.param(BLOCK, "(blk // 2) * 128", 16, ("proven", "proven"), id="blk//2"),
    # stronger than the baseline (which refuses the sign): floor modulo by 2 is never negative
    pytest.param(BLOCK, "((blk - 1) % 2) * 512", 16, ("proven", "proven"), id="(blk-1)%2"),
    pytest.param([loop("k0", 512, 1024, 512)], "k0", 32, ("proven", "proven"), id="k0-int8"),
    pytest.param([loop("k0", 0, 32, 16)], "k0", 32, ("refuted", "proven"), id="k0-step16"),
    pytest.param(
        [kind("block_idx", "core"), loop("ob", "core", 4, 2), assign("o0", "ob * 256")],
        "o0",
        16,
        ("proven", "proven"),
        id="symbolic-start",
    ),
    pytest.param([loop("o0", 0, 800, 256)], "min(800 - o0, 256)", 16, ("proven", "proven"), id="min-256"),
    pytest.param([loop("o0", 0, 800, 256)], "min(800 - o0, 250)", 16, ("refuted", "proven"), id="min-250"),
    pytest.param([kind("iter_arg", "acc")], "acc", 16, ("refuted", "refuted"), id="iter-arg"),
    pytest.param([kind("iter_arg", "acc")], "acc * 256", 16, ("proven", "refuted"), id="iter-arg-product"),
]


@pytest.mark.parametrize(("entries", "expr", "factor", "expected"), PRODUCT_ROWS)
def test_baseline_rows(
    entries: list[dict[str, Any]], expr: str, factor: int, expected: tuple[str, str]
) -> None:
    prover = Prover(bindings(*entries), target="a2a3")
    assert statuses(prover, expr, factor) == expected
    for goal, status in zip(("multiple_of", "non_negative"), expected, strict=True):
        if status == "refuted":
            assert_breaks(prover, expr, goal, factor if goal == "multiple_of" else 1)


def test_the_motivating_path_compiles() -> None:
    prover = Prover(
        bindings(
            assign("N", 4096),
            assign("N_TILE", 256),
            assign("K", 2048),
            assign("K_TILE", 512),
            spmd("nb", "N // N_TILE"),
            assign("n0", "nb * N_TILE"),
            loop("k0", "K_TILE", "K", "K_TILE"),
        ),
        target="a2a3",
    )
    assert statuses(prover, "n0", 16) == ("proven", "proven")
    assert statuses(prover, "k0", 32) == ("proven", "proven")


@pytest.mark.parametrize(
    ("entries", "expr", "factor"),
    [
        pytest.param([loop("nb", 1, 64)], "nb * 256 - 256", 16, id="difference-with-provable-sign"),
        pytest.param([spmd("nb", 8)], "(nb * 512) // 2", 16, id="floordiv-result-aligned"),
        pytest.param([spmd("nb", 8)], "(nb * 512 + 48) % 32 * 16", 16, id="floormod-result-aligned"),
        pytest.param([kind("iter_arg", "acc")], "0 * acc", 16, id="zero-factor"),
        pytest.param([kind("param", "p", min=-5, max=5)], "max(p, 0) * 64", 64, id="max-either"),
    ],
)
def test_product_is_stronger_than_the_baseline(entries: list[dict[str, Any]], expr: str, factor: int) -> None:
    assert statuses(Prover(bindings(*entries)), expr, factor) == ("proven", "proven")


def test_lane_bounds_come_from_the_target() -> None:
    untargeted = Prover(bindings(*BLOCK))
    assert untargeted.check("(blk // 2) * 128", "multiple_of", 16).status == "proven"
    env = assert_breaks(untargeted, "(blk // 2) * 128", "non_negative")
    assert env["blk"] >= 2**56  # only a lane index far past any target's limit wraps
    counted = Prover(bindings(kind("block_num", "n")), target="a5")
    assert counted.check("65535 - n", "non_negative").status == "proven"
    assert counted.check("65534 - n", "non_negative").status == "refuted"


# --- 7.4 wraparound ------------------------------------------------------------------------------


def test_wraparound_at_the_declared_width() -> None:
    prover = Prover(bindings(assign("x", 1 << 24, bits=32)), index_bits=32)
    assert prover.check("x * 256", "multiple_of", 16).status == "proven"
    assert prover.check("x * 256", "multiple_of", 1 << 31).status == "proven"  # x * 256 wraps to 0
    assert prover.check("x * 256 // 16 - 1", "non_negative").status == "refuted"  # so the quotient is 0
    assert prover.check("x * 16 - 1", "non_negative").status == "proven"  # re-associated: 268435456
    wide = Prover(bindings(assign("x", 1 << 24)), index_bits=64)
    assert wide.check("x * 256 // 16 - 268435456", "multiple_of", 1 << 40).status == "proven"


def test_unbounded_product_wraps_negative() -> None:
    prover = Prover(bindings(kind("param", "nb", min=0), assign("n0", "nb * 256")))
    assert prover.check("n0", "multiple_of", 16).status == "proven"
    env = assert_breaks(prover, "n0", "non_negative")
    assert env["nb"] * 256 >= 2**63


def test_names_are_sign_extended_into_the_index() -> None:
    narrow = Prover(bindings(kind("param", "h", bits=16, min=-5, max=-1)))
    assert assert_breaks(narrow, "h + 0", "non_negative")["h"] < 0  # sign-extended to 64 bits
    assert narrow.check("h", "non_negative").status == "refuted"


def test_an_assignment_casts_to_its_dtype() -> None:
    prover = Prover(
        bindings(assign("s", 255, bits=8), assign("x", 300, bits=8), assign("w", 65536 + 48, bits=16))
    )
    assert prover.check("s", "non_negative").status == "refuted"  # 255 is -1 at 8 bits
    assert prover.check("s + 0", "non_negative").status == "refuted"  # read at 8 bits, then extended
    assert prover.check("x - 44", "multiple_of", 1 << 40).status == "proven"  # x: INT8 = 300 holds 44
    assert prover.check("w", "multiple_of", 16).status == "proven"  # truncated: 48
    assert prover.check("w", "multiple_of", 32).status == "refuted"


def test_a_binary_node_computes_at_the_wider_operand() -> None:
    entries = [
        kind("param", "m", bits=32, min=0, max=1),
        assign("s", 65536, bits=32),
        assign("t", 32768, bits=32),
    ]
    entries.append(assign("k", 134217728, bits=32))
    narrow = Prover(bindings(*entries))
    env = assert_breaks(narrow, "(m * s * t) // k * 16", "non_negative")  # INT32 product wraps to -2**31
    assert env["m"] == 1 and narrow.check("(m * s * t) // k * 16", "non_negative").value == -256
    wide = Prover(bindings(*({**entry, "bits": 64} for entry in entries)))
    assert wide.check("(m * s * t) // k * 16", "non_negative", division="either").status == "proven"
    assert (
        narrow.check("(m * 65536 * t) // k * 16", "non_negative").status == "proven"
    )  # the literal is INDEX


def test_unsigned_values_hold_under_both_extensions() -> None:
    prover = Prover(bindings(assign("u", 240, bits=8) | {"signed": False}, assign("n0", "0 - u")))
    verdict = prover.check("n0", "non_negative")
    assert verdict.status == "refuted" and verdict.value == -240
    assert verdict.reading == Reading("floor", "zero")
    sign = prover.check("u", "non_negative")  # an index_cast sign-extends it: -16
    assert sign.status == "refuted" and sign.reading == Reading("floor", "sign") and sign.value == -16
    assert sign.counterexample == {"n0": 16, "u": 240}
    small = Prover(bindings(assign("u", 100, bits=8) | {"signed": False}))
    assert small.check("u", "non_negative").status == "proven"


def test_division_semantics() -> None:
    prover = Prover(bindings(spmd("nb", 2), assign("n0", "((nb - 1) % 2) * 256")))
    assert prover.check("n0", "non_negative", division="floor").status == "proven"
    for division in ("trunc", "either"):
        verdict = prover.check("n0", "non_negative", division=division)
        assert verdict.status == "refuted" and verdict.counterexample == {"n0": -256, "nb": 0}
        assert verdict.reading == Reading("trunc", "zero") and verdict.value == -256
    quotient = Prover(bindings(spmd("nb", 2), assign("n0", "((nb - 7) // 2) * 256")))
    assert_breaks(quotient, "n0 + 768", "non_negative", division="either")  # trunc gives -3, floor -4
    assert quotient.check("n0 + 768", "non_negative", division="trunc").status == "proven"
    assert quotient.check("n0 + 1024", "non_negative", division="floor").status == "proven"


@pytest.mark.parametrize(
    ("dividend", "divisor"), [(a, k) for a in (-7, -6, 0, 5, 7, -128, 127) for k in (-3, -1, 2, 3, 4, -128)]
)
def test_division_matches_python_at_8_bits(dividend: int, divisor: int) -> None:
    prover = Prover(bindings(assign("a", dividend, bits=8), assign("k", divisor, bits=8)), index_bits=8)
    env = {"a": dividend, "k": divisor}
    for division in ("floor", "trunc"):
        reading = Reading(division)
        quotient = evaluate(parse_expr("a // k"), env, prover.scope, reading)
        remainder = evaluate(parse_expr("a % k"), env, prover.scope, reading)
        assert quotient is not None and remainder is not None
        exact = dividend // divisor if division == "floor" else int(dividend / divisor)
        assert quotient == ((exact + 128) % 256) - 128 and remainder == dividend - divisor * exact
        for text in (f"a // k - ({quotient})", f"a % k - ({remainder})"):
            assert prover.check(text, "multiple_of", 256, division).status == "proven"


# --- division by zero, vacuity, loops ------------------------------------------------------------


def test_an_offset_that_divides_by_zero_is_refuted() -> None:
    prover = Prover(bindings(spmd("z", 4)))
    verdict = prover.check("0 * (64 // z)", "multiple_of", 16)
    assert verdict.status == "refuted" and verdict.counterexample == {"z": 0}
    assert verdict.reason == DIVIDES_BY_ZERO
    assert prover.check("0 * (64 // (z + 1))", "multiple_of", 16).status == "proven"


def test_a_binding_that_divides_by_zero_leaves_its_name_unconstrained() -> None:
    prover = Prover(bindings(spmd("z", 4), assign("q", "64 // z")))
    assert_breaks(prover, "q", "non_negative")


def test_empty_loops_hold_vacuously() -> None:
    verdict = Prover(bindings(loop("i", 8, 8))).check("i - 1000", "non_negative")
    assert verdict.status == "proven" and verdict.reason == VACUOUS
    assert Prover(bindings(loop("i", 0, 8))).check("i", "non_negative").reason is None


def test_a_loop_with_a_non_positive_step_constrains_nothing() -> None:
    prover = Prover(bindings(kind("param", "s", min=-2, max=0), loop("i", 0, 10, "s")))
    assert_breaks(prover, "i", "non_negative")
    stepped = Prover(bindings(kind("param", "s", min=1, max=4), loop("i", 0, 10, "s")))
    assert stepped.check("i", "non_negative").status == "proven"
    assert_breaks(stepped, "i", "multiple_of", 2)


@pytest.mark.parametrize(
    "entry",
    [
        kind("param", "p", bits=8, min=-1000, max=10),
        kind("param", "p", bits=8, min=200),
        kind("param", "p", bits=8, signed=False, min=-1),
        loop("i", 0, 300, 1) | {"bits": 8},
        spmd("i", 256) | {"bits": 8},
    ],
)
def test_declared_numbers_outside_the_dtype_are_bad_requests(entry: dict[str, Any]) -> None:
    with pytest.raises(ProofError) as caught:
        Prover(bindings(entry))
    assert caught.value.code == errors.OUT_OF_WIDTH


def test_induction_values_follow_their_loop() -> None:
    prover = Prover(bindings(loop("i", 0, 4), kind("induction", "n0", init=0, step=16, loop="i")))
    assert statuses(prover, "n0", 16) == ("proven", "proven")
    assert prover.check_window("n0", 16, 64).status == "proven"
    verdict = prover.check_window("n0", 16, 48)
    assert (
        verdict.status == "refuted" and verdict.counterexample == {"i": 3, "n0": 48} and verdict.value == 64
    )
    stepped = Prover(bindings(loop("i", 0, 4), kind("induction", "n0", init=0, step=8, loop="i")))
    assert assert_breaks(stepped, "n0", "multiple_of", 16) == {"i": 1, "n0": 8}
    lanes = Prover(bindings(spmd("nb", 4), kind("induction", "n0", init=256, step=-64, loop="nb")))
    assert lanes.check("n0 - 64", "non_negative").status == "proven"


@pytest.mark.parametrize(
    ("entry", "high"),
    [
        (spmd("i", 16), 15),
        (loop("k", 512, 4096, 512), 4095),
        (loop("k", -1, 4), None),
        (loop("k", 4, 4), None),
        (kind("param", "p", min=0, max=9), 9),
        (kind("param", "p", min=-1, max=9), None),
        (kind("block_num", "n"), None),
        (assign("c", 7), 7),
        (spmd("i", "n"), None),
        (assign("c", "8 // 0"), None),
    ],
)
def test_constant_bounds_found_for_the_high_bits_fact(entry: dict[str, Any], high: int | None) -> None:
    scope = make_scope(bindings(entry), 64, None)
    assert constant_high(scope.declarations[0], scope) == high


# --- the solver: unknown, cache, determinism -----------------------------------------------------


def test_a_resource_limit_is_unknown_never_proven() -> None:
    entries = bindings(
        kind("param", "a", min=1, max=1 << 20),
        kind("param", "b", min=5, max=10),
        kind("param", "c", min=1, max=4),
    )
    starved = Prover(entries, rlimit=1)
    # a * (b - c) > 0 is true, but ranges alone cannot see it: the solver needs a 64-bit multiplier
    verdict = starved.check("a * b - a * c", "non_negative")
    assert verdict.status == "unknown" and verdict.counterexample is None
    assert verdict.reason == "resource limit reached (rlimit=1)"
    assert starved.check("a * b", "multiple_of", 2).status != "proven"  # false: a = b = 1
    assert Prover(entries).check("a * b - a * c", "non_negative").status == "proven"


def test_verdicts_are_cached_by_the_canonical_obligation() -> None:
    prover = Prover(bindings(spmd("nb", 2), assign("n0", "nb * 256")))
    first = prover.check("n0 * 2", "multiple_of", 16)
    assert prover.check(" n0*2 ", "multiple_of", 16) is first
    assert prover.check(parse_expr("n0 * 2"), "multiple_of", 16, "floor") is first
    assert prover.check("n0 * 2", "multiple_of", 16, "either") is not first
    assert prover.check("n0 * 2", "multiple_of", 32) is not first
    assert prover.check("n0", "non_negative", 16) is prover.check("n0", "non_negative", 2)


def test_proofs_check_method_is_deterministic() -> None:
    request = ProofsCheckRequest.model_validate(
        {"expr": "n0", "bindings": [spmd("nb", 4), assign("n0", "nb * 256 - 512")], "factor": 16}
    )
    first = check(request)
    assert [(r.goal, r.status) for r in first.results] == [
        ("multiple_of", "proven"),
        ("non_negative", "refuted"),
    ]
    assert first.results[1].counterexample is not None
    assert check(request).model_dump_json() == first.model_dump_json()


def test_counterexamples_do_not_depend_on_other_provers() -> None:
    entries = bindings(kind("param", "a", min=-1000, max=1000), spmd("nb", 64), kind("iter_arg", "acc"))
    request = ProofsCheckRequest(expr="a // 3 + acc % 7", bindings=entries)
    first = check(request).model_dump_json()
    busy = Prover(entries)
    for shift in range(40):
        busy.check(f"acc * {shift} + a // {shift + 2}", "non_negative")
    assert check(request).model_dump_json() == first


# --- typed errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (lambda: Prover([]).check("x", "multiple_of", 24), errors.BAD_FACTOR),
        (lambda: Prover([]).check("x", "multiple_of", 0), errors.BAD_FACTOR),
        (lambda: Prover([]).check("x", "positive"), errors.BAD_GOAL),  # type: ignore[arg-type]
        (lambda: Prover([]).check("x ** 2", "non_negative"), errors.BAD_EXPRESSION),
        (lambda: Prover([]).check("x", "non_negative", 1, "round"), errors.BAD_DIVISION),  # type: ignore[arg-type]
        (lambda: Prover(bindings(kind("induction", "x", init=0, step=1, loop="i"))), errors.BAD_LOOP),
        (
            lambda: Prover(bindings(assign("i", 0), kind("induction", "x", init=0, step=1, loop="i"))),
            errors.BAD_LOOP,
        ),
        (lambda: Prover([], index_bits=256), errors.BAD_WIDTH),
        (lambda: Prover([], target="a9"), errors.BAD_TARGET),
        (lambda: Prover(bindings(spmd("a", 2), spmd("a", 3))), errors.DUPLICATE_BINDING),
        (lambda: Prover(bindings(assign("a", "b + 1"), spmd("b", 2))), errors.FORWARD_REFERENCE),
        (lambda: Prover(bindings(assign("a", "a + 1"))), errors.FORWARD_REFERENCE),
        (lambda: check(ProofsCheckRequest(expr="x", factor=48)), errors.BAD_FACTOR),
    ],
)
def test_typed_errors(action: Any, code: str) -> None:
    with pytest.raises(ProofError) as caught:
        action()
    assert caught.value.code == code and isinstance(caught.value, RequestError)
    assert caught.value.code.startswith("proof.") and caught.value.message
