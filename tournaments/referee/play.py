"""Playing one game between agents: ``play_game``, the one game loop of Arbiter.

    import agents, envs, tournaments
    game = envs.make_game("gomoku", size=9)
    outcome = tournaments.play_game(game, [agents.make("greedy", seed=1), agents.make("random", seed=2)])
    outcome.winner, outcome.result, outcome.reason, outcome.moves

Tournament workers (``play_job`` below), evaluation matches (``tournaments.referee.matches``) and
``arbiter play`` all play through ``play_game``, so a game is refereed and recorded the same way
everywhere. Everything that can go wrong with an agent ends the game as a forfeit of that agent,
with the reason recorded, never as an exception, so one bad agent never stops a tournament:

  forfeit-crash    the agent raised (or could not be built, or its process died);
  forfeit-timeout  a move took longer than ``move_time``, or than the agent had on its game
                   clock (``clock``: lost on time, the detail says by how much; measured here; a
                   move that never returns is caught by the executor, which kills the process);
  forfeit-illegal  the agent returned something that is not a legal action.

An agent may also give up: ``act`` raising ``agents.Resign`` loses the game with reason
``resign``, which is a result, not a fault. Search agents whose ``resign`` option is on resign a
lost game here (``play_game(..., resign=True)``, the default, lets them; ``resign=False`` has every
game played out, and the CLI's ``--no-resign`` passes it); outside ``play_game`` they never do.
The referee may end a game the rules have not ended
(``adjudicate``: a move cap, or a judge's evaluation, ``tournaments.adjudication``): reason
``adjudicated``, and the detail says which rule.

The referee meets every player through one protocol, ``agents.Player``: ``act`` and the hooks
``reset``, ``set_clock``, ``set_history``, ``clock_options`` and ``check_ready``, methods that do
nothing unless the player defines them, so the loop calls each on every player and probes no
object for a method; anything else (a function, an object with ``act``, an SB3 model, a
``pyspiel.Bot``) is adapted once, before the game, by ``agents.as_player``. The game itself is a
``GameSession`` with its collaborators: a ``GameRecord`` (the plies, and the takebacks), the
clocks (``agents.clock.GameClock``) and the adjudication's referee.

On a game clock (``clock``, an ``agents.clock.TimeControl``: base time and increment, or byo-yomi)
each player is told its time before each of its moves (``set_clock``, an
``agents.clock.TimeLeft``) and held to the move's share of it through its ``clock_options`` (the
search agents'), as a GTP controller's clock holds them.

A game may start from an *opening*: moves played for both sides before the agents take over, as
chess tournament tools play a book opening (and a colour pair plays it once with each colour,
so deterministic agents do not replay one game). The record's ``moves`` include the opening and
``opening`` says how many plies it took; players are shown the opening through their
``set_history`` (those that keep their own board, such as GTP engines, define it).

How a game ended is an ``envs.core.outcome.Outcome`` (winner, returns, reason, end reason, margin;
its points and result texts); ``GameOutcome`` is one with the game's moves added.

The tournament side: ``Context`` (what every game of a tournament shares) and ``Job`` (one game)
travel to the worker processes; ``play_job`` builds the job's agents, plays it with ``play_game``
and returns the journal's record (``job_record``), a JSON-ready dict: the game's pairing and
moves, its outcome's ``to_record()`` and, derived from it, the referee's ``code`` (BLACK_WINS /
WHITE_WINS / DRAW) and the ``result`` text, which every journal has carried, so that journals
written by any version read alike.
"""

from __future__ import annotations

import copy
import dataclasses
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

import agents
import envs
from agents.base import Player, Resign, TakeBack, resignation  # noqa: F401  (TakeBack, Player: re-exported)
from agents.clock import GameClock, TimeControl, held_to, moves_to_go
from agents.openings import random_opening  # noqa: F401  (re-exported: tournaments draw openings here)
from agents.players import as_player
from envs import Game, IllegalActionError, ParameterError
from envs.core.compiling import compile_seconds
from envs.core.outcome import (
    ADJUDICATED,
    CRASH,
    ILLEGAL,
    NORMAL,
    RESIGN,
    TIMEOUT,
    Outcome,
    OutcomeError,
    winner_of,  # noqa: F401  (re-exported: its home before envs.core.outcome)
)

