"""Agents registry, random/greedy/minimax/alpha-beta: specs, errors, determinism, solved positions.

Solved positions are text boards; each test first checks the claim it relies on (the position
has a winning move, or a forced win), so a changed rule or board format cannot make it vacuous.
"""

import pickle

import numpy as np
import pytest

import agents
import envs
from agents import AgentError
from agents import evaluation as E

TWO_PLAYER = [("loa", {}), ("othello", {"size": 6}), ("gomoku", {"size": 9}), ("go", {"size": 5})]
SEARCHERS = ["minimax:depth=2", "alphabeta:depth=3", "alphabeta:time=0.5"]


def game_of(name, **kw):
    return envs.make_game(name, **kw)


def random_position(game, plies, seed):
    """A position ``plies`` random moves in (fewer if the game ends), never terminal."""
    rng = np.random.default_rng(seed)
    s = game.initial_state(seed=seed)
    for _ in range(plies):
        moves = game.legal_actions(s)
        nxt = game.apply(s, moves[rng.integers(len(moves))])
        if game.is_terminal(nxt):
            break
        s = nxt
    return s


def winning_moves(game, s):
    me = game.current_player(s)
    out = []
    for a in game.legal_actions(s):
        child = game.apply(s, int(a))
        if game.is_terminal(child) and game.returns(child)[me] > 0:
            out.append(int(a))
    return out


# -- registry and specs --------------------------------------------------------------------------


def test_registry_lists_the_agents():
    assert {"random", "greedy", "minimax", "alphabeta", "mcts", "gtp"} <= set(agents.REGISTRY)


def test_spec_options_are_coerced_to_the_default_types():
    a = agents.make("alphabeta:depth=6,time=1.5,tt_bits=10", seed=3)
    assert (a.name, a.depth, a.time, a.tt_bits, a.seed) == ("alphabeta", 6, 1.5, 10, 3)
    assert isinstance(a.time, float) and isinstance(a.depth, int)
    assert agents.make("AlphaBeta", depth=2).depth == 2
    assert agents.parse_spec("x:command=['a','b'],k=1") == ("x", {"command": "['a','b']", "k": "1"})


def test_options_left_to_the_game_read_truth_words_as_truth_values():
    # An option whose default is None (the game's choice) reads on/off, yes/no and true/false
    # in any case as a bool, and other text as a literal (a number stays a number).
    assert agents.make("mcts:filter_moves=off").filter_moves is False
    assert agents.make("mcts:filter_moves=True").filter_moves is True
    m = agents.make("mcts:manage_time=YES,seconds=1,priors=0")
    assert (m.manage_time, m.seconds, m.priors) == (True, 1.0, False)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuch", "unknown agent 'nosuch'"),
        ("alphabeta:depth=six", "depth='six' is not a valid int"),
        ("alphabeta:depth=-1", "depth=-1"),
        ("alphabeta:bogus=1", "has no option 'bogus'"),
        ("alphabeta:depth", "not of the form key=value"),
        ("alphabeta:depth=1,depth=2", "given twice"),
        ("", "expected a string"),
    ],
)
def test_bad_specs_raise_agent_error(spec, message):
    with pytest.raises(AgentError, match=message):
        agents.make(spec)
    assert issubclass(AgentError, ValueError)


@pytest.mark.parametrize("option", ["c", "seconds", "resign", "progress_reward"])
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_float_options_must_be_finite(option, value):
    # NaN passes every bound check and would reach the compiled search as a wrong constant;
    # an infinite time never ends a move.
    with pytest.raises(AgentError, match=f"{option}={value}: expected a finite number"):
        agents.make("mcts", **{option: value})
    with pytest.raises(AgentError, match="time=nan: expected a finite number"):
        agents.make("alphabeta", time=float("nan"))


@pytest.mark.parametrize("spec", ["alphabeta", "minimax"])
def test_search_agents_refuse_the_patience(spec):
    game = game_of("calculation")
    with pytest.raises(AgentError, match="does not apply to calculation"):
        agents.make(spec).act(game, game.initial_state(seed=0))


