// TTL in the forms upstream's frontend and tests write: iteration indices, a row-normalization
// block with placeholder DST slots, stripped buffer types, an empty ins(), and the older
// tile-op spelling without `into dst[...]`.
// RUN: planner-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ttl-set-compute-kernel-config{fp32-dest-acc-en=enabled dst-full-sync-en=auto reduce-full-fp32=0 matmul-full-fp32=0 enable-fpu-binary-ops=0}))' | FileCheck %s

#identity = affine_map<(row, column) -> (row, column)>

// CHECK-LABEL: func.func @row_normalization(
// CHECK-SAME: dst_full_sync_en = false, fp32_dest_acc_en = true, ttl.kernel_thread = #ttkernel.thread<compute>, ttl.unpack_to_dest_fp32 = array<i32>}
// CHECK: %{{.*}} = ttl.iter_index 0 : index
// CHECK: ttl.tile_row_normalization_block %{{.*}} has_gamma = false num_tiles = 3 into dst[%{{.*}}] {ttl.dst_placeholder}
// CHECK: ttl.tile_store %{{.*}} from dst[%{{.*}}] {ttl.dst_placeholder}
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @row_normalization()
      attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %c-1 = arith.constant -1 : index
    %input_dfb = ttl.bind_cb {cb_index = 0, block_count = 2}
        : !ttl.cb<[1, 3], !ttcore.tile<32x32, bf16>, 2>
    %output_dfb = ttl.bind_cb {cb_index = 1, block_count = 2}
        : !ttl.cb<[1, 3], !ttcore.tile<32x32, bf16>, 2>
    %input = ttl.cb_wait %input_dfb
        : <[1, 3], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x3x!ttcore.tile<32x32, bf16>>
    %attached = ttl.attach_cb %input, %input_dfb
        : (tensor<1x3x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 3], !ttcore.tile<32x32, bf16>, 2>)
          -> tensor<1x3x!ttcore.tile<32x32, bf16>>
    %reserved = ttl.cb_reserve %output_dfb
        : <[1, 3], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x3x!ttcore.tile<32x32, bf16>>
    %output = ttl.attach_cb %reserved, %output_dfb
        : (tensor<1x3x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 3], !ttcore.tile<32x32, bf16>, 2>)
          -> tensor<1x3x!ttcore.tile<32x32, bf16>>
    %result = ttl.compute
        ins(%attached : tensor<1x3x!ttcore.tile<32x32, bf16>>)
        outs(%output : tensor<1x3x!ttcore.tile<32x32, bf16>>)
        {indexing_maps = [#identity, #identity],
         iterator_types = ["parallel", "parallel"]} {
    ^bb0(%input_tile: !ttcore.tile<32x32, bf16>,
         %output_tile: !ttcore.tile<32x32, bf16>):
      %row = ttl.iter_index 0 : index
      %column = ttl.iter_index 1 : index
      %normalized = ttl.tile_row_normalization_block
          %input_tile, %input_tile, %output_tile
          scale = 3.255208e-04 epsilon = 1.000000e-05
          has_gamma = false num_tiles = 3 into dst[%c-1]
          {ttl.dst_placeholder}
          : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>,
            !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
      ttl.tile_store %normalized, %reserved[%row, %column] from dst[%c-1]
          {ttl.dst_placeholder}
          : !ttcore.tile<32x32, bf16>,
            tensor<1x3x!ttcore.tile<32x32, bf16>>
      ttl.yield
    } -> tensor<1x3x!ttcore.tile<32x32, bf16>>
    return
  }
}

// -----

