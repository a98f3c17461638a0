"""Learned agents: PUCT search, AlphaZero training, PPO, safe weights, shipped nets.

Tests that need torch (the ``learn`` extra) are skipped with a reason when it is missing; the
search and encoding tests run on numpy alone. Everything uses one torch thread and fixed seeds.
"""

import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import agents
import tournaments
from agents.learned import _puct_kernel as K
from agents.learned import puct, weights
from envs import ParameterError, make_game
from tournaments import duplicate, match, play_game, solitaire

ROOT = Path(__file__).resolve().parent.parent
try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason='needs the learn extra: pip install "arbiter-games[learn]"')
try:
    import sb3_contrib  # noqa: F401
except ImportError:
    sb3_contrib = None
needs_sb3 = pytest.mark.skipif(
    torch is None or sb3_contrib is None,
    reason='needs the learn extra (torch, sb3-contrib): pip install "arbiter-games[learn]"',
)


def random_position(game, plies, seed):
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        legal = game.legal_actions(state)
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
    return state


def uniform_evaluator(planes):
    """A network stand-in: uniform priors, value 0 (search then rests on finished games only)."""
    n = planes.shape[-1]
    return np.zeros((len(planes), n * n + 1)), np.zeros(len(planes))


# -- no torch needed -----------------------------------------------------------------------------


