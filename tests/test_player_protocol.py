"""The Player protocol (``agents.Player``, ``agents.as_player``) as the referee meets it, and the
tournament configuration (``tournaments.TournamentConfig``) that ``run`` takes."""

import json
import sqlite3

import numpy as np
import pytest

import agents
import envs
import tournaments
from tournaments.referee.journal import JournalError

GOMOKU = envs.make_game("gomoku", size=7)
OTHELLO = dict(game="othello", size=6)


def lowest(game, state):
    return int(game.legal_actions(state)[0])


class Declared(agents.Player):
    """A player declaring every hook by overriding it: the referee calls each."""

    name = "declared"

    def __init__(self):
        self.calls = []

    def reset(self):
        self.calls.append(("reset",))

    def set_clock(self, clock):
        self.calls.append(("clock", None if clock is None else type(clock).__name__))

    def set_history(self, game, actions):
        self.calls.append(("history", tuple(actions)))

    def act(self, game, state):
        self.calls.append(("act",))
        return lowest(game, state)


def test_a_player_declaring_the_hooks_gets_reset_clock_and_history():
    black, white = Declared(), Declared()
    outcome = tournaments.play_game(GOMOKU, [black, white], opening=(0, 1), clock="60+0")
    assert outcome.reason == "normal" and outcome.opening == 2
    calls = black.calls
    assert calls[:2] == [("reset",), ("history", (0, 1))]  # a new game, then the opening it starts from
    moves = [i for i, c in enumerate(calls) if c == ("act",)]
    assert moves and all(calls[i - 1] == ("clock", "TimeLeft") for i in moves)  # told its clock before each move
    assert calls[-1] == ("clock", None)  # the game is over: no clock any more
    assert white.calls[:2] == [("reset",), ("history", (0, 1))]


def test_a_player_without_hooks_plays_with_the_defaults():
    class Bare(agents.Player):
        def act(self, game, state):
            return lowest(game, state)

    assert tournaments.play_game(GOMOKU, [Bare(), Bare()], clock="60+0", opening=(3,)).reason == "normal"


def test_a_plain_callable_plays_through_the_adapter_as_an_object_would():
    class Lowest:
        def act(self, game, state):
            return lowest(game, state)

    by_function = tournaments.play_game(GOMOKU, [lowest, agents.make("random", seed=3)])
    by_object = tournaments.play_game(GOMOKU, [Lowest(), agents.make("random", seed=3)])
    assert by_function == by_object and by_function.plies > 5
    assert agents.as_player(lowest).name == "lowest"


def test_an_object_with_act_gets_its_own_hooks_bound_once():
    class Duck:
        resets = 0

        def reset(self):
            self.resets += 1

        def act(self, game, state):
            return lowest(game, state)

    duck = Duck()
    player = agents.as_player(duck)
    assert isinstance(player, agents.Player) and player.reset == duck.reset
    tournaments.play_game(GOMOKU, [duck, lowest])
    assert duck.resets == 1
    agent = agents.make("random", seed=0)
    assert agents.as_player(agent) is agent  # an Agent is a Player: nothing to adapt


def test_a_misspelt_hook_is_refused_not_silently_skipped():
    class Typo:
        def set_clok(self, clock):  # never called by a referee that probed for set_clock
            raise AssertionError("called")

        def act(self, game, state):
            return lowest(game, state)

    with pytest.raises(envs.ParameterError, match=r"agents\[1\].*'set_clok'.*'set_clock'"):
        tournaments.play_game(GOMOKU, [lowest, Typo()], clock="60+0")
    with pytest.raises(agents.PlayerError, match=r"Subclassed\.rest: .*'reset' misspelt"):

        class Subclassed(agents.Agent):  # noqa: F841 - refused as the class is made
            def rest(self):
                pass

    with pytest.raises(agents.PlayerError, match=r"agents\[0\]=3: expected a player"):
        tournaments.play_game(GOMOKU, [3, lowest])


