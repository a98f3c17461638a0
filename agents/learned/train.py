"""AlphaZero training: self-play over mixed board sizes, a replay buffer, resumable checkpoints.

    trainer = Trainer(Config(game="othello", sizes=[6, 8]), checkpoint="runs/othello.ckpt")
    while trainer.seconds < budget:
        trainer.iteration()        # one self-play round per size, then gradient steps
        trainer.save_checkpoint()  # resume later with the same checkpoint path
    trainer.export("agents/learned/weights/alphazero_othello.pt", command="...")

One iteration plays ``games`` self-play games on each training size (all games of a size in
lockstep, see ``selfplay``), adds their positions to per-size ring buffers, and takes enough
gradient steps that each new position is seen about ``reuse`` times. A batch holds one size
(convolutions need a common shape); sizes take turns. Loss: cross-entropy to the search's visit
distribution plus the squared error of the value to the game result, as in AlphaZero. With
``augment`` every batch is turned by a random symmetry of the square (the pass logit is
unchanged); the net is not symmetric by construction, so this is a cheap 8x data multiplier.

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

import envs

from . import network, puct, selfplay, weights


@dataclass
class Config:
    game: str = "othello"
    sizes: list = field(default_factory=lambda: [6, 8])
    channels: int = 32
    blocks: int = 4
    simulations: int = 48
    games: int = 32  # self-play games per size per iteration
    leaf_batch: int = 8
    batch_size: int = 128
    reuse: float = 8.0
    lr: float = 1e-3
    weight_decay: float = 1e-4
    buffer: int = 30000  # positions kept per size
    augment: bool = True
    seed: int = 0


def planes_of(game_name: str) -> int:
    return 4 if game_name == "go" else 3


class ReplayBuffer:
    """Per-size ring buffers of (planes, policy, value)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.data: dict[int, dict] = {}

    def __len__(self):
        return sum(d["count"] for d in self.data.values())

    def add(self, s: selfplay.Samples) -> None:
        d = self.data.get(s.size)
        if d is None:
            d = self.data[s.size] = {
                "planes": np.zeros((self.capacity, *s.planes.shape[1:]), np.float32),
                "policy": np.zeros((self.capacity, s.policy.shape[1]), np.float32),
                "value": np.zeros(self.capacity, np.float32), "count": 0, "next": 0,
            }
        for i in range(len(s.value)):
            j = d["next"]
            d["planes"][j], d["policy"][j], d["value"][j] = s.planes[i], s.policy[i], s.value[i]
            d["next"] = (j + 1) % self.capacity
            d["count"] = min(d["count"] + 1, self.capacity)

    def sample(self, rng, batch: int):
        size = int(rng.choice(sorted(self.data)))
        d = self.data[size]
        idx = rng.integers(0, d["count"], size=min(batch, d["count"]))
        return size, d["planes"][idx], d["policy"][idx], d["value"][idx]

    def state_dict(self):
        import torch

        out = {}
        for size, d in self.data.items():
            n = d["count"]
            out[str(size)] = {
                "planes": torch.from_numpy(d["planes"][:n].copy()),
                "policy": torch.from_numpy(d["policy"][:n].copy()),
                "value": torch.from_numpy(d["value"][:n].copy()),
                "next": d["next"],
            }
        return out

    def load_state_dict(self, state):
        for key, d in state.items():
            n = d["value"].shape[0]
            planes, policy = d["planes"].numpy(), d["policy"].numpy()
            buf = {
                "planes": np.zeros((self.capacity, *planes.shape[1:]), np.float32),
                "policy": np.zeros((self.capacity, policy.shape[1]), np.float32),
                "value": np.zeros(self.capacity, np.float32), "count": n, "next": int(d["next"]),
            }
            buf["planes"][:n], buf["policy"][:n], buf["value"][:n] = planes, policy, d["value"].numpy()
            self.data[int(key)] = buf


def symmetry(torch, planes, policy, n: int, k: int):
    """Apply symmetry ``k`` (0..7: k % 4 quarter turns, then a mirror if k >= 4) to a batch."""
    cells = policy[:, :n * n].reshape(-1, n, n)
    planes = torch.rot90(planes, k % 4, dims=(2, 3))
    cells = torch.rot90(cells, k % 4, dims=(1, 2))
    if k >= 4:
        planes, cells = planes.flip(3), cells.flip(2)
    return planes, torch.cat([cells.reshape(-1, n * n), policy[:, n * n:]], dim=1)


