// Section 9 of the kernel-config design: every plan outcome, checked on canonical output.
// RUN: planner-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(ttl-set-compute-kernel-config))' | FileCheck %s

// f32 add of DFB 0 and DFB 1 at the same tile, then a store: the add runs on the FPU.
// CHECK-LABEL: func.func @add_store(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<fpu>
module {
  func.func @add_store(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %v0 = ttl.cb_reserve %cb0 : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
    ttl.tile_store %s, %v0[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
    return
  }
}

// -----

// f32 exp on DFB 1 with the same add: SFPU and unpack to DST for both buffers.
// CHECK-LABEL: func.func @exp_then_add(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @exp_then_add(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x1 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// The same, the exp after the add and in another region.
// CHECK-LABEL: func.func @add_then_exp_in_if(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @add_then_exp_in_if(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>, %cond: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    scf.if %cond {
      %e = ttl.tile_exp %x1 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
      scf.yield
    }
    return
  }
}

// -----

// Sixteen-row tiles plan the same.
// CHECK-LABEL: func.func @exp_add_16x32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @exp_add_16x32(%t0: tensor<1x1x!ttcore.tile<16x32, f32>>, %t1: tensor<1x1x!ttcore.tile<16x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<16x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<16x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<16x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<16x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<16x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<16x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<16x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<16x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<16x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<16x32, f32>>
    %e = ttl.tile_exp %x1 into dst[%c0] : !ttcore.tile<16x32, f32> -> !ttcore.tile<16x32, f32>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<16x32, f32>, !ttcore.tile<16x32, f32> -> !ttcore.tile<16x32, f32>
    return
  }
}

// -----

