"""The state layout and the helpers every game kernel shares (imported as ``C`` by convention).

Every game state is one flat ``np.int64`` array. The first ``HEADER`` cells have the same meaning in
all five games, so generic code (the Game facade, random playouts, search) can read whose turn it
is, whether the game is over and who won without knowing the game:

    index  name       meaning
    0      H_SIG      signature of (game, parameters); the facade rejects a foreign state with it
    1      H_PLAYER   seat to move (0 = Black / the solitaire player)
    2      H_PLY      plies played so far (passes count)
    3      H_STATUS   ONGOING or TERMINAL
    4      H_WINNER   seat that won, or NO_WINNER (draw, or a lost patience)
    5      H_HASH     Zobrist hash of the position including the side to move
    6      H_LAST     last action played, or -1
    7      H_REASON   why the game ended (per-game code; 0 while ongoing)

The game-specific part starts at ``HEADER``; each ``_kernel.py`` documents it at its top.

Kernel parameters are a flat ``np.int64`` array too; ``P_SIG``, ``P_MAX_MOVES``, ``P_NUM_ACTIONS``,
``P_NUM_PLAYERS`` and ``P_REASONS`` (a bit mask of the game's ``H_REASON`` codes) are common, so
that compiled code can check a state's header without knowing the game; the game-specific ones
start at ``P_GAME``.

Validation: a state that enters from outside (user code, a file, a pickle) is checked in full by
the game's ``validate(s, p)`` hook before any kernel reads it, because numba does no bounds checks.
``validate`` returns 0 or an error ``code | (index << 16)`` (``error`` below): ``code`` names the
broken invariant (``HEADER_ERRORS`` here, a kernel's ``STATE_ERRORS`` for codes from
``GAME_ERRORS`` on) and ``index`` the state cell where it shows. ``check_header`` checks the
header; every game's ``validate`` starts with it.

Random streams are ``envs.core.rng``'s.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit

H_SIG = 0
H_PLAYER = 1
H_PLY = 2
H_STATUS = 3
H_WINNER = 4
H_HASH = 5
H_LAST = 6
H_REASON = 7
HEADER = 8

ONGOING = 0
TERMINAL = 1
NO_WINNER = -1

P_SIG = 0
P_MAX_MOVES = 1
P_NUM_ACTIONS = 2
P_NUM_PLAYERS = 3
P_REASONS = 4
P_GAME = 5

# Error codes of ``check_header`` (a game's own codes start at GAME_ERRORS).
E_PLAYER = 1
E_PLY = 2
E_STATUS = 3
E_WINNER = 4
E_REASON = 5
E_LAST = 6
E_SIG = 7
GAME_ERRORS = 100
HEADER_ERRORS = {
    E_PLAYER: "the seat to move is not a seat of this game",
    E_PLY: "the ply count is negative or beyond max_moves",
    E_STATUS: "the status is neither ONGOING (0) nor TERMINAL (1)",
    E_WINNER: "the winner is not NO_WINNER (-1) or a seat (an ongoing game has no winner)",
    E_REASON: "the end reason is not one of the game's codes (an ongoing game has reason 0)",
    E_LAST: "the last action is neither -1 nor an action id",
    E_SIG: "the signature is another game's or parameter set's: not a state of this game",
}


def zobrist_table(n: int, salt: int) -> np.ndarray:
    """``n`` pseudo-random int64 keys, fixed for ever by ``salt`` (hashes must not vary by run)."""
    return np.random.default_rng(0xA4B17E2 + salt).integers(
        np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=n, dtype=np.int64
    )


@njit(cache=True, inline="always")  # inlined: numba compiled a copy per literal code passed
def error(code, index):
    """A ``validate`` result: broken invariant ``code`` seen at state cell ``index``."""
    return code | (index << 16)


@njit(cache=True)
def check_header(s, p):
    """0 if the common header of ``s`` is consistent, else an ``error`` naming the first bad field.

    Cheap (a few comparisons), and enough for the generic code's own reads: the seat to move
    indexes per-seat fields in every kernel, so it must be a seat; a finished game has a winner
    that is a seat or NO_WINNER and a known reason; an ongoing one has neither. The signature is
    checked here too (not in Python), which saves the facade a call per check.
    """
    if s[H_SIG] != p[P_SIG]:
        return error(E_SIG, H_SIG)
    player = s[H_PLAYER]
    if player < 0 or player >= p[P_NUM_PLAYERS]:
        return error(E_PLAYER, H_PLAYER)
    ply = s[H_PLY]
    if ply < 0 or ply > p[P_MAX_MOVES]:
        return error(E_PLY, H_PLY)
    status = s[H_STATUS]
    if status != ONGOING and status != TERMINAL:
        return error(E_STATUS, H_STATUS)
    winner = s[H_WINNER]
    reason = s[H_REASON]
    if status == ONGOING:
        if winner != NO_WINNER:
            return error(E_WINNER, H_WINNER)
        if reason != 0:
            return error(E_REASON, H_REASON)
    else:
        if winner < NO_WINNER or winner >= p[P_NUM_PLAYERS]:
            return error(E_WINNER, H_WINNER)
        mask = p[P_REASONS]
        if reason < 0 or (mask != 0 and (reason > 62 or (mask >> reason) & 1 == 0)):
            return error(E_REASON, H_REASON)
    last = s[H_LAST]
    if last < -1 or last >= p[P_NUM_ACTIONS]:
        return error(E_LAST, H_LAST)
    return 0


@njit(cache=True)
def clear(s, p):
    """Zero the state and write the header of a fresh game: this parameter set's signature, no
    winner, no last move, seat 0 to move."""
    s[:] = 0
    s[H_SIG] = p[P_SIG]
    s[H_WINNER] = NO_WINNER
    s[H_LAST] = -1


@njit(cache=True, inline="always")  # inlined: numba compiled a copy per literal code passed
def finish(s, winner, reason):
    """Mark the state terminal with ``winner`` (a seat or NO_WINNER) and a per-game reason code."""
    s[H_STATUS] = TERMINAL
    s[H_WINNER] = winner
    s[H_REASON] = reason


@njit(cache=True)
def fill_returns(s, num_players, out):
    """Returns from the header: +1/-1 (two players, 0 for a draw) or 1/0 (solitaire won/lost)."""
    w = s[H_WINNER]
    if num_players == 1:
        out[0] = 1.0 if w == 0 and s[H_STATUS] == TERMINAL else 0.0
        return
    for seat in range(num_players):
        if s[H_STATUS] != TERMINAL or w == NO_WINNER:
            out[seat] = 0.0
        elif w == seat:
            out[seat] = 1.0
        else:
            out[seat] = -1.0


@njit(cache=True, inline="always")
def copy(dst, src, n):
    """``dst[:n] = src[:n]`` as a loop. numba's slice assignment compiles, into every function
    using it, the shape-mismatch error it may raise, message formatting and all: about 3 s of CPU
    in each cold start for code that never raises."""
    for i in range(n):
        dst[i] = src[i]


@njit(cache=True)
def encode_stones(s, seat, nn, out):
    """Planes 0..2 of a board game whose cell ``k`` is ``s[HEADER + k]`` (0 empty, 1 Black,
    2 White), into the flat ``out``: the seat's own stones, the opponent's, and all ones if the
    seat is to move. The board games' ``encode`` hooks start from this."""
    own, other = seat + 1, 2 - seat
    for k in range(nn):
        v = s[HEADER + k]
        out[k] = 1.0 if v == own else 0.0
        out[nn + k] = 1.0 if v == other else 0.0
    to_move = 1.0 if s[H_PLAYER] == seat else 0.0
    for k in range(nn):
        out[2 * nn + k] = to_move


@njit(cache=True)
def now():
    """Wall-clock seconds (``time.perf_counter``) read from compiled code: searches on a clock
    check it every few thousand nodes."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True, inline="always")
def popcount(x):
    """Set bits of an int64 (bit 63 included). LLVM turns the loop into one popcnt instruction;
    ``inline="always"`` puts it into each caller at numba-IR level, because LLVM does not inline
    across separately cached functions and a call per popcount would cost the evaluations dearly."""
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n
