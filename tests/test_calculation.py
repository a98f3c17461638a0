"""Calculation patience: rules, hidden information, notation and text format."""

import numpy as np
import pytest

import envs
from envs.calculation import Calculation
from envs.calculation import _kernel as K
from envs.core import IllegalActionError, NotationError, ParameterError, TextBoardError
from envs.core import kernel as C
from envs.core import rng as R

# The four sequences exactly as RULES.md writes them.
RULES_SEQUENCES = [
    "A 2 3 4 5 6 7 8 9 10 J Q K",
    "2 4 6 8 10 Q A 3 5 7 9 J K",
    "3 6 9 Q 2 5 8 J A 4 7 10 K",
    "4 8 Q 3 7 J 2 6 10 A 5 9 K",
]
RANK = {name: i + 1 for i, name in enumerate("A 2 3 4 5 6 7 8 9 10 J Q K".split())}


@pytest.fixture(scope="module")
def game():
    return envs.make_game("calculation")


def position(f=("A", "2", "3", "4"), w=("-",) * 4, up="-", stock="-", ply=None):
    """Text of a position; ``f`` and ``w`` are the four pile lines."""
    lines = [f"f{i + 1}: {cards}" for i, cards in enumerate(f)]
    lines += [f"w{i + 1}: {cards}" for i, cards in enumerate(w)]
    lines += [f"face-up: {up}", f"stock: {stock}"]
    if ply is not None:
        lines.append(f"ply: {ply}")
    return "\n".join(lines)


def _rest_of_deck(used):
    """The cards of one deck left after ``used`` (space-separated ranks), in rank order."""
    counts = {r: 4 for r in "A23456789TJQK"}
    for c in used.split():
        counts[c] -= 1
    return " ".join(r for r in "A23456789TJQK" for _ in range(counts[r]))


# The 47 cards other than the bases and a 9, on waste piles whose tops (K Q J K) fit no foundation.
STUCK_PILES = ("A A A 2 2 2 3 3 3 4 4 4 K", "5 5 5 5 6 6 6 6 Q", "7 7 7 7 8 8 8 8 J", "9 9 9 T T T T J J J Q Q Q K K K")


def stacked_deal(game):
    """A fresh deal whose stock is foundation 1's sequence, then 2's, 3's and 4's: always wins."""
    cards = [c.replace("10", "T") for seq in RULES_SEQUENCES for c in seq.split()[1:]]
    return game.from_text(position(up=cards[0], stock=" ".join(cards[1:])))


def random_states(game, n_games, seed):
    """Every state of ``n_games`` uniformly random games (fresh deal each)."""
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        s = game.initial_state(seed * 1000 + g)
        yield s
        while not game.is_terminal(s):
            s = game.apply(s, rng.choice(game.legal_actions(s)))
            yield s


def visible(s):
    """Everything but the face-down cards (header, foundations, waste, played and face-up cells)."""
    return np.concatenate([s[: K.STOCK + s[K.POS] + 1], s[K.WASTE :]])


# -- the game object -----------------------------------------------------------------------------
def test_game_object(game):
    assert isinstance(game, Calculation)
    assert (game.name, game.num_players, game.num_actions) == ("calculation", 1, 24)
    assert game.max_moves == 96


def test_openspiel_rules_refused():
    with pytest.raises(ParameterError, match="openspiel"):
        envs.make_game("calculation", rules="openspiel")
    with pytest.raises(ParameterError, match="piles"):
        envs.make_game("calculation", piles=3)


