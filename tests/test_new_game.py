"""A game defined outside ``envs/`` (Connect Four, ``tests/connect_four``) registered through the
public API runs through the generic machinery unchanged: it passes ``envs.testing.check_game``
(the Game contract, Gymnasium, PettingZoo, the vector env, random playouts, perft) in every
configuration ``envs.testing.variants`` derives from its spec, and plays with the agents and in a
tournament.

Connect Four has a non-square board (7 x 6) and actions that are columns, not cells, so it also
checks that nothing generic assumes an N x N placement game. A second registration of the same
rules without an evaluation module (``connect_four_plain``) checks the defaults of the optional
hooks (``envs.core.hooks``).
"""

import contextlib
import io
import pickle

import connect_four
import gymnasium
import numpy as np
import pytest
from connect_four import _kernel as K
from connect_four.game import ConnectFour
from gymnasium.utils.env_checker import check_env

import agents
import envs
import tournaments
from envs import testing
from envs.core import NotationError, ParameterError, StateError, TextBoardError
from envs.core import kernel as C
from envs.game import perft


class PlainConnectFour(ConnectFour):
    """The same rules declared without an evaluation module, picture or framework ids."""


PLAIN = envs.GameSpec(
    name="connect_four_plain",
    title="Connect Four (no evaluation)",
    game=PlainConnectFour,
    kernel=K,
    notation=connect_four.notation,
    params=connect_four.SPEC.params,
)


@pytest.fixture(autouse=True, scope="module")
def registered(module_registry):
    """Both games, registered when this module's first test runs (not when pytest collects it,
    so other modules' collection sees only the built-in games) and removed after its last."""
    module_registry.add(connect_four.SPEC, PLAIN)
    yield
    module_registry.restore()
    assert "connect_four" not in envs.GAMES and "ConnectFour-v0" not in gymnasium.registry


NAMES = ("connect_four", "connect_four_plain")


def board(rows):
    """A 7 x 6 text board from its six rows, top first, and the side to move."""
    *grid, to_move = rows
    lines = [f"{6 - r} {' '.join(row)}" for r, row in enumerate(grid)]
    return "\n".join(lines + ["  a b c d e f g", f"to_move={to_move}"]) + "\n"


# x has three in column b and wins there; o threatens d1, which x need not answer.
WIN = board([".......", ".......", ".......", ".x.....", ".x.....", ".x..ooo", "x"])
# o threatens d1 and x has no line to complete: d is the only move that does not lose.
BLOCK = board([".......", ".......", ".......", ".......", "x......", "x.x.ooo", "x"])
# x has a1 b1 c1 and completes the bottom row on d1 (which also blocks o).
HORIZONTAL = board([".......", ".......", ".......", "o......", "x......", "xxx.ooo", "x"])
# x: a1 b2 c3, d has three discs: x completes the rising diagonal on d4.
DIAGONAL = board([".......", ".......", ".......", "..xo...", ".xox...", "xoxo..o", "x"])
# one empty cell left (g6), no line anywhere: o fills the board and it is a draw.
FULL_BUT_ONE = """
6 x x o x o o .
5 o x x o x x x
4 x o o x o x o
3 o x x o o x o
2 x o x x x o x
1 o o x o o x o
  a b c d e f g
to_move=o
"""


def mirrored(text):
    """The same position reflected left to right (a rising line becomes a falling one)."""
    lines = text.strip().splitlines()
    flipped = [f"{line[:2]}{' '.join(reversed(line[2:].split()))}" for line in lines[:-2]]
    return "\n".join(flipped + lines[-2:]) + "\n"


# -- the registry ------------------------------------------------------------------------------


def test_registered_through_the_public_api():
    assert "connect_four" in envs.GAMES and "connect_four_plain" in envs.GAMES
    assert envs.spec("connect_four") is connect_four.SPEC and ConnectFour.spec is connect_four.SPEC
    assert PlainConnectFour.spec is PLAIN
    envs.register(connect_four.SPEC)  # the same spec again: harmless
    with pytest.raises(ParameterError, match="already registered"):
        envs.register(
            envs.GameSpec(
                name="connect_four", title="impostor", game=PlainConnectFour, kernel=K, notation=connect_four.notation
            )
        )
    assert PlainConnectFour.spec is PLAIN  # a refused spec binds nothing
    with pytest.raises(ParameterError, match="connect_four"):
        envs.make_game("connect_five")  # the message lists the registered games, ours included
    assert "ConnectFour-v0" in envs.gym_ids() and "ConnectFour-v0" in gymnasium.registry


