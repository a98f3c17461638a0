"""Tampered-state fuzz: feed every game's public methods states that are not states, and its
framework envs actions that are not actions, and count what goes wrong.

    python benchmarks/fuzz_states.py                      # 10,000 tampered states per game
    python benchmarks/fuzz_states.py --games go --states 2000 --batch 500

Every registered game is fuzzed at its standard rules (``--games`` picks some). Each tampered
state is a valid position from a seeded random game with one or more cells changed (random bit
flips; extreme values 0, -1, 2**62, -2**63, +-10**12, a random int64, small values near the
cells' legal ranges; header cells drawn more often), or an object that is not a state array at
all (other dtypes, shapes, lists, None, read-only, strided or byte-swapped arrays, the state of
another configuration of the game with the same length, from ``envs.testing.variants``), or an
untouched position (so the accepted path runs too). Each goes through ``check_state``,
``legal_actions``, ``apply`` (a legal action if there is one, and a random, possibly out-of-range
one), ``is_terminal``, ``returns``, ``to_text`` (and ``from_text`` of it), ``observation`` for
every seat, and the other public methods.

States run in child processes, a batch per child, with a timeout per batch: a child that dies of
a signal (a segfault) or runs out of time counts the state it was on as a segfault or a hang, and
a new child resumes after it. Counted per game:

  segfaults     a child killed by a signal;
  hangs         a batch out of time;
  exceptions    anything other than a ``ValueError`` subclass (Arbiter's errors are ValueErrors);
  inconsistent  a state ``check_state`` accepts whose answers disagree: ``is_terminal`` against
                an empty ``legal_actions``, a legal action that ``apply`` refuses, or a state
                ``apply`` returns that ``check_state`` then refuses; or a false alarm: an
                untouched position (also as a read-only, strided or byte-swapped array) refused.

The goal is 0 / 0 / 0 / 0. ``--env-steps`` steps the Gymnasium env (half the steps losing an
illegal action, half raising ``IllegalActionError``), the PettingZoo AEC env (raw and wrapped as
``env()`` returns it) and the vector env with random, out-of-range and wrongly typed actions and
counts exceptions other than ValueError subclasses (``gymnasium``'s ``ResetNeeded`` after an
episode is expected and handled by resetting). Exit status 1 if any count is non-zero.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNTOUCHED = 0.04  # share of untouched positions
EXTREMES = (0, -1, 1, 2, 3, 2**62, -(2**63), 2**63 - 1, 10**12, -(10**12))


def registered_games() -> list:
    """The games to fuzz: every registered one (imported here, so ``--help`` stays quick)."""
    sys.path.insert(0, str(ROOT))
    import envs

    return list(envs.names())


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    games = registered_games()
    parser.add_argument(
        "--games", nargs="+", default=games, choices=games, help="games to fuzz (default: every registered game)"
    )
    parser.add_argument("--states", type=int, default=10_000, help="tampered states per game (default 10000)")
    parser.add_argument("--batch", type=int, default=2500, help="states per child process (default 2500)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per batch before it counts as a hang")
    parser.add_argument(
        "--env-steps", type=int, default=2000, help="steps per game through each framework env (0: skip the env fuzz)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    parser.add_argument("--json", type=Path, default=None, help="also write the counts to this JSON file")
    parser.add_argument("--child", nargs=4, metavar=("GAME", "START", "STOP", "PROGRESS"), help=argparse.SUPPRESS)
    parser.add_argument("--child-env", nargs=2, metavar=("GAME", "PROGRESS"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# -- the child: builds tampered states and runs them --------------------------------------------------
def _positions(game, seed, count=24):
    """Valid positions from seeded random games: starts, middles, ends (terminal ones too)."""
    import numpy as np

    rng = np.random.default_rng([seed, 1])
    out = []
    while len(out) < count:
        s = game.initial_state(int(rng.integers(2**31)))
        line = [s]
        while not game.is_terminal(s) and len(line) < 400:
            s = game.apply(s, int(rng.choice(game.legal_actions(s))))
            line.append(s)
        for k in sorted(set(rng.integers(0, len(line), size=3).tolist()) | {len(line) - 1}):
            out.append(line[k])
    return out


def tampered(game, positions, other, seed, i):
    """``(the i-th test object, whether it is an untouched position)``: deterministic in
    (seed, game, i)."""
    import numpy as np

    from envs.core import kernel as C

    rng = np.random.default_rng([seed, 2, i])
    base = positions[int(rng.integers(len(positions)))]
    kind = rng.random()
    if kind < UNTOUCHED:
        return base.copy(), True  # untouched: the accepted path, and no false alarm
    if kind < 0.10:
        choice = int(rng.integers(12))
        s = base.copy()
        if choice == 0:
            return s.astype(np.int32), False
        if choice == 1:
            return s.astype(np.float64), False
        if choice == 2:
            return s.view(np.uint64), False
        if choice == 3:
            return s[:-1], False
        if choice == 4:
            return np.concatenate([s, [0]]), False
        if choice == 5:
            return s.reshape(1, -1), False
        if choice == 6:
            return s.tolist(), False
        if choice == 7:
            return None, False
        if choice == 8:
            s.flags.writeable = False
            return s, True  # read-only, strided, byte-swapped: a state's content, accepted
        if choice == 9:
            return np.repeat(s, 2)[::2], True
        if choice == 10:
            return s.astype(s.dtype.newbyteorder()), True
        return other.copy(), False
    s = base.copy()
    n = s.shape[0]
    for _ in range(1 + int(rng.integers(3)) if rng.random() < 0.3 else 1):
        if rng.random() < 0.3:
            index = int(rng.integers(C.HEADER))
        elif rng.random() < 0.5:
            index = int(rng.integers(C.HEADER, min(n, C.HEADER + 200)))
        else:
            index = int(rng.integers(n))
        how = rng.random()
        if how < 0.35:
            for _ in range(1 + int(rng.integers(3))):
                s[index] ^= np.int64(1) << np.int64(rng.integers(64))
        elif how < 0.70:
            s[index] = EXTREMES[int(rng.integers(len(EXTREMES)))]
        elif how < 0.85:
            s[index] = int(rng.integers(-3, 600))
        else:
            s[index] = int(rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))
    return s, False


def _exercise(game, s, rng, record, valid=False):
    """Every public method on ``s``; ``record(kind, detail)`` hears each problem. ``valid``: ``s``
    is an untouched position, which ``check_state`` must accept."""

    def call(name, fn, *args):
        try:
            return True, fn(*args)
        except ValueError:
            return False, None
        except Exception as exc:  # noqa: BLE001 - counting exactly these is the point
            record("exception", f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
            return False, None

    accepted, checked = call("check_state", game.check_state, s)
    if valid and not accepted:
        record("inconsistent", "check_state refused an untouched position (a false alarm)")
    ok_legal, legal = call("legal_actions", game.legal_actions, s)
    ok_term, terminal = call("is_terminal", game.is_terminal, s)
    call("returns", game.returns, s)
    call("current_player", game.current_player, s)
    call("end_reason", game.end_reason, s)
    call("legal_mask", game.legal_mask, s)
    ok_text, text = call("to_text", game.to_text, s)
    if ok_text:
        call("from_text", game.from_text, text)
    for seat in range(game.num_players):
        call("observation", game.observation, s, seat)
    call("observation", game.observation, s, game.num_players)
    raw = int(rng.integers(-2, game.num_actions + 3))
    call("is_legal", game.is_legal, s, raw)
    call("apply", game.apply, s, raw)
    call("apply", game.apply, s, 2**70)
    call("action_to_str", game.action_to_str, s, raw)
    call("str_to_action", game.str_to_action, s, "pass")
    call("sample_hidden", game.sample_hidden, s, 1)
    for extra in ("score", "discs", "foundation_cards"):
        if hasattr(game, extra):
            call(extra, getattr(game, extra), s)
    if not accepted:
        for name, ok in (("legal_actions", ok_legal), ("is_terminal", ok_term), ("to_text", ok_text)):
            if ok:
                record("inconsistent", f"check_state refused the state but {name} accepted it")
        return False
    if not (ok_legal and ok_term):
        record("inconsistent", "check_state accepted the state but legal_actions or is_terminal refused it")
        return True
    if bool(terminal) != (len(legal) == 0):
        record("inconsistent", f"is_terminal={terminal} with {len(legal)} legal actions")
    if len(legal):
        a = int(legal[int(rng.integers(len(legal)))])
        ok, child = call("apply(legal)", game.apply, checked, a)
        if not ok:
            record("inconsistent", f"apply refused legal action {a}")
        else:
            ok, _ = call("check_state(child)", game.check_state, child)
            if not ok:
                record("inconsistent", f"apply({a}) returned a state check_state refuses")
    call("perft", __import__("envs").game.perft, game, s, 1)
    return True


def _same_length_configuration(game):
    """Another configuration of ``game`` (from ``envs.testing.variants``) whose states have the
    same length, or None where it has none."""
    import envs
    from envs.testing import variants

    for params in variants(game):
        other = envs.make_game(game.name, **params)
        if other.state_len == game.state_len and repr(other) != repr(game):
            return other
    return None


def run_child(game_name, start, stop, progress, seed):
    """States ``start..stop-1`` of ``game_name``; writes each index to ``progress`` before running
    it, and the counts as JSON on stdout at the end."""
    import numpy as np

    import envs

    game = envs.make_game(game_name)
    positions = _positions(game, seed)
    other = _same_length_configuration(game)
    if other is not None:  # same length, other parameters: a foreign signature
        other_state = other.initial_state(0)
    else:
        other_state = positions[0].copy()
        other_state[0] ^= 1
    counts = {"states": 0, "accepted": 0, "exception": 0, "inconsistent": 0}
    examples = {}

    def record(kind, detail):
        counts[kind] += 1
        examples.setdefault(kind, detail)

    with open(progress, "w") as log:
        for i in range(start, stop):
            log.write(f"{i}\n")
            log.flush()
            s, valid = tampered(game, positions, other_state, seed, i)
            counts["states"] += 1
            counts["accepted"] += _exercise(game, s, np.random.default_rng([seed, 3, i]), record, valid)
    print(json.dumps({"counts": counts, "examples": examples}))


def run_child_env(game_name, steps, progress, seed):
    """Random, out-of-range and wrongly typed actions through the three framework envs."""
    import gymnasium as gym
    import numpy as np

    from envs.gym_env import ArbiterEnv
    from envs.pz_env import env as wrapped_env
    from envs.pz_env import raw_env
    from envs.vector_env import ArbiterVectorEnv

    params = {}  # the standard rules
    rng = np.random.default_rng([seed, 4])
    counts = {"steps": 0, "exception": 0}
    examples = {}
    bad_actions = (
        -1,
        2**40,
        -(2**63),
        2**70,
        1.5,
        "3",
        None,
        [1],
        np.int8(-3),
        np.uint64(2**63),
        True,
        np.float32(2.0),
        np.array([1, 2]),
    )

    def action(n):
        r = rng.random()
        if r < 0.5:
            return int(rng.integers(n))
        if r < 0.75:
            return int(rng.integers(-5, n + 5))
        return bad_actions[int(rng.integers(len(bad_actions)))]

    def guard(name, fn, *args):
        counts["steps"] += 1
        try:
            return fn(*args)
        except (ValueError, gym.error.ResetNeeded):
            return None
        except Exception as exc:  # noqa: BLE001
            counts["exception"] += 1
            examples.setdefault(name, f"{type(exc).__name__}: {str(exc)[:120]}")
            return None

    with open(progress, "w") as log:
        log.write("gym\n")
        log.flush()
        for mode, share in (("lose", range(steps // 2)), ("raise", range(steps // 2, steps))):
            env = ArbiterEnv(game_name, illegal_action=mode, **params)
            env.reset(seed=seed + share.start)
            for k in share:
                out = guard("gym.step", env.step, action(env.game.num_actions))
                if out is None or out[2] or out[3]:
                    env.reset(seed=seed + k)
        log.write("pettingzoo\n")
        log.flush()
        for label, make in (("pettingzoo.step", raw_env), ("pettingzoo.env().step", wrapped_env)):
            aec = make(game_name, **params)
            aec.reset(seed=seed)
            for k in range(steps // 2):
                agent = aec.agent_selection
                if not aec.agents or aec.terminations[agent] or aec.truncations[agent]:
                    aec.reset(seed=seed + k)
                    continue
                guard(label, aec.step, action(aec.unwrapped.game.num_actions))
            guard("pettingzoo.observe", aec.observe, agent)
        log.write("vector\n")
        log.flush()
        vec = ArbiterVectorEnv(num_envs=8, game=game_name, **params)
        vec.reset(seed=seed)
        n = vec.game.num_actions
        for _ in range(max(1, steps // 8)):
            r = rng.random()
            if r < 0.6:
                acts = rng.integers(-3, n + 3, size=8)
            elif r < 0.8:
                acts = rng.integers(-(2**62), 2**62, size=8)
            else:
                acts = [bad_actions[int(rng.integers(len(bad_actions)))]] * 8
            guard("vector.step", vec.step, acts)
    print(json.dumps({"counts": counts, "examples": examples}))


# -- the parent: batches in child processes, crash and hang accounting --------------------------------
def _child(args, timeout):
    """Run a child; returns (returncode or "timeout", parsed stdout or None)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return "timeout", None
    if done.returncode != 0:
        return done.returncode, done.stderr[-400:]
    return 0, json.loads(done.stdout.strip().splitlines()[-1])