def test_deal_is_seeded_and_holds_the_48_other_cards(game):
    a, b, c = game.initial_state(7), game.initial_state(7), game.initial_state(8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert sorted(a[K.STOCK : K.STOCK + 48]) == sorted([r for r in range(1, 14) for _ in range(4 - (r <= 4))])
    assert list(a[K.FOUND : K.FOUND + 4]) == [1, 1, 1, 1]
    assert a[K.POS] == 0 and a[C.H_PLY] == 0 and not game.is_terminal(a)


# -- rules ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", range(4))
def test_foundation_sequences(k):
    expected = [RANK[c] for c in RULES_SEQUENCES[k].split()]
    assert [K.card_on_foundation(k, i) for i in range(1, 14)] == expected


def test_stacked_deal_builds_every_foundation_to_its_king_and_wins(game):
    s = stacked_deal(game)
    for k, seq in enumerate(RULES_SEQUENCES):
        for card in seq.split()[1:]:
            card = card.replace("10", "T")
            assert game.action_to_str(s, 4 + k) == f"{card}>f{k + 1}"
            legal = list(game.legal_actions(s))
            assert legal[:4] == [0, 1, 2, 3] and 4 + k in legal and max(legal) < 8
            s = game.apply(s, game.str_to_action(s, f"{card}>f{k + 1}"))
    assert list(s[K.FOUND : K.FOUND + 4]) == [13] * 4 and game.foundation_cards(s) == 52
    assert game.is_terminal(s) and s[C.H_REASON] == K.WON
    assert list(game.returns(s)) == [1.0]
    assert len(game.legal_actions(s)) == 0 and s[C.H_PLY] == 48


def test_waste_to_foundation(game):
    s = game.from_text(
        position(
            f=("A 2 3 4", "2", "3", "4"),
            w=("7 5", "-", "5", "-"),
            up="K",
            stock=_rest_of_deck("A 2 3 4 2 3 4 7 5 5 K"),
            ply=6,
        )
    )
    moves = [game.action_to_str(s, a) for a in game.legal_actions(s)]
    assert moves == ["K>w1", "K>w2", "K>w3", "K>w4", "w1>f1", "w3>f1"]
    s2 = game.apply(s, game.str_to_action(s, "W1>F1"))
    assert s2[K.FOUND] == 5 and s2[K.WLEN] == 1 and s2[K.WASTE] == 7 and s2[K.WASTE + 1] == 0
    assert (game.foundation_cards(s), game.foundation_cards(s2)) == (7, 8)
    assert s2[K.POS] == s[K.POS] and s2[C.H_PLY] == 7
    assert s2[C.H_HASH] == K.full_hash(s2) != s[C.H_HASH]
    # w3's 5 is no longer needed by anyone; 6 is now f1's next card
    assert [game.action_to_str(s2, a) for a in game.legal_actions(s2)] == ["K>w1", "K>w2", "K>w3", "K>w4"]


def test_win_by_a_waste_move(game):
    rest = {k: " ".join(RULES_SEQUENCES[k].replace("10", "T").split()) for k in range(4)}
    s = game.from_text(position(f=(rest[0], rest[1], rest[2], rest[3][:-2]), w=("-", "K", "-", "-")))
    assert not game.is_terminal(s) and list(game.legal_actions(s)) == [8 + 4 * 1 + 3]
    s = game.apply(s, game.str_to_action(s, "w2>f4"))
    assert game.is_terminal(s) and list(game.returns(s)) == [1.0]


def test_stuck_position_is_lost(game):
    # Last card face up; after it goes to a waste pile no waste top fits any foundation.
    s = game.from_text(position(w=STUCK_PILES, up="9"))
    assert list(game.legal_actions(s)) == [0, 1, 2, 3] and K.face_up(s, game.kernel_params) == 9
    s = game.apply(s, 2)
    assert K.face_up(s, game.kernel_params) == -1
    assert game.is_terminal(s) and s[C.H_REASON] == K.STUCK
    assert list(game.returns(s)) == [0.0] and len(game.legal_actions(s)) == 0
    # read directly as text, the finished position is terminal too
    assert game.is_terminal(game.from_text(game.to_text(s)))
    with pytest.raises(IllegalActionError, match="ended"):
        game.apply(s, 0)


def test_exhausted_stock_is_not_over_while_a_waste_card_fits(game):
    s = game.from_text(
        position(
            f=("A 2 3 4 5 6 7 8 9 T J Q", "2", "3", "4"),
            w=("K", "A A A 2 2 3 3 4 4 5 5 5 K", "6 6 6 7 7 7 8 8 8 J", "9 9 9 T T T J J Q Q Q K K"),
        )
    )
    assert not game.is_terminal(s) and list(game.legal_actions(s)) == [8, 12, 20]  # w1, w2, w4 > f1
    s = game.apply(s, 8)
    assert game.is_terminal(s) and s[C.H_REASON] == K.STUCK


def test_random_games_keep_their_invariants(game):
    p = game.kernel_params
    for s in random_states(game, 30, seed=1):
        counts = np.zeros(14, dtype=np.int64)
        for k in range(4):
            for i in range(1, s[K.FOUND + k] + 1):
                counts[K.card_on_foundation(k, i)] += 1
        for w in range(4):
            np.add.at(counts, s[K.WASTE + 48 * w : K.WASTE + 48 * w + s[K.WLEN + w]], 1)
        np.add.at(counts, s[K.STOCK + s[K.POS] : K.STOCK + 48], 1)
        assert list(counts[1:]) == [4] * 13
        assert s[K.POS] == s[K.FOUND : K.FOUND + 4].sum() - 4 + s[K.WLEN : K.WLEN + 4].sum()
        assert s[C.H_HASH] == K.full_hash(s)
        assert s[C.H_PLY] <= game.max_moves
        legal = game.legal_actions(s)
        assert (len(legal) == 0) == game.is_terminal(s)
        assert list(legal) == [a for a in range(24) if game.is_legal(s, a)]
        if not game.is_terminal(s):
            assert s[K.POS] == 48 or set(range(4)) <= set(legal)
            assert (K.face_up(s, p) == -1) == (s[K.POS] == 48)


def test_compiled_playouts(game):
    a = game.random_playouts(300, seed=3)
    b = game.random_playouts(300, seed=3)
    assert np.array_equal(a["returns"], b["returns"]) and np.array_equal(a["lengths"], b["lengths"])
    assert set(np.unique(a["returns"])) <= {0.0, 1.0}
    assert a["lengths"].min() >= 48 and a["lengths"].max() <= game.max_moves


# -- hidden information ---------------------------------------------------------------------------
def _two_deals_differing_in_stock_order(game):
    """A position a few moves in, and the same position with the face-down cards reversed."""
    s = game.initial_state(5)
    for a in (0, 1, 0, 2):
        s = game.apply(s, a)
    t = s.copy()
    lo = K.STOCK + s[K.POS] + 1
    t[lo : K.STOCK + 48] = t[lo : K.STOCK + 48][::-1]
    return s, t


def test_observation_hides_the_stock_order(game):
    s, t = _two_deals_differing_in_stock_order(game)
    assert not np.array_equal(s, t)
    assert np.array_equal(game.observation(s, 0), game.observation(t, 0))
    assert game.observation(s, 0).dtype == np.float32 and game.observation(s, 0).shape == (198, 13)


def test_no_render_shows_the_stock_order(game):
    """Pictures and terminal boards are what a player sees: two deals differing only in the order
    of the face-down cards render alike in every mode (``to_text`` alone keeps the order)."""
    from envs import render

    s, t = _two_deals_differing_in_stock_order(game)
    assert game.to_text(s) != game.to_text(t)
    assert render.ansi(game, s, "x") == render.ansi(game, t, "x")
    assert f"stock: {K.NSTOCK - s[K.POS] - 1} face-down" in render.ansi(game, s)
    assert np.array_equal(render.rgb(game, s), render.rgb(game, t))


def test_observation_layout(game):
    s = game.from_text(
        position(
            f=("A 2 3", "2", "3", "4 8"),
            w=("K Q", "-", "5", "-"),
            up="7",
            stock=_rest_of_deck("A 2 3 2 3 4 8 K Q 5 7"),
            ply=7,
        )
    )
    obs = game.observation(s, 0)
    assert [int(np.flatnonzero(obs[k])[0]) + 1 for k in range(4)] == [3, 2, 3, 8]
    assert list(np.flatnonzero(obs[4])) == [6]
    assert obs[5, 0] == 4 - 1 and obs[5, 2] == 4 - 2 and obs[5, 12] == 4 - 1 and obs[5].sum() == 52 - 11
    assert list(np.flatnonzero(obs[6])) == [11] and list(np.flatnonzero(obs[7])) == [12]  # w1 top Q, then K
    assert obs[8 : 6 + 48].sum() == 0 and obs[6 + 48 : 6 + 96].sum() == 0
    assert list(np.flatnonzero(obs[6 + 96])) == [4]
    with pytest.raises(envs.ArbiterError, match="seat 1"):
        game.observation(s, 1)


def test_sample_hidden_only_permutes_the_stock(game):
    s = game.initial_state(11)
    for a in (0, 1, 2, 3, 0):
        s = game.apply(s, a)
    before = s.copy()
    x, y, z = game.sample_hidden(s, 1), game.sample_hidden(s, 1), game.sample_hidden(s, 2)
    assert np.array_equal(s, before)
    assert np.array_equal(x, y) and not np.array_equal(x, z)
    lo = K.STOCK + s[K.POS] + 1
    for t in (x, z):
        assert np.array_equal(visible(t), visible(s))
        assert sorted(t[lo : K.STOCK + 48]) == sorted(s[lo : K.STOCK + 48])
        assert np.array_equal(game.observation(t, 0), game.observation(s, 0))
    # a Generator works too, and the compiled in-place shuffle is what sample_hidden calls
    g = game.sample_hidden(s, np.random.default_rng(4))
    assert sorted(g[lo : K.STOCK + 48]) == sorted(s[lo : K.STOCK + 48])
    t = s.copy()
    K.shuffle_hidden(t, game.kernel_params, R.new_rng(1))
    assert np.array_equal(t, x)
    with pytest.raises(ParameterError, match="rng='seed'"):
        game.sample_hidden(s, "seed")


def test_sample_hidden_redraws_every_unseen_card():
    game = envs.make_game("calculation")
    s = game.initial_state(0)
    nexts = {int(game.sample_hidden(s, seed)[K.STOCK + 1]) for seed in range(200)}
    counts = np.zeros(13, dtype=np.int64)
    K.unseen_counts(s, game.kernel_params, counts)
    assert nexts == {r + 1 for r in np.flatnonzero(counts)}


# -- notation and text ---------------------------------------------------------------------------
def test_notation_round_trips_for_every_legal_action(game):
    for s in random_states(game, 20, seed=2):
        for a in game.legal_actions(s):
            text = game.action_to_str(s, a)
            assert game.str_to_action(s, text) == a
            assert game.str_to_action(s, f"  {text.upper()} ") == a
            assert game.str_to_action(s, text.lower()) == a


def test_ten_is_t_and_10(game):
    s = game.from_text(position(up="T", stock=_rest_of_deck("A 2 3 4 T")))
    assert game.action_to_str(s, 0) == "T>w1"
    assert game.str_to_action(s, "10>w1") == game.str_to_action(s, "t>W1") == 0


@pytest.mark.parametrize(
    "move",
    [
        "",
        "K",
        "K>",
        ">w1",
        "K>w5",
        "K>w0",
        "K>f5",
        "X>w1",
        "w1>w2",
        "w5>f1",
        "w1>f",
        "K-w1",
        "1>w1",
        "KK>w1",
        "w1 > f1",
    ],
)
def test_malformed_move(game, move):
    s = game.initial_state(0)
    with pytest.raises(NotationError, match=repr(move.strip().lower())):
        game.str_to_action(s, move)


def test_illegal_move(game):
    s = game.initial_state(1)  # face-up T, empty waste piles
    with pytest.raises(NotationError, match="'k>w1'.*face-up card is T"):
        game.str_to_action(s, "K>w1")
    with pytest.raises(NotationError, match="'T>f1' is not legal"):
        game.str_to_action(s, "T>f1")
    with pytest.raises(NotationError, match="'w1>f1' is not legal"):
        game.str_to_action(s, "w1>f1")
    with pytest.raises(NotationError, match="expected a string"):
        game.str_to_action(s, 3)
    done = game.from_text(position(w=(STUCK_PILES[0] + " 9",) + STUCK_PILES[1:]))
    assert game.is_terminal(done)
    with pytest.raises(NotationError, match="stock is exhausted"):
        game.str_to_action(done, "9>w1")
    with pytest.raises(IllegalActionError, match="stock is exhausted"):
        game.action_to_str(done, 0)
    assert game.action_to_str(done, 23) == "w4>f4"


def test_text_round_trips(game):
    for s in random_states(game, 10, seed=4):
        t = game.from_text(game.to_text(s))
        assert game.to_text(t) == game.to_text(s)
        assert np.array_equal(np.delete(t, C.H_LAST), np.delete(s, C.H_LAST))


def test_text_of_a_fresh_deal(game):
    lines = game.to_text(game.initial_state(1)).splitlines()
    assert lines[:8] == ["f1: A", "f2: 2", "f3: 3", "f4: 4", "w1: -", "w2: -", "w3: -", "w4: -"]
    assert lines[8] == "face-up: T" and lines[10] == "ply: 0"
    assert len(lines[9].split()) == 1 + 47


@pytest.mark.parametrize(
    "text, match",
    [
        ("hello", "'hello'"),
        ("", "no line for f1"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4 T")) + "\nf1: A", "'f1: A'"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4 T")).replace("w2: -", "w5: -"), "'w5: -'"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4 T")).replace("stock: ", "stock: X "), "'X'"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4 T")).replace("stock: A", "stock: 2"), "A x3, 2 x5"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4")), "T x5"),
        (position(f=("A", "2", "3", "4 9"), up="T", stock=_rest_of_deck("A 2 3 4 9 T")), "f4: 4 9"),
        (position(f=("2", "A", "3", "4"), up="T", stock=_rest_of_deck("A 2 3 4 T")), "f1: 2"),
        (position(f=("-", "2", "3", "4"), w=("A", "-", "-", "-"), up="T", stock=_rest_of_deck("A 2 3 4 T")), "f1: -"),
        (position(up="T K", stock=_rest_of_deck("A 2 3 4 T K")), "face-up: T K"),
        (position(w=STUCK_PILES, stock="9"), "face-up: -"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4 T"), ply=1), "ply: '1'"),
        (position(up="T", stock=_rest_of_deck("A 2 3 4 T"), ply="x"), "ply: 'x'"),
    ],
)
def test_bad_text(game, text, match):
    with pytest.raises(TextBoardError, match=match):
        game.from_text(text)