def test_parameters_are_validated_before_the_kernel():
    game = envs.make_game("connect_four", columns=10, rows=4, connect=3)
    assert (game.num_actions, game.observation_shape, game.max_moves) == (10, (3, 4, 10), 40)
    assert game.state_len == C.HEADER + 40 + 10
    for bad in (
        {"columns": 3},
        {"rows": 11},
        {"connect": 7},
        {"columns": 7.0},
        {"rows": True},
        {"connect": 5, "columns": 4, "rows": 4},
        {"colums": 7},
        {"rules": "openspiel"},
    ):
        with pytest.raises(ParameterError):
            envs.make_game("connect_four", **bad)
    assert repr(envs.make_game("connect_four", rows=7)) == "make_game('connect_four', rows=7)"


# -- the contract: envs.testing, as a game's author runs it ------------------------------------------

CONFIGS = [(spec.name, params) for spec in (connect_four.SPEC, PLAIN) for params in testing.variants(spec)]


@pytest.mark.parametrize("name, params", CONFIGS, ids=[f"{n}[{testing.variant_id(p)}]" for n, p in CONFIGS])
def test_passes_check_game(name, params):
    testing.check_game(name, params=params)


def test_full_column_is_illegal_and_states_are_not_shared():
    game = envs.make_game("connect_four")
    s = game.initial_state()
    for _ in range(6):
        s = game.apply(s, 0)
    assert list(game.legal_actions(s)) == [1, 2, 3, 4, 5, 6] and not game.is_legal(s, 0)
    with pytest.raises(envs.IllegalActionError, match="action 0"):
        game.apply(s, 0)
    with pytest.raises(NotationError, match="not legal"):
        game.str_to_action(s, "a")
    other = envs.make_game("connect_four", rows=7)
    with pytest.raises(StateError):
        other.legal_actions(s)
    with pytest.raises(StateError):
        envs.make_game("connect_four_plain").legal_actions(s)  # same rules, another game


def test_zobrist_hash_depends_on_the_position_only():
    game = envs.make_game("connect_four")

    def play(moves):
        s = game.initial_state()
        for m in moves:
            s = game.apply(s, game.str_to_action(s, m))
        return s

    a, b, c = play("dec"), play("ced"), play("dce")
    assert a[C.H_HASH] == b[C.H_HASH] != c[C.H_HASH]
    assert game.from_text(game.to_text(c))[C.H_HASH] == c[C.H_HASH]
    assert play("")[C.H_HASH] == 0 and play("d")[C.H_HASH] != 0


def test_perft_counts_every_sequence_before_any_game_can_end():
    game = envs.make_game("connect_four")
    assert [perft(game, game.initial_state(), d) for d in range(7)] == [7**d for d in range(7)]
    small = envs.make_game("connect_four", columns=4, rows=4, connect=3)
    # 4 x 4: a column can be full after ply 4 (aaaa, bbbb, ...: 3 replies instead of 4), and
    # three in a row can end a game at ply 5 (a leaf: no replies at ply 6)
    assert perft(small, small.initial_state(), 4) == 4**4
    assert perft(small, small.initial_state(), 5) == 4**5 - 4
    assert perft(small, small.initial_state(), 6) < 4 * (4**5 - 4)


# -- positions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, move",
    [(WIN, "b"), (HORIZONTAL, "d"), (DIAGONAL, "d"), (mirrored(DIAGONAL), "d")],
    ids=["vertical", "horizontal", "rising-diagonal", "falling-diagonal"],
)
@pytest.mark.parametrize("name", NAMES)
def test_a_line_of_four_wins(name, text, move):
    game = envs.make_game(name)
    state = game.from_text(text)
    assert not game.is_terminal(state) and game.current_player(state) == 0
    after = game.apply(state, game.str_to_action(state, move))
    assert game.is_terminal(after) and game.end_reason(after) == "line"
    assert list(game.returns(after)) == [1.0, -1.0]
    assert len(game.legal_actions(after)) == 0 and not game.legal_mask(after).any()
    # the finished position reads back as finished, with the same hash
    back = game.from_text(game.to_text(after))
    assert game.is_terminal(back) and list(game.returns(back)) == [1.0, -1.0]
    assert back[C.H_HASH] == after[C.H_HASH]


def test_full_board_without_a_line_is_a_draw():
    game = envs.make_game("connect_four")
    state = game.from_text(FULL_BUT_ONE)
    assert not game.is_terminal(state) and list(game.legal_actions(state)) == [6]
    end = game.apply(state, game.str_to_action(state, "G"))
    assert game.is_terminal(end) and game.end_reason(end) == "board_full"
    assert list(game.returns(end)) == [0.0, 0.0] and int(end[C.H_PLY]) == 42


