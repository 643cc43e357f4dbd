// The op form of TTCore's device selects chips of the system description like the attribute
// form does: a chip outside it refuses the module.
// RUN: planner-opt %s -split-input-file -verify-diagnostics -p 'ttl-set-compute-kernel-config'

// expected-error @below {{'builtin.module' op default device selects chip 1 outside the system description}}
module attributes {ttcore.system_desc = #ttcore.system_desc<[], [{arch = <wormhole_b0>}], [0]>} {
  ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), meshShape = 1x1, chipIds = [1]>
  func.func @only_function() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    return
  }
}

// -----

// A chip the system description holds plans.
module attributes {ttcore.system_desc = #ttcore.system_desc<[], [{arch = <blackhole>}], [0]>} {
  ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, meshShape = 1x1, chipIds = [0]>
  func.func @on_chip_zero() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    return
  }
}
