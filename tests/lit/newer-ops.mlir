// Ops newer than TT-Lang 1.1.1 and TTKernel call forms, read and printed back in upstream's syntax;
// the older spellings of copy_tile, tile_store and the buffer protocol print in the current one.
// RUN: planner-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @bitonic_steps
// CHECK: ttl.tile_topk_local_sort dst[%[[S:.*]]] direction = %[[D:.*]] end_phase = %[[P:.*]] start_phase = %[[P]] start_step = %[[P]] : (index, i32, i32, i32, i32) -> ()
// CHECK: ttl.tile_topk_merge dst[%[[S]]] iteration = %[[P]] k = %[[K:.*]] {stable_sort = true} : (index, i32, i32) -> ()
// CHECK: ttl.tile_topk_rebuild dst[%[[S]]] direction = %[[D]] iteration = %[[P]] k = %[[K]] logk = %[[P]] skip_second = %[[D]] : (index, i32, i32, i32, i32, i32) -> ()
func.func @bitonic_steps() {
  %slot = arith.constant 2 : index
  %down = arith.constant 1 : i32
  %phase = arith.constant 3 : i32
  %width = arith.constant 16 : i32
  ttl.tile_topk_local_sort dst[%slot] direction = %down end_phase = %phase start_phase = %phase
      start_step = %phase : (index, i32, i32, i32, i32) -> ()
  ttl.tile_topk_merge dst[%slot] iteration = %phase k = %width {stable_sort = true} : (index, i32, i32) -> ()
  ttl.tile_topk_rebuild dst[%slot] direction = %down iteration = %phase k = %width logk = %phase
      skip_second = %down : (index, i32, i32, i32, i32, i32) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @two_threads
// CHECK: %{{.*}}:2 = ttl.kernel {grid = #ttcore.grid<2x1>, threads = [#ttl.thread<datamovement>, #ttl.thread<compute>]} ins(%{{.*}} : tensor<64x32xbf16>) outs(%{{.*}}, %{{.*}} : tensor<64x32xbf16>, tensor<64x32xbf16>) {
// CHECK: ^bb0(%{{.*}}: !ttl.cb<[1, 1], bf16, 2>, %{{.*}}: !ttl.cb<[1, 1], bf16, 2>, %{{.*}}: !ttl.cb<[1, 1], bf16, 2>):
// CHECK: }, {
// CHECK: } : tensor<64x32xbf16>, tensor<64x32xbf16>
func.func @two_threads(%x: tensor<64x32xbf16>, %y: tensor<64x32xbf16>, %z: tensor<64x32xbf16>) {
  %pair:2 = ttl.kernel {grid = #ttcore.grid<2x1>, threads = [#ttl.thread<datamovement>, #ttl.thread<compute>]}
      ins(%x : tensor<64x32xbf16>) outs(%y, %z : tensor<64x32xbf16>, tensor<64x32xbf16>) {
  ^bb0(%xb: !ttl.cb<[1, 1], bf16, 2>, %yb: !ttl.cb<[1, 1], bf16, 2>, %zb: !ttl.cb<[1, 1], bf16, 2>):
  }, {
  ^bb0(%xb: !ttl.cb<[1, 1], bf16, 2>, %yb: !ttl.cb<[1, 1], bf16, 2>, %zb: !ttl.cb<[1, 1], bf16, 2>):
  } : tensor<64x32xbf16>, tensor<64x32xbf16>
  return
}

// -----

// CHECK: ttl.dispatch.target @producer : (i32) -> () {operation_identity = "produce"}
// CHECK-LABEL: func.func @dispatcher
// CHECK: ttl.dispatch.invoke @producer(%{{.*}} : i32)
// CHECK: ttl.dfb_reconfiguration <1, participants[#ttl.logical_kernel<kind = compute>]>
// CHECK: ttl.tensor_store %{{.*}}, %{{.*}} : tensor<1x1x!ttcore.tile<32x32, bfp_bf8>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bfp_bf8>, 2>
module {
  ttl.dispatch.target @producer : (i32) -> () {operation_identity = "produce"}
  func.func @dispatcher(%n: i32, %t: tensor<1x1x!ttcore.tile<32x32, bfp_bf8>>) {
    ttl.dispatch.invoke @producer(%n : i32)
    ttl.dfb_reconfiguration #ttl.dfb_reconfiguration<1, participants[#ttl.logical_kernel<kind = compute>]>
    %cb = ttl.bind_cb {cb_index = 3, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bfp_bf8>, 2>
    ttl.tensor_store %t, %cb : tensor<1x1x!ttcore.tile<32x32, bfp_bf8>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bfp_bf8>, 2>
    return
  }
}

// -----

// CHECK-LABEL: func.func @device_side
// CHECK: %[[ID:.*]] = ttkernel.get_dfb_id %{{.*}} : <4, !ttcore.tile<16x32, bfp_f4>>
// CHECK: %{{.*}} = ttkernel.cast_to_l1_addr %[[ID]] : i32 to !ttkernel.l1_addr
// CHECK: ttkernel.noc_async_write_one_packet_set_state(%{{.*}}, %[[ID]], noc %{{.*}}) posted true : (!ttkernel.noc_addr, i32, i8) -> ()
// CHECK: ttkernel.experimental_source_scalar_apply_mul(%{{.*}}, %{{.*}}) num_tiles = 2 dtype = <f32> : (!ttkernel.cb<4, !ttcore.tile<16x32, bfp_f4>>, index) -> ()
// CHECK: ttkernel.experimental_source_scalar_release
// CHECK-NEXT: return
func.func @device_side(%state: !ttkernel.noc_addr, %which: i8, %out: index) {
  %cb = ttkernel.get_compile_time_arg_val(4) : () -> !ttkernel.cb<4, !ttcore.tile<16x32, bfp_f4>>
  %id = ttkernel.get_dfb_id %cb : !ttkernel.cb<4, !ttcore.tile<16x32, bfp_f4>>
  %address = ttkernel.cast_to_l1_addr %id : i32 to !ttkernel.l1_addr
  ttkernel.noc_async_write_one_packet_set_state(%state, %id, noc %which) posted true
      : (!ttkernel.noc_addr, i32, i8) -> ()
  ttkernel.experimental_source_scalar_apply_mul(%cb, %out)
      num_tiles = 2 dtype = <f32>
      : (!ttkernel.cb<4, !ttcore.tile<16x32, bfp_f4>>, index) -> ()
  ttkernel.experimental_source_scalar_release
  return
}

// -----

// CHECK-LABEL: func.func @pipes_and_calls
// CHECK: ttl.select_pipe_dst net 2 record(%{{.*}}) src{{ ?}}(%{{.*}}, %{{.*}}) dst{{ ?}}(%{{.*}}, %{{.*}}) to{{ ?}}(%{{.*}}, %{{.*}}) num_dests{{ ?}}(%{{.*}}) src_in_dst{{ ?}}(%{{.*}}) devices{{ ?}}(%{{.*}}, %{{.*}}) : !ttl.selected_pipe_dst
// CHECK: ttl.opaque_call "peek" dfb_accesses [#ttl.dfb_non_transactional_access<interface_preserved, 0>]{{ ?}}() : () -> ()
func.func @pipes_and_calls() {
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %no = arith.constant false
  %pipe = ttl.select_pipe_dst net 2 record(%zero) src (%zero, %zero) dst (%one, %zero) to (%one, %one)
      num_dests (%one) src_in_dst (%no) devices (%zero, %zero) : !ttl.selected_pipe_dst
  ttl.opaque_call "peek" dfb_accesses [#ttl.dfb_non_transactional_access<interface_preserved, 0>] () : () -> ()
  return
}

// -----

// CHECK-LABEL: func.func @older_spellings
// CHECK: %{{.*}} = ttl.cb_wait %[[CB:.*]], %[[N:.*]] : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
// CHECK: %{{.*}}, %[[COPIED:.*]] = ttl.copy_tile %{{.*}}[%[[I:.*]]] into dst[%[[I]]] : !ttcore.tile<32x32, f32> -> !ttl.dst, !ttcore.tile<32x32, f32>
// CHECK: ttl.tile_store %[[COPIED]], %{{.*}} : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
// CHECK: ttl.tile_store %[[COPIED]], %{{.*}}[%[[I]], %[[I]]] {acc = true} : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
// CHECK: ttl.cb_pop %[[CB]], %[[N]] : <[1, 1], !ttcore.tile<32x32, f32>, 2>
func.func @older_spellings(%cb: !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>, %view: tensor<1x1x!ttcore.tile<32x32, f32>>) {
  %n = arith.constant 1 : i32
  %i = arith.constant 0 : index
  %block = ttl.cb_wait %cb, %n : <[1, 1], !ttcore.tile<32x32, f32>, 2> -> tensor<1x1x!ttcore.tile<32x32, f32>>
  %tile = tensor.extract %block[%i, %i] : tensor<1x1x!ttcore.tile<32x32, f32>>
  %token, %copied = ttl.copy_tile %tile, %i, %i : !ttcore.tile<32x32, f32>, index, index -> !ttl.dst, !ttcore.tile<32x32, f32>
  ttl.tile_store %copied, %view : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
  ttl.tile_store %copied, %view[%i, %i] {acc = true} : !ttcore.tile<32x32, f32>, tensor<1x1x!ttcore.tile<32x32, f32>>
  ttl.cb_pop %cb, %n : <[1, 1], !ttcore.tile<32x32, f32>, 2>
  return
}

// -----

// CHECK-LABEL: ttl.dfb.network @pairs {
// CHECK-NEXT: ttl.dfb.fork @copies 3 : index -> [4, 5] storage = <shared>
// CHECK-NEXT: ttl.dfb.merge @joined [4 : index, 5 : index] policy = <round_robin>
// CHECK-NEXT: ttl.dfb.split @halves @joined -> [6, 7] policy = <contiguous>
// CHECK-NEXT: }
ttl.dfb.network @pairs {
  ttl.dfb.fork @copies 3 : index -> [4, 5] storage = <shared>
  ttl.dfb.merge @joined [4 : index, 5 : index] policy = <round_robin>
  ttl.dfb.split @halves @joined -> [6, 7] policy = <contiguous>
}

// -----

// CHECK-LABEL: func.func @no_arguments
// CHECK: %{{.*}} = ttkernel.my_logical_x_ : () -> index
func.func @no_arguments() -> index {
  %x = ttkernel.my_logical_x_ : () -> index
  return %x : index
}
