"""AlphaZero self-play on Ray (``Trainer(config, executor="ray")``): every actor's samples reach
the learner, the learner's new weights are the ones the actors play next, actors warm up once and
live for the run, and a fixed seed and actor count give the same run. A real local Ray (2 CPUs,
no dashboard) runs the actors; the nets and searches are tiny."""

import os
import re
import signal
import sys
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason='needs the learn extra: pip install "arbiter-games[learn]"')
ray = pytest.importorskip("ray", reason='needs the distributed extra: pip install "arbiter-games[distributed]"')

from agents.learned import distributed, train, weights  # noqa: E402

torch.set_num_threads(1)

CONFIG = dict(
    game="othello",
    sizes=[6],
    channels=8,
    blocks=1,
    simulations=6,
    fast_simulations=2,
    full_fraction=0.5,
    games=4,
    batch_size=32,
    buffer=4000,
    seed=5,
)


def digest(net):
    return distributed.weights_digest(net.state_dict())


def test_actors_play_with_the_learners_latest_weights(local_ray):
    executor = distributed.RaySelfPlay(actors=2)
    with train.Trainer(train.Config(**CONFIG), executor=executor) as trainer:
        initial = digest(trainer.net)
        first = trainer.iteration()
        after_one = digest(trainer.net)
        reports_one = executor.reports
        second = trainer.iteration()
        reports_two = executor.reports
    assert executor._actors == []  # closed with the trainer
    assert after_one != initial  # the learner trained on what the actors sent
    assert [r["actor"] for r in reports_one] == [0, 1]
    for report in reports_one:  # each actor played its 2 games with the weights sent
        assert report["version"] == 0 and report["weights"] == initial and report["positions"] > 2 * 10
    for report in reports_two:  # ... and the learner's new weights in the next iteration
        assert report["version"] == 1 and report["weights"] == after_one and report["positions"] > 2 * 10
    # every actor warmed its compiled code before its first game, once: the same processes play on
    assert [r["actor"] for r in executor.ready] == [0, 1] and all(r["warm_up_seconds"] > 0 for r in executor.ready)
    assert [r["pid"] for r in executor.ready] == [r["pid"] for r in reports_one] == [r["pid"] for r in reports_two]
    assert len({r["pid"] for r in reports_one}) == 2
    assert first["positions"] == sum(r["positions"] for r in reports_one)
    assert first["actors"] == [
        {"actor": r["actor"], "positions": r["positions"], "weights": r["weights"][:16]} for r in reports_one
    ]
    assert second["positions"] == sum(r["positions"] for r in reports_two) and trainer.iterations == 2
    assert len(trainer.buffer) == first["positions"] + second["positions"]


def test_a_fixed_seed_and_actor_count_repeat_the_run(local_ray):
    runs = []
    for _ in range(2):
        with train.Trainer(train.Config(**CONFIG), executor=distributed.RaySelfPlay(actors=2)) as trainer:
            entry = trainer.iteration()
            runs.append(trainer)
    a, b = (t.buffer.data[6] for t in runs)
    assert a["count"] == b["count"] > 0
    for name in train.FIELDS:
        np.testing.assert_array_equal(a[name][: a["count"]], b[name][: b["count"]])
    assert digest(runs[0].net) == digest(runs[1].net)
    # the two actors had seeds of their own: their games (same weights, same number) differ
    n0, n1 = (r["positions"] for r in entry["actors"])
    assert n0 != n1 or not np.array_equal(a["policy"][:n0], a["policy"][n0 : n0 + n1])


