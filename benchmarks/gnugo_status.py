"""When a lost Go game's groups died: GNU Go's status of the stones along a recorded game.

    python benchmarks/gnugo_status.py games/opening2-resign-off.sgf            # every 16 plies
    python benchmarks/gnugo_status.py games/*.sgf --every 40

Every ``--every`` plies (and at the end), how many of each colour's stones GNU Go calls alive
(``final_status_list alive``: its own estimate, which in an unfinished game reads life and death
the way its move generation does) and how many passes each side has played so far. A game whose
loser has no stone alive from the middle game on was lost there; one whose loser's living stones
vanish at the end, while it passes, was given away (docs/strength.md, "Go: losing like an
engine"). Records from ``benchmarks/resign_gnugo.py --sgf DIR`` fit; setup stones are refused.
"""

from __future__ import annotations

import argparse
import shutil

from sgfmill import common, sgf

from agents.gtp.engine import GTPEngine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", metavar="SGF")
    parser.add_argument("--every", type=int, default=16, help="plies between two status reads (default 16)")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every {args.every}: expected at least 1")
    command = [shutil.which("gnugo") or "/usr/games/gnugo", "--mode", "gtp", "--chinese-rules"]
    for path in args.records:
        with open(path, "rb") as f:
            record = sgf.Sgf_game.from_bytes(f.read())
        if record.get_root().has_setup_stones():
            parser.error(f"{path}: has setup stones (AB/AW); expected a game played from an empty board")
        root = record.get_root()
        names = {c: root.get(p) if root.has_property(p) else c for c, p in (("b", "PB"), ("w", "PW"))}
        result = root.get("RE") if root.has_property("RE") else "?"
        print(f"{path}: Black {names['b']}, White {names['w']}, {result}")
        print("  ply  black alive  white alive  passes b/w")
        gnugo = GTPEngine(command, timeout=120)
        try:
            gnugo.send(f"boardsize {record.get_size()}")
            gnugo.send("clear_board")
            gnugo.send(f"komi {record.get_komi()}")
            moves = [node.get_move() for node in record.get_main_sequence()[1:] if node.get_move()[0]]
            passes = {"b": 0, "w": 0}
            for ply, (colour, move) in enumerate(moves, 1):
                gnugo.send(f"play {colour} {common.format_vertex(move)}")
                passes[colour] += move is None
                if ply % args.every == 0 or ply == len(moves):
                    alive = set(gnugo.send("final_status_list alive").split())
                    counts = []
                    for name in ("black", "white"):
                        stones = set(gnugo.send(f"list_stones {name}").split())
                        counts.append(f"{len(alive & stones):>4} of {len(stones):<4}")
                    print(f"  {ply:>3}  {counts[0]}  {counts[1]}  {passes['b']}/{passes['w']}")
        finally:
            gnugo.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
