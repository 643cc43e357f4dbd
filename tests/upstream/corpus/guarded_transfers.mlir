// Control flow around data movement, in the syntax TT-Lang's printer uses for it: `affine.if`
// with a `#set` (with and without an else region), `affine.for`, `cf.cond_br` between blocks, and
// an `scf.execute_region` whose `scf.yield` a printer must keep.

#firstColumn = affine_set<(d0) : (d0 == 0)>
module attributes {ttl.launch_grid = [4 : i64, 1 : i64]} {
  func.func @sender_or_receiver() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %link = ttl.create_pipe src(0, 0) dst(1, 0) to(3, 0) net 1
        : !ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 1>
    %staging = ttl.bind_cb {cb_index = 2, block_count = 2}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %column = ttl.core_x : index
    affine.if #firstColumn(%column) {
      %out = ttl.copy %staging, %link
          : (!ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>, !ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 1>)
          -> !ttl.transfer_handle<write>
    } else {
      %in = ttl.copy %link, %staging
          : (!ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 1>, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>)
          -> !ttl.transfer_handle<read>
      ttl.wait %in : !ttl.transfer_handle<read>
    }
    func.return
  }
}

// -----

module attributes {ttl.launch_grid = [4 : i64, 1 : i64]} {
  func.func @repeated_sends() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %link = ttl.create_pipe src(0, 0) dst(1, 0) to(3, 0) net 1
        : !ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 1>
    %staging = ttl.bind_cb {cb_index = 2, block_count = 2}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %sending = ttl.is_src {pipe_net_id = 1 : i64}
    scf.if %sending {
      affine.for %round = 0 to 3 {
        %out = ttl.copy %staging, %link
            : (!ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>, !ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 1>)
            -> !ttl.transfer_handle<write>
      }
      scf.execute_region {
        %last = ttl.copy %staging, %link
            : (!ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>, !ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 1>)
            -> !ttl.transfer_handle<write>
        scf.yield
      }
    }
    func.return
  }
}

// -----

#corner = affine_set<(d0, d1) : (d0 == 0, d1 - 1 >= 0)>
module attributes {ttl.launch_grid = [2 : i64, 2 : i64]} {
  func.func @branch_on_core(%go: i1) attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %link = ttl.create_pipe src(0, 1) dst(1, 0) to(1, 1) net 2
        : !ttl.pipe<src(0, 1) dst(1, 0) to(1, 1) net 2>
    %staging = ttl.bind_cb {cb_index = 5, block_count = 1}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>
    cf.cond_br %go, ^send, ^done
  ^send:
    %column = ttl.core_x : index
    %row = ttl.core_y : index
    affine.if #corner(%column, %row) {
      %out = ttl.copy %staging, %link
          : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 1>, !ttl.pipe<src(0, 1) dst(1, 0) to(1, 1) net 2>)
          -> !ttl.transfer_handle<write>
    }
    cf.br ^done
  ^done:
    func.return
  }
}