def test_from_text_rejects_non_strings(game):
    with pytest.raises(TextBoardError):
        game.from_text(None)


def test_ply_range(game):
    # 3 cards on foundations beyond the bases and 1 on a waste pile: 4 played, up to 3 via waste
    used = "A 2 3 2 4 3 4 K 7"
    text = position(f=("A 2 3", "2 4", "3", "4"), w=("K", "-", "-", "-"), up="7", stock=_rest_of_deck(used))
    assert game.from_text(text)[C.H_PLY] == 4
    assert game.from_text(text + "\nply: 7")[C.H_PLY] == 7
    with pytest.raises(TextBoardError, match="from 4 to 7"):
        game.from_text(text + "\nply: 8")


def _playout_move_by_move(s, p, rng):
    """The greedy playout policy as the greedy agent scores a move (``tactical`` with the
    playout weights, the piles counted anew each time), ties broken as the playout breaks them."""
    from envs.calculation import evaluation as E

    moves = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        best, choice, ties = -np.inf, moves[0], 0
        for a in moves[:n]:
            score = E.tactical(s, s, p, a, E.PLAYOUT_WEIGHTS)
            if score > best:
                best, choice, ties = score, a, 1
            elif score == best:
                ties += 1
                if R.randint(rng, ties) == 0:
                    choice = a
        K.apply(s, p, choice)


