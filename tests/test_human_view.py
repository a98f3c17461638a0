"""``render_mode="human"``: a pygame window where one can be opened (as PettingZoo's classic envs
do), the text board on stdout otherwise."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygame", reason="the human window needs pygame (the test and bench extras have it)")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = """
import gymnasium, numpy as np, envs
env = gymnasium.make("Go-v0", size=5, render_mode="human")
obs, info = env.reset(seed=0)
obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
view = env.unwrapped._view
print("MODE", view.mode)
if view.mode == "window":
    import pygame
    frame = envs.render.rgb(env.unwrapped.game, env.unwrapped.state)
    print("SIZE", pygame.display.get_surface().get_size() == (frame.shape[1], frame.shape[0]))
env.close()
"""


def _run(extra_env):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env.update({"PYTHONPATH": str(ROOT), "PYGAME_HIDE_SUPPORT_PROMPT": "1", **extra_env})
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)


def test_a_window_where_a_display_exists():
    run = _run({"SDL_VIDEODRIVER": "dummy"})  # SDL's display-less driver stands in for a screen
    assert run.returncode == 0, run.stderr
    assert "MODE window" in run.stdout and "SIZE True" in run.stdout
    assert "to_move=" not in run.stdout  # no text board printed


def test_the_text_board_without_a_display():
    run = _run({})
    assert run.returncode == 0, run.stderr
    assert "MODE text" in run.stdout and "to_move=" in run.stdout