from .adjudication import Adjudication, evaluation

if TYPE_CHECKING:
    from envs.registry import GameSpec


# a tournament's or a match's entry: an agent spec for ``agents.make``, or a picklable player object
# (an ``agents.Player``, or any object ``agents.as_player`` adapts)
AgentEntry = str | Player | Any
# a heartbeat callback: ``report(event, seat, ...)`` (see ``play_game``)
Report = Callable[..., object]


@dataclass(frozen=True)
class GameOutcome(Outcome):
    """How one game ended (an ``envs.core.outcome.Outcome``), and its record.

    winner    the seat that won; None for a draw (in a one-player game: the game was lost)
    returns   per seat, the game's ``returns`` at the end; a seat that forfeits or resigns gets
              the loss (-1 and the other seat +1; 0 in a one-player game)
    reason    NORMAL (the rules ended the game), RESIGN, or CRASH / TIMEOUT / ILLEGAL (forfeits);
              ``detail`` says what happened in words; ``end_reason`` names the rule that ended a
              NORMAL game (``"five"``) and ``margin`` by how much it was won (Go: points)
    moves     every ply in the game's notation, the opening included; ``actions`` the same plies
              as action ids; ``opening`` how many of the first plies were the opening
    seconds   wall-clock time of the agents' moves
    state     the last position (not part of a tournament record)
    times     the seconds each move after the opening took, as its clock was charged (compile
              time left out); ``evaluations`` beside it: the mover's own evaluation of the move
              (its ``last_stats``: a search's ``score``, MCTS's 2·value − 1, as the adjudication
              judge reads it), None where the agent gives none. Records and SGF comments keep both.

    ``points(seat)``, ``result`` (``"1-0"``), ``sgf_result`` (``"B+3.5"``), ``forfeit`` and
    ``to_record()`` are the ``Outcome``'s. Two outcomes are equal when the games are: ``seconds``
    and ``state`` are not compared (the time is a measurement, the state follows from the actions).
    """

    moves: tuple = ()
    actions: tuple = ()
    opening: int = 0
    seconds: float = field(default=0.0, compare=False)
    state: np.ndarray | None = field(default=None, compare=False, repr=False)
    times: tuple = field(default=(), compare=False, repr=False)
    evaluations: tuple = field(default=(), compare=False, repr=False)

    @property
    def plies(self) -> int:
        """Plies played, the opening included."""
        return len(self.actions)


def forfeit(
    seat: int,
    reason: str,
    detail: str,
    *,
    num_players: int = 2,
    moves: Iterable[str] = (),
    actions: Iterable[int] = (),
    opening: int = 0,
    seconds: float = 0.0,
    state: np.ndarray | None = None,
    times: Iterable[float] = (),
    evaluations: Iterable[float | None] = (),
) -> GameOutcome:
    """The outcome of a game lost by ``seat`` for ``reason`` (a forfeit or RESIGN) after the
    plies ``moves``/``actions``; ``reason`` must be one of the module's reasons but NORMAL."""
    if reason not in (RESIGN, CRASH, TIMEOUT, ILLEGAL):
        raise ParameterError(f"reason={reason!r}: expected one of {RESIGN!r}, {CRASH!r}, {TIMEOUT!r}, {ILLEGAL!r}")
    try:
        return GameOutcome.loss(
            seat,
            reason,
            detail,
            num_players=num_players,
            moves=tuple(moves),
            actions=tuple(actions),
            opening=opening,
            seconds=seconds,
            state=state,
            times=tuple(times),
            evaluations=tuple(evaluations),
        )
    except OutcomeError as e:
        raise ParameterError(str(e)) from None


def _describe(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _evaluation(agent) -> float | None:
    """The mover's evaluation of its move for the record (``adjudication.evaluation``: what a
    judge reads), rounded; None where it reports none or reading it fails."""
    try:
        value = evaluation(agent)
    except Exception:  # noqa: BLE001 - an agent's own last_stats of another shape: no evaluation
        return None
    return None if value is None else round(value, 4)


def _is_action(action) -> bool:
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))


