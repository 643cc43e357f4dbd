// precision=exact (docs/design/kernel-config.md 6.10) and the accuracy knobs: an op with no lossless
// route for an f32 operand is refused; a combination a source warns about is a warning; planner-opt
// prints no precision remark.
// RUN: planner-opt %s -split-input-file -verify-diagnostics -p 'ttl-set-compute-kernel-config{precision=exact math-fidelity=HiFi2}'

// An f32 transpose reads its buffer only through SrcA/SrcB.
module {
  func.func @transpose_f32(%t0: tensor<1x1x!ttcore.tile<32x32, f32>>) {
    %c0 = arith.constant 0 : index
    %cb = ttl.bind_cb {cb_index = 4, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>
    %v = ttl.attach_cb %t0, %cb : (tensor<1x1x!ttcore.tile<32x32, f32>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>) -> tensor<1x1x!ttcore.tile<32x32, f32>>
    %x = tensor.extract %v[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>
    // expected-error @below {{'ttl.tile_transpose' op operand 0 reads f32 dataflow buffer 4 only through SrcA/SrcB (TF32 at most), but precision=exact requires every f32 operand without loss}}
    %r = ttl.tile_transpose %x into dst[%c0] : !ttcore.tile<32x32, f32> -> !ttcore.tile<32x32, f32>
    return
  }
}

// -----

// A bf16 matmul loses no f32 bits, so exact plans it; HiFi2 on a matmul is warned about.
module {
  func.func @matmul_bf16(%t0: tensor<1x1x!ttcore.tile<32x32, bf16>>, %t1: tensor<1x1x!ttcore.tile<32x32, bf16>>) {
    %c0 = arith.constant 0 : index
    %cb0 = ttl.bind_cb {cb_index = 0, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>
    %cb1 = ttl.bind_cb {cb_index = 1, block_count = 1} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>
    %a = ttl.attach_cb %t0, %cb0 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %b = ttl.attach_cb %t1, %cb1 : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %y = tensor.extract %b[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    // expected-warning @below {{HiFi2 math fidelity on a matmul: bf16 matmuls configured HiFi2 have been seen to run as LoFi (tt-metal#55889)}}
    %m = ttl.tile_matmul_block %x, %y into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    return
  }
}
