"""Alpha-beta speed: nodes per CPU-second against OpenSpiel's Python alpha-beta, and LOA depth-6 times.

    python -m benchmarks.search                    # both parts, default sizes (about 3 minutes)
    python -m benchmarks.search --positions 6 --leaf-positions 1 --depth6 5   # quicker

Part 1 searches the same positions (Othello 8x8 at depth 7 and LOA at depth 5, ten random plies
in) to the same depth with Arbiter's ``alphabeta`` and with ``open_spiel.python.algorithms.minimax.alpha_beta_search``
in this run, and prints nodes per CPU-second (``time.process_time``) and two ratios:

  * vs constant leaf: OpenSpiel with ``value_function=lambda s: 0.0``. Its leaves cost nothing
    and, every leaf tying, it prunes as much as alpha-beta ever can: a lower bound of our speed
    per node, since ours evaluates every leaf;
  * vs equal evaluation: OpenSpiel with ``PORTS[game]``, a Python port of our static evaluation
    (same features, weights and integer values, computed from the pyspiel state), which is what
    an OpenSpiel user writes to search these games. This is the like-for-like ratio. Before
    timing, the port is checked equal to ours on every benchmark position and its children.
    Python leaves make this run slow (6 s per Othello position, 20 s per LOA one), so it
    searches only the first ``--leaf-positions`` of them; nodes per second hardly depend on the
    position.

OpenSpiel's nodes are counted by wrapping its recursive ``_alpha_beta``; ours are the agent's
node count (every position entered, leaves and table cut-offs included). Our agent is made once
per sweep of the positions and kept for all of them, as a player keeps it for a game: its
transposition table is allocated once, on the warm-up search, which also loads the compiled code.
Our sweep and OpenSpiel's constant-leaf sweep are each timed ``--repeat`` times (a fresh agent
each time: the same nodes) and the fastest counts, as ``timeit`` does: our sweep takes well under
a second of CPU, and one timing of it varied by half between runs on a shared machine.

Part 2 times LOA alpha-beta at depth 6 on middlegame positions (reached by two seeded depth-2
alpha-beta players from the start) and prints the median CPU seconds per move (target < 0.5 s).

Part 3 times 8x8 Othello's evaluation per call, with its hand-written weights (what part 1
searches with, to compare like with like) and with the fitted pattern table that is the default
there, over every position of 200 random games.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pyspiel
from numba import njit
from open_spiel.python.algorithms import minimax as os_minimax

import agents
import envs
from agents import evaluation as E
from envs.core.specialise import compiled
from envs.loa import evaluation as loa_eval
from envs.othello import evaluation as othello_eval

OPENSPIEL_NAMES = {"loa": "lines_of_action", "othello": "othello"}
U64 = (1 << 64) - 1


# -- positions -----------------------------------------------------------------------------------


def random_positions(game, count, plies, seed):
    """``count`` ongoing positions after ``plies`` random moves, with their move lists."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        history = []
        for _ in range(plies):
            moves = game.legal_actions(s)
            a = int(moves[rng.integers(len(moves))])
            history.append(a)
            s = game.apply(s, a)
            if game.is_terminal(s):
                break
        if not game.is_terminal(s):
            out.append((s, history))
    return out


def openspiel_history(name, game, history):
    """The same game as OpenSpiel action ids (replayed through move notation)."""
    os_game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    state = os_game.new_initial_state()
    s = game.initial_state()
    out = []
    for a in history:
        text = game.action_to_str(s, a)
        match = [b for b in state.legal_actions() if _same_move(state.action_to_string(b), text)]
        if len(match) != 1:
            raise RuntimeError(f"{name}: cannot map move {text!r} to OpenSpiel")
        out.append(match[0])
        state.apply_action(match[0])
        s = game.apply(s, a)
    return out


def _same_move(os_text, ours):
    """OpenSpiel writes LOA moves like ``b1-b3``/``b1xd3`` and Othello like ``d3``."""
    clean = os_text.lower().replace(":", "x").split("(")[0].strip()
    return clean == ours.lower() or clean.replace("x", "-") == ours.lower().replace("x", "-")


def replay(os_name, history):
    state = pyspiel.load_game(os_name).new_initial_state()
    for a in history:
        state.apply_action(a)
    return state


