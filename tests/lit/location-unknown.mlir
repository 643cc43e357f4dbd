// An unknown location has no file position: the diagnostic stays at the op in this file.
// RUN: not planner-opt %s -p ttl-set-compute-kernel-config 2>&1 >/dev/null | FileCheck %s
// CHECK: {{.*}}location-unknown.mlir:13:10: error: 'ttl.tile_bcast' op dataflow buffer 1 requires incompatible unpack modes in one kernel
// CHECK-NEXT: {{.*}}location-unknown.mlir:12:8: note: operand 0 establishes the conflicting unpack mode
// CHECK-NOT: the op in the IR
func.func @exp_and_bcast(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cb = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %tile = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %e = ttl.tile_exp %tile into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32> loc(unknown)
  %row = ttl.tile_bcast %tile, %tile 2 : i32 into dst[%c1] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32> loc(unknown)
  return
}
