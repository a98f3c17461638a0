"""examples/train_rllib.py: self-play PPO with RLlib on an Arbiter PettingZoo env, actions masked.

The training test runs the example on a local Ray (2 CPUs, one remote env runner) for two small
iterations; it is slow (about a minute) and skipped without RLlib (the ``rllib`` extra)."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason='needs the rllib extra: pip install "arbiter-games[rllib]"')
pytest.importorskip("ray.rllib", reason='needs the rllib extra: pip install "arbiter-games[rllib]"')

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "train_rllib.py"


def _example():
    spec = importlib.util.spec_from_file_location("train_rllib_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_self_play_trains_and_never_samples_an_illegal_move(tmp_path):
    log = tmp_path / "metrics.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, str(SCRIPT), "--game", "othello", "--size", "6", "--iterations", "2",
                          "--batch", "400", "--minibatch", "100", "--epochs", "2", "--channels", "16",
                          "--env-runners", "1", "--num-cpus", "2", "--log", str(log)],
                         env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "done: 2 iterations of self-play PPO on othello" in run.stdout
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["iteration"] for e in entries] == [1, 2]
    steps = [e["env_steps"] for e in entries]  # both seats' moves, sampled by the remote runner
    assert steps[0] >= 400 and steps[1] >= steps[0] + 400
    assert entries[-1]["episodes"] >= 10  # Othello 6x6 games last about 32 moves
    # the callback saw every action of the finished games; none was masked out
    assert sum(e["actions_checked"] for e in entries) >= 10 * 20
    assert all(e["illegal_actions"] == 0 for e in entries)
    for e in entries:  # the learner updated the shared module on real losses
        assert all(v == v and abs(v) < 1e3 for v in (e["policy_loss"], e["value_loss"], e["entropy"]))
        assert e["entropy"] > 0


@pytest.mark.parametrize("argv, message", [
    (["--env-runners", "-1"], "--env-runners=-1"),
    (["--batch", "100", "--minibatch", "200"], "--minibatch=200 is larger than --batch=100"),
    (["--game", "othello", "--size", "5"], "size=5"),
    (["--iterations", "0"], "--iterations=0"),
    (["--address", "auto", "--num-cpus", "2"], "--num-cpus sizes a local Ray"),
])
def test_bad_options_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        _example().parse(argv)
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_without_rllib_the_error_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray.rllib.algorithms.ppo", None)
    with pytest.raises(SystemExit):
        _example().parse([])
    assert 'pip install "arbiter-games[rllib]"' in capsys.readouterr().err
