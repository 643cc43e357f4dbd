"""Constant resolution is sound: what it resolves is what Python computes, what it cannot read it never
values (docs/design/nz-layout.md section 19). The oracle is Python itself, running the generated
definitions (never a user's file) in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.adapters.pypto.constants.kernel_constants import ResolveContext
from planner.adapters.pypto.constants.module_finder import GivenModules
from planner.adapters.pypto.reading.program import parse_program
from tests.support.hypothesis_budget import lowered

# Values Python computes but the resolver must not read: calls of functions, `int` parsing text,
# library attributes, comprehensions, names bound in a branch, a list changed after it is bound.
PRELUDE = textwrap.dedent(
    """\
    import os
    def seven():
        return 7
    if len(os.sep) > 0:
        BRANCHED = 5
    ITEMS = [1, 2]
    ITEMS.append(3)
    """
)
OPAQUE = [
    "seven()",
    "int('7')",
    "len(os.sep)",
    "[i for i in range(3)][1]",
    "BRANCHED",
    "ITEMS[0]",
    "os.sep.count('/')",
]


@dataclass(frozen=True)
class Term:
    text: str
    opaque: bool  # reads something the resolver must not value


def terms(names: list[str]) -> st.SearchStrategy[Term]:
    literal = st.integers(-300, 300).map(lambda value: Term(f"({value})", False))
    named = [st.sampled_from(names).map(lambda name: Term(name, False))] * 2 if names else []
    opaque = st.sampled_from(OPAQUE).map(lambda text: Term(text, True))
    leaves = st.one_of(literal, literal, literal, *named, opaque)  # mostly readable, now and then opaque

    def combine(children: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
        pair = st.tuples(children, children)
        return st.one_of(
            st.tuples(children, st.sampled_from(["**", "<<", ">>"]), st.integers(0, 3)).map(
                lambda parts: Term(f"({parts[0].text} {parts[1]} {parts[2]})", parts[0].opaque)
            ),
            st.tuples(pair, st.sampled_from(["+", "-", "*", "//", "%", "&", "|", "^"])).map(
                lambda parts: Term(
                    f"({parts[0][0].text} {parts[1]} {parts[0][1].text})",
                    parts[0][0].opaque or parts[0][1].opaque,
                )
            ),
            st.tuples(st.sampled_from(["min", "max"]), pair).map(
                lambda parts: Term(
                    f"{parts[0]}({parts[1][0].text}, {parts[1][1].text})", any(t.opaque for t in parts[1])
                )
            ),
            children.map(lambda term: Term(f"abs({term.text})", term.opaque)),
            children.map(lambda term: Term(f"int({term.text} < 0)", term.opaque)),  # `1 + int(OVERLAP)`
            children.map(lambda term: Term(f"int({term.text} / 7)", term.opaque)),
            st.tuples(pair, st.integers(0, 1)).map(
                lambda parts: Term(
                    f"({parts[0][0].text}, {parts[0][1].text})[{parts[1]}]",
                    parts[0][0].opaque or parts[0][1].opaque,
                )
            ),
            st.tuples(children, pair).map(
                lambda parts: Term(
                    f"({parts[1][0].text} if {parts[0].text} < 0 else {parts[1][1].text})",
                    parts[0].opaque or parts[1][0].opaque or parts[1][1].opaque,
                )
            ),
        )

    return st.recursive(leaves, combine, max_leaves=6)


@st.composite
def modules(draw: st.DrawFn) -> list[tuple[str, Term]]:
    definitions: list[tuple[str, Term]] = []
    for index in range(draw(st.integers(1, 6))):
        definitions.append((f"V{index}", draw(terms([name for name, _ in definitions]))))
    return definitions


def python_values(definitions: list[tuple[str, Term]], *, poisoned: bool = False) -> dict[str, object]:
    """What Python computes for each name (absent when evaluating it raises). `poisoned`: with
    every opaque term raising, so a name present then is one whose value reads no opaque term
    (a branch not taken, as in `0 if c else seven()`, is not read)."""
    body = [(name, _poison(term.text) if poisoned else term.text) for name, term in definitions]
    script = (
        PRELUDE
        + "def _poison():\n    raise RuntimeError\n"
        + textwrap.dedent(
            f"""\
        import json
        values = {{}}
        for name, text in {[(name, text) for name, text in body]!r}:
            try:
                exec(f"{{name}} = {{text}}", globals())
                values[name] = globals()[name] if type(globals()[name]) is int else repr(globals()[name])
            except Exception:
                pass
        print(json.dumps(values))
        """
        )
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    values: dict[str, object] = json.loads(done.stdout)
    return values


def module_text(definitions: list[tuple[str, Term]], tuple_assign: bool) -> str:
    lines = [f"{name} = {term.text}" for name, term in definitions]
    if tuple_assign and len(definitions) >= 2:
        (first, a), (second, b), *_ = definitions
        lines[0:2] = [f"{first}, {second} = {a.text}, {b.text}"] if not b.text.count(first) else lines[0:2]
    return PRELUDE + "\n".join(lines) + "\n"


def resolved(definitions: list[tuple[str, Term]], text: str, *, imported: bool) -> dict[str, int]:
    names = [name for name, _ in definitions]
    reads = ", ".join(f"C.{name}" if imported else name for name in names)
    kernel = "import pypto.language as pl\n" + ("import cfg as C\n" if imported else text)
    kernel += f"\n\n@pl.jit\ndef k():\n    return ({reads},)\n"
    context = ResolveContext(GivenModules({"cfg": text} if imported else {}))
    (function,) = parse_program(kernel, "k.py", context).functions
    assert function.constants is not None
    values = function.constants.values
    return {
        name: values[f"C.{name}" if imported else name]
        for name in names
        if (f"C.{name}" if imported else name) in values
    }


@settings(max_examples=lowered(60))
@given(modules(), st.booleans(), st.booleans())
def test_a_resolved_constant_is_what_python_computes_and_nothing_opaque_is_valued(
    definitions: list[tuple[str, Term]], imported: bool, tuple_assign: bool
) -> None:
    text = module_text(definitions, tuple_assign)
    python = python_values(definitions)
    found = resolved(definitions, text, imported=imported)
    opaque = _opaque_names(definitions)
    for name, value in found.items():
        assert name not in opaque, f"{name} reads an opaque value but was resolved to {value}"
        assert python.get(name) == value, (name, value, python.get(name), text)


def _opaque_names(definitions: list[tuple[str, Term]]) -> set[str]:
    """Names whose value reads an opaque term, directly or through an earlier name: those that
    Python cannot compute once every opaque term raises."""
    if not any(term.opaque for _, term in definitions):
        return set()
    return {name for name, _ in definitions} - set(python_values(definitions, poisoned=True))


def _poison(text: str) -> str:
    for opaque in OPAQUE:
        text = text.replace(opaque, "_poison()")
    return text


def test_int_of_a_flag_resolves_and_int_of_text_stays_symbolic() -> None:
    module = textwrap.dedent(
        """\
        import pypto.language as pl

        HEAD_DIM = 128
        COMPRESS_RATIO = 4
        OVERLAP = COMPRESS_RATIO == 4
        COFF = 1 + int(OVERLAP)
        OUT_DIM = COFF * HEAD_DIM
        HALF = int(HEAD_DIM / 3)
        PARSED = int("7")


        @pl.jit
        def k():
            return (OUT_DIM, HALF, PARSED)
        """
    )
    (function,) = parse_program(module, "k.py").functions
    assert function.constants is not None
    found = {key: function.constants.values.get(key) for key in ("OUT_DIM", "HALF", "PARSED")}
    assert found == {"OUT_DIM": 256, "HALF": 42, "PARSED": None}


PLAIN_CONFIG = textwrap.dedent(
    """\
    class _FlashConfig:
        \"\"\"A subset of a model preset, inlined.\"\"\"

        hidden_size = 4096
        head_dim = 512
        qk_rope_head_dim = 64
        wide = hidden_size * 2

        @property
        def nope_head_dim(self) -> int:
            return self.head_dim - self.qk_rope_head_dim


    class _Built:
        def __init__(self) -> None:
            self.hidden_size = 8

        hidden_size = 4096


    class _Patched:
        hidden_size = 4096


    class _Derived(_FlashConfig):
        pass


    _Patched.hidden_size = 8
    M = _FlashConfig()
    BUILT = _Built()
    PATCHED = _Patched()
    DERIVED = _Derived()
    """
)


def test_an_instance_of_a_plain_class_of_the_kernel_file_reads_its_class_attributes() -> None:
    reads = ["M.hidden_size", "M.wide", "M.nope_head_dim", "BUILT.hidden_size", "PATCHED.hidden_size"]
    reads += ["DERIVED.hidden_size", "C.M.hidden_size"]
    kernel = "import pypto.language as pl\nimport cfg as C\n" + PLAIN_CONFIG
    kernel += f"\n\n@pl.jit\ndef k():\n    return ({', '.join(reads)},)\n"
    context = ResolveContext(GivenModules({"cfg": PLAIN_CONFIG}))
    (function,) = parse_program(kernel, "k.py", context).functions
    assert function.constants is not None
    found = {key: function.constants.values.get(key) for key in reads}
    assert found == {
        "M.hidden_size": 4096,
        "M.wide": 8192,
        "M.nope_head_dim": 448,
        "BUILT.hidden_size": None,  # __init__ sets what an instance reads
        "PATCHED.hidden_size": None,  # the file stores into the class
        "DERIVED.hidden_size": None,  # a base class: its attributes are not followed
        "C.M.hidden_size": None,  # an imported module's instance: any importer may change it
    }


REPLACED_CONFIG = textwrap.dedent(
    """\
    from dataclasses import dataclass, replace
    from typing import NamedTuple


    class Tiles(NamedTuple):
        m: int
        k: int = 256


    @dataclass(frozen=True)
    class Model:
        hidden_size: int
        head_dim: int = 512
        rope: int = 64

        @property
        def nope(self) -> int:
            return self.head_dim - self.rope


    PRO = Model(7168)
    PRO_KERNEL = replace(PRO, head_dim=256)
    TILES = replace(Tiles(16), k=128)
    WRONG = replace(PRO, heads=8)
    """
)


def test_dataclasses_replace_of_a_frozen_dataclass_instance_resolves_as_python_computes() -> None:
    reads = ["C.PRO_KERNEL.head_dim", "C.PRO_KERNEL.hidden_size", "C.PRO_KERNEL.nope", "C.PRO.head_dim"]
    reads += ["C.TILES.k", "C.WRONG.hidden_size"]
    kernel = "import pypto.language as pl\nimport cfg as C\n\n\n@pl.jit\ndef k():\n"
    kernel += f"    return ({', '.join(reads)},)\n"
    (function,) = parse_program(
        kernel, "k.py", ResolveContext(GivenModules({"cfg": REPLACED_CONFIG}))
    ).functions
    assert function.constants is not None
    found = {key: function.constants.values.get(key) for key in reads}
    assert found == {
        "C.PRO_KERNEL.head_dim": 256,
        "C.PRO_KERNEL.hidden_size": 7168,
        "C.PRO_KERNEL.nope": 192,
        "C.PRO.head_dim": 512,  # replace makes a new instance
        "C.TILES.k": None,  # a NamedTuple is replaced with its own _replace, not dataclasses.replace
        "C.WRONG.hidden_size": None,  # Python raises TypeError for a field the class does not have
    }


def test_a_frozen_dataclass_config_and_its_property_resolve_as_python_computes() -> None:
    config = textwrap.dedent(
        """\
        from dataclasses import dataclass, field
        from typing import NamedTuple


        class Tiles(NamedTuple):
            m: int
            k: int = 256


        @dataclass(frozen=True)
        class Base:
            hidden_size: int
            head_dim: int = field(default=512)


        @dataclass(frozen=True)
        class Model(Base):
            rope: int = 64

            @property
            def nope(self) -> int:
                \"\"\"The head dimensions without rotary embedding.\"\"\"
                return self.head_dim - self.rope


        @dataclass
        class Mutable:
            size: int = 3


        FLASH = Model(7168, rope=32)
        TILES = Tiles(16)
        LOOSE = Mutable()
        """
    )
    expressions = [
        "C.FLASH.hidden_size",
        "C.FLASH.head_dim",
        "C.FLASH.nope",
        "C.TILES.k",
        "C.TILES[0]",
        "C.LOOSE.size",
    ]
    kernel = "import pypto.language as pl\nimport cfg as C\n\n\n@pl.jit\ndef k():\n"
    kernel += f"    return ({', '.join(expressions)},)\n"
    (function,) = parse_program(kernel, "k.py", ResolveContext(GivenModules({"cfg": config}))).functions
    assert function.constants is not None
    found = {key: function.constants.values.get(key) for key in expressions}
    assert found == {
        "C.FLASH.hidden_size": 7168,
        "C.FLASH.head_dim": 512,
        "C.FLASH.nope": 480,
        "C.TILES.k": 256,
        "C.TILES[0]": 16,
        "C.LOOSE.size": None,  # a mutable instance may be changed by any importer
    }
    assert function.constants.origins["C.FLASH.nope"] == "cfg.FLASH.nope"


def test_an_import_cycle_leaves_its_names_unresolved() -> None:
    modules = {"a": "from b import Y\nX = Y + 1\n", "b": "from a import X\nY = X + 1\nZ = 3\n"}
    kernel = "import pypto.language as pl\nfrom a import X\nfrom b import Z\n\n\n"
    kernel += "@pl.jit\ndef k():\n    return X, Z\n"
    (function,) = parse_program(kernel, "k.py", ResolveContext(GivenModules(modules))).functions
    assert function.constants is not None
    assert function.constants.values == {"Z": 3}