def _thinking(since: float, compiled: float) -> float:
    """Seconds a move took since ``since`` (``perf_counter``), less the time this process spent
    in numba's compiler meanwhile (``compiled``: ``compile_seconds()`` at the start): a cold
    cache is charged to no clock, so a game plays alike on a cold and a warm cache."""
    return max(0.0, time.perf_counter() - since - (compile_seconds() - compiled))


def _silent(*msg) -> None:
    pass


def _check_clock(move_time: float | None, clock: TimeControl | str | None) -> tuple[float | None, TimeControl | None]:
    """``play_game``'s ``move_time`` and ``clock`` checked, the clock parsed, and each cap per
    move given to the other: ``(move_time, clock)``; a ``ParameterError`` names a bad one."""
    if move_time is not None and (
        not isinstance(move_time, (int, float, np.integer, np.floating))
        or isinstance(move_time, bool)
        or not move_time > 0
    ):
        raise ParameterError(f"move_time={move_time!r}: expected a positive number of seconds or None")
    if isinstance(clock, str):
        clock = TimeControl.parse(clock)
    if clock is not None and not isinstance(clock, TimeControl):
        raise ParameterError(f'clock={clock!r}: expected an agents.clock.TimeControl, its text ("10+0.1") or None')
    if clock is not None and move_time is not None and clock.move_time != move_time:
        if clock.move_time is not None:
            raise ParameterError(f"move_time={move_time!r} and clock={clock}: two different caps per move")
        clock = dataclasses.replace(clock, move_time=move_time)
    if clock is not None and move_time is None:
        move_time = clock.move_time
    return move_time, clock


def _check_adjudication(adjudicate: Adjudication | str | Sequence[str] | None) -> Adjudication | None:
    """``play_game``'s ``adjudicate`` as an ``Adjudication`` (its rules parsed), or None."""
    if adjudicate is None:
        return None
    if isinstance(adjudicate, (str, list, tuple)):
        adjudicate = Adjudication.parse(adjudicate)
    if not isinstance(adjudicate, Adjudication):
        raise ParameterError(
            f"adjudicate={adjudicate!r}: expected a tournaments.adjudication.Adjudication, its rules as text, or None"
        )
    return adjudicate


def as_players(game: Game, agents: Iterable[Any]) -> list[Player]:
    """One ``Player`` per seat of ``game`` from ``agents`` (each through ``agents.as_player``,
    once, before the game); a ``ParameterError`` for the wrong number or an object that cannot
    play (``agents.PlayerError`` is one)."""
    agents = list(agents)
    if len(agents) != game.num_players:
        raise ParameterError(f"agents: {game.name} needs {game.num_players} (one per seat), got {len(agents)}")
    return [as_player(agent, f"agents[{seat}]") for seat, agent in enumerate(agents)]


class GameRecord:
    """The plies of a game so far, the opening's first: notation and action ids, and for each
    agent ply the position it was played in and its mover (for takebacks), its seconds and the
    mover's evaluation. ``back_to(seat)`` takes back ``seat``'s last ply and those after it."""

    def __init__(self, game: Game, state: np.ndarray, opening: Iterable[int]) -> None:
        self.moves: list[str] = []
        self.actions: list[int] = []
        for i, action in enumerate(opening):  # the opening: checked, played, recorded, never timed
            if not _is_action(action) or not game.is_legal(state, int(action)):
                raise IllegalActionError(
                    f"opening[{i}]={action!r} is not a legal action after {' '.join(self.moves) or 'the start'}"
                )
            self.moves.append(game.action_to_str(state, int(action)))
            self.actions.append(int(action))
            state = game.apply(state, int(action))
        self.opening = len(self.actions)
        self.state = state  # the position after the opening
        self.played: list[tuple[np.ndarray, int]] = []  # (position, mover) of every agent ply
        self.times: list[float] = []  # each agent ply's seconds, as ``played``
        self.evaluations: list[float | None] = []  # the mover's evaluation of each agent ply

    def add(self, state: np.ndarray, seat: int, move: str, action: int, spent: float, value: float | None) -> None:
        """One agent ply: ``action`` (``move`` in notation) by ``seat`` in ``state``."""
        self.played.append((state, seat))
        self.times.append(round(spent, 4))
        self.evaluations.append(value)
        self.moves.append(move)
        self.actions.append(action)

    def back_to(self, seat: int) -> np.ndarray | None:
        """The position of ``seat``'s last agent ply, that ply and the later ones taken back;
        None (nothing taken back) when ``seat`` has not moved since the opening."""
        back = next((i for i in range(len(self.played) - 1, -1, -1) if self.played[i][1] == seat), None)
        if back is None:
            return None
        state = self.played[back][0]
        del self.played[back:], self.moves[self.opening + back :], self.actions[self.opening + back :]
        del self.times[back:], self.evaluations[back:]
        return state

    def outcome(
        self,
        state: np.ndarray,
        seconds: float,
        winner: int | None,
        returns: tuple,
        reason: str,
        detail: str,
        **end: Any,
    ) -> GameOutcome:
        """The game's ``GameOutcome``: how it ended (``winner``, ``returns``, ``reason``,
        ``detail``, the ``end_reason`` and ``margin`` in ``end``) with this record."""
        return GameOutcome(
            winner,
            returns,
            reason,
            detail,
            tuple(self.moves),
            tuple(self.actions),
            self.opening,
            seconds,
            state,
            tuple(self.times),
            tuple(self.evaluations),
            **end,
        )


