"""AlphaZero self-play on a Ray cluster: N self-play actors feed one learner.

    trainer = Trainer(Config(game="othello", sizes=[6, 8]), executor="ray")                # a local Ray
    trainer = Trainer(config, executor=RaySelfPlay(actors=16, address="auto"))             # a cluster
    $ python examples/train_alphazero.py --executor ray --address auto --actors 16 ...

The learner is the training process (``train.Trainer``): it keeps the net, the optimizer, the
replay buffer and the checkpoint, exactly as in a local run. Only self-play moves out. Each
iteration the learner

1. puts its weights into Ray's object store once (``ray.put`` of plain numpy arrays; every actor
   on a node reads the same copy),
2. asks every actor for its share of the iteration's games (``Config.games`` per size, split as
   evenly as possible) and sends it the reference, the weights' version (the learner's iteration
   count) and their SHA-256,
3. adds the samples it gets back to its buffer in actor order and takes its gradient steps.

An actor loads the weights into its own copy of the net, hashes what it loaded and reports that
hash with its samples; the learner refuses samples played with any weights but the ones it sent,
so a stale or damaged broadcast is an error, never silent. Each actor runs torch on one thread
and warms the compiled search code (one short self-play game per training size) before its first
real game, under a lock per node so the first actor on a node compiles and the others load
numba's disk cache; actors live for the whole run, so this happens once per actor.

Determinism: actor ``k`` draws its games' randomness from ``(seed, iteration, k)`` and the
learner its batches from ``(seed, iteration)``, so a run is reproducible for a fixed number of
actors (another number splits the games, and their random streams, differently), and a resumed
run continues exactly. An actor lost mid-iteration (its process killed, its node gone) is
replaced and its share played again, at most ``retries`` times; the same seeds give the same
samples.

Needs the ``distributed`` extra (``pip install "arbiter-games[distributed]"``) besides ``learn``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
import time

import numpy as np

from envs.core import rng as R

from .. import ray_cluster
from ..base import AgentError
from . import network, puct, selfplay


class SelfPlayError(AgentError):
    """Distributed self-play that cannot run as asked: a bad option, a lost actor, stale weights."""


def _ray():
    return ray_cluster.require_ray(SelfPlayError)


def weights_digest(tensors: dict) -> str:
    """SHA-256 of a state dict (names, dtypes, shapes and bytes, in order): which weights these are."""
    digest = hashlib.sha256()
    for name, value in tensors.items():
        array = np.ascontiguousarray(value.detach().cpu().numpy() if hasattr(value, "detach") else value)
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def shares(games: int, actors: int) -> list[int]:
    """``games`` split over ``actors`` as evenly as possible, the first actors taking the extra ones."""
    return [games // actors + (k < games % actors) for k in range(actors)]


class _SelfPlayActor:
    """One Ray actor: a copy of the net, warmed compiled code, and self-play on request."""

    def __init__(self, index: int, config: dict, architecture: dict):
        import torch

        torch.set_num_threads(1)
        self.torch = torch
        self.index = index
        self.config = config
        self.net = network.build(architecture)
        self.net.eval()
        self.games = {size: selfplay.make_game(config["game"], size) for size in config["sizes"]}
        start = time.perf_counter()
        lock = os.path.join(tempfile.gettempdir(), "arbiter-warm-up.lock")
        with open(lock, "a") as handle:  # one actor per node compiles; the others load the cache
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                for game in self.games.values():  # every kernel self-play calls, before any real game
                    selfplay.play(
                        puct.Evaluator(self.net, game.num_actions),
                        game,
                        1,
                        3,
                        np.random.default_rng(0),
                        batch=config["leaf_batch"],
                        encoding=config["encoding"],
                        fast_simulations=2,
                        full_fraction=0.5,
                    )
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        self.warm_up_seconds = time.perf_counter() - start

    def ready(self) -> dict:
        return {"actor": self.index, "pid": os.getpid(), "warm_up_seconds": self.warm_up_seconds}

    def play(self, tensors: dict, version: int, seed: int, games: int) -> dict:
        """Load ``tensors`` (the learner's weights ``version``) and play ``games`` games per size."""
        torch, c = self.torch, self.config
        self.net.load_state_dict({name: torch.tensor(value) for name, value in tensors.items()})
        self.net.eval()
        loaded = weights_digest(self.net.state_dict())
        rng = R.generator(seed, version, self.index)
        start = time.process_time()
        samples = []
        for game in self.games.values():
            samples.append(
                selfplay.play(
                    puct.Evaluator(self.net, game.num_actions),
                    game,
                    games,
                    c["simulations"],
                    rng,
                    batch=c["leaf_batch"],
                    encoding=c["encoding"],
                    fast_simulations=c["fast_simulations"],
                    full_fraction=c["full_fraction"],
                )
            )
        return {
            "actor": self.index,
            "pid": os.getpid(),
            "version": version,
            "weights": loaded,
            "samples": samples,
            "positions": sum(len(s.value) for s in samples),
            "cpu_seconds": time.process_time() - start,
        }


class RaySelfPlay:
    """Self-play on Ray actors for ``train.Trainer`` (see the module docstring).

    ``address``: None starts a local Ray (``num_cpus`` CPUs, default this machine's), ``"auto"``
    or ``"host:port"`` joins a running cluster. ``actors``: self-play actors, one CPU each
    (default: the cluster's CPUs). ``retries``: how often one actor's share of an iteration may
    lose its actor before the iteration fails.
    """

    def __init__(
        self, address: str | None = None, actors: int | None = None, retries: int = 2, num_cpus: int | None = None
    ):
        _ray()  # the install hint now, not at the first iteration
        if actors is not None and (isinstance(actors, bool) or not isinstance(actors, int) or actors < 1):
            raise SelfPlayError(f"actors={actors!r}: expected a positive number of self-play actors")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise SelfPlayError(f"retries={retries!r}: expected a number of retries >= 0")
        if num_cpus is not None and (isinstance(num_cpus, bool) or not isinstance(num_cpus, int) or num_cpus < 1):
            raise SelfPlayError(f"num_cpus={num_cpus!r}: expected a positive number of CPUs")
        if address is not None and not isinstance(address, str):
            raise SelfPlayError(f"address={address!r}: expected 'auto' or 'host:port' of a running Ray cluster")
        if address is not None and num_cpus is not None:
            raise SelfPlayError(
                f"num_cpus={num_cpus!r} sizes a local Ray; a cluster at address={address!r} has its own"
            )
        self.address, self.actors, self.retries, self.num_cpus = address, actors, retries, num_cpus
        self._started_ray = False
        self._actors: list = []
        self.replayed = 0  # shares played again because their actor was lost
        self.reports: list[dict] = []  # the last iteration's actor reports (without the samples)
        self.ready: list[dict] = []  # each actor's pid and warm-up time, once it is up

    def start(self, config, architecture: dict) -> list[dict]:
        """Start the actors (each warms up before it answers); returns their ``ready`` reports."""
        ray = _ray()
        if ray_cluster.connect(self.address, self.num_cpus, SelfPlayError):
            self._started_ray = True
        n = self.actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        if config.games < n:
            self.close()
            raise SelfPlayError(
                f"games={config.games} per size cannot give each of {n} actors a game: "
                f"ask for at least {n} games or fewer actors"
            )
        self._config = {
            k: getattr(config, k)
            for k in ("game", "sizes", "simulations", "fast_simulations", "full_fraction", "leaf_batch", "encoding")
        }
        self._architecture = dict(architecture)
        self._remote = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_SelfPlayActor)
        self._actors = [self._new_actor(k) for k in range(n)]
        self.ready = ray.get([actor.ready.remote() for actor in self._actors])
        return self.ready

    def _new_actor(self, index: int):
        return self._remote.remote(index, self._config, self._architecture)

    def play(self, net, version: int, seed: int, games: int) -> list:
        """One iteration's self-play with ``net``'s weights: the ``Samples`` of every actor and
        size, in actor order then size order."""
        ray = _ray()
        tensors = {name: value.detach().cpu().numpy().copy() for name, value in net.state_dict().items()}
        sent = weights_digest(tensors)
        ref = ray.put(tensors)  # once per iteration; every actor reads this copy
        split = shares(games, len(self._actors))
        pending = {k: self._actors[k].play.remote(ref, version, seed, split[k]) for k in range(len(self._actors))}
        lost = dict.fromkeys(pending, 0)
        reports = {}
        while pending:
            ready, _ = ray.wait(list(pending.values()), num_returns=1)
            k = next(k for k, r in pending.items() if r == ready[0])
            del pending[k]
            try:
                report = ray.get(ready[0])
            except (
                ray.exceptions.RayActorError,
                ray.exceptions.WorkerCrashedError,
                ray.exceptions.NodeDiedError,
            ) as exc:
                lost[k] += 1
                if lost[k] > self.retries:
                    raise SelfPlayError(
                        f"self-play actor {k} was lost {lost[k]} times in iteration {version}; "
                        f"last: {type(exc).__name__}"
                    ) from exc
                self.replayed += 1
                self._actors[k] = self._new_actor(k)  # the same seeds: the same games again
                pending[k] = self._actors[k].play.remote(ref, version, seed, split[k])
                continue
            if report["version"] != version or report["weights"] != sent:
                raise SelfPlayError(
                    f"self-play actor {k} played with weights {report['weights'][:12]} "
                    f"(version {report['version']}); the learner sent {sent[:12]} (version {version})"
                )
            reports[k] = report
        self.reports = [{key: v for key, v in reports[k].items() if key != "samples"} for k in sorted(reports)]
        return [s for k in sorted(reports) for s in reports[k]["samples"]]

    def close(self) -> None:
        ray_cluster.release(self._actors, self._started_ray)
        self._actors = []
        self._started_ray = False
