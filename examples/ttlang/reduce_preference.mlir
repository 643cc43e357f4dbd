// A bf16 column reduce and a bf16 matmul both prefer full-fp32 accumulation: with the default
// preferences the kernel gets 32-bit DST; `reduce-full-fp32=0 matmul-full-fp32=0` gives 16-bit.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reduce_mm(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>, %s: tensor<1x1x!ttcore.tile<32x32, bf16>>, %w: tensor<1x1x!ttcore.tile<32x32, bf16>>, %o: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cba = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %cbs = ttl.bind_cb {cb_index = 1, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>
  %cbw = ttl.bind_cb {cb_index = 2, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %cbo = ttl.bind_cb {cb_index = 16, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %av = ttl.attach_cb %a, %cba : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %sv = ttl.attach_cb %s, %cbs : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %wv = ttl.attach_cb %w, %cbw : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %ov = ttl.attach_cb %o, %cbo : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %view = ttl.cb_wait %cbo : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %r = ttl.compute ins(%av, %sv, %wv : tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) outs(%ov : tensor<1x1x!ttcore.tile<32x32, bf16>>)
      {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} {
  ^bb0(%x: !ttcore.tile<32x32, bf16>, %scale: !ttcore.tile<32x32, bf16>, %wt: !ttcore.tile<32x32, bf16>, %y: !ttcore.tile<32x32, bf16>):
    %red = ttl.tile_reduce %x, %scale, %y 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %mm = ttl.tile_matmul_block %x, %wt into dst[%c1] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %both = ttl.tile_add %red, %mm into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    ttl.tile_store %both, %view[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, bf16>, tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.yield
  } -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  return
}
