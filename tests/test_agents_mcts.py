"""UCT-MCTS: solved positions, determinism, budgets, tree invariants and hidden information."""

import subprocess
import sys

import numpy as np
import pytest

import agents
import agents.mcts
import agents.tactics
import envs
from agents import _mcts_kernel as K
from agents.base import AgentError
from agents.tuning import tuned
from envs.calculation import _kernel as CK
from envs.core import rng as R
from envs.core.specialise import compiled


def board(game, rows, to_move="x"):
    """A Gomoku position from rows written top first (the text-board grid without labels)."""
    n = game.size
    lines = [f"{n - i} {' '.join(row)}" for i, row in enumerate(rows)]
    lines.append("  " + " ".join("abcdefghijklmnopqrs"[:n]))
    return game.from_text("\n".join(lines) + f"\nto_move={to_move}\n")


def wins_now(game, state, action):
    after = game.apply(state, action)
    mover = game.current_player(state)
    return game.is_terminal(after) and game.returns(after)[mover] > 0


def forced_win_in_three(game, state, action):
    """After ``action``, every reply allows the mover to win at once (checked by the rules)."""
    after = game.apply(state, action)
    if wins_now(game, state, action):
        return True
    if game.is_terminal(after):
        return False
    return all(
        any(wins_now(game, reply_state, a) for a in game.legal_actions(reply_state))
        for reply_state in (game.apply(after, r) for r in game.legal_actions(after))
    )


GOMOKU = envs.make_game("gomoku", size=9)


def test_gomoku_takes_the_win_rather_than_blocking():
    # Both sides have four; Black to move must complete five (e5 or i5), not block White.
    s = board(
        GOMOKU,
        [
            ".........",
            ".........",
            ".........",
            "..oooo...",
            "....xxxx.",
            ".........",
            ".........",
            ".........",
            ".........",
        ],
    )
    bot = agents.make("mcts", simulations=2000, seed=1)
    assert wins_now(GOMOKU, s, bot.act(GOMOKU, s))


def test_gomoku_makes_the_open_four():
    # Black has an open three on row 5; White has nothing. The only winning plans make an
    # open four (c5 or g5); anything else lets White block the three.
    s = board(
        GOMOKU,
        [
            ".........",
            ".........",
            "......o..",
            ".......o.",
            "...xxx...",
            ".........",
            ".....o...",
            ".........",
            ".........",
        ],
    )
    bot = agents.make("mcts", simulations=20000, seed=2)
    action = bot.act(GOMOKU, s)
    assert forced_win_in_three(GOMOKU, s, action), GOMOKU.action_to_str(s, action)


