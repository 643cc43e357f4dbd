"""TTL data movement, pipes, dataflow-buffer networks, raw element access, DST control, kernel
queries and dispatch, as `OpSpec` records.

Syntax is upstream's `TTLOps.td` (docs/design/kernel-config.md section 10 names the commit).
None of these ops reads or writes a tile in DST, so they have no execution semantics: the
kernel-config resolver never sees them, and they print back as read.
"""

from __future__ import annotations

from planner.adapters.ttlang.dialects.op_table import OpSpec

_TO_RESULT = "attr-dict `:` type($result)"
_PIPE_REGION = "$pipe `:` custom<Pipe>(type($pipe)) $body attr-dict"
_PIPE_EXTENT = (
    "`src` `(` $srcX `,` $srcY `)` `dst` `(` $dstStartX `,` $dstStartY `)` `to` `(` $dstEndX `,` $dstEndY `)`"
)
_SELECT_PIPE = (
    "(`net` $pipeNetId^)? `record` `(` $recordIndex "
    "(`,` $sourceRecordIndex^ `,` $destinationRecordIndex)? `)` "
    f"{_PIPE_EXTENT} "
    "`num_dests` `(` $numDests `)` `src_in_dst` `(` $srcInDstRange `)` "
    "`devices` `(` $sourceDeviceIndex `,` $destinationDeviceIndex `)` attr-dict `:` type($pipe)"
)
_SELECT_OPERANDS = (
    "recordIndex:index", "sourceRecordIndex?:index", "destinationRecordIndex?:index", "srcX:index",
    "srcY:index", "dstStartX:index", "dstStartY:index", "dstEndX:index", "dstEndY:index",
    "numDests:index", "srcInDstRange:i1", "sourceDeviceIndex:index", "destinationDeviceIndex:index",
)  # fmt: skip
_PIPE_COORDS = ("srcX:i64", "srcY:i64", "dstStartX:i64", "dstStartY:i64", "dstEndX:i64", "dstEndY:i64")

