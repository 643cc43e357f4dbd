// Ops the resolver has no semantics for, though they change what a kernel needs, refuse their
// function at the op; a ttl.kernel with empty threads changes nothing and plans.
// RUN: planner-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(ttl-set-compute-kernel-config))'

func.func @sorts_in_dst(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
  %c0 = arith.constant 0 : index
  %descending = arith.constant 0 : i32
  %phase = arith.constant 4 : i32
  %dfb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  %in = ttl.attach_cb %a, %dfb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  %t = tensor.extract %in[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
  %token, %copied = ttl.copy_tile %t[%c0] into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttl.dst, !ttcore.tile<32x32, bf16>
  // expected-error @below {{'ttl.tile_topk_local_sort' op does not implement TileExecutionOpInterface}}
  ttl.tile_topk_local_sort dst[%c0] direction = %descending end_phase = %phase start_phase = %phase : (index, i32, i32, i32) -> ()
  return
}

// -----

func.func @phases(%a: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
  // expected-error @below {{'ttl.dfb_reconfiguration' op does not implement TileExecutionOpInterface}}
  ttl.dfb_reconfiguration <0, participants[<kind = compute>]>
  return
}

// -----

func.func @threads(%out: tensor<1x1x!ttcore.tile<32x32, f32>>) -> tensor<1x1x!ttcore.tile<32x32, f32>> {
  // expected-error @below {{'ttl.kernel' op does not implement TileExecutionOpInterface}}
  %r = ttl.kernel {grid = #ttcore.grid<1x1>, threads = [#ttl.thread<compute>]} ins() outs(%out : tensor<1x1x!ttcore.tile<32x32, f32>>) {
  ^bb0(%out_dfb: !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>):
    %c0 = arith.constant 0 : index
    %view = ttl.cb_reserve %out_dfb : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %filled = ttl.tile_fill 1.0 into dst[%c0] : !ttcore.tile<32x32, f32>
    ttl.tile_store %filled, %view[%c0, %c0] from dst[%c0] : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
  } : tensor<1x1x!ttcore.tile<32x32, f32>>
  return %r : tensor<1x1x!ttcore.tile<32x32, f32>>
}

// -----

func.func @empty_threads(%out: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = ttl.kernel {grid = #ttcore.grid<1x1>, threads = [#ttl.thread<compute>]} ins() outs(%out : tensor<32x32xf32>) {
  ^bb0(%out_dfb: !ttl.cb<[1, 1], f32, 2>):
  } : tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
