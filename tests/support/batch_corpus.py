"""A generated batch corpus: the bundled examples and lit inputs with small variations.

Every seed (PyPTO printed IR and `@pl.jit` source, TT-Lang MLIR, JSON requests) is written
as is, with a leading comment (shifted line numbers), with CRLF line ends, with one
constant swapped for another wherever it occurs (a plan may turn into a refusal or a bad
input), cut in half (either half: a parse error, mostly) and with a byte that is not UTF-8
(unreadable). The same call writes the same files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.paths import ROOT

SEED_GLOBS = ("examples/pypto/*.py", "examples/ttlang/*.mlir", "examples/json/*.json", "tests/lit/*.mlir")
SWAPS = (
    ("512", "1024"),
    ("256", "128"),
    ("64", "32"),
    ("2048", "4096"),
    ("f32", "bf16"),
    ("INT8", "FP16"),
    ("stage=2", "stage=3"),
    ("block_count = 2", "block_count = 1"),
    ("cb_index = 1", "cb_index = 5"),
    ("bf16", "f16"),
    ("32x32", "16x16"),
    ("pl.NZ", "pl.ND"),
    ("N_TILE = 256", "N_TILE = 192"),
)


def seeds() -> list[Path]:
    return sorted(path for pattern in SEED_GLOBS for path in ROOT.glob(pattern))


def _commented(path: Path, text: str) -> str:
    if path.suffix == ".json":
        return json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"
    marker = "#" if path.suffix == ".py" else "//"
    return f"{marker} a variant of {path.name}\n{text}"


def variants(path: Path) -> dict[str, bytes]:
    """Name suffix -> file content, for one seed."""
    text = path.read_text()
    out = {
        "same": text.encode(),
        "comment": _commented(path, text).encode(),
        "crlf": text.replace("\n", "\r\n").encode(),
        "half": text[: len(text) // 2].encode(),
        "tail": text[len(text) // 2 :].encode(),
        "latin": text.encode()[:40] + b"\xff" + text.encode()[40:],
    }
    for index, (old, new) in enumerate(SWAPS):
        pattern = re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w.])")
        if pattern.search(text):
            out[f"swap{index}"] = pattern.sub(new, text).encode()
    return out


def write_corpus(root: Path, copies: int = 1) -> list[Path]:
    """Write `copies` copies of every variant of every seed under `root`; the files written, sorted."""
    written = []
    for copy in range(copies):
        for seed in seeds():
            folder = root / f"copy{copy}" / seed.parent.name
            folder.mkdir(parents=True, exist_ok=True)
            for name, content in variants(seed).items():
                target = folder / f"{seed.stem}.{name}{seed.suffix}"
                target.write_bytes(content)
                written.append(target)
    return sorted(written)
