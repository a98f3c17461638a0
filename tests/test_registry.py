"""The game registry: one declaration per game, everything else derived from it, and generic
compiled code specialised per game (a process compiles only the games it uses)."""

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest

import agents
import envs
from envs import registry
from envs.core.specialise import _digest

ROOT = Path(__file__).resolve().parent.parent


def test_unknown_game_is_a_typed_error_listing_the_registered_games():
    with pytest.raises(envs.ParameterError) as info:
        envs.make_game("chess")
    message = str(info.value)
    assert "'chess'" in message and all(name in message for name in envs.names())


def test_every_list_of_games_derives_from_the_registry(capsys):
    names = envs.names()
    assert tuple(envs.GAMES) == names
    assert set(envs.gym_ids().values()) == set(names)
    assert all(env_id in gymnasium.registry for env_id in envs.gym_ids())
    import envs.pettingzoo as pz

    assert sorted(pz.__all__) == sorted(s.pettingzoo for s in envs.specs() if s.pettingzoo is not None)
    from tournaments import cli

    with pytest.raises(SystemExit):  # the CLI's --game choices are the registry's names
        cli.main(["play", "--game", "chess"])
    err = capsys.readouterr().err
    assert all(repr(name) in err for name in names)


def test_readme_games_table_is_the_registrys():
    readme = (ROOT / "README.md").read_text()
    assert registry.games_table() in readme, "re-run examples/render_docs.py after changing a GameSpec"


def test_parameters_are_validated_from_the_schema():
    with pytest.raises(envs.ParameterError, match=r"size=7: expected an even integer from 6 to 16"):
        envs.make_game("othello", size=7)
    with pytest.raises(envs.ParameterError, match=r"superko='none'"):
        envs.make_game("go", superko="none")
    with pytest.raises(envs.ParameterError, match=r"komi='7.5': expected a number"):
        envs.make_game("go", komi="7.5")
    with pytest.raises(envs.ParameterError, match="unknown parameter 'board'"):
        envs.make_game("gomoku", board=9)
    assert envs.make_game("go", size=7, max_moves=None).max_moves == 98


def test_a_spec_is_checked_when_it_is_declared():
    go = envs.spec("go")
    with pytest.raises(envs.ParameterError, match="lower-case"):
        envs.GameSpec(name="Go Nine", title="x", game=go.game, kernel=go.kernel, notation=go.notation)
    with pytest.raises(envs.ParameterError, match="lacks init, legal_actions, is_legal, apply, encode"):
        envs.GameSpec(name="nogame", title="x", game=go.game, kernel=envs.go.notation, notation=go.notation)
    with pytest.raises(envs.ParameterError, match="already registered"):
        envs.register(envs.GameSpec(name="go", title="Go", game=go.game, kernel=go.kernel, notation=go.notation))
    assert envs.spec("go") is go


