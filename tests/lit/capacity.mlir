// DST capacity (docs/design/kernel-config.md 4.6, 6.8): under dst-full-sync-en=auto the sync is
// double-buffered unless an op needs the slots only full sync gives.
// RUN: planner-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(ttl-set-compute-kernel-config{fp32-dest-acc-en=enabled dst-full-sync-en=auto reduce-full-fp32=0 matmul-full-fp32=0 enable-fpu-binary-ops=0}))' | FileCheck %s
// RUN: planner-opt %s -split-input-file -p 'ttl-set-compute-kernel-config' | FileCheck %s --check-prefix=AUTO

// Five tiles at 32 bits: double buffering gives 4, full sync 8.
// CHECK-LABEL: func.func @five_rows(
// CHECK-SAME: dst_full_sync_en = true, fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = array<i32>}
// Both options auto: 16 bits double-buffered give 8.
// AUTO-LABEL: func.func @five_rows(
// AUTO-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.unpack_to_dest_fp32 = array<i32>}
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @five_rows(%x: tensor<1x5x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %in = ttl.bind_cb {cb_index = 0, block_count = 1} : !ttl.cb<[1, 5], !ttcore.tile<32x32, bf16>, 1>
    %xv = ttl.attach_cb %x, %in : (tensor<1x5x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 5], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x5x!ttcore.tile<32x32, bf16>>
    %t = tensor.extract %xv[%c0, %c0] : tensor<1x5x!ttcore.tile<32x32, bf16>>
    %n = ttl.tile_row_normalization_block %t, %t, %t scale = 2.0e-01 epsilon = 1.0e-05 has_gamma = false num_tiles = 5 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// Four tiles fit 32 bits double-buffered.
// CHECK-LABEL: func.func @four_rows(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true
// Twelve tiles with both options auto: only 16 bits with full sync.
// AUTO-LABEL: func.func @four_rows(
// AUTO-SAME: dst_full_sync_en = false, fp32_dest_acc_en = false
// AUTO-LABEL: func.func @twelve_rows(
// AUTO-SAME: dst_full_sync_en = true, fp32_dest_acc_en = false
module {
  func.func @four_rows(%x: tensor<1x4x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %in = ttl.bind_cb {cb_index = 1, block_count = 1} : !ttl.cb<[1, 4], !ttcore.tile<32x32, bf16>, 1>
    %xv = ttl.attach_cb %x, %in : (tensor<1x4x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 4], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x4x!ttcore.tile<32x32, bf16>>
    %t = tensor.extract %xv[%c0, %c0] : tensor<1x4x!ttcore.tile<32x32, bf16>>
    %n = ttl.tile_row_normalization_block %t, %t, %t scale = 2.5e-01 epsilon = 1.0e-05 has_gamma = false num_tiles = 4 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
  func.func @twelve_rows(%x: tensor<1x12x!ttcore.tile<32x32, bf16>>) attributes {fp32_dest_acc_en = false} {
    %c0 = arith.constant 0 : index
    %in = ttl.bind_cb {cb_index = 2, block_count = 1} : !ttl.cb<[1, 12], !ttcore.tile<32x32, bf16>, 1>
    %xv = ttl.attach_cb %x, %in : (tensor<1x12x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 12], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x12x!ttcore.tile<32x32, bf16>>
    %t = tensor.extract %xv[%c0, %c0] : tensor<1x12x!ttcore.tile<32x32, bf16>>
    %n = ttl.tile_row_normalization_block %t, %t, %t scale = 8.0e-02 epsilon = 1.0e-05 has_gamma = false num_tiles = 12 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}