def test_importing_the_agents_does_not_import_torch():
    code = (
        "import sys, agents.learned, agents; assert 'torch' not in sys.modules, 'torch imported'; "
        "assert {'ppo', 'alphazero'} <= set(agents.REGISTRY)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_missing_torch_raises_agent_error_with_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes ``import torch`` fail
    game = make_game("othello", size=6)
    with pytest.raises(agents.AgentError, match=r'pip install "arbiter-games\[learn\]"'):
        agents.make("alphazero", simulations=2).act(game, game.initial_state())


@pytest.mark.parametrize("name,size", [("othello", 6), ("othello", 10), ("gomoku", 9), ("go", 5), ("go", 7)])
def test_compiled_encodings_match_observation_and_legal_moves(name, size):
    game = make_game(name, size=size)
    for seed in range(6):
        state = random_position(game, 3 + 5 * seed, seed)
        observation = game.observation(state, game.current_player(state))
        np.testing.assert_array_equal(puct.encode(game, state, encoding=1), observation)
        v2 = puct.encode(game, state, encoding=2)
        assert v2.shape[0] == K.num_planes(game, 2) == observation.shape[0] + 1
        np.testing.assert_array_equal(v2[:-1], observation)
        placements = game.legal_mask(state)[: size * size].reshape(size, size)
        np.testing.assert_array_equal(v2[-1], placements)
    with pytest.raises(ValueError, match="encoding=3"):
        K.num_planes(game, 3)


def test_loa_encodings_are_its_observation_and_the_squares_a_piece_can_move_from():
    game = make_game("loa")
    assert K.applies_to(game) and K.policy_planes(game) == 8 and not K.has_ownership(game)
    for seed in range(4):
        state = random_position(game, 2 + 7 * seed, seed)
        observation = game.observation(state, game.current_player(state))
        np.testing.assert_array_equal(puct.encode(game, state, encoding=1), observation)
        v2 = puct.encode(game, state, encoding=2)
        assert v2.shape == (4, 8, 8)
        np.testing.assert_array_equal(v2[:3], observation)
        movable = np.zeros(64)
        movable[[a // 8 for a in game.legal_actions(state) if a < 512]] = 1
        np.testing.assert_array_equal(v2[3].reshape(-1), movable)  # action = from_cell * 8 + direction
        assert (v2[3] <= v2[0]).all()  # only the mover's own pieces move


def test_ownership_targets_follow_stones_and_tromp_taylor_areas():
    othello = make_game("othello", size=6)
    end = play_game(othello, [agents.make("random", seed=0)] * 2).state
    cells = othello.observation(end, 0)
    for seat in (0, 1):
        own = puct.ownership(othello, end, seat)
        np.testing.assert_array_equal(own, cells[seat].astype(np.int8) - cells[1 - seat].astype(np.int8))
    go = make_game("go", size=5, komi=0.5)
    # Black walls off the left two columns, White the right two; the middle column touches both
    state = go.from_text(
        "\n".join([f"{r} . x . o ." for r in range(5, 0, -1)] + ["  a b c d e", "to_move=x ply=10 passes=0 ko=-"])
    )
    own = puct.ownership(go, state, 0)
    assert own[:, :2].tolist() == [[1, 1]] * 5 and own[:, 3:].tolist() == [[-1, -1]] * 5
    assert own[:, 2].tolist() == [0] * 5
    np.testing.assert_array_equal(puct.ownership(go, state, 1), -own)
    assert go.spec.kernel.area(state, go.kernel_params) == (10, 10)


@pytest.mark.parametrize("batch", [1, 8])
def test_every_simulation_lands_once_and_priors_are_a_distribution(batch):
    game = make_game("othello", size=6)
    result = puct.search(uniform_evaluator, game, [game.initial_state()] * 3, simulations=40, batch=batch)
    # the first walk expands the root; each later one visits exactly one root child
    assert result.visits.sum(axis=1).tolist() == [39, 39, 39]
    np.testing.assert_allclose(result.priors.sum(axis=1), 1.0)
    assert set(np.flatnonzero(result.priors[0])) == set(game.legal_actions(game.initial_state()))


def test_search_backs_up_finished_games_and_finds_the_win():
    game = make_game("gomoku", size=9)
    # Build the position by moves: x (to move) has four on row 5 with both ends open.
    state = game.initial_state()
    for move in ["b5", "b3", "c5", "c3", "d5", "d3", "e5", "g1"]:
        state = game.apply(state, game.str_to_action(state, move))
    # optimistic first-play urgency: with uniform priors every move gets tried once, then the
    # two winning moves (their walks end in a won game, value +1) must take over
    result = puct.search(uniform_evaluator, game, [state], simulations=300, batch=8, fpu=1.0)
    assert game.action_to_str(state, int(result.visits[0].argmax())) in ("a5", "f5")
    assert result.values[0] > 0.5


@pytest.mark.parametrize(
    "options, batch",
    [
        ({"simulations": 8}, 1),
        ({"simulations": 32}, 2),
        ({"simulations": 64}, 4),
        ({"simulations": 200}, 8),
        ({"simulations": 100_000, "seconds": 0.1}, 8),
        ({"seconds": 0.1}, 8),
        ({"simulations": 64, "batch": 8}, 8),
        ({"simulations": 800, "batch": 1}, 1),
    ],
)
def test_the_default_leaf_batch_is_a_sixteenth_of_a_fixed_budget_and_eight_on_a_clock(options, batch):
    # 64 simulations in batches of 8 spread the search over the root's moves (virtual losses)
    # and lost most of the Othello net's margin over greedy; a given batch is kept as it is
    assert agents.make("alphazero", **options).batch == batch


def test_match_protocol_is_colour_balanced_and_seeded():
    game = make_game("othello", size=6)
    a, b = agents.make("greedy", seed=1), agents.make("random", seed=2)
    first = match(game, a, b, games=10, seed=3)
    again = match(game, agents.make("greedy", seed=1), agents.make("random", seed=2), games=10, seed=3)
    assert (first.wins, first.draws, first.losses) == (again.wins, again.draws, again.losses)
    assert first.wins + first.draws + first.losses == 10
    assert first.score == pytest.approx((first.wins + first.draws / 2) / 10)
    with pytest.raises(ValueError, match="even"):
        match(game, a, b, games=7)


def test_a_forfeit_stops_a_match_but_a_resignation_is_a_loss():
    game = make_game("othello", size=6)

    class Breaks:
        name = "breaks"

        def act(self, game, state):
            raise RuntimeError("bug in the agent")

    class Resigns(Breaks):
        def act(self, game, state):
            raise agents.Resign()

    with pytest.raises(tournaments.MatchError, match="agent 'breaks' .*forfeit-crash.*bug in the agent"):
        match(game, agents.make("random", seed=1), Breaks(), games=2)
    lost = match(game, agents.make("random", seed=1), Resigns(), games=4)
    assert (lost.wins, lost.draws, lost.losses, lost.score) == (4, 0, 0, 1.0)


def test_solitaire_reports_wins_and_progress_over_seeded_deals():
    game = make_game("calculation")
    greedy = solitaire(game, agents.make("greedy", seed=0), games=40, seed=5)
    random = solitaire(game, agents.make("random", seed=0), games=40, seed=5)
    again = solitaire(game, agents.make("random", seed=0), games=40, seed=5)
    assert (random.won, random.cards) == (again.won, again.cards)
    for r in (greedy, random):
        assert 0 <= r.won <= 40 and r.score == r.won / 40
        assert 4 <= r.cards <= 52 and r.cards_se > 0
    assert greedy.cards > random.cards + 4 * (greedy.cards_se + random.cards_se)


def test_duplicate_compares_agents_on_the_same_deals():
    game = make_game("calculation")
    r = duplicate(game, "greedy", "random", games=30, seed=3)
    assert r.wins + r.draws + r.losses == 30 and r.beats  # greedy places far more cards
    assert r.as_dict() == duplicate(game, "greedy", "random", games=30, seed=3).as_dict() | {"seconds": r.seconds}
    twins = agents.make("random", seed=9), agents.make("random", seed=9)  # the same play on every deal
    mirror = duplicate(game, *twins, games=20, seed=3)
    assert (mirror.draws, mirror.score) == (20, 0.5)
    with pytest.raises(ParameterError, match="use match"):
        duplicate(make_game("othello", size=6), "greedy", "random")
    with pytest.raises(ParameterError, match="duplicate"):
        match(game, "greedy", "random", games=2)


def test_selfplay_with_one_walk_per_fast_search_plays_by_the_priors():
    from agents.learned import selfplay

    game = make_game("othello", size=6)
    prefer = np.zeros(game.num_actions, dtype=np.float32)
    prefer[::2] = 3.0  # a network that likes even squares

    def evaluator(obs):
        return np.tile(prefer, (len(obs), 1)), np.zeros(len(obs), dtype=np.float32)

    samples = selfplay.play(
        evaluator,
        game,
        games=2,
        simulations=4,
        rng=np.random.default_rng(0),
        fast_simulations=1,
        full_fraction=0.0,
        temperature_plies=0,
    )
    assert len(samples.policy) > 20 and np.isfinite(samples.policy).all()
    np.testing.assert_allclose(samples.policy.sum(axis=1), 1.0, rtol=1e-5)
    assert (samples.policy_weight == 0).all()  # fast searches give no policy target
    legal = samples.policy > 0
    even_legal = legal[:, ::2].any(axis=1)
    assert even_legal.sum() > 10
    np.testing.assert_array_equal(samples.policy.argmax(axis=1)[even_legal] % 2, 0)  # the top prior


# -- torch ---------------------------------------------------------------------------------------


@needs_torch
def test_net_is_size_independent():
    from agents.learned import network

    net = network.PolicyValueNet(channels=8, blocks=1)
    for n in (6, 8, 16):
        logits, value = net(torch.zeros(2, 3, n, n))
        assert logits.shape == (2, n * n + 1) and value.shape == (2,)
        assert bool((value.abs() <= 1).all())


@needs_torch
def test_weights_round_trip_and_tampering_is_refused(tmp_path):
    from agents.learned import network

    net = network.PolicyValueNet(channels=4, blocks=1)
    path = weights.save(tmp_path / "w.pt", net.state_dict(), {"kind": "alphazero", "game": "othello"})
    tensors, meta = weights.load(path, kind="alphazero")
    assert meta["game"] == "othello" and set(tensors) == set(net.state_dict())
    with pytest.raises(weights.WeightsError, match="'alphazero' agent, not 'ppo'|not 'ppo'"):
        weights.load(path, kind="ppo")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(weights.WeightsError, match="SHA-256"):
        weights.load(path)
    weights.sidecar_path(path).unlink()
    with pytest.raises(weights.WeightsError, match="no sidecar"):
        weights.load(path)


class _Payload:
    def __reduce__(self):
        return (os.system, (f"touch {_Payload.marker}",))


@needs_torch
def test_malicious_pickle_is_refused_even_with_a_matching_sidecar(tmp_path):
    _Payload.marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"stem.weight": _Payload()}, protocol=2))
    weights.sidecar_path(path).write_text(
        f'{{"format": "{weights.FORMAT}", "kind": "alphazero", "game": "othello", "sha256": "{weights.sha256(path)}"}}'
    )
    with pytest.raises(weights.WeightsError, match="not plain tensors"):
        weights.load(path)
    with pytest.raises(agents.AgentError):
        game = make_game("othello", size=6)
        agents.make("alphazero", path=str(path)).act(game, game.initial_state())
    assert not _Payload.marker.exists()


