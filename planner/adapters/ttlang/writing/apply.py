"""Plan application (docs/design/kernel-config.md 7) as text edits at the parsed attribute dictionaries.

The planned file is the input with only the touched attribute dictionaries rewritten: their
other entries keep their written text, entries are sorted by name as MLIR prints a
dictionary, and nothing else moves, so comments, aliases and layout survive and planning
an already planned file changes nothing. Application derives no policy and cannot fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from planner.adapters.ttlang.reading.sites import AttrDictSite
from planner.adapters.ttlang.requests.collect import STRATEGY_ATTR
from planner.adapters.ttlang.requests.pass_options import (
    DST_SYNC_ATTR,
    FP32_DEST_ATTR,
    FPU_BINARY_ATTR,
    UNPACK_ATTR,
)


@dataclass(frozen=True)
class Edit:
    """Replace `[start, end)` of a chunk with `text`."""

    start: int
    end: int
    text: str


def _entry_text(name: str, value: str) -> str:
    return f"{name} = {value}"


def rewrite_attr_dict(site: AttrDictSite, updates: Mapping[str, str], removed: Iterable[str] = ()) -> Edit:
    """The edit giving `site` the `updates` entries (value text) and dropping `removed` ones."""
    entries = {entry.name: entry.text for entry in site.entries}
    for name in removed:
        entries.pop(name, None)
    entries.update({name: _entry_text(name, value) for name, value in updates.items()})
    body = "{" + ", ".join(entries[name] for name in sorted(entries)) + "}"
    if site.present:
        return Edit(site.start, site.end, body)
    keyword = "attributes " if site.keyword else ""
    return Edit(site.start, site.start, f"{keyword}{body} ")


def strategy_edit(site: AttrDictSite, strategy: str) -> Edit:
    """`ttl.tile_execution_strategy = #ttl.tile_execution_strategy<fpu|sfpu>` on a strategy-dependent op."""
    return rewrite_attr_dict(site, {STRATEGY_ATTR: f"#ttl.tile_execution_strategy<{strategy}>"})


def _i32_array(values: Sequence[int]) -> str:
    return f"array<i32: {', '.join(str(v) for v in values)}>" if values else "array<i32>"


def function_edit(site: AttrDictSite, *, dst_width: int, full_sync: bool, unpack: Sequence[int]) -> Edit:
    """The four function-attribute changes of section 7 (the FPU policy attribute is input-only)."""
    updates = {
        FP32_DEST_ATTR: "true" if dst_width == 32 else "false",
        DST_SYNC_ATTR: "true" if full_sync else "false",
        UNPACK_ATTR: _i32_array(sorted(unpack)),
    }
    return rewrite_attr_dict(site, updates, removed=(FPU_BINARY_ATTR,))


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with non-overlapping edits applied (they come from distinct attribute dictionaries)."""
    pieces: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        pieces.append(text[position : edit.start])
        pieces.append(edit.text)
        position = edit.end
    pieces.append(text[position:])
    return "".join(pieces)
