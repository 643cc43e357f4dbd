// Several kernels in one file, planned chunk by chunk.
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @row_reduce(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>
    %av = ttl.attach_cb %a, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %sv = ttl.cb_wait %cb1 : <[1, 1], !ttcore.tile<32x32, bf16>, 1> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %sa = ttl.attach_cb %sv, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x = tensor.extract %av[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %s = tensor.extract %sa[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x, %s, %x 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// No tile ops: the function still receives the configuration attributes.
func.func @empty() attributes {fp32_dest_acc_en = true, dst_full_sync_en = true} {
  return
}

// -----

"func.func"() <{sym_name = "generic_fill", function_type = () -> ()}> ({
  %z = "arith.constant"() <{value = 0 : index}> : () -> index
  %f = "ttl.tile_fill"(%z) <{value = 1.000000e+00 : f32}> : (index) -> !ttcore.tile<32x32, si32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

// An explicit strategy narrows the add to SFPU although FPU would be legal.
func.func @explicit_sfpu(%a: tensor<1x2x!ttcore.tile<16x32, f16>>) {
  %c0 = arith.constant 0 : index
  %cb = ttl.bind_cb {cb_index = 5, block_count = 2} : !ttl.cb<[1, 2], !ttcore.tile<16x32, f16>, 2>
  %av = ttl.attach_cb %a, %cb : (tensor<1x2x!ttcore.tile<16x32, f16>>, !ttl.cb<[1, 2], !ttcore.tile<16x32, f16>, 2>) -> tensor<1x2x!ttcore.tile<16x32, f16>>
  %x = tensor.extract %av[%c0, %c0] : tensor<1x2x!ttcore.tile<16x32, f16>>
  %y = tensor.extract %av[%c0, %c0] : tensor<1x2x!ttcore.tile<16x32, f16>>
  %d = ttl.tile_add %x, %y into dst[%c0] {ttl.tile_execution_strategy = #ttl.tile_execution_strategy<sfpu>} : !ttcore.tile<16x32, f16>, !ttcore.tile<16x32, f16> -> !ttcore.tile<16x32, f16>
  %n = ttl.tile_neg %d into dst[%c0] : !ttcore.tile<16x32, f16> -> !ttcore.tile<16x32, f16>
  return
}