# -- the peer's evaluation: Python ports of the games' evaluations -------------------------------------
# Same features, weights and arithmetic as the compiled evaluations (and the same precomputed
# masks and tables, as plain Python ints), over bitboards read from the pyspiel state: what a
# careful OpenSpiel user would write, with no handicap beyond running in Python.


def _bitboards(state, planes, flip=False):
    """Python-int bitboards (bit r*8 + c, row 0 at the top) of the given planes of the
    observation tensor; ``flip``: its rows run bottom to top (OpenSpiel's LOA)."""
    t = np.asarray(state.observation_tensor(state.current_player()), dtype=bool).reshape(3, 8, 8)
    if flip:
        t = t[:, ::-1]
    return [int.from_bytes(np.packbits(t[k], bitorder="little").tobytes(), "little") for k in planes]


def _python_ints(array):
    return [int(x) & U64 for x in np.asarray(array).ravel()]


_O_MASKS = _python_ints(othello_eval.MASKS[8])
_O_FIXED = [int(v) for v in othello_eval.FIXED]
_O_SHIFTS = [
    (1, 0xFEFEFEFEFEFEFEFE),
    (-1, 0x7F7F7F7F7F7F7F7F),
    (8, U64),
    (-8, U64),
    (9, 0xFEFEFEFEFEFEFEFE),
    (7, 0x7F7F7F7F7F7F7F7F),
    (-7, 0xFEFEFEFEFEFEFEFE),
    (-9, 0x7F7F7F7F7F7F7F7F),
]  # (shift, squares a one-square step may land on)


def _othello_placements(own, opp):
    """Squares where ``own`` can place: the end of a run of ``opp`` discs next to an own disc."""
    empty = ~(own | opp) & U64
    moves = 0
    for k, mask in _O_SHIFTS:
        run = _shift(own, k, mask) & opp
        for _ in range(5):
            run |= _shift(run, k, mask) & opp
        moves |= _shift(run, k, mask) & empty
    return moves


def _shift(x, k, mask):
    """One step of every disc in ``x`` in the direction of shift ``k``, kept on the board."""
    return ((x << k) if k > 0 else (x >> -k)) & mask


def othello_value(state):
    """``envs.othello.evaluation.evaluate`` (8x8) for the side to move of a pyspiel state."""
    own, opp = _bitboards(state, (1, 2))  # observation planes: empty, mover, opponent
    m = _O_MASKS
    squares = sum(_O_FIXED[k] * ((own & m[k]).bit_count() - (opp & m[k]).bit_count()) for k in range(3))
    for k in range(3, 15, 3):
        c_diff = (own & m[k + 1]).bit_count() - (opp & m[k + 1]).bit_count()
        x_diff = (own & m[k + 2]).bit_count() - (opp & m[k + 2]).bit_count()
        if (own | opp) & m[k]:
            squares += othello_eval.EDGE * c_diff + othello_eval.INNER * x_diff
        else:
            squares += othello_eval.C_SQUARE * c_diff + othello_eval.X_SQUARE * x_diff
    my_moves = sum(1 for a in state.legal_actions() if a < 64)  # 64 is the pass
    their_moves = _othello_placements(opp, own).bit_count()
    mine, theirs = own.bit_count(), opp.bit_count()
    occupied = own | opp
    stable = _othello_stable(own, occupied).bit_count() - _othello_stable(opp, occupied).bit_count()
    empty = ~occupied & U64
    near_empty = _othello_near(empty)
    frontier = (opp & near_empty).bit_count() - (own & near_empty).bit_count()
    parity = 0
    if empty.bit_count() <= 64 // othello_eval.PARITY_SHARE:
        mine_at = sum(1 << a for a in state.legal_actions() if a < 64)
        theirs_at = _othello_placements(opp, own)
        left = empty
        while left:
            region = left & -left
            while (grown := (region | _othello_near(region)) & empty) != region:
                region = grown
            left &= ~region
            if region.bit_count() & 1:
                parity += bool(mine_at & region) - bool(theirs_at & region)
    w = othello_eval.WEIGHTS
    total = my_moves + their_moves
    mobility = 0.0 if total == 0 else 100.0 * (my_moves - their_moves) / total
    phase = (mine + theirs) / 64
    value = (
        w[0] * squares
        + w[1] * mobility / 10.0
        + w[2] * phase * phase * (mine - theirs)
        + w[3] * stable
        + w[4] * frontier
        + w[5] * parity
    )
    return int(10.0 * value)


