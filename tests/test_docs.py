"""Every ```python block of docs/ runs as written, as a user who copies it runs it: in a fresh
interpreter started in the repository root, with no PYTHONPATH and none of pytest's (pytest puts
tests/ on ``sys.path``, so ``import connect_four`` would pass here and fail for the user).

An HTML comment on the line before a block's fence says what else applies to it (hidden when the
markdown is rendered):

* ``<!-- doc-test: needs MODULE ... -->``: the block needs an extra; skipped, with the reason,
  where a module is missing.
* ``<!-- doc-test: excerpt PATH -->``: the block quotes a file of the repository; its lines must
  appear in that file, in order (the file may hold more between them), so the quote cannot drift.
* ``<!-- doc-test: skip: WHY -->``: illustrative only (a fragment, something that needs a
  cluster); few are allowed, and each says why.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MAX_SKIPPED = 3
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_MARKER = re.compile(r"^<!--[ \t]*doc-test:[ \t]*((?:(?!-->)[^\n])*?)[ \t]*-->[ \t]*\n\Z", re.M)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # the first line of code, 1-based, in the markdown file
    code: str
    marker: str  # "" or what follows "doc-test:" in the comment before the fence

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def kind(self) -> str:
        return self.marker.split(":")[0].split()[0] if self.marker else "run"


def blocks(path: Path, text: str | None = None) -> list[Block]:
    """The ```python blocks of a markdown file (or of ``text``) with the marker before each."""
    text = path.read_text() if text is None else text
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()]
        marker = _MARKER.search(before)
        found.append(Block(path, before.count("\n") + 2, match.group(1), marker.group(1) if marker else ""))
    return found


BLOCKS = [b for path in sorted(DOCS.rglob("*.md")) for b in blocks(path)]


def test_every_block_is_run_checked_or_skipped_for_a_reason():
    kinds = [b.kind for b in BLOCKS]
    assert len(BLOCKS) >= 10 and kinds.count("run") + kinds.count("needs") >= 8, kinds
    assert set(kinds) <= {"run", "needs", "excerpt", "skip"}, kinds
    skipped = [b for b in BLOCKS if b.kind == "skip"]
    assert len(skipped) <= MAX_SKIPPED, [b.id for b in skipped]
    for b in skipped:
        reason = b.marker.partition(":")[2].strip()
        assert len(reason) >= 10, f"{b.id}: a skipped block says why"


def test_the_markers_are_read():
    """The parser finds a marker only on the line right before a fence (not one further up)."""
    sample = DOCS / "sample.md"
    text = (
        "<!-- doc-test: skip: far away -->\n\n```python\nprint(1)\n```\n"
        "<!-- doc-test: needs numpy -->\n```python\nprint(2)\n```\n"
    )
    found = blocks(sample, text)
    assert [(b.kind, b.line, b.code) for b in found] == [("run", 4, "print(1)\n"), ("needs", 8, "print(2)\n")]


def run_block(block: Block, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``block`` as a user would (see the module docstring), within ``timeout`` seconds."""
    # the block's own lines, numbered as in the markdown file in tracebacks
    program = (
        f"import sys\nsource = sys.stdin.read()\n"
        f"exec(compile('\\n' * {block.line - 1} + source, {str(block.path)!r}, 'exec'), "
        "{'__name__': '__main__'})\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", program],
        input=block.code,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


RUNNABLE = [b for b in BLOCKS if b.kind in ("run", "needs")]


def skip_without_its_extra(block: Block) -> None:
    """Skip ``block``'s test, naming what is missing, when its ``needs`` marker's modules are."""
    if block.kind == "needs":
        missing = [m for m in block.marker.split()[1:] if importlib.util.find_spec(m) is None]
        if missing:
            pytest.skip(f"{block.id} needs {', '.join(missing)} (an extra)")


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_block_runs_as_written(block):
    skip_without_its_extra(block)
    done = run_block(block)
    assert done.returncode == 0, f"{block.id} failed:\n{done.stderr[-4000:]}"


EXCERPTS = [b for b in BLOCKS if b.kind == "excerpt"]


@pytest.mark.parametrize("block", EXCERPTS, ids=[b.id for b in EXCERPTS])
def test_excerpt_is_the_files(block):
    source = ROOT / block.marker.split()[1]
    assert source.is_file(), f"{block.id}: no file {source}"
    lines = [line.rstrip() for line in source.read_text().splitlines()]
    at = 0
    for quoted in (line.rstrip() for line in block.code.splitlines()):
        if not quoted:
            continue
        while at < len(lines) and lines[at] != quoted:
            at += 1
        assert at < len(lines), f"{block.id}: {quoted!r} is not in {source.relative_to(ROOT)} (in this order)"
        at += 1
