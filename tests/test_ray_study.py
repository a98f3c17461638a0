"""The study on Ray (``executor="ray"``, ``arbiter study --executor ray``): the chunks run as Ray
tasks and the numbers are identical to a local run with the same seed. A real local Ray (2 CPUs,
no dashboard) runs in these tests."""

import pytest

from tournaments.studies import championship as study

ray = pytest.importorskip("ray", reason='needs the distributed extra: pip install "arbiter-games[distributed]"')

from tournaments.referee.simulation.distributed import RayStudyExecutor  # noqa: E402


def _numbers(rows):
    return [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")} for r in rows]


def test_a_grid_on_ray_gives_the_local_numbers(local_ray):
    # 4,500 championships a cell: three chunks, one Ray task each, finishing in any order
    kwargs = dict(sizes=(8,), strengths=(0.65, 1.0), championships=4500, seed=3)
    on_ray = study.run_grid(executor=RayStudyExecutor(chunks_per_task=1), **kwargs)
    local = study.run_grid(**kwargs)
    assert _numbers(on_ray) == _numbers(local)
    assert len(on_ray) == 2 * len(study.grid_systems()) and all(r["cpu_seconds"] > 0 for r in on_ray)


def test_the_richer_models_on_ray_give_the_local_numbers(local_ray):
    kwargs = dict(championships=2500, seed=5, draw=0.3, first_move_advantage=0.05, placing="ratings")
    assert study.simulate("swiss", 16, 0.75, executor="ray", **kwargs) == study.simulate("swiss", 16, 0.75, **kwargs)
    elo = dict(championships=2100, seed=6, strengths=("normal", 200))
    assert study.simulate("olympic", 8, executor="ray", k=2, **elo) == study.simulate("olympic", 8, k=2, **elo)


def test_arbiter_study_executor_ray(local_ray, tmp_path):
    from tournaments.cli import main

    args = ["study", "--sizes", "8", "--championships", "300", "--seed", "1"]
    assert main([*args, "--out", str(tmp_path / "ray"), "--executor", "ray"]) == 0
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    ray_csv = [line.rsplit(",", 2)[0] for line in (tmp_path / "ray" / "grid.csv").read_text().splitlines()]
    local_csv = [line.rsplit(",", 2)[0] for line in (tmp_path / "local" / "grid.csv").read_text().splitlines()]
    assert ray_csv == local_csv  # every cell but its timing
    assert ray.is_initialized()  # the executor leaves a Ray it did not start running