_O_LINES = [[int(m) & U64 for m in axis if m] for axis in othello_eval.LINES[8]]
_O_AXES = [(0, 1), (2, 3), (4, 7), (5, 6)]  # pairs of _O_SHIFTS along rows, columns, diagonals
_O_EDGES = [0x8181818181818181, 0xFF000000000000FF, 0xFF818181818181FF, 0xFF818181818181FF]


def _othello_near(x):
    """The squares next to some square of ``x``."""
    out = 0
    for k, mask in _O_SHIFTS:
        out |= _shift(x, k, mask)
    return out


def _othello_stable(own, occupied):
    """``envs.othello.evaluation._stable`` on 8x8."""
    blocked = []
    for lines, edge in zip(_O_LINES, _O_EDGES):  # full lines, and squares off the board beside
        full = 0
        for m in lines:
            if occupied & m == m:
                full |= m
        blocked.append(full | edge)
    stable = 0
    while True:
        grown = own
        for b, (d0, d1) in zip(blocked, _O_AXES):
            grown &= b | _shift(stable, *_O_SHIFTS[d0]) | _shift(stable, *_O_SHIFTS[d1])
        if grown == stable:
            return stable
        stable = grown


_L = {
    name: _python_ints(getattr(loa_eval, name))
    for name in (
        "LINE_PRE",
        "LINE_MASK",
        "LINE_MUL",
        "LINE_LO",
        "LINE_KIND",
        "T3",
        "PST_MASK",
        "ROW_BIT",
        "COL_BIT",
        "WINDOW",
    )
}
_L_PST_VALUE = [int(v) for v in loa_eval.PST_VALUE]
_L_LEAST = [int(v) for v in loa_eval.LEAST]
_L_MOBILITY = [[int(v) for v in row] for row in loa_eval.LINE_MOBILITY]
_L_NOT_A, _L_NOT_H, _L_LOW56 = (int(x) & U64 for x in (loa_eval.NOT_A, loa_eval.NOT_H, loa_eval.LOW56))


def _loa_mobility(own, opp):
    """Half-move mobility of both sides, line by line through the same table as ours."""
    mine = theirs = 0
    lines = zip(_L["LINE_PRE"], _L["LINE_MASK"], _L["LINE_MUL"], _L["LINE_LO"], _L["LINE_KIND"])
    for pre, mask, mul, lo, kind in lines:
        a = ((((own >> pre) & mask) * mul) >> 56 & 0xFF) >> lo
        b = ((((opp >> pre) & mask) * mul) >> 56 & 0xFF) >> lo
        entry = _L_MOBILITY[kind][_L["T3"][a] + 2 * _L["T3"][b]]
        mine += entry & 0xFF
        theirs += entry >> 8
    return mine, theirs


