"""examples/train_rllib.py: self-play PPO with RLlib on an Arbiter PettingZoo env, actions masked.

The training test runs the example on a local Ray (2 CPUs, one remote env runner) for two small
iterations; it is slow (about a minute) and skipped without RLlib (the ``rllib`` extra)."""

import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason='needs the rllib extra: pip install "arbiter-games[rllib]"')
pytest.importorskip("ray.rllib", reason='needs the rllib extra: pip install "arbiter-games[rllib]"')

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "train_rllib.py"


@pytest.mark.slow
def test_self_play_trains_and_never_samples_an_illegal_move(tmp_path, run_script):
    log = tmp_path / "metrics.jsonl"
    run = run_script(
        SCRIPT,
        "--game",
        "othello",
        "--size",
        "6",
        "--iterations",
        "2",
        "--batch",
        "400",
        "--minibatch",
        "100",
        "--epochs",
        "2",
        "--channels",
        "16",
        "--env-runners",
        "1",
        "--num-cpus",
        "2",
        "--log",
        log,
        cwd=tmp_path,
    )
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


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env-runners", "-1"], "--env-runners=-1"),
        (["--batch", "100", "--minibatch", "200"], "--minibatch=200 is larger than --batch=100"),
        (["--game", "othello", "--size", "5"], "size=5"),
        (["--iterations", "0"], "--iterations=0"),
        (["--address", "auto", "--num-cpus", "2"], "--num-cpus sizes a local Ray"),
    ],
)
def test_bad_options_are_usage_errors(argv, message, run_script):
    done = run_script(SCRIPT, *argv)
    assert done.returncode == 2 and message in done.stderr


def test_without_rllib_the_error_names_the_extra(run_script):
    # the script run as __main__ in an interpreter where RLlib's PPO cannot be imported
    hide = (
        "import runpy, sys; sys.modules['ray.rllib.algorithms.ppo'] = None; "
        f"sys.argv = [{str(SCRIPT)!r}]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    done = run_script("-c", hide)
    assert done.returncode == 2 and 'pip install "arbiter-games[rllib]"' in done.stderr