def _win_in_one_position(game, seed):
    """First position of a seeded random game where some, but not every, move wins at once."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        s = game.initial_state(seed=int(rng.integers(1 << 30)))
        while not game.is_terminal(s):
            legal = game.legal_actions(s)
            winning = [a for a in legal if wins_now(game, s, a)]
            if winning and len(winning) < len(legal):
                return s, winning
            s = game.apply(s, int(rng.choice(legal)))
    return None, None


@pytest.mark.parametrize(
    "name, params",
    [
        ("gomoku", {"size": 7}),
        ("othello", {"size": 6}),
        ("go", {"size": 5}),
        ("loa", {}),
    ],
)
def test_win_in_one_on_every_two_player_game(name, params):
    game = envs.make_game(name, **params)
    if len(game.legal_actions(game.initial_state(seed=0))) == 0:
        pytest.skip(f"{name} kernel is still a development scaffold (no legal moves)")
    s, winning = _win_in_one_position(game, seed=7)
    assert s is not None, f"no win-in-one position found in random {name} games"
    bot = agents.make("mcts", simulations=3000, seed=0)
    assert bot.act(game, s) in winning


def test_beats_random_at_gomoku():
    game = envs.make_game("gomoku", size=7)
    bots = [agents.make("mcts", simulations=300, seed=3), agents.make("random", seed=4)]
    for first in (0, 1):
        s = game.initial_state()
        while not game.is_terminal(s):
            seat = game.current_player(s)
            s = game.apply(s, bots[(seat + first) % 2].act(game, s))
        assert game.returns(s)[first] == 1.0  # the MCTS seat won


def test_same_seed_same_moves_and_stats():
    s = GOMOKU.initial_state()
    runs = []
    for _ in range(2):
        bot = agents.make("mcts:simulations=500,c=0.7,threshold=3", seed=11)
        moves = [bot.act(GOMOKU, s) for _ in range(3)]  # the seeded stream advances per move
        runs.append((moves, bot.last_stats["nodes"], bot.last_stats["value"]))
    assert runs[0] == runs[1]


def test_stats_and_simulation_budget():
    bot = agents.make("mcts", simulations=700, seed=0)
    bot.act(GOMOKU, GOMOKU.initial_state())
    stats = bot.last_stats
    assert stats["simulations"] == 700
    assert set(stats) >= {"simulations", "seconds", "nodes", "depth", "value"}
    assert 1 < stats["nodes"] and stats["depth"] >= 1 and 0.0 <= stats["value"] <= 1.0


def test_time_budget_is_respected():
    # The search stops within a chunk of the deadline (chunks are sized to ~20 ms of search; on a
    # machine shared with other jobs a chunk can take several times that, hence the margin). In
    # Gomoku the search leaves a share of the budget to the threat checks after it. Time
    # management is off: with it, a search whose best move cannot be overtaken stops early. The
    # second move is measured: a first move's compile (or cache load) leaves its statistics.
    bot = agents.make("mcts", seconds=0.2, seed=0, manage_time=False)
    for _ in range(2):
        bot.act(GOMOKU, GOMOKU.initial_state())
    assert bot.last_stats["simulations"] > 100
    assert 0.2 * (1 - agents.mcts.CHECK_SHARE) <= bot.last_stats["seconds"] < 0.2 + 0.4


GO9 = envs.make_game("go", size=9)


def go_position(plies, seed=0):
    """A 9x9 position after ``plies`` random placements."""
    rng = np.random.default_rng(seed)
    s = GO9.initial_state()
    for _ in range(plies):
        s = GO9.apply(s, int(rng.choice(GO9.legal_actions(s)[:-1])))
    return s


def test_go_clock_thinks_longest_in_the_middle_game():
    # Go's spec has a time profile, so ``seconds`` is the average of a game: the opening's first
    # moves and the endgame's get less than the middle game's.
    bot = agents.make("mcts", seconds=0.05, seed=0)
    budgets = {}
    for ply in (0, 30, 76):
        bot.act(GO9, go_position(ply))
        budgets[ply] = bot.last_stats["budget"]
    assert budgets[0] < 0.05 < budgets[30] and budgets[76] < budgets[30]
    fixed = agents.make("mcts", seconds=0.05, manage_time=False, seed=0)
    for ply in (0, 30):
        fixed.act(GO9, go_position(ply))
        assert fixed.last_stats["budget"] == 0.05


def test_a_clock_banks_what_a_move_does_not_use_until_the_next_game():
    game = envs.make_game("calculation")
    s = single_move_deal(game)
    bot = agents.make("mcts", seconds=0.1, manage_time=True, seed=0)
    bot.act(game, s)  # the only move, played at once: its time is banked
    assert bot.last_stats["simulations"] == 0 and bot.last_stats["seconds"] < 0.05
    later = game.apply(s, int(game.legal_actions(s)[0]))
    if not game.is_terminal(later):
        bot.act(game, later)
        assert bot.last_stats["budget"] > 0.1 + 0.05 / 8
    bot.act(game, game.initial_state(seed=1))  # an earlier ply: a new game, nothing banked
    assert bot.last_stats["budget"] == pytest.approx(0.1)


def test_a_clock_stops_once_the_move_cannot_change():
    # Black wins at once on i5 only (White threatens five too). With time management the search
    # stops when the most visited move cannot be overtaken in the time left: about half-way,
    # as nearly every simulation goes to the win.
    s = board(
        GOMOKU,
        [
            ".........",
            ".........",
            ".........",
            "..oooo...",
            "...oxxxx.",
            ".........",
            ".........",
            "x........",
            ".........",
        ],
    )
    bot = agents.make("mcts", seconds=2.0, manage_time=True, seed=1)
    assert GOMOKU.action_to_str(s, bot.act(GOMOKU, s)) == "i5"
    assert bot.last_stats["budget"] == 2.0 and bot.last_stats["seconds"] < 1.6
    # Without it the whole search time is spent (on the empty board: a win in one is played
    # unsearched; the threat checks' share is left to them).
    plain = agents.make("mcts", seconds=0.3, manage_time=False, seed=1)
    plain.act(GOMOKU, GOMOKU.initial_state())
    assert plain.last_stats["seconds"] >= 0.3 * (1 - agents.mcts.CHECK_SHARE)


def test_node_limit_freezes_the_tree_but_keeps_searching():
    bot = agents.make("mcts", simulations=3000, threshold=1, max_nodes=1024, seed=0)
    bot.act(GOMOKU, GOMOKU.initial_state())
    assert bot.last_stats["simulations"] == 3000
    assert bot.last_stats["nodes"] <= 1024


def single_move_deal(game):
    """A Calculation position with one legal move (the stock is out and one waste top fits)."""
    rng = np.random.default_rng(0)
    for seed in range(500):
        s = game.initial_state(seed=seed)
        while not game.is_terminal(s) and len(game.legal_actions(s)) != 1:
            s = game.apply(s, int(rng.choice(game.legal_actions(s))))
        if not game.is_terminal(s):
            return s
    raise AssertionError("no deal of the first 500 reached a single legal move")


def test_single_legal_move_is_played_without_search():
    game = envs.make_game("calculation")
    s = single_move_deal(game)
    legal = game.legal_actions(s)
    assert len(legal) == 1
    bot = agents.make("mcts", simulations=100, seed=0)
    assert bot.act(game, s) == legal[0] and bot.last_stats["simulations"] == 0


@pytest.mark.parametrize(
    "options, message",
    [
        ({"c": -1.0}, "c="),
        ({"threshold": 0}, "threshold="),
        ({"simulations": 0}, "simulations="),
        ({"seconds": 0.0}, "seconds="),
        ({"max_nodes": 10}, "max_nodes="),
        ({"rave": -1.0}, "rave="),
        ({"rave": "lots"}, "rave="),
        ({"reuse": 1}, "reuse="),
        ({"priors": 1}, "priors="),
        ({"threads": 0}, "threads="),
        ({"threads": 2.0}, "threads="),
        ({"threads": 65}, "threads="),
        ({"manage_time": "yes"}, "manage_time="),
    ],
)
def test_bad_options_raise_agent_error(options, message):
    with pytest.raises(AgentError, match=message):
        agents.make("mcts", **options)


def test_refuses_finished_games():
    s = board(GOMOKU, ["xxxx....."] + ["........."] * 3 + ["oooo....."] + ["........."] * 4)
    s = GOMOKU.apply(s, GOMOKU.str_to_action(s, "e9"))
    with pytest.raises(AgentError, match="finished"):
        agents.make("mcts", simulations=10).act(GOMOKU, s)


# -- Calculation: chance nodes and hidden information ------------------------------------------

CALC = envs.make_game("calculation")


def _midgame(seed, plies):
    """A Calculation position after ``plies`` moves of a seeded random game (still ongoing)."""
    rng = np.random.default_rng(seed)
    s = CALC.initial_state(seed=seed)
    for _ in range(plies):
        legal = CALC.legal_actions(s)
        nxt = CALC.apply(s, int(rng.choice(legal)))
        if CALC.is_terminal(nxt):
            break
        s = nxt
    return s


def _reorder_stock(s, seed):
    """``s`` with the face-down cards in another order: nothing visible changes."""
    t = s.copy()
    lo, hi = CK.STOCK + s[CK.POS] + 1, CK.STOCK + CK.NSTOCK
    t[lo:hi] = np.random.default_rng(seed).permutation(t[lo:hi])
    return t


@pytest.mark.parametrize("seed, plies", [(0, 0), (1, 5), (2, 15), (3, 25)])
def test_calculation_never_reads_the_stock_order(seed, plies):
    s = _midgame(seed, plies)
    t = _reorder_stock(s, seed + 100)
    assert not np.array_equal(s, t) and CALC.observation(s, 0).tolist() == CALC.observation(t, 0).tolist()
    decisions = []
    for state in (s, t):
        bot = agents.make("mcts", simulations=3000, seed=5)
        decisions.append((bot.act(CALC, state), bot.last_stats["value"], bot.last_stats["nodes"]))
    assert decisions[0] == decisions[1]


def _calculation_settings(threshold, filtered):
    """The kernel's settings of a plain Calculation search: random playouts, c 0.5."""
    return K.search_settings(
        num_actions=CALC.num_actions,
        num_players=1,
        chance=1,
        num_outcomes=CK.CHANCE_OUTCOMES,
        c=0.5,
        threshold=threshold,
        max_nodes=1 << 20,
        policy=K.RANDOM,
        rave_k=0.0,
        use_priors=1,
        filtered=filtered,
        progress=0.0,
    )


