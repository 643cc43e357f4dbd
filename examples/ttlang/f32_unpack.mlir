// f32 SFPU consumers of dataflow buffers 0 and 2 need unpack-to-DST-f32 on those buffers;
// the f32 transpose reads buffer 3 through the FPU path and keeps the default mode.
func.func @softplus_like(%a: tensor<2x1x!ttcore.tile<32x32, f32>>, %b: tensor<2x1x!ttcore.tile<32x32, f32>>, %t: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {dst_full_sync_en = true} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[2, 1], !ttcore.tile<32x32, f32>, 2>
  %cb2 = ttl.bind_cb {cb_index = 2, block_count = 2} : !ttl.cb<[2, 1], !ttcore.tile<32x32, f32>, 2>
  %cb3 = ttl.bind_cb {cb_index = 3, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>
  %av = ttl.attach_cb %a, %cb0 : (tensor<2x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[2, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<2x1x!ttcore.tile<32x32, f32>>
  %bv = ttl.attach_cb %b, %cb2 : (tensor<2x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[2, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<2x1x!ttcore.tile<32x32, f32>>
  %tv = ttl.attach_cb %t, %cb3 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  scf.for %i = %c0 to %c2 step %c1 {
    %x = tensor.extract %av[%i, %c0] : tensor<2x1x!ttcore.tile<32x32, f32>>
    %y = tensor.extract %bv[%i, %c0] : tensor<2x1x!ttcore.tile<32x32, f32>>
    ttl.dst_section {
      %ex = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
      %ey = ttl.tile_log %y into dst[%c1] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
      %s = ttl.tile_add %ex, %ey into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    }
  }
  %tt = tensor.extract %tv[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %tr = ttl.tile_transpose %tt into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
  return
}