class Trainer:
    """Owns the net, optimizer, buffer and counters of one training run (see the module doc)."""

    def __init__(self, config: Config, checkpoint=None):
        self.torch = torch = weights.require_torch()
        self.config = config
        self.checkpoint = None if checkpoint is None else Path(checkpoint)
        arch = {"in_planes": planes_of(config.game), "channels": config.channels, "blocks": config.blocks}
        torch.manual_seed(config.seed)
        self.net = network.PolicyValueNet(**arch)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.buffer = ReplayBuffer(config.buffer)
        self.iterations = 0
        self.seconds = 0.0
        self.games_played = 0
        self.log: list[dict] = []
        if self.checkpoint is not None and self.checkpoint.is_file():
            self._resume()

    def _resume(self):
        state = self.torch.load(self.checkpoint, map_location="cpu", weights_only=True)
        saved = Config(**state["config"])
        if (saved.game, saved.channels, saved.blocks) != (self.config.game, self.config.channels, self.config.blocks):
            raise weights.WeightsError(
                f"checkpoint {str(self.checkpoint)!r} is a {saved.game} net with {saved.channels} channels and "
                f"{saved.blocks} blocks; this run asks for "
                f"{self.config.game}/{self.config.channels}/{self.config.blocks}"
            )
        self.net.load_state_dict(state["model"])
        self.opt.load_state_dict(state["optimizer"])
        self.buffer.load_state_dict(state["buffer"])
        self.iterations, self.seconds = int(state["iterations"]), float(state["seconds"])
        self.games_played = int(state["games"])
        self.log = list(state["log"])

    def save_checkpoint(self):
        if self.checkpoint is None:
            return
        self.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        state = {
            "config": dataclasses.asdict(self.config), "model": self.net.state_dict(),
            "optimizer": self.opt.state_dict(), "buffer": self.buffer.state_dict(),
            "iterations": self.iterations, "seconds": self.seconds, "games": self.games_played,
            "log": self.log,
        }
        tmp = self.checkpoint.with_suffix(".tmp")
        self.torch.save(state, tmp)
        tmp.replace(self.checkpoint)

    def iteration(self) -> dict:
        """One self-play round per training size plus the gradient steps it pays for."""
        start = time.perf_counter()
        c = self.config
        rng = np.random.default_rng([c.seed, self.iterations])
        new, evaluations, results = 0, 0, []
        self.net.eval()
        for size in c.sizes:
            game = envs.make_game(c.game, size=size)
            evaluator = puct.Evaluator(self.net, game.num_actions)
            samples = selfplay.play(evaluator, game, c.games, c.simulations, rng, batch=c.leaf_batch)
            self.buffer.add(samples)
            new += len(samples.value)
            evaluations += samples.evaluations
            results.extend(samples.results.tolist())
        self.games_played += c.games * len(c.sizes)
        steps = max(1, int(round(new * c.reuse / c.batch_size)))
        losses = self.train_steps(steps, rng)
        self.iterations += 1
        self.seconds += time.perf_counter() - start
        entry = {"iteration": self.iterations, "seconds": round(self.seconds, 1), "positions": new,
                 "evaluations": evaluations, "steps": steps, "policy_loss": losses[0],
                 "value_loss": losses[1], "first_player_score": float(np.mean(np.asarray(results) + 1) / 2)}
        self.log.append(entry)
        return entry

    def train_steps(self, steps: int, rng) -> tuple[float, float]:
        """``steps`` gradient steps on batches from the buffer; returns mean (policy, value) loss."""
        torch, c = self.torch, self.config
        self.net.train()
        total_p = total_v = 0.0
        for _ in range(steps):
            size, planes, policy, value = self.buffer.sample(rng, c.batch_size)
            planes, policy, value = torch.from_numpy(planes), torch.from_numpy(policy), torch.from_numpy(value)
            if c.augment:
                planes, policy = symmetry(torch, planes, policy, size, int(rng.integers(8)))
            logits, v = network.policy_logits(self.net, planes, policy.shape[1])
            loss_p = -(policy * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            loss_v = torch.mean((v - value) ** 2)
            self.opt.zero_grad()
            (loss_p + loss_v).backward()
            self.opt.step()
            total_p += loss_p.item()
            total_v += loss_v.item()
        self.net.eval()
        return round(total_p / steps, 4), round(total_v / steps, 4)

    def export(self, path, command: str) -> Path:
        """Write the current net as shipped weights with its sidecar (see ``weights``)."""
        c = self.config
        meta = {
            "kind": "alphazero", "game": c.game, "architecture": self.net.config,
            "observation_encoding": weights.OBSERVATION_ENCODING,
            "training": {
                "command": command, "seconds": round(self.seconds, 1), "iterations": self.iterations,
                "games": self.games_played, "sizes": list(c.sizes), "config": dataclasses.asdict(c),
                "torch_threads": self.torch.get_num_threads(),
            },
            "evaluation": {},
        }
        return weights.save(path, self.net.state_dict(), meta)