class GameSession:
    """One game in play between ``Player`` objects (``agents.as_player``): the position and its
    ``GameRecord``, with the collaborators that referee it: the clocks (``agents.clock.GameClock``,
    or ``move_time`` alone), the adjudication's referee (``tournaments.adjudication``), the
    takebacks (``GameRecord.back_to``). ``play()`` plays it to its end and returns the outcome;
    ``play_game`` (the public function) checks its arguments and builds one. Each hook of the
    ``Player`` protocol is called on every player (they do nothing unless declared), so the
    loop never probes an object for a method; a hook that raises forfeits its player's game.
    The arguments are ``play_game``'s, checked."""

    def __init__(
        self,
        game: Game,
        players: Sequence[Player],
        record: GameRecord,
        *,
        from_start: bool = True,
        move_time: float | None = None,
        clock: TimeControl | None = None,
        adjudicate: Adjudication | None = None,
        takebacks: bool = False,
        watch: Callable[[np.ndarray, int | None, str | None], object] | None = None,
        report: Report | None = None,
        resign: bool = True,
    ) -> None:
        self.game, self.players, self.record, self.state = game, list(players), record, record.state
        self.from_start, self.move_time, self.takebacks, self.resign = from_start, move_time, takebacks, resign
        self.watch, self.report = watch, report or _silent
        self.clocks = GameClock(clock, game.num_players) if clock is not None else None
        self.referee = adjudicate.start(game) if adjudicate is not None else None
        self.judge_failed = ""  # why the judge stopped judging this game, if it failed
        self.unreported = list(zip(record.moves, record.actions))  # plies not yet in a report
        self.started = time.perf_counter()

    def play(self) -> GameOutcome:
        """Play the game to its end (the rules', a forfeit, a resignation or the referee's)."""
        self.started = time.perf_counter()
        ended = self._begin()
        while ended is None and not self.game.is_terminal(self.state):
            ended = self._turn(self.game.current_player(self.state))
        if ended is not None:
            return ended
        self._unclock()
        end = self.game.outcome(self.state)
        return self._outcome(
            end.winner, end.returns, NORMAL, self.judge_failed, end_reason=end.end_reason, margin=end.margin
        )

    def _outcome(self, winner: int | None, returns: tuple, reason: str, detail: str, **end: Any) -> GameOutcome:
        return self.record.outcome(
            self.state, time.perf_counter() - self.started, winner, returns, reason, detail, **end
        )

    def _lose(self, seat: int, reason: str, detail: str) -> GameOutcome:
        """``seat`` loses for ``reason`` (a forfeit or a resignation) now."""
        self._unclock()
        r = self.record
        return forfeit(
            seat,
            reason,
            detail,
            num_players=self.game.num_players,
            moves=r.moves,
            actions=r.actions,
            opening=r.opening,
            seconds=time.perf_counter() - self.started,
            state=self.state,
            times=r.times,
            evaluations=r.evaluations,
        )

    def _unclock(self) -> None:
        """The game is over: no player has a clock any more."""
        if self.clocks is not None:
            for player in self.players:
                try:
                    player.set_clock(None)
                except Exception:  # noqa: BLE001 - the game is decided; a player's failure here changes nothing
                    pass

    def _begin(self) -> GameOutcome | None:
        """Reset every player, show them the opening, show the start: None, or a forfeit."""
        for seat, player in enumerate(self.players):
            try:
                player.reset()
            except Exception as e:  # noqa: BLE001 - any failure of agent code is that agent's forfeit
                return self._lose(seat, CRASH, "reset for a new game: " + _describe(e))
        if self.record.opening and (lost := self._show_history()) is not None:
            return lost
        if self.watch:
            self.watch(self.state.copy(), None, None)
        return None

    def _show_history(self) -> GameOutcome | None:
        """Tell the players the plies since the start (``set_history``); a failure forfeits."""
        if not self.from_start:
            return None
        history = tuple(self.record.actions)
        for seat, player in enumerate(self.players):
            try:
                player.set_history(self.game, history)
            except Exception as e:  # noqa: BLE001
                return self._lose(seat, CRASH, "showing it the game so far: " + _describe(e))
        return None

    def _turn(self, seat: int) -> GameOutcome | None:
        """``seat``'s move: its clock told, its ``act`` timed and checked, the ply played and
        judged. None while the game goes on (a takeback included), else how it ended."""
        left = share = None
        if self.clocks is not None:
            left = self.clocks.view(seat)
            share = left.share(moves_to_go(self.game, self.state))
            self.report("move", seat, tuple(self.unreported), left.deadline)
        else:
            self.report("move", seat, tuple(self.unreported))
        self.unreported.clear()
        player = self.players[seat]
        if left is not None:
            try:
                player.set_clock(left)
            except Exception as e:  # noqa: BLE001
                return self._lose(seat, CRASH, "telling it its clock: " + _describe(e))
        t, compiled = time.perf_counter(), compile_seconds()
        try:
            with held_to(player, share), resignation(self.resign):
                action = player.act(self.game, self.state.copy())
        except Resign as e:
            return self._lose(seat, RESIGN, str(e) or "resigned")
        except TakeBack:
            return self._take_back(seat)
        except Exception as e:  # noqa: BLE001
            spent = _thinking(t, compiled)
            if left is not None and spent > left.deadline:  # it gave up past its time: the clock decides
                return self._lose(
                    seat,
                    TIMEOUT,
                    f"lost on time: move {len(self.record.moves) + 1} took {spent:.3f} s with "
                    f"{left.limit:.3f} s on its clock, then raised {_describe(e)}",
                )
            return self._lose(seat, CRASH, _describe(e))
        return self._move(seat, action, _thinking(t, compiled))

    def _move(self, seat: int, action: Any, spent: float) -> GameOutcome | None:
        """``seat`` answered ``action`` in ``spent`` seconds: check the time and the action, play
        it, then let the referee judge the position."""
        number = len(self.record.moves) + 1
        if self.move_time is not None and spent > self.move_time:
            return self._lose(seat, TIMEOUT, f"move {number} took {spent:.3f}s > {self.move_time}s")
        if self.clocks is not None and (late := self.clocks.charge(seat, spent)) is not None:
            return self._lose(seat, TIMEOUT, f"lost on time: move {number} {late}")
        if not _is_action(action) or not self.game.is_legal(self.state, int(action)):
            return self._lose(seat, ILLEGAL, f"move {number}: {action!r} is not a legal action")
        action = int(action)
        move = self.game.action_to_str(self.state, action)
        self.record.add(self.state, seat, move, action, spent, _evaluation(self.players[seat]))
        self.unreported.append((move, action))
        self.state = self.game.apply(self.state, action)
        if self.watch:
            self.watch(self.state.copy(), seat, move)
        if self.referee is not None and not self.game.is_terminal(self.state):
            return self._judge(seat)
        return None

    def _take_back(self, seat: int) -> GameOutcome | None:
        """``seat`` asked to take back its last move (``TakeBack``): honoured with ``takebacks``
        once it has moved, else an illegal request that forfeits."""
        state = self.record.back_to(seat) if self.takebacks else None
        if state is None:
            why = "takebacks are not allowed here" if not self.takebacks else "it has not moved yet"
            number = len(self.record.moves) + 1
            return self._lose(seat, ILLEGAL, f"move {number}: asked to take back a move, but {why}")
        self.state = state
        if (lost := self._show_history()) is not None:
            return lost
        if self.watch:
            self.watch(self.state.copy(), None, None)
        return None

    def _judge(self, seat: int) -> GameOutcome | None:
        """The adjudication's ruling on the position ``seat`` moved to: None, or the game's end.
        A judge that raises is no player: it stops judging this game, which goes on."""
        if self.referee.judge is not None:
            self.report("judge", seat, tuple(self.unreported))
            self.unreported.clear()
        try:
            ruling = self.referee.after(self.state, len(self.record.actions))
        except Exception as e:  # noqa: BLE001 - the judge's failure is neither player's fault
            # a judge's crash forfeits nobody's game and must not end the tournament either: the
            # game goes on unjudged (a move cap still applies)
            self.referee.judge, ruling = None, None
            self.judge_failed = (
                f"the judge failed at ply {len(self.record.actions)} ({_describe(e)}); the game went on unjudged"
            )
        if ruling is None:
            return None
        self._unclock()
        n = self.game.num_players
        returns = (0.0,) * n if ruling.winner is None else tuple(1.0 if s == ruling.winner else -1.0 for s in range(n))
        return self._outcome(ruling.winner, returns, ADJUDICATED, ruling.detail, margin=ruling.margin)