def test_agents_refuse_finished_games():
    kw, text = WIN_IN_ONE["gomoku"]
    game = game_of("gomoku", **kw)
    s = game.from_text(_board(text))
    over = game.apply(s, winning_moves(game, s)[0])
    with pytest.raises(AgentError, match="finished game"):
        agents.make("random").act(game, over)


def test_agents_pickle_after_a_move():
    game = game_of("gomoku", size=9)
    s = random_position(game, 6, seed=1)
    for spec in ["random", "greedy", "minimax:depth=1", "alphabeta:depth=2"]:
        a = agents.make(spec, seed=7)
        first = a.act(game, s)
        b = pickle.loads(pickle.dumps(a))
        b.reset(), a.reset()
        assert b.act(game, s) == a.act(game, s)
        assert first in game.legal_actions(s)


# -- determinism ---------------------------------------------------------------------------------

DETERMINISM = [  # search agents do not play the patience
    (name, kw, spec)
    for name, kw in TWO_PLAYER + [("calculation", {})]
    for spec in ["random", "greedy", "alphabeta:depth=2"]
    if not (name == "calculation" and spec.startswith("alphabeta"))
]


@pytest.mark.parametrize("name, kw, spec", DETERMINISM)
def test_same_seed_same_game(name, kw, spec):
    game = game_of(name, **kw)

    def play(seed):
        bots = [agents.make(spec, seed=seed), agents.make(spec, seed=seed + 1)]
        s = game.initial_state(seed=0)
        moves = []
        while not game.is_terminal(s) and len(moves) < 24:
            a = bots[game.current_player(s) % 2].act(game, s)
            moves.append(a)
            s = game.apply(s, a)
        return moves

    assert play(11) == play(11)
    if spec == "random":
        assert play(11) != play(12)


# -- minimax is the reference --------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kw, depth",
    [
        ("loa", {}, 3),
        ("othello", {"size": 6}, 3),
        ("gomoku", {"size": 9}, 2),
        ("go", {"size": 5}, 2),
    ],
)
@pytest.mark.parametrize("tt_bits", [0, 16])
def test_alphabeta_value_equals_minimax(name, kw, depth, tt_bits):
    game = game_of(name, **kw)
    for seed in range(4):
        s = random_position(game, 8 + 5 * seed, seed)
        mm = agents.make("minimax", depth=depth)
        ab = agents.make("alphabeta", depth=depth, tt_bits=tt_bits, threats=False, seed=seed)
        a_mm, a_ab = mm.act(game, s), ab.act(game, s)
        assert ab.last_stats["score"] == mm.last_stats["score"], (name, seed)
        assert ab.last_stats["nodes"] <= mm.last_stats["nodes"] * 2
        # alpha-beta's move is worth the root value: the child searched one ply less agrees
        child = game.apply(s, a_ab)
        score = ab.last_stats["score"]
        if not game.is_terminal(child) and abs(score) < E.WIN_BOUND:
            reply = agents.make("minimax", depth=depth - 1)
            reply.act(game, child)
            sign = 1 if game.current_player(child) == game.current_player(s) else -1
            assert sign * reply.last_stats["score"] == score
        assert a_mm in game.legal_actions(s)


# -- solved positions ----------------------------------------------------------------------------