def test_calculation_tree_invariants():
    s = _midgame(4, 10)
    links, value, amaf, meta = K.new_tree(1 << 16)
    sims = 4000
    settings = _calculation_settings(threshold=5, filtered=0)
    compiled(K, CALC.spec).run(CALC.kernel_params, s, (links, value, amaf, meta), settings, sims, R.new_rng(9))
    used = meta[K.USED]
    assert links[0, K.VISITS] == sims
    kinds_seen = set()
    for node in range(used):
        first, count = links[node, K.FIRST], links[node, K.COUNT]
        assert 0.0 <= value[node] <= 1.0
        if first < 0:
            continue
        kids = np.arange(first, first + count)
        visited = kids[links[kids, K.VISITS] > 0]
        kinds_seen.add(int(links[node, K.KIND]))
        if links[node, K.KIND] == K.CHANCE:
            # one slot per outcome, every visit goes to exactly one outcome, value = weighted mean
            assert count == CK.CHANCE_OUTCOMES and list(links[kids, K.KEY]) == list(range(CK.CHANCE_OUTCOMES))
            assert links[kids, K.VISITS].sum() == links[node, K.VISITS]
            w = links[kids, K.VISITS]
            assert value[node] == pytest.approx((w * value[kids]).sum() / w.sum())
        else:
            # children are the legal moves; a card-turning move leads to a chance node
            assert links[kids, K.VISITS].sum() <= links[node, K.VISITS]
            for kid in kids:
                assert (links[kid, K.KIND] == K.CHANCE) == (links[kid, K.KEY] < CK.FROM_WASTE)
            if len(visited):
                assert value[node] == pytest.approx(value[visited].max())
    assert kinds_seen == {K.DECISION, K.CHANCE}


