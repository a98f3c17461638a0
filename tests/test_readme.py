"""The README's Python snippets run as written (users copy them first): each in a fresh
interpreter started in the repository root, as ``tests/test_docs.py`` runs the docs' blocks (and
with its markers: ``<!-- doc-test: needs MODULE -->`` before a block that needs an extra), and
within ``LIMIT`` seconds, so a snippet that no longer finishes in the time its text promises
fails here instead of leaving a newcomer waiting."""

from pathlib import Path

import pytest
from test_docs import blocks, run_block, skip_without_its_extra

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = blocks(README)
# seconds a snippet may take on the 2-core machine, with room for a busy second core (the SB3
# one, the longest, takes about a minute there, as the README says)
LIMIT = 240


def test_readme_has_the_documented_snippets():
    assert len(SNIPPETS) >= 6
    assert all(b.kind in ("run", "needs") for b in SNIPPETS), [b.id for b in SNIPPETS]
    assert "```py\n" not in README.read_text(), "a ```py block would not be run: fence it ```python"


@pytest.mark.parametrize("block", SNIPPETS, ids=[b.id for b in SNIPPETS])
def test_snippet_runs(block):
    skip_without_its_extra(block)
    done = run_block(block, timeout=LIMIT)
    assert done.returncode == 0, f"{block.id} failed:\n{done.stderr[-4000:]}"
    assert done.stdout.strip(), f"{block.id}: every snippet prints what it shows"
