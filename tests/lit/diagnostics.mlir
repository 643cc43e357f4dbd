// Every kcfg.* diagnostic the pass reports from MLIR input, located as MLIR locates it (the
// resolver-internal codes and those unreachable under the current target tables are left out).
// RUN: planner-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(ttl-set-compute-kernel-config))'

// kcfg.target_arch_invalid
// expected-error @below {{ttl.target_arch must be a #ttcore.arch attribute}}
module attributes {ttl.target_arch = "wormhole_b0"} {
  func.func @arch_invalid(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.target_device_mismatch
// expected-error @below {{ttl.target_arch does not match the selected device arch}}
module attributes {ttl.target_arch = #ttcore.arch<blackhole>, ttcore.system_desc = #ttcore.system_desc<[], [{arch = <wormhole_b0>}, {arch = <blackhole>}], [0, 1]>, ttcore.device = #ttcore.device<chipIds = [0]>} {
  func.func @device_mismatch(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.target_device_chip_invalid
// expected-error @below {{default device selects chip 1 outside the system description}}
module attributes {ttcore.system_desc = #ttcore.system_desc<[], [{arch = <wormhole_b0>}], [0]>, ttcore.device = #ttcore.device<chipIds = [1]>} {
  func.func @device_chip_invalid(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.target_mixed_arch
// expected-error @below {{default device selects chips of different architectures}}
module attributes {ttcore.system_desc = #ttcore.system_desc<[], [{arch = <wormhole_b0>}, {arch = <blackhole>}], [0, 1]>, ttcore.device = #ttcore.device<chipIds = [0, 1]>} {
  func.func @mixed_arch(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.target_quasar_unsupported
// expected-error @below {{Quasar compute kernels require the Gen2 configuration and launch APIs, which are not supported by the current TT-Lang runtime}}
module attributes {ttl.target_arch = #ttcore.arch<quasar>} {
  func.func @quasar(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.target_not_implemented
// expected-error @below {{compute-kernel configuration is not implemented for target architecture}}
module attributes {ttl.target_arch = #ttcore.arch<grayskull>} {
  func.func @grayskull(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.policy_attr_not_bool
module {
  // expected-error @below {{fp32_dest_acc_en must be a boolean attribute}}
  func.func @attr_not_bool(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {fp32_dest_acc_en = 1 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.policy_unpack_attr_malformed
module {
  // expected-error @below {{ttl.unpack_to_dest_fp32 must be a dense i32 array attribute}}
  func.func @unpack_malformed(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.unpack_to_dest_fp32 = [0]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.policy_unpack_index_out_of_range
module {
  // expected-error @below {{ttl.unpack_to_dest_fp32 must contain dataflow buffer indices in range [0, 31] for the conservative 32-DFB-index capacity used when target metadata is absent}}
  func.func @unpack_out_of_range(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.unpack_to_dest_fp32 = array<i32: 32>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.op_semantics_unknown
module {
  func.func @semantics_unknown(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{'ttl.tile_frob' op does not implement TileExecutionOpInterface}}
    %e = ttl.tile_frob %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.operand_not_tile
module {
  func.func @operand_not_tile() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    // expected-error @below {{expected a tile or tensor-of-tiles operand, got 'f32'}}
    %b = ttl.tile_bcast %f, %f 1 : i32 into dst[%c0] : (f32, f32) -> f32
    return
  }
}

// -----

// kcfg.dfb_index_unfinalized: a buffer without cb_index
module {
  func.func @unfinalized_bind(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb = ttl.bind_cb {block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{uses a dataflow buffer without a finalized index}}
    %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.dfb_index_unfinalized: a buffer passed as an argument
module {
  func.func @unfinalized_argument(%t: tensor<1x1x!ttcore.tile<32x32, f32>>, %cb: !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = ttl.attach_cb %t, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{uses a dataflow buffer without a finalized index}}
    %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.dfb_index_out_of_range, no target
module {
  func.func @dfb32(%t32: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb32 = ttl.bind_cb {cb_index = 32, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a32 = ttl.attach_cb %t32, %cb32 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x32 = tensor.extract %a32[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{uses dataflow buffer index 32 outside the supported range [0, 31] for the conservative 32-DFB-index capacity used when target metadata is absent}}
    %e = ttl.tile_exp %x32 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.dfb_index_out_of_range, Wormhole B0
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @wh_dfb32(%t32: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb32 = ttl.bind_cb {cb_index = 32, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a32 = ttl.attach_cb %t32, %cb32 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x32 = tensor.extract %a32[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{outside the supported range [0, 31] for the 32-DFB-index Wormhole B0 target capacity}}
    %e = ttl.tile_exp %x32 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.operand_dfb_unresolved
module {
  func.func @dfb_unresolved(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    // expected-error @below {{operand 0 must resolve to a dataflow buffer for the selected strategy}}
    %b = ttl.tile_bcast %e, %e 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.dst_slots_invalid
module {
  func.func @zero_slots(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{requires 0 DST slots}}
    %n = ttl.tile_row_normalization_block %x0, %x0, %x0 scale = 1.0 epsilon = 1.0e-05 has_gamma = false num_tiles = 0 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.strategy_attr_malformed
module {
  func.func @strategy_malformed(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{ttl.tile_execution_strategy must be a #ttl.tile_execution_strategy attribute}}
    %s = ttl.tile_add %x0, %x1 into dst[%c0] {ttl.tile_execution_strategy = "fpu"} : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.strategy_attr_on_fixed_op
module {
  func.func @strategy_on_fill() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @below {{ttl.tile_execution_strategy is only valid on tile operations with execution-strategy alternatives}}
    %f = ttl.tile_fill 1.0 : f32 into dst[%c0] {ttl.tile_execution_strategy = #ttl.tile_execution_strategy<sfpu>} : !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.strategy_explicit_illegal
module {
  func.func @explicit_illegal(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %y0 = tensor.extract %a0[%c0, %c1] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{explicit ttl.tile_execution_strategy is not legal for its operands}}
    %s = ttl.tile_add %x0, %y0 into dst[%c0] {ttl.tile_execution_strategy = #ttl.tile_execution_strategy<fpu>} : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.strategy_explicit_dfb_unresolved
module {
  func.func @explicit_unresolved(%t: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = ttl.compute ins(%t, %t : tensor<1x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>) outs(%t : tensor<1x1x!ttcore.tile<32x32, f32>>) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} {
    ^bb0(%l: !ttcore.tile<32x32, f32>, %r2: !ttcore.tile<32x32, f32>, %o: !ttcore.tile<32x32, f32>):
      // expected-error @below {{operand 0 does not resolve to a dataflow buffer required by explicit ttl.tile_execution_strategy}}
      %s = ttl.tile_add %l, %r2 into dst[%c0] {ttl.tile_execution_strategy = #ttl.tile_execution_strategy<fpu>} : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
      ttl.yield
    } -> tensor<1x1x!ttcore.tile<32x32, f32>>
    return
  }
}

// -----

// kcfg.fpu_policy_conflict
module {
  func.func @fpu_conflict(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {ttl.enable_fpu_binary_ops = false} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-error @below {{explicit FPU strategy conflicts with disabled FPU binary policy}}
    %s = ttl.tile_add %x0, %x1 into dst[%c0] {ttl.tile_execution_strategy = #ttl.tile_execution_strategy<fpu>} : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// kcfg.dst_width_disabled_conflict
module {
  func.func @disabled_fill() attributes {fp32_dest_acc_en = false} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @below {{requires 32-bit destination elements, but fp32 destination accumulation is explicitly disabled}}
    %f = ttl.tile_fill 1.0 : f32 into dst[%c0] : !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.dst_width_conflict, noted at the broadcast
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @wh_width_conflict(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-error @below {{requires 32-bit destination elements, but no kernel-wide destination width supports all tile operations}}
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    // expected-note @below {{the target does not support 32-bit destination elements for ttl.tile_bcast with 'bf16' elements}}
    %b = ttl.tile_bcast %x1, %x1 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// kcfg.dst_width_explicit_unsupported (wh), noted at the broadcast
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  // expected-error @below {{explicit 32-bit destination elements are unsupported by the kernel's tile operations}}
  func.func @wh_explicit_unsupported(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {fp32_dest_acc_en = true} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-note @below {{the target does not support 32-bit destination elements for ttl.tile_bcast with 'bf16' elements}}
    %b = ttl.tile_bcast %x0, %x0 2 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// kcfg.dst_width_explicit_unsupported (bh), noted at the broadcast
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  // expected-error @below {{explicit 32-bit destination elements are unsupported by the kernel's tile operations}}
  func.func @bh_explicit_unsupported(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {fp32_dest_acc_en = true} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-note @below {{the target does not support 32-bit destination elements for ttl.tile_bcast with 'bf16' elements}}
    %b = ttl.tile_bcast %x0, %x0 2 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// kcfg.explicit_unpack_conflict: excluded
module {
  func.func @explicit_excludes(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.unpack_to_dest_fp32 = array<i32>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{dataflow buffer 0 requires unpack-to-DST-f32 mode, but ttl.unpack_to_dest_fp32 excludes this index}}
    %e = ttl.tile_abs %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.explicit_unpack_conflict: included
module {
  func.func @explicit_includes(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {ttl.unpack_to_dest_fp32 = array<i32: 0>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{dataflow buffer 0 requires default unpack mode, but ttl.unpack_to_dest_fp32 includes this index}}
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.dfb_unpack_conflict, noted at the first consumer
module {
  func.func @unpack_conflict(%t1: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-note @below {{operand 0 establishes the conflicting unpack mode}}
    %e = ttl.tile_exp %x1 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    // expected-error @below {{dataflow buffer 1 requires incompatible unpack modes in one kernel}}
    %b = ttl.tile_bcast %x1, %x1 2 : i32 into dst[%c0] : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.full_fp32_row_reduce_unavailable (a warning; the kernel plans)
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_row_reduce_warning(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-warning @below {{full-fp32 row reduce is unavailable on Blackhole (tt-metal #47311); using non-full-fp32 reduce lowering}}
    %r = ttl.tile_reduce %x0, %x1, %x0 0 : i32 <reduce_dim_row> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// kcfg.preferred_fp32_unavailable (a warning; the kernel plans)
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  func.func @bh_preferred_warning(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-warning @below {{preferred full-fp32 accumulation is unavailable in the resolved kernel configuration; using non-full-fp32 lowering}}
    %m = ttl.tile_matmul_block %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %b = ttl.tile_bcast %x0, %x0 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
    %s = ttl.tile_add %m, %b into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}

// -----

// kcfg.policy_attr_not_string
module {
  // expected-error @below {{math_fidelity must be a string attribute}}
  func.func @fidelity_not_string(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {math_fidelity = 4 : i32} {
    %c0 = arith.constant 0 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// kcfg.math_fidelity_hifi4_fp32_wormhole (a warning; the kernel plans)
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @wh_hifi4_fp32(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>, %t1: tensor<1x1x!ttcore.tile<32x32, f32>>) attributes {math_fidelity = "HiFi4"} {
    %c0 = arith.constant 0 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %a1 = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %x1 = tensor.extract %a1[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-warning @below {{HiFi4 math fidelity with fp32 destination accumulation corrupts occasional FPU multiply results by a power of two on Wormhole (tt-metal#52327}}
    %m = ttl.tile_matmul_block %x0, %x1 into dst[%c0] : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// adapter.unknown_tile_op: another dialect's op handling tiles
module {
  func.func @foreign_tile_op(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{'ttkernel.mystery' op reads or produces tiles but is not a TTL tile op}}
    %m = "ttkernel.mystery"(%x0) : (!ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// adapter.parse_error
module {
  func.func @broken() {
    %c = arith.constant 1 : index
    // expected-error @below {{operand is used with type i32, but has been previously used or defined with type index}}
    %d = arith.addi %c, %c : i32
    return
  }
}
