"""The version has one source, pyproject.toml, as the installed distribution's metadata records
it: ``envs.__version__`` reads it for every layer (the GTP server's ``version`` answers it), and a
source tree that was never installed says its version is unknown instead of guessing one."""

import os
import subprocess
import sys
from importlib import metadata

import pytest

import envs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_envs_version_is_the_installed_distributions():
    assert envs.__version__ == metadata.version("arbiter-games")


def test_a_source_tree_never_installed_has_an_unknown_version():
    script = (
        "from importlib import metadata\n"
        "real = metadata.version\n"
        "def version(name):  # as if arbiter-games had never been installed\n"
        "    if name == 'arbiter-games':\n"
        "        raise metadata.PackageNotFoundError(name)\n"
        "    return real(name)\n"
        "metadata.version = version\n"
        "import envs\n"
        "print(envs.__version__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0+unknown"  # PEP 440: below every release


def test_the_command_line_says_its_version(capsys):
    from tournaments import cli

    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"arbiter {metadata.version('arbiter-games')}"
