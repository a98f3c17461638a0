"""The GTP server: any Arbiter agent as a GTP engine, for GoGui, Sabaki, GNU Go or a referee.

``serve(game, agent, infile, outfile)`` speaks GTP version 2 on two text streams (``arbiter gtp``,
``agents.gtp.cli``, runs it on stdin and stdout). It answers the commands those tools send:
``protocol_version name version known_command list_commands boardsize clear_board komi play
genmove undo showboard final_score final_status_list time_settings kgs-time_settings time_left
loadsgf quit``, and ``arbiter-resign``, failing with GTP's own texts (``unknown command``, ``syntax error``, ``invalid
color or coordinate``, ``illegal move``, ``cannot undo``, ``unacceptable size``, ``cannot load
file``, ``cannot score``).

What a command can do depends on the game, and the server asks the game rather than guessing:
``boardsize`` sets its ``board_size`` (a fixed board takes only its own), ``komi`` its ``komi``
(a game without komi accepts and ignores it, as GTP engines do), a pass is its ``pass_action``,
``final_score`` is its ``returns`` and ``margin``, ``final_status_list`` reads the stones of a
placement game (``GameSpec.placement``) from its observation.

* Every two-player game is served, each in its own notation (``agents.gtp.protocol``): Go's
  and Othello's vertices, Gomoku's points (``H8``), Lines of Action's from-to moves (``play b
  b1-b3``, ``play w c1xa3``, or the squares alone, ``b1b3``; ``genmove`` answers ``B1-B3``).
* Any colour may ``play`` or ``genmove`` at any time, as GTP allows (handicap stones are
  several Black moves in a row): in Go the side to move passes first, so the ply count includes
  that pass, and a pass by the side not to move changes nothing; in a game without passes the
  side to move is set through the text board where the game's allows it (LOA; not Othello or
  Gomoku, whose text boards tie the side to move to the stones), else ``illegal move`` (see
  ``Session.give_turn``).
* GTP leaves ending the game to the controller: after two passes, which end a Go game under its
  rules, ``play`` and ``genmove`` go on from the position before the last pass (same board, same
  superko history; ``Session.reopen``), as GNU Go does. After any other end (five in a row,
  Othello's full board) ``play`` is ``illegal move`` and ``genmove`` passes.
* ``final_score`` is the result the rules give the game ended now, as SGF's ``RE`` writes it:
  Go ends by passes, so its Tromp-Taylor score of the board as it stands (``B+3.5``); Othello's
  disc count once the game is over (``W+28``); a winner without a margin (``B+``) for Gomoku and
  LOA; ``0`` for a draw; ``cannot score`` while a game that cannot be ended by passes goes on.
* ``time_settings``, ``kgs-time_settings`` and ``time_left`` give a search agent its time move
  by move (``agents.gtp.clock``): a byo-yomi period over its stones, or the main time over the
  moves to come, less a fifth for the controller's overhead. The agent gets that share through
  its ``clock_options`` (``agents.base.Agent``) for the one move: an agent with a
  ``time_option`` (MCTS ``seconds``, alpha-beta ``time``) searches for that share, capped by its
  own setting if it has one; MCTS's default 1,000 simulations, which apply only to an MCTS given
  no time, give way to the clock, while a count set on purpose caps it. The engine takes each
  ``genmove``'s time off its own clock between ``time_left`` commands. Other agents play as
  configured.
* ``genmove`` answers ``resign`` when the agent gives the game up (a search agent's ``resign``
  option, on by default; ``serve(..., resign=False)``, ``arbiter gtp --no-resign`` or the
  extension command ``arbiter-resign off`` has every game played out, ``arbiter-resign on``
  allows it again, ``arbiter-resign`` alone answers the setting). The position stays as it was: a controller that declines the resignation may go
  on with ``play``, ``genmove``, ``final_score`` and ``final_status_list`` as before.
* ``final_status_list``: Tromp-Taylor area scoring counts every stone on the board, so every
  stone is ``alive`` and the ``dead`` and ``seki`` lists are empty.
* ``loadsgf file [move_number]`` reads a record of the engine's game with ``envs.sgf`` (size
  and komi from the record, setup stones, the main line) from a regular file of at most
  ``MAX_RECORD_BYTES`` (``agents.gtp.loadsgf``); a record of another game (an Othello record on
  a Go engine) is refused.
* ``undo`` takes back one ``play``/``genmove`` at a time, back to the last ``clear_board``,
  ``boardsize`` or ``loadsgf``.
* ``version`` is the installed distribution's (``envs.__version__``).
* No command can end or exhaust the engine: a line longer than ``MAX_LINE`` characters is
  refused without being held, numbers are bounded before they are converted, a komi that is
  not a finite number is refused, and a fault inside a command is answered
  (``? internal error: ...``) with the position put back as it was.
"""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

