"""Joining or starting Ray, shared by every part of Arbiter that runs on it.

Tournaments (``executor="ray"``), the championship study and AlphaZero self-play all start the
same way: import Ray with an install hint when the ``distributed`` extra is missing, then join
the cluster at ``address`` or start a local one. It lives in the agents layer, the lowest that
uses Ray (``agents.learned.distributed``), so that the tournaments above can share it
(``tournaments.referee.ray_executor``, ``tournaments.referee.simulation.distributed``); the
shared core below holds no start-up of a distributed runtime.

``ray.init`` given a host that does not answer waits for minutes inside Ray before it fails, so
a ``host:port`` address is first tried with a plain TCP connection: nothing listening there is a
clear error in seconds, naming the address.
"""

from __future__ import annotations

import os
import socket

INSTALL_HINT = 'executor="ray" needs Ray: pip install "arbiter-games[distributed]"'
REACH_SECONDS = 5.0  # how long the TCP check of a host:port address waits


def require_ray(error=ImportError):
    """The ``ray`` module, or ``error`` (the caller's type) with the install hint."""
    try:
        import ray
    except ImportError as exc:
        raise error(INSTALL_HINT) from exc
    return ray


def _host_port(address: str):
    """(host, port) of a ``host:port`` or ``ray://host:port`` address; None for "auto" etc."""
    text = address.removeprefix("ray://")
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def connect(address: str | None, num_cpus: int | None, error=ConnectionError) -> bool:
    """Join the Ray cluster at ``address`` (``"auto"``, ``"host:port"``, ``"ray://host:port"``)
    or, with None, start a local Ray of ``num_cpus`` CPUs (default: this machine's). Nothing
    happens if Ray is already initialised. Returns whether this call started the connection
    (so the caller knows to shut it down). Raises ``error`` naming the address when no cluster
    answers there."""
    ray = require_ray(error)
    if ray.is_initialized():
        return False
    options = {"include_dashboard": False, "log_to_driver": False}
    if address is None:
        options["num_cpus"] = num_cpus or os.cpu_count()
    elif (target := _host_port(address)) is not None:
        try:
            socket.create_connection(target, timeout=REACH_SECONDS).close()
        except OSError as exc:
            raise error(
                f"address={address!r}: no Ray cluster answers there ({exc.strerror or exc}); "
                "start its head with `ray start --head`, or leave the address out for a "
                "local Ray"
            ) from None
    try:
        ray.init(address=address, **options)
    except ConnectionError as exc:  # "auto" with no cluster running, say
        raise error(
            f"address={address!r}: no Ray cluster to join there ({exc}); start one with "
            "`ray start --head`, or leave the address out for a local Ray"
        ) from None
    return True


def lost(exc) -> bool:
    """Whether a Ray error means that the worker, actor or node running a task went away (killed,
    out of memory, its node gone), as opposed to the task's own code raising: the first is worth
    a retry on a fresh actor, the second is not. An actor whose ``__init__`` raised is not lost."""
    ray = require_ray()
    errors = ray.exceptions
    if isinstance(exc, errors.RayActorError):
        return not exc.actor_init_failed
    return isinstance(
        exc,
        (
            errors.WorkerCrashedError,
            errors.NodeDiedError,
            errors.OutOfMemoryError,
            errors.LocalRayletDiedError,
            errors.ObjectLostError,
        ),
    )


def release(actors, started: bool) -> None:
    """Kill ``actors`` (those already gone are skipped) and, if this process ``started`` the
    connection (``connect`` returned True), shut Ray down."""
    ray = require_ray()
    for actor in actors:
        try:
            ray.kill(actor)
        except Exception:  # noqa: BLE001 - an actor already gone needs no killing
            pass
    if started:
        ray.shutdown()