WIN_IN_ONE = {
    "loa": (
        {},
        """
        8 o . . o x . x .
        7 . . o . . x . .
        6 . . . . . o . o
        5 . . o . x . . .
        4 . . . . . x . o
        3 . . . o . . x o
        2 . x . . x x . .
        1 o . . . . . o .
          a b c d e f g h
        to_move=x ply=32
        """,
    ),
    "othello": (
        {"size": 6},
        """
        1 x x x x x x
        2 o x x x x x
        3 . o x x x x
        4 o o x x x x
        5 o . x x x x
        6 o . . x x x
          a b c d e f
        to_move=x ply=32
        """,
    ),
    "gomoku": (
        {"size": 9},
        """
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . x x x x . . .
        4 . . o o o . . . .
        3 . . . . . . . o .
        2 . . . . . . . . .
        1 . . . . . . . . .
          a b c d e f g h i
        to_move=x
        """,
    ),
    "go": (
        {"size": 5, "komi": 0.5},
        """
        5 . . x o .
        4 . . x o .
        3 . . x o .
        2 . . x o .
        1 . . x o .
          a b c d e
        to_move=x ply=12 passes=1 ko=-
        """,
    ),
}


def _board(text):
    return "\n".join(line.strip() for line in text.strip().splitlines()) + "\n"


@pytest.mark.parametrize("name", sorted(WIN_IN_ONE))
@pytest.mark.parametrize("spec", ["greedy"] + SEARCHERS)
def test_win_in_one_is_found(name, spec):
    kw, text = WIN_IN_ONE[name]
    game = game_of(name, **kw)
    s = game.from_text(_board(text))
    wins = winning_moves(game, s)
    assert wins and len(wins) < len(game.legal_actions(s))
    agent = agents.make(spec, seed=0)
    assert agent.act(game, s) in wins
    if spec != "greedy" and agent.last_stats.get("solved"):
        # an exact endgame solver (Othello on a clock) proves the win without its distance
        assert agent.last_stats["score"] == E.WIN_BOUND + 1
    elif spec != "greedy":
        assert agent.last_stats["score"] == E.INF - 1
        assert agent.last_stats["nodes"] > 0 and agent.last_stats["seconds"] >= 0


def test_greedy_finishes_the_patience():
    """The position before the last move of a won deal: greedy must play the winning card."""
    game = game_of("calculation")
    agent = agents.make("greedy", seed=0)
    for deal in range(1000):
        s = game.initial_state(seed=deal)
        while not game.is_terminal(s):
            before, s = s, game.apply(s, agent.act(game, s))
        if game.returns(s)[0] > 0:
            break
    assert game.returns(s)[0] > 0, "greedy won none of 1000 deals"
    wins = winning_moves(game, before)
    assert wins and agents.make("greedy", seed=1).act(game, before) in wins


def forced_win_in_three(game, s, a):
    """After ``a``, every reply either loses on the spot (in LOA a capture can connect the
    mover's pieces) or leaves the mover a winning move."""
    me = game.current_player(s)
    child = game.apply(s, a)
    assert not game.is_terminal(child)

    def won_after(reply):
        after = game.apply(child, int(reply))
        if game.is_terminal(after):
            return game.returns(after)[me] > 0
        return bool(winning_moves(game, after))

    return all(won_after(r) for r in game.legal_actions(child))


WIN_IN_THREE = {
    # Found by a depth-3 search in a game between seeded agents; the test re-checks the claim.
    "loa": (
        {},
        """
        8 . . . . x . . .
        7 . o . . . o . .
        6 . . . . . x . .
        5 . . . . . x . .
        4 o x x . . x o .
        3 . x x . x . . .
        2 . . . x . . x o
        1 . . . . . . . .
          a b c d e f g h
        to_move=x ply=32
        """,
    ),
    "gomoku": (
        {"size": 9},
        """
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . o . . . .
        5 . . . x x x . . .
        4 . . . o . o . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 . . . . . . . . .
          a b c d e f g h i
        to_move=x
        """,
    ),
}


@pytest.mark.parametrize("name", sorted(WIN_IN_THREE))
def test_alphabeta_finds_a_forced_win_in_three(name):
    kw, text = WIN_IN_THREE[name]
    game = game_of(name, **kw)
    s = game.from_text(_board(text))
    assert not winning_moves(game, s)
    agent = agents.make("alphabeta:depth=5", seed=0)
    a = agent.act(game, s)
    assert agent.last_stats["score"] == E.INF - 3 and agent.last_stats["depth"] == 3
    assert forced_win_in_three(game, s, a)


