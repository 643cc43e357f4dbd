"""The upstream half of `make upstream`, run by the `tt-lang` wheel's interpreter (CPython 3.12).

Reads a JSON list of MLIR texts on stdin and writes, for each, what upstream's parser makes of
it: `{"error": message}` when it does not read it, else its generic print (`generic`), the
same with debug info (`generic_debug`), and its custom print with debug info, inline
(`debug_inline`) and with MLIR's location aliases (`debug_aliases`). Nothing of ours is imported here.
"""

from __future__ import annotations

import json
import sys

import ttl.ir as ir  # the wheel's MLIR bindings, with TTL, TTCore and TTKernel registered


def read(text: str) -> dict[str, str]:
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    try:
        module = ir.Module.parse(text, ctx)
    except Exception as error:  # any refusal means "upstream does not read it"
        return {"error": " ".join(str(error).split())}
    operation = module.operation
    return {
        "generic": operation.get_asm(print_generic_op_form=True),
        "generic_debug": operation.get_asm(print_generic_op_form=True, enable_debug_info=True),
        "debug_inline": operation.get_asm(enable_debug_info=True, use_local_scope=True),
        "debug_aliases": operation.get_asm(enable_debug_info=True),
    }


def main() -> None:
    texts = json.load(sys.stdin)
    json.dump([read(text) for text in texts], sys.stdout)


if __name__ == "__main__":
    main()