@needs_torch
def test_one_alphazero_iteration_end_to_end_and_resume(tmp_path):
    from agents.learned import train

    config = train.Config(
        game="othello",
        sizes=[6],
        channels=8,
        blocks=1,
        simulations=8,
        fast_simulations=3,
        full_fraction=0.5,
        games=4,
        batch_size=32,
        buffer=2000,
        seed=5,
    )
    trainer = train.Trainer(config, checkpoint=tmp_path / "run.ckpt")
    entry = trainer.iteration()
    assert entry["positions"] > 4 * 10 and entry["steps"] >= 1
    assert all(np.isfinite(entry[k]) and entry[k] > 0 for k in ("policy_loss", "value_loss", "ownership_loss"))
    stored = trainer.buffer.data[6]
    n = stored["count"]
    # playout-cap randomisation: about half the moves had a full search and give a policy target
    assert 0.25 < stored["policy_weight"][:n].mean() < 0.75
    # ownership is the final board from the mover's view; Othello is won on the disc count, so the
    # sign of a sample's summed ownership is its value target
    ownership = stored["ownership"][:n].astype(np.int64)
    np.testing.assert_array_equal(np.sign(ownership.sum(axis=(1, 2))), stored["value"][:n])
    assert stored["planes"].shape[1] == 4  # encoding 2: stones, stones, ones, legal moves
    trainer.save_checkpoint()
    out = trainer.export(tmp_path / "az.pt", command="test")
    assert weights.read_meta(out)["observation_encoding"] == 2
    resumed = train.Trainer(config, checkpoint=tmp_path / "run.ckpt")
    assert (resumed.iterations, len(resumed.buffer)) == (1, len(trainer.buffer))
    for name in train.FIELDS:
        np.testing.assert_array_equal(resumed.buffer.data[6][name][:n], stored[name][:n])
    for a, b in zip(resumed.net.state_dict().values(), trainer.net.state_dict().values()):
        assert torch.equal(a, b)
    with pytest.raises(weights.WeightsError, match="encoding=1"):
        train.Trainer(train.Config(**{**config.__dict__, "encoding": 1}), checkpoint=tmp_path / "run.ckpt")
    bigger = make_game("othello", size=10)  # trained on 6x6, plays 10x10
    bot = agents.make("alphazero", path=str(out), simulations=16, seed=0)
    state = bigger.initial_state()
    for _ in range(6):
        state = bigger.apply(state, bot.act(bigger, state))
    with pytest.raises(weights.WeightsError, match="trained for 'othello'"):
        gomoku = make_game("gomoku", size=9)
        bot.act(gomoku, gomoku.initial_state())


@needs_torch
def test_a_teacher_s_games_give_one_hot_legal_targets_and_teaching_survives_a_resume(tmp_path):
    from agents.learned import imitation, train

    game = make_game("othello", size=6)
    samples = imitation.teach("greedy", game, 3, np.random.default_rng(1), epsilon=0.0)
    assert samples.policy.shape == (len(samples.value), game.num_actions)
    np.testing.assert_array_equal(samples.policy.max(axis=1), 1.0)
    np.testing.assert_array_equal(samples.policy.sum(axis=1), 1.0)
    legal = samples.planes[:, 3].reshape(len(samples.value), -1).astype(bool)  # encoding 2's legal-move plane
    assert legal[np.arange(len(samples.value)), samples.policy[:, :36].argmax(axis=1)].all()
    assert set(np.unique(samples.value)) <= {-1.0, 0.0, 1.0} and np.all(samples.policy_weight == 1)
    again = imitation.teach("greedy", game, 3, np.random.default_rng(1), epsilon=0.0)
    np.testing.assert_array_equal(again.planes, samples.planes)  # seeded: the same games

    config = train.Config(
        game="othello",
        sizes=[6],
        channels=8,
        blocks=1,
        simulations=8,
        games=2,
        batch_size=32,
        buffer=2000,
        seed=5,
        teacher="greedy",
        teacher_games=4,
    )
    with pytest.raises(agents.AgentError, match="nosuch"):
        train.Trainer(train.Config(**{**config.__dict__, "teacher": "nosuch"}))
    trainer = train.Trainer(config, checkpoint=tmp_path / "run.ckpt")
    assert trainer.needs_teaching
    entry = trainer.teach()
    assert entry["positions"] == len(trainer.buffer) > 4 * 10 and entry["steps"] >= 1
    assert trainer.taught == 4 and trainer.games_played == 4 and not trainer.needs_teaching
    trainer.save_checkpoint()
    resumed = train.Trainer(config, checkpoint=tmp_path / "run.ckpt")
    assert resumed.taught == 4 and not resumed.needs_teaching and resumed.seconds == trainer.seconds


