// Whole TT-Lang modules: data-movement threads with pipes, tensor slices and raw element
// access next to a compute thread. Every op reads and prints back in upstream's syntax; only
// the compute kernel's attributes change.
// RUN: planner-opt %s -split-input-file -p 'ttl-set-compute-kernel-config' | FileCheck %s
// RUN: planner-opt %s -split-input-file | planner-opt -split-input-file | FileCheck %s --check-prefix=ROUND

#grid = #ttl.layout<shape = [64, 64],
                    element_type = !ttcore.tile<32x32, bf16>,
                    buffer = L1, grid = [1, 1], memory = Interleaved>

// CHECK-LABEL: func.func @sender(
// CHECK-SAME: %{{.*}}: tensor<2x2x!ttcore.tile<32x32, bf16>, #ttl.layout<shape = [64, 64], element_type = !ttcore.tile<32x32, bf16>, buffer = L1, grid = [1, 1], memory = Interleaved>>)
// CHECK-SAME: attributes {dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.kernel_thread = #ttkernel.thread<noc>, ttl.unpack_to_dest_fp32 = array<i32>}
// CHECK: %[[PIPE:.*]] = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 1) net 0 : <src(0, 0) dst(1, 0) to(1, 1) net 0>
// CHECK: ttl.if_src %[[PIPE]] : <src(0, 0) dst(1, 0) to(1, 1) net 0> {
// CHECK: ttl.tensor_slice %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x2x!ttcore.tile<32x32, bf16>, #ttl.layout<{{.*}}>> -> tensor<1x1x!ttcore.tile<32x32, bf16>, #ttl.layout<{{.*}}>>
// CHECK: ttl.raw_element_read %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x1x!ttcore.tile<32x32, bf16>> -> bf16
// CHECK: ttl.raw_element_write %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : tensor<1x1x!ttcore.tile<32x32, bf16>>, bf16
// CHECK: ttl.pipe_transfer.wait %{{.*}} : <net 0>
// CHECK-LABEL: func.func @worker(
// CHECK-SAME: attributes {dst_full_sync_en = false, fp32_dest_acc_en = false, ttl.kernel_thread = #ttkernel.thread<compute>, ttl.unpack_to_dest_fp32 = array<i32>}
// CHECK: ttl.tile_exp2 %{{.*}} into dst[%{{.*}}] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK: ttl.tile_mul_unary_const %{{.*}}, 5.000000e-01 into dst[%{{.*}}] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK: ttkernel.tile_regs_acquire() : () -> ()
// ROUND-LABEL: func.func @sender(
// ROUND: ttl.pipenet_scope attributes {ttl.pipe_net_ids = [0], ttl.pipe_net_roles = [0]} {
// ROUND: ttl.dprint "sent {}"(%{{.*}}) {mode = "scalar"} : (index)
module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {
  func.func @sender(%input: tensor<2x2x!ttcore.tile<32x32, bf16>, #grid>)
      attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %send = ttl.bind_cb {cb_index = 0, block_count = 2} {dfb_id = 0 : index}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 1) net 0
        : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 1) net 0>
    ttl.if_src %pipe : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 1) net 0> {
      %block = ttl.cb_reserve %send
          : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
      %slice = ttl.tensor_slice %input[%c1, %c0]
          : tensor<2x2x!ttcore.tile<32x32, bf16>, #grid> -> tensor<1x1x!ttcore.tile<32x32, bf16>, #grid>
      %read = ttl.copy %slice, %send
          : (tensor<1x1x!ttcore.tile<32x32, bf16>, #grid>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>)
          -> !ttl.transfer_handle<read>
      ttl.wait %read : !ttl.transfer_handle<read>
      %first = ttl.raw_element_read %block[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>> -> bf16
      ttl.raw_element_write %block[%c0, %c1], %first : tensor<1x1x!ttcore.tile<32x32, bf16>>, bf16
      ttl.cb_push %send : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    }
    %transfer = ttl.pipe_transfer.create %pipe {kind = #ttl.pipe_transfer_kind<collective>}
        : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 1) net 0> -> !ttl.pipe_transfer
    %token = ttl.pipe_transfer.post %transfer, %send
        : (!ttl.pipe_transfer, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> !ttl.pipe_token<net 0>
    ttl.pipe_transfer.wait %token : <net 0>
    ttl.pipenet_scope attributes {ttl.pipe_net_ids = [0], ttl.pipe_net_roles = [0]} {
      %x = ttl.core_x : index
      ttl.dprint "sent {}" (%x) {mode = "scalar"} : (index)
    }
    return
  }

  func.func @worker(%in: tensor<1x1x!ttcore.tile<32x32, bf16>>)
      attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %c0 = arith.constant 0 : index
    %dfb = ttl.bind_cb {cb_index = 0, block_count = 2} {dfb_id = 0 : index}
        : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %attached = ttl.attach_cb %in, %dfb
        : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>)
          -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %tile = tensor.extract %attached[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %two = ttl.tile_exp2 %tile into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    %half = ttl.tile_mul_unary_const %two, 5.000000e-01 into dst[%c0]
        : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
    ttkernel.tile_regs_acquire() : () -> ()
    return
  }
}