def test_longer_connect_and_wider_boards():
    game = envs.make_game("connect_four", columns=8, rows=5, connect=5)
    s = game.initial_state()
    for m in "aabbccdd":
        s = game.apply(s, game.str_to_action(s, m))
    assert not game.is_terminal(s)  # four in a row is not enough for connect=5
    s = game.apply(s, game.str_to_action(s, "e"))
    assert game.is_terminal(s) and game.returns(s)[0] == 1.0
    assert game.observation(s, 1).shape == (3, 5, 8)


def test_observation_planes_follow_the_board():
    game = envs.make_game("connect_four")
    s = game.from_text(DIAGONAL)
    for seat in (0, 1):
        obs = game.observation(s, seat)
        grid = s[C.HEADER : C.HEADER + 42].reshape(6, 7)
        assert np.array_equal(obs[0], grid == seat + 1) and np.array_equal(obs[1], grid == 2 - seat)
        assert np.all(obs[2] == (seat == 0))
    assert obs[0, 5, 0] == 0 and obs[1, 5, 0] == 1  # a1 (bottom-left) is row 5, column 0


# -- notation and text boards --------------------------------------------------------------------


def test_moves_are_column_letters():
    game = envs.make_game("connect_four", columns=10)
    s = game.initial_state()
    assert [game.action_to_str(s, a) for a in range(10)] == list("abcdefghij")
    assert game.str_to_action(s, " J ") == 9
    for bad in ("k", "d4", "", "dd", "1", "-"):
        with pytest.raises(NotationError):
            game.str_to_action(s, bad)
    with pytest.raises(NotationError):
        game.str_to_action(s, 3)


@pytest.mark.parametrize(
    "text, message",
    [
        (WIN.replace("1 . x", "1 . ."), "column b: a disc floats"),
        (WIN.replace("to_move=x", "to_move=o"), "x must equal o"),
        (board([".......", ".......", ".......", "o......", "ox.....", "oxx.x..", "x"]), "x moves first"),
        (board([".......", ".......", "x......", "x......", "xo.....", "xoo.o..", "x"]), "side to move"),
        (board([".......", ".......", "x.....x", "x.....x", "xoo.o.x", "xoo.oox", "o"]), "no single last move"),
        (board(["x......", "o......", "x......", "x......", "x......", "xoooo..", "x"]), "both x and o"),
        (WIN.replace("1 . x . . o o o", "1 . x . . o o"), "row label"),
        (WIN.replace("1 . x", "1 . #"), "cell"),
        (WIN.replace("  a b c d e f g", "  a b c d e f h"), "column line"),
        (WIN.replace("to_move=x", "to_move=x ply=6"), "status line"),
        (WIN.replace("to_move=x", ""), "lines"),
    ],
    ids=[
        "floating",
        "counts",
        "counts-o",
        "winner-to-move",
        "two-lines",
        "both",
        "short-row",
        "symbol",
        "columns",
        "status",
        "missing-status",
    ],
)
def test_unreachable_or_malformed_text_boards_are_refused(text, message):
    game = envs.make_game("connect_four")
    with pytest.raises(TextBoardError, match=message):
        game.from_text(text)


def test_text_round_trip_on_a_non_square_board():
    game = envs.make_game("connect_four", columns=5, rows=10)
    rng = np.random.default_rng(3)
    s = game.initial_state()
    while not game.is_terminal(s):
        s = game.apply(s, int(rng.choice(game.legal_actions(s))))
        text = game.to_text(s)
        assert text.splitlines()[0].startswith("10 ") and text.splitlines()[-2].split() == list("abcde")
        assert game.to_text(game.from_text(text)) == text
    with pytest.raises(TextBoardError):
        game.from_text(None)


# -- frameworks ----------------------------------------------------------------------------------


def test_gymnasium_checker_passes_against_the_compiled_greedy_opponent():
    """check_game's Gymnasium check plays the random opponent and an agent object; the greedy
    opponent has a compiled path of its own, which reads the game's evaluation."""
    env = gymnasium.make("ConnectFour-v0", columns=5, rows=8, opponent="greedy")
    with contextlib.redirect_stdout(io.StringIO()):  # the checker also renders in "human" mode
        check_env(env.unwrapped, skip_render_check=False)


def test_gymnasium_episode_against_alphabeta():
    env = gymnasium.make("ConnectFour-v0", opponent="alphabeta:depth=2", agent_seat=1)
    obs, info = env.reset(seed=0)
    game = env.unwrapped.game
    assert int(info["agent_seat"]) == 1 and game.current_player(env.unwrapped.state) == 1
    done, reward = False, 0.0
    while not done:
        assert np.array_equal(obs, game.observation(env.unwrapped.state, 1))
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
        assert not truncated  # Connect Four has no move cap short of the full board
    assert reward == game.returns(env.unwrapped.state)[1]
    picture = gymnasium.make("ConnectFour-v0", render_mode="rgb_array", columns=9, rows=4)
    picture.reset(seed=0)
    frame = picture.render()
    assert frame.dtype == np.uint8 and frame.shape == (4 * 40 + 44, 9 * 40 + 44, 3)


