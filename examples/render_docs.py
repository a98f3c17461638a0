"""Write the per-game docs pages ``docs/games/<game>.md`` and their pictures in ``docs/games/img/``
for every registered game, and the games table of ``README.md`` (between its ``games-table``
markers) from the registry.

    python examples/render_docs.py            # all registered games
    python examples/render_docs.py --games go  # some of them

A page is the env usage, the picture, and the Action Space / Observation Space / Rewards /
Episode End / Arguments sections copied from the game module's docstring (their single source).
Each game plays a fixed number of seeded random plies from the start (Calculation: a seeded deal)
and is drawn with ``envs.render.rgb``, the same function ``render_mode="rgb_array"`` uses, so the
docs always show what the envs return. Re-run it after changing the renderer.
"""

import argparse
import re
import sys
from pathlib import Path

import numpy as np

import envs
from envs import render

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "games"
OUT = DOCS / "img"
MARKERS = ("<!-- games-table: written by examples/render_docs.py from the game registry -->", "<!-- /games-table -->")
SECTIONS = ("Description", "Action Space", "Observation Space", "Rewards", "Episode End", "Arguments")


def mid_game(name, params, plies, seed=7):
    """The position after ``plies`` seeded random plies, and the position one ply earlier."""
    game = envs.make_game(name, **params)
    rng = np.random.default_rng(seed)
    state = previous = game.initial_state(seed=seed)
    for _ in range(plies):
        legal = game.legal_actions(state)
        if len(legal) == 0:
            break
        previous, state = state, game.apply(state, int(rng.choice(legal)))
    return game, state, previous


def page(game, title):
    """The markdown page of one game: usage, picture, and the docstring sections."""
    env_id, module = game.spec.gym_id, game.spec.pettingzoo
    doc = sys.modules[type(game).__module__].__doc__
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2])))
    usage = (
        f'env = gymnasium.make("{env_id}", render_mode="rgb_array")   # opponent="random", agent_seat=0\n'
        f"from envs.pettingzoo import {module}; aec = {module}.env()"
    )
    lines = [
        f"# {title}",
        "",
        "```python",
        "import gymnasium, envs",
        usage,
        "```",
        "",
        f"![{game.name} mid-game](img/{game.name}.png)",
        "",
        "Rendered by `examples/render_docs.py` with `envs.render.rgb` (the env's `rgb_array` frame); "
        "the red mark is the last move.",
        "",
    ]
    for name in SECTIONS:
        lines += [f"## {name}", "", sections[name], ""]
    lines += [
        "## Environment conventions",
        "",
        "Gymnasium: reward 0 until the end, then the learner's return; an illegal action ends the episode "
        'with -1 and `info["illegal_action"] = True`; `info["action_mask"]` is int8. '
        'PettingZoo: observation `{"observation", "action_mask"}`, rewards at the end; an illegal move '
        "ends the game with -1 for its player, as PettingZoo classic's `TerminateIllegalWrapper` does. "
        "See `envs/gym_env.py` and `envs/pz_env.py`.",
        "",
    ]
    return "\n".join(lines)


def plies_for(game) -> int:
    """Random plies before the picture: about a third of the board filled (a fifth of the cap
    for games whose actions are not placements), enough to look like a game in progress."""
    if game.spec.placement:
        return game.num_actions // 3
    return min(40, game.max_moves // 5)


def write_readme_table():
    readme = ROOT / "README.md"
    text = readme.read_text()
    start, end = text.index(MARKERS[0]) + len(MARKERS[0]), text.index(MARKERS[1])
    readme.write_text(text[:start] + "\n" + envs.registry.games_table() + text[end:])
    print(f"wrote the games table of {readme}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=envs.names(), default=list(envs.names()))
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    write_readme_table()
    for name in args.games:
        game = envs.make_game(name)
        game, state, previous = mid_game(name, {}, plies_for(game))
        path = OUT / f"{name}.png"
        path.write_bytes(render.png_bytes(render.rgb(game, state, previous)))
        title = doc_title(game)
        (DOCS / f"{name}.md").write_text(page(game, title))
        print(f"wrote {path} and {name}.md")


def doc_title(game):
    first = sys.modules[type(game).__module__].__doc__.strip().splitlines()[0]
    return first.rstrip(".")


if __name__ == "__main__":
    main()
