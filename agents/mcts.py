"""UCT Monte-Carlo tree search on any game, with chance nodes for the Calculation patience.

    bot = agents.make("mcts:simulations=5000,c=0.5,threshold=5", seed=0)
    action = bot.act(game, state)
    bot.last_stats   # {"simulations", "reused", "seconds", "nodes", "depth", "value"}

Each simulation walks the tree from the root choosing children by UCB1,
``mean + c * sqrt(2 ln N_parent / n_child)``, expands a leaf once it has received ``threshold``
playouts, finishes the game with a playout policy (the game's default: uniformly random moves,
pattern playouts on Go, evaluation playouts on LOA, the greedy waste-pile rule with its unwinding
check on Calculation; on Gomoku none: the evaluation's value of the leaf, the game's
``leaf_value`` hook) and backs the result up. The tree and the playouts run in compiled code
(``agents/_mcts_kernel.py``); Python only sets up the arrays,
watches the clock and reads the answer: the root child with the most visits in a two-player game,
the one of highest value in a one-player game with chance (as the patience study plays).

Two-player games use plain UCT with values from the mover's view, and MCTS-Solver: wins and
losses the tree reaches are proven and backed up exactly (``_mcts_kernel``), so a proven win is
played at once (the fastest), a proven-lost move is never chosen while another is open, and
facing a proven loss the agent plays the move that delays it longest. A win in one is played
without search; a game with a threat-space search (its ``threats`` hook: Gomoku's VCF and VCT) has a
forced win played at once, against the opponent's only the moves that stop it are chosen, and of
the most visited moves one that hands the opponent a forced win two threats deep is passed over.
Gomoku and LOA search with their own knowledge (``agents.tuning``): the evaluation's value at the
leaves with priors and RAVE, and MC-LOA's evaluation cut-off with the evaluation's priors. A one-player game with chance
(Calculation) uses the decision and chance nodes of the patience study and never reads hidden
information: every simulation starts from a redrawing of what the player cannot see (the game's
``determinise`` hook), so two deals that differ only in the order of the face-down cards get the
same decisions under the same seed.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import envs
from envs.core import kernel as C
from envs.core import rng as R
from envs.core.compiling import compile_seconds
from envs.core.generic import per_game
from envs.core.specialise import compiled
from envs.game import Game

from . import _mcts_kernel as K
from . import tactics
from .base import MAX_SECONDS, Agent, AgentError, Resigner, check_option, register
from .tuning import tuned

DEFAULT_SIMULATIONS = 1000
DEFAULT_THRESHOLD = 5  # playouts before a leaf is expanded where no game tuning says otherwise (the patience study's)
DEFAULT_C = 0.5
# With RAVE (and priors) the AMAF values already spread the search over the plausible moves,
# and UCB's exploration term only widens it, as MoGo found (it searched with none): on Go 9x9
# at 2 s per move the tree reached 5 plies deep with c = 0.25 and 15-19 with c = 0, and against
# GNU Go level 1 c = 0 won 27 of 32 games where c = 0.25 had won 22 of the same openings
# (docs/strength.md). An unvisited move with no AMAF value is still tried first (``_select``).
RAVE_C = 0.0
_INITIAL_NODES = 1 << 15
_CHUNK_SECONDS = 0.02  # a time budget checks the clock about this often
# root win rate under which a move counts as lost (Leela Zero resigns under 10%,
# KataGo's default is a value under -0.9, i.e. a win rate under 5%)
DEFAULT_RESIGN = 0.05
DEFAULT_RESIGN_MOVES = 3  # consecutive lost moves before resigning (KataGo's default)
LOSING = 0.2  # root win rate under which a game won by a count is played for the count (see _keep_living)
HOPELESS = 0.05  # ... and Go, with its komi, searched for its score (_score_komi): a game engines resign
AREA_CANDIDATES = 8  # a losing position's moves compared by their count: the most visited ones
SAFE_CANDIDATES = 6  # most visited moves checked for handing the opponent a forced win
CHECK_SHARE = 0.2  # of a move's time, left for those checks (Gomoku 15x15: 0.1-0.15 s of 1 s)
AREA_PLAYOUTS = 64  # playouts after each of them (or after a lost Go move, for _score_komi)
SCORE_QUANTILE = 0.25  # of those counts, the one a lost Go game's search plays to stay above
SCORE_SHARE = 0.75  # of a lost Go move's budget, searched under a komi that moves with it (_score_komi)

G = None  # the game's hook namespace, bound per game by envs.core.specialise


@register("mcts")
class MCTSAgent(Agent):
    """UCT-MCTS; budget in simulations and/or seconds (first reached stops).

    Options: ``playout``: ``"random"`` (uniform legal moves, the study's playouts; any game) or a
    policy of the game's own (its spec's ``playouts``; Calculation: ``"foundation-first"``, random
    but a fitting card goes up at once, ``"greedy"``, the rule-based waste-pile policy of the
    greedy agent, and ``"checked"``, the same with the unwinding check of the pile it picks, see
    docs/patience.md); the default (None) is the game's ``default_playout``;
    ``simulations`` per move (default 1000 when no ``seconds`` is given), ``seconds`` per
    move, exploration constant ``c`` and expansion ``threshold`` (the study's 0.5 and 5; with
    RAVE on, ``c`` defaults to ``RAVE_C``; ``threshold`` defaults to the game's spec's
    ``expansion_threshold``: Calculation expands a leaf at its first playout), and
    ``max_nodes``: the tree stops growing there (the search goes on with leaf playouts), which
    bounds memory at about 64 bytes per node; ``rave``: the RAVE equivalence parameter k of
    two-player games (0: plain UCT; see ``_mcts_kernel``), default (None) the game's spec's
    ``rave`` (Go: on); ``reuse`` (two-player games): keep the subtree of the move played and the
    opponent's reply for the next move's search, whose budget then comes on top of it;
    ``priors``: start new nodes from the game's prior knowledge (its ``priors`` hook, virtual
    simulations per move, in the AMAF values with RAVE and in the node's own mean without; Go's
    and LOA's in their ``evaluation.py``); False: none;
    ``filter_moves``: expand a node with only the moves the game's ``filter_moves`` hook keeps
    (the moves alpha-beta searches), and play a move it alone keeps without a search; default
    (None) the game's tuning (Calculation: on, only moves that play a card up where there are
    any; elsewhere off, every legal move);
    ``progress_reward`` (one-player games): a lost playout is worth this times the game's
    ``progress`` hook (Calculation: the share of the 52 cards on the foundations) instead of 0,
    so where few playouts win the search still prefers the moves that get further; a win, 1,
    outweighs every loss below 1; default (None) the game's tuning (Calculation: 0.2), else 0;
    ``threads``: search that many trees side by side, one per thread, each with its own random
    stream, and play the move of most visits summed over them (root parallelisation, Chaslot,
    Winands and van den Herik 2008): a ``seconds`` budget buys each tree the whole time, so k
    cores run about k times the simulations; a ``simulations`` budget is shared (the total stays
    ``simulations``, and the move is deterministic for a given seed). ``max_nodes`` is per tree;
    ``manage_time`` (with ``seconds``): ``seconds`` becomes the average over a game, like a
    clock of ``seconds`` per move: each move gets its share by the game's ``time_profile`` (Go:
    more in the middle game), a search stops once its most visited move can no longer be
    overtaken in the time left, and what a move does not use is banked for later ones; default
    (None) on where the game's spec has a profile. ``last_stats["budget"]`` is the move's time.

    Losing like an engine (two-player games): ``resign``, a root win rate (default 0.05; 0:
    never), under which ``resign_moves`` consecutive moves (default 3) give the game up by
    raising ``agents.Resign``, never before ply ``agents.base.RESIGN_PLY`` and only where the
    game's runner records resignations (``arbiter play``, ``arbiter gtp`` and tournaments do,
    unless given ``--no-resign``; Gymnasium and PettingZoo opponents play every game out). At the
    root the agent never plays a move the game calls self-harm (Go: filling its own true eye)
    while another is legal. A game won by a count plays for the count once it is lost: Go,
    under a win rate of ``HOPELESS`` (0.05, where engines resign), searches again under a komi
    it beats by ending no worse than three playouts in four after its move (``_score_komi``;
    ``SCORE_SHARE``, three quarters, of each later lost move's budget goes to that search,
    the rest to checking under the game's own komi that the game is still lost, which also
    judges resignation; ``last_stats["komi"]`` says which komi was searched), and a game
    without a komi (Othello), under ``LOSING`` (0.2), plays the move of the best mean final
    count over ``AREA_PLAYOUTS`` playouts after each of its most visited moves. A lost game
    played out ends by a smaller margin, with more of its groups alive.
    """

    summary = (
        "UCT Monte-Carlo tree search with the game's playouts and priors (Go patterns, LOA's "
        "evaluation; Gomoku's and Othello's evaluation value instead of playouts), RAVE and proven "
        "wins and losses; chance nodes in the patience"
    )
    time_option = "seconds"

    def __init__(
        self,
        simulations=None,
        seconds=None,
        c=None,
        threshold=None,
        playout: str | None = None,
        max_nodes: int = 2_000_000,
        rave=None,
        reuse: bool = True,
        priors: bool = True,
        filter_moves=None,
        progress_reward=None,
        threads: int = 1,
        manage_time=None,
        resign: float = DEFAULT_RESIGN,
        resign_moves: int = DEFAULT_RESIGN_MOVES,
        seed=None,
    ):
        super().__init__(seed=seed)
        self.resign = check_option("resign", resign, float, 0.0, 0.5)
        self.resign_moves = check_option("resign_moves", resign_moves, int, 1)
        self._resigner = Resigner(self.resign_moves)
        if simulations is None and seconds is None:
            simulations = DEFAULT_SIMULATIONS
        self.simulations = None if simulations is None else check_option("simulations", simulations, int, 1)
        self.seconds = None if seconds is None else check_option("seconds", seconds, float, 0.0, MAX_SECONDS)
        if self.seconds is not None and self.seconds <= 0:
            raise AgentError(f"seconds={seconds!r}: expected a positive number")
        self.c = None if c is None else check_option("c", c, float, 0.0)
        self.threshold = None if threshold is None else check_option("threshold", threshold, int, 1)
        self.max_nodes = check_option("max_nodes", max_nodes, int, 1024)
        known = sorted({name for spec in envs.specs() for name in spec.playouts})
        if playout is not None and playout not in known:
            raise AgentError(
                f"playout={playout!r}: expected one of {', '.join(map(repr, known))} "
                "(the registered games' policies) or None for the game's default"
            )
        self.playout = playout
        self.rave = None if rave is None else check_option("rave", rave, float, 0.0)
        if not isinstance(reuse, (bool, np.bool_)):
            raise AgentError(f"reuse={reuse!r}: expected True or False")
        self.reuse = bool(reuse)
        if not isinstance(priors, (bool, np.bool_)):
            raise AgentError(f"priors={priors!r}: expected True or False")
        self.priors = bool(priors)
        if filter_moves is not None and not isinstance(filter_moves, (bool, np.bool_)):
            raise AgentError(f"filter_moves={filter_moves!r}: expected True, False or None (the game's default)")
        self.filter_moves = None if filter_moves is None else bool(filter_moves)
        self.progress_reward = (
            None if progress_reward is None else check_option("progress_reward", progress_reward, float, 0.0, 1.0)
        )
        self.threads = check_option("threads", threads, int, 1, 64)
        if manage_time is not None and not isinstance(manage_time, (bool, np.bool_)):
            raise AgentError(f"manage_time={manage_time!r}: expected True, False or None (the game's default)")
        self.manage_time = None if manage_time is None else bool(manage_time)
        # Thread 0 draws from ``self.rng`` (one thread plays exactly as before threads existed);
        # thread k from a stream of its own, seeded by (seed, k).
        self._rngs = [self.rng] + [
            R.new_rng(None if self.seed is None else [self.seed, k]) for k in range(1, self.threads)
        ]
        self._memory = None  # (game, root state, trees, action played) of the last search
        self._bank = 0.0  # seconds saved (or, below 0, overspent) so far this game
        self._last_ply = -1
        self._lost_at = -1  # the ply of our last move searched as lost (see _score_komi)

    def settings(self, game):
        """The options that apply to ``game``: 1,000 simulations unless a budget was given, and
        the game's playout policy, RAVE, exploration constant, expansion threshold and (with
        ``seconds``) time management where they were left to the game."""
        rave = self._rave(game)
        return {
            **super().settings(game),
            "c": self._c(game, rave),
            "threshold": self._threshold(game),
            "playout": self._playout_name(game),
            "rave": rave,
            "filter_moves": self._filtered(game),
            "progress_reward": self._progress_reward(game),
            "manage_time": bool(tuned("mcts", game.name, "time_profile", ()))
            if self.manage_time is None
            else self.manage_time,
        }

    def clock_options(self, seconds):
        """A clock's share caps ``seconds``, with time management off (the clock plans the game);
        the default 1,000 simulations, meant for an MCTS given no time, give way to it, while a
        count set on purpose caps it, as an engine's visit limit does (one set to exactly the
        default cannot be told from it)."""
        options = {**super().clock_options(seconds), "manage_time": False}
        if self.seconds is None and self.simulations == DEFAULT_SIMULATIONS:
            options["simulations"] = None
        return options

    def reset(self) -> None:
        """A new game: forget the last search tree and the time banked."""
        self._memory = None
        self._bank, self._last_ply, self._lost_at = 0.0, -1, -1

    def warm_up(self, game):
        """A 16-simulation search with this agent's options: the same compiled code, any budget.
        It searches every legal move (the filter is an argument of the same compiled search, and
        a filtered root may keep a single move and play it without one), and the root's filter
        is compiled beside it."""
        if self.applies_to(game):
            state = game.initial_state(seed=0)
            MCTSAgent(
                simulations=16,
                c=self.c,
                threshold=self.threshold,
                playout=self.playout,
                max_nodes=self.max_nodes,
                rave=self.rave,
                priors=self.priors,
                filter_moves=False,
                progress_reward=self.progress_reward,
                seed=0,
            ).act(game, state)
            if self._filtered(game):
                self._root_moves(game, state)
            if game.num_players == 2 and _counted(game):  # a lost position's count: compiled now, not mid-game
                self._counts_after(game, state, int(game.legal_actions(state)[0]), self._policy(game), 1, R.new_rng(0))

    def _act(self, game, state) -> int:
        start, compiled_before = time.perf_counter(), compile_seconds()
        budget = self._budget(game, state)
        try:
            return self._decide(game, state, start, budget)
        finally:
            if self._manages_time(game):  # a first compile is not the game's time
                spent = time.perf_counter() - start - (compile_seconds() - compiled_before)
                self._bank += self.seconds - spent

    def _manages_time(self, game) -> bool:
        """Whether ``seconds`` is a game's average rather than every move's time."""
        if self.seconds is None:
            return False
        return bool(tuned("mcts", game.name, "time_profile", ())) if self.manage_time is None else self.manage_time

    def _budget(self, game, state):
        """This move's seconds (None: no clock): ``seconds``, or under time management its share
        by the game's profile plus an eighth of what is banked (a debt is paid back the same
        way), kept within a quarter and four times ``seconds``."""
        if not self._manages_time(game):
            return self.seconds
        ply = int(state[C.H_PLY])
        if ply <= self._last_ply:  # not after the last position searched: another game
            self._bank = 0.0
        self._last_ply = ply
        weight = _profile_weight(tuned("mcts", game.name, "time_profile", ()), ply / game.num_actions)
        return float(np.clip(self.seconds * weight + self._bank / 8, self.seconds / 4, self.seconds * 4))

    def _decide(self, game, state, start, budget) -> int:
        policy = self._policy(game)
        self._rave(game)  # an option the game refuses fails on every move, searched or not
        legal = self._root_moves(game, state)
        if len(legal) == 1:
            self._memory = None
            self.last_stats = _stats(start, budget)
            return int(legal[0])
        defences = None
        end = 0.0 if budget is None else start + budget  # the threat checks stop there
        if not self._chance(game):
            limit = 0.0 if budget is None else start + budget * tactics.ROOT_SHARE
            win, defences = tactics.root_tactics(game, state, legal, limit)
            if win is not None:  # never missed, and no search needed to see it
                self._memory = None
                self.last_stats = _stats(start, budget, value=1.0)
                return win
        trees = self._reused_trees(game, state)
        reused = 0 if trees is None else sum(int(t.links[0, K.VISITS]) for t in trees)
        if trees is None:
            trees = [self._fresh_tree() for _ in range(self.threads)]
        deadline = None
        if budget is not None:  # the threat checks after the search are paid from the budget too
            deadline = start + budget * (1.0 - CHECK_SHARE if tactics.has_threats(game) else 1.0)
        # A game being lost at our last move: a part of the budget checks that it still is (and
        # judges resignation), the rest searches for the best score (``_score_komi``).
        ply = int(state[C.H_PLY])
        was_lost = self._plays_for_score(game) and self._lost_at == ply - 2
        share = 1.0 - SCORE_SHARE if was_lost else 1.0
        first_deadline, first_simulations = self._share(start, start, deadline, share)
        done = self._search_trees(game, state, trees, first_deadline, policy, first_simulations)
        keys, visits, values = _root_children(trees)
        lost = self._plays_for_score(game) and self._hopeless(visits, values)
        if was_lost and not lost:  # no longer lost: the rest of the budget on the game's rules
            done += self._search_trees(game, state, trees, deadline, policy, self._rest(first_simulations))
            keys, visits, values = _root_children(trees)
        best = self._robust(game, state, keys, visits, values, defences, end)
        value = values[best]  # under the game's own rules: resignation judges it
        komi = None
        if lost:
            komi = self._score_komi(game, state, int(keys[best]), policy)
            if was_lost:
                rest_deadline, rest = deadline, self._rest(first_simulations)
            else:  # found lost only now: this move searches for the score on top of its budget
                rest_deadline, rest = self._share(start, time.perf_counter(), deadline, SCORE_SHARE)
            scored = [self._fresh_tree() for _ in range(self.threads)]
            params = game.kernel_params_under(komi=komi)
            done += self._search_trees(game, state, scored, rest_deadline, policy, rest, params)
            score_keys, score_visits, score_values = _root_children(scored)
            pick = self._robust(game, state, score_keys, score_visits, score_values, defences, end)
            action = int(score_keys[self._keep_living(game, state, score_keys, score_visits, score_values, pick)])
            self._lost_at = ply
        elif self._chance(game):
            action = int(keys[best])
        else:
            action = int(keys[self._keep_living(game, state, keys, visits, values, best)])
        if self.resign > 0 and game.num_players == 2 and not self._chance(game):
            win = _result(value)  # a proven loss is 0, a proven win 1
            self._resigner.judge(
                game,
                state,
                win < self.resign,
                f"win rate {100 * win:.1f}% under {100 * self.resign:g}% for {self.resign_moves} moves",
            )
        if self.reuse and not self._chance(game):
            self._memory = (game, state.copy(), trees, action)
        self.last_stats = _stats(
            start,
            budget,
            simulations=done,
            reused=reused,
            nodes=sum(int(t.meta[K.USED]) for t in trees),
            depth=max(int(t.meta[K.DEPTH]) for t in trees),
            value=_result(value),
            komi=komi,
        )
        return action

    def _robust(self, game, state, keys, visits, values, defences, end=0.0):
        """The root child to play (an index into ``keys``) by the search's values and visits;
        ``end``: when the threat checks stop (a ``time.perf_counter`` time; 0: never)."""
        if self._chance(game):
            # Decision values are maxima over what the tree found (the study's backup), so the
            # move is the child of highest value; visits break ties (all zero early in a deal).
            return np.lexsort((-visits, -values))[0]
        if K.is_proven(values.max()):
            # Two players, root proven (MCTS-Solver): the fastest proven win; facing a proven
            # loss (every move loses), the move that delays it longest.
            return int(np.argmax(values))
        # Two players: the robust child, most visits, among the moves not proven lost; equal
        # counts go to the higher value; but never a move after which the opponent can end
        # the game at once as a win, and (a game with a threat-space search) not one that
        # hands the opponent a forced win where one of the next most visited does not.
        open_ = np.flatnonzero(values > -K.PROVEN_AT)
        if defences:  # the opponent has a forced win: only the moves that stop it
            stop = np.flatnonzero(np.isin(keys, defences) & (values > -K.PROVEN_AT))
            open_ = stop if len(stop) else open_
        ranked = open_[np.lexsort((-values[open_], -visits[open_]))]
        sound = (i for i in ranked if not tactics.loses_at_once(game, state, int(keys[i])))
        first = list(itertools.islice(sound, SAFE_CANDIDATES)) or [ranked[0]]
        safe = (i for i in first if not tactics.hands_a_forced_win(game, state, int(keys[i]), end))
        return next(safe, first[0])

    def _hopeless(self, visits, values) -> bool:
        """Whether a search says the game is lost: its most visited move's win rate under
        ``HOPELESS`` (or the resignation threshold, if higher), and no proof either way. Only
        there is the game played for its score: above it a comeback is still worth playing for."""
        if K.is_proven(values.max()):
            return False  # proven: the fastest win, or the longest delay of a loss
        top = int(np.lexsort((-values, -visits))[0])
        return float(values[top]) < max(HOPELESS, self.resign)

    def _plays_for_score(self, game) -> bool:
        """A two-player game won by a count whose rules have a komi: lost, it is searched again
        under a komi that moves with its expected score (``_score_komi``)."""
        return game.num_players == 2 and _counted(game) and game.komi is not None

    def _score_komi(self, game, state, action, policy) -> float:
        """The komi under which the mover wins after ``action`` by ending no worse than the lower
        quartile (``SCORE_QUANTILE``) of its counts in ``AREA_PLAYOUTS`` playouts: about three
        playouts in four win.

        A search of a lost game under the real komi sees every move lose and tells them apart by
        noise: it plays for a miracle, or passes, while the opponent kills its groups. Under a
        komi that moves with the position (a dynamic komi, as Pachi plays handicap games: Baudis,
        "Balancing MCTS by dynamically adjusting the komi value", ICGA Journal 2011) the same
        search sees differences again. Set at the expected count (an even game) it would gamble:
        a move that gains a few points in most playouts and loses a group in the rest wins more
        often than a safe one. Set at the lower quartile, the safe moves win about three times in
        four and losing a group is what loses, so the search defends what it has, like a program
        that is ahead. The game's own komi still judges resignation."""
        counts = self._counts_after(game, state, action, policy)
        cap = game.board_size**2 - 0.5
        quartile = float(np.quantile(counts, SCORE_QUANTILE, method="lower"))  # a count played
        target = float(np.clip(quartile - 0.5, -cap, cap))  # the mover wins by ending above it
        return target if int(state[C.H_PLAYER]) == 0 else -target  # komi is White's

    def _share(self, start, now, deadline, share):
        """(deadline, simulations) of ``share`` of a move's budget (which began at ``start`` and
        ends at ``deadline``; None: no clock), counted from ``now``."""
        if deadline is not None:
            deadline = now + share * (deadline - start)
        simulations = self.simulations
        if simulations is not None and share < 1.0:
            simulations = max(1, round(share * simulations))
        return deadline, simulations

    def _rest(self, spent):
        """The simulations left of the move's budget after ``spent`` (None: no such budget)."""
        return None if self.simulations is None else max(1, self.simulations - spent)

    def _keep_living(self, game, state, keys, visits, values, best):
        """The root child to play instead of ``best`` (an index into ``keys``): never a move the
        game calls self-harm while another is legal; and when the game is being lost (the most
        visited move's win rate under ``LOSING``), in a game won by a count that has no komi to
        search under (Othello; Go: ``_score_komi``), the candidate whose playouts end with the
        best count: win rates all near 0 no longer tell moves apart, and a search that maximises
        them plays for a miracle while its own discs or groups are lost; the count prefers the
        moves that keep them."""
        ranked = [int(i) for i in np.lexsort((-values, -visits))]
        sound = [i for i in ranked if not game.unchecked.self_harm(state, int(keys[i]))]  # ``act`` checked it
        if not sound:
            return best
        if best not in sound:
            best = next((i for i in sound if not tactics.loses_at_once(game, state, int(keys[i]))), sound[0])
        if not _counted(game) or self._plays_for_score(game) or values[ranked[0]] >= max(LOSING, self.resign):
            return best  # (a game with a komi is searched for its score instead: ``_score_komi``)
        candidates = [i for i in sound if visits[i] > 0][:AREA_CANDIDATES]
        candidates = [i for i in candidates if not tactics.loses_at_once(game, state, int(keys[i]))] or candidates
        if len(candidates) < 2:
            return best
        policy = self._policy(game)
        counts = [self._counts_after(game, state, int(keys[i]), policy).mean() for i in candidates]
        return candidates[int(np.argmax(counts))]  # the first of the best: most visits among equals

    def _counts_after(self, game, state, action, policy, n=AREA_PLAYOUTS, rng=None) -> np.ndarray:
        """The mover's final counts after ``action`` in ``n`` playouts of ``policy``
        (``counts_after``), drawn from ``rng`` (default: the agent's random stream)."""
        out = np.empty(n, dtype=np.int64)
        compiled(__name__, game.spec).counts_after(
            game.kernel_params,
            state,
            action,
            policy,
            self.rng if rng is None else rng,
            np.empty_like(state),
            np.empty(game.num_actions, dtype=np.int64),
            np.empty(game.board_size**2, dtype=np.int64),
            out,
        )
        return out

    def _reused_trees(self, game, state):
        """Each tree's subtree of the last search that ``state`` is in, two plies on (our move,
        then the opponent's reply), as a tree of its own (a fresh one for a tree that never
        expanded that reply); None when no tree has one (a new game, another position)."""
        memory, self._memory = self._memory, None
        if memory is None or not self.reuse:
            return None
        old_game, old_state, trees, action = memory
        if old_game.spec is not game.spec or not np.array_equal(old_game.kernel_params, game.kernel_params):
            return None
        mid = game.unchecked.apply(old_state, action)  # our copy of a checked state
        if game.unchecked.is_terminal(mid):
            return None
        subtrees = [_subtree(game, mid, state, tree, action) for tree in trees]
        if all(t is None for t in subtrees):
            return None
        return [t if t is not None else self._fresh_tree() for t in subtrees]

    def _fresh_tree(self):
        """An empty tree at the initial size (it doubles as a search needs, up to ``max_nodes``)."""
        return _Tree(min(_INITIAL_NODES, self.max_nodes))

    def _policy(self, game) -> int:
        """The playout policy's code for ``game`` (an index into its spec's ``playouts``)."""
        playouts = game.spec.playouts
        name = self._playout_name(game)
        if name not in playouts:
            raise AgentError(
                f"playout={name!r} is not a policy of {game.name}: expected one of {', '.join(map(repr, playouts))}"
            )
        return playouts.index(name)

    def _playout_name(self, game) -> str:
        """The playout policy's name: the option, else the game's tuning, else uniform random."""
        return tuned("mcts", game.name, "playout", "random") if self.playout is None else self.playout

    def _threshold(self, game) -> int:
        """The expansion threshold: the option, else the game's tuning, else the study's 5."""
        return tuned("mcts", game.name, "threshold", DEFAULT_THRESHOLD) if self.threshold is None else self.threshold

    def _c(self, game, rave) -> float:
        """The exploration constant: the option, else the game's tuning, else RAVE_C with RAVE
        and the study's DEFAULT_C without."""
        if self.c is not None:
            return self.c
        return float(tuned("mcts", game.name, "c", RAVE_C if rave > 0 else DEFAULT_C))

    def _filtered(self, game) -> bool:
        """Whether the tree keeps only the moves of the game's ``filter_moves``: the option,
        else the game's tuning, else off."""
        if self.filter_moves and getattr(game.spec.evaluation, "filter_moves", None) is None:
            raise AgentError(f"filter_moves={self.filter_moves!r}: {game.name} has no move filter to search with")
        return bool(tuned("mcts", game.name, "filter_moves", False) if self.filter_moves is None else self.filter_moves)

    def _root_moves(self, game, state) -> np.ndarray:
        """The moves the root is expanded with (``act`` checked the state: no second check)."""
        if not self._filtered(game):
            return game.unchecked.legal_actions(state)
        moves = np.empty(game.num_actions, dtype=np.int64)
        n = compiled(K, game.spec).search_moves(state, game.kernel_params, moves, 1)
        return moves[:n]

    def _progress_reward(self, game) -> float:
        """What a lost playout of a one-player game is worth per unit of the game's ``progress``:
        the option, else the game's tuning, else 0 (a loss is a loss)."""
        if self.progress_reward is None:
            return float(tuned("mcts", game.name, "progress_reward", 0.0))
        if self.progress_reward > 0 and game.num_players != 1:
            raise AgentError(
                f"progress_reward={self.progress_reward!r}: a progress reward needs a one-player game, not {game.name}"
            )
        return self.progress_reward

    def _rave(self, game) -> float:
        """The RAVE parameter k for ``game`` (0: off); a one-player game with chance has none."""
        k = tuned("mcts", game.name, "rave", 0.0) if self.rave is None else self.rave
        if k > 0 and self._chance(game):
            if self.rave is None:
                return 0.0
            raise AgentError(f"rave={self.rave!r}: RAVE needs a two-player game, not {game.name}")
        return float(k)

    @staticmethod
    def _chance(game) -> bool:
        """One player against chance: the patience study's decision and chance nodes."""
        return game.num_players == 1 and game.spec.chance_outcomes > 0

    def _search_trees(self, game, state, trees, deadline, policy, simulations, params=None) -> int:
        """Search every tree, one per thread (the compiled search releases the GIL), until
        ``deadline`` or ``simulations`` (None: no such limit), under ``params`` (default: the
        game's kernel parameters); return the simulations run in all. A simulation budget is
        shared out, a time budget is every tree's."""
        early = self._manages_time(game)
        p = game.kernel_params if params is None else params
        if len(trees) == 1:
            return self._search(game, p, state, trees[0], deadline, early, policy, self.rng, simulations)
        shares = [None] * len(trees)
        if simulations is not None:
            shares = [simulations // len(trees) + (k < simulations % len(trees)) for k in range(len(trees))]
        with ThreadPoolExecutor(len(trees)) as pool:
            futures = [
                pool.submit(self._search, game, p, state, tree, deadline, early, policy, rng, share)
                for tree, rng, share in zip(trees, self._rngs, shares)
            ]
            return sum(f.result() for f in futures)

    def _search(self, game, p, state, tree, deadline, early, policy, rng, simulations) -> int:
        """Run simulations on one tree under kernel parameters ``p`` until the budget is spent
        (``early``: or until its most visited root move cannot be overtaken in the time left);
        return how many ran."""
        chance = int(self._chance(game))
        rave = self._rave(game)
        code = compiled(K, game.spec)
        run = code.run_rave if rave > 0 else code.run  # each compiles only the playouts it plays
        settings = K.search_settings(
            num_actions=game.num_actions,
            num_players=game.num_players,
            chance=chance,
            num_outcomes=game.spec.chance_outcomes,
            c=self._c(game, rave),
            threshold=self._threshold(game),
            max_nodes=self.max_nodes,
            policy=policy,
            rave_k=rave,
            use_priors=self.priors,
            filtered=self._filtered(game),
            progress=self._progress_reward(game),
        )
        limit = simulations if simulations is not None else np.iinfo(np.int64).max
        done, chunk = 0, limit if deadline is None else 16
        compiled_before = compile_seconds()

        def clock():  # the time of the search: a first compile (a cold cache) stops the clock
            return time.perf_counter() - (compile_seconds() - compiled_before)

        while done < limit:
            # a deadline ends the search only after a first simulation: a move always has a root
            # child to play, however short its time (a clock's last seconds)
            if deadline is not None and done > 0:
                now = clock()
                if now >= deadline:
                    break
            want = min(chunk, limit - done)
            t0 = clock()
            ran = run(p, state, (tree.links, tree.value, tree.amaf, tree.meta), settings, want, rng)
            done += ran
            if K.is_proven(tree.value[0]):
                break  # MCTS-Solver proved the root: more simulations cannot change the move
            if ran < want:
                tree.grow(self.max_nodes)
            elif deadline is not None:
                # Size the next chunk to take about _CHUNK_SECONDS, and never overrun the deadline.
                rate = ran / max(clock() - t0, 1e-6)
                left = deadline - clock()
                if early and _decided(tree, rate * left):
                    break
                chunk = int(max(1, min(rate * _CHUNK_SECONDS, rate * left)))
        return done


def _counted(game) -> bool:
    """A placement game won by a count of cells (Go's area, Othello's discs: its ``margin``)."""
    return bool(game.spec.placement) and game.board_size is not None and type(game).margin is not Game.margin


@per_game
def counts_after(p, s, a, policy, rng, work, moves, cells, out):
    """The mover's final count after playing ``a`` in ``s`` in each of ``len(out)`` playouts of
    ``policy`` (the agent's), written to ``out``: the cells the game's ``owners`` hook gives the
    mover minus those it gives the opponent (Go: Tromp-Taylor area without komi; Othello: discs)."""
    me = s[C.H_PLAYER] + 1
    for i in range(out.shape[0]):
        C.copy(work, s, s.shape[0])
        G.apply(work, p, a)
        if policy == K.RANDOM:
            G.random_playout(work, p, rng, moves)
        else:
            G.playout(work, p, rng, moves, policy)
        G.owners(work, p, cells)
        total = 0
        for k in range(cells.shape[0]):
            if cells[k] == me:
                total += 1
            elif cells[k] != 0:
                total -= 1
        out[i] = total


def _profile_weight(profile, progress: float) -> float:
    """A move's share of the average time at ``progress`` (plies / actions) by a game's
    ``time_profile``: linear between its points, flat past the last; 1 without a profile."""
    if not profile:
        return 1.0
    xs, ws = zip(*profile)
    return float(np.interp(progress, xs, ws))


def _decided(tree, remaining: float) -> bool:
    """Whether the root's most visited child stays the most visited whatever ``remaining``
    more simulations do (all of them to the runner-up): the move is known, the time is saved."""
    visits = tree.links[_children(tree.links), K.VISITS]
    if len(visits) < 2:
        return False
    runner_up, best = np.partition(visits, len(visits) - 2)[-2:]
    return best - runner_up > remaining


def _children(links, node: int = 0) -> slice:
    """The rows of ``node``'s children in a tree's arrays (the root's by default; empty while
    the node is unexpanded)."""
    first = links[node, K.FIRST]
    return slice(first, first + links[node, K.COUNT])


def _root_children(trees):
    """``(keys, visits, values)`` of the root's children: one tree's in its own order; over
    several trees (one per thread, each a search of the same position) every action once, in the
    order the trees first list them, visits summed and values averaged weighted by visits."""
    if len(trees) == 1:
        links, value = trees[0].links, trees[0].value
        rows = _children(links)
        return links[rows, K.KEY], links[rows, K.VISITS], value[rows]
    index: dict = {}
    keys, visits, weighted, plain, proofs = [], [], [], [], {}
    for tree in trees:
        links, value = tree.links, tree.value
        rows = _children(links)
        for i in range(rows.start, rows.stop):
            key = int(links[i, K.KEY])
            j = index.setdefault(key, len(keys))
            if j == len(keys):
                keys.append(key)
                visits.append(0)
                weighted.append(0.0)
                plain.append(float(value[i]))
            visits[j] += int(links[i, K.VISITS])
            if K.is_proven(value[i]):
                proofs[j] = float(value[i])  # exact in every tree that found it
            else:
                weighted[j] += int(links[i, K.VISITS]) * float(value[i])
    visits = np.array(visits, dtype=np.int64)
    values = np.where(visits > 0, np.array(weighted) / np.maximum(visits, 1), np.array(plain))
    for j, proof in proofs.items():
        values[j] = proof
    return np.array(keys, dtype=np.int64), visits, values


def _subtree(game, mid, state, tree, action):
    """The subtree of ``tree`` (searched from the position before ``action``) at ``state``, two
    plies on from there (``action``, which led to ``mid``, then the reply that led to
    ``state``), as a tree of its own; None if the tree never expanded that far."""
    links = tree.links
    root = _children(links)
    chosen = next((i for i in range(root.start, root.stop) if links[i, K.KEY] == action), -1)
    if chosen < 0 or links[chosen, K.FIRST] < 0:
        return None
    replies = _children(links, chosen)
    for node in range(replies.start, replies.stop):
        if links[node, K.VISITS] > 0 and np.array_equal(game.unchecked.apply(mid, int(links[node, K.KEY])), state):
            fresh = _Tree(links.shape[0])
            fresh.meta[K.USED] = K.extract(links, tree.value, tree.amaf, node, fresh.links, fresh.value, fresh.amaf)
            return fresh
    return None


def _result(value) -> float:
    """A root child's value as the search reports it: its mean, or 1 (0) for a proven win (loss)."""
    if K.is_proven(value):
        return 1.0 if value > 0 else 0.0
    return float(value)


def _stats(start, budget, simulations=0, reused=0, nodes=0, depth=0, value=float("nan"), komi=None) -> dict:
    """``last_stats`` of a move decided at ``time.perf_counter()`` now, its search begun at
    ``start``: with the defaults, a move played without a search."""
    return {
        "simulations": simulations,
        "reused": reused,
        "seconds": time.perf_counter() - start,
        "budget": budget,
        "nodes": nodes,
        "depth": depth,
        "value": value,
        "komi": komi,
    }


class _Tree:
    """The node arrays of one search (see ``_mcts_kernel``), grown by doubling up to a limit."""

    def __init__(self, capacity: int):
        self.links, self.value, self.amaf, self.meta = K.new_tree(capacity)

    def grow(self, max_nodes: int) -> None:
        used = int(self.meta[K.USED])
        capacity = min(2 * self.links.shape[0], max_nodes)
        links, value, amaf, _ = K.new_tree(capacity)
        links[:used] = self.links[:used]
        value[:used] = self.value[:used]
        amaf[:used] = self.amaf[:used]
        self.links, self.value, self.amaf = links, value, amaf