MOVEMENT_SPECS = (
    OpSpec(
        "tensor_slice",
        "$tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($result)",
        ("tensor", "indices*:index"),
        ("result",),
    ),
    OpSpec(
        "copy_tensor_page",
        "$source `[` $page_id `]` `,` $destination attr-dict `:` type($source) `,` type($destination) "
        "`->` type($xf)",
        ("source", "page_id:index", "destination"),
        ("xf",),
    ),
    OpSpec(
        "raw_element_read",
        "$block `[` $coords `]` attr-dict `:` type($block) `->` type($result)",
        ("block", "coords*:index"),
        ("result",),
    ),
    OpSpec(
        "read_index",
        "$block `[` $coords `]` attr-dict `:` type($block) `->` type($result)",
        ("block", "coords*:index"),
        ("result",),
    ),
    OpSpec(
        "raw_element_write",
        "$block `[` $coords `]` `,` $value attr-dict `:` type($block) `,` type($value)",
        ("block", "coords*:index", "value"),
    ),
    OpSpec("raw_addr", "$tensor attr-dict `:` type($tensor) `->` type($result)", ("tensor",), ("result",)),
    OpSpec("get_dfb_id", "$dfb attr-dict `:` custom<CB>(type($dfb))", ("dfb",), ("result:i32",)),
    OpSpec(
        "init_sfpu",
        "`(` $icb `,` $ocb `)` attr-dict `:` custom<CB>(type($icb)) `,` custom<CB>(type($ocb))",
        ("icb", "ocb"),
    ),
    OpSpec("tile_regs_acquire", "attr-dict"),
    OpSpec("tile_regs_commit", "attr-dict"),
    OpSpec("tile_regs_wait", "attr-dict"),
    OpSpec("tile_regs_release", "attr-dict"),
    OpSpec("core_x", _TO_RESULT, results=("result",)),
    OpSpec("core_y", _TO_RESULT, results=("result",)),
    OpSpec(
        "linearized_index",
        "$index_map attr-dict `:` type($result)",
        results=("result",),
        props=("index_map",),
    ),
    OpSpec(
        "is_device",
        "custom<DeviceRef>($device) `in` custom<DeviceDomain>($domain) " + _TO_RESULT,
        results=("result",),
        props=("device", "domain"),
    ),
    OpSpec(
        "current_device_index",
        "custom<DeviceDomain>($domain) " + _TO_RESULT,
        results=("result",),
        props=("domain",),
    ),
    OpSpec(
        "is_device_in_range",
        "custom<DeviceRange>($range) `in` custom<DeviceDomain>($domain) " + _TO_RESULT,
        results=("result",),
        props=("range", "domain"),
    ),
    OpSpec(
        "create_pipe",
        f"{_PIPE_EXTENT} `net` $pipeNetId attr-dict `:` custom<Pipe>(type($result))",
        results=("result",),
        props=(*_PIPE_COORDS, "pipeNetId:i64"),
    ),
    OpSpec("if_src", _PIPE_REGION, ("pipe",), regions=("body",), no_terminator=True),
    OpSpec("if_dst", _PIPE_REGION, ("pipe",), regions=("body",), no_terminator=True),
    OpSpec("pipenet_foreach_src", "attr-dict-with-keyword $body", regions=("body",), no_terminator=True),
    OpSpec("pipenet_foreach_dst", "attr-dict-with-keyword $body", regions=("body",), no_terminator=True),
    OpSpec("pipenet_scope", "attr-dict-with-keyword $body", regions=("body",), no_terminator=True),
    OpSpec("select_pipe_src", _SELECT_PIPE, _SELECT_OPERANDS, ("pipe",), ("pipeNetId?:i64",)),
    OpSpec("select_pipe_dst", _SELECT_PIPE, _SELECT_OPERANDS, ("pipe",), ("pipeNetId?:i64",)),
    *(
        OpSpec(f"selected_pipe_{name}", "$pipe attr-dict `:` type($pipe)", ("pipe",), results)
        for name, results in (
            ("source_device_index", ("result:index",)),
            ("destination_device_index", ("result:index",)),
            ("source_coordinates", ("x:index", "y:index")),
            ("destination_coordinates", ("startX:index", "startY:index", "endX:index", "endY:index")),
        )
    ),
    OpSpec(
        "pipe_transfer.create",
        "$pipe attr-dict `:` type($pipe) `->` type($transfer)",
        ("pipe",),
        ("transfer",),
    ),
    OpSpec(
        "pipe_transfer.post",
        "$transfer `,` $dst attr-dict `:` functional-type(operands, results)",
        ("transfer", "dst"),
        ("token",),
    ),
    OpSpec(
        "pipe_transfer.send",
        "$transfer `,` $src attr-dict `:` functional-type(operands, results)",
        ("transfer", "src"),
        ("xf",),
    ),
    OpSpec("pipe_transfer.wait", "$token attr-dict `:` custom<PipeToken>(type($token))", ("token",)),
    OpSpec("is_src", "attr-dict", results=("result:i1",)),
    OpSpec("is_dst", "attr-dict", results=("result:i1",)),
    OpSpec("is_active", "attr-dict", results=("result:i1",)),
    OpSpec(
        "opaque_call",
        "$callee (`template_args` $template_args^)? "
        "(`template_dfbs` `(` $template_dfb_operands^ `:` type($template_dfb_operands) `)`)? "
        "(`dfb_dependencies` `(` $dependency_dfb_operands^ `:` type($dependency_dfb_operands) `)`)? "
        "(`dfb_effects` $dfb_effects^)? (`dfb_accesses` $dfb_accesses^)? `(` $arg_operands `)` attr-dict `:` "
        "functional-type($arg_operands, $result)",
        ("arg_operands*", "template_dfb_operands*", "dependency_dfb_operands*"),
        ("result?",),
        ("callee:str", "template_args?", "dfb_effects?", "dfb_accesses?"),
    ),
    OpSpec(
        "dispatch.target",
        "$sym_name `:` $function_type attr-dict",
        props=("sym_name:symbol", "function_type:fntype"),
    ),
    OpSpec(
        "dispatch.invoke",
        "$callee `(` ($args^ `:` type($args))? `)` attr-dict",
        ("args*",),
        props=("callee:symref",),
    ),
    OpSpec(
        "dfb.network",
        "$sym_name attr-dict-with-keyword $body",
        props=("sym_name:symbol",),
        regions=("body",),
        no_terminator=True,
    ),
    OpSpec(
        "dfb.fork",
        "$sym_name $source `->` $outputs `storage` `=` custom<DfbStorage>($storage) attr-dict",
        props=("sym_name:symbol", "source", "outputs:dense", "storage"),
    ),
    OpSpec(
        "dfb.split",
        "$sym_name $source `->` $outputs `policy` `=` custom<DfbPolicy>($policy) attr-dict",
        props=("sym_name:symbol", "source", "outputs:dense", "policy"),
    ),
    OpSpec(
        "dfb.merge",
        "$sym_name $inputs `policy` `=` custom<DfbPolicy>($policy) attr-dict",
        props=("sym_name:symbol", "inputs", "policy"),
    ),
    OpSpec("signpost", "$name attr-dict", props=("name:str",)),
    OpSpec("dprint", "$fmt `(` $argv `)` attr-dict `:` `(` type($argv) `)`", ("argv*",), props=("fmt:str",)),
)
