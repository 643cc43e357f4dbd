// DST capacity (docs/design/kernel-config.md 4.6): a row normalization holding more tiles than
// any allowed width and sync give is refused with upstream's wording.
// RUN: planner-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(ttl-set-compute-kernel-config{fp32-dest-acc-en=enabled dst-full-sync-en=disabled reduce-full-fp32=0 matmul-full-fp32=0 enable-fpu-binary-ops=0})'

// 32-bit elements with double buffering: 4 slots.
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @five_rows_double_buffered(%x: tensor<1x5x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %in = ttl.bind_cb {cb_index = 0, block_count = 1} : !ttl.cb<[1, 5], !ttcore.tile<32x32, bf16>, 1>
    %xv = ttl.attach_cb %x, %in : (tensor<1x5x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 5], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x5x!ttcore.tile<32x32, bf16>>
    %t = tensor.extract %xv[%c0, %c0] : tensor<1x5x!ttcore.tile<32x32, bf16>>
    // expected-error @below {{'ttl.tile_row_normalization_block' op requires 5 simultaneous DST slots, but at most 4 are available under the kernel configuration}}
    %n = ttl.tile_row_normalization_block %t, %t, %t scale = 2.0e-01 epsilon = 1.0e-05 has_gamma = false num_tiles = 5 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// A function attribute turns full sync on: 8 slots at 32 bits, still short of 9.
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @nine_rows_full_sync(%x: tensor<1x9x!ttcore.tile<32x32, bf16>>) attributes {dst_full_sync_en = true} {
    %c0 = arith.constant 0 : index
    %in = ttl.bind_cb {cb_index = 3, block_count = 1} : !ttl.cb<[1, 9], !ttcore.tile<32x32, bf16>, 1>
    %xv = ttl.attach_cb %x, %in : (tensor<1x9x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 9], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x9x!ttcore.tile<32x32, bf16>>
    %t = tensor.extract %xv[%c0, %c0] : tensor<1x9x!ttcore.tile<32x32, bf16>>
    // expected-error @below {{'ttl.tile_row_normalization_block' op requires 9 simultaneous DST slots, but at most 8 are available under the kernel configuration}}
    %n = ttl.tile_row_normalization_block %t, %t, %t scale = 1.0e-01 epsilon = 1.0e-05 has_gamma = false num_tiles = 9 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}
