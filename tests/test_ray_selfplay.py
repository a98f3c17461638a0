"""AlphaZero self-play on Ray (``Trainer(config, executor="ray")``): every actor's samples reach
the learner, the learner's new weights are the ones the actors play next, actors warm up once and
live for the run, and a fixed seed and actor count give the same run. A real local Ray (2 CPUs,
no dashboard) runs the actors; the nets and searches are tiny."""

import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason='needs the learn extra: pip install "arbiter-games[learn]"')
ray = pytest.importorskip("ray", reason='needs the distributed extra: pip install "arbiter-games[distributed]"')

from agents.learned import distributed, train  # noqa: E402

torch.set_num_threads(1)

CONFIG = dict(game="othello", sizes=[6], channels=8, blocks=1, simulations=6, fast_simulations=2,
              full_fraction=0.5, games=4, batch_size=32, buffer=4000, seed=5)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


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
    assert [r["pid"] for r in reports_two] == [r["pid"] for r in reports_one]  # warmed once, kept
    assert len({r["pid"] for r in reports_one}) == 2
    assert first["positions"] == sum(r["positions"] for r in reports_one)
    assert first["actors"] == [{"actor": r["actor"], "positions": r["positions"], "weights": r["weights"][:16]}
                               for r in reports_one]
    assert second["positions"] == sum(r["positions"] for r in reports_two) and trainer.iterations == 2
    assert len(trainer.buffer) == first["positions"] + second["positions"]


def test_a_fixed_seed_and_actor_count_repeat_the_run(local_ray):
    runs = []
    for _ in range(2):
        with train.Trainer(train.Config(**CONFIG), executor=distributed.RaySelfPlay(actors=2)) as trainer:
            trainer.iteration()
            runs.append(trainer)
    a, b = (t.buffer.data[6] for t in runs)
    assert a["count"] == b["count"] > 0
    for name in train.FIELDS:
        np.testing.assert_array_equal(a[name][:a["count"]], b[name][:b["count"]])
    assert digest(runs[0].net) == digest(runs[1].net)
    with train.Trainer(train.Config(**{**CONFIG, "seed": 6}), executor=distributed.RaySelfPlay(actors=2)) as other:
        other.iteration()
    assert other.buffer.data[6]["count"] != a["count"] or \
        not np.array_equal(other.buffer.data[6]["planes"][:a["count"]], a["planes"][:a["count"]])


def test_ready_reports_a_warm_up_per_actor(local_ray):
    executor = distributed.RaySelfPlay(actors=2)
    try:
        ready = executor.start(train.Config(**CONFIG), {"in_planes": 4, "channels": 8, "blocks": 1,
                                                        "ownership": True})
    finally:
        executor.close()
    assert [r["actor"] for r in ready] == [0, 1] and all(r["warm_up_seconds"] > 0 for r in ready)


def test_too_few_games_for_the_actors_is_a_clear_error(local_ray):
    with pytest.raises(distributed.SelfPlayError, match=r"games=1 per size cannot give each of 2 actors"):
        train.Trainer(train.Config(**{**CONFIG, "games": 1}), executor=distributed.RaySelfPlay(actors=2))


@pytest.mark.parametrize("options, message", [
    ({"actors": 0}, "actors=0"), ({"actors": "4"}, "actors='4'"), ({"retries": -1}, "retries=-1"),
    ({"address": "auto", "num_cpus": 2}, "num_cpus=2"), ({"address": 6379}, "address=6379"),
])
def test_bad_options_are_typed_errors(options, message):
    with pytest.raises(distributed.SelfPlayError, match=message):
        distributed.RaySelfPlay(**options)
    assert issubclass(distributed.SelfPlayError, ValueError)


def test_an_unknown_executor_is_named():
    with pytest.raises(train.ConfigError, match="executor='dask'"):
        train.Trainer(train.Config(**CONFIG), executor="dask")


def test_without_ray_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(distributed.SelfPlayError, match=r'pip install "arbiter-games\[distributed\]"'):
        train.Trainer(train.Config(**CONFIG), executor="ray")


def test_shares_split_the_games_evenly():
    assert distributed.shares(7, 3) == [3, 2, 2] and distributed.shares(4, 4) == [1, 1, 1, 1]