def _alive_after(s, pile, card):
    """Whether the piles of ``s`` still unwind once ``card`` lies on ``pile`` (a copy is changed)."""
    from envs.calculation import evaluation as E

    t = s.copy()
    E._push(t, pile, card)
    counts = np.zeros(13, dtype=np.int64)
    K.unseen_counts(t, 0, counts)
    return E._unwinds(t, counts)


def _checked_move_by_move(s, p, rng):
    """The checked playout written the plain way: the greedy rule's move, unless it lays the card
    on a pile after which the piles cannot unwind; then the pile of the best score (first of
    equals) after which they can, an empty pile always can; if none can, the rule's move."""
    from envs.calculation import evaluation as E

    moves = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        scores = {int(a): E.tactical(s, s, p, a, E.PLAYOUT_WEIGHTS) for a in moves[:n]}
        best, choice, ties = -np.inf, moves[0], 0
        for a in moves[:n]:
            if scores[a] > best:
                best, choice, ties = scores[a], a, 1
            elif scores[a] == best:
                ties += 1
                if R.randint(rng, ties) == 0:
                    choice = a
        up = K.face_up(s, p)
        if choice < K.TO_FOUND and s[K.WLEN + choice] > 0 and not _alive_after(s, choice, up):
            alive = [w for w in range(K.NW) if w != choice and (s[K.WLEN + w] == 0 or _alive_after(s, w, up))]
            if alive:
                choice = max(alive, key=lambda w: (scores[w], -w))
        K.apply(s, p, choice)


