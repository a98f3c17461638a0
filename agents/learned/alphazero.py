"""The AlphaZero-style agent: PUCT search guided by a size-independent policy-value network.

    bot = agents.make("alphazero", simulations=200, seed=0)              # shipped weights
    bot = agents.make("alphazero:path=my.pt,simulations=400")            # your own
    action = bot.act(make_game("othello", size=16), state)

One net plays every board size of its game (trained on Othello 6-8, it plays up to 16x16; see
``docs/learned.md``). The move is the root child with the most visits; ties go to the
higher network prior (so ``simulations=1`` plays the raw policy), then to the agent's seeded
generator. Importing this module does not import
torch: the weights are loaded (and torch imported, limited to ``threads`` threads) at the first
move, and a missing torch raises ``AgentError`` with the install hint.
"""

from __future__ import annotations

import time

import numpy as np

from envs import _common as C

from ..base import Agent, AgentError, check_option, register
from . import _puct_kernel as K
from . import weights as W


@register("alphazero")
class AlphaZeroAgent(Agent):
    """PUCT + network. Options: ``path`` to weights (default: the shipped net of the game),
    ``simulations`` per move, leaf ``batch`` per network call, ``c_puct``, torch ``threads``."""

    plays = "two-player placement games (Othello, Gomoku, Go and any game registered like them)"

    def __init__(self, path=None, simulations: int = 200, batch: int = 8, c_puct: float = 1.5,
                 threads: int = 1, seed=None):
        super().__init__(seed=seed)
        if path is not None and not isinstance(path, str) and not hasattr(path, "__fspath__"):
            raise AgentError(f"path={path!r}: expected a path to a .pt weights file or None")
        self.path = None if path is None else str(path)
        self.simulations = check_option("simulations", simulations, int, 1)
        self.batch = check_option("batch", batch, int, 1, 256)
        self.c_puct = check_option("c_puct", c_puct, float, 0.0)
        self.threads = check_option("threads", threads, int, 1)
        self._nets: dict = {}

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_nets"] = {}  # nets are rebuilt from the file in the receiving process
        return state

    def applies_to(self, game) -> bool:
        return K.applies_to(game)

    def net_for(self, game):
        """``(net, encoding)`` for ``game``, loaded and checked on first use (one net serves every
        board size of a game)."""
        game_name = game.name
        if game_name not in self._nets:
            torch = W.require_torch()
            torch.set_num_threads(self.threads)
            from . import network

            path = self.path if self.path is not None else W.shipped(game_name)
            tensors, meta = W.load(path, kind="alphazero")
            if meta.get("game") != game_name:
                raise W.WeightsError(f"weights {str(path)!r} were trained for {meta.get('game')!r}, not {game_name}")
            encoding = meta.get("observation_encoding")
            if encoding not in K.ENCODINGS:
                raise W.WeightsError(
                    f"weights {str(path)!r} use observation encoding {encoding!r}; "
                    f"this version reads encodings {K.ENCODINGS}"
                )
            arch = W.architecture(path, meta)
            if arch.get("in_planes") != K.num_planes(game, encoding):
                raise W.WeightsError(
                    f"weights {str(path)!r}: a net of {arch.get('in_planes')!r} input planes "
                    f"cannot read encoding {encoding} of {game_name} ({K.num_planes(game, encoding)} planes)"
                )
            try:
                net = network.build(arch)
            except (TypeError, ValueError, RuntimeError) as exc:
                raise W.WeightsError(f"weights {str(path)!r}: cannot build the architecture {arch!r}: {exc}") from None
            try:
                net.load_state_dict(tensors)
            except RuntimeError as exc:
                raise W.WeightsError(f"weights {str(path)!r} do not fit their architecture: {exc}") from None
            net.eval()
            self._nets[game_name] = (net, encoding)
        return self._nets[game_name]

    def _act(self, game, state) -> int:
        from . import puct

        start = time.perf_counter()
        legal = game.legal_actions(state)
        if len(legal) == 1:
            self.last_stats = {"simulations": 0, "seconds": time.perf_counter() - start, "nodes": 0,
                               "value": float("nan")}
            return int(legal[0])
        net, encoding = self.net_for(game)
        evaluator = puct.Evaluator(net, game.num_actions)
        result = puct.search(evaluator, game, [state], self.simulations, batch=self.batch, c_puct=self.c_puct,
                             encoding=encoding)
        visits, priors = result.visits[0], result.priors[0]
        top = visits == visits.max()
        best = np.flatnonzero(top & (priors == priors[top].max()))
        action = int(best[C.randint(self.rng, len(best))])
        self.last_stats = {"simulations": self.simulations, "seconds": time.perf_counter() - start,
                           "nodes": result.evaluations, "value": float(result.values[0])}
        return action