// -----

// Tensor-level ops before compute lowering pass through a module that has no tile op.
// CHECK-LABEL: func.func @tensor_level(
// CHECK: ttl.block.broadcast %{{.*}} dims = [1], shape = [2, 4] : tensor<2x1x!ttcore.tile<32x32, f32>> -> tensor<2x4x!ttcore.tile<32x32, f32>>
// CHECK: ttl.reduce %{{.*}}, %{{.*}} <max> [-1] : (tensor<2x4x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>) -> tensor<2x1x!ttcore.tile<32x32, f32>>
// CHECK: ttl.matmul %{{.*}}, %{{.*}} : tensor<2x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>> -> tensor<2x1x!ttcore.tile<32x32, f32>>
// CHECK: ttl.typecast %{{.*}} : (tensor<2x1x!ttcore.tile<32x32, f32>>) -> tensor<2x1x!ttcore.tile<32x32, bf16>>
// CHECK: ttl.fill 2.500000e-01 : tensor<1x1x!ttcore.tile<32x32, f32>>
// CHECK: ttl.store %{{.*}}, %{{.*}} {accumulate} : tensor<2x1x!ttcore.tile<32x32, f32>>, tensor<2x1x!ttcore.tile<32x32, f32>>
func.func @tensor_level(%a: tensor<2x1x!ttcore.tile<32x32, f32>>, %s: tensor<1x1x!ttcore.tile<32x32, f32>>,
                        %view: tensor<2x1x!ttcore.tile<32x32, f32>>) {
  %wide = ttl.block.broadcast %a dims = [1], shape = [2, 4]
      : tensor<2x1x!ttcore.tile<32x32, f32>> -> tensor<2x4x!ttcore.tile<32x32, f32>>
  %peak = ttl.reduce %wide, %s <max> [-1]
      : (tensor<2x4x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>) -> tensor<2x1x!ttcore.tile<32x32, f32>>
  %sign = ttl.sign %peak : tensor<2x1x!ttcore.tile<32x32, f32>> -> tensor<2x1x!ttcore.tile<32x32, f32>>
  %prod = ttl.matmul %sign, %s
      : tensor<2x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>> -> tensor<2x1x!ttcore.tile<32x32, f32>>
  %narrow = ttl.typecast %prod : (tensor<2x1x!ttcore.tile<32x32, f32>>) -> tensor<2x1x!ttcore.tile<32x32, bf16>>
  %quarter = ttl.fill 2.500000e-01 : tensor<1x1x!ttcore.tile<32x32, f32>>
  ttl.store %prod, %view {accumulate} : tensor<2x1x!ttcore.tile<32x32, f32>>, tensor<2x1x!ttcore.tile<32x32, f32>>
  return
}
