// planner-opt prints as mlir-opt does: CHECK lines written against ttlang-opt output hold.
// RUN: planner-opt %s | FileCheck %s
// RUN: planner-opt %s | planner-opt | FileCheck %s
// RUN: planner-opt %s -mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG

// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: module attributes {ttl.launch_grid = [2, 1]} {
// CHECK-LABEL: func.func @conventions(
// CHECK: %[[CB:.*]] = ttl.bind_cb{cb_index = 0, block_count = 2} {ttl.compiler_allocated} : <[1, 1], !ttcore.tile<32x32, f32>, 2>
// CHECK: %[[R:.*]]:2 = ttl.compute ins(%{{.*}} : tensor<1x1x!ttcore.tile<32x32, f32>>) outs(%{{.*}}, %{{.*}} : tensor<1x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>) {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} {
// CHECK: scf.execute_region {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: scf.yield
// CHECK: call @helper(%[[R]]#1) : (tensor<1x1x!ttcore.tile<32x32, f32>>) -> ()
// CHECK-NEXT: return
// CHECK-NOT: loc(

// DEBUG: func.func @conventions(%{{.*}}: tensor<1x1x!ttcore.tile<32x32, f32>> loc("kernel.py":3:1)
// DEBUG: arith.constant 0 : index loc(#loc[[C0:[0-9]+]])
// DEBUG: } loc(#loc
// DEBUG: #loc[[C0]] = loc("kernel.py":4:10)

#id = affine_map<(d0, d1) -> (d0, d1)>
module attributes {ttl.launch_grid = [2 : i64, 1 : i64]} {
  func.func private @helper(tensor<1x1x!ttcore.tile<32x32, f32>>)
  func.func @conventions(%t: tensor<1x1x!ttcore.tile<32x32, f32>> loc("kernel.py":3:1)) {
    %c0 = arith.constant 0 : index loc("kernel.py":4:10)
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} {ttl.compiler_allocated}
        : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
    %r:2 = ttl.compute ins(%t : tensor<1x1x!ttcore.tile<32x32, f32>>)
        outs(%t, %t : tensor<1x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>)
        {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} {
    ^bb0(%in: !ttcore.tile<32x32, f32>, %o: !ttcore.tile<32x32, f32>, %p: !ttcore.tile<32x32, f32>):
      ttl.yield %in, %o : !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, f32>
    } -> (tensor<1x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>)
    scf.execute_region {
      %s = arith.addi %c0, %c0 : index
      scf.yield
    }
    func.call @helper(%r#1) : (tensor<1x1x!ttcore.tile<32x32, f32>>) -> ()
    func.return
  }
}
