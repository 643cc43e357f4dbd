// precision=exact (docs/design/kernel-config.md 6.10): an FPU-eligible f32 add runs on the SFPU with both
// buffers unpacked to DST; by default it runs on the FPU.
// RUN: planner-opt %s -p 'ttl-set-compute-kernel-config{precision=exact}' | FileCheck %s --check-prefix=EXACT
// RUN: planner-opt %s -p 'ttl-set-compute-kernel-config' | FileCheck %s --check-prefix=DEFAULT

// EXACT-LABEL: func.func @add_f32(
// EXACT-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>}
// EXACT: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
// DEFAULT-LABEL: func.func @add_f32(
// DEFAULT-SAME: ttl.unpack_to_dest_fp32 = array<i32>}
// DEFAULT: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<fpu>
module {
  func.func @add_f32(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %b = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %y = tensor.extract %b[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %s = ttl.tile_add %x, %y into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}
