// A function dumped alone (the pass runs on functions, the log printed without
// --mlir-print-ir-module-scope) and no dump of its module: the module's attributes, its target
// among them, are unknown. A bf16 column reduce gets 16-bit DST on Wormhole B0 (no full-fp32
// column reduce there) and 32-bit elsewhere, so the plan depends on the target: refused, naming
// the decision and both fixes. Given the target, it is planned for it.
// RUN: not planner-opt %s -p ttl-set-compute-kernel-config 2>&1 >/dev/null | FileCheck %s --check-prefix=UNKNOWN
// RUN: planner-opt %s -p ttl-set-compute-kernel-config -verify-diagnostics -o /dev/null
// RUN: planner-opt %s -p ttl-set-compute-kernel-config --target-arch wormhole_b0 2>/dev/null | FileCheck %s --check-prefix=WORMHOLE
// RUN: planner-opt %s -p ttl-set-compute-kernel-config --target-arch blackhole 2>/dev/null | FileCheck %s --check-prefix=BLACKHOLE
// RUN: planner plan %s --target-arch blackhole 2>/dev/null | FileCheck %s --check-prefix=PLAN

// UNKNOWN: ir-log-function-target.mlir:[[# @LINE + 15]]:1: error: 'func.func' op function @col_reduce is dumped without its module, whose attributes (the target) the log does not show, and its dst_width depends on the target (16 under wormhole_b0; 32 under blackhole, none); print the log with --mlir-print-ir-module-scope, or give the target with --target-arch NAME (wormhole_b0, blackhole, none)
// UNKNOWN-NEXT: ir-log-function-target.mlir:[[# @LINE + 12]]:1: note: planned the IR dumped under '// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //' (line [[# @LINE + 12]] of the log; it holds functions alone and no earlier dump shows their module, so the module's attributes (its target) are not known: a function is planned only where its plan is the same under every target (wormhole_b0, blackhole, none), unless --target-arch names the target; print the log with --mlir-print-ir-module-scope to show them)

// WORMHOLE-LABEL: func.func @col_reduce(
// WORMHOLE-SAME: fp32_dest_acc_en = false

// BLACKHOLE-LABEL: func.func @col_reduce(
// BLACKHOLE-SAME: fp32_dest_acc_en = true

// `planner plan` returns the log with only the function's attributes rewritten.
// PLAN: func.func @col_reduce({{.*}}) attributes {dst_full_sync_en = false, fp32_dest_acc_en ={{ }}true

// Text before the first dump (the tool's other output) is not read.
// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //
// expected-error @below {{its dst_width depends on the target (16 under wormhole_b0; 32 under blackhole, none)}}
func.func @col_reduce(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>, %b: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
  %c0 = arith.constant 0 : index
  %cb0 = ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %cb1 = ttl.bind_cb{cb_index = 1, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %ta = ttl.attach_cb %a, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %tb = ttl.attach_cb %b, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %x = tensor.extract %ta[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
  %y = tensor.extract %tb[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
  %r = ttl.tile_reduce %x, %y, %x 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
  return
}
