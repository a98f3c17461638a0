"""What we ship stays as shipped: no script a user runs writes over it by default.

The shipped weights, the Othello pattern table and the opening suites are listed with their
SHA-256 digests in ``tests/data/shipped.sha256`` (``sha256sum`` format): a training or fitting
run that wrote over one of them, or a change that replaced one without updating the list, fails
here. The scripts that make those files write to ``runs/`` by default and refuse an ``--out``
inside the package unless ``--overwrite-shipped`` is given.
"""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.referee.outputs import OutputPathError, check_not_shipped, ships

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tests" / "data" / "shipped.sha256"


def _listed() -> dict[str, str]:
    rows = (line.split() for line in LIST.read_text().splitlines() if line.strip())
    return {path: digest for digest, path in rows}


def test_the_shipped_files_are_the_listed_ones_byte_for_byte():
    listed = _listed()
    present = {
        str(p.relative_to(ROOT))
        for pattern in ("agents/learned/weights/*", "envs/othello/patterns.npz", "tournaments/referee/openings/*.txt")
        for p in ROOT.glob(pattern)
    }
    assert present == set(listed), "a shipped file was added or removed without updating the list"
    for path, digest in listed.items():
        assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, f"{path} is not as shipped"


def test_a_path_inside_the_packages_is_refused_without_the_flag(tmp_path):
    weights = ROOT / "agents" / "learned" / "weights" / "ppo_othello6.pt"
    assert ships(weights) and ships(ROOT / "tournaments" / "referee" / "openings")
    assert not ships(tmp_path / "ppo.pt") and not ships(ROOT / "runs" / "ppo.pt")
    with pytest.raises(OutputPathError, match="--overwrite-shipped"):
        check_not_shipped(weights, "--out")
    assert check_not_shipped(weights, "--out", overwrite=True) == str(weights)
    (tmp_path / "link").symlink_to(weights.parent)  # a link into the package is the package
    assert ships(tmp_path / "link" / "ppo_othello6.pt")


@pytest.mark.parametrize(
    "script, out",
    [  # new names inside the packages: were the check broken, the run would not clobber a shipped file
        ("train_ppo.py", "agents/learned/weights/refusal_check.pt"),
        ("train_alphazero.py", "agents/learned/weights/refusal_check_az.pt"),
        ("othello_patterns.py", "envs/othello/refusal_check.npz"),
        ("make_openings.py", "tournaments/referee/openings/refusal_check"),
    ],
)
def test_the_scripts_refuse_to_write_into_the_packages(script, out):
    try:
        got = subprocess.run(
            [sys.executable, str(ROOT / "examples" / script), "--out", out],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        written = [p for p in (ROOT / out).parent.glob((ROOT / out).stem + "*")]
        for p in written:  # what a broken check let through
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    assert not written, f"{script} wrote {written}"
    assert got.returncode == 2, got.stderr
    assert f"--out {out}: inside the installed package" in got.stderr
    assert "Traceback" not in got.stderr


def test_evaluate_records_into_a_shipped_sidecar_only_on_purpose():
    """``evaluate.py --record`` writes the weights' sidecar: refused for the shipped weights
    before any game is played, unless ``--overwrite-shipped`` is given."""
    pytest.importorskip("torch", reason="the learned agents need the learn extra")
    script = [sys.executable, str(ROOT / "examples" / "evaluate.py"), "--game", "othello", "--record"]
    got = subprocess.run(
        [*script, "--agent", "alphazero:simulations=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 2, got.stderr
    assert "--record" in got.stderr and "inside the installed package" in got.stderr
    assert "Traceback" not in got.stderr and got.stdout == ""
    no_weights = subprocess.run([*script, "--agent", "random"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert no_weights.returncode == 2 and "--record: no shipped random weights" in no_weights.stderr