import envs
from envs.core import ArbiterError

from ..base import Agent, Resign, resignation
from . import loadsgf
from .protocol import (
    MAX_LINE,
    Refusal,
    colour,
    command_lines,
    count,
    number,
    parse_command,
    read_vertex,
    response,
    size,
    vertex,
)
from .session import Session


def serve(
    game: envs.Game, agent: Agent, infile: TextIO | None = None, outfile: TextIO | None = None, resign: bool = True
) -> None:
    """Answer GTP version 2 commands from ``infile`` on ``outfile`` until ``quit`` or end of input.

    ``game`` sets the game and its rules (``boardsize`` and ``komi`` change only those
    parameters); ``agent`` answers ``genmove``. Both streams are text; defaults stdin/stdout.
    A GTP clock sets the agent's time budget for each of its moves; afterwards the agent has
    its own budget back, so it can serve again or play elsewhere as it was configured.
    ``resign``: a search agent may answer ``genmove`` with ``resign`` in a lost game (False: never).
    """
    infile = sys.stdin if infile is None else infile
    outfile = sys.stdout if outfile is None else outfile
    session = Session(game, agent)
    session.resign = bool(resign)
    for line, complete in command_lines(infile):
        command = parse_command(line)
        if command is None:
            continue
        ident, name, args = command
        if not complete:
            ok, text = False, f"command line too long (more than {MAX_LINE} characters)"
        else:
            ok, text = answer(session, name, args)
        outfile.write(response(ok, ident, text))
        outfile.flush()
        if name == "quit" and complete:
            return


def answer(session: Session, name: str, args: list[str]) -> tuple[bool, str]:
    """``(success, text)`` of one command. No command ends the session but ``quit``: a refusal
    is a ``?`` answer, and so is anything unforeseen inside a command (the position is put
    back as it was)."""
    if name not in COMMANDS:
        return False, "unknown command"
    saved = session.checkpoint()
    try:
        return True, COMMANDS[name](session, args)
    except Refusal as exc:
        return False, str(exc)
    except ArbiterError as exc:  # an agent failing (e.g. a GTP engine behind it) is an answer too
        return False, f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a fault of ours: answered, and the engine goes on
        session.rollback(saved)
        return False, f"internal error: {type(exc).__name__}: {exc}"


# -- the commands: each takes the session and the arguments, returns the response text -----------


def _cmd_boardsize(session, args):
    """``boardsize n``: an empty board of side ``n``, the rules otherwise as they were; a game
    whose board side is not a rule parameter takes only its own (``unacceptable size``)."""
    if len(args) != 1:
        raise Refusal("syntax error")
    side = size(args[0])
    if side != session.game.board_size:
        saved = session.start_text, session.moves
        session.start_text, session.moves = None, []
        try:
            session.rebuild(size=side)  # a game without a size parameter refuses it
        except ArbiterError:
            session.start_text, session.moves = saved
            raise Refusal("unacceptable size") from None
    session.clear()
    return ""


def komi_param(value: float) -> int | float:
    """``value`` as a game's ``komi`` parameter: an int when whole (``komi=7``), else the float."""
    return int(value) if math.isfinite(value) and value == int(value) else value