def test_a_policy_model_plays_on_the_movers_observation_with_the_legal_mask():
    class Model:  # stable-baselines3's predict, as sb3-contrib's maskable algorithms take it
        def __init__(self):
            self.shapes = []

        def predict(self, observation, state=None, episode_start=None, deterministic=False, action_masks=None):
            assert deterministic and observation.dtype == np.float32
            self.shapes.append(observation.shape)
            return np.array(int(np.flatnonzero(action_masks)[-1])), None

    model = Model()
    outcome = tournaments.play_game(GOMOKU, [model, lowest])
    assert outcome.reason == "normal" and model.shapes[0] == GOMOKU.observation(GOMOKU.initial_state(), 0).shape
    assert outcome.actions[0] == int(GOMOKU.legal_actions(GOMOKU.initial_state())[-1])


def test_a_hook_that_raises_forfeits_its_player():
    class BadClock(Declared):
        def set_clock(self, clock):
            if clock is not None:
                raise RuntimeError("no clock here")

    outcome = tournaments.play_game(GOMOKU, [BadClock(), Declared()], clock="60+0")
    assert outcome.reason == "forfeit-crash" and outcome.loser == 0 and "telling it its clock" in outcome.detail


# -- the tournament configuration ------------------------------------------------------------------


@pytest.mark.parametrize(
    "keywords, named",
    [
        ({"seed": -1}, "seed=-1"),
        ({"setup_time": 0}, "setup_time=0"),
        ({"ratings_every": -2}, "ratings_every=-2"),
        ({"swap": False, "system": "swiss"}, "swap=False"),
        ({"sprt": (0, 10, 0.05, 0.05)}, "sprt="),
        ({"executor": "threads"}, "executor='threads'"),
        ({"openings_order": "random"}, "openings_order="),
        ({"tc": "fast"}, "fast"),
        ({"adjudicator": "greedy"}, "adjudicator='greedy'"),
        ({"colour": "black"}, "colour='black'"),
        ({"games": 3}, "games"),
    ],
)
def test_the_config_refuses_a_bad_value_by_name_before_any_work(tmp_path, keywords, named):
    keywords = dict(keywords)
    system = keywords.pop("system", "round_robin")
    journal = tmp_path / "never.db"
    match = named.replace("(", r"\(").replace("[", r"\[")
    with pytest.raises(ValueError, match=match):
        tournaments.TournamentConfig.of(system, ["random", "greedy"], "othello", **keywords)
    with pytest.raises(ValueError, match=match):
        tournaments.run(system, ["random", "greedy"], journal=journal, workers=0, progress=False, **OTHELLO, **keywords)
    assert not journal.exists()  # refused before the journal was opened


def test_run_takes_the_config_and_the_keywords_build_the_same_one(tmp_path):
    keywords = dict(seed=4, workers=0, progress=False, games=2, opening_plies=2, **OTHELLO)
    config = tournaments.TournamentConfig.of("round_robin", ["random", "greedy", "random:seed=9"], **keywords)
    assert config.options == {"games": 2} and config.game_params == {"size": 6} and config.seed == 4
    by_config = tournaments.run(config)
    by_keywords = tournaments.round_robin(["random", "greedy", "random:seed=9"], **keywords)
    assert [g["moves"] for g in by_config.games] == [g["moves"] for g in by_keywords.games]
    assert by_config.config == by_keywords.config
    with pytest.raises(envs.ParameterError, match="seed="):
        tournaments.run(config, seed=5)  # the configuration alone: a keyword beside it would be lost


def test_resume_with_a_changed_config_is_refused_naming_the_field(tmp_path):
    path = tmp_path / "run.db"
    kw = dict(journal=path, workers=0, progress=False, **OTHELLO)
    tournaments.round_robin(["random", "greedy"], seed=1, **kw)
    stored = json.loads(sqlite3.connect(path).execute("SELECT value FROM meta WHERE key='config'").fetchone()[0])
    assert stored == tournaments.TournamentConfig.of("round_robin", ["random", "greedy"], seed=1, **kw).prepare().record
    with pytest.raises(JournalError, match=r"seed: the journal's 1, now 2"):
        tournaments.round_robin(["random", "greedy"], seed=2, resume=True, **kw)
    with pytest.raises(JournalError, match=r"resign: the journal's none, now False"):
        tournaments.round_robin(["random", "greedy"], seed=1, resume=True, resign=False, **kw)
    again = tournaments.round_robin(["random", "greedy"], seed=1, resume=True, **kw)
    assert len(again.games) == 2
