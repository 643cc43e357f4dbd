// Other dialects pass through: attributes such as #ttkernel.thread, ops in generic form,
// and TTCore's device op in its own syntax, all printed back unchanged.
// RUN: planner-opt %s -p 'ttl-set-compute-kernel-config{fp32-dest-acc-en=auto}' | FileCheck %s

// CHECK: ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), chipIds = [0]>
// CHECK-LABEL: func.func @compute_thread(
// CHECK-SAME: attributes {dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.kernel_thread = #ttkernel.thread<compute>, ttl.unpack_to_dest_fp32 = array<i32: 0>}
// CHECK: "ttkernel.cb_wait_front"(%{{.*}}) {pages = #ttkernel.pages<1>} : (index) -> ()
// CHECK: ttl.tile_exp
// CHECK: "d2m.core_index"() <{dim = 0 : i64}> : () -> index
module attributes {ttnn.meshes = #ttnn.meshes<[<"mesh" = 1x1>]>} {
  ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), chipIds = [0]>
  func.func @compute_thread(%t: tensor<1x1x!ttcore.tile<32x32, f32>>)
      attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %c0 = arith.constant 0 : index
    "ttkernel.cb_wait_front"(%c0) {pages = #ttkernel.pages<1>} : (index) -> ()
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %n = "d2m.core_index"() <{dim = 0 : i64}> : () -> index
    return
  }
}