def _after_random_plies(game, deal, plies):
    """Deal ``deal`` after ``plies`` random moves (a position with piles built by random play)."""
    start = game.initial_state(seed=deal)
    rng = R.new_rng(deal)
    for _ in range(plies):
        if game.is_terminal(start):
            break
        legal = game.legal_actions(start)
        start = game.apply(start, int(legal[R.randint(rng, len(legal))]))
    return start


@pytest.mark.parametrize("plies", [0, 25])
@pytest.mark.parametrize("policy", ["greedy", "checked"])
def test_playouts_play_the_moves_their_rule_picks(game, policy, plies):
    # The playouts keep a census of the piles (and the checked one the unseen counts) up to date
    # move by move instead of counting them for every candidate, and the checked one checks only
    # the pile it picked; each must still play exactly the moves of its plain version.
    from envs.calculation import evaluation as E

    reference = {"greedy": _playout_move_by_move, "checked": _checked_move_by_move}[policy]
    p = game.kernel_params
    moves = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    for deal in range(40):
        start = _after_random_plies(game, deal, plies)
        fast, slow = start.copy(), start.copy()
        E.playout(fast, p, R.new_rng(deal), moves, E.PLAYOUTS.index(policy))
        reference(slow, p, R.new_rng(deal))
        assert np.array_equal(fast, slow), deal


def test_search_keeps_only_the_moves_that_play_a_card_up(game):
    # MCTS expands a Calculation node with the moves of ``filter_moves``: where a card fits a
    # foundation, those moves alone (every one of them: which card and which foundation is still
    # searched); where none fits, every placement but those onto a second or later empty pile.
    from envs.calculation import evaluation as E

    p = game.kernel_params
    moves = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    seen = {"up only": 0, "placements": 0, "empty piles": 0}
    for deal in range(30):
        for plies in (0, 10, 20, 30):
            s = _after_random_plies(game, deal, plies)
            if game.is_terminal(s):
                continue
            legal = [int(a) for a in game.legal_actions(s)]
            up = [a for a in legal if a >= K.TO_FOUND]
            n = E.filter_moves(s, p, moves, K.legal_actions(s, p, moves))
            empty = [a for a in legal if a < K.TO_FOUND and s[K.WLEN + a] == 0]
            placed = [a for a in legal if a not in empty[1:]]
            assert list(moves[:n]) == (up or placed)
            seen["up only" if up and len(up) < len(legal) else "placements"] += 1
            seen["empty piles"] += len(empty) > 1 and not up
    assert min(seen.values()) > 5  # every case was met
