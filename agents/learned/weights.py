"""Safe storage of learned weights: plain tensors plus a JSON sidecar that vouches for them.

    save("othello.pt", net.state_dict(), {"kind": "alphazero", "game": "othello", ...})
    tensors, meta = load("othello.pt")

``<name>.pt`` holds only a flat dict of tensors, written by ``torch.save`` and read back with
``torch.load(weights_only=True)``: torch's restricted unpickler, which builds tensors and plain
containers and refuses every other global, so a crafted file cannot run code. ``<name>.json``
records what is needed to rebuild and trust the net: the architecture, the observation encoding
version, the training command and time, evaluation results, and the SHA-256 of the ``.pt`` file.
A file whose hash does not match its sidecar (edited, truncated, swapped) is refused before it
is unpickled at all; a file the restricted unpickler rejects is refused too. Both raise
``WeightsError``, an ``AgentError``.

This module imports torch only inside ``save``/``load`` (``require_torch`` gives the install
hint), so agents can register without the ``learn`` extra.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..base import AgentError

FORMAT = "arbiter-weights-1"
INSTALL_HINT = 'pip install "arbiter-games[learn]"'
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"


class WeightsError(AgentError):
    """A weights file that is missing, tampered with, unsafe or made for something else."""


def require_torch():
    """Import torch (one thread unless the caller set otherwise) or raise with the install hint."""
    try:
        import torch
    except ImportError:
        raise AgentError(f"learned agents need PyTorch, which is not installed: {INSTALL_HINT}") from None
    return torch


def sidecar_path(path) -> Path:
    return Path(path).with_suffix(".json")


def sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def save(path, tensors: dict, meta: dict) -> Path:
    """Write ``tensors`` (name -> tensor) to ``path`` and ``meta`` plus the file hash to its sidecar.

    Both files are written to temporary names first and renamed, so an interrupted save never
    leaves a weights file next to a sidecar that does not describe it.
    """
    torch = require_torch()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    plain = {str(k): v.detach().cpu().contiguous() for k, v in tensors.items()}
    tmp = path.with_suffix(".pt.tmp")
    torch.save(plain, tmp)
    record = {"format": FORMAT, **meta, "sha256": sha256(tmp)}
    side = sidecar_path(path)
    side_tmp = side.with_suffix(".json.tmp")
    side_tmp.write_text(json.dumps(record, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)
    os.replace(side_tmp, side)
    return path


def read_meta(path) -> dict:
    """The sidecar of ``path`` (without checking the weights themselves)."""
    side = sidecar_path(path)
    if not _is_file(side):
        raise WeightsError(f"weights {str(path)!r} have no sidecar {side.name!r}: refusing to load them")
    try:
        meta = json.loads(side.read_text())
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise WeightsError(f"sidecar {str(side)!r} is not valid JSON: {_first_line(exc)}") from None
    except OSError as exc:
        raise WeightsError(f"sidecar {str(side)!r} cannot be read: {_first_line(exc)}") from None
    if not isinstance(meta, dict):
        raise WeightsError(f"sidecar {str(side)!r}: expected a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT:
        raise WeightsError(f"sidecar {str(side)!r}: expected format {FORMAT!r}, got {meta.get('format')!r}")
    return meta


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; False for a name no file can have (a NUL byte in it: pathlib
    raises ValueError there rather than answer)."""
    try:
        return path.is_file()
    except ValueError:
        return False


def _first_line(exc: BaseException, limit: int = 120) -> str:
    """The exception's type and the first line of its message, cut at ``limit`` characters
    (of torch's restricted unpickler's page of advice, the line that says what it refused)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    marker = next((i for i, line in enumerate(lines) if line.endswith("WeightsUnpickler error:")), None)
    if marker is not None and marker + 1 < len(lines):
        lines = lines[marker + 1 :]
    line = lines[0] if lines else ""
    line = line if len(line) <= limit else line[: limit - 3] + "..."
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


def load(path, kind: str | None = None):
    """Return ``(tensors, meta)`` from ``path`` after checking its hash and loading it safely."""
    torch = require_torch()
    path = Path(path)
    if not _is_file(path):
        what = "is a directory, not a weights file" if path.is_dir() else "does not exist"
        raise WeightsError(f"weights file {str(path)!r} {what}")
    meta = read_meta(path)
    if kind is not None and meta.get("kind") != kind:
        raise WeightsError(f"weights {str(path)!r} are for a {meta.get('kind')!r} agent, not {kind!r}")
    try:
        digest = sha256(path)
    except OSError as exc:
        raise WeightsError(f"weights {str(path)!r} cannot be read: {_first_line(exc)}") from None
    if digest != meta.get("sha256"):
        raise WeightsError(
            f"weights {str(path)!r} do not match the SHA-256 in their sidecar: the file was modified "
            "or replaced; refusing to load it"
        )
    try:
        tensors = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - see below
        # Whatever a file that is not torch's format makes the restricted unpickler raise: it
        # lets KeyError, IndexError and others out of its opcode tables (a text file: KeyError 101),
        # not only UnpicklingError. Nothing was built from the file, so every failure is the file's.
        raise WeightsError(
            f"weights {str(path)!r} are not plain tensors; refusing to load them ({_first_line(exc)})"
        ) from None
    if (
        not isinstance(tensors, dict)
        or not all(isinstance(k, str) for k in tensors)
        or not all(isinstance(v, torch.Tensor) for v in tensors.values())
    ):
        raise WeightsError(f"weights {str(path)!r}: expected a dict of tensors named by strings")
    for name, tensor in tensors.items():  # NaN or Inf weights make every output NaN: no move to choose
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise WeightsError(f"weights {str(path)!r}: tensor {name!r} holds NaN or infinite values; refusing them")
    return tensors, meta


def architecture(path, meta: dict) -> dict:
    """The sidecar's ``architecture`` entry, checked to be a dict of plain values: a sidecar
    edited into something else is a ``WeightsError`` naming the file, not a KeyError deep inside
    the network's constructor."""
    arch = meta.get("architecture")
    if not isinstance(arch, dict) or not all(isinstance(k, str) for k in arch):
        raise WeightsError(
            f"weights {str(path)!r}: the sidecar's 'architecture' is {arch!r}, expected a dict of network options"
        )
    return arch


def shipped(game_name: str, kind: str = "alphazero") -> Path:
    """Path of the weights shipped for ``game_name`` (``<kind>_<game>.pt`` in ``weights/``)."""
    path = WEIGHTS_DIR / f"{kind}_{game_name}.pt"
    if not path.is_file():
        have = sorted(p.stem for p in WEIGHTS_DIR.glob("*.pt")) if WEIGHTS_DIR.is_dir() else []
        raise WeightsError(f"no shipped {kind} weights for {game_name}: expected {path.name}; shipped: {have}")
    return path


def update_meta(path, **fields) -> dict:
    """Set top-level sidecar ``fields`` (e.g. ``evaluation=``) of verified weights at ``path``.

    The weights must still match their recorded hash, so an update never blesses a tampered file.
    """
    meta = read_meta(path)
    if sha256(path) != meta.get("sha256"):
        raise WeightsError(f"weights {str(path)!r} do not match the SHA-256 in their sidecar; not updating it")
    meta.update(fields)
    side = sidecar_path(path)
    tmp = side.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(meta, indent=2) + "\n")
    os.replace(tmp, side)
    return meta
