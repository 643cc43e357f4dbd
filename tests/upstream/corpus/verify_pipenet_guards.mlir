// Chunks of tenstorrent/tt-lang test/ttlang/Dialect/TTL/Transforms/verify_pipenet_guards.mlir
// (SPDX-License-Identifier: Apache-2.0), kept as upstream wrote them, CHECK lines left out:
// `affine.if` with its `#set`, `affine.for`, and the `scf.execute_region` whose `scf.yield` a
// printer must keep.

#srcOnly = affine_set<(d0) : (d0 == 0)>
module attributes {ttl.launch_grid = [2 : i64, 1 : i64]} {
  func.func @affine_if_else_branch() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0
        : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %x = ttl.core_x : index
    affine.if #srcOnly(%x) {
      %send = ttl.copy %cb, %pipe
          : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>,
             !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>)
          -> !ttl.transfer_handle<write>
    } else {
      %recv_dst = ttl.cb_reserve %cb
          : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
          -> tensor<1x1x!ttcore.tile<32x32, bf16>>
      %recv = ttl.copy %pipe, %recv_dst
          : (!ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>,
             tensor<1x1x!ttcore.tile<32x32, bf16>>)
          -> !ttl.transfer_handle
    }
    func.return
  }
}

// -----

module attributes {ttl.launch_grid = [2 : i64, 1 : i64]} {
  func.func @scf_execute_region_no_predicate() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0
        : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cond = ttl.is_src {pipe_net_id = 0 : i64}
    scf.if %cond {
      scf.execute_region {
        %send = ttl.copy %cb, %pipe
            : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>,
               !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>)
            -> !ttl.transfer_handle<write>
        scf.yield
      }
    }
    func.return
  }
}

// -----

module attributes {ttl.launch_grid = [2 : i64, 1 : i64]} {
  func.func @affine_for_no_predicate() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0
        : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cond = ttl.is_src {pipe_net_id = 0 : i64}
    scf.if %cond {
      affine.for %i = 0 to 4 {
        %send = ttl.copy %cb, %pipe
            : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>,
               !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>)
            -> !ttl.transfer_handle<write>
      }
    }
    func.return
  }
}

// -----

#originSet = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>
module attributes {ttl.launch_grid = [2 : i64, 2 : i64]} {
  func.func @affine_if_multi_dim() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 1) net 0
        : !ttl.pipe<src(0, 0) dst(1, 0) to(1, 1) net 0>
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %x = ttl.core_x : index
    %y = ttl.core_y : index
    affine.if #originSet(%x, %y) {
      %send = ttl.copy %cb, %pipe
          : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>,
             !ttl.pipe<src(0, 0) dst(1, 0) to(1, 1) net 0>)
          -> !ttl.transfer_handle<write>
    }
    func.return
  }
}
