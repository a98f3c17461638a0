"""Write the per-game docs pages ``docs/games/<game>.md`` and their pictures in ``docs/games/img/``.

    python examples/render_docs.py

A page is the env usage, the picture, and the Action Space / Observation Space / Rewards /
Episode End / Arguments sections copied from the game module's docstring (their single source).
Each game plays a fixed number of seeded random plies from the start (Calculation: a seeded deal)
and is drawn with ``envs.render.rgb``, the same function ``render_mode="rgb_array"`` uses, so the
docs always show what the envs return. Re-run it after changing the renderer.
"""

import re
import sys
from pathlib import Path

import numpy as np

import envs
from envs import render

POSITIONS = [("loa", {}, 24), ("othello", {}, 30), ("gomoku", {}, 40), ("go", {"size": 9}, 60), ("calculation", {}, 40)]
DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"
OUT = DOCS / "img"
ENV_IDS = {"loa": ("LOA-v0", "loa_v0"), "othello": ("Othello-v0", "othello_v0"), "gomoku": ("Gomoku-v0", "gomoku_v0"),
           "go": ("Go-v0", "go_v0"), "calculation": ("Calculation-v0", "calculation_v0")}
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
    env_id, module = ENV_IDS[game.name]
    doc = sys.modules[type(game).__module__].__doc__
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2])))
    usage = (f'env = gymnasium.make("{env_id}", render_mode="rgb_array")   # opponent="random", agent_seat=0\n'
             f"from envs.pettingzoo import {module}; aec = {module}.env()")
    lines = [f"# {title}", "", "```python", "import gymnasium, envs", usage, "```", "",
             f"![{game.name} mid-game](img/{game.name}.png)", "",
             "Rendered by `examples/render_docs.py` with `envs.render.rgb` (the env's `rgb_array` frame); "
             "the red mark is the last move.", ""]
    for name in SECTIONS:
        lines += [f"## {name}", "", sections[name], ""]
    lines += ["## Environment conventions", "",
              "Gymnasium: reward 0 until the end, then the learner's return; an illegal action ends the episode "
              "with -1 and `info[\"illegal_action\"] = True`; `info[\"action_mask\"]` is int8. "
              "PettingZoo: observation `{\"observation\", \"action_mask\"}`, rewards at the end, illegal moves "
              "handled by `TerminateIllegalWrapper`. See `envs/gym_env.py` and `envs/pz_env.py`.", ""]
    return "\n".join(lines)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, params, plies in POSITIONS:
        game, state, previous = mid_game(name, params, plies)
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
