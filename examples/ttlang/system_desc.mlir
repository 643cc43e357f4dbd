// The target comes from TTCore's system and device descriptions (docs/design/kernel-config.md 4.1): the
// device selects chip 1, described as a Wormhole B0, so the bf16 column reduce gets 16-bit DST
// with no warning (with no target it would prefer 32-bit). Only each chip's `arch` and the
// device's `chipIds` are read; the other parameters and entries are kept as written.
#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux-gnu"}], [{arch = <wormhole_b0>, grid = 8x8, l1_size = 1499136, supported_data_types = [<f32>, <bf16>, <u32>], supported_tile_sizes = [ 16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 32}], [0, 0], [1 : i32, 1 : i32], [ 0x0x0x0,  0x1x0x0]>
module attributes {ttcore.device = #ttcore.device<workerGrid = #ttcore.grid<8x8>, meshShape = 1x1, chipIds = [1]>, ttcore.system_desc = #system_desc} {
  func.func @col_reduce(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>, %s: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>
    %av = ttl.attach_cb %a, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %sv = ttl.attach_cb %s, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x = tensor.extract %av[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %y = tensor.extract %sv[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.tile_reduce %x, %y, %x 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}