def _with_a_choice(game, s):
    """``s``, or the first position after it (greedy moves) whose search tree has more than one
    move to try: the default tree plays a move it alone keeps without a search (every first
    move of a Calculation deal)."""
    moves = np.empty(game.num_actions, dtype=np.int64)
    greedy = agents.make("greedy", seed=0)
    filtered = int(agents.make("mcts").settings(game)["filter_moves"])
    while compiled(K, game.spec).search_moves(s, game.kernel_params, moves, filtered) < 2:
        s = game.apply(s, greedy.act(game, s))
    return s


def _calculation_root_children(s, filtered):
    """The moves a Calculation search from ``s`` expands its root with."""
    links, value, amaf, meta = K.new_tree(1 << 14)
    settings = _calculation_settings(threshold=1, filtered=filtered)
    compiled(K, CALC.spec).run(CALC.kernel_params, s, (links, value, amaf, meta), settings, 200, R.new_rng(1))
    first = links[0, K.FIRST]
    return sorted(int(a) for a in links[first : first + links[0, K.COUNT], K.KEY])


def _card_fits_beside_placements(ups=range(1, CK.NUM_ACTIONS)):
    """A Calculation position where the face-up card could be laid on a pile and ``ups`` counts
    the moves that play a card up, with its legal moves and those moves."""
    for seed in range(50):
        for plies in range(0, 30, 3):
            s = _midgame(seed, plies)
            legal = [int(a) for a in CALC.legal_actions(s)]
            up = [a for a in legal if a >= CK.TO_FOUND]
            if len(up) in ups and any(a < CK.TO_FOUND for a in legal):
                return s, legal, up
    raise AssertionError("no such position in 50 deals")


def test_calculation_tree_tries_only_moves_that_play_a_card_up():
    s, legal, _ = _card_fits_beside_placements()
    assert _calculation_root_children(s, 0) == legal
    assert _calculation_root_children(s, 1) == [a for a in legal if a >= CK.TO_FOUND]


def test_calculation_filters_moves_by_default_and_plays_a_lone_kept_move_at_once():
    assert agents.make("mcts").settings(CALC)["filter_moves"] is True
    assert agents.make("mcts", filter_moves=False).settings(CALC)["filter_moves"] is False
    assert agents.make("mcts").settings(GO7)["filter_moves"] is False
    s, _, up = _card_fits_beside_placements(ups=(1,))
    bot = agents.make("mcts", simulations=500, seed=0)
    assert bot.act(CALC, s) == up[0] and bot.last_stats["simulations"] == 0
    unfiltered = agents.make("mcts", simulations=500, filter_moves=False, seed=0)
    unfiltered.act(CALC, s)
    assert unfiltered.last_stats["simulations"] == 500