def play_game(
    game: Game,
    agents: Iterable[Any],
    *,
    seed: int | None = None,
    state: ArrayLike | None = None,
    opening: Iterable[int] = (),
    move_time: float | None = None,
    clock: TimeControl | str | None = None,
    adjudicate: Adjudication | str | Sequence[str] | None = None,
    takebacks: bool = False,
    watch: Callable[[np.ndarray, int | None, str | None], object] | None = None,
    report: Report | None = None,
    resign: bool = True,
) -> GameOutcome:
    """Play one game of ``game`` with ``agents[seat]`` moving for each seat; return its outcome.

    agents     one player per seat (``agents.Player``: an ``Agent``, or any object
               ``agents.as_player`` adapts: one with ``act(game, state) -> action``, a function
               ``(game, state) -> action``, ...). Each is ``reset()`` first: a game starts
               without memory of the last one.
    seed       the deal: the game starts from ``game.initial_state(seed=seed)`` (only games with
               chance, Calculation, use it; agents draw from their own seeds).
    state      a position to start from instead of the deal (a copy is used); not with ``seed``.
    opening    action ids played for both sides from the start position before the agents move;
               part of the record. From ``initial_state``, players are shown it (``set_history``:
               GTP engines keep their own board).
    move_time  seconds per move; a slower move forfeits with ``forfeit-timeout``.
    clock      an ``agents.clock.TimeControl`` (or its text, ``"10+0.1"``): each side's game clock,
               told to each player before its move (``set_clock``); a move that overruns it
               loses on time (``forfeit-timeout``). The opening is not on the clock.
    adjudicate a ``tournaments.adjudication.Adjudication`` (or its rules as text): the referee
               ends the game by a move cap or its judge's evaluation (reason ``adjudicated``).
               A judge that raises stops judging that game, which goes on to its end by the
               rules (a cap still applies), the failure in its ``detail``.
    takebacks  honour ``TakeBack`` from a player (``arbiter play``'s undo); otherwise it forfeits.
    watch      ``watch(state, seat, move)`` after every ply (the mover's seat and the move in
               notation) and with ``seat = move = None`` whenever a position is set (the start,
               a takeback): what a display needs.
    report     ``report("move", seat, plies)`` before each agent move, ``plies`` being the
               ``(move, action)`` pairs played since the previous report (the opening comes with
               the first): the heartbeat with which a supervisor kills a hung game and still
               knows whose fault it was and what was played. On a clock the report has a
               fourth item, the most seconds the move may take; ``report("judge", seat, plies)``
               comes before the adjudication's judge searches the position ``seat`` moved to.
    resign     let search agents resign a lost game (their ``resign`` option; ``agents.base.
               resignation``); False: every game is played out. The human player and external
               engines may resign either way.

    Bad arguments raise (``ParameterError``; ``IllegalActionError`` for an illegal opening): they
    are the caller's mistake. Whatever a player does ends the game instead (see the module).
    The game is a ``GameSession``'s.
    """
    players = as_players(game, agents)
    if state is not None and seed is not None:
        raise ParameterError(f"seed={seed!r} and a state: give the deal (seed=) or the position (state=), not both")
    move_time, clock = _check_clock(move_time, clock)
    adjudicate = _check_adjudication(adjudicate)
    start = game.initial_state(seed=seed) if state is None else game.check_state(state).copy()
    session = GameSession(
        game,
        players,
        GameRecord(game, start, opening),
        from_start=state is None,
        move_time=move_time,
        clock=clock,
        adjudicate=adjudicate,
        takebacks=takebacks,
        watch=watch,
        report=report,
        resign=resign,
    )
    return session.play()


