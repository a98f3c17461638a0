"""A cold start costs time, never a game: compiling counts against no setup limit and no clock.

A tournament is played twice in fresh processes sharing one numba cache directory, first empty
(every agent's code compiles during the run, far longer than the one-second ``setup_time``
given), then filled. Both runs must play every game, and play the same games.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = """
    import json, tournaments
    result = tournaments.round_robin(
        ["random", "greedy"], game="othello", size=6, games=2, seed=3, workers=1,
        setup_time=1.0, move_time=2.0, progress=False,
    )
    print(json.dumps([[g["black"], g["white"], g["result"], g["reason"], g["detail"], g["moves"]]
                      for g in result.games]))
    """


def _run(cache: Path) -> tuple[list, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(RUN)], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def test_a_cold_cache_plays_the_same_games_as_a_warm_one(tmp_path):
    cold, said = _run(tmp_path)
    warm, _ = _run(tmp_path)
    assert [g[3] for g in cold] == ["normal"] * 2, cold  # no forfeit: the compile was not timed
    assert cold == warm
    # the compile announced itself from the workers, through the parent
    assert "arbiter: compiling othello's numba code" in said


class _CompilesOnItsFirstMove:
    """Compiles a new numba function (as a search agent's first move on a cold cache does), then
    plays the first legal move."""

    name = "compiles"

    def __init__(self):
        self.compiled = False

    def act(self, game, state):
        if not self.compiled:
            from numba import njit

            def busy(n):
                total = 0.0
                for i in range(n):
                    total += (i % 7) * 0.5
                return total

            njit(busy)(10)  # a fresh function: numba compiles it now, for a tenth of a second or more
            self.compiled = True
        return int(game.legal_actions(state)[0])


def test_a_move_that_compiles_is_not_charged_the_compile():
    import agents
    import envs
    from tournaments.referee.play import play_game

    game = envs.make_game("othello", size=6)
    game.legal_actions(game.initial_state())  # the game's own code compiled (or loaded) first
    outcome = play_game(game, [_CompilesOnItsFirstMove(), agents.make("random", seed=1)], seed=0, move_time=0.05)
    assert outcome.reason == "normal", outcome.detail  # the compile took longer than move_time
