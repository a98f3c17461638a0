"""``arbiter games``: the registered games with their parameters."""

from __future__ import annotations

import envs


def add(sub):
    sub.add_parser("games", help="list the registered games: parameters, values, defaults, rule presets, ids")


def run(args) -> int:
    for spec in envs.specs():
        players = "one player" if spec.num_players == 1 else "two players"
        print(f"{spec.name}: {spec.title}, {players}; {spec.summary}")
        for p in spec.params:
            print(f"    -p {p.name}=...   {p.describe()}, default {p.default!r}: {p.doc}")
        ids = ", ".join(i for i in (spec.gym_id, spec.pettingzoo and f"envs.pettingzoo.{spec.pettingzoo}") if i)
        print(f"    rules: {', '.join(spec.presets)}" + (f"; {ids}" if ids else ""))
    return 0
