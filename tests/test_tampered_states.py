"""States are validated in full where they enter: a tampered state is a ``StateError`` naming the
bad cell, never a segfault, a hang or silently wrong play; and no valid state is refused.

The broad fuzz (``benchmarks/fuzz_states.py``) runs in a subprocess with a few hundred tampered
states per game, so a segfault fails a test here instead of killing pytest. The targeted cases are
the ones the original fuzz found crashing; the header, type and action tests run on every
registered game. That no valid state is refused is ``envs.testing``'s protocol, notation and
pickling checks, run on every game and configuration by tests/test_contract.py; the games here
end at a short ``max_moves`` cap, which those configurations do not reach.
"""

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core import IllegalActionError, StateError, TextBoardError
from envs.core import kernel as C
from envs.go import _kernel as GK
from envs.loa import _kernel as LK
from envs.othello import _kernel as OK
from envs.testing import small_params

ROOT = Path(__file__).resolve().parent.parent
GAMES = list(envs.names())  # the built-in games: the fuzz script's child processes know no others


def test_fuzz_script_finds_nothing(tmp_path):
    """Segfaults, hangs, non-ValueError exceptions and inconsistencies: 0 for every game, and
    the framework envs raise nothing but ValueErrors on bad actions."""
    out = tmp_path / "fuzz.json"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "fuzz_states.py"),
            "--states",
            "300",
            "--batch",
            "300",
            "--env-steps",
            "150",
            "--seed",
            "7",
            "--timeout",
            "600",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
    )
    assert out.exists(), done.stdout + done.stderr
    report = json.loads(out.read_text())["games"]
    assert sorted(report) == sorted(GAMES)
    for name, counts in report.items():
        assert counts["states"] == 300, name
        bad = {k: counts[k] for k in ("segfaults", "hangs", "exception", "inconsistent", "env_exceptions")}
        assert not any(bad.values()), (name, bad, counts["examples"])
        assert counts["accepted"] > 0, f"{name}: no state accepted, so the accepted path never ran"
        assert counts["env_steps"] > 0
    assert done.returncode == 0, done.stdout[-2000:]


