"""``arbiter play``: watch two agents, or play one, in the terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import agents
import envs
from agents.human import Abandoned, HumanAgent, seat_name
from envs import render

from ..referee.outputs import check_file
from ..referee.play import check_players, play_game
from ..referee.records import game_sgf
from ._common import MAX_SEED, add_game, check_seed, game_params

if TYPE_CHECKING:
    from envs.core.outcome import Outcome

    from ..referee.play import GameOutcome, Player


def add(sub):
    p = sub.add_parser("play", help="watch two agents, or play against one ('human') in the terminal")
    add_game(p)
    p.add_argument("--black", default="human", help="agent spec or 'human' (default %(default)s)")
    p.add_argument("--white", default="random", help="agent spec or 'human' (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument("--hint", default="greedy", metavar="SPEC", help="the agent behind 'hint' (default %(default)s)")
    p.add_argument("--save", metavar="FILE.sgf", help="write the game as SGF when it ends")
    p.add_argument(
        "--no-resign", action="store_true", help="search agents play the game out instead of resigning it when lost"
    )


def play(
    game: envs.Game,
    agents: Sequence[Player],
    seed: int | None = 0,
    out: Callable[[str], object] = print,
    resign: bool = True,
    names: Sequence[str] | None = None,
) -> GameOutcome:
    """Play one game between ``agents`` (``HumanAgent`` objects for people at the terminal) with
    ``play_game``, showing the board after every move; a human may undo (takebacks are on) and
    resign, and so may search agents in a lost game unless ``resign`` is False. Ends with the
    result line, whatever ended the game; returns the ``GameOutcome``. ``names``: how the header
    and the result line call the players (``arbiter play`` passes the specs, options and all);
    default: each agent's ``name``."""
    if names is None:
        names = [getattr(a, "name", "") or type(a).__name__ for a in agents]
    out(", ".join(f"{seat_name(game, seat)}: {name}" for seat, name in enumerate(names)))
    verb = "play" if game.num_players == 1 else "plays"  # "You play K>w1", "Black plays d3"

    def watch(state, seat, move):
        if move is not None:
            out(f"{seat_name(game, seat)} {verb} {move}")
        out(render.ansi(game, state, move).rstrip("\n"))
        if game.summary(state):
            out(game.summary(state))

    outcome = play_game(game, agents, seed=seed, takebacks=True, watch=watch, resign=resign)
    out(result_line(game, outcome, names))
    return outcome


def result_line(game: envs.Game, outcome: Outcome, names: Sequence[str]) -> str:
    """How a game ended, in one line (``Outcome.describe``): the score, who won (seat and agent)
    and by how much where the game has a margin, or why the game ended early (a resignation, a
    loss on time, a forfeit, with its detail): ``Result: 0-1, White (mcts) wins by 12`` or
    ``Result: 1-0, Black (greedy) wins: White (alphazero) forfeited: the agent failed
    (WeightsError: ...)``; alone, ``Result: won`` or ``Result: lost: you resigned``."""
    if game.num_players == 1:
        return "Result: " + outcome.describe(["you"])
    return "Result: " + outcome.describe([f"{seat_name(game, seat)} ({name})" for seat, name in enumerate(names)])


def run(args) -> int:
    check_seed(args.seed)
    game = envs.make_game(args.game, **game_params(args.param))
    if args.save and game.spec.sgf is None:
        raise envs.ParameterError(f"--save {args.save}: {game.name} games have no SGF format")
    if args.save:
        check_file(args.save, "--save")
    players = []
    specs = (args.black, args.white)[: game.num_players]
    for seat, spec in enumerate(specs):
        if spec == "human":
            check_players([args.hint], game)  # the hint agent, before the first move, not at the first hint
            players.append(HumanAgent(hint=args.hint))
        else:
            players.append(agents.make(spec, seed=min(args.seed + seat, MAX_SEED)))
    check_players(players, game)
    try:
        outcome = play(game, players, seed=args.seed, resign=not args.no_resign, names=specs)
    except Abandoned as e:  # the person left: no move, no resignation, so no result to record
        print(f"Game abandoned ({e}): no result recorded{', nothing saved' if args.save else ''}.")
        return 1
    if args.save:
        data = game_sgf(game, outcome, specs[0], specs[1], seed=args.seed)
        try:
            with open(args.save, "wb") as f:
                f.write(data)
        except OSError as e:  # checked before the game, so something changed since (a full disk)
            sys.stderr.write(
                f"arbiter play: error: --save {args.save}: cannot write it "
                f"({e.strerror or type(e).__name__}); the game's moves: {' '.join(outcome.moves)}\n"
            )
            return 1
        print(f"saved {args.save}")
    return 0