// f32 sub and mul of DFB 0 and DFB 1 with an exp on DFB 1: both SFPU.
// CHECK-LABEL: func.func @sub_mul_exp(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: ttl.tile_sub {{.*}}#ttl.tile_execution_strategy<sfpu>
// CHECK: ttl.tile_mul {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @sub_mul_exp(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %d = ttl.tile_sub %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %p = ttl.tile_mul %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %e = ttl.tile_exp %x1 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// An add feeding a mul with DFB 1: the mul has only SFPU, and so the add joins it.
// CHECK-LABEL: func.func @add_into_mul(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
// CHECK: ttl.tile_mul {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @add_into_mul(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %p = ttl.tile_mul %s, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 reduce only.
// CHECK-LABEL: func.func @reduce_only(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @reduce_only(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 broadcast only.
// CHECK-LABEL: func.func @bcast_only(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @bcast_only(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %b = ttl.tile_bcast %x0, %x0 2 : i32 into dst[%c0] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// An FPU add whose result feeds an exp: the exp reads DST, no unpack.
// CHECK-LABEL: func.func @add_then_exp_of_it(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<fpu>
module {
  func.func @add_then_exp_of_it(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %e = ttl.tile_exp %s into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 exp dfb0.
// CHECK-LABEL: func.func @exp_dfb0(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0>
module {
  func.func @exp_dfb0(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 exp dfb2.
// CHECK-LABEL: func.func @exp_dfb2(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 2>
module {
  func.func @exp_dfb2(%t2: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb2 = ttl.bind_cb {cb_index = 2, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a2 = ttl.attach_cb %t2, %cb2 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x2 = tensor.extract %a2[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x2 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 exp dfb0 dfb2.
// CHECK-LABEL: func.func @exp_dfb0_dfb2(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 2>
module {
  func.func @exp_dfb0_dfb2(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t2: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb2 = ttl.bind_cb {cb_index = 2, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a2 = ttl.attach_cb %t2, %cb2 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x2 = tensor.extract %a2[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %f = ttl.tile_exp %x2 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 copy tile dfb4.
// CHECK-LABEL: func.func @copy_tile_dfb4(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 4>
module {
  func.func @copy_tile_dfb4(%t4: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb4 = ttl.bind_cb {cb_index = 4, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a4 = ttl.attach_cb %t4, %cb4 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x4 = tensor.extract %a4[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %tok, %cp = ttl.copy_tile %x4[%c0, %c0] into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttl.dst, !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 store of a compute input on DFB 3.
// CHECK-LABEL: func.func @store_compute_input(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 3>
module {
  func.func @store_compute_input(%t3: tensor<1x1x!ttcore.tile<32x32, f32>>, %t5: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb3 = ttl.bind_cb {cb_index = 3, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a3 = ttl.attach_cb %t3, %cb3 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x3 = tensor.extract %a3[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb5 = ttl.bind_cb {cb_index = 5, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a5 = ttl.attach_cb %t5, %cb5 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x5 = tensor.extract %a5[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %v3 = ttl.cb_reserve %cb3 : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %r = ttl.compute ins(%a3 : tensor<1x1x!ttcore.tile<32x32, f32>>) outs(%a5 : tensor<1x1x!ttcore.tile<32x32, f32>>) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} {
    ^bb0(%in: !ttcore.tile<32x32, f32>, %out: !ttcore.tile<32x32, f32>):
      ttl.tile_store %in, %v3[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
      ttl.yield
    } -> tensor<1x1x!ttcore.tile<32x32, f32>>
    return
  }
}

// -----

// f32 abs of a compute output argument on DFB 5.
// CHECK-LABEL: func.func @abs_compute_output(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 5>
module {
  func.func @abs_compute_output(%t3: tensor<1x1x!ttcore.tile<32x32, f32>>, %t5: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb3 = ttl.bind_cb {cb_index = 3, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a3 = ttl.attach_cb %t3, %cb3 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x3 = tensor.extract %a3[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb5 = ttl.bind_cb {cb_index = 5, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a5 = ttl.attach_cb %t5, %cb5 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x5 = tensor.extract %a5[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %r = ttl.compute ins(%a3 : tensor<1x1x!ttcore.tile<32x32, f32>>) outs(%a5 : tensor<1x1x!ttcore.tile<32x32, f32>>) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} {
    ^bb0(%in: !ttcore.tile<32x32, f32>, %out: !ttcore.tile<32x32, f32>):
      %e = ttl.tile_abs %out into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
      ttl.yield
    } -> tensor<1x1x!ttcore.tile<32x32, f32>>
    return
  }
}

// -----

// bf16 to f32 typecast.
// CHECK-LABEL: func.func @typecast_to_f32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @typecast_to_f32(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %e = ttl.tile_typecast %x0 into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// f32 to bf16 typecast.
// CHECK-LABEL: func.func @typecast_from_f32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0>
module {
  func.func @typecast_from_f32(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_typecast %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// si32 store from a DFB.
// CHECK-LABEL: func.func @store_si32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @store_si32(%t0: tensor<1x1x!ttcore.tile<32x32, si32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, si32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, si32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, si32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, si32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, si32>>
    %v0 = ttl.cb_reserve %cb0 : <[1, 1], !ttcore.tile<32x32, si32>, 2> -> tensor<1x1x!ttcore.tile<32x32, si32>>
    ttl.tile_store %x0, %v0[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, si32>, tensor<1x1x!ttcore.tile<32x32, si32>>
    return
  }
}

// -----

// u32 store from a DFB.
// CHECK-LABEL: func.func @store_u32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @store_u32(%t0: tensor<1x1x!ttcore.tile<32x32, u32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, u32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, u32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, u32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, u32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, u32>>
    %v0 = ttl.cb_reserve %cb0 : <[1, 1], !ttcore.tile<32x32, u32>, 2> -> tensor<1x1x!ttcore.tile<32x32, u32>>
    ttl.tile_store %x0, %v0[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, u32>, tensor<1x1x!ttcore.tile<32x32, u32>>
    return
  }
}

// -----

// u16 store from a DFB.
// CHECK-LABEL: func.func @store_u16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @store_u16(%t0: tensor<1x1x!ttcore.tile<32x32, u16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, u16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, u16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, u16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, u16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, u16>>
    %v0 = ttl.cb_reserve %cb0 : <[1, 1], !ttcore.tile<32x32, u16>, 2> -> tensor<1x1x!ttcore.tile<32x32, u16>>
    ttl.tile_store %x0, %v0[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, u16>, tensor<1x1x!ttcore.tile<32x32, u16>>
    return
  }
}

// -----

// bf16 store from a DFB.
// CHECK-LABEL: func.func @store_bf16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @store_bf16(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %v0 = ttl.cb_reserve %cb0 : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.tile_store %x0, %v0[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, bf16>, tensor<1x1x!ttcore.tile<32x32, bf16>>
    return
  }
}

// -----

// si32 add of the same tile: SFPU (the FPU needs a float result).
// CHECK-LABEL: func.func @add_si32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @add_si32(%t0: tensor<1x1x!ttcore.tile<32x32, si32>>, %t1: tensor<1x1x!ttcore.tile<32x32, si32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, si32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, si32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, si32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, si32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, si32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, si32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, si32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, si32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, si32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, si32>>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, si32>, !ttcore.tile<32x32, si32> -> !ttcore.tile<32x32, si32>
    return
  }
}

// -----

// bf16 row reduce prefers full-fp32 accumulation.
// CHECK-LABEL: func.func @reduce_row_bf16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @reduce_row_bf16(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// bf16 col reduce prefers full-fp32 accumulation.
// CHECK-LABEL: func.func @reduce_col_bf16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @reduce_col_bf16(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// bf16 matmul prefers full-fp32 accumulation.
// CHECK-LABEL: func.func @matmul_bf16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @matmul_bf16(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %m = ttl.tile_matmul_block %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// bf16 matmul, col broadcast and an add of both results.
// CHECK-LABEL: func.func @matmul_bcast_add(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @matmul_bcast_add(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %m = ttl.tile_matmul_block %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %b = ttl.tile_bcast %x0, %x0 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %s = ttl.tile_add %m, %b into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Blackhole bf16 row reduce: 16-bit (row reduce warns, see diagnostics.mlir).
// CHECK-LABEL: func.func @bh_reduce_row(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_reduce_row(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Blackhole bf16 row and col reduce: 32-bit.
// CHECK-LABEL: func.func @bh_reduce_row_col(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_reduce_row_col(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %q = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Wormhole B0 bf16 row reduce: 16-bit, no warning.
// CHECK-LABEL: func.func @wh_reduce_row(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @wh_reduce_row(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Wormhole B0 bf16 col reduce: 16-bit, no warning.
// CHECK-LABEL: func.func @wh_reduce_col(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @wh_reduce_col(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Wormhole B0 bf16 matmul: 32-bit.
// CHECK-LABEL: func.func @wh_matmul(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @wh_matmul(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %m = ttl.tile_matmul_block %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Blackhole bf16 matmul, col broadcast and add: 16-bit, add SFPU (the matmul warns).
// CHECK-LABEL: func.func @bh_matmul_bcast_add(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_matmul_bcast_add(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %m = ttl.tile_matmul_block %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %b = ttl.tile_bcast %x0, %x0 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %s = ttl.tile_add %m, %b into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// fp32_dest_acc_en = false with a bf16 reduce: 16-bit, no warning.
// CHECK-LABEL: func.func @disabled_reduce(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @disabled_reduce(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {fp32_dest_acc_en = false} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// fp32_dest_acc_en = true, dst_full_sync_en = false, f32 store of DFB 2.
// CHECK-LABEL: func.func @enabled_store(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 2>
module {
  func.func @enabled_store(%t2: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {fp32_dest_acc_en = true, dst_full_sync_en = false} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb2 = ttl.bind_cb {cb_index = 2, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a2 = ttl.attach_cb %t2, %cb2 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x2 = tensor.extract %a2[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %v2 = ttl.cb_reserve %cb2 : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
    ttl.tile_store %x2, %v2[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
    return
  }
}

// -----

// dst_full_sync_en = true with a bf16 store: full synchronization.
// CHECK-LABEL: func.func @full_sync(
// CHECK-SAME: dst_full_sync_en = true, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @full_sync(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {dst_full_sync_en = true} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %v0 = ttl.cb_reserve %cb0 : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.tile_store %x0, %v0[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, bf16>, tensor<1x1x!ttcore.tile<32x32, bf16>>
    return
  }
}

// -----

// Explicit [0] with bf16 abs, broadcast, add and copy_tile on DFB 0: the inert entry is kept.
// CHECK-LABEL: func.func @explicit_inert_bf16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32: 0>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<fpu>
module {
  func.func @explicit_inert_bf16(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {ttl.unpack_to_dest_fp32 = array<i32: 0>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %e = ttl.tile_abs %x0 into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %b = ttl.tile_bcast %x0, %x0 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %tok, %cp = ttl.copy_tile %x0[%c0, %c0] into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttl.dst, !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Explicit [0] with f16 abs, broadcast, add and copy_tile on DFB 0: the inert entry is kept.
// CHECK-LABEL: func.func @explicit_inert_f16(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32: 0>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<fpu>
module {
  func.func @explicit_inert_f16(%t0: tensor<1x1x!ttcore.tile<32x32, f16>>, %t1: tensor<1x1x!ttcore.tile<32x32, f16>>) attributes {ttl.unpack_to_dest_fp32 = array<i32: 0>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f16>>
    %e = ttl.tile_abs %x0 into dst[%c0] : !ttcore.tile<32x32, f16> -> !ttcore.tile<32x32, f16>
    %b = ttl.tile_bcast %x0, %x0 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, f16>, !ttcore.tile<32x32, f16>) -> !ttcore.tile<32x32, f16>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f16>, !ttcore.tile<32x32, f16> -> !ttcore.tile<32x32, f16>
    %tok, %cp = ttl.copy_tile %x0[%c0, %c0] into dst[%c0] : !ttcore.tile<32x32, f16> -> !ttl.dst, !ttcore.tile<32x32, f16>
    return
  }
}

// -----

// Explicit [0, 1] with an f32 add of the same tile: SFPU.
// CHECK-LABEL: func.func @explicit_add(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @explicit_add(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.unpack_to_dest_fp32 = array<i32: 1, 0>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %s = ttl.tile_add %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// Blackhole exp on DFB 32 with explicit [32].
// CHECK-LABEL: func.func @bh_dfb32(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 32>
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_dfb32(%t32: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.unpack_to_dest_fp32 = array<i32: 32>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb32 = ttl.bind_cb {cb_index = 32, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a32 = ttl.attach_cb %t32, %cb32 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x32 = tensor.extract %a32[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x32 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// Blackhole exp on DFB 63.
// CHECK-LABEL: func.func @bh_dfb63(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 63>
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_dfb63(%t63: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb63 = ttl.bind_cb {cb_index = 63, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a63 = ttl.attach_cb %t63, %cb63 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x63 = tensor.extract %a63[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x63 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// No tile ops, policy enabled/enabled: the attributes are still written.
// CHECK-LABEL: func.func @no_ops(
// CHECK-SAME: dst_full_sync_en = true, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @no_ops() attributes {fp32_dest_acc_en = true, dst_full_sync_en = true} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    return
  }
}