def _cmd_komi(session, args):
    """``komi x``: the same position under komi ``x``; a game without komi accepts and ignores
    it, as GTP engines do."""
    if len(args) != 1:
        raise Refusal("syntax error")
    try:
        komi = float(args[0])
    except ValueError:
        raise Refusal("syntax error") from None
    if not math.isfinite(komi):
        raise Refusal(f"syntax error: komi {args[0]} is not a finite number")
    if session.game.komi is not None:
        try:
            session.rebuild(komi=komi_param(komi))
        except (ArbiterError, ArithmeticError) as exc:
            raise Refusal(f"unacceptable komi {args[0]}: {exc}") from None
    return ""


def _cmd_play(session, args):
    if len(args) != 2:
        raise Refusal("syntax error")
    seat = colour(args[0])
    session.play(seat, _read_move_of(session, seat, args[1]))
    return ""


def _read_move_of(session, seat, text):
    """The action ``text`` names as ``seat``'s move. A from-to move (Lines of Action) is read in
    the position with ``seat`` to move, since whose piece stands on its first square decides
    whether it is a move at all; GTP lets any colour play at any time (``Session.give_turn``)."""
    game, state = session.game, session.state
    try:
        return read_vertex(game, state, text)
    except Refusal:
        if game.current_player(state) == seat or game.is_terminal(state):
            raise
    saved = session.checkpoint()
    try:
        session.reopen()
        session.give_turn(seat)
        return read_vertex(session.game, session.state, text)
    finally:
        session.rollback(saved)
    return ""


def _cmd_genmove(session, args):
    """``genmove colour``: the agent's move for ``colour``, played. After a game that two passes
    ended the agent plays on (``reopen``), as GNU Go does; after any other end it passes."""
    if len(args) != 1:
        raise Refusal("syntax error")
    seat = colour(args[0])
    saved = session.start_text, list(session.moves)
    session.reopen()
    if session.game.is_terminal(session.state):
        return "pass"  # GTP controllers may ask after the end; passing changes nothing
    try:
        session.give_turn(seat)
    except Refusal:
        session.start_text, session.moves = saved
        session.replay()
        raise
    game = session.game
    with session.budget(seat):
        start = time.perf_counter()
        try:
            with resignation(session.resign):
                action = session.agent.act(game, session.state)
        except Resign:
            session.start_text, session.moves = saved
            session.replay()
            return "resign"
        except ArbiterError:
            session.start_text, session.moves = saved
            session.replay()
            raise
        finally:
            session.clock.spend(seat, time.perf_counter() - start)
    move = vertex(game, session.state, action)
    session.snapshots.append(saved)
    session.push(action)
    return move


def _cmd_undo(session, args):
    if not session.snapshots:
        raise Refusal("cannot undo")
    session.undo()
    return ""


def _cmd_final_score(session, args):
    """``final_score``: the result the rules give the game ended now, in SGF's ``RE`` form
    (``B+3.5``, ``W+12``; ``B+`` where a win has no size; ``0`` for a draw).

    A game still going on is ended the way the controller ends it, by passes (Go's Tromp-Taylor
    score of the board as it stands); one that passes cannot end (Othello with moves left,
    LOA, Gomoku) answers ``cannot score``, as GRhino does."""
    game, state = session.game, session.state
    npass = game.pass_action
    for _ in range(game.num_players):
        if game.is_terminal(state) or npass is None or not game.is_legal(state, npass):
            break
        state = game.apply(state, npass)
    if not game.is_terminal(state):
        raise Refusal("cannot score")
    return game.outcome(state).sgf_result