def test_value_targets_from_the_teacher_s_search_mix_its_calibrated_scores_into_the_results():
    from agents.evaluation import WIN_BOUND
    from agents.learned import imitation

    game = make_game("othello", size=8)
    plain = imitation.teach("alphabeta:depth=2", game, 6, np.random.default_rng(3))
    assert set(np.unique(plain.value)) <= {-1.0, 0.0, 1.0}  # weight 0: the results, as before
    searched = imitation.teach("alphabeta:depth=2", game, 6, np.random.default_rng(3), value_weight=1.0)
    np.testing.assert_array_equal(searched.planes, plain.planes)  # the same games, only the targets differ
    assert np.all(np.abs(searched.value) <= 1.0) and len(np.unique(searched.value)) > 10
    half = imitation.teach("alphabeta:depth=2", game, 6, np.random.default_rng(3), value_weight=0.5)
    np.testing.assert_allclose(half.value, (plain.value + searched.value) / 2, atol=1e-6)
    # the search's sign agrees with the game's result more often than not, and proven scores are +-1
    assert np.mean(np.sign(searched.value) == np.sign(plain.value)) > 0.6
    scores = np.array([WIN_BOUND + 5, -(WIN_BOUND + 5), 300, -300, 0])
    values = imitation.search_value(scores, np.array([1.0, -1.0, 1.0, -1.0, 1.0]))
    assert values[0] == 1.0 and values[1] == -1.0 and values[2] == -values[3] > 0 and values[4] == 0
    # the fitted scale is the one under which the scores best predict the results
    rng = np.random.default_rng(0)
    raw = rng.normal(0, 1000, 5000)
    results = np.where(rng.random(5000) < (1 + np.tanh(raw / 400)) / 2, 1.0, -1.0)
    assert 200 < imitation.value_scale(raw, results) < 800
    with pytest.raises(agents.AgentError, match="value_weight=1.5"):
        imitation.teach("alphabeta:depth=2", game, 1, np.random.default_rng(3), value_weight=1.5)
    with pytest.raises(agents.AgentError, match="teacher greedy: reports no search score"):
        imitation.check_teacher("greedy", [game], scores=True)
    imitation.check_teacher("alphabeta:depth=2", [game], scores=True)


def test_a_teacher_s_games_in_worker_processes_do_not_depend_on_the_number_of_workers():
    from agents.learned import imitation

    game = make_game("othello", size=6)
    games = imitation.CHUNK + 3  # two chunks, the second short
    two = imitation.teach("alphabeta:depth=1", game, games, np.random.default_rng(4), workers=2)
    three = imitation.teach("alphabeta:depth=1", game, games, np.random.default_rng(4), workers=3)
    for field in ("planes", "policy", "value", "ownership", "results"):
        np.testing.assert_array_equal(getattr(two, field), getattr(three, field))
    assert len(two.results) == games


@needs_torch
def test_a_run_can_start_from_exported_weights_and_refuses_a_net_of_another_shape(tmp_path):
    from agents.learned import train

    config = train.Config(game="othello", sizes=[6], channels=8, blocks=1, games=2, simulations=8, seed=1)
    first = train.Trainer(config)
    path = first.export(tmp_path / "first.pt", command="test")
    started = train.Trainer(train.Config(**{**config.__dict__, "seed": 2, "init": str(path)}))
    for a, b in zip(started.net.state_dict().values(), first.net.state_dict().values()):
        assert torch.equal(a, b)
    fresh = train.Trainer(train.Config(**{**config.__dict__, "seed": 2}))
    assert not all(torch.equal(a, b) for a, b in zip(fresh.net.state_dict().values(), first.net.state_dict().values()))
    with pytest.raises(weights.WeightsError, match="init=.*first.pt.*'channels': 8"):
        train.Trainer(train.Config(**{**config.__dict__, "channels": 16, "init": str(path)}))
    with pytest.raises(weights.WeightsError, match="does not exist"):
        train.Trainer(train.Config(**{**config.__dict__, "init": str(tmp_path / "none.pt")}))
    with pytest.raises(train.ConfigError, match="device='tpu'"):
        train.Trainer(train.Config(**{**config.__dict__, "device": "tpu"}))


@needs_torch
def test_learning_from_a_teacher_makes_the_net_choose_the_teacher_s_moves(tmp_path):
    """A tiny run end to end: the training loop (targets, symmetries, loss, optimizer) must carry
    what the teacher does into the net, measured on positions of games it never saw."""
    from agents.learned import imitation, network, train

    torch.manual_seed(0)
    config = train.Config(
        game="othello",
        sizes=[6],
        channels=16,
        blocks=2,
        batch_size=64,
        buffer=20000,
        seed=0,
        teacher="greedy",
        teacher_games=200,
    )
    trainer = train.Trainer(config)
    game = make_game("othello", size=6)
    held_out = imitation.teach("greedy", game, 30, np.random.default_rng(99), epsilon=0.0)
    legal = np.zeros(held_out.policy.shape, dtype=bool)
    legal[:, :36] = held_out.planes[:, 3].reshape(len(legal), -1) == 1  # encoding 2's legal-move plane

    def agreement():
        with torch.no_grad():
            logits = network.policy_logits(trainer.net, torch.from_numpy(held_out.planes).float(), legal.shape[1])[0]
        choice = np.where(legal, logits.numpy(), -np.inf).argmax(axis=1)
        return float(np.mean(choice == held_out.policy.argmax(axis=1)))

    before = agreement()
    trainer.teach()
    after = agreement()
    assert after > 0.5 and after > before + 0.2, (before, after)


