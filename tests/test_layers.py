"""The packages import in one direction: ``envs.core`` <- ``envs`` <- ``agents`` <- ``tournaments``.

Games know nothing of players, players nothing of referees, so each layer can be used (and
tested, and rewritten) without the ones above it. Two checks: importing every module of a layer
in a fresh interpreter loads nothing from a higher layer, and no import statement anywhere in
``envs/`` or ``agents/``, not even one deferred into a function, names a higher layer, except
the one documented late binding in ``envs.gym_env.resolve_agent`` (a spec string becomes an
agent only through the agent registry).
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HIGHER = {"envs": {"agents", "tournaments"}, "agents": {"tournaments"}}
CORE = ROOT / "envs" / "core"
ALLOWED = {("envs/gym_env.py", "resolve_agent", "agents")}

IMPORT_ALL = """
import importlib, json, pkgutil, sys
package = importlib.import_module({package!r})
skipped = []
for info in pkgutil.walk_packages(package.__path__, {package!r} + "."):
    try:
        importlib.import_module(info.name)
    except ModuleNotFoundError as e:  # an optional third-party dependency (pettingzoo, torch...)
        if e.name.split(".")[0] in ("envs", "agents", "tournaments"):
            raise
        skipped.append(info.name)
print(json.dumps({{"loaded": sorted({{m.split(".")[0] for m in sys.modules}}), "skipped": skipped}}))
"""


@pytest.mark.parametrize("package", sorted(HIGHER))
def test_importing_a_layer_loads_no_higher_layer(package):
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL.format(package=package)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert package in report["loaded"]
    assert HIGHER[package] & set(report["loaded"]) == set(), f"{package} imports a higher layer"


def _imports(path: Path):
    """(enclosing function or None, imported module name) for every import in ``path``, deferred
    ones included, with ``importlib.import_module("...")``/``__import__`` of a constant too."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Import):
                found.extend((function, alias.name) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0:
                found.append((function, child.module))
            elif (
                isinstance(child, ast.Call)
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
                and getattr(child.func, "attr", getattr(child.func, "id", None)) in ("import_module", "__import__")
            ):
                found.append((function, child.args[0].value))
            visit(child, inner)

    visit(tree, None)
    return found


def test_no_import_statement_names_a_higher_layer():
    violations = set()
    for package, higher in HIGHER.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for function, module in _imports(path):
                if module.split(".")[0] in higher:
                    violations.add((rel, function, module))
    assert violations == ALLOWED


def test_the_static_check_sees_deferred_and_dynamic_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "import os\nfrom . import x\n"
        "def f():\n    import tournaments.referee.play\n"
        "    return importlib.import_module('agents')\n"
        "class C:\n    def g(self):\n        from tournaments import cli\n"
    )
    assert _imports(source) == [(None, "os"), ("f", "tournaments.referee.play"), ("f", "agents"), ("g", "tournaments")]


def test_the_core_imports_nothing_of_the_layers_above_it():
    """``envs.core`` is what every layer may import: it must import none of them, not even the
    rest of ``envs``, or the layers would point both ways again."""
    for path in sorted(CORE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1, f"{path.name} imports {'.' * node.level}{node.module}: outside envs.core"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                for name in names:
                    assert name.split(".")[0] not in ("envs", "agents", "tournaments"), f"{path.name} imports {name}"


def test_agents_and_tournaments_import_only_public_modules_of_envs():
    """The layers above reach the games through public modules (``envs.core.*``, ``envs.game``,
    ``envs.policies``...), never through an underscore module of ``envs``: what is private may
    change without notice, so nothing outside ``envs`` may depend on it."""
    private = set()
    for package in ("agents", "tournaments"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                elif isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                else:
                    continue
                for module in modules:
                    if module.split(".")[0] == "envs" and any(part.startswith("_") for part in module.split(".")):
                        private.add((path.relative_to(ROOT).as_posix(), module))
    assert private == set(), sorted(private)