def test_warm_up_compiles_the_search_though_a_deals_first_move_needs_none():
    # Every first move of a deal is the only one the filtered tree keeps, so it is played without
    # a search; the warm-up (run before a tournament starts its workers) must still have loaded
    # or compiled the search itself, and the root's filter. A fresh process tells.
    code = (
        "import agents, envs\n"
        "from agents import _mcts_kernel as K\n"
        "from envs.core.specialise import compiled\n"
        "game = envs.make_game('calculation')\n"
        "agents.make('mcts').warm_up(game)\n"
        "code = compiled(K, game.spec)\n"
        "print(len(code.run.signatures), len(code.search_moves.signatures))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "1"]


def test_calculation_lost_playouts_earn_their_share_of_cards_up():
    # One simulation: the root's one visited move holds one playout's return, 1 for a win, else
    # progress_reward times the share of the 52 cards that playout got onto the foundations.
    s = _with_a_choice(CALC, _midgame(2, 6))
    up = CALC.foundation_cards(s)
    returns = {}
    for reward in (0.0, 0.2):
        returns[reward] = []
        for seed in range(16):
            bot = agents.make("mcts", simulations=1, progress_reward=reward, seed=seed)
            bot.act(CALC, s)
            returns[reward].append(bot.last_stats["value"])
    won = [v == 1.0 for v in returns[0.0]]
    assert set(returns[0.0]) <= {0.0, 1.0} and not all(won)
    for v, win in zip(returns[0.2], won):  # the same seeds play the same single playout
        cards = v * 52 / 0.2
        assert v == 1.0 if win else (cards == pytest.approx(round(cards)) and up <= round(cards) < 52)


def test_progress_reward_is_the_games_tuning_and_needs_one_player():
    assert agents.make("mcts").settings(CALC)["progress_reward"] == tuned("mcts", "calculation", "progress_reward", 0)
    assert agents.make("mcts").settings(GO7)["progress_reward"] == 0.0
    assert agents.make("mcts", progress_reward=0).settings(CALC)["progress_reward"] == 0.0
    for bad in (-0.1, 1.5, "much"):
        with pytest.raises(AgentError, match="progress_reward="):
            agents.make("mcts", progress_reward=bad)
    with pytest.raises(AgentError, match="needs a one-player game, not go"):
        agents.make("mcts", simulations=10, progress_reward=0.2).act(GO7, GO7.initial_state())
    with pytest.raises(AgentError, match="progress_reward=1.5: expected a number from 0 to 1"):
        agents.tune("mcts", "calculation", progress_reward=1.5)


def test_filter_moves_option_and_tuning_are_checked():
    with pytest.raises(AgentError, match="filter_moves='yes'"):
        agents.make("mcts", filter_moves="yes")
    with pytest.raises(AgentError, match="filter_moves=1: expected True or False"):
        agents.tune("mcts", "calculation", filter_moves=1)


# -- RAVE ---------------------------------------------------------------------------------------------

GO7 = envs.make_game("go", size=7)


def _go_tree(rave_k, sims=3000, seed=2, priors=0):
    s = GO7.apply(GO7.initial_state(), GO7.str_to_action(GO7.initial_state(), "D4"))
    links, value, amaf, meta = K.new_tree(1 << 16)
    code = compiled(K, GO7.spec)
    run = code.run_rave if rave_k > 0 else code.run
    settings = K.search_settings(
        num_actions=GO7.num_actions,
        num_players=2,
        chance=0,
        num_outcomes=0,
        c=0.5,
        threshold=5,
        max_nodes=1 << 20,
        policy=GO7.spec.playouts.index("light"),
        rave_k=rave_k,
        use_priors=priors,
        filtered=0,
        progress=0.0,
    )
    run(GO7.kernel_params, s, (links, value, amaf, meta), settings, sims, R.new_rng(seed))
    return links, value, amaf, meta


def test_rave_statistics_are_consistent_with_the_tree():
    links, value, amaf, meta = _go_tree(1000.0)
    root_kids = np.arange(links[0, K.FIRST], links[0, K.FIRST] + links[0, K.COUNT])
    # AMAF credits a child for every simulation through its parent in which its action came up:
    # never more than the parent's simulations, and far more often than the child was chosen.
    for node in range(meta[K.USED]):
        first, count = links[node, K.FIRST], links[node, K.COUNT]
        if first < 0:
            continue
        kids = np.arange(first, first + count)
        assert (amaf[kids, 0] <= links[node, K.VISITS]).all()
        assert ((0.0 <= amaf[kids, 1]) & (amaf[kids, 1] <= 1.0)).all()
    stone_kids = root_kids[links[root_kids, K.KEY] < 49]
    assert amaf[stone_kids, 0].sum() > 10 * links[stone_kids, K.VISITS].sum()
    # Without RAVE nothing is recorded.
    links, value, amaf, meta = _go_tree(0.0)
    assert not amaf[: meta[K.USED]].any()


def test_rave_is_the_go_default_and_seeded():
    assert agents.tuning.tuned("mcts", "go", "rave", 0.0) > 0
    s = GO7.initial_state()
    runs = []
    for _ in range(2):
        bot = agents.make("mcts", simulations=1500, seed=4)
        runs.append(([bot.act(GO7, s) for _ in range(2)], bot.last_stats["value"]))
    assert runs[0] == runs[1]


def test_go_priors_start_every_new_node():
    # Each expanded node's children start from Go's prior knowledge: at least the even virtual
    # simulations each, and an own true eye is never rated above a loss-heavy prior.
    from envs.go import evaluation as E

    links, value, amaf, meta = _go_tree(1000.0, sims=1000, priors=1)
    expanded = [n for n in range(meta[K.USED]) if links[n, K.FIRST] >= 0]
    assert len(expanded) > 10
    for node in expanded:
        kids = np.arange(links[node, K.FIRST], links[node, K.FIRST] + links[node, K.COUNT])
        stones = kids[links[kids, K.KEY] < 49]  # pass has no prior
        assert (amaf[stones, 0] >= E.PRIOR_EVEN).all()
    # Without RAVE they start the children's own means the same way; without priors nothing is
    # recorded.
    links, value, amaf, meta = _go_tree(0.0, sims=1000, priors=1)
    kids = np.arange(links[0, K.FIRST], links[0, K.FIRST] + links[0, K.COUNT])
    assert (amaf[kids[links[kids, K.KEY] < 49], 0] >= E.PRIOR_EVEN).all()
    links, value, amaf, meta = _go_tree(0.0, sims=1000, priors=0)
    assert not amaf[: meta[K.USED]].any()


# White (to move) leads, with fights left on the board: a middle game met against GNU Go, where a
# 200-simulation search passed (8 seeds of 8), rating the pass at the playouts' mean through the
# passes that end every playout; Black's free move then started the loss of every White group.
WON_MIDDLE_GAME = """
9 x . x o . x o o o
8 o x x o x x o x x
7 o o x x x o o x .
6 . o o o x o . x o
5 . x . o x o o o o
4 . x o o o x x o x
3 . x . x o x x x x
2 . . x . x o o x .
1 . . . . . . o x .
  a b c d e f g h j
to_move=o ply=61 passes=0 ko=-
"""


def test_go_search_does_not_pass_in_a_middle_game():
    state = GO9.from_text(WON_MIDDLE_GAME)
    for seed in range(3):
        bot = agents.make("mcts", simulations=200, seed=seed)
        assert bot.act(GO9, state) != GO9.pass_action
        assert bot.last_stats["value"] > 0.5


@pytest.mark.parametrize(
    "name, params", [("othello", {"size": 6}), ("gomoku", {"size": 9}), ("loa", {}), ("go", {"size": 7})]
)
@pytest.mark.parametrize("rave", [300.0, 0.0])
def test_priors_change_nothing_where_a_game_has_none(name, params, rave):
    # The hook's default gives no virtual simulations: with RAVE on or off, a game without priors
    # plays the same moves with the same statistics whether the agent asks for priors or not; Go,
    # Gomoku and LOA have priors, and they change its search.
    game = envs.make_game(name, **params)
    s = game.initial_state(seed=3)
    runs = []
    for priors in (True, False):
        bot = agents.make("mcts", simulations=600, rave=rave, priors=priors, seed=5)
        runs.append([(bot.act(game, s), bot.last_stats["value"], bot.last_stats["nodes"]) for _ in range(2)])
    if name in ("go", "gomoku", "loa"):
        assert runs[0] != runs[1]
    else:
        assert runs[0] == runs[1]


def test_loa_priors_follow_the_evaluation_and_a_win():
    # LOA's priors rate each move by the evaluation after it (the greedy player's score): the
    # moves of higher score start higher, and a move that wins at once starts as a win.
    from envs.loa import evaluation as E

    game = envs.make_game("loa")
    s, winning = _win_in_one_position(game, seed=7)
    legal = game.legal_actions(s)
    out = np.zeros((len(legal), 2))
    E.priors(s, game.kernel_params, legal, len(legal), out)
    assert (out[:, 0] == E.PRIOR_VISITS).all() and ((0 < out[:, 1]) & (out[:, 1] <= 1)).all()
    wins = np.isin(legal, winning)
    assert (out[wins, 1] == 1.0).all() and (out[~wins, 1] < 1.0).all()
    score = [E.tactical(s, game.apply(s, int(a)), game.kernel_params, int(a), E.WEIGHTS) for a in legal[~wins]]
    assert np.all(np.diff(out[~wins, 1][np.argsort(score)]) >= 0)  # same order as the scores


@pytest.mark.parametrize("name, threshold", [("calculation", 1), ("othello", 5), ("gomoku", 1)])
def test_the_expansion_threshold_defaults_to_the_games(name, threshold):
    game = envs.make_game(name)
    s = _with_a_choice(game, game.initial_state(seed=3))
    default, explicit = (
        agents.make("mcts", simulations=400, seed=0, **options) for options in ({}, {"threshold": threshold})
    )
    assert default.act(game, s) == explicit.act(game, s)
    assert default.last_stats == {**explicit.last_stats, "seconds": default.last_stats["seconds"]}
    other = agents.make("mcts", simulations=400, threshold=3, seed=0)
    other.act(game, s)
    assert other.last_stats["nodes"] != default.last_stats["nodes"]


def test_rave_needs_two_players():
    calc = envs.make_game("calculation")
    agents.make("mcts", simulations=50, seed=0).act(calc, calc.initial_state(seed=1))  # default: off
    with pytest.raises(AgentError, match="rave=.*two-player"):
        agents.make("mcts", simulations=50, rave=500, seed=0).act(calc, calc.initial_state(seed=1))


def test_tree_reuse_keeps_the_subtree_of_the_position_reached():
    s = GO7.initial_state()
    bot = agents.make("mcts", simulations=2000, seed=6)
    a = bot.act(GO7, s)
    _, _, (tree,), played = bot._memory
    assert played == a
    links = tree.links
    chosen = next(i for i in range(links[0, K.FIRST], links[0, K.FIRST] + links[0, K.COUNT]) if links[i, K.KEY] == a)
    kids = np.arange(links[chosen, K.FIRST], links[chosen, K.FIRST] + links[chosen, K.COUNT])
    reply = kids[np.argmax(links[kids, K.VISITS])]
    expected = links[reply, K.VISITS]
    after = GO7.apply(GO7.apply(s, a), int(links[reply, K.KEY]))
    bot.act(GO7, after)
    assert bot.last_stats["reused"] == expected > 0
    new = bot._memory[2][0].links
    assert new[0, K.VISITS] == expected + 2000  # the budget comes on top of what was kept
    first, count = new[0, K.FIRST], new[0, K.COUNT]
    assert new[first : first + count, K.VISITS].sum() <= new[0, K.VISITS]
    # Another position, a new game or reuse=False: a fresh tree.
    bot.act(GO7, GO7.apply(after, GO7.str_to_action(after, "A1")))
    assert bot.last_stats["reused"] == 0
    bot.reset()
    bot.act(GO7, s)
    assert bot.last_stats["reused"] == 0
    plain = agents.make("mcts", simulations=2000, reuse=False, seed=6)
    plain.act(GO7, s)
    plain.act(GO7, after)
    assert plain.last_stats["reused"] == 0


def _root_visits(tree):
    links = tree.links
    first, count = links[0, K.FIRST], links[0, K.COUNT]
    return dict(zip(links[first : first + count, K.KEY].tolist(), links[first : first + count, K.VISITS].tolist()))


def test_threads_search_one_tree_each_and_play_the_most_visits_summed():
    s = GO7.initial_state()
    bot = agents.make("mcts", simulations=3001, threads=2, seed=5)
    a = bot.act(GO7, s)
    trees = bot._memory[2]
    assert len(trees) == 2
    first, second = (_root_visits(t) for t in trees)
    assert sum(first.values()) + sum(second.values()) == 3001 == bot.last_stats["simulations"]
    assert first != second  # two searches on streams of their own, not one search twice
    summed = {k: first.get(k, 0) + second.get(k, 0) for k in first.keys() | second.keys()}
    assert summed[a] == max(summed.values())
    assert bot.last_stats["nodes"] == sum(int(t.meta[K.USED]) for t in trees)
    # A simulation budget is shared out, so the move depends on the seed alone.
    again = agents.make("mcts", simulations=3001, threads=2, seed=5)
    assert again.act(GO7, s) == a and again.last_stats == {**bot.last_stats, "seconds": again.last_stats["seconds"]}
    # Both trees are kept for the next move: after the reply the first tree explored most.
    links = trees[0].links
    chosen = next(i for i in range(links[0, K.FIRST], links[0, K.FIRST] + links[0, K.COUNT]) if links[i, K.KEY] == a)
    kids = np.arange(links[chosen, K.FIRST], links[chosen, K.FIRST] + links[chosen, K.COUNT])
    reply = int(links[kids[np.argmax(links[kids, K.VISITS])], K.KEY])
    bot.act(GO7, GO7.apply(GO7.apply(s, a), reply))
    assert bot.last_stats["reused"] > 0 and len(bot._memory[2]) == 2


def test_one_thread_searches_as_before_threads_existed():
    s = GO7.initial_state()
    one = agents.make("mcts", simulations=1500, seed=9)
    explicit = agents.make("mcts", simulations=1500, threads=1, seed=9)
    moves = [one.act(GO7, s), explicit.act(GO7, s)]
    assert moves[0] == moves[1]
    assert one.last_stats["nodes"] == explicit.last_stats["nodes"]


def test_never_passes_into_a_lost_count():
    # After Black passes, White can pass and end the game: on an empty 5x5 board that is a win
    # by komi. Any stone keeps the game going.
    game = envs.make_game("go", size=5)
    s = game.initial_state()
    assert agents.tactics.loses_at_once(game, s, game.str_to_action(s, "pass"))
    assert not agents.tactics.loses_at_once(game, s, game.str_to_action(s, "C3"))


# -- Calculation: the rule-based playout policy ---------------------------------------------------


def _playout_wins(policy, deals):
    """Deals won by one playout of ``policy`` from the start (seeded: the count is exact)."""
    p = CALC.kernel_params
    playout = compiled(K, CALC.spec)._playout
    moves = np.empty(CALC.num_actions, dtype=np.int64)
    rng = R.new_rng(0)
    wins = 0
    for deal in range(deals):
        s = CALC.initial_state(seed=deal)
        playout(s, p, moves, rng, policy, np.empty((0, 2), dtype=np.int64), False)
        wins += CALC.returns(s)[0] > 0
    return wins


def test_greedy_playouts_win_where_random_ones_do_not():
    # Why the option exists: uniform playouts win about 1 deal in 100,000, so with them nearly every
    # leaf scores 0; the rule-based policy wins about 1 deal in 10 (docs/patience.md).
    assert _playout_wins(K.RANDOM, 300) == 0
    assert _playout_wins(CALC.spec.playouts.index("greedy"), 300) >= 20


def test_checked_playouts_win_more_than_greedy_ones():
    # The default playout asks the unwinding check of the pile the rule picks: deals 0..1999, one
    # playout each, 280 won against 172 (docs/patience.md); exact for the fixed seed, so the
    # bounds sit just inside and fail only if either policy changes for the worse.
    greedy = _playout_wins(CALC.spec.playouts.index("greedy"), 2000)
    checked = _playout_wins(CALC.spec.playouts.index("checked"), 2000)
    assert greedy >= 165 and checked >= 270


@pytest.mark.parametrize("playout", ["random", "greedy", "checked"])
def test_calculation_never_reads_the_stock_order_with_each_playout(playout):
    s = _midgame(6, 12)
    t = _reorder_stock(s, 106)
    decisions = []
    for state in (s, t):
        bot = agents.make("mcts", simulations=1500, playout=playout, seed=8)
        moves = []
        for _ in range(2):  # the second move is searched from the bot's advanced stream too
            moves.append(bot.act(CALC, state))
        decisions.append((moves, bot.last_stats["value"], bot.last_stats["nodes"]))
    assert decisions[0] == decisions[1]


def test_greedy_playouts_find_value_where_random_ones_find_none():
    # From the same position and budget, random playouts see (almost) only lost games, while
    # greedy playouts rate the best move well above zero.
    s = _midgame(5, 6)
    values = {}
    for playout in ("random", "greedy"):
        bot = agents.make("mcts", simulations=2000, playout=playout, seed=3)
        bot.act(CALC, s)
        values[playout] = bot.last_stats["value"]
    assert values["greedy"] > 0.05 and values["greedy"] > values["random"]


@pytest.mark.parametrize("playout", ["greedy", "foundation-first"])
def test_patience_playouts_refuse_other_games(playout):
    with pytest.raises(AgentError, match="not a policy of gomoku"):
        agents.make("mcts", simulations=10, playout=playout).act(GOMOKU, GOMOKU.initial_state())


def test_unknown_playout_is_refused():
    with pytest.raises(AgentError, match="playout='smart'"):
        agents.make("mcts", playout="smart")


def _random_walk(game, rng, low, high):
    """The position after ``low`` to ``high - 1`` uniformly random moves from the start."""
    s = game.initial_state()
    for _ in range(int(rng.integers(low, high))):
        legal = game.legal_actions(s)
        s = game.apply(s, int(legal[rng.integers(len(legal))]))
    return s


def test_gomoku_leaf_values_are_the_evaluation_from_the_movers_side():
    # Gomoku's default search plays no playouts: a leaf's value is tanh(evaluation / scale) for
    # the side to move there, and the root's value says who is ahead, the right way round.
    from envs.gomoku import evaluation as E

    game = envs.make_game("gomoku", size=9)
    rng = np.random.default_rng(5)
    seen = {True: 0, False: 0}
    while min(seen.values()) < 2:
        s = _random_walk(game, rng, 6, 16)
        if game.is_terminal(s) or any(agents.tactics.forced_win(game, s, seat) for seat in (0, 1)):
            continue
        v = E.evaluate(s, game.kernel_params, E.WEIGHTS)
        assert E.leaf_value(s, game.kernel_params, E.EVALUATION) == pytest.approx(np.tanh(v / E.VALUE_SCALE))
        assert np.isnan(E.leaf_value(s, game.kernel_params, E.THREATS))
        if abs(v) < E.VALUE_SCALE or seen[v > 0] >= 2:
            continue
        bot = agents.make("mcts", simulations=64, seed=0)
        bot.act(game, s)
        assert (bot.last_stats["value"] > 0.5) == (v > 0), (v, bot.last_stats["value"])
        seen[v > 0] += 1


def test_othello_leaf_values_are_the_hand_written_evaluation_from_the_movers_side():
    # Othello's default search plays no playouts: a leaf's value is tanh(evaluation / scale) of
    # the hand-written evaluation (the pattern table is not a leaf's) for the side to move there,
    # at every size, and the root's value says who is ahead, the right way round.
    from envs.othello import evaluation as E

    assert tuned("mcts", "othello", "playout", "random") == "evaluation"
    rng = np.random.default_rng(3)
    for size in (6, 8):
        game = envs.make_game("othello", size=size)
        seen = {True: 0, False: 0}
        while min(seen.values()) < 2:
            s = _random_walk(game, rng, 8, 30)
            if game.is_terminal(s):
                continue
            v = E.evaluate(s, game.kernel_params, E.WEIGHTS)
            assert E.leaf_value(s, game.kernel_params, E.EVALUATION) == pytest.approx(np.tanh(v / E.VALUE_SCALE))
            assert np.isnan(E.leaf_value(s, game.kernel_params, 0))
            if abs(v) < 2 * E.VALUE_SCALE or seen[v > 0] >= 2:
                continue
            bot = agents.make("mcts", simulations=64, seed=0)
            bot.act(game, s)
            assert (bot.last_stats["value"] > 0.5) == (v > 0), (size, v, bot.last_stats["value"])
            seen[v > 0] += 1


def test_search_settings_are_one_type_whatever_the_caller_passes():
    # The kernel is compiled per argument type: settings given as ints where floats are meant
    # (c=1, rave_k=0) or as bools must still hit the one compiled search, not compile another.
    import numba

    def settings(**changes):
        base = dict(num_actions=81, num_players=2, chance=0, num_outcomes=0, c=0.5, threshold=5, max_nodes=1 << 20)
        base.update(policy=K.RANDOM, rave_k=0.0, use_priors=0, filtered=0, progress=0.0)
        return K.search_settings(**{**base, **changes})

    loose = settings(c=1, rave_k=0, use_priors=True, filtered=np.int32(1), progress=0, max_nodes=np.int64(1024))
    assert numba.typeof(loose) == numba.typeof(settings())
    assert loose[K.S_C] == 1.0 and loose[K.S_USE_PRIORS] == 1 and loose[K.S_MAX_NODES] == 1024
