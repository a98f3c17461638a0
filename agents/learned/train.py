"""AlphaZero training: self-play over mixed board sizes, a replay buffer, resumable checkpoints.

    trainer = Trainer(Config(game="othello", sizes=[6, 8]), checkpoint="runs/othello.ckpt")
    while trainer.seconds < budget:
        trainer.iteration()        # one self-play round per size, then gradient steps
        trainer.save_checkpoint()  # resume later with the same checkpoint path
    trainer.export("agents/learned/weights/alphazero_othello.pt", command="...")

One iteration plays ``games`` self-play games on each training size (all games of a size in
lockstep, with playout-cap randomisation, see ``selfplay``), adds their positions to per-size
ring buffers, and takes enough gradient steps that each new position is seen about ``reuse``
times. A batch holds one size (convolutions need a common shape); sizes take turns. Loss:
cross-entropy to the search's visit distribution (positions that had a full search only) plus
the squared error of the value to the game result, as in AlphaZero, plus ``ownership_weight``
times the mean squared error of the ownership map (KataGo's auxiliary target; a game without
one, LOA, gets no ownership head whatever the weight). With ``augment`` every batch is turned by
a random symmetry of the square (the pass logit is unchanged; LOA's direction planes turn with
the board); the net is not symmetric by construction, so this is a cheap 8x data multiplier.

Self-play runs in this process by default; ``Trainer(config, executor="ray")`` (or a
``distributed.RaySelfPlay`` with a cluster address and an actor count) plays it on Ray actors
instead, this process remaining the one learner (see ``distributed``).

A checkpoint holds the model, the optimizer, the buffers, the iteration count and the training
seconds, as tensors and plain values, read back with ``torch.load(weights_only=True)``. Every
iteration draws its randomness from ``(seed, iteration)``, so a resumed run continues exactly.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from envs.core import rng as R

from ..base import AgentError
from . import _puct_kernel as K
from . import distributed, imitation, network, puct, selfplay, weights

EXECUTORS = ("local", "ray")


class ConfigError(AgentError):
    """A training option that cannot work (named with its bad value)."""


@dataclass
class Config:
    game: str = "othello"
    sizes: list = field(default_factory=lambda: [6, 8])
    channels: int = 32
    blocks: int = 4
    simulations: int = 64  # walks of a full search (the ones that give policy targets)
    fast_simulations: int = 16  # walks of a fast search (playout-cap randomisation, see selfplay)
    full_fraction: float = 0.25  # share of moves with a full search; 1 = plain AlphaZero
    games: int = 32  # self-play games per size per iteration
    leaf_batch: int = 8
    batch_size: int = 128
    reuse: float = 6.0
    lr: float = 1e-3
    weight_decay: float = 1e-4
    buffer: int = 50000  # positions kept per size
    augment: bool = True
    encoding: int = 2  # input planes (``_puct_kernel``); 2 adds the legal moves
    ownership_weight: float = 1.0  # 0: no ownership head
    seed: int = 0
    teacher: str | None = None  # an agent spec whose games start the net (``imitation``)
    teacher_games: int = 0  # games of the teacher per size, played once before self-play
    teacher_value: float = 0.0  # weight of the teacher's search score in the value targets
    teacher_workers: int = 1  # processes playing the teacher's games (``imitation``)
    init: str | None = None  # exported weights a new run's net starts from (instead of random)
    device: str = "cpu"  # where gradient steps run ("cuda" on a GPU); self-play stays on the CPU


# the arrays of one sample: (dtype, shape after the sample axis, given planes/actions/size)
FIELDS = {
    "planes": (np.uint8, lambda s: s.planes.shape[1:]),
    "policy": (np.float32, lambda s: s.policy.shape[1:]),
    "policy_weight": (np.float32, lambda s: ()),
    "value": (np.float32, lambda s: ()),
    "ownership": (np.int8, lambda s: s.ownership.shape[1:]),
}


class ReplayBuffer:
    """Per-size ring buffers of the ``FIELDS`` of self-play samples."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.data: dict[int, dict] = {}

    def __len__(self):
        return sum(d["count"] for d in self.data.values())

    def add(self, s: selfplay.Samples) -> None:
        d = self.data.get(s.size)
        if d is None:
            d = self.data[s.size] = {"count": 0, "next": 0}
            for name, (dtype, shape) in FIELDS.items():
                d[name] = np.zeros((self.capacity, *shape(s)), dtype)
        m = min(len(s.value), self.capacity)  # more samples than room: the newest ones
        idx = (d["next"] + np.arange(m)) % self.capacity  # the ring's next m slots
        for name in FIELDS:
            d[name][idx] = getattr(s, name)[len(s.value) - m :]
        d["next"] = int((d["next"] + m) % self.capacity)
        d["count"] = min(d["count"] + m, self.capacity)

    def sample(self, rng, batch: int):
        """``(size, {field: array})`` of ``batch`` random samples of one random size."""
        size = int(rng.choice(sorted(self.data)))
        d = self.data[size]
        idx = rng.integers(0, d["count"], size=min(batch, d["count"]))
        return size, {name: d[name][idx] for name in FIELDS}

    def state_dict(self):
        import torch

        out = {}
        for size, d in self.data.items():
            n = d["count"]
            out[str(size)] = {name: torch.from_numpy(d[name][:n].copy()) for name in FIELDS}
            out[str(size)]["next"] = d["next"]
        return out

    def load_state_dict(self, state):
        for key, saved in state.items():
            n = saved["value"].shape[0]
            d = {"count": n, "next": int(saved["next"])}
            for name, (dtype, _) in FIELDS.items():
                values = saved[name].numpy()
                d[name] = np.zeros((self.capacity, *values.shape[1:]), dtype)
                d[name][:n] = values
            self.data[int(key)] = d