def _loa_turned(game, state, k):
    """``state``'s board turned by symmetry ``k`` of ``train.symmetry`` (same side to move, ply)."""
    from agents.learned import train

    grid = train._turn(game.observation(state, 0)[:2], k, 1)  # Black's pieces, White's
    rows = [
        f"{8 - r} " + " ".join("x" if grid[0, r, c] else "o" if grid[1, r, c] else "." for c in range(8))
        for r in range(8)
    ]
    status = game.to_text(state).splitlines()[-1]  # to_move=... ply=...
    return game.from_text("\n".join(rows + ["  a b c d e f g h", status]))


@needs_torch
def test_loa_symmetry_moves_the_policy_target_to_the_turned_move():
    from agents.learned import train

    game = make_game("loa")
    state = random_position(game, 9, seed=3)  # the start is symmetric; this position is not
    legal = [int(a) for a in game.legal_actions(state)]
    seat = game.current_player(state)
    planes = torch.from_numpy(np.stack([puct.encode(game, state)] * len(legal)))
    policy = torch.zeros(len(legal), game.num_actions)
    policy[range(len(legal)), legal] = 1.0  # one target per legal move, all of its mass on it
    empty = torch.zeros(len(legal), 0, 0)
    for k in range(8):
        turned = _loa_turned(game, state, k)
        assert k == 0 or not np.array_equal(game.observation(turned, 0), game.observation(state, 0))
        t_planes, t_policy, t_empty = train.symmetry(torch, planes, policy, empty, 8, k, per_cell=8)
        np.testing.assert_array_equal(t_planes[0].numpy(), puct.encode(game, turned))  # the from-squares too
        assert t_empty.shape == (len(legal), 0, 0)
        # where each move goes: the turned move gives the turned position
        after = {
            int(b): game.observation(game.apply(turned, int(b)), seat).tobytes() for b in game.legal_actions(turned)
        }
        assert len(after) == len(legal)
        for row, a in enumerate(legal):
            target = int(t_policy[row].argmax())
            assert float(t_policy[row, target]) == 1.0 and float(t_policy[row].sum()) == 1.0
            moved = train._turn(game.observation(game.apply(state, a), seat), k, 1)
            assert after.get(target) == np.ascontiguousarray(moved).tobytes(), (
                f"k={k}: {game.action_to_str(state, a)} became {game.action_to_str(turned, target)}"
            )
    quarter = train.plane_order(8, 1)
    assert quarter[6] == 0  # a quarter turn (torch.rot90: counter-clockwise) takes north to west


def _loa_net_file(tmp_path, direction):
    """A LOA net, built from a sidecar-like architecture dict, whose policy says only: move
    towards ``direction`` (the bias of that plane of the 1x1 policy conv)."""
    from agents.learned import network

    arch = {"in_planes": 4, "channels": 4, "blocks": 1, "head": 4, "ownership": False, "policy_planes": 8}
    net = network.build(arch)
    with torch.no_grad():
        net.policy_conv.weight.zero_()
        net.policy_conv.bias.zero_()
        net.policy_conv.bias[direction] = 4.0
    meta = {"kind": "alphazero", "game": "loa", "architecture": arch, "observation_encoding": 2}
    return net, weights.save(tmp_path / "loa.pt", net.state_dict(), meta)


@needs_torch
def test_a_loa_net_s_direction_plane_gives_that_direction_s_moves_the_highest_prior(tmp_path):
    game = make_game("loa")
    east = 2  # LOA's direction 2 is E, towards file h
    net, path = _loa_net_file(tmp_path, east)
    state = random_position(game, 5, seed=1)
    logits, _ = net(torch.from_numpy(puct.encode(game, state)[None]))
    assert logits.shape == (1, game.num_actions)  # 64 cells x 8 directions + the pass
    priors = puct.search(puct.Evaluator(net, game.num_actions), game, [state], simulations=1).priors[0]
    legal = game.legal_actions(state)
    eastward = [int(a) for a in legal if a % 8 == east]
    assert eastward and len(eastward) < len(legal)
    top = priors.max()
    assert sorted(np.flatnonzero(np.isclose(priors, top)).tolist()) == sorted(eastward)
    assert all(game.action_to_str(state, a)[0] < game.action_to_str(state, a)[3] for a in eastward)  # file rises
    bot = agents.make("alphazero", path=str(path), simulations=1, seed=0)
    assert bot.act(game, state) % 8 == east  # simulations=1 plays the raw policy
    with pytest.raises(weights.WeightsError, match="1 policy planes per cell cannot name the moves of loa"):
        meta = json.loads(weights.sidecar_path(path).read_text())
        meta["architecture"]["policy_planes"] = 1
        weights.sidecar_path(path).write_text(json.dumps(meta))
        agents.make("alphazero", path=str(path), simulations=1).act(game, state)


