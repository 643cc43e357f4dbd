"""A TT-Lang function in MLIR text around a body of tile ops, shared by the adapter's tests."""

from __future__ import annotations

TILE = "!ttcore.tile<32x32, f32>"
TENSOR = f"tensor<1x1x{TILE}>"
CB = f"!ttl.cb<[1, 1], {TILE}, 2>"


def kernel(
    body: str, *, func_attrs: str = "", module_attrs: str = "", args: str = "", prelude: str = ""
) -> str:
    """One function whose `%x` and `%y` tiles read DFB 0 and DFB 1; `body` starts on line 11."""
    module = f" attributes {{{module_attrs}}}" if module_attrs else ""
    function = f" attributes {{{func_attrs}}}" if func_attrs else ""
    return (
        f"module{module} {{\n{prelude}"
        f"  func.func @f(%t: {TENSOR}, %u: {TENSOR}{args}){function} {{\n"
        "    %c0 = arith.constant 0 : index\n"
        f"    %b0 = ttl.bind_cb {{cb_index = 0, block_count = 2}} : {CB}\n"
        f"    %b1 = ttl.bind_cb {{cb_index = 1, block_count = 2}} : {CB}\n"
        f"    %a0 = ttl.attach_cb %t, %b0 : ({TENSOR}, {CB}) -> {TENSOR}\n"
        f"    %a1 = ttl.attach_cb %u, %b1 : ({TENSOR}, {CB}) -> {TENSOR}\n"
        f"    %x = tensor.extract %a0[%c0, %c0] : {TENSOR}\n"
        f"    %y = tensor.extract %a1[%c0, %c0] : {TENSOR}\n"
        "    // body\n"
        f"{body}"
        "    return\n  }\n}\n"
    )