def _turn(array, k: int, rows: int):
    """Symmetry ``k`` of the square on the axes ``rows`` and ``rows + 1`` of a numpy array or a
    torch tensor (both ``rot90`` turn the first axis towards the second, and ``flip`` mirrors)."""
    if isinstance(array, np.ndarray):
        array = np.rot90(array, k % 4, (rows, rows + 1))
        return np.flip(array, rows + 1) if k >= 4 else array
    array = array.rot90(k % 4, dims=(rows, rows + 1))
    return array.flip(rows + 1) if k >= 4 else array


def plane_order(per_cell: int, k: int) -> list:
    """Where symmetry ``k`` takes the policy planes of a cell: plane ``e`` of the turned policy is
    plane ``order[e]`` of the original. One plane stays; a compass direction (``K.COMPASS``) is
    a step from the cell, so it is turned as the board is, as a mark one step from the centre
    of a 3x3 square, and read off where the mark lands (a quarter turn takes north to west)."""
    if per_cell == 1:
        return [0]
    steps = K.PLANE_LAYOUTS.get(per_cell)
    if steps is None:
        raise ValueError(f"per_cell={per_cell!r}: expected one of {sorted(K.PLANE_LAYOUTS)} policy planes per cell")
    order = [0] * per_cell
    for d, (dr, dc) in enumerate(steps):
        mark = np.zeros((3, 3), dtype=np.int8)
        mark[1 + dr, 1 + dc] = 1
        r, c = np.argwhere(_turn(mark, k, 0))[0]
        order[steps.index((int(r) - 1, int(c) - 1))] = d
    return order


def symmetry(torch, planes, policy, ownership, n: int, k: int, per_cell: int = 1):
    """Apply symmetry ``k`` (0..7: k % 4 quarter turns, then a mirror if k >= 4) to a batch of
    planes (B, C, n, n), policies (B, A: ``per_cell`` planes per cell, cell-major, then the pass,
    if any, which stays put) and ownership maps (B, n, n; (B, 0, 0), a game without them, stays
    empty). A cell's policy planes move with it and swap among themselves (``plane_order``)."""
    m = n * n * per_cell
    cells = _turn(policy[:, :m].reshape(-1, n, n, per_cell), k, 1)[..., plane_order(per_cell, k)]
    planes = _turn(planes, k, 2)
    if ownership.shape[-1]:
        ownership = _turn(ownership, k, 1)
    return planes, torch.cat([cells.reshape(-1, m), policy[:, m:]], dim=1), ownership