def _cmd_final_status_list(session, args):
    """Tromp-Taylor area scoring counts every stone on the board as alive (the players remove
    dead stones by capturing them before the end), so ``alive`` lists every stone and ``dead``
    and ``seki`` are empty: ``final_score`` and this list always agree. Every placement game
    scores its stones where they stand, so the list is theirs too."""
    if len(args) != 1 or args[0].lower() not in ("alive", "dead", "seki"):
        raise Refusal("syntax error")
    game, state = session.game, session.state
    if not game.spec.placement:
        raise Refusal(f"final_status_list is not available for {game.name}")
    if args[0].lower() != "alive":
        return ""
    planes = game.observation(state, 0)  # seat 0's view: Black's stones, then White's
    n = game.board_size
    return " ".join(
        vertex(game, state, r * n + c) for k in (0, 1) for r in range(n) for c in range(n) if planes[k, r, c]
    )


def _cmd_time_settings(session, args):
    if len(args) != 3:
        raise Refusal("syntax error")
    main, byo_time, byo_stones = number(args[0]), number(args[1]), count(args[2])
    if byo_time > 0 and byo_stones == 0:  # GTP's way of saying: no time limits
        session.clock.set(None)
    else:
        session.clock.set(main, byo_time, byo_stones)
    return ""


def _cmd_kgs_time_settings(session, args):
    """``kgs-time_settings none | absolute main | byoyomi main period periods | canadian main
    period stones`` (KGS, GoGui): Japanese byo-yomi is kept as its periods' time per move (the
    spare periods are a reserve the share never plans to use)."""
    kind = args[0].lower() if args else ""
    shapes = {"none": 1, "absolute": 2, "byoyomi": 4, "canadian": 4}
    if kind not in shapes or len(args) != shapes[kind]:
        raise Refusal("syntax error")
    if kind == "none":
        session.clock.set(None)
    elif kind == "absolute":
        session.clock.set(number(args[1]))
    elif kind == "byoyomi":
        main, period, periods = number(args[1]), number(args[2]), count(args[3])
        session.clock.set(main, period if periods else 0.0, 1 if periods else 0)
    else:
        main, period, stones = number(args[1]), number(args[2]), count(args[3])
        session.clock.set(main, period if stones else 0.0, stones)
    return ""


def _cmd_time_left(session, args):
    if len(args) != 3:
        raise Refusal("syntax error")
    seat = colour(args[0])
    session.clock.tell(seat, number(args[1]), count(args[2]))
    return ""


def _cmd_arbiter_resign(session, args):
    """``arbiter-resign [on|off]``: whether ``genmove`` may answer ``resign`` (the agent's own
    ``resign`` option still decides when); no argument answers the current setting. A controller
    that wants every game played out (an analysis, a rated series) turns it off."""
    if len(args) > 1 or (args and args[0].lower() not in ("on", "off")):
        raise Refusal("syntax error")
    if args:
        session.resign = args[0].lower() == "on"
    return "on" if session.resign else "off"


def _cmd_loadsgf(session, args):
    """``loadsgf file [move_number]``: the position of a record of the engine's game before
    move ``move_number`` (default: after its last move); see ``loadsgf.load``."""
    if len(args) not in (1, 2):
        raise Refusal("syntax error")
    loadsgf.load(session, args[0], None if len(args) == 1 else count(args[1]))
    return ""


COMMANDS = {
    "protocol_version": lambda session, args: "2",
    "name": lambda session, args: f"Arbiter {session.agent.name}",
    "version": lambda session, args: envs.__version__,
    "known_command": lambda session, args: str(bool(args) and args[0] in COMMANDS).lower(),
    "list_commands": lambda session, args: "\n".join(COMMANDS),
    "boardsize": _cmd_boardsize,
    "clear_board": lambda session, args: session.clear() or "",
    "komi": _cmd_komi,
    "play": _cmd_play,
    "genmove": _cmd_genmove,
    "undo": _cmd_undo,
    "showboard": lambda session, args: "\n" + session.game.to_text(session.state).rstrip("\n"),
    "final_score": _cmd_final_score,
    "final_status_list": _cmd_final_status_list,
    "time_settings": _cmd_time_settings,
    "kgs-time_settings": _cmd_kgs_time_settings,
    "time_left": _cmd_time_left,
    "loadsgf": _cmd_loadsgf,
    "arbiter-resign": _cmd_arbiter_resign,
    "quit": lambda session, args: "",
}
