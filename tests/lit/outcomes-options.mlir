// Section 9 outcomes that depend on pass options.
// RUN: planner-opt %s -split-input-file -p 'ttl-set-compute-kernel-config{enable-fpu-binary-ops=0}' | FileCheck %s --check-prefix=FPU-OFF
// RUN: planner-opt %s -split-input-file -p 'ttl-set-compute-kernel-config{reduce-full-fp32=0 matmul-full-fp32=false}' | FileCheck %s --check-prefix=PREFS-OFF

// FPU binary policy off: the add runs on the SFPU and both buffers unpack to DST.
// FPU-OFF-LABEL: func.func @add_store_fpu_off(
// FPU-OFF-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// FPU-OFF: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @add_store_fpu_off(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
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

// bf16 with the full-fp32 preferences off: 16-bit.
// PREFS-OFF-LABEL: func.func @reduce_row_prefs_off(
// PREFS-OFF-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @reduce_row_prefs_off(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
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

// bf16 with the full-fp32 preferences off: 16-bit.
// PREFS-OFF-LABEL: func.func @reduce_col_prefs_off(
// PREFS-OFF-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @reduce_col_prefs_off(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
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

// bf16 with the full-fp32 preferences off: 16-bit.
// PREFS-OFF-LABEL: func.func @matmul_prefs_off(
// PREFS-OFF-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
module {
  func.func @matmul_prefs_off(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
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

// bf16 with the full-fp32 preferences off: 16-bit.
// PREFS-OFF-LABEL: func.func @matmul_bcast_add_prefs_off(
// PREFS-OFF-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>
// PREFS-OFF: ttl.tile_add {{.*}}#ttl.tile_execution_strategy<sfpu>
module {
  func.func @matmul_bcast_add_prefs_off(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
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
