"""The packages import in one direction: ``envs.core`` <- ``envs`` <- ``agents`` <- ``tournaments``.

Games know nothing of players, players nothing of referees, so each layer can be used (and
tested, and rewritten) without the ones above it. Two checks: importing every module of a layer
in a fresh interpreter loads nothing from a higher layer, and no import statement anywhere in
``envs/`` or ``agents/``, not even one deferred into a function, names a higher layer, except
the one documented late binding in ``envs.gym_env.resolve_agent`` (a spec string becomes an
agent only through the agent registry).

Inside ``tournaments`` its parts import one way too (analysis <- referee <- studies <- cli, and
nothing imports the command line); no module imports inside a function except an optional extra
(or a listed exception); and the module-level imports of all three packages form no cycle.
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


# -- inside tournaments: the referee's house --------------------------------------------------------
# The subpackages of ``tournaments`` import one way, as the packages do: the analysis (numbers
# only: ratings, statistics, the SPRT) <- the referee (games real and simulated, their records,
# trust and report) <- the studies (research built on the referee) <- the command line, which
# nothing imports. ``tournaments/__init__.py`` gathers the public names of all but the CLI.
HOUSE = ("analysis", "referee", "studies", "cli")

# Optional extras a module may import late, inside the function that needs them, so that the
# package imports without them (pyproject.toml's optional dependencies, and their parts).
EXTRAS = {"torch", "ray", "matplotlib", "stable_baselines3", "sb3_contrib", "open_spiel", "pygame", "playwright"}
# Imports inside a function that are not of an extra, each with its reason: kept late to spare an
# extra or ``import envs``'s time. A new one anywhere fails the test, and so does an entry whose
# import is gone.
DEFERRED = {
    # the one late binding between the layers (see the module docstring)
    ("envs/gym_env.py", "resolve_agent", "agents"),
    # network imports torch at its top: the optional extra, loaded only when a net is built
    ("agents/learned/alphazero.py", "net_for", "."),
    # train imports network, which imports torch at its top: loaded only on the way to an error
    ("agents/learned/ppo_training.py", "_refuse", ".train"),
    # envs.sb3 imports stable_baselines3 (and so torch) at its top: loaded only to train
    ("agents/learned/ppo_training.py", "_vector_env", "envs.sb3"),
    # pz_env imports PettingZoo (~17 ms, 3% of ``import envs``), which only the AEC envs need
    ("envs/framework_ids.py", "_aec", "."),
    # pettingzoo.test imports pytest and, where installed, pygame, with deprecation warnings
    # (~65 ms): only this check needs it, not ``import envs.testing``
    ("envs/testing/framework_checks.py", "pettingzoo_check", "pettingzoo.test"),
}


def _module_name(path: Path) -> tuple[str, bool]:
    """(dotted name, whether it is a package's ``__init__``) of a file under ROOT."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _resolved(path: Path):
    """(enclosing function or None, under ``if TYPE_CHECKING``, absolute module) for every import in
    ``path``; ``from package import name`` names the submodule when ``name`` is one."""
    name, is_package = _module_name(path)
    package = name if is_package else name.rpartition(".")[0]
    found = []

    def visit(node, function, typing_only):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            typing = typing_only or (
                isinstance(child, ast.If)
                and getattr(child.test, "id", getattr(child.test, "attr", "")) == "TYPE_CHECKING"
            )
            if isinstance(child, ast.Import):
                found.extend((function, typing_only, alias.name) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module
                for alias in child.names:
                    sub = f"{module}.{alias.name}"
                    found.append((function, typing_only, sub if _is_module(sub) else module))
            visit(child, inner, typing)

    visit(ast.parse(path.read_text(), filename=str(path)), None, False)
    return found


def _house_part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "tournaments" and len(parts) > 1 and parts[1] in HOUSE else None


def test_the_parts_of_tournaments_import_one_way():
    wrong = []
    for path in sorted((ROOT / "tournaments").rglob("*.py")):
        own = _house_part(_module_name(path)[0])
        for _, _, module in _resolved(path):
            part = _house_part(module)
            if part is None:
                continue
            if own is None:  # tournaments/__init__.py: everything but the command line
                allowed = part != "cli"
            else:
                allowed = HOUSE.index(part) <= HOUSE.index(own)
            if not allowed:
                wrong.append((path.relative_to(ROOT).as_posix(), module))
    assert wrong == [], wrong


def test_nothing_imports_the_command_line():
    importers = set()
    for package in ("envs", "agents", "tournaments"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if _house_part(_module_name(path)[0]) == "cli":
                continue
            importers |= {
                path.relative_to(ROOT).as_posix() for _, _, module in _resolved(path) if _house_part(module) == "cli"
            }
    assert importers == set()


def test_no_import_inside_a_function_but_of_an_optional_extra():
    """Imports stand at the top of a module, where a reader sees what it depends on and an import
    cycle shows at once; only an optional extra is imported late, by the function that needs it,
    so that the package imports without it."""
    late = set()
    for package in ("envs", "agents", "tournaments"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for function, module in _imports(path):
                if function is not None and module.split(".")[0] not in EXTRAS:
                    late.add((rel, function, module))
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.ImportFrom) and inner.level:
                            late.add((rel, node.name, "." * inner.level + (inner.module or "")))
    assert late == DEFERRED, (sorted(late - DEFERRED), sorted(DEFERRED - late))


def test_the_module_level_imports_have_no_cycle():
    """Importing any module of the packages never comes back to a module still being imported:
    the graph of module-level imports (``if TYPE_CHECKING`` ones left out: they never run) is
    acyclic, so no module relies on the order in which Python happens to import the others."""
    graph: dict[str, set[str]] = {}
    for package in ("envs", "agents", "tournaments"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = _module_name(path)[0]
            graph[name] = {
                module
                for function, typing_only, module in _resolved(path)
                if function is None and not typing_only and module.split(".")[0] in ("envs", "agents", "tournaments")
            }
    cycle = _a_cycle(graph)
    assert cycle is None, " -> ".join(cycle or ())


def _a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a path that comes back to its start), or None when it is acyclic."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_passes_a_tree():
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _a_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
