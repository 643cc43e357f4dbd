// Diagnostics caused by a pass option.
// RUN: planner-opt %s -verify-diagnostics -p 'ttl-set-compute-kernel-config{fp32-dest-acc-en=maybe}'

// kcfg.policy_option_invalid
module {
  // expected-error @below {{invalid fp32-dest-acc-en value 'maybe'; expected auto, enabled, or disabled}}
  func.func @option_invalid(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %a0 = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x0 = tensor.extract %a0[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    %e = ttl.tile_exp %x0 into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}
