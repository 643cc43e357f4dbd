module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @d(%t: tensor<1x1x!ttcore.tile<32x32, bf16>>, %cond: i1) attributes {ttl.unpack_to_dest_fp32 = array<i32: 0>} {
    %z = arith.constant 0 : index
    %b = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a = ttl.attach_cb %t, %b : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %tile = tensor.extract %a[%z, %z] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %bc = ttl.tile_bcast %tile, %tile 1 : i32 into dst[%z] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %tok, %cp = ttl.copy_tile %tile[%z, %z] into dst[%z] : !ttcore.tile<32x32, bf16> -> !ttl.dst, !ttcore.tile<32x32, bf16>
    scf.if %cond {
      %ab = ttl.tile_abs %tile into dst[%z] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
      scf.yield
    }
    return
  }
}
