"""The OpenSpiel bridge: our games pass OpenSpiel's own checks and replay our kernels move for
move; OpenSpiel's bots play in our referee (``envs.openspiel``, ``agents.openspiel``)."""

import json
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason='OpenSpiel is not installed (the openspiel extra: pip install "arbiter-games[openspiel]")'
)

from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation  # noqa: E402

import agents  # noqa: E402
import agents.openspiel  # noqa: E402
import envs  # noqa: E402
import envs.openspiel  # noqa: E402
from envs.core import kernel as C  # noqa: E402
from envs.core.specialise import hooks  # noqa: E402
from tournaments import cli  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# (OpenSpiel game string, Arbiter name, Arbiter parameters): every game, several board sizes
CASES = [
    ("arbiter_loa", "loa", {}),
    ("arbiter_loa(rules=openspiel)", "loa", {"rules": "openspiel"}),
    ("arbiter_othello(size=6)", "othello", {"size": 6}),
    ("arbiter_othello", "othello", {}),
    ("arbiter_gomoku(size=7)", "gomoku", {"size": 7}),
    ("arbiter_gomoku(size=9,exact_five=True)", "gomoku", {"size": 9, "exact_five": True}),
    ("arbiter_go(size=5,komi=0.5)", "go", {"size": 5, "komi": 0.5}),
    ("arbiter_go(size=9,komi=7.5)", "go", {"size": 9, "komi": 7.5}),
    ("arbiter_calculation", "calculation", {}),
]
IDS = [case[0] for case in CASES]


@pytest.fixture(scope="module", autouse=True)
def registered():
    return envs.openspiel.register()


def test_every_registered_game_is_an_openspiel_game_with_its_spec(registered):
    assert registered == tuple(envs.openspiel.PREFIX + name for name in envs.names())
    assert set(registered) <= set(pyspiel.registered_names())
    for spec in envs.specs():
        kind = pyspiel.load_game(envs.openspiel.PREFIX + spec.name).get_type()
        assert kind.max_num_players == kind.min_num_players == spec.num_players
        stochastic = kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert stochastic == (spec.chance_outcomes > 0)
        defaults = kind.parameter_specification
        assert defaults["rules"] == "standard"
        for param in spec.params:
            assert defaults[param.name] == (0 if param.default is None else param.default)


@pytest.mark.parametrize("text, name, params", CASES, ids=IDS)
def test_loaded_games_carry_our_parameters(text, name, params):
    game = pyspiel.load_game(text)
    ours = envs.make_game(name, **params)
    assert game.arbiter.params == ours.params and game.arbiter.rules == ours.rules
    assert game.num_distinct_actions() == ours.num_actions
    assert game.observation_tensor_shape() == list(ours.observation_shape)
    again = pyspiel.load_game(envs.openspiel.openspiel_name(ours))
    assert again.arbiter.params == ours.params


def test_bad_parameters_and_illegal_moves_raise_our_typed_errors():
    with pytest.raises(envs.ParameterError, match="size=4"):
        pyspiel.load_game("arbiter_othello(size=4)")
    with pytest.raises(envs.ParameterError, match="rules"):
        pyspiel.load_game("arbiter_go(rules=japanese)")
    state = pyspiel.load_game("arbiter_othello(size=6)").new_initial_state()
    with pytest.raises(envs.IllegalActionError, match=r"action 0 \(a1\) is not legal"):
        state.apply_action(0)
    assert state.history() == [] and state.move_number() == 0  # untouched


@pytest.mark.parametrize("text, name, params", CASES, ids=IDS)
def test_openspiel_random_sim_test_with_serialisation(text, name, params):
    game = pyspiel.load_game(text)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _random_walk(game, seed, plies=None):
    """States along one seeded random game of an OpenSpiel game (chance sampled as told)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal() and (plies is None or len(states) <= plies):
        if state.is_chance_node():
            slots, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(slots, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        states.append(state.clone())
    return states


@pytest.mark.parametrize("text, name, params", CASES, ids=IDS)
def test_observation_and_information_state_checks(text, name, params):
    """OpenSpiel's observers agree with the state's own tensors and strings, the tensor is our
    encoder's, and the information state is the public history (perfect recall)."""
    game = pyspiel.load_game(text)
    ours = game.arbiter
    observation = make_observation(game)
    info_state = make_observation(game, INFO_STATE_OBS_TYPE)
    assert observation.tensor.shape == (int(np.prod(game.observation_tensor_shape())),)
    assert observation.dict["observation"].shape == tuple(ours.observation_shape)
    for state in _random_walk(game, seed=7, plies=60):
        for seat in range(game.num_players()):
            observation.set_from(state, seat)
            assert np.array_equal(observation.tensor, np.asarray(state.observation_tensor(seat), dtype=np.float32))
            assert observation.string_from(state, seat) == state.observation_string(seat)
            assert info_state.string_from(state, seat) == state.information_state_string(seat) == state.history_str()
            if not state.is_chance_node():
                expected = ours.observation(state.arbiter_array(), seat).ravel()
                assert np.array_equal(observation.tensor, expected)
                lines = state.observation_string(seat).splitlines()  # no hidden card order, only counts
                assert all(line.endswith("face-down") for line in lines if line.startswith("stock:"))


