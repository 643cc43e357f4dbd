// Split input: each chunk is planned on its own; a refused chunk prints nothing and the
// others still print, separated as in the input.
// RUN: not planner-opt %s -split-input-file -p ttl-set-compute-kernel-config 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.stderr

// CHECK-LABEL: func.func @first(
// CHECK-SAME: fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0>
// CHECK-NOT: @second
// CHECK: // -----
// CHECK-LABEL: func.func @third(
// CHECK-SAME: fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
// ERR: split.mlir:[[# @LINE + 19]]:8: error: 'ttl.tile_bcast' op dataflow buffer 0 requires incompatible unpack modes in one kernel
// ERR: split.mlir:[[# @LINE + 17]]:8: note: operand 0 establishes the conflicting unpack mode
func.func @first(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) {
  %c0 = arith.constant 0 : index
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %a = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
  return
}

// -----

func.func @second(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) {
  %c0 = arith.constant 0 : index
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %a = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
  %b = ttl.tile_bcast %x, %x 2 : i32 into dst[%c0] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
  return
}

// -----

func.func @third(%t: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
  %c0 = arith.constant 0 : index
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %a = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
  %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
  return
}