def _last_index(progress):
    try:
        lines = Path(progress).read_text().split()
    except FileNotFoundError:
        return None
    return lines[-1] if lines else None


def fuzz_game(name, args, tmp):
    total = {"states": 0, "accepted": 0, "segfaults": 0, "hangs": 0, "exception": 0, "inconsistent": 0}
    examples = {}
    start = 0
    while start < args.states:
        stop = min(args.states, start + args.batch)
        progress = os.path.join(tmp, f"{name}-{start}.log")
        code, out = _child(["--child", name, str(start), str(stop), progress, "--seed", str(args.seed)], args.timeout)
        if code == 0:
            for key, value in out["counts"].items():
                total[key] += value
            for key, value in out["examples"].items():
                examples.setdefault(key, value)
            start = stop
            continue
        last = _last_index(progress)
        if last is None:
            raise SystemExit(f"{name}: a child failed before its first state ({code}): {out}")
        index = int(last)
        kind = "hangs" if code == "timeout" else "segfaults" if isinstance(code, int) and code < 0 else "exception"
        total[kind] += 1
        examples.setdefault(kind, f"state {index} (exit {code}) {out or ''}"[:300])
        total["states"] += index - start + 1  # states before it ran but their counts are lost
        start = index + 1
    return total, examples


def fuzz_envs(name, args, tmp):
    progress = os.path.join(tmp, f"{name}-env.log")
    code, out = _child(
        ["--child-env", name, progress, "--seed", str(args.seed), "--env-steps", str(args.env_steps)], args.timeout
    )
    if code == 0:
        return out["counts"], out["examples"]
    return {"steps": 0, "exception": 1}, {"crash": f"{_last_index(progress)} env: exit {code} {out or ''}"[:300]}


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        game, start, stop, progress = args.child
        return run_child(game, int(start), int(stop), progress, args.seed)
    if args.child_env:
        game, progress = args.child_env
        return run_child_env(game, args.env_steps, progress, args.seed)
    report = {
        "command": " ".join(["python", "benchmarks/fuzz_states.py", *(argv if argv is not None else sys.argv[1:])]),
        "games": {},
    }
    bad = 0
    print(
        f"{'game':12s} {'states':>7s} {'accepted':>8s} {'segfaults':>9s} {'hangs':>5s} {'exceptions':>10s} "
        f"{'inconsistent':>12s} {'env steps':>9s} {'env exc.':>8s} {'seconds':>7s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.games:
            t0 = time.time()
            total, examples = fuzz_game(name, args, tmp)
            env_counts, env_examples = (
                ({"steps": 0, "exception": 0}, {}) if args.env_steps == 0 else fuzz_envs(name, args, tmp)
            )
            seconds = time.time() - t0
            report["games"][name] = {
                **total,
                "env_steps": env_counts["steps"],
                "env_exceptions": env_counts["exception"],
                "examples": {**examples, **{"env " + k: v for k, v in env_examples.items()}},
                "seconds": round(seconds, 1),
            }
            bad += (
                total["segfaults"]
                + total["hangs"]
                + total["exception"]
                + total["inconsistent"]
                + env_counts["exception"]
            )
            print(
                f"{name:12s} {total['states']:7d} {total['accepted']:8d} {total['segfaults']:9d} {total['hangs']:5d} "
                f"{total['exception']:10d} {total['inconsistent']:12d} {env_counts['steps']:9d} "
                f"{env_counts['exception']:8d} {seconds:7.0f}",
                flush=True,
            )
            for kind, text in report["games"][name]["examples"].items():
                print(f"    e.g. {kind}: {text}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
