"""MLIR's SSA dominance rule, which xDSL's verifier does not check.

A value may be used only where its definition dominates the use: later in the same block, in a
region nested below it, or in a block its own block dominates. The module body is a graph
region (its ops may refer to each other in any order), as in MLIR. One walk keeps the set of
values visible at each point, adding a block's arguments on entry and each op's results after
its regions, and dropping them when the block is left, so the check is linear in the IR.
Uses across blocks of one region that the walk does not see are settled by xDSL's block
dominance, computed only for such a region.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo


@dataclass(frozen=True)
class DominanceViolation:
    """An operand whose definition does not dominate its use, and MLIR's note on where it is."""

    user: Operation
    operand_index: int
    definition: Operation | None
    note: str


@dataclass(frozen=True)
class _Enter:
    block: Block


@dataclass(frozen=True)
class _Leave:
    block: Block


@dataclass(frozen=True)
class _Defined:
    op: Operation


_Event = _Enter | _Leave | _Defined | Operation


def _region_events(region: Region) -> list[_Event]:
    """Each block entered and left in order; the entry block is left last (it dominates the rest)."""
    blocks = list(region.blocks)
    events: list[_Event] = []
    for index, block in enumerate(blocks):
        events.append(_Enter(block))
        if index > 0:
            events.append(_Leave(block))
    if blocks:
        events.append(_Leave(blocks[0]))
    return events


def _is_graph_block(block: Block) -> bool:
    return isinstance(block.parent_op(), ModuleOp)


def _ancestor_blocks(op: Operation) -> list[Block]:
    """The blocks enclosing `op`, innermost first."""
    blocks: list[Block] = []
    current: Operation | None = op
    while current is not None and (block := current.parent_block()) is not None:
        blocks.append(block)
        current = block.parent_op()
    return blocks


def _dominates_across_blocks(value: SSAValue, user: Operation, infos: dict[Region, DominanceInfo]) -> bool:
    """Whether `value`'s block strictly dominates a block enclosing `user` in the same region."""
    home = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
    if home is None or (region := home.parent) is None:
        return False
    for block in _ancestor_blocks(user):
        if block.parent is region and block is not home:
            if region not in infos:
                infos[region] = DominanceInfo(region)
            return infos[region].strictly_dominates(home, block)
    return False


def _encloses(outer: Region, inner: Region) -> bool:
    """Whether `inner` is nested (properly) inside `outer`."""
    current = inner.parent_op()
    while current is not None and (region := current.parent_region()) is not None:
        if region is outer:
            return True
        current = region.parent_op()
    return False


def _relation(home: Block | None, user_block: Block | None) -> str:
    """Where the defining block lies from the using block, in MLIR's words."""
    home_region = home.parent if home is not None else None
    user_region = user_block.parent if user_block is not None else None
    if home is user_block:
        return "the same block"
    if home_region is None or user_region is None:
        return ""
    if home_region is user_region:
        return "the same region"
    if _encloses(home_region, user_region):
        return "a parent region"
    if _encloses(user_region, home_region):
        return "a child region"
    return ""


def _note(value: SSAValue, user: Operation) -> str:
    """MLIR's note on where the operand is defined, relative to the use."""
    if isinstance(value, OpResult):
        relation = _relation(value.op.parent_block(), user.parent_block())
        place = f"op in {relation}" if relation else "op is neither in a parent nor in a child region"
        return f"operand defined here ({place})"
    assert isinstance(value, BlockArgument)
    relation = _relation(value.block, user.parent_block())
    region = value.block.parent
    number = next(i for i, block in enumerate(region.blocks) if block is value.block) if region else 0
    return f"operand defined as a block argument (block #{number} in {relation or 'another region'})"


def first_dominance_violation(module: ModuleOp) -> DominanceViolation | None:
    """The first use, in walk order, of a value whose definition does not dominate it."""
    visible: set[SSAValue] = set()
    infos: dict[Region, DominanceInfo] = {}
    stack: list[_Event] = list(reversed(_region_events(module.body)))
    while stack:
        event = stack.pop()
        if isinstance(event, _Enter):
            visible.update(event.block.args)
            if _is_graph_block(event.block):
                visible.update(result for op in event.block.ops for result in op.results)
            stack.extend(reversed(list(event.block.ops)))
        elif isinstance(event, _Leave):
            visible.difference_update(event.block.args)
            visible.difference_update(result for op in event.block.ops for result in op.results)
        elif isinstance(event, _Defined):
            visible.update(event.op.results)
        else:
            for index, operand in enumerate(event.operands):
                if operand not in visible and not _dominates_across_blocks(operand, event, infos):
                    definition = operand.op if isinstance(operand, OpResult) else operand.owner.parent_op()
                    return DominanceViolation(event, index, definition, _note(operand, event))
            stack.append(_Defined(event))
            for region in reversed(event.regions):
                stack.extend(reversed(_region_events(region)))
    return None
