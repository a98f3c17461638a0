"""Calculation notation and text format.

Ranks are written ``A 2 3 4 5 6 7 8 9 T J Q K`` (``10`` is also read as T). Moves:

    K>w3     face-up card (a King) to waste pile 3
    9>f2     face-up card (a 9) to foundation 2
    w1>f4    top of waste pile 1 to foundation 4

The text format is the whole state, one ``key: cards`` line each, piles listed bottom to top (so
the last card of a waste line is its playable top), ``-`` for an empty pile::

    f1: A 2 3
    f2: 2 4
    f3: 3
    f4: 4
    w1: K Q
    w2: 9
    w3: -
    w4: -
    face-up: 7
    stock: 5 J 8 …        (face-down cards, the next to be turned first)
    ply: 6

It shows the stock order, which the player may not see: it is for tests and humans, never for
agents. ``ply`` may be omitted (it then counts every card as played straight from the stock).
"""

from ..core import IllegalActionError, NotationError, TextBoardError
from ..core import kernel as C
from . import _kernel as K

RANKS = "A23456789TJQK"
KEYS = (
    tuple(f"f{k + 1}" for k in range(K.NF))
    + tuple(f"w{w + 1}" for w in range(K.NW))
    + (
        "face-up",
        "stock",
        "ply",
    )
)


def rank_name(rank: int) -> str:
    return RANKS[rank - 1]


def parse_rank(token: str):
    """Rank 1..13 of a card token (any case, ``10`` for T), or None."""
    token = token.upper()
    if token == "10":
        return 10
    return RANKS.index(token) + 1 if len(token) == 1 and token in RANKS else None


def action_to_str(game, state, action):
    if action >= K.FROM_WASTE:
        w, k = divmod(action - K.FROM_WASTE, K.NF)
        return f"w{w + 1}>f{k + 1}"
    up = K.face_up(state, game._p)
    if up < 0:
        raise IllegalActionError(f"action {action} moves the face-up card, but the stock is exhausted")
    if action < K.TO_FOUND:
        return f"{rank_name(up)}>w{action - K.TO_WASTE + 1}"
    return f"{rank_name(up)}>f{action - K.TO_FOUND + 1}"


def _pile(text, letter, count):
    """Index 0..count-1 of a pile named like ``w3`` (``letter`` + 1-based number), or None."""
    if len(text) == 2 and text[0] == letter and text[1] in "123456789"[:count]:
        return int(text[1]) - 1
    return None


def parse_move(game, state, text):
    """``text`` is stripped and lower-case; returns an action id (legality is checked by the caller)."""
    source, sep, target = text.partition(">")
    k = _pile(target, "f", K.NF)
    if sep and k is not None:
        w = _pile(source, "w", K.NW)
        if w is not None:
            return K.FROM_WASTE + w * K.NF + k
    w = _pile(target, "w", K.NW)
    rank = parse_rank(source)
    if not sep or rank is None or (k is None and w is None):
        raise NotationError(
            f"move {text!r}: expected <rank>>w<1-4>, <rank>>f<1-4> or w<1-4>>f<1-4> (ranks {' '.join(RANKS)})"
        )
    up = K.face_up(state, game._p)
    if rank != up:
        have = "the stock is exhausted" if up < 0 else f"the face-up card is {rank_name(up)}"
        raise NotationError(f"move {text!r}: {have}, not {rank_name(rank)}")
    return K.TO_WASTE + w if k is None else K.TO_FOUND + k


# -- text format ---------------------------------------------------------------------------------
def _cards(cells) -> str:
    return " ".join(rank_name(int(r)) for r in cells) or "-"


def to_text(game, state):
    s = state
    pos = int(s[K.POS])
    lines = []
    for k in range(K.NF):
        lines.append(f"f{k + 1}: " + _cards(K.card_on_foundation(k, i) for i in range(1, s[K.FOUND + k] + 1)))
    for w in range(K.NW):
        lines.append(f"w{w + 1}: " + _cards(s[K.WASTE + w * K.NSTOCK : K.WASTE + w * K.NSTOCK + s[K.WLEN + w]]))
    lines.append("face-up: " + _cards(s[K.STOCK + pos : K.STOCK + min(pos + 1, K.NSTOCK)]))
    lines.append("stock: " + _cards(s[K.STOCK + pos + 1 : K.STOCK + K.NSTOCK]))
    lines.append(f"ply: {int(s[C.H_PLY])}")
    return "\n".join(lines) + "\n"


