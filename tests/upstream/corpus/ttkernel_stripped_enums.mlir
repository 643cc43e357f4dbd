// TTKernel ops in call form whose arguments include enum attributes written stripped, as the
// TTKernel printer writes them (`<row>`, `<col>`, `<reduce_sum>`, `<reduce_dim_row>`).

func.func @broadcast_then_reduce() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %in = ttkernel.get_compile_time_arg_val(0) : () -> !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>
  %scale = ttkernel.get_compile_time_arg_val(1) : () -> !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>
  %out = ttkernel.get_compile_time_arg_val(2) : () -> !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  ttkernel.unary_bcast_init(%in, %out, <row>) : (!ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>) -> ()
  ttkernel.unary_bcast(%in, %one, %zero, <row>) : (!ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, index, index) -> ()
  ttkernel.unary_bcast_init(%in, %out, <col>) : (!ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>) -> ()
  ttkernel.reduce_init(%in, %scale, %out, <reduce_sum>, <reduce_dim_row>) : (!ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>) -> ()
  ttkernel.reduce_tile(%in, %scale, %one, %zero, %one, <reduce_sum>, <reduce_dim_row>) : (!ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, !ttkernel.cb<2, !ttcore.tile<32x32, bf16>>, index, index, index) -> ()
  func.return
}