# -- random playouts -------------------------------------------------------------------------------


def test_random_playouts_favour_the_first_player():
    game = envs.make_game("connect_four")
    out = game.random_playouts(20_000, seed=5)
    first = out["returns"][:, 0]
    wins, losses, draws = (first == 1).sum(), (first == -1).sum(), (first == 0).sum()
    # measured: about 55.6% / 44.2% / 0.2% for uniformly random play on 7 x 6
    assert 0.53 < wins / (wins + losses) < 0.58
    assert draws < 0.01 * len(first)
    assert out["lengths"].min() >= 7 and out["lengths"].max() <= 42
    assert np.all(out["lengths"][first == 0] == 42)  # a draw fills the board
    assert np.all(out["lengths"][first == 1] % 2 == 1) and np.all(out["lengths"][first == -1] % 2 == 0)
    plain = envs.make_game("connect_four_plain").random_playouts(1000, seed=5)
    assert np.array_equal(plain["returns"], out["returns"][:1000])  # same rules, same default playouts


# -- agents ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_alphabeta_wins_at_once_and_blocks(name):
    game = envs.make_game(name)
    bot = agents.make("alphabeta:depth=4", seed=0)
    win = game.from_text(WIN)
    assert game.action_to_str(win, bot.act(game, win)) == "b"
    assert bot.last_stats["score"] > 900_000  # a forced win, found at the first iteration
    block = game.from_text(BLOCK)
    assert game.action_to_str(block, bot.act(game, block)) == "d"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1])
def test_mcts_finds_the_immediate_win(name, seed):
    game = envs.make_game(name)
    bot = agents.make("mcts:simulations=500", seed=seed)
    state = game.from_text(WIN)
    assert game.action_to_str(state, bot.act(game, state)) == "b"
    assert bot.last_stats["simulations"] == 0  # a win in one is played without a search


@pytest.mark.parametrize("name", NAMES)
def test_greedy_and_random_play_whole_games(name):
    game = envs.make_game(name)
    greedy_points = 0.0
    for g in range(6):
        players = [agents.make("greedy", seed=g), agents.make("random", seed=100 + g)]
        seat_of_greedy = g % 2
        if seat_of_greedy:
            players.reverse()
        s = game.initial_state()
        while not game.is_terminal(s):
            s = game.apply(s, players[game.current_player(s)].act(game, s))
        greedy_points += game.returns(s)[seat_of_greedy]
    # greedy takes every immediate win; with the evaluation it also builds and blocks lines
    # (measured: 6 of 6 with it, 4 of 6 without)
    assert greedy_points >= (5 if name == "connect_four" else 2)


def test_agents_pickle_for_worker_processes():
    game = envs.make_game("connect_four", columns=6)
    s = game.initial_state()
    for spec in ("alphabeta:depth=2", "mcts:simulations=50", "greedy", "random"):
        bot = agents.make(spec, seed=3)
        bot.act(game, s)  # with its buffers and tables filled
        assert game.is_legal(s, pickle.loads(pickle.dumps(bot)).act(game, s))


def test_games_pickle():
    game = envs.make_game("connect_four", columns=6)
    copy = pickle.loads(pickle.dumps(game))
    assert copy.spec is connect_four.SPEC and list(copy.legal_actions(copy.initial_state())) == list(range(6))


def test_round_robin_alphabeta_beats_random():
    result = tournaments.round_robin(
        ["random", "alphabeta:depth=2"], game="connect_four", seed=1, workers=0, progress=False
    )
    assert result.config["game"] == "connect_four"
    assert len(result.games) == 2 and {g["reason"] for g in result.games} == {"normal"}
    assert result.points == [0.0, 2.0]
    assert result.standings()[0].name.startswith("alphabeta")
    assert all(set(g["moves"]) <= set("abcdefg") for g in result.games)  # moves in our notation


def test_spawned_workers_register_the_game_their_parent_registered():
    """A worker started by ``spawn`` (or on another machine) imports nothing the parent ran: it
    gets the spec with its context, rebuilds it from the package's modules and registers it."""
    from tournaments.referee.executor import ProcessExecutor

    result = tournaments.round_robin(
        ["random", "alphabeta:depth=2"],
        game="connect_four",
        seed=1,
        executor=ProcessExecutor(1, mp_context="spawn"),
        progress=False,
    )
    assert {g["reason"] for g in result.games} == {"normal"} and result.points == [0.0, 2.0]
