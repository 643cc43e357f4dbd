"""The planning, protocol and service commands: plan, call, serve, schema, explain-conflict,
explain and batch. Each returns its exit code (`planner.cli.io`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.io import (
    EXIT_OK,
    EXIT_REFUSED,
    adapter_options,
    check_outputs,
    fail,
    fail_at,
    input_error_json,
    input_name,
    limits,
    print_json,
    print_text,
    read_text,
    write,
)
from planner.cli.module_paths import resolve_context

if TYPE_CHECKING:
    from planner.adapters import AdapterInputError


def cmd_call(args: argparse.Namespace) -> int:
    from planner.budget import deadline_after
    from planner.errors import RequestError
    from planner.inputs import read_input, read_params
    from planner.service.methods import answer, find_method

    bounds = limits(args)
    deadline = deadline_after(bounds.time_budget)
    method = find_method(args.method)
    params = read_params(read_input(args.file, bounds.max_bytes), bounds, method.name)
    outcome = answer(method.name, params, deadline)
    if isinstance(outcome, RequestError):
        return fail(outcome, args.json)
    print_json(outcome)
    return EXIT_OK if method.succeeded(outcome) else EXIT_REFUSED


def cmd_serve(args: argparse.Namespace) -> int:
    bounds = limits(args)
    try:
        if args.http is not None:
            from planner.service.http import HttpSettings, check_bind, parse_address, serve_http

            address = parse_address(args.http)
            check_bind(address, args.allow_remote)
            settings = HttpSettings(
                args.read_timeout, args.idle_timeout, args.max_connections, args.max_per_address, args.workers
            )
        from planner.service.workers import WorkerPool

        size = args.workers if args.http is not None else 1
        with WorkerPool(size, inline=args.http is None, max_memory=args.max_memory) as pool:
            if args.http is not None:
                serve_http(address, bounds, pool.run, settings, sys.stderr)
            else:
                from planner.service.stdio import serve_stdio
                from planner.standard_output import unwritable

                try:
                    serve_stdio(sys.stdin.buffer, sys.stdout.buffer, bounds, pool.run)
                except BrokenPipeError:
                    raise
                except OSError as exc:  # replies that cannot go out (a full disk): typed, not internal
                    raise unwritable(exc) from None
    except KeyboardInterrupt:
        pass  # the way to stop a server
    except BrokenPipeError:  # the reader closed our stdout: nobody is left to answer
        from planner.standard_output import reader_left

        reader_left()
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
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


def cmd_plan(args: argparse.Namespace) -> int:
    from planner.adapters import AdapterInputError, detect_adapter, plan_with
    from planner.inputs import encode_like_source

    check_outputs(args, [args.file], "--output", "--report", stdout=args.json or not args.output)
    text = read_text(args)
    filename = input_name(args)
    try:
        adapter = args.adapter or detect_adapter(filename, text)
        context = resolve_context(args, filename, text) if adapter == "pypto" else None
        options = adapter_options(args.option, args.section, args.target_arch)
        outcome = plan_with(adapter, text, filename=filename, options=options, context=context)
    except AdapterInputError as exc:
        return _input_error(args, exc)
    for line in outcome.diagnostics:
        sys.stderr.write(line + "\n")
    if args.report:
        from planner.limits import pretty_json

        write(args.report, pretty_json(outcome.report), "--report")
    if args.json:
        print_json(outcome.report)
        return EXIT_OK if outcome.ok else EXIT_REFUSED
    if not outcome.ok and not outcome.partial:
        return EXIT_REFUSED
    # Source is reported, not rewritten: its notes are the output. A printed program keeps its encoding.
    planned: str | bytes = "".join(f"{note}\n" for note in outcome.notes or ())
    if outcome.notes is None:
        planned = encode_like_source(outcome.text) if adapter == "pypto" else outcome.text
    if args.output:
        write(args.output, planned, "--output")
    else:
        print_text(planned)
    return EXIT_OK if outcome.ok else EXIT_REFUSED


def _input_error(args: argparse.Namespace, error: AdapterInputError) -> int:
    """Input an adapter cannot read, at its position (and its source position), as `plan` reports it."""
    if args.json:
        print_json({"error": input_error_json(error)})
    return fail_at(input_name(args), error)


def cmd_explain(args: argparse.Namespace) -> int:
    from planner.adapters import AdapterInputError
    from planner.cli.request_files import answer_request_file
    from planner.explain import conflicts
    from planner.inputs import is_json_request

    check_outputs(args, [args.file], "--graph")
    text = read_text(args)
    if is_json_request(args.file, text):
        found = conflicts.Explained(args.file, (answer_request_file(text.encode("utf-8"), limits(args)),))
    else:
        options = adapter_options([], args.section, args.target_arch)
        try:
            context = resolve_context(args, args.file, text)
            found = conflicts.explain_ir(args.file, text, options, context=context)
        except AdapterInputError as exc:
            return _input_error(args, exc)
    if args.graph:
        from planner.explain import graph

        graph.draw(found, Path(args.graph))
    if args.json:
        print_json(conflicts.to_json(found))
    else:
        print_text(conflicts.render(found))
    return EXIT_OK if found.explanation is None else EXIT_REFUSED


def cmd_explain_plan(args: argparse.Namespace) -> int:
    from planner.adapters import AdapterInputError
    from planner.explain.remarks import explain_source

    options = adapter_options(args.option, args.section, args.target_arch)
    try:
        explained = explain_source(args.file, read_text(args), limits(args), options)
    except AdapterInputError as exc:
        return _input_error(args, exc)
    if args.json:
        print_json(explained.document)
    else:
        print_text(explained.text)
    return EXIT_OK if explained.ok else EXIT_REFUSED


def cmd_batch(args: argparse.Namespace) -> int:
    from planner.cli import batch

    inputs = batch.collect_inputs([Path(p) for p in args.paths])
    check_outputs(args, inputs, "--output", stdout=not args.output)
    progress = sys.stderr.isatty() and not args.quiet
    results = batch.run(
        inputs,
        workers=args.workers,
        dask=args.dask,
        limits=limits(args),
        progress=progress,
        module_paths=tuple(args.path),
        target_arch=args.target_arch,
    )
    lines = "".join(batch.result_line(result) + "\n" for result in results)
    if args.output:
        write(args.output, lines, "--output")
    else:
        print_text(lines)
    return max((result.exit for result in results), default=EXIT_OK)