def public_text(game, state):
    """The text board as the player sees it, for pictures and terminals (``envs.render.ansi``):
    ``to_text`` with the face-down stock shown as a count, never in its order (``to_text`` keeps
    the order, so that ``from_text`` can rebuild the deal)."""
    lines = to_text(game, state).splitlines()
    hidden = K.NSTOCK - int(state[K.POS]) - 1
    lines = [f"stock: {max(hidden, 0)} face-down" if line.startswith("stock:") else line for line in lines]
    return "\n".join(lines) + "\n"


def _parse_lines(text):
    """``{key: [tokens]}`` with every key of KEYS once (``ply`` optional)."""
    fields = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or key not in KEYS or key in fields:
            raise TextBoardError(f"line {line.strip()!r}: expected 'key: cards' with each of {', '.join(KEYS)} once")
        tokens = value.split()
        fields[key] = [] if tokens == ["-"] else tokens
    missing = [key for key in KEYS if key not in fields and key != "ply"]
    if missing:
        raise TextBoardError(
            f"text has no line for {', '.join(missing)}: expected one line for each of {', '.join(KEYS)}"
        )
    return fields


def _parse_cards(key, tokens):
    ranks = [parse_rank(t) for t in tokens]
    for token, rank in zip(tokens, ranks):
        if rank is None:
            raise TextBoardError(f"{key}: card {token!r} is not a rank ({' '.join(RANKS)})")
    return ranks


def from_text(game, text):
    fields = _parse_lines(text)
    cards = {key: _parse_cards(key, fields[key]) for key in KEYS if key != "ply"}
    counts = [0] * 14
    for ranks in cards.values():
        for r in ranks:
            counts[r] += 1
    wrong = [f"{rank_name(r)} x{counts[r]}" for r in range(1, 14) if counts[r] != 4]
    if wrong:
        raise TextBoardError(f"not one deck: every rank must appear exactly 4 times, got {', '.join(wrong)}")
    s = game.initial_state(0)
    s[K.STOCK : K.STOCK + K.NSTOCK] = 0
    for k in range(K.NF):
        pile = cards[f"f{k + 1}"]
        expected = [K.card_on_foundation(k, i) for i in range(1, 14)]
        if not pile or pile != expected[: len(pile)]:
            raise TextBoardError(
                f"f{k + 1}: {_cards(pile)} is not a start of foundation {k + 1}'s sequence {_cards(expected)}"
            )
        s[K.FOUND + k] = len(pile)
    for w in range(K.NW):
        pile = cards[f"w{w + 1}"]
        s[K.WASTE + w * K.NSTOCK : K.WASTE + w * K.NSTOCK + len(pile)] = pile
        s[K.WLEN + w] = len(pile)
    up, stock = cards["face-up"], cards["stock"]
    if len(up) > 1 or (stock and not up):
        raise TextBoardError(f"face-up: {_cards(up)}: expected one card, or '-' only when the stock is empty too")
    pos = K.NSTOCK - len(stock) - len(up)
    s[K.STOCK + pos : K.STOCK + K.NSTOCK] = up + stock
    s[K.POS] = pos
    on_foundations = int(s[K.FOUND : K.FOUND + K.NF].sum()) - K.NF
    s[C.H_PLY] = _parse_ply(fields.get("ply", [str(pos)]), pos, on_foundations)
    s[C.H_HASH] = K.full_hash(s)
    K.check_end(s)
    return s


def _parse_ply(tokens, played, on_foundations):
    """Moves = cards played from the stock + waste-to-foundation moves (0 .. cards on foundations)."""
    lo, hi = played, played + on_foundations
    value = " ".join(tokens)
    if len(tokens) != 1 or not value.isdigit() or not lo <= int(value) <= hi:
        raise TextBoardError(
            f"ply: {value!r}: expected an integer from {lo} to {hi} "
            f"({played} cards played from the stock, {on_foundations} on the foundations)"
        )
    return int(value)