# -- the tournament side ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Context:
    """What every game of a tournament shares: the game, the agents, the clock."""

    game: str
    game_params: dict
    agents: tuple  # spec strings or picklable agent objects
    names: tuple
    move_time: float | None = None
    setup_time: float = 60.0  # building an agent, its warm-up; a hung one forfeits on time
    spec: GameSpec | None = None  # the game's GameSpec: a worker registers it if its process lacks it
    clock: TimeControl | None = None  # an agents.clock.TimeControl: every game's clock (None: move_time alone)
    adjudicate: Adjudication | None = None  # a tournaments.adjudication.Adjudication (None: the rules end every game)
    resign: bool = True  # search agents may resign a lost game (``play_game``'s ``resign``)

    def make_game(self) -> Game:
        """The tournament's game, in any process: a worker that did not import the module that
        registered the game (``spawn``, a remote node) registers the spec it was sent."""
        if self.spec is not None:
            envs.ensure(self.spec)
        return envs.make_game(self.game, **self.game_params)


@dataclass(frozen=True)
class Job:
    """One game: the pairing (players by index) and the seeds derived from it."""

    index: int
    round: int
    match: int
    game: int
    black: int
    white: int
    seed: int
    agent_seeds: tuple
    opening: tuple = ()  # action ids played from the start before the agents move