def test_fuzz_script_help_has_no_side_effects(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fuzz_states.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and "--states" in done.stdout
    assert list(tmp_path.iterdir()) == []


# -- targeted cases ---------------------------------------------------------------------------------
def _refused(game, s, *needles, method="legal_actions"):
    """``game.<method>(s)`` raises StateError whose message holds every needle."""
    with pytest.raises(StateError) as info:
        getattr(game, method)(s)
    for needle in needles:
        assert needle in str(info.value), str(info.value)
    return str(info.value)


def _played(game, plies, seed=0):
    rng = np.random.default_rng(seed)
    s = game.initial_state(seed)
    for _ in range(plies):
        t = game.apply(s, int(rng.choice(game.legal_actions(s))))
        if game.is_terminal(t):
            break
        s = t
    return s


def test_loa_huge_mover_is_refused():
    game = envs.make_game("loa")
    s = game.initial_state()
    s[C.H_PLAYER] = 10**12
    _refused(game, s, "H_PLAYER", "1000000000000", "seat")


@pytest.mark.parametrize("name", ["othello", "gomoku"])
@pytest.mark.parametrize("mover", [2, -1, 2**62])
def test_out_of_range_mover_is_refused(name, mover):
    game = envs.make_game(name)
    s = _played(game, 4)
    s[C.H_PLAYER] = mover
    for method in ("legal_actions", "to_text", "is_terminal", "returns"):
        _refused(game, s, "H_PLAYER", str(mover), method=method)
    with pytest.raises(StateError):
        game.apply(s, 0)
    with pytest.raises(StateError):
        game.observation(s, 0)


def test_go_huge_chain_head_is_refused():
    game = envs.make_game("go", size=9)
    s = game.apply(game.initial_state(), 40)
    index = C.HEADER + 81 + GK.HEAD * 81 + 40
    s[index] = 10**12
    _refused(game, s, f"s[{index}]", "1000000000000", "chain")


def test_go_broken_chain_cycle_is_refused_not_a_hang():
    game = envs.make_game("go", size=5)
    s = game.initial_state()
    for a in (6, 0, 7, 1, 8):  # a Black chain 6-7-8
        s = game.apply(s, a)
    x = C.HEADER + 25
    head = int(s[x + GK.HEAD * 25 + 6])
    stones = [6, 7, 8]
    t = s.copy()
    t[x + GK.NEXT * 25 + head] = head  # the cycle through the head skips the other stones
    _refused(game, t, "chain")
    t = s.copy()
    other = next(q for q in stones if q != head)
    t[x + GK.NEXT * 25 + other] = other  # a rho: the walk from the head never comes back
    _refused(game, t, "chain")


def test_go_ko_history_and_passes_are_checked():
    game = envs.make_game("go", size=5)
    s = _played(game, 6)
    g = int(GK.fields(game.kernel_params))
    for offset, value in ((GK.O_KO, 10**12), (GK.O_KO, -2), (GK.O_COUNT, 10**9), (GK.O_COUNT, 0), (GK.O_PASSES, 5)):
        t = s.copy()
        t[g + offset] = value
        _refused(game, t, f"s[{g + offset}]")


def test_calculation_huge_foundation_count_in_to_text():
    game = envs.make_game("calculation")
    s = game.initial_state(3)
    s[C.HEADER] = 10**12  # foundation 1's count (FOUND = HEADER)
    _refused(game, s, "1000000000000", "foundation", method="to_text")


def test_calculation_deck_is_checked():
    game = envs.make_game("calculation")
    s = game.initial_state(3)
    from envs.calculation import _kernel as K

    t = s.copy()
    t[K.STOCK + 10] = t[K.STOCK + 11] % 13 + 1  # two cards of one rank become another's
    if t[K.STOCK + 10] == s[K.STOCK + 10]:
        t[K.STOCK + 10] = s[K.STOCK + 10] % 13 + 1
    _refused(game, t, "deck")


def test_loa_bitboards_counts_and_history_are_checked():
    game = envs.make_game("loa")
    s = _played(game, 6)
    t = s.copy()
    t[LK.S_BB + 1] = 0  # White wiped out: the kernel assumes an opponent piece exists
    _refused(game, t, "no piece")
    t = s.copy()
    t[LK.S_BB] |= t[LK.S_BB + 1] & -t[LK.S_BB + 1]  # a square of both colours
    _refused(game, t, "share")
    t = s.copy()
    t[LK.S_COUNT + 3] += 1  # a line count no piece supports (moves would jump off the tables)
    _refused(game, t, "line count")
    t = s.copy()
    t[LK.S_NHIST] = 10**12
    _refused(game, t, "history")


def test_othello_bitboards_and_placements_are_checked():
    game = envs.make_game("othello")
    s = _played(game, 6)
    x = C.HEADER + 64
    for index in (x + OK.S_BITS, x + OK.S_MOVES):
        t = s.copy()
        t[index] ^= 1 << 40
        _refused(game, t, f"s[{index}]", "bitboards")
    t = s.copy()
    t[x + OK.S_COUNT] += 1
    _refused(game, t, "count")


def test_gomoku_terminal_status_must_match_board():
    """is_terminal and legal_actions can only disagree on a state whose status lies."""
    game = envs.make_game("gomoku", size=7)
    s = _played(game, 6)
    t = s.copy()
    t[C.H_STATUS] = C.TERMINAL
    t[C.H_REASON] = 2  # "board full" on a board with empty points
    _refused(game, t, "status")
    t[C.H_STATUS] = C.ONGOING
    t[C.H_REASON] = 0
    t[C.HEADER : C.HEADER + 49] = 0
    _refused(game, t, "count")


@pytest.mark.parametrize("name", GAMES)
def test_header_fields_are_checked(name):
    game = envs.make_game(name)
    s = _played(game, 3)
    cases = {
        C.H_PLY: (-1, game.max_moves + 1),
        C.H_STATUS: (2, -1),
        C.H_WINNER: (0, 5, -2),
        C.H_LAST: (-2, game.num_actions, 2**62),
        C.H_REASON: (1, -1, 63),
        C.H_HASH: (int(s[C.H_HASH]) ^ 1,),
    }
    for index, values in cases.items():
        for value in values:
            t = s.copy()
            t[index] = value
            with pytest.raises(StateError, match=rf"s\[{index}\]"):
                game.legal_actions(t)


@pytest.mark.parametrize("name", GAMES)
def test_wrong_array_types(name):
    game = envs.make_game(name)
    s = _played(game, 3)
    for bad in (
        s.astype(np.int32),
        s.astype(np.float64),
        s.view(np.uint64),
        s[:-1],
        s.reshape(1, -1),
        s.tolist(),
        None,
        "state",
    ):
        with pytest.raises(StateError):
            game.legal_actions(bad)
    # the same content as a read-only, strided or byte-swapped array is a state (a native copy)
    readonly = s.copy()
    readonly.flags.writeable = False
    for same in (readonly, np.repeat(s, 2)[::2], s.astype(s.dtype.newbyteorder())):
        checked = game.check_state(same)
        assert checked.dtype == np.int64 and checked.flags.c_contiguous and np.array_equal(checked, s)
        assert np.array_equal(game.legal_actions(same), game.legal_actions(s))


@pytest.mark.parametrize("name", GAMES)
def test_out_of_range_actions_are_illegal_action_errors(name):
    game = envs.make_game(name)
    s = game.initial_state(1)
    for action in (-1, game.num_actions, 2**63, 2**70, -(2**63), 1.5, "3", None, True, np.float32(1)):
        with pytest.raises(IllegalActionError):
            game.apply(s, action)
        assert game.is_legal(s, action) is False


def test_default_validate_checks_the_header_of_a_new_game(registry):
    """A game without a validate hook (Connect Four) gets the common header checked."""
    import connect_four

    registry.add(connect_four.SPEC)
    game = envs.make_game("connect_four")
    assert not hasattr(connect_four.SPEC.kernel, "validate")
    s = game.apply(game.initial_state(), 3)
    game.check_state(s)
    for index, value in ((C.H_PLAYER, 10**12), (C.H_STATUS, 7), (C.H_LAST, game.num_actions), (C.H_PLY, -5)):
        t = s.copy()
        t[index] = value
        with pytest.raises(StateError, match=rf"s\[{index}\]"):
            game.legal_actions(t)


def test_from_text_refuses_what_validation_refuses(monkeypatch):
    """A notation that lets an inconsistent position through is caught by the facade."""
    game = envs.make_game("gomoku", size=7)
    text = game.to_text(_played(game, 4))
    notation = game.spec.notation
    real = notation.from_text

    def sloppy(g, t):
        s = real(g, t)
        s[C.H_HASH] ^= 1
        return s

    monkeypatch.setattr(notation, "from_text", sloppy)
    with pytest.raises(TextBoardError, match="hash"):
        game.from_text(text)


# -- no false alarms -------------------------------------------------------------------------------------
# Every game with a move cap, capped where random games reach it: positions at the cap, ended by it.
CAPPED = [
    (spec.name, {**small_params(spec), "max_moves": 40})
    for spec in envs.specs()
    if any(p.name == "max_moves" for p in spec.params)
]


@pytest.mark.parametrize("name, params", CAPPED, ids=[f"{n}-{p}" for n, p in CAPPED])
def test_valid_states_pass(name, params):
    game = envs.make_game(name, **params)
    clone = pickle.loads(pickle.dumps(game))
    rng = np.random.default_rng(11)
    ends = set()
    for g in range(12):
        s = game.initial_state(g)
        while True:
            game.check_state(s)
            back = game.from_text(game.to_text(s))
            assert game.to_text(back) == game.to_text(s)
            clone.check_state(pickle.loads(pickle.dumps(s)))
            if game.is_terminal(s):
                ends.add(game.end_reason(s))
                break
            s = game.apply(s, int(rng.choice(game.legal_actions(s))))
    assert "max_moves" in ends