@needs_torch
def test_one_loa_alphazero_iteration_end_to_end_then_a_game_against_random(tmp_path):
    from agents.learned import train

    config = train.Config(
        game="loa",
        sizes=[8],
        channels=8,
        blocks=1,
        simulations=6,
        fast_simulations=2,
        full_fraction=0.5,
        games=2,
        batch_size=32,
        buffer=2000,
        seed=5,
    )
    trainer = train.Trainer(config, checkpoint=tmp_path / "run.ckpt")
    assert trainer.net.config["policy_planes"] == 8 and trainer.net.ownership_conv is None  # no ownership in LOA
    entry = trainer.iteration()
    assert entry["positions"] > 2 * 10 and entry["steps"] >= 1
    assert np.isfinite(entry["policy_loss"]) and entry["policy_loss"] > 0 and entry["ownership_loss"] == 0
    stored = trainer.buffer.data[8]
    assert stored["planes"].shape[1:] == (4, 8, 8) and stored["policy"].shape[1] == 513
    assert stored["ownership"].shape[1:] == (0, 0)
    trainer.save_checkpoint()
    out = trainer.export(tmp_path / "az_loa.pt", command="test")
    assert weights.read_meta(out)["architecture"]["policy_planes"] == 8
    resumed = train.Trainer(config, checkpoint=tmp_path / "run.ckpt")
    assert (resumed.iterations, len(resumed.buffer)) == (1, len(trainer.buffer))
    with pytest.raises(agents.AgentError, match="size=9: loa is played on 8x8 only"):
        train.Trainer(train.Config(**{**config.__dict__, "sizes": [9]}))
    game = make_game("loa")
    bot = agents.make("alphazero", path=str(out), simulations=4, seed=0)
    outcome = play_game(game, [bot, agents.make("random", seed=0)])  # an illegal action would forfeit
    assert outcome.reason == "normal" and sum(outcome.returns) == 0, outcome.detail


SHIPPED_AZ = {
    "othello": [6, 8, 10, 12, 14, 16],
    "gomoku": list(range(7, 20)),
    "go": [5, 7, 9, 13, 19],
    "loa": [None],  # its one board
}


def test_every_shipped_alphazero_net_is_tested():
    shipped = {p.stem.split("_", 1)[1] for p in weights.WEIGHTS_DIR.glob("alphazero_*.pt")}
    assert shipped == set(SHIPPED_AZ)


@needs_torch
@pytest.mark.parametrize("name", sorted(SHIPPED_AZ))
def test_shipped_alphazero_weights_play_legal_games_on_every_size(name):
    for size in SHIPPED_AZ[name]:
        game = make_game(name) if size is None else make_game(name, size=size)
        bot = agents.make("alphazero", simulations=1, seed=size or 0)
        opponent = agents.make("random", seed=size or 0)
        outcome = play_game(game, [bot, opponent])  # an illegal action would forfeit
        assert outcome.reason == "normal" and sum(outcome.returns) == 0, outcome.detail


@needs_torch
@pytest.mark.parametrize("name", sorted(SHIPPED_AZ))
def test_shipped_alphazero_weights_beat_random(name):
    """Each shipped net, its raw policy and no threat search (one simulation, ``threats=False``),
    wins at least 9 of 10 games against random on its smallest board."""
    size = SHIPPED_AZ[name][0]
    game = make_game(name) if size is None else make_game(name, size=size)
    bot = agents.make("alphazero", simulations=1, threats=False, seed=0)
    result = tournaments.match(game, bot, "random", games=10, seed=0)
    assert result.score >= 0.9, str(result)
    clone = pickle.loads(pickle.dumps(bot))  # tournaments ship agents to workers: the net is reloaded
    assert clone._nets == {} and game.is_legal(game.initial_state(), clone.act(game, game.initial_state()))


@needs_sb3
def test_shipped_ppo_weights_play_legal_games_on_their_size_only():
    shipped = sorted(weights.WEIGHTS_DIR.glob("ppo_*.pt"))
    if not shipped:
        pytest.skip("no PPO weights are shipped in agents/learned/weights")
    for path in shipped:
        meta = weights.read_meta(path)
        game = make_game(meta["game"], **meta["params"])
        bot = agents.make("ppo", seed=0)  # the shipped file found from the game and size
        players = [bot] if game.num_players == 1 else [bot, agents.make("random", seed=1)]
        outcome = play_game(game, players, seed=0)  # an illegal action would forfeit
        assert outcome.reason == "normal", outcome.detail
        others = [make_game("othello", size=6) if game.name == "calculation" else make_game("calculation")]
        if "size" in meta["params"]:
            others.append(make_game(meta["game"], size=meta["params"]["size"] + 2))
        for other in others:
            with pytest.raises(agents.AgentError, match="cannot play"):
                bot.act(other, other.initial_state())


@needs_sb3
def test_ppo_pool_smoke_run_learns_to_beat_random(tmp_path):
    from agents.learned import ppo_training
    from tournaments.referee.baselines import against_baselines

    # 6144 steps at lr 1e-3 beat random (score - 2 SE > 0.5 over 40 games) for seeds 0-3; an
    # untrained policy scored 0.24-0.61 against random (docs/learned.md)
    config = ppo_training.Config(
        game="othello", size=6, opponent="pool", steps=6144, n_steps=512, lr=1e-3, snapshot_every=2048, net=(64, 64)
    )
    assert (config.batch, config.epochs) == (128, 10)  # the pool path's defaults
    out, evaluation = ppo_training.train(
        config,
        checkpoint=tmp_path / "ppo.zip",
        out=tmp_path / "ppo.pt",
        command="test",
        evaluate=lambda game, path: against_baselines(game, agents.make("ppo", path=str(path), seed=0), games=40),
    )
    result = evaluation["vs random size=6"]
    assert result["beats"], result
    assert weights.read_meta(out)["evaluation"]["vs random size=6"] == result


@needs_torch
def test_a_ppo_training_config_that_cannot_work_is_a_config_error():
    from agents.learned import ppo_training
    from agents.learned.train import ConfigError

    for bad, message in (
        ({"steps": 0}, "steps=0"),
        ({"batch": 2.5}, "batch=2.5"),
        ({"opponent": "alphabeta"}, "opponent='alphabeta'"),
        ({"opponent": "pool", "opening_plies": 4}, "opening_plies"),
    ):
        with pytest.raises(ConfigError, match=message):
            ppo_training.Config(**bad)
    assert ppo_training.Config(game="othello", size=6).tag() == "othello6"
    assert ppo_training.Config(game="calculation").tag() == "calculation"