def check_players(entries: Iterable[AgentEntry], game: Game) -> None:
    """Raise naming the first of ``entries`` (specs or player objects) that cannot play ``game``
    here: a spec that does not parse, an object that is no player (``agents.PlayerError``), or
    one whose ``check_ready`` refuses the game (it does not apply, has no weights for it, lacks
    an extra). Tournaments and matches call this before the first game, so such an agent is one
    clear error, not a forfeit in every game it was paired for."""

    for i, entry in enumerate(entries):
        if isinstance(entry, str):  # the spec as written, its own seed included (the games' seeds replace it)
            seeded = "seed" in agents.parse_spec(entry)[1]
            entry = agents.make(entry) if seeded else agents.make(entry, seed=0)
        as_player(entry, f"agents[{i}]").check_ready(game)


def forfeit_lines(
    records: Sequence[Mapping[str, Any]], limit: int = 3, outcomes: Sequence[Outcome] | None = None
) -> list[str]:
    """The footnote under a tournament's standings that says why games were forfeited: per agent
    and reason, how many games and the detail (the first ``limit`` different ones), so a forfeit
    is never only a number in a column. Empty when no game was forfeited. ``outcomes``: the
    records' outcomes where the caller has them already (else read from the records)."""
    lost: dict = {}  # (agent, reason) -> [details]
    if outcomes is None:
        outcomes = [Outcome.from_record(r) for r in records]
    for r, outcome in zip(records, outcomes):
        if not outcome.forfeit:
            continue
        seats = (0, 1) if outcome.void else () if outcome.loser is None else (outcome.loser,)
        for seat in seats:  # a double forfeit is a game lost by both
            loser = (r["black"], r["white"])[seat]
            lost.setdefault((loser, outcome.reason), []).append(outcome.detail or "no detail recorded")
    lines = []
    for (name, reason), details in sorted(lost.items()):
        distinct = list(dict.fromkeys(details))
        more = f" (and {len(distinct) - limit} other details)" if len(distinct) > limit else ""
        games = f"{len(details)} game{'s' * (len(details) != 1)}"
        lines.append(f"  {name}: {games} lost by {reason}: " + "; ".join(distinct[:limit]) + more)
    return ["", "Forfeits:", *lines] if lines else []


