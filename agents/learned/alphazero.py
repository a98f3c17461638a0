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

import importlib.util
import os
import time

import numpy as np

from envs.core import rng as R
from envs.game import Game

from .. import tactics
from ..base import MAX_SECONDS, Agent, AgentError, Resigner, check_option, register
from . import _puct_kernel as K
from . import puct
from . import weights as W

DEFAULT_SIMULATIONS = 200  # a move's budget when neither simulations nor seconds is given
MAX_SIMULATIONS = 1 << 22  # a time budget's cap: the tree's memory, not a limit met in practice
MAX_BATCH = 8  # leaves a network call when the budget is large or a clock binds
SIMULATIONS_PER_LEAF = 16  # a fixed budget's default batch: at most one leaf a network call per 16


def default_batch(simulations: int | None) -> int:
    """The leaves a network call gathers when ``batch`` is not given. Each of a batch's leaves is
    picked under the virtual losses of those before it, so a batch of 8 spreads over the root's
    moves where 8 walks one after another would not; with few simulations that spreading is most of the
    search (64 simulations in batches of 8 are 8 rounds for about 10 moves), and the shipped
    Othello net scored 0.635 against greedy on 8x8 that way against 0.855 in batches of 4.
    Hence ``simulations // 16`` (4 at 64, 8 from 128 up), and 8 where a clock sets the budget."""
    if simulations is None:
        return MAX_BATCH
    return max(1, min(MAX_BATCH, simulations // SIMULATIONS_PER_LEAF))


@register("alphazero")
class AlphaZeroAgent(Agent):
    """PUCT + network. Options: ``path`` to weights (default: the shipped net of the game),
    ``simulations`` per move and/or ``seconds`` per move (the first reached stops; 200
    simulations when neither is given), leaf ``batch`` per network call (``default_batch``: a
    sixteenth of a fixed budget, at most 8), ``c_puct``, torch ``threads``;
    ``resign`` and ``resign_moves`` as MCTS's (``agents.mcts``): the root value read as a win
    rate, ``(value + 1) / 2``, under ``resign`` for ``resign_moves`` moves gives the game up where
    its runner records resignations (self-play never does: it plays every game out).

    Root tactics (``agents.tactics``), as ``mcts`` has them: a win in one is played without a
    search, and the chosen move is never one after which the opponent wins at once when another
    is open; ``threats`` (default True) adds the game's threat-space search (Gomoku's VCF and VCT): a
    forced win is played at once, and against the opponent's only the moves that stop it are
    chosen. A small net misses such lines on a large board, where one move decides."""

    plays = "two-player placement games and LOA, given weights (shipped: Othello and Gomoku; others with path=)"
    summary = "PUCT search guided by a size-independent policy-value network (shipped or path= weights)"

    time_option = "seconds"

    def __init__(
        self,
        path=None,
        simulations: int | None = None,
        seconds: float | None = None,
        batch: int | None = None,
        c_puct: float = 1.5,
        threads: int = 1,
        resign: float = 0.05,
        resign_moves: int = 3,
        threats: bool = True,
        seed=None,
    ):
        super().__init__(seed=seed)
        self.resign = check_option("resign", resign, float, 0.0, 0.5)
        self.resign_moves = check_option("resign_moves", resign_moves, int, 1)
        self._resigner = Resigner(self.resign_moves)
        if path is not None and not isinstance(path, str) and not hasattr(path, "__fspath__"):
            raise AgentError(f"path={path!r}: expected a path to a .pt weights file or None")
        self.path = None if path is None else str(path)
        if simulations is None and seconds is None:
            simulations = DEFAULT_SIMULATIONS
        self.simulations = None if simulations is None else check_option("simulations", simulations, int, 1)
        self.seconds = None if seconds is None else check_option("seconds", seconds, float, 0.0, MAX_SECONDS)
        self.batch = default_batch(self.simulations) if batch is None else check_option("batch", batch, int, 1, 256)
        self.c_puct = check_option("c_puct", c_puct, float, 0.0)
        self.threads = check_option("threads", threads, int, 1)
        if not isinstance(threats, (bool, np.bool_)):
            raise AgentError(f"threats={threats!r}: expected True or False")
        self.threats = bool(threats)
        self._nets: dict = {}
        self._meta = None  # the sidecar of ``path``, read once to tell which game it plays

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_nets"] = {}  # nets are rebuilt from the file in the receiving process
        return state

    def _weights_for(self, game):
        """``(path, None)`` of the weights this agent would play ``game`` with, or ``(None, the
        error saying why not)``: the network reads two-player games whose actions are cells x
        planes (``K.applies_to``: the placement games, LOA), and needs weights trained on that game, shipped or given by ``path`` (only the sidecar is read
        here, so this needs no torch)."""
        if not K.applies_to(game):
            return None, AgentError(f"agent 'alphazero' does not apply to {game.name}: it plays {self.plays}")
        if self.path is None:
            try:
                return str(W.shipped(game.name)), None
            except W.WeightsError:
                shipped = sorted(p.stem.split("_", 1)[1] for p in W.WEIGHTS_DIR.glob("alphazero_*.pt"))
                return None, W.WeightsError(
                    f"agent 'alphazero' has no shipped weights for {game.name} (shipped: "
                    f"{', '.join(shipped) or 'none'}); train some and pass path="
                )
        if self._meta is None:
            if not os.path.isfile(self.path):
                return None, W.WeightsError(f"weights file {self.path!r} does not exist")
            try:
                self._meta = W.read_meta(self.path)
            except W.WeightsError as exc:
                return None, exc
        if self._meta.get("game") != game.name:
            return None, W.WeightsError(
                f"weights {self.path!r} were trained for {self._meta.get('game')!r}, not {game.name}"
            )
        return self.path, None

    def applies_to(self, game) -> bool:
        """Whether there are weights for ``game`` (shipped, or ``path``'s sidecar names it)."""
        return self._weights_for(game)[1] is None

    def check_game(self, game) -> None:
        """``AgentError`` saying why the agent cannot play ``game`` (``_weights_for``)."""
        if isinstance(game, Game) and (why := self._weights_for(game)[1]) is not None:
            raise why
        super().check_game(game)

    def check_ready(self, game) -> None:
        """``check_game``, and PyTorch importable (without importing it here)."""
        self.check_game(game)
        if importlib.util.find_spec("torch") is None:
            W.require_torch()  # the install hint

    def clock_options(self, seconds):
        """A clock's share caps ``seconds``; the default 200 simulations, meant for an agent given
        no time, give way to it, while a count set on purpose caps it (as MCTS's)."""
        options = super().clock_options(seconds)
        if self.seconds is None and self.simulations == DEFAULT_SIMULATIONS:
            options["simulations"] = None
        return options

    def settings(self, game):
        return {**super().settings(game), "path": self._weights_for(game)[0]}

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
            per_cell = arch.get("policy_planes", 1)  # sidecars older than the option: one plane
            if per_cell != K.policy_planes(game):
                raise W.WeightsError(
                    f"weights {str(path)!r}: a net of {per_cell!r} policy planes per cell cannot name the "
                    f"moves of {game_name} ({K.policy_planes(game)} per cell)"
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
        start = time.perf_counter()
        legal = game.unchecked.legal_actions(state)  # ``act`` checked the state
        if len(legal) == 1:
            return self._played(int(legal[0]), start, simulations=0, nodes=0, value=float("nan"))
        if self.threats:
            limit = 0.0 if self.seconds is None else start + self.seconds * tactics.ROOT_SHARE
            win, defences = tactics.root_tactics(game, state, legal, limit)
        else:
            win, defences = tactics.wins_at_once(game, state, legal), None
        if win is not None:  # never missed, and no search needed to see it
            return self._played(win, start, simulations=0, nodes=0, value=1.0)
        tactics_done = time.perf_counter()
        net, encoding = self.net_for(game)
        evaluator = puct.Evaluator(net, game.num_actions)
        result = puct.search(
            evaluator,
            game,
            [state],
            self.simulations if self.simulations is not None else MAX_SIMULATIONS,
            batch=self.batch,
            c_puct=self.c_puct,
            encoding=encoding,
            # the net is loaded: the search has the move's time less the threat searches'
            deadline=None if self.seconds is None else time.perf_counter() + self.seconds - (tactics_done - start),
        )
        visits, priors = result.visits[0], result.priors[0]
        action = self._choose(game, state, defences or legal, visits, priors)
        win = (float(result.values[0]) + 1) / 2
        if self.resign > 0:
            self._resigner.judge(
                game,
                state,
                win < self.resign,
                f"win rate {100 * win:.1f}% under {100 * self.resign:g}% for {self.resign_moves} moves",
            )
        return self._played(
            action,
            start,
            simulations=int(visits.sum()) + 1,  # the first walk expands the root itself
            nodes=result.evaluations,
            value=float(result.values[0]),
        )

    def _choose(self, game, state, moves, visits, priors) -> int:
        """The most visited of ``moves``, ties to the higher prior, then to the seeded generator;
        but not a move after which the opponent wins at once while another is open."""
        moves = np.asarray(moves, dtype=np.int64)
        ranked = moves[np.lexsort((-priors[moves], -visits[moves]))]
        best = next((int(a) for a in ranked if not tactics.loses_at_once(game, state, int(a))), int(ranked[0]))
        tied = [
            int(a)
            for a in ranked
            if visits[a] == visits[best]
            and priors[a] == priors[best]
            and (a == best or not tactics.loses_at_once(game, state, int(a)))
        ]
        return tied[R.randint(self.rng, len(tied))]

    def _played(self, action, start, **stats) -> int:
        self.last_stats = {**stats, "seconds": time.perf_counter() - start}
        return action
