"""The `planner` command line: plan IR files, call protocol methods, serve, explain conflicts.

Exit codes (docs/design/protocol.md): 0 planned/proven, 1 refused/conflict/refuted, 2 bad
request or bad input (typed error on stderr; a JSON error object on stdout with `--json`).
Heavy modules are imported inside each command, so `planner --help` starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner import __version__

if TYPE_CHECKING:
    from planner.contract import RequestError
    from planner.service.limits import Limits

EXIT_OK, EXIT_REFUSED, EXIT_BAD_REQUEST = 0, 1, 2
_DEBUG_ENV = "PLANNER_DEBUG"  # planner.service.codes.DEBUG_ENV, without importing it for --help
_WATCHDOG_GRACE = 0.25  # seconds past the deadline before the watchdog ends a command

Command = Callable[[argparse.Namespace], int]


def _limits(args: argparse.Namespace) -> Limits:
    from planner.service.limits import Limits

    defaults = Limits()
    timeout = getattr(args, "timeout", defaults.time_budget)
    return Limits(
        max_bytes=getattr(args, "max_bytes", defaults.max_bytes),
        max_depth=getattr(args, "max_depth", defaults.max_depth),
        time_budget=timeout if timeout is not None and timeout > 0 else None,
    )


def _read_text(args: argparse.Namespace) -> str:
    from planner.service.requests import read_text

    return read_text(args.file, _limits(args).max_bytes)


def _check_outputs(args: argparse.Namespace, inputs: list[str], *options: str) -> None:
    """Refuse unsafe outputs before any work, so a refusal never follows a long plan."""
    from planner.service.outputs import check_output

    for option in options:
        target = getattr(args, option.lstrip("-"))
        if target:
            check_output(target, inputs, option)


def _write(target: str, text: str, option: str) -> None:
    from planner.service.outputs import write_output

    write_output(target, text, option)


@contextmanager
def _watchdog(args: argparse.Namespace) -> Iterator[None]:
    """Past the deadline (and a grace for the cooperative stop), answer `request.timeout` and exit 2.

    The cores stop themselves at the deadline between steps; this covers a step that does not.
    """
    budget = _limits(args).time_budget
    if budget is None:
        yield
        return
    import threading

    def expire() -> None:
        from planner.service import codes

        _fail(codes.timed_out(), getattr(args, "json", False))
        sys.stdout.flush()
        os._exit(EXIT_BAD_REQUEST)

    timer = threading.Timer(budget + _WATCHDOG_GRACE, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _print_json(value: Any) -> None:
    from planner.service.limits import pretty_json

    sys.stdout.write(pretty_json(value))


def _fail(error: RequestError, as_json: bool) -> int:
    from planner.service import codes

    if error.code != codes.INTERNAL:  # an internal fault has logged its own line
        sys.stderr.write(f"planner: error: [{error.code}] {error.message}\n")
    if as_json:
        _print_json({"error": error.to_json()})
    return EXIT_BAD_REQUEST


def _cmd_call(args: argparse.Namespace) -> int:
    from planner.budget import deadline_after
    from planner.contract import RequestError
    from planner.service.methods import answer, find_method
    from planner.service.requests import read_input, read_params

    limits = _limits(args)
    deadline = deadline_after(limits.time_budget)
    with _watchdog(args):
        method = find_method(args.method)
        params = read_params(read_input(args.file, limits.max_bytes), limits, method.name)
        outcome = answer(method.name, params, deadline)
    if isinstance(outcome, RequestError):
        return _fail(outcome, args.json)
    _print_json(outcome)
    return EXIT_OK if method.succeeded(outcome) else EXIT_REFUSED


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's final flush of unsent replies cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _cmd_serve(args: argparse.Namespace) -> int:
    limits = _limits(args)
    try:
        if args.http is not None:
            from planner.service.http import check_bind, parse_address, serve_http

            address = parse_address(args.http)
            check_bind(address, args.allow_remote)
        from planner.service.workers import WorkerPool

        with WorkerPool(args.workers if args.http is not None else 1) as pool:
            if args.http is not None:
                serve_http(address, limits, pool.run, args.read_timeout, sys.stderr)
            else:
                from planner.service.stdio import serve_stdio

                serve_stdio(sys.stdin.buffer, sys.stdout.buffer, limits, pool.run)
    except KeyboardInterrupt:
        pass  # the way to stop a server
    except BrokenPipeError:  # the reader closed our stdout: nobody is left to answer
        _silence_stdout()
    return EXIT_OK


def _cmd_schema(args: argparse.Namespace) -> int:
    from planner.service import schemas

    files, missing = schemas.generate()
    for error in missing:
        sys.stderr.write(f"planner: error: [{error.code}] {error.message}\n")
    if args.check:
        problems = schemas.stale(args.dir, files)
        for problem in problems:
            sys.stderr.write(f"planner: schema {problem}; run `planner schema` to regenerate\n")
        return EXIT_REFUSED if problems or missing else EXIT_OK
    schemas.write(args.dir, files)
    return EXIT_REFUSED if missing else EXIT_OK


def _options(pairs: list[str]) -> dict[str, str]:
    from planner.contract import RequestError
    from planner.service import codes

    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RequestError(codes.INVALID_PARAMS, f"--option expects KEY=VALUE, got {pair!r}")
        options[key] = value
    return options


def _cmd_plan(args: argparse.Namespace) -> int:
    from planner.adapters import AdapterInputError, detect_adapter, plan_with

    _check_outputs(args, [args.file], "--output", "--report")
    text = _read_text(args)
    filename = "<stdin>" if args.file == "-" else args.file
    try:
        adapter = args.adapter or detect_adapter(filename, text)
        outcome = plan_with(adapter, text, filename=filename, options=_options(args.option))
    except AdapterInputError as exc:  # compiler style, at the offending position
        where = ":".join(str(part) for part in (filename, exc.line, exc.column) if part is not None)
        sys.stderr.write(f"{where}: error: [{exc.code}] {exc.message}\n")
        return EXIT_BAD_REQUEST
    for line in outcome.diagnostics:
        sys.stderr.write(line + "\n")
    if args.report:
        from planner.service.limits import pretty_json

        _write(args.report, pretty_json(outcome.report), "--report")
    if not outcome.ok:
        return EXIT_REFUSED
    # Source is reported, not rewritten: its notes are the output.
    planned = outcome.text if outcome.notes is None else "".join(f"{note}\n" for note in outcome.notes)
    if args.output:
        _write(args.output, planned, "--output")
    else:
        sys.stdout.write(planned)
    return EXIT_OK


def _cmd_explain(args: argparse.Namespace) -> int:
    from planner.service import explain_conflict as explain

    _check_outputs(args, [args.file], "--graph")
    with _watchdog(args):
        found = explain.explain_file(args.file, _read_text(args), _limits(args))
    if args.graph:
        from planner.service import graph

        graph.draw(found, Path(args.graph))
    if args.json:
        _print_json(explain.to_json(found))
    else:
        sys.stdout.write(explain.render(found))
    return EXIT_OK if found.explanation is None else EXIT_REFUSED


def _cmd_explain_plan(args: argparse.Namespace) -> int:
    from planner.service.remarks import explain_source

    explained = explain_source(args.file, _read_text(args), _limits(args))
    sys.stdout.write(explained.text)
    return EXIT_OK if explained.ok else EXIT_REFUSED


def _cmd_layout_show(args: argparse.Namespace) -> int:
    from planner.service import fractals

    grid = fractals.fractal_grid(args.spec)
    if args.png:
        fractals.draw_png(grid, Path(args.png))
    else:
        sys.stdout.write(fractals.render(grid))
    return EXIT_OK


def _cmd_layout_pack(args: argparse.Namespace) -> int:
    from planner.service import packing

    source, target = Path(args.file), Path(args.output)
    if args.tensors is not None:
        done = packing.pack_safetensors(source, target, _names(args.tensors), args.dtype)
    else:
        done = packing.pack_npy(source, target, _required_dtype(args.dtype, source))
    sys.stdout.write("".join(packed.describe(packing=True) + "\n" for packed in done))
    return EXIT_OK


def _cmd_layout_unpack(args: argparse.Namespace) -> int:
    from planner.service import packing

    source, target = Path(args.file), Path(args.output)
    shape = None if args.shape is None else packing.parse_shape(args.shape)
    if args.tensors is not None:
        done = packing.unpack_safetensors(source, target, _names(args.tensors), args.dtype, shape)
    elif shape is None:
        raise _bad_params("unpacking an .npy array needs its logical shape: --shape R,C")
    else:
        done = packing.unpack_npy(source, target, _required_dtype(args.dtype, source), shape)
    sys.stdout.write("".join(packed.describe(packing=False) + "\n" for packed in done))
    return EXIT_OK


def _bad_params(message: str) -> RequestError:
    from planner.contract import RequestError
    from planner.service import codes

    return RequestError(codes.INVALID_PARAMS, message)


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise _bad_params("--tensors expects tensor names like wq,wk")
    return names


def _required_dtype(dtype: str | None, source: Path) -> str:
    if dtype is None:
        hint = " (or --tensors NAMES for a .safetensors file)" if source.suffix == ".safetensors" else ""
        raise _bad_params(f"name the PyPTO dtype with --dtype, e.g. --dtype INT8{hint}")
    return dtype


def _cmd_suggest(args: argparse.Namespace) -> int:
    from planner.adapters import AdapterInputError, detect_adapter
    from planner.service import suggest

    text = _read_text(args)
    filename = "<stdin>" if args.file == "-" else args.file
    if args.apply and args.file == "-" and not args.output:
        raise _bad_params("--apply on stdin needs -o OUT")
    try:
        if detect_adapter(filename, text) != "pypto":
            raise _bad_params(f"{filename}: suggest reads PyPTO programs; NZ layout is a PyPTO feature")
        found = suggest.suggest_text(text, filename=filename, options=_options(args.option))
    except AdapterInputError as exc:
        where = ":".join(str(part) for part in (filename, exc.line, exc.column) if part is not None)
        sys.stderr.write(f"{where}: error: [{exc.code}] {exc.message}\n")
        return EXIT_BAD_REQUEST
    if args.json:
        _print_json(found.response.model_dump(mode="json"))
    else:
        sys.stdout.write(suggest.render(filename, found.response))
    if args.apply:
        target = Path(args.output or args.file)
        if args.output or found.annotated != text:
            _write(str(target), found.annotated, "--output")
        eligible = [t for t in found.response.tensors if t.eligible]
        named = ", ".join(n for t in eligible for n in [f"{t.name} in {t.function}", *t.also_annotated])
        named = named or "no tensor"
        sys.stderr.write(f"planner: annotated {named} with pl.NZ in {target}\n")
    return EXIT_OK


def _cmd_batch(args: argparse.Namespace) -> int:
    from planner.service import batch

    inputs = batch.collect_inputs([Path(p) for p in args.paths])
    _check_outputs(args, inputs, "--output")
    progress = sys.stderr.isatty() and not args.quiet
    results = batch.run(inputs, workers=args.workers, dask=args.dask, limits=_limits(args), progress=progress)
    lines = "".join(batch.result_line(result) + "\n" for result in results)
    if args.output:
        _write(args.output, lines, "--output")
    else:
        sys.stdout.write(lines)
    return max((result.exit for result in results), default=EXIT_OK)


def _add_max_bytes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-bytes", type=int, default=4 * 1024 * 1024, help="largest input or request, in bytes"
    )


def _add_limits(parser: argparse.ArgumentParser, with_sizes: bool) -> None:
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per message, reading to answer; 0 = unlimited"
    )
    _add_max_bytes(parser)
    if with_sizes:
        parser.add_argument("--max-depth", type=int, default=64, help="deepest JSON nesting accepted")


def _subcommand(sub: Any, name: str, run: Command, help: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help)
    parser.set_defaults(run=run)
    return parser


def _add_commands(sub: Any) -> None:
    plan = _subcommand(sub, "plan", _cmd_plan, "plan a PyPTO program or TT-Lang MLIR file")
    plan.add_argument("file", help="input file, or - for stdin")
    plan.add_argument("-o", "--output", help="write the planned IR here instead of stdout")
    plan.add_argument("--report", help="write the JSON planning report here")
    plan.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="adapter option")
    plan.add_argument("--adapter", choices=["pypto", "ttlang"], help="skip detection by extension/content")
    plan.epilog = (
        "TT-Lang MLIR is planned in text-preserving mode: only the attribute dictionaries the plan "
        "sets are rewritten, so comments and layout stay. For canonical MLIR output (FileCheck, "
        "lit), run planner-opt."
    )
    _add_max_bytes(plan)

    call = _subcommand(sub, "call", _cmd_call, "answer one protocol request (JSON in, JSON out)")
    call.add_argument("method", help="e.g. layout.plan, kernelcfg.resolve, proofs.check")
    call.add_argument("file", nargs="?", default="-", help="JSON params file, or - for stdin")
    call.add_argument("--json", action="store_true", help="also print errors as JSON on stdout")
    _add_limits(call, with_sizes=True)

    serve = _subcommand(
        sub, "serve", _cmd_serve, "JSON-RPC 2.0 service: one message per line on stdin/stdout"
    )
    serve.add_argument(
        "--http", metavar="HOST:PORT", help="serve HTTP POST instead (host defaults to 127.0.0.1)"
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http bind a non-loopback address (there is no authentication: anyone who "
        "reaches the port can send requests)",
    )
    serve.add_argument(
        "--read-timeout", type=float, default=10.0, help="seconds an HTTP client may take to send one request"
    )
    serve.add_argument(
        "--workers", type=int, default=min(4, os.cpu_count() or 1), help="worker processes answering HTTP"
    )
    _add_limits(serve, with_sizes=True)

    schema = _subcommand(sub, "schema", _cmd_schema, "write JSON Schemas for every method into schemas/")
    schema.add_argument("--check", action="store_true", help="verify the checked-in schemas are current")
    schema.add_argument("--dir", type=Path, default=Path("schemas"), help="schema directory")

    explain = _subcommand(sub, "explain-conflict", _cmd_explain, "explain why a file or request is refused")
    explain.add_argument("file", help="MLIR, PyPTO program, or JSON request; - for stdin")
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON")
    explain.add_argument("--graph", metavar="OUT.dot|OUT.png", help="draw the conflict graph")
    _add_limits(explain, with_sizes=False)

    reasons = _subcommand(sub, "explain", _cmd_explain_plan, "say why each kernel-config decision was made")
    reasons.add_argument("file", help="TT-Lang MLIR or a kernelcfg.resolve JSON request; - for stdin")
    _add_limits(reasons, with_sizes=False)

    layout = sub.add_parser("layout", help="NZ layout tools", description="NZ layout tools")
    layout_sub = layout.add_subparsers(title="layout commands", required=True)
    show = _subcommand(layout_sub, "show", _cmd_layout_show, "show which elements land in which NZ fractal")
    show.add_argument("spec", metavar="TENSOR-SPEC", help='e.g. "[64, 64] FP16"')
    show.add_argument("--png", metavar="OUT.png", help="draw to a PNG (needs tile-planner[viz])")
    for name, run, what in (
        ("pack", _cmd_layout_pack, "write a logical array in NZ byte order, as the blocked array"),
        ("unpack", _cmd_layout_unpack, "read NZ-ordered bytes back into the logical array"),
    ):
        packer = _subcommand(layout_sub, name, run, what)
        packer.add_argument("file", metavar="IN", help=".npy array, or .safetensors file with --tensors")
        packer.add_argument("-o", "--output", required=True, metavar="OUT", help="output file (never IN)")
        packer.add_argument("--dtype", help="PyPTO dtype (fixes c0); a .safetensors tensor's own by default")
        packer.add_argument("--tensors", metavar="A,B", help="the .safetensors tensors to convert")
        if name == "unpack":
            packer.add_argument("--shape", metavar="R,C", help="logical shape (recorded in .safetensors)")

    suggest = _subcommand(sub, "suggest", _cmd_suggest, "which ND weights of a PyPTO file may become pl.NZ")
    suggest.add_argument("file", help="PyPTO program or source, or - for stdin")
    suggest.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    suggest.add_argument("--apply", action="store_true", help="write pl.NZ on every eligible weight")
    suggest.add_argument("-o", "--output", metavar="OUT", help="with --apply: write here instead of in place")
    _add_max_bytes(suggest)
    suggest.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="adapter option")

    batch = _subcommand(sub, "batch", _cmd_batch, "plan many files; one JSON line per input")
    batch.add_argument("paths", nargs="+", metavar="DIR|FILE", help="files, or directories to search")
    batch.add_argument("--workers", type=int, default=1, help="worker processes")
    batch.add_argument("--dask", metavar="ADDRESS|local", help="run on dask.distributed (tile-planner[dask])")
    batch.add_argument("-o", "--output", help="write the JSON lines here instead of stdout")
    batch.add_argument("--quiet", action="store_true", help="no progress bar, even on a terminal")
    _add_max_bytes(batch)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="planner", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    parser.add_argument("--debug", action="store_true", help="print tracebacks of internal errors")
    _add_commands(parser.add_subparsers(title="commands"))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Command | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stdout)
        return EXIT_OK
    if args.debug:
        os.environ[_DEBUG_ENV] = "1"  # worker processes inherit it
    try:
        return run(args)
    except Exception as exc:
        from planner.service.codes import to_request_error

        return _fail(to_request_error(exc), getattr(args, "json", False))


if __name__ == "__main__":  # `python -m planner.cli`: what PlannerClient starts by default
    sys.exit(main())