@pytest.mark.parametrize("size", [6, 8])
def test_othello_bitboard_evaluation_equals_the_square_walk(size):
    """Boards up to 8x8 are evaluated on bitboards; the walk over squares (used for larger
    boards) is the reference: both must give the same terms on every position."""
    from envs.othello import evaluation as othello

    game = game_of("othello", size=size)
    p = game.kernel_params
    assert p[othello.K.P_FAST]
    checked = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        s = game.initial_state()
        while not game.is_terminal(s):
            me = s[othello.C.H_PLAYER] + 1
            assert othello._bitboard_terms(s, p, size, me) == othello._scan_terms(s, size, me)
            checked += 1
            moves = game.legal_actions(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
    assert checked > 30 * (size * size - 4) // 2


# -- the patience policy -------------------------------------------------------------------------


def _greedy_patience_wins(deals):
    """Deals ``0..deals-1`` won by ``greedy`` with seed 0 (deterministic: an exact count)."""
    game = game_of("calculation")
    agent = agents.make("greedy", seed=0)
    wins = 0
    for deal in range(deals):
        s = game.initial_state(seed=deal)
        while not game.is_terminal(s):
            s = game.apply(s, agent.act(game, s))
        wins += game.returns(s)[0] > 0
    return wins


def test_greedy_wins_about_one_patience_in_five():
    """Deals 0..1999: 393 won (19.7%, Wilson 95% 18.0-21.5%; docs/patience.md). Without the
    checks that the piles can still unwind the same rule won 197 (9.9%); random play wins about
    one deal in 100,000. The count is exact for fixed seeds, so the bound sits just under it and
    fails only if the policy gets worse."""
    assert _greedy_patience_wins(2000) >= 390


def _patience_position(piles):
    """Fresh foundations, the given waste piles (bottom card first), every other card face-down."""
    counts = {r: 4 for r in "A23456789TJQK"}
    for card in ["A", "2", "3", "4"] + " ".join(piles).split():
        counts[card] -= 1
    rest = [r for r in "A23456789TJQK" for _ in range(counts[r])]
    lines = [f"f{i + 1}: {base}" for i, base in enumerate("A234")]
    lines += [f"w{i + 1}: {pile}" for i, pile in enumerate(piles)]
    lines += [f"face-up: {rest[0]}", f"stock: {' '.join(rest[1:])}"]
    return game_of("calculation").from_text("\n".join(lines))


def test_patience_policy_knows_a_buried_deal_is_lost():
    """Every foundation needs a Queen before its King: with each Queen under a King the deal
    is lost whatever the stock holds; with each King under a Queen it can still come out."""
    from envs.calculation import _kernel as K
    from envs.calculation import evaluation as policy

    for piles, alive in (("Q K",) * 4, False), (("K Q",) * 4, True):
        s = _patience_position(piles)
        counts = np.zeros(13, dtype=np.int64)  # the cards still to come: unseen and face-up
        K.unseen_counts(s, 0, counts)
        counts[K.face_up(s, 0) - 1] += 1
        assert counts.sum() == 52 - 4 - 8 and counts[11] == counts[12] == 0
        assert bool(policy._unwinds(s, counts)) == alive


def test_greedy_patience_policy_never_reads_the_stock_order():
    game = game_of("calculation")
    rng = np.random.default_rng(3)
    for deal in range(20):
        s = game.initial_state(seed=deal)
        for _ in range(int(rng.integers(0, 30))):
            if game.is_terminal(s):
                break
            s = game.apply(s, agents.make("greedy", seed=deal).act(game, s))
        if game.is_terminal(s):
            continue
        t = game.sample_hidden(s, rng=int(rng.integers(1 << 30)))
        assert agents.make("greedy", seed=1).act(game, s) == agents.make("greedy", seed=1).act(game, t)
