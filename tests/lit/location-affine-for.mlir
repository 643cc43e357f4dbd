// An inline location after affine.for's induction variable, as MLIR prints that variable (a region
// argument, its location inline): read, and printed back there with -mlir-print-debuginfo.
// scf.for's variable carries none, as MLIR prints it bare.
// RUN: planner-opt %s -p ttl-set-compute-kernel-config -mlir-print-debuginfo | FileCheck %s
// RUN: planner-opt %s -p ttl-set-compute-kernel-config | FileCheck %s --check-prefix=PLAIN
// CHECK: affine.for %i loc("kernel.py":3:5) = 0 to 4 {
// CHECK: } loc(#[[FOR:loc[0-9]*]])
// CHECK: scf.for %j = %n to %n step %n {
// CHECK: #[[FOR]] = loc("kernel.py":2:1)
// PLAIN: affine.for %i = 0 to 4 {
// PLAIN-NOT: loc(
func.func @f(%n: index) {
  affine.for %i loc("kernel.py":3:5) = 0 to 4 {
    %c = arith.addi %i, %n : index loc("kernel.py":4:7)
  } loc("kernel.py":2:1)
  scf.for %j = %n to %n step %n {
  }
  return
}