class Trainer:
    """Owns the net, optimizer, buffer and counters of one training run (see the module doc).

    ``executor``: ``"local"`` (self-play in this process), ``"ray"`` (self-play on a local Ray,
    one actor per CPU) or a ``distributed.RaySelfPlay``. With Ray, ``close()`` (or a ``with``
    block) stops the actors.
    """

    def __init__(self, config: Config, checkpoint=None, executor="local"):
        if not (isinstance(executor, str) and executor in EXECUTORS or isinstance(executor, distributed.RaySelfPlay)):
            raise ConfigError(
                f"executor={executor!r}: expected one of {', '.join(map(repr, EXECUTORS))} or a distributed.RaySelfPlay"
            )
        self.torch = torch = weights.require_torch()
        self.config = config
        self.checkpoint = None if checkpoint is None else Path(checkpoint)
        game = self._games()[0]
        arch = {
            "in_planes": K.num_planes(game, config.encoding),
            "channels": config.channels,
            "blocks": config.blocks,
            "ownership": config.ownership_weight > 0 and K.has_ownership(game),
            "policy_planes": K.policy_planes(game),
        }
        if config.teacher:  # an agent that cannot teach these games fails here, before any work
            imitation.check_teacher(config.teacher, self._games(), scores=config.teacher_value > 0)
        if config.device != "cpu" and not (config.device == "cuda" and torch.cuda.is_available()):
            raise ConfigError(
                f"device={config.device!r}: expected 'cpu', or 'cuda' on a machine whose torch sees a GPU"
            )
        torch.manual_seed(config.seed)
        self.net = network.PolicyValueNet(**arch)
        if config.init is not None:
            self._start_from(config.init, arch)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.buffer = ReplayBuffer(config.buffer)
        self.iterations = 0
        self.seconds = 0.0
        self.games_played = 0
        self.taught = 0  # teacher games learned from (``teach``)
        self.log: list[dict] = []
        if self.checkpoint is not None and self.checkpoint.is_file():
            self._resume()
        self.executor = None
        if executor != "local":
            self.executor = distributed.RaySelfPlay() if executor == "ray" else executor
            self.executor.start(config, self.net.config)

    def _start_from(self, path, arch: dict) -> None:
        """Load exported weights into the new net: fine-tuning a shipped net keeps what it knows
        (the board sizes it was not taught on, say) where a random start would relearn it."""
        tensors, meta = weights.load(path, kind="alphazero")
        saved = network.build(weights.architecture(path, meta)).config  # the sidecar's defaults filled in
        if meta.get("game") != self.config.game or saved != self.net.config:
            raise weights.WeightsError(
                f"init={str(path)!r} holds a {meta.get('game')!r} net of {saved}; this run builds a "
                f"{self.config.game!r} net of {self.net.config}"
            )
        self.net.load_state_dict(tensors)

    def _games(self) -> list:
        """The game on each training size; ``ConfigError`` for a game the nets cannot play."""
        c = self.config
        if not isinstance(c.sizes, (list, tuple)) or not c.sizes:
            raise ConfigError(f"sizes={c.sizes!r}: expected a non-empty list of board sizes")
        games = [selfplay.make_game(c.game, size) for size in c.sizes]
        if not K.applies_to(games[0]):
            raise ConfigError(f"game={c.game!r}: AlphaZero plays two-player games whose actions are cells x planes")
        return games

    def close(self) -> None:
        """Stop the self-play actors (if any); the net, buffer and counters stay usable."""
        if self.executor is not None:
            self.executor.close()
            self.executor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _resume(self):
        state = self.torch.load(self.checkpoint, map_location="cpu", weights_only=True)
        saved = Config(**state["config"])
        fixed = ("game", "channels", "blocks", "encoding")  # what the net's shape depends on
        if any(getattr(saved, f) != getattr(self.config, f) for f in fixed) or (saved.ownership_weight > 0) != (
            self.config.ownership_weight > 0
        ):
            have = ", ".join(f"{f}={getattr(saved, f)!r}" for f in fixed + ("ownership_weight",))
            want = ", ".join(f"{f}={getattr(self.config, f)!r}" for f in fixed + ("ownership_weight",))
            raise weights.WeightsError(
                f"checkpoint {str(self.checkpoint)!r} holds a net of {have}; this run asks for {want}"
            )
        self.net.load_state_dict(state["model"])
        self.opt.load_state_dict(state["optimizer"])
        self.buffer.load_state_dict(state["buffer"])
        self.iterations, self.seconds = int(state["iterations"]), float(state["seconds"])
        self.games_played = int(state["games"])
        self.taught = int(state.get("taught", 0))  # checkpoints from before the teacher option
        self.log = list(state["log"])

    def save_checkpoint(self):
        if self.checkpoint is None:
            return
        self.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        state = {
            "config": dataclasses.asdict(self.config),
            "model": self.net.state_dict(),
            "optimizer": self.opt.state_dict(),
            "buffer": self.buffer.state_dict(),
            "iterations": self.iterations,
            "seconds": self.seconds,
            "games": self.games_played,
            "taught": self.taught,
            "log": self.log,
        }
        tmp = self.checkpoint.with_suffix(".tmp")
        self.torch.save(state, tmp)
        tmp.replace(self.checkpoint)

    @property
    def needs_teaching(self) -> bool:
        """Whether the run has a teacher whose games it has not learned from yet: a new run, or a
        run resumed with a teacher for the first time (its teacher's games then join the buffer
        of self-play positions). A run learns from one teacher once."""
        c = self.config
        return bool(c.teacher) and c.teacher_games > 0 and self.taught == 0

    def teach(self) -> dict:
        """The warm start: ``teacher_games`` games of the teacher on each training size into the
        buffer (``imitation``), then the gradient steps they pay for (``reuse``), as an iteration
        does with self-play games. Its time counts in ``seconds``, the run's training budget."""
        c = self.config
        if not c.teacher or c.teacher_games < 1:
            raise ConfigError(f"teacher={c.teacher!r}, teacher_games={c.teacher_games!r}: nothing to learn from")
        start = time.perf_counter()
        rng = R.generator(c.seed, 2**31)  # apart from every iteration's (seed, i)
        new = 0
        for game in self._games():
            samples = imitation.teach(
                c.teacher,
                game,
                c.teacher_games,
                rng,
                encoding=c.encoding,
                value_weight=c.teacher_value,
                workers=c.teacher_workers,
            )
            self.buffer.add(samples)
            new += len(samples.value)
        self.taught = c.teacher_games * len(c.sizes)
        self.games_played += self.taught
        steps = max(1, int(round(min(new, c.buffer * len(c.sizes)) * c.reuse / c.batch_size)))
        losses = self.train_steps(steps, rng)
        self.seconds += time.perf_counter() - start
        entry = {
            "teacher": c.teacher,
            "seconds": round(self.seconds, 1),
            "positions": new,
            "steps": steps,
            "policy_loss": losses[0],
            "value_loss": losses[1],
            "ownership_loss": losses[2],
        }
        self.log.append(entry)
        return entry

    def iteration(self) -> dict:
        """One self-play round per training size plus the gradient steps it pays for."""
        start = time.perf_counter()
        c = self.config
        rng = R.generator(c.seed, self.iterations)
        new, evaluations, results = 0, 0, []
        self.net.eval()
        if self.executor is None:
            played = self._self_play(rng)
        else:  # on the actors, from (seed, iteration, actor); the learner keeps ``rng`` for its batches
            played = self.executor.play(self.net, self.iterations, c.seed, c.games)
        for samples in played:
            self.buffer.add(samples)
            new += len(samples.value)
            evaluations += samples.evaluations
            results.extend(samples.results.tolist())
        self.games_played += c.games * len(c.sizes)
        steps = max(1, int(round(new * c.reuse / c.batch_size)))
        losses = self.train_steps(steps, rng)
        self.iterations += 1
        self.seconds += time.perf_counter() - start
        entry = {
            "iteration": self.iterations,
            "seconds": round(self.seconds, 1),
            "positions": new,
            "evaluations": evaluations,
            "steps": steps,
            "policy_loss": losses[0],
            "value_loss": losses[1],
            "ownership_loss": losses[2],
            "first_player_score": float(np.mean(np.asarray(results) + 1) / 2),
        }
        if self.executor is not None:
            entry["actors"] = [
                {"actor": r["actor"], "positions": r["positions"], "weights": r["weights"][:16]}
                for r in self.executor.reports
            ]
        self.log.append(entry)
        return entry

    def _self_play(self, rng) -> list:
        """``Config.games`` games on each training size, in this process."""
        c = self.config
        played = []
        for game in self._games():
            evaluator = puct.Evaluator(self.net, game.num_actions)
            played.append(
                selfplay.play(
                    evaluator,
                    game,
                    c.games,
                    c.simulations,
                    rng,
                    batch=c.leaf_batch,
                    encoding=c.encoding,
                    fast_simulations=c.fast_simulations,
                    full_fraction=c.full_fraction,
                )
            )
        return played

    def train_steps(self, steps: int, rng) -> tuple[float, float, float]:
        """``steps`` gradient steps on batches from the buffer; returns the mean policy, value and
        ownership losses."""
        torch, c = self.torch, self.config
        own = self.net.ownership_conv is not None  # off for a game without ownership (``K.has_ownership``)
        per_cell = self.net.policy_planes
        dev = torch.device(c.device)
        self.net.to(dev).train()
        totals = np.zeros(3)
        for _ in range(steps):
            size, batch = self.buffer.sample(rng, c.batch_size)
            planes, policy, ownership = (
                torch.from_numpy(batch[f]).float().to(dev) for f in ("planes", "policy", "ownership")
            )
            weight, value = (torch.from_numpy(batch[f]).to(dev) for f in ("policy_weight", "value"))
            if c.augment:
                k = int(rng.integers(8))
                planes, policy, ownership = symmetry(torch, planes, policy, ownership, size, k, per_cell)
            out = network.policy_logits(self.net, planes, policy.shape[1], ownership=own)
            cross_entropy = -(policy * torch.log_softmax(out[0], dim=1)).sum(dim=1)
            loss_p = (weight * cross_entropy).sum() / weight.sum().clamp(min=1.0)
            loss_v = torch.mean((out[1] - value) ** 2)
            loss_o = torch.mean((out[2] - ownership) ** 2) if own else torch.zeros(())
            self.opt.zero_grad()
            (loss_p + loss_v + c.ownership_weight * loss_o).backward()
            self.opt.step()
            totals += (loss_p.item(), loss_v.item(), loss_o.item())
        self.net.to("cpu").eval()  # self-play, export and checkpoints read the net on the CPU
        return tuple(round(float(t / steps), 4) for t in totals)

    def export(self, path, command: str) -> Path:
        """Write the current net as shipped weights with its sidecar (see ``weights``)."""
        c = self.config
        meta = {
            "kind": "alphazero",
            "game": c.game,
            "architecture": self.net.config,
            "observation_encoding": c.encoding,
            "training": {
                "command": command,
                "seconds": round(self.seconds, 1),
                "iterations": self.iterations,
                "games": self.games_played,
                "sizes": list(c.sizes),
                "config": dataclasses.asdict(c),
                "torch_threads": self.torch.get_num_threads(),
            },
            "evaluation": {},
        }
        return weights.save(path, self.net.state_dict(), meta)