@pytest.mark.parametrize("text, name, params", CASES, ids=IDS)
def test_bridge_playouts_equal_our_kernel_move_for_move(text, name, params):
    """A seeded random game through the bridge and through the Game API, in lockstep: the same
    legal moves, seats, notation and positions at every ply, the same returns at the end. The
    patience's deal is ours, turned up by the bridge's chance nodes card for card."""
    game = pyspiel.load_game(text)
    ours = envs.make_game(name, **params)
    revealed = hooks(ours.spec).revealed
    for seed in range(3):
        rng = np.random.default_rng(seed)
        mine = ours.initial_state(seed=seed)
        state = game.new_initial_state()
        plies = 0
        while True:
            if state.is_chance_node():
                state.apply_action(int(revealed(mine, ours._p)))
                continue
            assert np.array_equal(ours.observation(state.arbiter_array(), 0), ours.observation(mine, 0))
            assert state.is_terminal() == ours.is_terminal(mine)
            if state.is_terminal():
                break
            legal = ours.legal_actions(mine)
            assert state.legal_actions() == legal.tolist() and state.current_player() == ours.current_player(mine)
            action = int(rng.choice(legal))
            assert state.action_to_string(state.current_player(), action) == ours.action_to_str(mine, action)
            state.apply_action(action)
            mine = ours.apply(mine, action)
            plies += 1
        assert state.returns() == ours.returns(mine).tolist()
        assert plies == int(mine[C.H_PLY])


def test_chance_nodes_give_the_exact_distribution_of_the_unseen_cards():
    game = pyspiel.load_game("arbiter_calculation")
    state = game.new_initial_state()
    assert state.is_chance_node()
    deal = dict(state.chance_outcomes())
    # the stock holds 48 cards: three each of A-4 (their fourth is a foundation's base), four of 5-K
    assert deal == {rank: (3 if rank <= 4 else 4) / 48 for rank in range(1, 14)}
    state.apply_action(13)  # a King turns up first
    assert not state.is_chance_node() and "face-up: K" in str(state)
    state.apply_action(0)  # the King to waste pile 1: the next card turns
    assert state.is_chance_node()
    after = dict(state.chance_outcomes())
    assert after[13] == pytest.approx(3 / 47) and after[1] == pytest.approx(3 / 47)
    assert sum(after.values()) == pytest.approx(1.0)
    with pytest.raises(envs.IllegalActionError, match="cannot turn up"):
        state.apply_action(0)  # slot 0 (an empty stock) is not among them


def test_serialised_and_pickled_states_round_trip_at_chance_and_player_nodes():
    for text in ("arbiter_calculation", "arbiter_go(size=7,komi=7.5)"):
        game = pyspiel.load_game(text)
        for state in _random_walk(game, seed=3, plies=40)[::7]:
            game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
            assert str(game2) == str(game) and str(state2) == str(state) and state2.history() == state.history()
            assert state2.is_chance_node() == state.is_chance_node()
            again = pickle.loads(pickle.dumps(state))
            assert str(again) == str(state) and again.history() == state.history()


def test_from_array_starts_at_our_position_and_hides_the_stock():
    ours = envs.make_game("calculation")
    game = envs.openspiel.load(ours)
    deal = ours.initial_state(seed=11)
    state = envs.openspiel.from_array(game, deal)
    assert state.history() == [] and state.legal_actions() == ours.legal_actions(deal).tolist()
    turn = next(a for a in state.legal_actions() if a < 4)  # the face-up card to a waste pile
    state.apply_action(turn)
    assert state.is_chance_node()  # not the card our deal holds: OpenSpiel must draw it
    with pytest.raises(TypeError, match="envs.openspiel"):
        envs.openspiel.from_array(pyspiel.load_game("tic_tac_toe"), deal)