def test_kernel_edits_change_the_cache_name_of_generic_code(tmp_path, monkeypatch):
    """numba checks only the cached function's own file; the hash of the hooks' source files in
    the per-game name is what keeps generic code from loading a stale copy of a kernel."""
    module_dir = tmp_path / "edited_game"
    module_dir.mkdir()
    (module_dir / "__init__.py").write_text("")
    kernel = module_dir / "_kernel.py"
    kernel.write_text("from numba import njit\n\n@njit(cache=True)\ndef apply(s, p, a):\n    s[0] = a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("edited_game._kernel")
    before = _digest([module])
    kernel.write_text(kernel.read_text().replace("s[0] = a", "s[0] = a + 1"))
    assert _digest([module]) != before
    assert _digest([envs.spec("go").kernel]) != _digest([envs.spec("othello").kernel])


def test_a_process_compiles_only_the_game_it_uses(tmp_path):
    """With an empty cache, using one game's generic code (legal moves, playouts, MCTS, alpha-beta)
    compiles that game alone: no cache file of another game's kernel or specialisation appears."""
    code = (
        "import envs, agents\n"
        "g = envs.make_game('gomoku', size=7)\n"
        "s = g.initial_state()\n"
        "g.random_playouts(2, seed=0)\n"
        "agents.make('mcts:simulations=20', seed=0).act(g, s)\n"
        "agents.make('alphabeta:depth=1', seed=0).act(g, s)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT, timeout=600)
    files = [p.name for p in tmp_path.rglob("*.nbi")]
    assert any("__gomoku_" in f for f in files) and any("gomoku" in str(p) for p in tmp_path.rglob("*.nbi"))
    others = [n for n in envs.names() if n != "gomoku"]
    leaked = [str(p) for p in tmp_path.rglob("*.nb*") if any(f"__{n}_" in p.name or f"/{n}/" in str(p) for n in others)]
    assert not leaked, leaked


GAME_NAMES = set(envs.names())


@pytest.mark.parametrize("package", ["agents", "tournaments"])
def test_generic_packages_never_test_a_games_name(package):
    """Game knowledge lives with the game: no comparison in agents/ or tournaments/ involves a
    registered game's name (``game.name == "go"``, ``name in ("go", "othello")``)."""
    offenders = []
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            for operand in [node.left, *node.comparators]:
                values = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
                if any(isinstance(v, ast.Constant) and v.value in GAME_NAMES for v in values):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def test_an_edited_kernel_is_never_run_from_a_stale_generic_cache(tmp_path):
    """Two processes on one numba cache: the second runs generic compiled code (random playouts)
    of a game whose kernel was edited in between, and must play by the edited rules."""
    import shutil

    shutil.copytree(ROOT / "tests" / "connect_four", tmp_path / "c4edit", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import envs, c4edit\n"
        "envs.register(c4edit.SPEC)\n"
        "print(sorted(set(envs.make_game('connect_four').random_playouts(300, seed=0)['lengths'].tolist())))\n"
    )
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
    }

    def lengths():
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
        ).stdout
        return ast.literal_eval(out.strip().splitlines()[-1])

    assert min(lengths()) < 42  # lines win before the board is full
    kernel = tmp_path / "c4edit" / "_kernel.py"
    kernel.write_text(kernel.read_text().replace("    if wins_at(s, p, r, a):\n", "    if False:\n"))
    assert lengths() == [42]  # no line wins any more: every game fills the 7 x 6 board


def test_cli_lists_the_registered_games_and_the_agents_that_play_one(capsys):
    from tournaments import cli

    assert cli.main(["games"]) == 0
    out = capsys.readouterr().out
    for spec in envs.specs():
        assert f"{spec.name}: {spec.title}" in out
        assert all(f"-p {p.name}=" in out for p in spec.params)
    assert cli.main(["agents", "--game", "calculation"]) == 0
    names = {line.split(":")[0] for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")}
    assert {"random", "greedy", "mcts"} <= names and not names & {"alphabeta", "minimax", "gtp", "alphazero"}
    assert cli.main(["agents", "--game", "go", "-p", "size=7"]) == 0
    out = capsys.readouterr().out  # the values that apply to Go, not the signature's 0s and Nones
    assert "alphabeta:depth=4,time=0.0" in out and "mcts:simulations=1000," in out and "playout='pattern'" in out
    names = {line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")}
    assert {"ppo", "alphazero"} <= names  # PPO has 7x7 Go weights, AlphaZero Go weights for every size
    ppo = out[out.index("ppo:") :].splitlines()
    torch_here = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("sb3_contrib") is not None
    # without the learn extra it is still listed, with what it lacks (not hidden as if it did not play Go)
    assert any(line.startswith("    not on this machine: ") for line in ppo[1:3]) != torch_here, ppo


def test_cli_lists_an_agent_that_lacks_an_extra_with_what_it_lacks(capsys, monkeypatch):
    from tournaments import cli

    def lacking(self, game):
        raise agents.AgentError("needs the moon: pip install moon")

    monkeypatch.setattr(agents.REGISTRY["minimax"], "check_ready", lacking)
    assert cli.main(["agents", "--game", "othello"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("minimax:"))
    assert lines[at + 1] == "    not on this machine: needs the moon: pip install moon"
