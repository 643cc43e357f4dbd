// Refused: the f32 exp reads dataflow buffer 1 through DST (unpack-to-DST-f32 required) while
// the f32 row broadcast reads the same buffer through the FPU path (default unpack required).
func.func @exp_and_bcast(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cb = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %in = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %tile = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %e = ttl.tile_exp %tile into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
  %row = ttl.tile_bcast %tile, %tile 2 : i32 into dst[%c1] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
  return
}
