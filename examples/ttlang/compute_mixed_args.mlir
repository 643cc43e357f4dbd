#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x: tensor<1x1x!ttcore.tile<32x32, f32>>, %y: tensor<1x1x!ttcore.tile<32x32, f32>>)
    attributes {ttl.enable_fpu_binary_ops = true, fp32_dest_acc_en = true} {
  %c0 = arith.constant 0 : index
  %b0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %b1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %xa = ttl.attach_cb %x, %b0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %ya = ttl.attach_cb %y, %b1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %view = ttl.cb_reserve %b1 : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %r = ttl.compute ins(%xa : tensor<1x1x!ttcore.tile<32x32, f32>>) outs(%ya : tensor<1x1x!ttcore.tile<32x32, f32>>)
      {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} {
  ^bb0(%in: !ttcore.tile<32x32, f32>, %out: !ttcore.tile<32x32, f32>):
    %e = ttl.tile_exp %in into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    %s = ttl.tile_add %in, %out into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    ttl.tile_store %e, %view[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
    ttl.yield
  } -> tensor<1x1x!ttcore.tile<32x32, f32>>
  return
}