def _wait_gone(pid, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still alive {seconds} s after SIGKILL")


def test_a_lost_actor_is_replaced_and_its_share_played_again_identically(local_ray):
    config = train.Config(**{**CONFIG, "simulations": 96, "fast_simulations": 48})
    net = train.Trainer(config).net
    executor = distributed.RaySelfPlay(actors=2)
    executor.start(config, net.config)
    try:
        victim = executor.ready[0]["pid"]
        # actor 0 dies before its share comes back (killed before the iteration starts: a kill
        # timed to land mid-share would race a fast machine finishing the share first)
        os.kill(victim, signal.SIGKILL)
        _wait_gone(victim)
        interrupted = executor.play(net, 0, config.seed, config.games)
        assert executor.replayed == 1 and executor.reports[0]["pid"] != victim
        again = executor.play(net, 0, config.seed, config.games)  # the same version and seeds, no fault
    finally:
        executor.close()
    assert executor.replayed == 1 and len(interrupted) == len(again) == 2
    for a, b in zip(interrupted, again):
        for name in train.FIELDS:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_too_few_games_for_the_actors_is_a_clear_error(local_ray):
    with pytest.raises(distributed.SelfPlayError, match=r"games=1 per size cannot give each of 2 actors"):
        train.Trainer(train.Config(**{**CONFIG, "games": 1}), executor=distributed.RaySelfPlay(actors=2))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"actors": 0}, "actors=0"),
        ({"actors": "4"}, "actors='4'"),
        ({"retries": -1}, "retries=-1"),
        ({"address": "auto", "num_cpus": 2}, "num_cpus=2"),
        ({"address": 6379}, "address=6379"),
    ],
)
def test_bad_options_are_typed_errors(options, message):
    with pytest.raises(distributed.SelfPlayError, match=message):
        distributed.RaySelfPlay(**options)
    assert issubclass(distributed.SelfPlayError, ValueError)


def test_no_cluster_at_the_address_is_a_clear_error(monkeypatch):
    def refuse(**options):  # what ray.init says when no cluster answers at the address
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(distributed.SelfPlayError, match=r"address='auto': no Ray cluster to join there"):
        train.Trainer(train.Config(**CONFIG), executor=distributed.RaySelfPlay(address="auto"))


def test_an_unknown_executor_is_named():
    with pytest.raises(train.ConfigError, match="executor='dask'"):
        train.Trainer(train.Config(**CONFIG), executor="dask")


def test_without_ray_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(distributed.SelfPlayError, match=r'pip install "arbiter-games\[distributed\]"'):
        train.Trainer(train.Config(**CONFIG), executor="ray")


def test_shares_split_the_games_evenly():
    assert distributed.shares(7, 3) == [3, 2, 2] and distributed.shares(4, 4) == [1, 1, 1, 1]


def test_the_example_trains_on_ray_and_resumes(local_ray, tmp_path, run_script):
    # examples/train_alphazero.py end to end, joining this module's Ray as a cluster (--address)
    address = local_ray.get_runtime_context().gcs_address
    argv = [
        "examples/train_alphazero.py",
        "--game",
        "go",
        "--sizes",
        "5",
        "--channels",
        "8",
        "--blocks",
        "1",
        "--simulations",
        "4",
        "--fast-simulations",
        "2",
        "--games",
        "2",
        "--executor",
        "ray",
        "--address",
        address,
        "--actors",
        "2",
        "--checkpoint",
        str(tmp_path / "go.ckpt"),
        "--out",
        str(tmp_path / "go.pt"),
    ]
    runs = [
        run_script(*argv, "--iterations", "1"),
        run_script(*argv, "--iterations", "2"),
    ]  # the same command, one more iteration: resumes
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    out = runs[0].stdout + runs[1].stdout
    assert "resumed" in runs[1].stdout and "done: 2 iterations" in runs[1].stdout
    assert len(re.findall(r"^iteration=\d .*actors=\[\{'actor': 0, .*'actor': 1, ", out, re.M)) == 2
    meta = weights.read_meta(tmp_path / "go.pt")
    assert meta["training"]["iterations"] == 2 and "--executor ray" in meta["training"]["command"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--address", "auto"], "--address and --actors need --executor ray"),
        (["--executor", "ray", "--actors", "0"], "actors=0"),
    ],
)
def test_the_example_refuses_bad_options(extra, message, run_script):
    done = run_script("examples/train_alphazero.py", "--iterations", "0", *extra)
    assert done.returncode == 2 and message in done.stderr