# -- damaged copies of the shipped weights: a typed error naming the file, nothing unpickled ------
def _copy_shipped(tmp_path, stem):
    src = weights.WEIGHTS_DIR / f"{stem}.pt"
    dst = tmp_path / src.name
    dst.write_bytes(src.read_bytes())
    weights.sidecar_path(dst).write_text(weights.sidecar_path(src).read_text())
    return dst


def _rehash(path):
    """Make the sidecar vouch for the file as it is now (a careless or malicious re-export)."""
    meta = json.loads(weights.sidecar_path(path).read_text())
    meta["sha256"] = weights.sha256(path)
    weights.sidecar_path(path).write_text(json.dumps(meta))


def test_weights_error_is_a_value_error():
    assert issubclass(weights.WeightsError, ValueError) and issubclass(weights.WeightsError, agents.AgentError)


@needs_torch
@pytest.mark.parametrize("damage", ["truncate", "flip", "append"])
def test_a_damaged_shipped_file_is_refused_before_unpickling(tmp_path, monkeypatch, damage):
    path = _copy_shipped(tmp_path, "alphazero_gomoku")
    data = path.read_bytes()
    data = {
        "truncate": data[: len(data) // 3],
        "flip": data[:1000] + bytes([data[1000] ^ 1]) + data[1001:],
        "append": data + b"\x80\x04K\x01.",
    }[damage]
    path.write_bytes(data)

    def no_unpickling(*args, **kwargs):
        raise AssertionError("torch.load was called on a file whose hash does not match")

    monkeypatch.setattr(torch, "load", no_unpickling)
    with pytest.raises(weights.WeightsError, match=rf"{path.name}.*SHA-256"):
        weights.load(path, kind="alphazero")
    game = make_game("gomoku", size=7)
    with pytest.raises(weights.WeightsError, match=path.name):
        agents.make("alphazero", path=str(path), simulations=4).act(game, game.initial_state())


@needs_torch
def test_a_truncated_file_with_a_matching_sidecar_is_refused(tmp_path):
    path = _copy_shipped(tmp_path, "alphazero_gomoku")
    path.write_bytes(path.read_bytes()[:50_000])
    _rehash(path)
    with pytest.raises(weights.WeightsError, match=rf"{path.name}.*not plain tensors"):
        weights.load(path)


@needs_torch
@pytest.mark.parametrize(
    "change,match",
    [
        ({"channels": 16}, "do not fit"),
        ({"blocks": 2}, "do not fit"),
        ({"colour": "blue"}, "cannot build"),
        (None, "architecture"),
    ],
)
def test_a_sidecar_with_the_wrong_architecture_is_refused(tmp_path, change, match):
    path = _copy_shipped(tmp_path, "alphazero_gomoku")
    meta = json.loads(weights.sidecar_path(path).read_text())
    meta["architecture"] = None if change is None else {**meta["architecture"], **change}
    weights.sidecar_path(path).write_text(json.dumps(meta))
    game = make_game("gomoku", size=7)
    with pytest.raises(weights.WeightsError, match=rf"{path.name}.*{match}"):
        agents.make("alphazero", path=str(path), simulations=4).act(game, game.initial_state())


@needs_torch
def test_a_damaged_ppo_sidecar_is_refused(tmp_path):
    pytest.importorskip("sb3_contrib")
    path = _copy_shipped(tmp_path, "ppo_othello6")
    meta = json.loads(weights.sidecar_path(path).read_text())
    meta["architecture"] = ["not", "a", "dict"]
    weights.sidecar_path(path).write_text(json.dumps(meta))
    game = make_game("othello", size=6)
    with pytest.raises(weights.WeightsError, match=rf"{path.name}.*architecture"):
        agents.make("ppo", path=str(path)).act(game, game.initial_state())


# -- malformed files that their sidecar vouches for: WeightsError naming the file, whatever they hold
def _tensor_file(obj) -> bytes:
    import io

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


MALFORMED = {
    "text": lambda: b"these are not weights\n",  # the unpickler reads it as opcodes: IndexError
    "hello": lambda: b"hello world\n",  # KeyError: 101
    "one_letter": lambda: b"e",  # IndexError: pop from empty list
    "empty": lambda: b"",
    "zeros": lambda: bytes(4096),
    "json": lambda: b'{"stem.weight": [1, 2, 3]}',
    "plain_pickle": lambda: pickle.dumps({"stem.weight": [1.0, 2.0]}),
    "zip_not_torch": lambda: _zip_with(b"garbage"),
    "a_tensor_not_a_dict": lambda: _tensor_file(torch.zeros(3)),
    "a_list_of_tensors": lambda: _tensor_file([torch.zeros(3)]),
    "nested_dicts": lambda: _tensor_file({"stem": {"weight": torch.zeros(3)}}),
    "int_keys": lambda: _tensor_file({1: torch.zeros(3)}),
}


def _zip_with(data: bytes) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", data)
        archive.writestr("archive/version", b"3\n")
    return buffer.getvalue()


@needs_torch
@pytest.mark.parametrize("content", sorted(MALFORMED))
def test_every_malformed_file_with_a_matching_sidecar_is_a_weights_error(tmp_path, content):
    path = _copy_shipped(tmp_path, "alphazero_gomoku")
    path.write_bytes(MALFORMED[content]())
    _rehash(path)
    with pytest.raises(weights.WeightsError, match=path.name):
        weights.load(path, kind="alphazero")
    game = make_game("gomoku", size=7)
    with pytest.raises(weights.WeightsError, match=path.name):
        agents.make("alphazero", path=str(path), simulations=4).act(game, game.initial_state())


@needs_sb3
def test_a_text_ppo_file_with_a_matching_sidecar_is_a_weights_error(tmp_path):
    path = _copy_shipped(tmp_path, "ppo_othello6")
    path.write_text("these are not weights\n")
    _rehash(path)
    game = make_game("othello", size=6)
    with pytest.raises(weights.WeightsError, match=rf"{path.name}.*not plain tensors"):
        agents.make("ppo", path=str(path)).act(game, game.initial_state())


@needs_torch
@pytest.mark.parametrize("sidecar", ["[1, 2]", '"weights"', "null", "3", '{"format": 5}', "[" * 100_000])
def test_a_sidecar_that_is_no_json_object_is_a_weights_error(tmp_path, sidecar):
    path = _copy_shipped(tmp_path, "alphazero_gomoku")
    weights.sidecar_path(path).write_text(sidecar)
    with pytest.raises(weights.WeightsError, match=weights.sidecar_path(path).name):
        weights.load(path)


@needs_torch
def test_a_directory_or_an_impossible_name_is_no_weights_file(tmp_path):
    with pytest.raises(weights.WeightsError, match="is a directory"):
        weights.load(tmp_path)
    with pytest.raises(weights.WeightsError, match="does not exist"):
        weights.load(str(tmp_path / "a\0b.pt"))


def test_the_evaluation_command_writes_and_refreshes_its_table(tmp_path, run_script):
    """``examples/evaluate.py --json R --table F`` keeps F's prose and rewrites only its table,
    one row per agent, opponent and size, the latest result of each."""
    doc, results = tmp_path / "learned.md", tmp_path / "eval.jsonl"
    doc.write_text("# Learned\n\nProse stays.\n")
    argv = ["examples/evaluate.py", "--game", "othello", "--agent", "greedy", "--opponents", "random"]
    argv += ["--sizes", "6", "--games", "4", "--json", results, "--table", doc]
    first = run_script(*argv)
    assert first.returncode == 0, first.stderr
    run_script(*argv[:-4], "--sizes", "6", "8", "--games", "2", "--json", results, "--table", doc)
    text = doc.read_text()
    assert text.startswith("# Learned\n\nProse stays.\n") and text.count("<!-- evaluate: begin -->") == 1
    rows = [line for line in text.splitlines() if line.startswith("| `greedy`")]
    assert [row.split(" | ")[2:4] for row in rows] == [["othello 6x6", "2"], ["othello 8x8", "2"]]
    assert len(results.read_text().splitlines()) == 3  # every result is kept in the results file
    assert run_script(*argv[:-2]).returncode == 0 and run_script("examples/evaluate.py", "--table", doc).returncode == 2
    # --table-only rewrites the table from the results file and plays nothing
    doc.write_text("# Learned\n")
    kept = results.read_text()
    only = run_script("examples/evaluate.py", "--json", results, "--table", doc, "--table-only")
    assert only.returncode == 0 and results.read_text() == kept
    assert sum(line.startswith("| `greedy`") for line in doc.read_text().splitlines()) == 2
    assert run_script("examples/evaluate.py", "--table-only").returncode == 2


@needs_torch
def test_the_learning_curve_plays_each_snapshot_once_and_draws_the_plot(tmp_path, run_script):
    pytest.importorskip("matplotlib")
    import shutil

    from agents.learned import weights

    shipped = weights.shipped("gomoku")
    for minutes in (20, 40):  # two "snapshots" of a run: copies of the shipped net and its sidecar
        shutil.copy(shipped, tmp_path / f"alphazero_gomoku_{minutes}min.pt")
        shutil.copy(weights.sidecar_path(shipped), weights.sidecar_path(tmp_path / f"alphazero_gomoku_{minutes}min.pt"))
    argv = ["examples/learning_curve.py", "--game", "gomoku", "--sizes", "7", "--games", "2", "--simulations", "2"]
    argv += ["--runs", tmp_path, "--out", tmp_path / "curve.png"]
    first = run_script(*argv)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = (tmp_path / "curve.jsonl").read_text().splitlines()
    assert len(results) == 1  # the two copies are the same weights: played once
    second = run_script(*argv)
    assert second.returncode == 0 and "on 7x7" not in second.stdout  # nothing new to play
    third = run_script(*argv, "--batch", "2")  # another search setting: played, and kept apart
    assert third.returncode == 0 and "on 7x7" in third.stdout, third.stderr
    rows = [json.loads(line) for line in (tmp_path / "curve.jsonl").read_text().splitlines()]
    assert [r["batch"] for r in rows] == [1, 2]  # the default batch of 2 simulations is 1
    assert run_script(*argv[:-4], "--runs", tmp_path / "none", "--out", tmp_path / "x.png").returncode == 2


@needs_torch
def test_alphazero_on_a_time_budget_stops_near_it_and_a_clock_replaces_the_default_count():
    game = make_game("gomoku", size=9)
    state = game.initial_state(seed=0)
    bot = agents.make("alphazero:seconds=0.2", seed=0)
    bot.act(game, state)  # loads the net: not part of a move's time
    start = time.perf_counter()
    bot.act(game, state)
    assert time.perf_counter() - start < 1.5 and bot.last_stats["simulations"] >= 8
    assert agents.make("alphazero", seed=0).simulations == 200  # neither given: the default count
    assert agents.make("alphazero", seed=0).clock_options(0.5) == {"seconds": 0.5, "simulations": None}
    assert agents.make("alphazero:simulations=50").clock_options(0.5) == {"seconds": 0.5}
    with pytest.raises(agents.AgentError, match="seconds"):
        agents.make("alphazero:seconds=-1")
