"""How a lost Go game ends: an MCTS agent against GNU Go, each opening played with resignation off
and on (docs/strength.md, "Go: losing like an engine").

    python benchmarks/resign_gnugo.py                       # 8 openings, mcts:simulations=200, level 10
    python benchmarks/resign_gnugo.py --openings 20 --agent mcts:seconds=2 --size 19 --out games.jsonl
    python benchmarks/resign_gnugo.py --openings 20 --resign off     # the lost games' margins only
    python benchmarks/resign_gnugo.py --openings 10 --first 10       # openings 10-19 (a second process)
    python benchmarks/resign_gnugo.py --openings 2 --resign off --sgf games/   # and each game's SGF

Opening k is ``random_opening`` of 2 plies drawn with seed k, MCTS Black in the even ones. Each
game prints one JSON line: the result and its reason, the plies, the final Tromp-Taylor margin
from MCTS's view (komi included) and the points MCTS owns at the end (the game's ``owners``), so
that the lost games' margins, the moves resignation saves and any resignation of a won game can
be read off. A game played with resignation off also says where resignation on would have ended
it (``resign_ply``: the agent's rule applied to its root win rate after each move; None: never),
since the rule only ends a game and changes no move before: one game played out gives both
figures, also where a clock makes two runs of an opening differ; ``score_ply`` is the first
ply MCTS searched for its score under a komi of its own (a lost game, ``agents.mcts``), and
``score_moves`` how many of its moves it did. GNU Go plays with Chinese rules and captures all
dead stones, so the final count is the game's real score.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil

import numpy as np

import agents
import envs
from agents.base import Resign, Resigner, resignation
from agents.openings import random_opening
from envs.core import kernel as C
from envs.core.specialise import hooks
from tournaments.referee.play import play_game
from tournaments.referee.records import game_sgf


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openings", type=int, default=8)
    parser.add_argument("--first", type=int, default=0, help="the first opening's number (to split a run)")
    parser.add_argument("--agent", default="mcts:simulations=200")
    parser.add_argument("--level", type=int, default=10, help="GNU Go's level")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument(
        "--gnugo-seed",
        type=int,
        default=1,
        help="GNU Go's random seed: without one it seeds from the clock, and a run cannot be repeated",
    )
    parser.add_argument("--out", help="append the JSON lines to this file too")
    parser.add_argument("--sgf", metavar="DIR", help="write each game's record there (opening<K>-resign-<on|off>.sgf)")
    parser.add_argument(
        "--resign",
        choices=["both", "off", "on"],
        default="both",
        help="play each opening with resignation off, on or both",
    )
    args = parser.parse_args(argv)
    gnugo_path = shutil.which("gnugo") or "/usr/games/gnugo"
    command = [
        gnugo_path,
        "--mode",
        "gtp",
        "--level",
        str(args.level),
        "--chinese-rules",
        "--capture-all-dead",
        "--positional-superko",
        "--seed",
        str(args.gnugo_seed),
    ]
    game = envs.make_game("go", size=args.size, komi=7.5)
    owners = np.empty(args.size * args.size, dtype=np.int64)
    if args.sgf:
        os.makedirs(args.sgf, exist_ok=True)
    out = open(args.out, "a") if args.out else None
    try:
        for k in range(args.first, args.first + args.openings):
            opening = random_opening(game, np.random.default_rng(k), 2, 2)
            seat = k % 2
            for resign in {"both": (False, True), "off": (False,), "on": (True,)}[args.resign]:
                bot = agents.make(args.agent, seed=k)
                values = _record_values(bot)
                # a GNU Go started for each game: its seed then makes each game's moves the same
                # in any run, whichever games its process played before
                gnugo = agents.make("gtp", command=command, move_time=120)
                try:
                    outcome = play_game(
                        game, [bot, gnugo] if seat == 0 else [gnugo, bot], opening=opening, resign=resign
                    )
                finally:
                    gnugo.close()
                hooks(game.spec).owners(outcome.state, game.kernel_params, owners)
                lead = game.score(outcome.state)
                line = json.dumps(
                    {
                        "opening": k,
                        "resign": resign,
                        "mcts_seat": seat,
                        "won": outcome.winner == seat,
                        "reason": outcome.reason,
                        "plies": len(outcome.moves),
                        "margin": lead if seat == 0 else -lead,
                        "mcts_points": int((owners == seat + 1).sum()),
                        "seconds": round(outcome.seconds, 1),
                        "resign_ply": None if resign else _resign_ply(game, bot, values),
                        "score_ply": next((int(s[C.H_PLY]) for s, _, komi in values if komi is not None), None),
                        "score_moves": sum(komi is not None for _, _, komi in values),
                    }
                )
                print(line, flush=True)
                if args.sgf:
                    names = [args.agent, f"gnugo-{args.level}"]
                    name = f"opening{k}-resign-{'on' if resign else 'off'}.sgf"
                    with open(os.path.join(args.sgf, name), "wb") as f:
                        f.write(game_sgf(game, outcome, names[seat], names[1 - seat], index=k))
                if out:
                    out.write(line + "\n")
                    out.flush()
    finally:
        if out:
            out.close()
    return 0


def _record_values(bot) -> list:
    """A list that fills with ``(position, root win rate, komi searched)`` for each of ``bot``'s
    moves (its ``last_stats`` ``value``, NaN where no search ran, one legal move; and ``komi``,
    not None where the lost game was searched for its score under a komi of its own)."""
    values = []
    act = bot.act

    def recorded(game, state):
        action = act(game, state)
        stats = bot.last_stats
        values.append((state.copy(), float(stats.get("value", float("nan"))), stats.get("komi")))
        return action

    bot.act = recorded
    return values


def _resign_ply(game, bot, values):
    """The ply at which ``bot`` would have resigned this game with resignation on, by its own rule
    (``agents.base.Resigner`` fed its root win rates; a move without a search is not judged), or
    None. The moves before it are the ones a game with resignation on plays: the rule only ends a
    game."""
    if not getattr(bot, "resign", 0):
        return None
    rule = Resigner(bot.resign_moves)
    with resignation(True):
        for state, value, _ in values:
            if math.isnan(value):
                continue
            try:
                rule.judge(game, state, value < bot.resign, "")
            except Resign:
                return int(state[C.H_PLY])
    return None


if __name__ == "__main__":
    raise SystemExit(main())
