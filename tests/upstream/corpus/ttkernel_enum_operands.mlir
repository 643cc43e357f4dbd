// A chunk of a tenstorrent/tt-lang TTKernel lit test (SPDX-License-Identifier: Apache-2.0),
// kept as upstream wrote it, CHECK lines left out: ttkernel ops whose operands include enum
// attributes written stripped (`<col>`, `<reduce_sum>`).

func.func @output_buffer_outside_key() {
  %cb0 = ttkernel.get_compile_time_arg_val(0) : () -> !ttkernel.cb<4, !ttcore.tile<32x32, f32>>
  %cb1 = ttkernel.get_compile_time_arg_val(1) : () -> !ttkernel.cb<4, !ttcore.tile<32x32, f32>>
  %cb2 = ttkernel.get_compile_time_arg_val(2) : () -> !ttkernel.cb<4, !ttcore.tile<32x32, f32>>
  %c0 = arith.constant 0 : index
  ttkernel.unary_bcast_init(%cb0, %cb2, <col>) : (!ttkernel.cb<4, !ttcore.tile<32x32, f32>>, !ttkernel.cb<4, !ttcore.tile<32x32, f32>>) -> ()
  ttkernel.unary_bcast(%cb0, %c0, %c0, <col>) {ttl.bcast_output_cb_index = 1 : index} : (!ttkernel.cb<4, !ttcore.tile<32x32, f32>>, index, index) -> ()
  ttkernel.reduce_init(%cb0, %cb1, %cb2, <reduce_sum>, <reduce_dim_col>) : (!ttkernel.cb<4, !ttcore.tile<32x32, f32>>, !ttkernel.cb<4, !ttcore.tile<32x32, f32>>, !ttkernel.cb<4, !ttcore.tile<32x32, f32>>) -> ()
  ttkernel.reduce_tile(%cb0, %cb1, %c0, %c0, %c0, <reduce_sum>, <reduce_dim_col>) {ttl.reduce_output_cb_index = 1 : index} : (!ttkernel.cb<4, !ttcore.tile<32x32, f32>>, !ttkernel.cb<4, !ttcore.tile<32x32, f32>>, index, index, index) -> ()
  func.return
}
