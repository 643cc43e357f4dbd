"""The NZ layout tools: `planner layout show|pack|unpack` and `planner suggest`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planner.cli.io import (
    EXIT_OK,
    EXIT_REFUSED,
    adapter_options,
    bad_params,
    check_outputs,
    fail_at,
    input_error_json,
    input_name,
    print_json,
    print_text,
    read_text,
    write,
)
from planner.cli.module_paths import resolve_context


def cmd_layout_show(args: argparse.Namespace) -> int:
    from planner.explain import fractals

    check_outputs(args, [], "--png", stdout=not args.png)
    grid = fractals.fractal_grid(args.spec)
    if args.png:
        fractals.draw_png(grid, Path(args.png))
    else:
        print_text(fractals.render(grid))
    return EXIT_OK


def cmd_layout_pack(args: argparse.Namespace) -> int:
    from planner.weights import packing

    source, target = Path(args.file), Path(args.output)
    if args.tensors is not None:
        done = packing.pack_safetensors(source, target, _names(args.tensors), args.dtype)
    else:
        done = packing.pack_npy(source, target, _required_dtype(args.dtype, source))
    print_text("".join(packed.describe(packing=True) + "\n" for packed in done))
    return EXIT_OK


def cmd_layout_unpack(args: argparse.Namespace) -> int:
    from planner.weights import packing

    source, target = Path(args.file), Path(args.output)
    shape = None if args.shape is None else packing.parse_shape(args.shape)
    if args.tensors is not None:
        done = packing.unpack_safetensors(source, target, _names(args.tensors), args.dtype, shape)
    elif shape is None:
        raise bad_params("unpacking an .npy array needs its logical shape: --shape R,C")
    else:
        done = packing.unpack_npy(source, target, _required_dtype(args.dtype, source), shape)
    print_text("".join(packed.describe(packing=False) + "\n" for packed in done))
    return EXIT_OK


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise bad_params("--tensors expects tensor names like wq,wk")
    return names


def _required_dtype(dtype: str | None, source: Path) -> str:
    if dtype is None:
        hint = " (or --tensors NAMES for a .safetensors file)" if source.suffix == ".safetensors" else ""
        raise bad_params(f"name the PyPTO dtype with --dtype, e.g. --dtype INT8{hint}")
    return dtype


def cmd_suggest(args: argparse.Namespace) -> int:
    from planner.adapters import AdapterInputError, detect_adapter
    from planner.advice import suggest
    from planner.inputs import encode_like_source

    check_outputs(args, [], "--output")  # -o naming the input is --apply in place
    text = read_text(args)
    filename = input_name(args)
    if args.apply and args.file == "-" and not args.output:
        raise bad_params("--apply on stdin needs -o OUT")
    try:
        if detect_adapter(filename, text) != "pypto":
            raise bad_params(f"{filename}: suggest reads PyPTO programs; NZ layout is a PyPTO feature")
        options = adapter_options(args.option)
        context = resolve_context(args, filename, text)
        found = suggest.suggest_text(text, filename=filename, options=options, context=context)
    except AdapterInputError as exc:
        if args.json:
            print_json({"error": input_error_json(exc)})
        return fail_at(filename, exc)
    if args.json:
        print_json(found.response.model_dump(mode="json"))
    else:
        print_text(suggest.render(filename, found.response))
    if args.apply:
        target = Path(args.output or args.file)
        if args.output or found.annotated != text:
            write(str(target), encode_like_source(found.annotated), "--output")  # its own encoding
        eligible = [t for t in found.response.tensors if t.eligible]
        named = ", ".join(n for t in eligible for n in [f"{t.name} in {t.function}", *t.also_annotated])
        named = named or "no tensor"
        sys.stderr.write(f"planner: annotated {named} with pl.NZ in {target}\n")
    return EXIT_REFUSED if found.response.unread_kernels else EXIT_OK  # some kernel got no answer