// The older spelling: one type after `:`, no DST slot; the FPU policy is off, so SFPU.
// CHECK-LABEL: func.func @older_spelling(
// CHECK-SAME: ttl.unpack_to_dest_fp32 = array<i32: 0, 1>
// CHECK: %{{.*}} = ttl.tile_add %{{.*}}, %{{.*}} {ttl.tile_execution_strategy = #ttl.tile_execution_strategy<sfpu>} : !ttcore.tile<32x32, f32>
// CHECK: ttl.yield %{{.*}} : !ttcore.tile<32x32, f32>
func.func @older_spelling(%a: tensor<4x4x!ttcore.tile<32x32, f32>>, %b: tensor<4x4x!ttcore.tile<32x32, f32>>, %init: tensor<4x4x!ttcore.tile<32x32, f32>>) {
  %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[4, 4], !ttcore.tile<32x32, f32>, 2>
  %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[4, 4], !ttcore.tile<32x32, f32>, 2>
  %aa = ttl.attach_cb %a, %cb0 : (tensor<4x4x!ttcore.tile<32x32, f32>>, !ttl.cb<[4, 4], !ttcore.tile<32x32, f32>, 2>) -> tensor<4x4x!ttcore.tile<32x32, f32>>
  %bb = ttl.attach_cb %b, %cb1 : (tensor<4x4x!ttcore.tile<32x32, f32>>, !ttl.cb<[4, 4], !ttcore.tile<32x32, f32>, 2>) -> tensor<4x4x!ttcore.tile<32x32, f32>>
  %result = ttl.compute
      ins(%aa, %bb : tensor<4x4x!ttcore.tile<32x32, f32>>,
                     tensor<4x4x!ttcore.tile<32x32, f32>>)
      outs(%init : tensor<4x4x!ttcore.tile<32x32, f32>>) {
    ^bb0(%a_tile: !ttcore.tile<32x32, f32>,
         %b_tile: !ttcore.tile<32x32, f32>,
         %out_tile: !ttcore.tile<32x32, f32>):
      %sum = ttl.tile_add %a_tile, %b_tile : !ttcore.tile<32x32, f32>
      ttl.yield %sum : !ttcore.tile<32x32, f32>
  } -> tensor<4x4x!ttcore.tile<32x32, f32>>
  return
}

// -----

// A compute with no inputs.
// CHECK-LABEL: func.func @fill_only(
// CHECK-SAME: fp32_dest_acc_en = true
// CHECK: ttl.compute ins() outs(%{{.*}} : tensor<1x1x!ttcore.tile<32x32, bf16>>)
func.func @fill_only(%out: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
  %c0 = arith.constant 0 : index
  %r = ttl.compute ins() outs(%out : tensor<1x1x!ttcore.tile<32x32, bf16>>)
      {iterator_types = ["parallel", "parallel"]} {
  ^bb0(%o: !ttcore.tile<32x32, bf16>):
    %f = ttl.tile_fill 0.0 : f32 into dst[%c0] : !ttcore.tile<32x32, bf16>
    ttl.yield
  } -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  return
}

// -----

// Buffer protocol, data movement and DST markers print back as written (types stripped where
// upstream strips them); only the tile op is planned.
// CHECK-LABEL: func.func @protocol(
// CHECK-SAME: ttl.unpack_to_dest_fp32 = array<i32: 0>
// CHECK: ttl.cb_wait %{{.*}} : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
// CHECK: %{{.*}} = ttl.copy %{{.*}}, %{{.*}} : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], f32, 2>) -> !ttl.transfer_handle<read>
// CHECK: ttl.wait %{{.*}} : !ttl.transfer_handle<read>
// CHECK: ttl.tile_exp
// CHECK: ttl.cb_pop %{{.*}} : <[1, 1], !ttcore.tile<32x32, f32>, 2>
func.func @protocol(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : index
  %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
  %w = ttl.cb_wait %cb : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %staging = ttl.create_cb() {buffer_factor = 2 : i64, element_type = f32, shape = [1, 1]} : !ttl.cb<[1, 1], f32, 2>
  %xf = ttl.copy %t, %staging : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], f32, 2>) -> !ttl.transfer_handle<read>
  ttl.wait %xf : !ttl.transfer_handle<read>
  %a = ttl.attach_cb %w, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
  ttl.cb_pop %cb : <[1, 1], !ttcore.tile<32x32, f32>, 2>
  return
}
