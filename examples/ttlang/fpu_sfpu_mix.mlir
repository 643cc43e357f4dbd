// bf16 elementwise kernel: the add reads two input tiles at the same coordinates (FPU),
// the multiply reads the add's DST-resident result (SFPU only).
#map = affine_map<(d0, d1) -> (d0, d1)>
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @add_mul(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>, %b: tensor<1x1x!ttcore.tile<32x32, bf16>>, %o: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cb16 = ttl.bind_cb {cb_index = 16, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %in0 = ttl.attach_cb %a, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %in1 = ttl.attach_cb %b, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %out = ttl.attach_cb %o, %cb16 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %view = ttl.cb_reserve %cb16 : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.compute ins(%in0, %in1 : tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) outs(%out : tensor<1x1x!ttcore.tile<32x32, bf16>>)
        {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} {
    ^bb0(%x: !ttcore.tile<32x32, bf16>, %y: !ttcore.tile<32x32, bf16>, %acc: !ttcore.tile<32x32, bf16>):
      %sum = ttl.tile_add %x, %y into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
      %prod = ttl.tile_mul %sum, %y into dst[%c1] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
      %top = ttl.tile_max %prod, %sum into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
      ttl.tile_store %top, %view[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, bf16>, tensor<1x1x!ttcore.tile<32x32, bf16>>
      ttl.yield
    } -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    return
  }
}