def _loa_features(own, mobility2):
    """The seven LOA features of the side owning bitboard ``own`` (``loa.features``)."""
    n = own.bit_count()
    if n == 0:
        return [0.0] * 7
    cr = sum((own & m).bit_count() << b for b, m in enumerate(_L["ROW_BIT"])) / n
    cc = sum((own & m).bit_count() << b for b, m in enumerate(_L["COL_BIT"])) / n
    central = sum(v * (own & m).bit_count() for v, m in zip(_L_PST_VALUE, _L["PST_MASK"]))
    cells = [i for i in range(64) if (own >> i) & 1]
    dist = sum(int(max(abs(c // 8 - cr), abs(c % 8 - cc)) + 0.5) for c in cells)
    rows, cols = {c // 8 for c in cells}, {c % 8 for c in cells}
    b = (own >> 1) & _L_NOT_H
    c = (own >> 8) & _L_LOW56
    d = (own >> 9) & _L_NOT_H & _L_LOW56
    three = (own & b & (c | d)) | (c & d & (own | b))
    quads = (three & _L["WINDOW"][int(cr) * 8 + int(cc)]).bit_count()
    pairs = (
        (own & b).bit_count()
        + (own & c).bit_count()
        + (own & d).bit_count()
        + (own & (own >> 7) & _L_NOT_A & _L_LOW56).bit_count()
    )
    return [
        -(dist - _L_LEAST[min(n, 12)]) / n,
        central / n,
        max(abs(cr - 3.5), abs(cc - 3.5)),
        quads,
        mobility2 / 16.0,
        -(max(rows) - min(rows) + 1) * (max(cols) - min(cols) + 1) / 16.0,
        2 * pairs / n,
    ]


def loa_value(state):
    """``envs.loa.evaluation.evaluate`` for the side to move of a pyspiel state."""
    me = state.current_player()
    boards = _bitboards(state, (0, 1), flip=True)  # observation planes: Black, White, empty
    own, opp = boards[me], boards[1 - me]
    mob_mine, mob_theirs = _loa_mobility(own, opp)
    mine, theirs = _loa_features(own, mob_mine), _loa_features(opp, mob_theirs)
    value = 0.0
    for i, w in enumerate(loa_eval.WEIGHTS):
        value += w * (mine[i] - theirs[i])
    return int(100.0 * value) + loa_eval.TEMPO


PORTS = {"othello": othello_value, "loa": loa_value}


def check_port(name, game, positions, histories):
    """Largest |port - ours| over the positions and all their children; raises unless 0."""
    port, os_name = PORTS[name], OPENSPIEL_NAMES[name]
    p = game.kernel_params
    w = game.spec.default_weights()  # the hand-written evaluation the ports follow
    evaluate = compiled(E, game.spec).evaluate
    worst = checked = 0
    for (s, _), history in zip(positions, histories):
        os_root = replay(os_name, history)
        pairs = [(s, os_root)]
        for a in os_root.legal_actions():  # and every ongoing child, matched by move notation
            child = os_root.clone()
            child.apply_action(a)
            ours = [
                game.apply(s, int(b))
                for b in game.legal_actions(s)
                if _same_move(os_root.action_to_string(a), game.action_to_str(s, int(b)))
            ]
            pairs += [(ours[0], child)] if len(ours) == 1 and not child.is_terminal() else []
        for ours, theirs in pairs:
            worst = max(worst, abs(int(evaluate(ours, p, w)) - port(theirs)))
            checked += 1
    if worst != 0:
        raise AssertionError(f"{name}: the Python port differs from our evaluation by {worst}")
    return worst, checked


# -- measurement ---------------------------------------------------------------------------------


def fastest(measure, repeat):
    """``measure()`` -> (nodes, CPU seconds), run ``repeat`` times; the fastest (the nodes are
    the same every time: the same searches)."""
    runs = [measure() for _ in range(repeat)]
    if len({nodes for nodes, _ in runs}) != 1:
        raise RuntimeError(f"the same searches entered different node counts: {runs}")
    return min(runs, key=lambda run: run[1])


def openspiel_rate(os_name, histories, depth, leaf):
    """OpenSpiel alpha-beta on the same move sequences with leaf values ``leaf(state)`` for the
    side to move (None: the constant 0); returns (nodes, CPU seconds)."""
    inner = os_minimax._alpha_beta
    counter = [0]

    def counting(*args, **kwargs):
        counter[0] += 1
        return inner(*args, **kwargs)

    game = pyspiel.load_game(os_name)
    os_minimax._alpha_beta = counting
    try:
        seconds = 0.0
        for history in histories:
            state = replay(os_name, history)
            root = state.current_player()
            if leaf is None:
                value = lambda s: 0.0
            else:
                value = lambda s, root=root: leaf(s) if s.current_player() == root else -leaf(s)
            start = time.process_time()
            os_minimax.alpha_beta_search(game, state, value_function=value, maximum_depth=depth)
            seconds += time.process_time() - start
        return counter[0], seconds
    finally:
        os_minimax._alpha_beta = inner


def arbiter_rate(game, positions, depth):
    """Our alpha-beta, one agent for all positions; returns (nodes, CPU seconds)."""
    # the hand-written evaluation, which the ports follow (8x8 Othello's default is a pattern table)
    agent = agents.make("alphabeta", depth=depth, weights=game.spec.default_weights(), seed=0)
    agent.act(game, positions[0][0])  # warm-up: loads the compiled code, allocates the table
    nodes, seconds = 0, 0.0
    for s, _ in positions:
        start = time.process_time()
        agent.act(game, s)
        seconds += time.process_time() - start
        nodes += agent.last_stats["nodes"]
    return nodes, seconds


def compare(name, depth, count, leaf_count, repeat=1):
    """Print nodes/s of both engines and the two ratios (ours and the constant leaf's the
    fastest of ``repeat`` sweeps); return them."""
    game = envs.make_game(name)
    os_name = OPENSPIEL_NAMES[name]
    positions = random_positions(game, count, plies=10, seed=1)
    histories = [openspiel_history(name, game, h) for _, h in positions]
    worst, checked = check_port(name, game, positions, histories)
    ours_n, ours_t = fastest(lambda: arbiter_rate(game, positions, depth), repeat)
    const_n, const_t = fastest(lambda: openspiel_rate(os_name, histories, depth, None), repeat)
    equal_n, equal_t = openspiel_rate(os_name, histories[:leaf_count], depth, PORTS[name])
    ours, const, equal = ours_n / ours_t, const_n / const_t, equal_n / equal_t
    print(f"{name} depth {depth}, {count} positions: arbiter {ours_n:,} nodes in {ours_t:.2f} s = {ours:,.0f} nodes/s")
    print(
        f"  openspiel, constant leaf:   {const_n:9,} nodes in {const_t:6.2f} s = {const:9,.0f} "
        f"nodes/s   ratio {ours / const:6.1f}x"
    )
    print(
        f"  openspiel, equal evaluation ({leaf_count} positions; port checked equal on "
        f"{checked} positions, max difference {worst}): {equal_n:,} nodes in {equal_t:.2f} s "
        f"= {equal:,.0f} nodes/s   ratio {ours / equal:6.1f}x"
    )
    return ours / const, ours / equal


def loa_depth6(count, depth=6):
    game = envs.make_game("loa")
    times = []
    agents.make("alphabeta", depth=2, seed=0).act(game, game.initial_state())  # warm-up
    for k in range(count):
        players = [agents.make("alphabeta", depth=2, seed=2 * k), agents.make("alphabeta", depth=2, seed=2 * k + 1)]
        s = game.initial_state()
        for _ in range(16 + k % 8):  # into the middlegame
            s = game.apply(s, players[game.current_player(s)].act(game, s))
            if game.is_terminal(s):
                break
        if game.is_terminal(s):
            continue
        agent = agents.make("alphabeta", depth=depth, seed=k)
        start = time.process_time()
        agent.act(game, s)
        times.append(time.process_time() - start)
    median = statistics.median(times)
    print(
        f"loa depth {depth}: median {median:.3f} CPU s per move over {len(times)} middlegame "
        f"positions (max {max(times):.3f} s; a fresh agent per move, table included)"
    )
    return median


@njit(cache=True)
def _evaluate_all(states, p, w):
    total = 0
    for i in range(states.shape[0]):
        total += othello_eval.evaluate(states[i], p, w)
    return total


def othello_evaluations(games, repeat):
    """CPU microseconds per call of 8x8 Othello's evaluation with its hand-written weights and
    with the pattern table (the default), over every position of ``games`` random games."""
    game = envs.make_game("othello")
    rng = np.random.default_rng(0)
    states = []
    for _ in range(games):
        s = game.initial_state()
        while not game.is_terminal(s):
            states.append(s)
            moves = game.legal_actions(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
    states = np.array(states)
    p = game.kernel_params
    costs = {}
    for label, w in (("hand-written", game.spec.default_weights()), ("pattern table", E.default_weights(game))):
        _evaluate_all(states[:1], p, w)  # compile
        best = min(_timed(_evaluate_all, states, p, w) for _ in range(repeat))
        costs[label] = best / len(states) * 1e6
        print(f"othello 8x8 evaluation, {label}: {costs[label]:.3f} µs per call ({len(states):,} positions)")
    print(f"  the pattern table costs {costs['pattern table'] / costs['hand-written']:.1f}x the hand-written sum")


def _timed(call, *args):
    start = time.process_time()
    call(*args)
    return time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=24, help="positions per game in part 1")
    parser.add_argument(
        "--leaf-positions",
        type=int,
        default=2,
        help="of which OpenSpiel also searches with the ported evaluation (the slowest part: 6-20 s per position)",
    )
    parser.add_argument("--depth6", type=int, default=20, help="LOA middlegame positions in part 2")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed sweeps of ours and of the constant leaf: the fastest counts"
    )
    args = parser.parse_args(argv)
    leaf = min(args.leaf_positions, args.positions)
    repeat = max(1, args.repeat)
    compare("othello", 7, args.positions, leaf, repeat)
    compare("loa", 5, args.positions, leaf, repeat)
    if args.depth6 > 0:
        loa_depth6(args.depth6)
    othello_evaluations(200, repeat)


if __name__ == "__main__":
    main()
