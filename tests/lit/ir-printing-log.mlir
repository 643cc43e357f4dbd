// An IR-printing log (TT-Lang's TTLANG_VERBOSE_PASSES=1): read as the dumps it holds, not as a
// split file. The IR dumped just before ttl-set-compute-kernel-config is configured, one section
// per function when the pass runs on functions; a note names each section taken.
// RUN: planner-opt %s -p ttl-set-compute-kernel-config 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE < %t.stderr
// RUN: planner-opt %s -p ttl-set-compute-kernel-config --section CanonicalizerPass | FileCheck %s --check-prefix=SECTION

// CHECK-LABEL: func.func @exp(
// CHECK-SAME: fp32_dest_acc_en = false
// CHECK-NOT: @log
// CHECK: // -----
// CHECK-LABEL: func.func @log(
// CHECK-SAME: fp32_dest_acc_en = false
// NOTE: ir-printing-log.mlir:[[# @LINE + 41]]:1: note: planned the IR dumped under '// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //' (line [[# @LINE + 41]] of the log; with the attributes of the module at line [[# @LINE + 7]])
// NOTE-NEXT: ir-printing-log.mlir:[[# @LINE + 74]]:1: note: planned the IR dumped under '// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //' (line [[# @LINE + 74]] of the log; with the attributes of the module at line [[# @LINE + 6]])
// SECTION-LABEL: module {
// SECTION: func.func @exp(
// SECTION: func.func @log(
// Text before the first dump (the tool's other output) is not read.
// -----// IR Dump Before CanonicalizerPass (canonicalize) //----- //
module {
  func.func @exp(%t: tensor<1x1x!ttcore.tile<32x32, bf16>> loc("kernel.py":10:12)) {
    %c0 = arith.constant 0 : index loc(#loc101)
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> loc(#loc102)
    %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc103)
    %x = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc104)
    %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16> loc(#loc105)
    return loc(#loc106)
  } loc(#loc10)
  func.func @log(%t: tensor<1x1x!ttcore.tile<32x32, bf16>> loc("kernel.py":30:12)) {
    %c0 = arith.constant 0 : index loc(#loc301)
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> loc(#loc302)
    %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc303)
    %x = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc304)
    %e = ttl.tile_log %x into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16> loc(#loc305)
    return loc(#loc306)
  } loc(#loc30)
} loc(#loc)
#loc = loc(unknown)
#loc10 = loc("kernel.py":10:1)
#loc101 = loc("kernel.py":11:5)
#loc102 = loc("kernel.py":12:5)
#loc103 = loc("kernel.py":13:5)
#loc104 = loc("kernel.py":14:5)
#loc105 = loc("kernel.py":15:5)
#loc106 = loc("kernel.py":16:5)
#loc30 = loc("kernel.py":30:1)
#loc301 = loc("kernel.py":31:5)
#loc302 = loc("kernel.py":32:5)
#loc303 = loc("kernel.py":33:5)
#loc304 = loc("kernel.py":34:5)
#loc305 = loc("kernel.py":35:5)
#loc306 = loc("kernel.py":36:5)

// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //
func.func @exp(%t: tensor<1x1x!ttcore.tile<32x32, bf16>> loc("kernel.py":10:12)) {
  %c0 = arith.constant 0 : index loc(#loc101)
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> loc(#loc102)
  %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc103)
  %x = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc104)
  %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16> loc(#loc105)
  return loc(#loc106)
} loc(#loc10)
#loc10 = loc("kernel.py":10:1)
#loc101 = loc("kernel.py":11:5)
#loc102 = loc("kernel.py":12:5)
#loc103 = loc("kernel.py":13:5)
#loc104 = loc("kernel.py":14:5)
#loc105 = loc("kernel.py":15:5)
#loc106 = loc("kernel.py":16:5)

// -----// IR Dump After TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //
func.func @exp(%t: tensor<1x1x!ttcore.tile<32x32, bf16>> loc("kernel.py":10:12)) {
  %c0 = arith.constant 0 : index loc(#loc101)
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> loc(#loc102)
  %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc103)
  %x = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc104)
  %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16> loc(#loc105)
  return loc(#loc106)
} loc(#loc10)
#loc10 = loc("kernel.py":10:1)
#loc101 = loc("kernel.py":11:5)
#loc102 = loc("kernel.py":12:5)
#loc103 = loc("kernel.py":13:5)
#loc104 = loc("kernel.py":14:5)
#loc105 = loc("kernel.py":15:5)
#loc106 = loc("kernel.py":16:5)

// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //
func.func @log(%t: tensor<1x1x!ttcore.tile<32x32, bf16>> loc("kernel.py":30:12)) {
  %c0 = arith.constant 0 : index loc(#loc301)
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> loc(#loc302)
  %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc303)
  %x = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>> loc(#loc304)
  %e = ttl.tile_log %x into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16> loc(#loc305)
  return loc(#loc306)
} loc(#loc30)
#loc30 = loc("kernel.py":30:1)
#loc301 = loc("kernel.py":31:5)
#loc302 = loc("kernel.py":32:5)
#loc303 = loc("kernel.py":33:5)
#loc304 = loc("kernel.py":34:5)
#loc305 = loc("kernel.py":35:5)
#loc306 = loc("kernel.py":36:5)

