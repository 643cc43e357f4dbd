"""TTL ops the kernel-config resolver has no semantics for, though they change what a kernel needs.

The TopK tile ops sort tiles in place in DST; `ttl.dfb_reconfiguration` rebinds the dataflow
buffers between the phases of a kernel; `ttl.kernel` holds whole threads, compute among them,
whose buffers are its block arguments. Planning around any of them could pick a DST width or an
unpack mode they do not work with, so a function holding one is refused at that op
(`kcfg.op_semantics_unknown`, docs/design/kernel-config.md section 2): each is listed in the
function's request with no operands, and the resolver, knowing no semantics for it, refuses it.
They read and print in upstream's syntax, the TopK ops as upstream's printer writes them.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, FunctionType, IndexType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator

from planner.adapters.ttlang.dialects.op_table import OpSpec
from planner.adapters.ttlang.dialects.ttl_structure import parse_keyword_operands, print_keyword_operands
from planner.adapters.ttlang.dialects.ttl_unknown import class_name


class UnmodelledOp(IRDLOperation):
    """A defined TTL op the resolver must refuse where it changes a kernel's needs."""

    def refused(self) -> bool:
        """Whether the op changes what its function's kernel needs (always, unless a subclass knows)."""
        return True

    def tile_data_operands(self) -> tuple[SSAValue, ...]:
        return ()


class TopkOp(UnmodelledOp):
    """`ttl.tile_topk_merge dst[%d] iteration = %i k = %k {attrs} : (index, i32, i32) -> ()`: the DST
    slot, then each operand after its keyword, the optional ones (`OPTIONAL`) only when given."""

    KEYWORDS: ClassVar[tuple[str, ...]] = ()
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse(cls, parser: Parser) -> TopkOp:
        parser.parse_keyword("dst")
        parser.parse_punctuation("[")
        unresolved = [parser.parse_unresolved_operand()]
        parser.parse_punctuation("]")
        for keyword in cls.KEYWORDS:
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            unresolved.append(parser.parse_unresolved_operand())
        given: list[int] = []
        for keyword in cls.OPTIONAL:
            given.append(parser.parse_optional_keyword(keyword) is not None)
            if given[-1]:
                parser.parse_punctuation("=")
                unresolved.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_at = parser.pos
        function = parser.parse_function_type()
        operands = parser.resolve_operands(unresolved, function.inputs.data, types_at)
        segments = [1] * (1 + len(cls.KEYWORDS)) + given
        properties = {"operandSegmentSizes": DenseArrayBase.from_list(i32, segments)} if cls.OPTIONAL else {}
        return cls.create(
            operands=operands,
            result_types=function.outputs.data,
            attributes=attributes,
            properties=properties,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" dst[")
        printer.print_operand(self.operands[0])
        printer.print_string("]")
        for keyword in (*self.KEYWORDS, *self.OPTIONAL):
            value = getattr(self, keyword)
            if value is not None:
                printer.print_string(f" {keyword} = ")
                printer.print_operand(value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(self.operand_types, self.result_types))


def topk_op(mnemonic: str, keywords: tuple[str, ...], optional: tuple[str, ...] = ()) -> type[TopkOp]:
    """The TopK op `mnemonic`: the slot `dst` and an operand per keyword, as upstream names them
    (made on first use, as the ops of `OpSpec` records are)."""
    body: dict[str, object] = {
        "name": f"ttl.{mnemonic}",
        "KEYWORDS": keywords,
        "OPTIONAL": optional,
        "__annotations__": {"KEYWORDS": ClassVar[tuple[str, ...]], "OPTIONAL": ClassVar[tuple[str, ...]]},
        "__module__": __name__,
        "dst": operand_def(IndexType),
        **{keyword: operand_def() for keyword in keywords},
        **{keyword: opt_operand_def() for keyword in optional},
    }
    if optional:
        body["irdl_options"] = (AttrSizedOperandSegments(as_property=True),)
    return irdl_op_definition(type(class_name(mnemonic), (TopkOp,), body))


TOPK_KEYWORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tile_topk_local_sort": (("direction", "end_phase", "start_phase"), ("end_step", "start_step")),
    "tile_topk_merge": (("iteration", "k"), ()),
    "tile_topk_rebuild": (("direction", "iteration", "k", "logk", "skip_second"), ()),
}
"""Each TopK op's keywords, then its optional ones."""

UNMODELLED_SPECS = (
    OpSpec("dfb_reconfiguration", "custom<DfbReconfiguration>($config) attr-dict", props=("config",)),
)


@irdl_op_definition
class KernelOp(UnmodelledOp):
    """`%r = ttl.kernel {grid = ..., threads = [...]} ins(%a : T) outs(%o : U) {^bb0(...): ...}, {...} : U`:
    one region per thread, each block taking a buffer per operand. Refused when a thread holds ops."""

    name = "ttl.kernel"
    ins = var_operand_def()
    outs = var_operand_def()
    threads = var_region_def()
    res = var_result_def()
    traits = traits_def(NoTerminator())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def refused(self) -> bool:
        return any(block.ops for region in self.threads for block in region.blocks)

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        attributes = parser.parse_optional_attr_dict()
        ins = parse_keyword_operands(parser, "ins")
        outs = parse_keyword_operands(parser, "outs")
        threads = [parser.parse_region()]
        while parser.parse_optional_punctuation(",") is not None:
            threads.append(parser.parse_region())
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            result_types = list(parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type))
        return cls.create(
            operands=[*ins, *outs],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [len(ins), len(outs)])},
            attributes=attributes,
            regions=threads,
        )

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        print_keyword_operands(printer, "ins", self.ins)
        print_keyword_operands(printer, "outs", self.outs)
        printer.print_string(" ")
        printer.print_list(self.threads, printer.print_region)
        if self.res:
            printer.print_string(" : ")
            printer.print_list(self.res.types, printer.print_attribute)