def build_agent(entry: AgentEntry, seed: int | None) -> Player:
    """A fresh player for one game: a spec goes through ``agents.make`` with the game's seed;
    a player object is deep-copied (its own seed applies), adapted (``agents.as_player``) and
    ``reset()``."""
    if isinstance(entry, str):
        return agents.make(entry, seed=seed)
    player = as_player(copy.deepcopy(entry))
    player.reset()
    return player


def job_record(ctx: Context, job: Job, outcome: GameOutcome) -> dict[str, Any]:
    """The journal's record of ``job`` ended with ``outcome`` (a plain dict, JSON-ready): the
    pairing, ``code`` and ``result`` (the referee's code and the score, derived from the outcome
    and kept in every record since the first journals), the outcome's own ``to_record()``
    (``winner``, ``returns``, ``reason``, ``detail``, ``end_reason``, ``margin``), the moves and
    the time, the game's and each move's (``times``) with the mover's ``evaluations``; ``envs.core.outcome.Outcome.from_record`` reads the outcome back."""
    return {
        "opening": len(job.opening),
        "index": job.index,
        "round": job.round,
        "match": job.match,
        "game": job.game,
        "black": ctx.names[job.black],
        "white": ctx.names[job.white],
        "black_id": job.black,
        "white_id": job.white,
        "seed": job.seed,
        "code": outcome.code,
        "result": outcome.result,
        **outcome.to_record(),
        "moves": list(outcome.moves),
        "plies": outcome.plies,
        "seconds": round(outcome.seconds, 4),
        "times": list(outcome.times),
        "evaluations": list(outcome.evaluations),
    }


def forfeit_record(
    ctx: Context,
    job: Job,
    seat: int,
    reason: str,
    detail: str,
    moves: Sequence[str] = (),
    actions: Sequence[int] = (),
    seconds: float = 0.0,
) -> dict[str, Any]:
    """The record of ``job`` lost by ``seat`` for ``reason`` after ``moves`` (for a supervisor
    that had to kill the game: it knows the plies from the heartbeats)."""
    return job_record(
        ctx,
        job,
        forfeit(
            seat,
            reason,
            detail,
            moves=moves,
            actions=actions,
            opening=min(len(job.opening), len(moves)),
            seconds=seconds,
        ),
    )


def double_forfeit_record(ctx: Context, job: Job, reason: str, detail: str) -> dict[str, Any]:
    """The record of ``job`` lost by both players for ``reason`` before a move was played
    (both ruled out of the run): 0-0, no points for either (``Outcome.double_forfeit``)."""
    return job_record(ctx, job, GameOutcome.double_forfeit(reason, detail, opening=0))


def play_job(
    ctx: Context, job: Job, game: Game | None = None, report: Report = _silent, warmed: set[int] | None = None
) -> dict[str, Any]:
    """Build ``job``'s agents, play it with ``play_game`` and return its record.

    ``report`` also gets ``("build", seat)`` and ``("warm", seat)`` before those steps.
    ``warmed`` (a set kept by a worker) lists players whose agent already made one untimed move in
    this process: with a clock, each agent first moves once unclocked so that just-in-time
    compilation is not charged to its first real move.
    """
    game = game or ctx.make_game()
    seats = (job.black, job.white)
    players = []
    for seat, player in enumerate(seats):
        report("build", seat)
        try:
            players.append(build_agent(ctx.agents[player], job.agent_seeds[seat]))
        except Exception as e:  # noqa: BLE001 - any failure of agent code is that agent's forfeit
            return forfeit_record(ctx, job, seat, CRASH, "building the agent: " + _describe(e))
    if (ctx.move_time is not None or ctx.clock is not None) and warmed is not None:
        start = game.initial_state(seed=job.seed)
        for seat, player in enumerate(seats):
            if player in warmed:
                continue
            report("warm", seat)
            try:
                build_agent(ctx.agents[player], 0).act(game, start.copy())
            except Exception as e:  # noqa: BLE001
                return forfeit_record(ctx, job, seat, CRASH, "warm-up move: " + _describe(e))
            warmed.add(player)
    outcome = play_game(
        game,
        players,
        seed=job.seed,
        opening=job.opening,
        move_time=ctx.move_time,
        clock=ctx.clock,
        adjudicate=ctx.adjudicate,
        report=report,
        resign=ctx.resign,
    )
    return job_record(ctx, job, outcome)
