// Five bf16 tiles of a row normalization held at once, in 32-bit DST (the function asks for it).
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @five_rows(%x: tensor<1x5x!ttcore.tile<32x32, bf16>>) attributes {fp32_dest_acc_en = true} {
    %c0 = arith.constant 0 : index
    %in = ttl.bind_cb {cb_index = 0, block_count = 1} : !ttl.cb<[1, 5], !ttcore.tile<32x32, bf16>, 1>
    %xv = ttl.attach_cb %x, %in : (tensor<1x5x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 5], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x5x!ttcore.tile<32x32, bf16>>
    %t = tensor.extract %xv[%c0, %c0] : tensor<1x5x!ttcore.tile<32x32, bf16>>
    %n = ttl.tile_row_normalization_block %t, %t, %t scale = 2.0e-01 epsilon = 1.0e-05 has_gamma = false num_tiles = 5 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}
