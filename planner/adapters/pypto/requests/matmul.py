"""What a matmul makes (docs/design/nz-layout.md 12): its `m`, `n`, `k` producer record and result tile.

An Acc tile made by a matmul carries its producer, so an accumulator store of it can be
split along N. Only static 2-D operand tiles with known memory give a producer.
"""

from __future__ import annotations

import ast

from planner.adapters.pypto.reading.types import TileType
from planner.adapters.pypto.requests.model import TileValue
from planner.layout.protocol import MatmulProducer
from planner.proofs.expr import Const, Expr
from planner.targets.ascend import ASCEND_DTYPES


def _static_int(expr: Expr) -> int | None:
    return expr.value if isinstance(expr, Const) else None


def matmul_producer(operands: list[TileValue], flags: dict[str, ast.expr]) -> MatmulProducer | None:
    """`m`, `n`, `k` and operand memory of a matmul over static 2-D tiles (a_trans/b_trans honoured)."""
    left, right = operands[0].type, operands[1].type
    if left is None or right is None or len(left.shape) != 2 or len(right.shape) != 2:
        return None
    m, k = (left.shape[1], left.shape[0]) if _flag(flags, "a_trans") else (left.shape[0], left.shape[1])
    n = right.shape[0] if _flag(flags, "b_trans") else right.shape[1]
    sizes = [_static_int(m), _static_int(n), _static_int(k)]
    if left.memory is None or right.memory is None or any(size is None for size in sizes):
        return None
    memory = left.memory if left.memory != "Mat" else right.memory
    return MatmulProducer(m=sizes[0], n=sizes[1], k=sizes[2], memory=memory)


def _flag(flags: dict[str, ast.expr], name: str) -> bool:
    node = flags.get(name)
    return isinstance(node, ast.Constant) and node.value is True


def matmul_result_type(
    operands: list[TileValue], producer: MatmulProducer | None, dtype: str | None
) -> TileType | None:
    """An unannotated matmul result: an [m, n] Acc tile, FP32 for float inputs, INT32 otherwise."""
    if producer is None:
        return None
    left = operands[0].type
    assert left is not None
    result_dtype = dtype or ("FP32" if ASCEND_DTYPES[left.dtype].is_float else "INT32")
    return TileType((Const(producer.m), Const(producer.n)), result_dtype, "Acc")