def test_openspiel_mcts_runs_on_our_games_and_evaluate_bots():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = pyspiel.load_game("arbiter_gomoku(size=7)")
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, bot], rng)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_openspiel_agents_are_seeded_and_pickle_without_their_bots():
    game = envs.make_game("othello", size=6)

    def play(seed):
        black = agents.make(f"openspiel_mcts:simulations=25,seed={seed}")
        white = agents.make(f"openspiel_random:seed={seed}")
        state, moves = game.initial_state(), []
        while not game.is_terminal(state):
            bot = (black, white)[game.current_player(state)]
            moves.append(bot.act(game, state))
            state = game.apply(state, moves[-1])
        return moves, pickle.loads(pickle.dumps(black))

    first, shipped = play(4)
    assert play(4)[0] == first and play(5)[0] != first
    assert shipped._bots == {} and shipped.settings(game)["simulations"] == 25
    calculation = envs.make_game("calculation")
    state = calculation.initial_state(seed=2)
    assert agents.make("openspiel_mcts:simulations=8,seed=1").act(calculation, state) in calculation.legal_actions(
        state
    )


def test_the_bots_are_named_as_openspiel_users_write_them():
    assert agents.parse_spec("openspiel:mcts") == ("openspiel_mcts", {})
    assert agents.parse_spec("openspiel:mcts:simulations=9,seed=2") == (
        "openspiel_mcts",
        {"simulations": "9", "seed": "2"},
    )
    assert agents.make("openspiel:random:seed=1").name == agents.make("openspiel_random:seed=1").name
    with pytest.raises(agents.AgentError, match="not of the form key=value"):
        agents.parse_spec("openspiel:depth")  # no such member: an option without a value, as before


def uniform_bot(openspiel_game, seat, seed):
    """A C++ bot of OpenSpiel's for ``BotAgent`` (module level: it pickles)."""
    return pyspiel.make_uniform_random_bot(seat, seed)


def test_bot_agent_wraps_any_pyspiel_bot():
    game = envs.make_game("go", size=5)
    bot = agents.openspiel.BotAgent(uniform_bot, name="cpp_random", seed=3)
    state = game.initial_state()
    assert bot.name == "cpp_random" and bot.act(game, state) in game.legal_actions(state)
    with pytest.raises(agents.AgentError, match="bot_factory"):
        agents.openspiel.BotAgent("mcts")


def test_an_openspiel_mcts_bot_plays_a_seeded_resumable_round_robin(tmp_path, capsys):
    journal = tmp_path / "run.db"
    args = ["tournament", "--game", "othello", "-p", "size=6", "--system", "round_robin", "--games", "2"]
    args += ["--agents", "openspiel:mcts:simulations=20,seed=1", "random:seed=2", "greedy", "--workers", "0"]
    args += ["--seed", "3", "--journal", str(journal)]
    assert cli.main(args) == 0
    assert "openspiel:mcts" in capsys.readouterr().out

    def records():
        with sqlite3.connect(journal) as db:
            return [json.loads(r) for (r,) in db.execute("SELECT record FROM games ORDER BY idx")]

    full = records()
    assert len(full) == 6 and any("openspiel:mcts" in json.dumps(r) for r in full)
    with sqlite3.connect(journal) as db:
        db.execute("DELETE FROM games WHERE idx >= 3")
    assert cli.main(args + ["--resume"]) == 0
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("seconds", "times")} for r in rs]
    assert strip(records()) == strip(full)  # the replayed games are the same games


def test_importing_envs_and_agents_does_not_import_openspiel_and_its_absence_is_explained():
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "import envs, envs.openspiel, agents\n"
        "try:\n    envs.openspiel.register()\nexcept ImportError as e:\n    print('hint:', e)\n"
        "try:\n    agents.make('openspiel_mcts').check_ready(envs.make_game('othello'))\n"
        "except agents.AgentError as e:\n    print('agent:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert 'hint: OpenSpiel (pyspiel) is not installed; pip install "arbiter-games[openspiel]"' in out
    assert "agent: agent 'openspiel_mcts' needs OpenSpiel" in out
    lazy = "import envs, envs.openspiel, agents, sys; print('pyspiel' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", lazy], cwd=ROOT, capture_output=True, text=True).stdout == "False\n"
