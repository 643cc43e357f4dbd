"""`make upstream`: does upstream's parser read back what `planner-opt` prints, as the same IR?

Every chunk of our examples, lit inputs and the inputs in `tests/upstream/corpus/` (ours, written
in the syntax upstream's tools print), and of the sample of upstream's TT-Lang test tree kept
locally, when present, in `.upstream-cache/` at its upstream paths, is read by upstream's parser
(the `tt-lang` wheel, run by `upstream_side.py` in its own CPython 3.12 virtualenv). Of the
chunks upstream reads, we read each, print it as `planner-opt` does, and upstream reads our print
back: it holds when upstream's generic print of ours equals its generic print of the input. The
same with debug info: we read upstream's debug-info print of the chunk (locations inline), print
it with `--mlir-print-debuginfo`, and upstream's generic print with locations must be the one it
makes of its own debug-info print (which already lacks the locations of the terminators it leaves
implicit). Chunks upstream does not read (its 1.1.1 release predates parts of the dialect) are not
counted. Prints, per corpus, the chunks we read and the round-trip figures, then the chunks we do
not read (with our first error) and the chunks that fail; exits 1 when a counted chunk does not
read back to the same IR. The debug-info figure is reported only: a terminator either printer
leaves implicit gets its location from where the reader meets its op, so its location cannot
survive a print in another layout.

    python tests/upstream/check.py UPSTREAM_PYTHON
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from planner.adapters.outcome import AdapterInputError  # noqa: E402
from planner.adapters.ttlang.reading.nesting import room_for_nesting  # noqa: E402
from planner.adapters.ttlang.reading.source import Chunk, is_blank, parse_chunk, split_chunks  # noqa: E402
from planner.adapters.ttlang.writing.mlir_printer import canonical_text  # noqa: E402

SIDE = Path(__file__).resolve().parent / "upstream_side.py"
CORPORA = {
    "ours": [ROOT / "examples", ROOT / "tests" / "lit", ROOT / "tests" / "upstream" / "corpus"],
    "upstream": [ROOT / ".upstream-cache"],
}


@dataclass(frozen=True)
class Piece:
    corpus: str
    name: str
    text: str


def pieces() -> list[Piece]:
    found: list[Piece] = []
    for corpus, folders in CORPORA.items():
        for folder in folders:
            for path in sorted(folder.rglob("*.mlir")) if folder.is_dir() else []:
                if "Output" in path.parts:
                    continue
                text = path.read_text(encoding="utf-8")
                chunks = split_chunks(text)[0] if corpus == "ours" or splits(text) else [Chunk(text, 0, 1)]
                for index, chunk in enumerate(chunks):
                    if not is_blank(chunk.text):
                        found.append(Piece(corpus, f"{path.relative_to(ROOT)}#{index}", chunk.text))
    return found


def splits(text: str) -> bool:
    """Upstream's lit splits a file at `// -----` only when a RUN line asks for it; otherwise the
    markers are comments and the file is one input. (Our tools always split.)"""
    runs = [line for line in text.splitlines() if line.lstrip().startswith("// RUN:")]
    return not runs or any("split-input-file" in line for line in runs)


def upstream(python: str, texts: list[str]) -> list[dict[str, str]]:
    environment = {**os.environ, "TTLANG_SIM_ONLY": "1"}
    done = subprocess.run(
        [python, str(SIDE)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    result: list[dict[str, str]] = json.loads(done.stdout)
    return result


def ours(text: str, *, debuginfo: bool) -> str | None:
    """`planner-opt`'s print of `text` (None when we do not read it)."""
    printed = our_print(text, debuginfo=debuginfo)
    return printed if isinstance(printed, str) else None


def our_print(text: str, *, debuginfo: bool) -> str | AdapterInputError:
    """`planner-opt`'s print of `text`, or our refusal of it."""
    try:
        with room_for_nesting():
            return canonical_text(parse_chunk(Chunk(text, 0, 1), "-").module, debuginfo=debuginfo)
    except AdapterInputError as error:
        return error


def _why(upstream: dict[str, str], otherwise: str) -> str:
    """Why a chunk did not round-trip: upstream's own refusal of our print, else `otherwise`."""
    return f"upstream does not read ours: {upstream['error'][:160]}" if "error" in upstream else otherwise


def main(python: str) -> int:
    found = pieces()
    read = upstream(python, [piece.text for piece in found])
    counted = [(piece, seen) for piece, seen in zip(found, read, strict=True) if "error" not in seen]
    printed = [ours(piece.text, debuginfo=False) for piece, _ in counted]
    printed_debug = [ours(seen["debug_inline"], debuginfo=True) for _, seen in counted]
    read_debug = [ours(seen["debug_aliases"], debuginfo=False) is not None for _, seen in counted]
    back = upstream(python, [text or "" for text in printed])
    back_debug = upstream(python, [text or "" for text in printed_debug])
    own_debug = upstream(python, [seen["debug_inline"] for _, seen in counted])

    tally: Counter[tuple[str, str]] = Counter()
    failures: list[str] = []
    plain_failures = 0
    unread: list[str] = []
    for piece in found:
        tally[piece.corpus, "chunks"] += 1
        mine = our_print(piece.text, debuginfo=False)
        tally[piece.corpus, "we read"] += isinstance(mine, str)
        if not isinstance(mine, str):
            unread.append(f"  {piece.name}: {' '.join(str(mine).split())[:200]}")
    for index, (piece, seen) in enumerate(counted):
        tally[piece.corpus, "upstream reads"] += 1
        tally[piece.corpus, "upstream debug print we read"] += read_debug[index]
        same = printed[index] is not None and back[index].get("generic") == seen["generic"]
        same_debug = (
            printed_debug[index] is not None
            and "generic_debug" in own_debug[index]
            and back_debug[index].get("generic_debug") == own_debug[index]["generic_debug"]
        )
        tally[piece.corpus, "round trip"] += same
        tally[piece.corpus, "round trip, debug info"] += same_debug
        if not same:
            why = _why(
                back[index],
                "we do not read it" if printed[index] is None else "upstream reads ours differently",
            )
            failures.append(f"  {piece.name}: {why}")
            plain_failures += 1
        elif not same_debug:
            why = _why(
                back_debug[index],
                "we do not read upstream's print" if printed_debug[index] is None else "differs",
            )
            failures.append(f"  {piece.name} (debug info): {why}")
    for corpus in CORPORA:
        chunks, reads, ours_read = (
            tally[corpus, "chunks"],
            tally[corpus, "upstream reads"],
            tally[corpus, "we read"],
        )
        files = len({piece.name.rpartition("#")[0] for piece in found if piece.corpus == corpus})
        share = f" ({100 * ours_read / chunks:.1f}%)" if chunks else ""
        print(f"{corpus}: {files} files, {chunks} chunks; upstream 1.1.1 reads {reads}")
        print(f"  chunks we read: {ours_read}/{chunks}{share}")
        for figure in ("round trip", "round trip, debug info", "upstream debug print we read"):
            share = f" ({100 * tally[corpus, figure] / reads:.1f}%)" if reads else ""
            print(f"  {figure}: {tally[corpus, figure]} of {reads}{share}")
    if unread:
        print("chunks we do not read (our first error):")
        print("\n".join(unread))
    if failures:
        print("failing chunks:")
        print("\n".join(failures))
    return 1 if plain_failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
