// An op the pass cannot read (another dialect's op handling tiles), with a call site on it: the
// refusal is reported at the callee's file position, its caller as a note and the op's position
// in this file as a last note, as diagnostics are. -verify-diagnostics keeps matching this file's
// lines.
// RUN: not planner-opt %s -p ttl-set-compute-kernel-config 2>&1 >/dev/null | FileCheck %s
// RUN: planner-opt %s -p ttl-set-compute-kernel-config -verify-diagnostics -o /dev/null
// RUN: not planner plan %s 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN
// CHECK: kernel.py:7:3: error: 'd2m.tile_source' op reads or produces tiles but is not a TTL tile op
// CHECK-NEXT: main.py:2:1: note: called from
// CHECK-NEXT: {{.*}}location-input-error.mlir:17:8: note: the op in the IR
// PLAN: kernel.py:7:3: error: [adapter.unknown_tile_op] 'd2m.tile_source' op reads or produces tiles
// PLAN-NEXT: main.py:2:1: note: called from
// PLAN-NEXT: {{.*}}location-input-error.mlir:17:8: note: the op in the IR
func.func @f() {
  %c0 = arith.constant 0 : index
  // expected-error @below {{reads or produces tiles but is not a TTL tile op}}
  %m = "d2m.tile_source"() : () -> !ttcore.tile<32x32, f32> loc(callsite("kernel.py":7:3 at "main.py":2:1))
  return
}
