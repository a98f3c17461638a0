"""The checks of a game's own API: the ``Game`` protocol, notation and text boards, observations,
typed errors for bad input, seeds, compiled random playouts, pickling and perft.

Each check plays uniformly random games through the public API from start positions dealt from
its seed, and checks what every game must keep at every position (see ``docs/adding-a-game.md``
for the protocol these rules come from). Each takes a ``Game``; ``envs.testing`` wraps it so it
also takes a name or a spec, and so that anything the game raises becomes a ``ContractError``
naming the position.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np

from ..core import (
    ArbiterError,
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)
from ..core import kernel as C
from ..core.rng import SEED_BOUND
from ..game import Game, perft
from .contract import Trace

SAMPLED = 12  # actions sampled per position (``is_legal``, notation) where there are more
PLAYOUTS = 200  # compiled random playouts per seed
PERFT_LEAVES = 100_000  # depth 3 is compared where it has at most about this many leaves


def positions(trace: Trace, game: Game, games: int):
    """Every position of ``games`` uniformly random games, start and end included, as
    ``(state, legal actions)``; the trace follows the play. A game that runs past
    ``game.max_moves`` plies (the bound every game promises) fails here."""
    rng = trace.rng()
    for episode in range(games):
        state = game.initial_state(seed=int(rng.integers(SEED_BOUND)))
        trace.begin(episode, state)
        while True:
            legal = game.legal_actions(state)
            yield state, legal
            if len(legal) == 0:
                break
            if int(state[C.H_PLY]) >= game.max_moves:
                raise trace.fail(
                    f"the game has legal moves at ply {int(state[C.H_PLY])}, which is "
                    f"max_moves={game.max_moves}: max_moves must bound every game"
                )
            action = int(legal[rng.integers(len(legal))])
            state = game.apply(state, action)
            trace.played(action, state)


# -- the Game protocol ---------------------------------------------------------------------------


def protocol(trace: Trace, game: Game, seed: int, games: int) -> None:
    """Random games keep the protocol: legal actions ascending int64 ids, empty exactly when the
    game is over, agreeing with ``legal_mask``, ``is_legal`` (asked of a sample of legal and
    illegal actions) and ``envs.State``; ``apply`` leaves
    its input alone and returns a fresh state the game's ``validate`` accepts, one ply on, with
    ``H_LAST`` the action; ``returns``, ``end_reason`` and ``max_moves`` consistent; a finished
    game refuses every action."""
    rng = trace.rng()
    seats = range(game.num_players)
    for episode in range(games):
        deal = int(rng.integers(SEED_BOUND))
        state = game.initial_state(seed=deal)
        trace.begin(episode, state)
        in_place = game.new_initial_state(seed=deal)
        while True:
            game.check_state(state)
            legal = game.legal_actions(state)
            if not (isinstance(legal, np.ndarray) and legal.dtype == np.int64 and legal.ndim == 1):
                raise trace.fail(
                    f"legal_actions returned {type(legal).__name__} "
                    f"{getattr(legal, 'dtype', '')}: expected a 1-D int64 array"
                )
            if len(legal) and (np.any(np.diff(legal) <= 0) or legal[0] < 0 or legal[-1] >= game.num_actions):
                raise trace.fail(
                    f"legal_actions is not strictly ascending within [0, {game.num_actions}): {legal.tolist()}"
                )
            mask = game.legal_mask(state)
            if (
                mask.dtype != np.bool_
                or mask.shape != (game.num_actions,)
                or not np.array_equal(np.flatnonzero(mask), legal)
            ):
                raise trace.fail("legal_mask disagrees with legal_actions")
            terminal = game.is_terminal(state)
            if terminal != (len(legal) == 0):
                raise trace.fail(
                    f"is_terminal is {terminal} but there are {len(legal)} legal actions: "
                    "the legal set must be empty exactly when the game is over"
                )
            illegal = np.flatnonzero(~mask)
            asked = [*_sample(rng, legal), *_sample(rng, illegal)]
            for a in asked:
                if game.is_legal(state, int(a)) != bool(mask[a]):
                    raise trace.fail(f"is_legal(state, {int(a)}) is {not mask[a]}, legal_actions says {bool(mask[a])}")
            if game.current_player(state) not in seats:
                raise trace.fail(f"current_player is {game.current_player(state)}: not a seat")
            _compare_in_place(trace, game, in_place, state, legal)
            ply = int(state[C.H_PLY])
            if ply > game.max_moves or (ply == game.max_moves and not terminal):
                raise trace.fail(
                    f"ply {ply} with the game {'over' if terminal else 'going on'}: "
                    f"max_moves={game.max_moves} must bound every game"
                )
            _check_end(trace, game, state, terminal)
            if terminal:
                break
            action = int(legal[rng.integers(len(legal))])
            before = state.copy()
            after = game.apply(state, action)
            if not np.array_equal(state, before):
                raise trace.fail(f"apply(state, {action}) changed its input state")
            if not isinstance(after, np.ndarray) or after.shape != state.shape or np.shares_memory(after, state):
                raise trace.fail(f"apply(state, {action}) did not return a new state array")
            trace.played(action, after)
            try:
                game.check_state(after)
            except StateError as error:
                raise trace.fail(f"apply(state, {action}) made a state the game's validate refuses: {error}") from error
            if int(after[C.H_PLY]) != ply + 1 or int(after[C.H_LAST]) != action:
                raise trace.fail(
                    f"after apply(state, {action}) the header says ply {int(after[C.H_PLY])}, last "
                    f"action {int(after[C.H_LAST])}: expected ply {ply + 1}, last action {action}"
                )
            in_place.apply_action(action)
            state = after


def _sample(rng, actions) -> np.ndarray:
    """``actions``, or ``SAMPLED`` of them at random where there are more."""
    return actions if len(actions) <= SAMPLED else rng.choice(actions, size=SAMPLED, replace=False)


def _compare_in_place(trace, game, in_place, state, legal) -> None:
    """``envs.State`` (the same game played in place by compiled code) is where the Game API is."""
    if not np.array_equal(in_place.array, state):
        raise trace.fail("envs.State, given the same actions, holds another state than the Game API")
    if not np.array_equal(in_place.legal_actions(), legal) or in_place.is_terminal() != (len(legal) == 0):
        raise trace.fail("envs.State lists other legal actions than the Game API")


def _check_end(trace, game, state, terminal) -> None:
    """``returns`` and ``end_reason`` of a position, finished or not."""
    reason = game.end_reason(state)
    returns = game.returns(state)
    if returns.shape != (game.num_players,):
        raise trace.fail(f"returns has shape {returns.shape}: expected ({game.num_players},)")
    if not terminal:
        if reason is not None:
            raise trace.fail(f"end_reason is {reason!r} while the game goes on: expected None")
        return
    if reason not in game.end_reasons.values():
        raise trace.fail(
            f"end_reason is {reason!r}: expected one of the game's end_reasons {sorted(game.end_reasons.values())}"
        )
    if game.num_players == 2:
        if not (set(returns.tolist()) <= {-1.0, 0.0, 1.0} and returns.sum() == 0):
            raise trace.fail(f"returns {returns.tolist()}: a two-player game ends +1/-1 or 0/0")
    elif returns[0] not in (0.0, 1.0):
        raise trace.fail(f"returns {returns.tolist()}: a one-player game ends 1 (won) or 0 (lost)")
    try:
        game.apply(state, 0)
    except IllegalActionError:
        return
    raise trace.fail("apply(state, 0) on a finished game did not raise IllegalActionError")


# -- notation and text boards ----------------------------------------------------------------------


def notation(trace: Trace, game: Game, seed: int, games: int) -> None:
    """Legal moves are written in notation and read back (ignoring case and surrounding
    spaces), each to its own action: every one at the start, a sample later; every text board
    reads back to a state with the same text, hash, side to move and result, and the same legal
    actions, except moves that repeat an earlier board of the game (a text board, like FEN, has
    no history, so it cannot forbid them)."""
    rng = trace.rng()
    boards, episode = [], None  # the boards of the game so far
    for state, legal in positions(trace, game, games):
        if trace.episode != episode:
            boards, episode = [], trace.episode
        for a in legal if int(state[C.H_PLY]) == 0 else _sample(rng, legal):
            a = int(a)
            text = game.action_to_str(state, a)
            if not isinstance(text, str) or not text.strip():
                raise trace.fail(f"action_to_str(state, {a}) is {text!r}: expected the move's text")
            for written in (text, f"  {text.swapcase()} "):
                back = game.str_to_action(state, written)
                if back != a:
                    raise trace.fail(
                        f"action {a} is written {text!r}, and str_to_action({written!r}) reads "
                        f"{back!r}: notation must read back what it writes, ignoring case and spaces"
                    )
        text = game.to_text(state)
        if not isinstance(text, str):
            raise trace.fail(f"to_text returned {type(text).__name__}: expected str")
        back = game.from_text(text)
        again = game.to_text(back)
        if again != text:
            raise trace.fail(f"from_text(to_text(state)) is written differently:\n{again}")
        if back[C.H_HASH] != state[C.H_HASH]:
            raise trace.fail(
                "from_text(to_text(state)) has another hash (H_HASH): the hash must be a "
                "function of what the text board shows"
            )
        if game.current_player(back) != game.current_player(state) or game.is_terminal(back) != game.is_terminal(state):
            raise trace.fail("from_text(to_text(state)) has another side to move or status")
        if not np.array_equal(game.returns(back), game.returns(state)):
            raise trace.fail("from_text(to_text(state)) has other returns")
        boards.append(_board(text))
        _same_moves(trace, game, state, legal, back, boards)


def _board(text: str) -> str:
    """A text board without its last line, the status line (``to_move=x ply=3``): the board."""
    return text.rstrip("\n").rsplit("\n", 1)[0]


def _same_moves(trace, game, state, legal, back, boards) -> None:
    back_legal = game.legal_actions(back)
    if np.array_equal(back_legal, legal):
        return
    lost = sorted(set(legal.tolist()) - set(back_legal.tolist()))
    if lost:
        raise trace.fail(f"from_text(to_text(state)) loses legal actions {lost}")
    for a in sorted(set(back_legal.tolist()) - set(legal.tolist())):
        if _board(game.to_text(game.apply(back, a))) not in boards:
            raise trace.fail(
                f"from_text(to_text(state)) allows action {a}, which the state forbids and which "
                "repeats no earlier board of the game"
            )


# -- observations --------------------------------------------------------------------------------


def observation(trace: Trace, game: Game, seed: int, games: int) -> None:
    """Every seat's observation of every position is a float32 array of ``observation_shape``
    inside ``observation_bounds``, finite, the same when asked twice, and leaves the state
    alone; the mover's observation and legal moves do not change when ``sample_hidden`` redraws
    what the mover cannot see (an observation that changes leaks hidden information)."""
    low, high = game.observation_bounds
    for state, legal in positions(trace, game, games):
        before = state.copy()
        for seat in range(game.num_players):
            obs = game.observation(state, seat)
            if not isinstance(obs, np.ndarray) or obs.dtype != np.float32 or obs.shape != game.observation_shape:
                raise trace.fail(
                    f"observation(state, {seat}) is {getattr(obs, 'dtype', type(obs).__name__)} of shape "
                    f"{getattr(obs, 'shape', None)}: expected float32 of shape {game.observation_shape}"
                )
            if not np.all(np.isfinite(obs)) or obs.min() < low or obs.max() > high:
                raise trace.fail(
                    f"observation(state, {seat}) holds values from {obs.min()} to {obs.max()}: "
                    f"expected finite values within observation_bounds {game.observation_bounds}"
                )
            if not np.array_equal(game.observation(state, seat), obs):
                raise trace.fail(f"observation(state, {seat}) differs when asked twice")
        if not np.array_equal(state, before):
            raise trace.fail("observation changed the state it observed")
        if len(legal):
            mover = game.current_player(state)
            redrawn = game.sample_hidden(state, rng=int(state[C.H_PLY]) + seed)
            if not np.array_equal(game.observation(redrawn, mover), game.observation(state, mover)):
                raise trace.fail(
                    f"the observation of seat {mover} (to move) changes when sample_hidden redraws "
                    "what that seat cannot see: it shows hidden information"
                )
            if not np.array_equal(game.legal_actions(redrawn), legal):
                raise trace.fail(
                    f"the legal actions of seat {mover} (to move) change when sample_hidden redraws "
                    "what that seat cannot see"
                )


# -- typed errors for bad input ---------------------------------------------------------------------

BAD_ACTIONS = (-1, "num_actions", 10**12, 1.0, True, "3", None)
BAD_MOVES = ("", "?", "no such move!!", None, 3)
_STATE_READERS = ("current_player", "is_terminal", "legal_actions", "legal_mask", "returns", "to_text", "end_reason")


def errors(trace: Trace, game: Game, seed: int, games: int) -> None:
    """Bad input is refused with the typed error naming it, at the start and in later positions:
    actions outside the action space or illegal (``IllegalActionError``), foreign or damaged
    states (``StateError``), bad seats, moves that do not parse (``NotationError``), malformed
    text boards (``TextBoardError``), unknown and out-of-range parameters (``ParameterError``)."""
    _bad_parameters(trace, game)
    for state, legal in positions(trace, game, games):
        ply = int(state[C.H_PLY])
        if ply not in (0, 1) and len(legal) and ply % 16:
            continue  # the first plies, every sixteenth one and the end: a hundred calls each
        _bad_actions(trace, game, state, legal)
        _bad_states(trace, game, state)
        _bad_seats_moves_and_texts(trace, game, state)


def _refused(trace, error, call, what, *args, match=None, **kwargs):
    """``call(*args, **kwargs)`` must raise ``error`` (with ``match`` in its message)."""
    try:
        call(*args, **kwargs)
    except error as raised:
        if match is not None and match not in str(raised):
            raise trace.fail(f"{what} raised {error.__name__} without naming {match}: {raised}") from raised
        return
    except Exception as raised:
        raise trace.fail(f"{what} raised {type(raised).__name__} ({raised}): expected {error.__name__}") from raised
    raise trace.fail(f"{what} was accepted: expected {error.__name__}")


def _bad_actions(trace, game, state, legal) -> None:
    for bad in BAD_ACTIONS:
        bad = game.num_actions if bad == "num_actions" else bad
        _refused(trace, IllegalActionError, game.apply, f"apply(state, {bad!r})", state, bad, match=repr(bad))
        if game.is_legal(state, bad) is not False:
            raise trace.fail(f"is_legal(state, {bad!r}) is not False")
    illegal = np.flatnonzero(~game.legal_mask(state))
    if len(illegal):
        a = int(illegal[-1])
        _refused(
            trace, IllegalActionError, game.apply, f"apply(state, {a}) (not legal here)", state, a, match=f"action {a}"
        )


def _damaged(game, state):
    """(what, array) pairs: arrays that are not states of ``game``, each a different way."""

    def edited(index, value):
        s = state.copy()
        s[index] = value
        return s

    yield "another game's or parameter set's state (H_SIG changed)", edited(C.H_SIG, state[C.H_SIG] ^ 1)
    yield "an int32 copy", state.astype(np.int32)
    yield "a state one cell short", state[:-1].copy()
    yield "a list", [0] * game.state_len
    yield "a state whose seat to move is no seat", edited(C.H_PLAYER, game.num_players)
    yield "a state with a negative ply count", edited(C.H_PLY, -1)
    yield "a state whose status is neither ongoing nor over", edited(C.H_STATUS, 7)
    yield "a state with an unknown end reason", edited(C.H_REASON, 63)


def _bad_states(trace, game, state) -> None:
    for what, bad in _damaged(game, state):
        for name in _STATE_READERS:
            _refused(trace, StateError, getattr(game, name), f"{name} of {what}", bad)
        _refused(trace, StateError, game.apply, f"apply to {what}", bad, 0)
        _refused(trace, StateError, game.observation, f"observation of {what}", bad, 0)


def _bad_seats_moves_and_texts(trace, game, state) -> None:
    for seat in (-1, game.num_players, "0", None):
        _refused(trace, ArbiterError, game.observation, f"observation(state, {seat!r})", state, seat)
    for move in BAD_MOVES:
        _refused(trace, NotationError, game.str_to_action, f"str_to_action(state, {move!r})", state, move)
    lines = game.to_text(state).splitlines(keepends=True)
    for what, text in (
        ("None", None),
        ("an empty text", ""),
        ("a text of one newline", "\n"),
        ("the text board without its first line", "".join(lines[1:])),
        ("the text board's last two lines alone", "".join(lines[-2:])),
        ("binary garbage", "\x00\xff garbage"),
    ):
        _refused(trace, TextBoardError, game.from_text, f"from_text of {what}", text)


def _bad_parameters(trace, game) -> None:
    spec = game.spec
    _refused(trace, ParameterError, spec.game, "an unknown parameter", no_such_parameter=1)
    _refused(trace, ParameterError, spec.game, "rules='no such rules'", rules="no such rules")
    for param in spec.params:
        for bad in _bad_values(param):
            _refused(trace, ParameterError, spec.game, f"{param.name}={bad!r}", **{param.name: bad})


def _bad_values(param) -> list:
    """Values ``param`` must refuse, whatever kind it is."""
    if param.choices is not None:
        return ["no such choice", 1.5] + ([] if param.optional else [None])
    if param.number:
        return [float("nan"), float("inf"), "1", True]
    out = [1.5, "1", True] + ([] if param.optional else [None])
    if param.low is not None:
        out.append(param.low - 1)
    if param.high is not None:
        out.append(param.high + 1)
    return out


# -- seeds ---------------------------------------------------------------------------------------------


def seeding(trace: Trace, game: Game, seed: int, games: int) -> None:
    """A seed decides everything random: the start position (``initial_state`` and
    ``new_initial_state``) and ``sample_hidden``'s redraw are the same for the same seed; without
    a seed they are still valid states."""
    for s in range(seed, seed + games):
        start = game.initial_state(seed=s)
        trace.begin(s - seed, start)
        if not np.array_equal(game.initial_state(seed=s), start):
            raise trace.fail(f"initial_state(seed={s}) differs from one call to the next")
        if not np.array_equal(game.new_initial_state(seed=s).array, start):
            raise trace.fail(f"new_initial_state(seed={s}) differs from initial_state(seed={s})")
    game.check_state(game.initial_state())
    for state, legal in positions(trace, game, games):
        if len(legal) and int(state[C.H_PLY]) % 4 == 0:
            redraw = game.sample_hidden(state, rng=seed)
            game.check_state(redraw)
            if not np.array_equal(game.sample_hidden(state, rng=seed), redraw):
                raise trace.fail(f"sample_hidden(state, rng={seed}) differs from one call to the next")


# -- compiled random playouts -------------------------------------------------------------------------


def playouts(trace: Trace, game: Game, seed: int, games: int) -> None:
    """``random_playouts`` (compiled) returns ``(n, num_players)`` returns and ``(n,)`` lengths,
    games of 1 to ``max_moves`` plies ending as games end (+1/-1 or 0/0; 1 or 0 alone), the same
    games for the same seed and others for another seed."""
    n = PLAYOUTS
    a = game.random_playouts(n, seed=seed)
    if a["returns"].shape != (n, game.num_players) or a["lengths"].shape != (n,):
        raise trace.fail(f"random_playouts({n}) returned shapes {a['returns'].shape} and {a['lengths'].shape}")
    lengths, returns = a["lengths"], a["returns"]
    if lengths.min() < 1 or lengths.max() > game.max_moves:
        raise trace.fail(
            f"random playouts lasted {lengths.min()} to {lengths.max()} plies: expected 1 to max_moves={game.max_moves}"
        )
    if game.num_players == 2:
        if not (np.all(returns.sum(axis=1) == 0) and np.isin(returns, (-1.0, 0.0, 1.0)).all()):
            raise trace.fail("random playouts' returns are not +1/-1 or 0/0")
    elif not np.isin(returns, (0.0, 1.0)).all():
        raise trace.fail("random playouts' returns are not 1 or 0")
    b = game.random_playouts(n, seed=seed)
    if not (np.array_equal(a["returns"], b["returns"]) and np.array_equal(lengths, b["lengths"])):
        raise trace.fail(f"random_playouts({n}, seed={seed}) plays other games from one call to the next")
    c = game.random_playouts(n, seed=seed + 1)
    varied = len(np.unique(lengths)) > 1 or len(np.unique(returns, axis=0)) > 1
    if varied and np.array_equal(lengths, c["lengths"]) and np.array_equal(returns, c["returns"]):
        raise trace.fail(f"random_playouts({n}) plays the same {n} games for seeds {seed} and {seed + 1}")


# -- pickling ----------------------------------------------------------------------------------------


def pickling(trace: Trace, game: Game, seed: int, games: int) -> None:
    """A game pickles (tournaments send it to worker processes) and copies: the copy is the same
    game and plays the same; an ``envs.State`` pickles mid-game and goes on the same."""
    copies = [pickle.loads(pickle.dumps(game)), copy.deepcopy(game)]
    for other in copies:
        if repr(other) != repr(game) or other.spec is not game.spec or dict(other.params) != dict(game.params):
            raise trace.fail(f"a pickled or copied game is {other!r}, not the same game")
    for state, legal in positions(trace, game, games):
        if int(state[C.H_PLY]) % 10 and len(legal):
            continue
        for other in copies:
            if not np.array_equal(other.legal_actions(state), legal):
                raise trace.fail("a pickled copy of the game lists other legal actions")
            if len(legal) and not np.array_equal(other.apply(state, int(legal[0])), game.apply(state, int(legal[0]))):
                raise trace.fail(f"a pickled copy of the game plays action {int(legal[0])} differently")
            for seat in range(game.num_players):
                if not np.array_equal(other.observation(state, seat), game.observation(state, seat)):
                    raise trace.fail(f"a pickled copy of the game observes seat {seat} differently")
    in_place = game.new_initial_state(seed=seed)
    for step in range(6):
        if in_place.is_terminal():
            break
        resumed = pickle.loads(pickle.dumps(in_place))
        if not np.array_equal(resumed.array, in_place.array) or resumed.history() != in_place.history():
            raise trace.fail(f"a pickled envs.State after {step} plies is another position")
        in_place.apply_action(int(in_place.legal_actions()[0]))


# -- perft -----------------------------------------------------------------------------------------------


def perft_check(trace: Trace, game: Game, seed: int, games: int) -> None:
    """``envs.game.perft`` (compiled) counts what the Game API plays: at the start and along
    random games, perft(s, 1) is the number of legal actions and perft(s, d) the sum of
    perft(apply(s, a), d - 1) over them (counted move by move in Python at depth 2, and at
    depth 3 from the first start position where that stays small); a finished game is one
    leaf."""
    for state, legal in positions(trace, game, games):
        ply = int(state[C.H_PLY])
        if len(legal) and ply > 1 and ply % 24:
            continue  # the first two plies, every 24th one and the end
        if perft(game, state, 0) != 1:
            raise trace.fail(f"perft(state, 0) is {perft(game, state, 0)}: expected 1")
        if not len(legal):
            for d in (1, 2):
                if perft(game, state, d) != 1:
                    raise trace.fail(
                        f"perft of a finished game at depth {d} is {perft(game, state, d)}: expected 1 (it is a leaf)"
                    )
            continue
        if perft(game, state, 1) != len(legal):
            raise trace.fail(f"perft(state, 1) is {perft(game, state, 1)}, but there are {len(legal)} legal actions")
        children = [game.apply(state, int(a)) for a in legal]
        below = [len(game.legal_actions(child)) or 1 for child in children]
        if perft(game, state, 2) != sum(below):
            raise trace.fail(
                f"perft(state, 2) is {perft(game, state, 2)}, the legal actions of the positions "
                f"after each legal action add up to {sum(below)}"
            )
        if ply == 0 and trace.episode == 0 and len(legal) * sum(below) <= PERFT_LEAVES:
            total = sum(perft(game, child, 2) for child in children)
            if perft(game, state, 3) != total:
                raise trace.fail(
                    f"perft(state, 3) is {perft(game, state, 3)}, perft(child, 2) over the "
                    f"positions after each legal action adds up to {total}"
                )
