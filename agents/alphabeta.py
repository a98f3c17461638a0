"""Alpha-beta (negamax) with iterative deepening, a transposition table and move ordering.

The whole tree search runs in numba over the game's hooks (move generation, apply, static
values, ordering hints; ``envs.registry.HOOKS``), compiled for that game alone
(``envs.core.specialise``): Python only starts one compiled call per iteration of the deepening loop.
Positions live on a preallocated stack, one row per ply (copy-make: the child row is overwritten
with the parent's live cells, the ``live_length`` hook, and the move applied in place).

Search features, each value-preserving except the table's use of deeper results:
  * iterative deepening, depth and/or time budget; a timed-out iteration still counts when its
    first root move (the previous best) was finished, because every move searched is exact;
  * transposition table on ``H_HASH`` (always-replace, one slot per key modulo size) storing
    value, bound type, depth and best move packed in one word beside the key (``_pack``: an
    all-zero slot is empty, so a new table is a bare ``np.zeros``); forced-win scores are stored
    relative to the node so ``INF - ply`` stays right when the position is met at another ply;
  * ordering: table move, two killers per ply, history heuristic, and the game's hint
    (centre-first in LOA, corners in Othello, threats in Gomoku); a little seeded noise in the
    root's order makes games between equal searchers differ by seed;
  * a position repeating one on the current search path scores 0 (a draw), so search never
    loops even where the rules allow repetition (LOA before the third occurrence).

Threat-space search at the root, where a game has one (its ``threats`` hook; Gomoku: victory by
continuous fours, or by one threat such as a double three and then fours): a forced win of the
side to move is played at once, however far beyond the depth it lies; against a forced win of
the opponent only the moves that stop it are searched (``agents.tactics.defences``).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from envs.core import kernel as C
from envs.core import rng as R
from envs.core.generic import per_game
from envs.core.specialise import compiled

from . import evaluation as E
from . import tactics
from .base import MAX_SECONDS, Agent, AgentError, Resigner, check_option, register
from .tuning import tuned

G = None  # the game's hook namespace, bound per game by envs.core.specialise

MAX_PLY = 64
# info slots
NODES, ABORT, BEST, ROOT_DONE, SCORE = 0, 1, 2, 3, 4
# transposition-table columns (the key, and value/move/depth/bound packed by ``_pack``) and bounds
T_KEY, T_DATA = 0, 1
EXACT, LOWER, UPPER = 0, 1, 2
KILLER, TT_FIRST = 1 << 40, 1 << 50


@njit(cache=True)
def repeated(states, ply):
    """Whether the position at ``ply`` already occurred on the path with the same side to move."""
    h = states[ply, C.H_HASH]
    for k in range(ply - 2, -1, -2):
        if states[k, C.H_HASH] == h:
            return True
    return False


@njit(cache=True)
def _to_tt(v, ply):
    if v > E.WIN_BOUND:
        return v + ply
    if v < -E.WIN_BOUND:
        return v - ply
    return v


@njit(cache=True)
def _from_tt(v, ply):
    if v > E.WIN_BOUND:
        return v - ply
    if v < -E.WIN_BOUND:
        return v + ply
    return v


@njit(cache=True)
def _pack(value, move, depth, flag):
    """One table word: value in the high 32 bits (|value| < 2**31), then move + 1, depth + 1 and
    the bound type in 16, 8 and 8 bits. The +1s make an all-zero word an empty slot (no move,
    depth -1: never deep enough to cut), so the table is a bare ``np.zeros``, whose untouched
    pages the OS supplies lazily."""
    return (value << 32) | ((move + 1) << 16) | ((depth + 1) << 8) | flag


@per_game(inline=True)
def _order(s, p, moves, keys, n, tt_move, killers, history, ply, rng, noise):
    """Fill ``keys[i]`` with the ordering key of ``moves[i]`` (higher is searched first)."""
    for i in range(n):
        a = moves[i]
        if a == tt_move:
            k = TT_FIRST
        elif a == killers[ply, 0] or a == killers[ply, 1]:
            k = KILLER + 1 - (a == killers[ply, 1])
        else:
            k = history[a] + (G.hint(s, p, a) << 20)
        if noise:
            k += R.randint(rng, 1 << 16)
        keys[i] = k


# frame columns: one row per ply of the explicit search stack
F_DEPTH, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_BEST_MOVE, F_N, F_I, F_SAME, F_COLUMNS = range(10)


@per_game
def _open(p, w, states, moves, keys, tt, killers, history, info, deadline, rng, fr, ply):
    """Enter node ``states[ply]`` (depth and window already in ``fr[ply]``).

    Returns True when the node is resolved without children (value in ``fr[ply, F_BEST]``):
    timeout, finished game, repetition, depth limit or a table cut-off. Otherwise its moves are
    generated and ordered in ``moves[ply]`` and the node is ready for ``_next``.
    """
    s = states[ply]
    info[NODES] += 1
    if deadline > 0.0 and (info[NODES] & 1023) == 0 and C.now() > deadline:
        info[ABORT] = 1
    depth = fr[ply, F_DEPTH]
    if info[ABORT]:
        fr[ply, F_BEST] = 0
        return True
    if s[C.H_STATUS] != C.ONGOING:
        fr[ply, F_BEST] = E.terminal_score(s, ply)
        return True
    if ply > 0 and repeated(states, ply):
        fr[ply, F_BEST] = 0
        return True
    if depth == 0 or ply == MAX_PLY:
        fr[ply, F_BEST] = E.evaluate(s, p, w)
        return True

    alpha, beta = fr[ply, F_ALPHA], fr[ply, F_BETA]
    fr[ply, F_ALPHA0] = alpha
    mask = tt.shape[0] - 1
    slot = s[C.H_HASH] & mask
    tt_move = -1
    if mask > 0 and tt[slot, T_KEY] == s[C.H_HASH]:
        data = tt[slot, T_DATA]
        tt_move = ((data >> 16) & 0xFFFF) - 1
        if ply > 0 and ((data >> 8) & 0xFF) - 1 >= depth:
            v = _from_tt(data >> 32, ply)
            flag = data & 0xFF
            if flag == LOWER:
                alpha = max(alpha, v)
            elif flag == UPPER:
                beta = min(beta, v)
            if flag == EXACT or alpha >= beta:
                fr[ply, F_BEST] = v
                return True
    fr[ply, F_ALPHA], fr[ply, F_BETA] = alpha, beta
    mv = moves[ply]
    n = G.filter_moves(s, p, mv, G.legal_actions(s, p, mv))
    _order(s, p, mv, keys[ply], n, tt_move, killers, history, ply, rng, ply == 0)
    fr[ply, F_N] = n
    fr[ply, F_I] = 0
    fr[ply, F_BEST] = -E.INF - 1
    fr[ply, F_BEST_MOVE] = mv[0]
    return False


@njit(cache=True)
def _close(tt, states, fr, ply):
    """Store a fully searched node in the table; its value is ``fr[ply, F_BEST]``."""
    mask = tt.shape[0] - 1
    if mask == 0:
        return
    key = states[ply, C.H_HASH]
    slot = key & mask
    best = fr[ply, F_BEST]
    if best <= fr[ply, F_ALPHA0]:
        flag = UPPER
    elif best >= fr[ply, F_BETA]:
        flag = LOWER
    else:
        flag = EXACT
    tt[slot, T_KEY] = key
    tt[slot, T_DATA] = _pack(_to_tt(best, ply), fr[ply, F_BEST_MOVE], fr[ply, F_DEPTH], flag)


@njit(cache=True)
def _back_up(fr, moves, killers, history, info, ply, v):
    """Fold child value ``v`` (already from this node's view) into node ``ply``."""
    a = moves[ply, fr[ply, F_I] - 1]
    if v > fr[ply, F_BEST]:
        fr[ply, F_BEST] = v
        fr[ply, F_BEST_MOVE] = a
        if ply == 0:
            info[BEST] = a
            info[SCORE] = v
    if ply == 0:
        info[ROOT_DONE] += 1
    fr[ply, F_ALPHA] = max(fr[ply, F_ALPHA], v)
    if fr[ply, F_ALPHA] >= fr[ply, F_BETA]:
        if a != killers[ply, 0]:
            killers[ply, 1] = killers[ply, 0]
            killers[ply, 0] = a
        history[a] += fr[ply, F_DEPTH] * fr[ply, F_DEPTH]
        fr[ply, F_I] = fr[ply, F_N]  # cut-off: no further children


@per_game
def search_root(p, w, states, moves, keys, tt, killers, history, info, deadline, rng, fr, depth):
    """One iteration of the deepening loop from ``states[0]``: a negamax alpha-beta search to
    ``depth`` plies, iterative over an explicit stack of frames ``fr`` (numba's on-disk cache
    breaks recursive functions). Returns the root value; best move and counters land in ``info``."""
    info[NODES] = 0
    info[ABORT] = 0
    info[ROOT_DONE] = 0
    killers[:, :] = -1
    fr[:, :] = 0
    fr[0, F_DEPTH] = depth
    fr[0, F_ALPHA] = -E.INF - 1
    fr[0, F_BETA] = E.INF + 1
    ply = np.int64(0)  # not the literal 0: numba would compile _open for it as well
    resolved = _open(p, w, states, moves, keys, tt, killers, history, info, deadline, rng, fr, ply)
    while True:
        if resolved:
            if ply == 0:
                return fr[0, F_BEST]
            v = fr[ply, F_BEST]
            ply -= 1
            if info[ABORT]:
                fr[ply, F_BEST] = 0
                continue
            _back_up(fr, moves, killers, history, info, ply, v if fr[ply, F_SAME] else -v)
        if fr[ply, F_I] >= fr[ply, F_N]:
            _close(tt, states, fr, ply)
            resolved = True
            continue
        s = states[ply]
        mv = moves[ply]
        ky = keys[ply]
        i = fr[ply, F_I]
        n = fr[ply, F_N]
        j = i  # selection step: bring the highest remaining key to position i
        for k in range(i + 1, n):
            if ky[k] > ky[j]:
                j = k
        mv[i], mv[j] = mv[j], mv[i]
        ky[i], ky[j] = ky[j], ky[i]
        fr[ply, F_I] = i + 1
        child = states[ply + 1]
        live = G.live_length(s)
        C.copy(child, s, live)
        G.apply(child, p, mv[i])
        same = child[C.H_PLAYER] == s[C.H_PLAYER]
        fr[ply, F_SAME] = same
        fr[ply + 1, F_DEPTH] = fr[ply, F_DEPTH] - 1
        if same:
            fr[ply + 1, F_ALPHA], fr[ply + 1, F_BETA] = fr[ply, F_ALPHA], fr[ply, F_BETA]
        else:
            fr[ply + 1, F_ALPHA], fr[ply + 1, F_BETA] = -fr[ply, F_BETA], -fr[ply, F_ALPHA]
        ply += 1
        resolved = _open(p, w, states, moves, keys, tt, killers, history, info, deadline, rng, fr, ply)


@per_game
def solve_root(s, p, limit, deadline, out):
    """The game's exact solver on ``s`` (``solve`` hook; see ``AlphaBetaAgent``)."""
    return G.solve(s, p, limit, deadline, out)


SOLVED, OUT_OF_TIME = 1, -1
SEARCHES = ("generic", "own")  # this module's search over the hooks, or the game's own kernel
DEFENCE_SHARE = tactics.ROOT_SHARE  # of a move's clock the root's threat-space searches may spend
OWN_RESIGN_PLIES = 6  # search="own" resigns a loss it sees this near (see ``_own_search``)
SOLVER_SHARE = 0.7  # of a move's clock the exact solver may use before search takes over
VCT_SHARE = 0.2  # of a move's clock left each deep threat-space search at the root may use (``vct``)
VCT_MARGIN = 2  # a defence is checked this many threats deeper than the threat it stops
VCT_TT_BITS = 16  # entries of the deep threat-space search's own table (2**16)


def _share(deadline, fraction):
    """The time ``fraction`` of the way from now to ``deadline`` (0.0: no clock, none)."""
    if deadline == 0.0:
        return 0.0
    now = time.perf_counter()
    return now + fraction * (deadline - now)


def _flag(name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise AgentError(f"{name}={value!r}: expected True or False")
    return bool(value)


class SearchAgent(Agent):
    """Shared plumbing of the compiled search agents: lazy buffers that never get pickled."""

    resign = False
    _resigner = None

    def _judge(self, game, state, lost: bool, why: str) -> None:
        """Resign a proven loss where the option is on and the game's runner allows it."""
        if self.resign and self._resigner is not None:
            self._resigner.judge(game, state, lost, why)

    plays = "two-player games of perfect information"

    def __init__(self, seed=None):
        super().__init__(seed=seed)
        self._buffers = None

    def applies_to(self, game) -> bool:
        """Minimax reads the whole state: it would see hidden cards, and it needs an opponent."""
        return game.num_players == 2 and not game.spec.chance_outcomes

    def _stack(self, game, depth):
        """Position, move and ordering-key stacks for ``game``, reused between moves."""
        shape = (game.name, game.state_len, game.num_actions, depth)
        if self._buffers is None or self._buffers[0] != shape:
            self._buffers = (
                shape,
                np.zeros((depth + 2, game.state_len), dtype=np.int64),
                np.zeros((depth + 1, game.num_actions), dtype=np.int64),
                np.zeros((depth + 1, game.num_actions), dtype=np.int64),
            )
        return self._buffers[1:]

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_buffers"] = None  # scratch memory: rebuilt on first use in the worker
        return state


@register("alphabeta")
class AlphaBetaAgent(SearchAgent):
    """Iterative-deepening negamax alpha-beta (see the module docstring).

    Options: ``depth`` (plies; 0 = up to 64 when ``time`` is set, else 4), ``time`` (seconds per
    move, 0 = no limit), ``tt_bits`` (table of 2**tt_bits entries; 0: no table), ``weights``
    (evaluation weights, default the game's), ``endgame``, ``threats`` (the root's threat-space
    search, where the game has one: Gomoku's VCF; False: the plain search), ``search``
    (``"generic"``: this module's search over the game's hooks; ``"own"``: the game's own search
    kernel, where it has one: Gomoku's ``envs.gomoku.search``; default: the game's own where it has
    one when playing on a clock with no fixed depth, else generic), ``vct`` (with ``search="own"``:
    the game's own threat-space search at the root, to that many threats before the last
    continuous fours, for both sides: a forced win it finds is played, and against the
    opponent's only the moves after which it finds none are searched; 0: off; see
    ``_deep_threats``), ``seed``.

    Given neither ``depth`` nor ``time``, the agent plays on the game's default clock
    (its ``seconds`` tuning per game, ``agents.tuning``: Othello 1 s) when it has one, else to depth 4.

    ``endgame`` is the limit handed to the game's exact solver (the ``solve`` hook; Othello:
    positions with at most that many empty squares are solved to the end, win/draw/loss). By
    default (``None``) it is the game's ``GameSpec.endgame`` when playing on a clock and 0 (off)
    for a fixed depth, so ``depth=`` runs keep their cost and their moves. On a clock the solver
    may use ``SOLVER_SHARE`` of the move's time; if it runs out, the usual search plays on with
    what is left. A game it proves lost is played, as engines do, by the move that loses by the
    fewest discs (``last_stats["margin"]``, the final disc difference under perfect play), when
    the solver's share of the clock also covers that second, exact solve; otherwise the usual
    search plays on. A solved move's ``last_stats`` has ``solved`` set and the score
    ``WIN_BOUND + 1`` (won: a forced win whose distance the solver does not report), 0 (drawn)
    or their negation (lost).

    ``resign`` (default True): give up a game proven lost (a completed iteration's score is a
    forced loss, or the endgame solver proves one) by raising ``agents.Resign``, where the game's
    runner records resignations (see ``agents.mcts.MCTSAgent``) and never before ply
    ``agents.base.RESIGN_PLY``. Played on, a loss the search proves is met with the move that
    delays it longest (a loss scores ``-(INF - ply)``, so the latest one is the best of the lost
    moves), and one the endgame solver proves with the move that loses by least (above).
    """

    summary = (
        "iterative-deepening alpha-beta: transposition table, move ordering, the game's "
        "evaluation; an exact endgame solver on Othello's clock, Gomoku's own threat-driven kernel on its clock"
    )
    time_option = "time"

    def __init__(
        self,
        depth: int = 0,
        time: float = 0.0,
        tt_bits: int = 18,
        weights=None,
        endgame=None,
        resign: bool = True,
        threats: bool = True,
        search: str | None = None,
        vct: int = 0,
        seed=None,
    ):
        super().__init__(seed=seed)
        if search is not None and search not in SEARCHES:
            raise AgentError(f"search={search!r}: expected one of {', '.join(SEARCHES)}")
        self.search = search
        self.resign = _flag("resign", resign)
        self._resigner = Resigner(1)
        self.threats = _flag("threats", threats)
        self.depth = check_option("depth", depth, int, 0, MAX_PLY)
        self.time = check_option("time", time, float, 0.0, MAX_SECONDS)
        self.tt_bits = check_option("tt_bits", tt_bits, int, 0, 26)
        self.endgame = None if endgame is None else check_option("endgame", endgame, int, 0, 256)
        self.weights = None if weights is None else E.check_weights(weights)
        self.vct = check_option("vct", vct, int, 0, 20)
        self._tt = None
        self._vct_tt = None

    def reset(self):
        self._tt = None
        self._vct_tt = None

    def __getstate__(self):
        state = super().__getstate__()
        state["_tt"] = None
        state["_vct_tt"] = None
        return state

    def warm_up(self, game):
        """A depth-1 search with this agent's options: the same compiled code, any budget."""
        if self.applies_to(game):
            AlphaBetaAgent(depth=1, tt_bits=self.tt_bits, weights=self.weights, search=self.search, seed=0).act(
                game, game.initial_state(seed=0)
            )
            compiled(__name__, game.spec).solve_root(  # compiles the solver; 0: solves nothing
                game.initial_state(seed=0), game.kernel_params, 0, 0.0, np.zeros(4, np.int64)
            )
            own = getattr(game.spec.evaluation, "own_search", None)
            if self.searches(game) == "own" and own is not None:  # a depth-1 search compiles it
                empty = np.zeros(0, dtype=np.int64)
                tt = np.zeros((1, 2), dtype=np.int64)
                own(game.initial_state(seed=0), game.kernel_params, 1, 0.0, empty, tt, np.zeros(5, np.int64))

    def budget(self, game):
        """(depth, seconds, endgame limit) this agent searches ``game`` with (see the class)."""
        seconds = self.time
        if self.depth == 0 and seconds == 0:
            seconds = float(tuned("alphabeta", game.name, "seconds", 0.0))
        depth = self.depth or (MAX_PLY if seconds > 0 else 4)
        endgame = self.endgame
        if endgame is None:
            endgame = int(tuned("alphabeta", game.name, "endgame", 0)) if seconds > 0 and self.depth == 0 else 0
        return depth, seconds, endgame

    def searches(self, game):
        """The search this agent plays ``game`` with: ``search`` as given; else, on a clock with
        no fixed depth, the game's own kernel where it has one (Gomoku; its SPRT:
        ``docs/strength.md``), and "generic" otherwise, so ``depth=`` runs keep their moves."""
        if self.search is not None:
            return self.search
        _, seconds, _ = self.budget(game)
        own = getattr(game.spec.evaluation, "own_search", None) is not None
        return "own" if own and seconds > 0 and self.depth == 0 else "generic"

    def settings(self, game):
        """The options as ``budget`` resolves them for ``game`` (depth 4, or Othello's 1 s clock
        with iterative deepening to ``MAX_PLY`` and the endgame solver) and the game's weights."""
        depth, seconds, endgame = self.budget(game)
        weights = E.weights_for(self.weights, game)
        return {
            **super().settings(game),
            "depth": depth,
            "time": seconds,
            "endgame": endgame,
            "search": self.searches(game),
            "vct": self.vct,
            "weights": E.describe(weights),
        }

    def _table(self, game):
        """The transposition table, kept between moves of a game; one row means "no table"."""
        key = (game.name, int(game.kernel_params[C.P_SIG]))
        if self._tt is None or self._tt[0] != key:
            self._tt = (key, np.zeros((1 << self.tt_bits, 2), dtype=np.int64))
        return self._tt[1]

    def _act(self, game, state):
        p = game.kernel_params
        w = E.weights_for(self.weights, game)
        code = compiled(__name__, game.spec)
        max_depth, seconds, endgame = self.budget(game)
        start = time.perf_counter()  # ``act`` takes any compile time out of the statistics
        own = getattr(game.spec.evaluation, "own_search", None)
        kernel = own if own is not None and self.searches(game) == "own" else code.search_root
        if self.vct and (kernel is not own or getattr(game.spec.evaluation, "own_threats", None) is None):
            raise AgentError(
                f"vct={self.vct}: needs search='own' on a game with a threat-space search of its own (Gomoku)"
            )
        if seconds > 0 and not getattr(kernel, "dispatcher", kernel).signatures:  # Gomoku's: a Python entry
            self.warm_up(game)  # a first compile (or cache load) must not eat this move's clock
        clock = time.perf_counter()
        deadline = clock + seconds if seconds > 0 else 0.0
        if endgame > 0:
            out = np.zeros(4, dtype=np.int64)
            status = code.solve_root(state, p, endgame, clock + SOLVER_SHARE * seconds if seconds > 0 else 0.0, out)
            if status == SOLVED and out[0] < 0:
                self._judge(game, state, True, "the endgame solver proves the game lost")
            least = status == SOLVED and out[0] < 0 and out[3] < 0  # the loss's margin is known
            if status == SOLVED and (out[0] >= 0 or least or deadline == 0.0 or time.perf_counter() >= deadline):
                self.last_stats = {
                    "nodes": int(out[2]),
                    "depth": 0,
                    "seconds": time.perf_counter() - start,
                    "budget": seconds,
                    "score": int(out[0]) * (E.WIN_BOUND + 1),
                    "solved": True,
                }
                if least:
                    self.last_stats["margin"] = int(out[3])
                return int(out[1])
        if self.searches(game) == "own":
            return self._own_search(game, state, max_depth, deadline, start, seconds)
        if self.threats and tactics.has_threats(game):
            move = self._threat_move(game, state, code, w, max_depth, deadline, start, seconds)
            if move is not None:
                return move
        best, score, reached, nodes = self._deepen(game, state, code, w, max_depth, deadline)
        self._judge(game, state, self._proven_loss, f"a forced loss in {E.INF - abs(score)} plies")
        self.last_stats = {
            "nodes": nodes,
            "depth": reached,
            "seconds": time.perf_counter() - start,
            "budget": seconds,
            "score": score,
        }
        return best

    def _threat_move(self, game, state, code, w, max_depth, deadline, start, seconds):
        """Threat-space search at the root (the game's ``threats`` hook): a forced win of the side
        to move is played at once; against a forced win of the opponent, the moves after which
        the opponent has none are searched (each to one ply less) and the best is played. None
        when neither side has one, or no move stops the opponent's (the usual search decides)."""
        rules = game.unchecked  # ``act`` checked ``state``
        me = rules.current_player(state)
        win = tactics.forced_win(game, state, deadline=_share(deadline, DEFENCE_SHARE))
        if win is not None:
            return self._play_win(win, start, seconds)
        defences = tactics.defences(game, state, rules.legal_actions(state), _share(deadline, DEFENCE_SHARE))
        if defences is None:
            return None
        best, best_score, nodes = defences[0], -E.INF - 1, 0
        for i, a in enumerate(defences):
            child = rules.apply(state, int(a))
            sign = 1 if rules.current_player(child) == me else -1
            if rules.is_terminal(child):
                score = sign * int(E.terminal_score(child, 1))
            else:
                # on a clock, each defence left gets an equal share of the time left
                share = (
                    0.0
                    if deadline == 0.0
                    else time.perf_counter() + (max(deadline - time.perf_counter(), 0.0) / (len(defences) - i))
                )
                _, v, _, n = self._deepen(game, child, code, w, max(max_depth - 1, 1), share)
                nodes += n
                score = sign * v
            if score > best_score:
                best, best_score = a, score
        self.last_stats = {
            "nodes": nodes,
            "depth": max(max_depth - 1, 1) + 1,
            "seconds": time.perf_counter() - start,
            "budget": seconds,
            "score": best_score,
            "threat": "defence",
        }
        return best

    def _play_win(self, win, start, seconds):
        """The first move of the forced win ``win`` the threat-space search found, its statistics
        recorded as a search's (the win's plies as depth, its distance in the score)."""
        self.last_stats = {
            "nodes": max(win.nodes, 1),
            "depth": 2 * win.moves - 1,
            "seconds": time.perf_counter() - start,
            "budget": seconds,
            "score": E.INF - (2 * win.moves - 1),
            "threat": "win",
        }
        return win.move

    def _own_search(self, game, state, max_depth, deadline, start, seconds):
        """``search="own"``: the game's own search kernel (its evaluation's ``own_search``;
        Gomoku's ``envs.gomoku.search``) after the root's threat-space search: a forced win is
        played, and against the opponent's the kernel searches only the moves that stop it."""
        own = getattr(game.spec.evaluation, "own_search", None)
        if own is None:
            raise AgentError(f"search='own': {game.name} has no search of its own (search='generic' has)")
        allowed = np.zeros(0, dtype=np.int64)
        if self.threats and tactics.has_threats(game):
            win = tactics.forced_win(game, state, deadline=_share(deadline, DEFENCE_SHARE))
            if win is not None:
                return self._play_win(win, start, seconds)
            stops = tactics.defences(game, state, game.unchecked.legal_actions(state), _share(deadline, DEFENCE_SHARE))
            deep = self._deep_threats(game, state, deadline, stops)
            if isinstance(deep, tuple):
                return self._play_win(tactics.ForcedWin(*deep), start, seconds)
            stops = deep
            if stops is not None:
                allowed = np.array(stops, dtype=np.int64)
        out = np.zeros(5, dtype=np.int64)
        own(state, game.kernel_params, max_depth, deadline, allowed, self._table(game), out)
        score, reached = int(out[1]), int(out[2])
        # the kernel searches the best few moves below the root: only a near loss is a proof
        lost = reached > 0 and score < -E.WIN_BOUND and E.INF + score <= OWN_RESIGN_PLIES
        self._judge(game, state, lost, f"a forced loss in {E.INF + score} plies")
        self.last_stats = {
            "nodes": int(out[3]),
            "depth": reached,
            "seconds": time.perf_counter() - start,
            "budget": seconds,
            "score": score,
        }
        return int(out[0])

    def _deep_threats(self, game, state, deadline, stops):
        """The game's own threat-space search (its evaluation's ``own_threats``; Gomoku's
        ``envs.gomoku.search.threat_search``) at the root, ``vct`` threats deep, after the
        exhaustive one (``agents.tactics``) has found no win and ``stops`` (its defences, or
        None): ``ForcedWin``'s fields of a forced win of the side to move; else,
        against one of the opponent's (as if it were to move), the moves of ``stops`` (or every
        legal move, nearest the threat's first move first) after which a search ``VCT_MARGIN``
        threats deeper than the threat finds none; ``stops`` when none is found or none narrows
        the choice. Each search may use ``VCT_SHARE`` of the time left, the defences together
        as much as the exhaustive ones may (``DEFENCE_SHARE``); a search the clock stops
        proves nothing, so its move is not counted safe."""
        vct = getattr(game.spec.evaluation, "own_threats", None)
        if not self.vct or vct is None:
            return stops
        rules = game.unchecked
        me = rules.current_player(state)
        p = game.kernel_params
        if self._vct_tt is None:
            self._vct_tt = np.zeros((1 << VCT_TT_BITS, 2), dtype=np.int64)
        out = np.zeros(5, dtype=np.int64)

        def proven(position, seat, depth):
            vct(position, p, seat, depth, _share(deadline, VCT_SHARE), self._vct_tt, out)
            if out[1] > E.WIN_BOUND:
                return True
            if out[1] < -E.WIN_BOUND:  # the attacker loses first: the defender's own threats
                return False
            return None if out[2] < depth else False  # None: cut short, nothing proven

        if proven(state, me, self.vct):
            return int(out[0]), (E.INF - int(out[1]) + 1) // 2, int(out[3]), False  # threats: not all forcing
        if not proven(state, 1 - me, self.vct):
            return stops
        depth = min(self.vct, int(out[2]) + VCT_MARGIN)
        legal = [int(a) for a in rules.legal_actions(state)]
        moves = tactics.nearest_first(game, legal if stops is None else stops, int(out[0]))
        limit = _share(deadline, DEFENCE_SHARE)
        safe = []
        for a in moves:
            if limit > 0.0 and time.perf_counter() > limit:
                break
            child = rules.apply(state, a)
            if rules.is_terminal(child) or proven(child, 1 - me, depth) is False:
                safe.append(a)
        return safe if 0 < len(safe) < len(legal) else stops

    def _deepen(self, game, state, code, w, max_depth, deadline):
        """The deepening loop from ``state``: (best move, its score, depth reached, nodes)."""
        p = game.kernel_params
        search_root = code.search_root
        states, moves, keys = self._stack(game, max_depth)
        tt = self._table(game)
        killers = np.full((max_depth + 1, 2), -1, dtype=np.int64)
        history = np.zeros(game.num_actions, dtype=np.int64)
        info = np.zeros(5, dtype=np.int64)
        frames = np.zeros((MAX_PLY + 2, F_COLUMNS), dtype=np.int64)
        states[0] = state
        best, score, reached, nodes = int(game.unchecked.legal_actions(state)[0]), 0, 0, 0
        for depth in range(1, max_depth + 1):
            v = search_root(p, w, states, moves, keys, tt, killers, history, info, deadline, self.rng, frames, depth)
            nodes += int(info[NODES])
            if info[ABORT]:
                if info[ROOT_DONE] > 0:
                    best, score = int(info[BEST]), int(info[SCORE])
                break
            best, score, reached = int(info[BEST]), int(v), depth
            if abs(score) > E.WIN_BOUND:
                break  # a forced result: deeper search cannot change it
        # only a completed iteration proves a loss (an aborted one has not seen every move)
        self._proven_loss = reached > 0 and abs(score) > E.WIN_BOUND and score < 0 and reached == depth
        return best, score, reached, nodes
