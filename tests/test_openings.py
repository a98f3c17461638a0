"""Opening suites (tournaments.openings): the file formats, every way a file can be wrong, the
suites shipped with the package, and tournaments that play each opening once with each colour."""

import collections

import numpy as np
import pytest
from said import said

import envs
import tournaments
from envs import sgf
from tournaments import cli
from tournaments.referee.journal import JournalError
from tournaments.referee.openings import Book, OpeningError, load, shipped, suite_name


@pytest.fixture(scope="module")
def othello6():
    return envs.make_game("othello", size=6)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def moves_of(game, actions):
    state, words = game.initial_state(seed=0), []
    for a in actions:
        words.append(game.action_to_str(state, a))
        state = game.apply(state, a)
    return words


# -- reading suites ---------------------------------------------------------------------------------
def test_a_text_suite_skips_comments_and_blank_lines_and_remembers_its_lines(tmp_path, othello6):
    path = write(tmp_path, "s.txt", "# a suite\n\nc2 b4   # trailing comment\n  d5 e3 f2\n#c2\nb3\n")
    suite = load(path, othello6)
    assert len(suite) == 3 and suite.lines == (3, 4, 6)
    assert [moves_of(othello6, o) for o in suite.openings] == [["c2", "b4"], ["d5", "e3", "f2"], ["b3"]]
    assert suite.digest() == load(write(tmp_path, "t.txt", "c2 b4\nd5 e3 f2\nb3\n"), othello6).digest()


def test_an_sgf_collection_is_one_opening_per_game_tree(tmp_path, othello6):
    start = othello6.initial_state(seed=0)
    b3 = othello6.str_to_action(start, "b3")
    written = sgf.write(othello6, (b3, othello6.str_to_action(othello6.apply(start, b3), "b2"))).decode()
    # envs.sgf writes the start's four discs as setup stones: the game's own start, so accepted
    text = (
        written
        + "\n(;GM[2]SZ[6]C[a comment [with\\] brackets (];B[bc])\n\n"
        + sgf.write(othello6, (othello6.str_to_action(start, "c2"),)).decode()
    )
    suite = load(write(tmp_path, "s.sgf", text), othello6)
    assert [moves_of(othello6, o) for o in suite.openings] == [["b3", "b2"], ["b3"], ["c2"]]
    assert suite.lines == (1, 4, 6)  # the first tree takes two lines, then a blank one


def test_builtin_names_the_suite_of_the_game_and_its_size(othello6):
    assert suite_name(othello6) == "othello_6x6" and suite_name(envs.make_game("loa")) == "loa"
    suite = load("builtin", othello6)
    assert suite.source == "builtin:othello_6x6" and len(suite) == 100
    with pytest.raises(OpeningError, match="no suite is shipped for othello_10x10"):
        load("builtin", envs.make_game("othello", size=10))


# -- bad files: one typed error naming the file, the line and the move ---------------------------------
@pytest.mark.parametrize(
    "text,expected",
    [
        ("c2\nc2 zz\n", r"s\.txt, line 2, move 2: move 'zz': expected a square"),
        ("c2 b4\n\nc2 c2\n", r"s\.txt, line 3, move 2: move 'c2' is not legal"),
        ("# nothing\n\n   \n", r"s\.txt: no openings in it"),
    ],
)
def test_bad_text_suites(tmp_path, othello6, text, expected):
    with pytest.raises(OpeningError, match=expected):
        load(write(tmp_path, "s.txt", text), othello6)


def test_an_opening_that_ends_the_game_is_refused(tmp_path):
    go = envs.make_game("go", size=7)
    with pytest.raises(OpeningError, match=r"line 1, move 3 'pass': the game ends there"):
        load(write(tmp_path, "s.txt", "d4 pass pass\n"), go)
    gomoku = envs.make_game("gomoku", size=7)
    five = "a1 a7 b1 b7 c1 c7 d1 d7 e1"
    with pytest.raises(OpeningError, match=r"move 9 'e1': the game ends there"):
        load(write(tmp_path, "s.txt", five), gomoku)


def test_unreadable_files_are_opening_errors(tmp_path, othello6):
    with pytest.raises(OpeningError, match=r"missing\.txt: cannot read it \(No such file"):
        load(str(tmp_path / "missing.txt"), othello6)
    with pytest.raises(OpeningError, match="not a UTF-8 text file"):
        load(write(tmp_path, "s.txt", b"c2 \xff\n"), othello6)
    with pytest.raises(OpeningError, match="expected a file of openings"):
        load(42, othello6)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("(;GM[2]SZ[6];B[bc]", r"line 1: not a readable SGF record"),
        ("(;GM[1]SZ[6];B[bc])", r"line 1: GM\[1\]: a record of go, not of othello"),
        (
            "(;GM[2]SZ[6];B[bc])\n(;GM[2]SZ[8];B[cd])",
            r"line 2: a record of othello on 8x8, not on the tournament's 6x6",
        ),
        ("(;GM[2]SZ[6]AB[aa];B[bc])", r"line 1: the setup stones .*not a position of othello"),
        ("(;GM[2]SZ[6];B[bc];B[ab])", r"line 1, move 2 'B\[ab\]': it is White's turn"),
        ("(;GM[2]SZ[6];B[aa])", r"line 1, move 1 'B\[aa\]': not a legal move here"),
        ("(;GM[2]SZ[6];B[zz])", r"line 1, move 1 'B\[zz\]'.*not a point"),
    ],
)
def test_bad_sgf_suites(tmp_path, othello6, text, expected):
    with pytest.raises(OpeningError, match=expected):
        load(write(tmp_path, "s.sgf", text), othello6)


def test_an_sgf_opening_must_start_from_the_start_and_leave_a_game(tmp_path):
    go = envs.make_game("go", size=7)
    with pytest.raises(OpeningError, match=r"line 1, move 3 'B\[\]': the game ends there"):
        load(write(tmp_path, "s.sgf", "(;GM[1]SZ[7];B[dd];W[];B[])"), go)
    with pytest.raises(OpeningError, match=r"line 2: the record starts from another position"):  # a handicap
        load(write(tmp_path, "s.sgf", "(;GM[1]SZ[7];B[dd])\n(;GM[1]SZ[7]AB[cc];W[ee])"), go)


def test_the_command_line_reports_a_bad_suite_in_one_line_with_status_2(tmp_path, capsys):
    path = write(tmp_path, "bad.txt", "c2 b4\nc2 zz\n")
    with pytest.raises(SystemExit) as e:
        cli.main(
            [
                "tournament",
                "--game",
                "othello",
                "-p",
                "size=6",
                "--system",
                "round_robin",
                "--agents",
                "random",
                "greedy",
                "--workers",
                "0",
                "--openings",
                path,
            ]
        )
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(said(err)) == 1
    assert f"openings {path}, line 2, move 2" in err


# -- the shipped suites --------------------------------------------------------------------------------
SUITES = {
    "othello_8x8": ("othello", {}),
    "othello_6x6": ("othello", {"size": 6}),
    "loa": ("loa", {}),
    "gomoku_15x15": ("gomoku", {}),
    "gomoku_9x9": ("gomoku", {"size": 9}),
    "go_9x9": ("go", {}),
    "go_7x7": ("go", {"size": 7}),
}


def test_every_two_player_board_game_ships_a_suite_for_its_default_size():
    names = shipped()
    for spec in envs.specs():
        if spec.num_players == 2 and spec.name in ("othello", "gomoku", "go", "loa"):
            assert suite_name(envs.make_game(spec.name)) in names
    assert set(SUITES) <= set(names)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_a_shipped_suite_loads_and_its_openings_are_legal_distinct_and_unfinished(name):
    game = envs.make_game(SUITES[name][0], **SUITES[name][1])
    suite = load("builtin", game)  # load checks every move is legal and that no opening ends the game
    assert suite.source == f"builtin:{name}" and len(suite) == 100
    positions = set()
    for opening in suite.openings:
        state = game.initial_state(seed=0)
        for a in opening:
            state = game.apply(state, a)
        assert not game.is_terminal(state) and len(opening) >= 3
        positions.add(game.to_text(state))
    assert len(positions) == len(suite), "two openings of the suite reach the same position"
    assert len(set(suite.openings)) == len(suite)


# -- the book: which opening each colour pair plays ----------------------------------------------------------
def test_sequential_order_starts_where_asked_and_cycles(tmp_path, othello6):
    suite = load(write(tmp_path, "s.txt", "c2\nb3\nd5\ne4\n"), othello6)
    book = Book(othello6, suite, start=3)
    assert [book.opening(t)[0] for t in range(6)] == [3, 4, 1, 2, 3, 4]
    assert book.opening(0)[1] == suite.openings[2]


def test_random_order_is_a_seeded_shuffle_using_every_opening_before_any_repeats(tmp_path, othello6):
    suite = load(write(tmp_path, "s.txt", "c2\nb3\nd5\ne4\nc2 b4\nb3 b2\n"), othello6)
    first = [Book(othello6, suite, order="random", seed=1).opening(t)[0] for t in range(12)]
    assert sorted(first[:6]) == [1, 2, 3, 4, 5, 6] and first[6:] == first[:6]
    assert first == [Book(othello6, suite, order="random", seed=1).opening(t)[0] for t in range(12)]
    assert first != [Book(othello6, suite, order="random", seed=2).opening(t)[0] for t in range(12)]


def test_random_openings_are_seeded_and_of_the_plies_asked(othello6):
    book = Book(othello6, plies=(2, 4), seed=5)
    drawn = [book.opening(t)[1] for t in range(30)]
    assert all(2 <= len(o) <= 4 for o in drawn) and len(set(drawn)) > 10
    assert drawn == [Book(othello6, plies=(2, 4), seed=5).opening(t)[1] for t in range(30)]
    assert {len(Book(othello6, plies=3).opening(t)[1]) for t in range(10)} == {3}


def test_a_random_opening_never_passes_while_a_move_is_legal():
    """A pass among Go's first plies would let the side that passes next end the game owning
    the board: the game would be decided by the opening, not by the agents."""
    from agents.openings import random_opening

    go = envs.make_game("go", size=7)
    rng = np.random.default_rng(0)
    for _ in range(300):
        opening = random_opening(go, rng, 2, 4)
        state = go.initial_state()
        for a in opening:
            assert go.action_to_str(state, a) != "pass"
            state = go.apply(state, a)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"order": "shuffled"}, "order 'shuffled'"),
        ({"start": 0}, "start 0"),
        ({"start": 5}, "has 4 openings"),
    ],
)
def test_bad_book_options(tmp_path, othello6, kwargs, match):
    suite = load(write(tmp_path, "s.txt", "c2\nb3\nd5\ne4\n"), othello6)
    with pytest.raises(envs.ParameterError, match=match):
        Book(othello6, suite, **kwargs)
    with pytest.raises(envs.ParameterError, match="opening_plies=0"):
        Book(othello6, plies=0)


# -- tournaments with a suite ----------------------------------------------------------------------------
def colour_pairs(result):
    """``{(encounter, opening number): [(black, white), ...]}`` of a tournament's games."""
    seen = collections.defaultdict(list)
    for g in result.games:
        seen[frozenset((g["black"], g["white"])), g["opening_number"]].append((g["black"], g["white"]))
    return seen


def test_each_opening_of_a_suite_is_played_once_with_each_colour(tmp_path, othello6):
    path = write(tmp_path, "s.txt", "c2 b4\nd5 e3 f2\nb3\n")
    result = tournaments.round_robin(
        ["random", "greedy", "minimax:depth=1"],
        game="othello",
        size=6,
        games=6,
        openings=path,
        workers=0,
        progress=False,
    )
    suite = load(path, othello6)
    assert len(result.games) == 3 * 6
    pairs = colour_pairs(result)
    assert sorted({number for _, number in pairs}) == [1, 2, 3]
    for (encounter, _), games in pairs.items():
        a, b = sorted(encounter)
        assert sorted(games) == sorted([(a, b), (b, a)]), "one game with each colour"
    for g in result.games:  # the record's first moves are its opening
        opening = moves_of(othello6, suite.openings[g["opening_number"] - 1])
        assert g["moves"][: len(opening)] == opening and g["opening"] == len(opening)
    assert "Openings: s.txt (3 openings, sequential from 1)" in result.table()


def test_more_pairs_than_openings_cycle_the_suite_and_every_encounter_plays_the_same_openings(tmp_path):
    path = write(tmp_path, "s.txt", "c2 b4\nd5 e3 f2\n")
    result = tournaments.gauntlet(
        ["greedy"],
        ["random", "minimax:depth=1"],
        game="othello",
        size=6,
        games=8,
        openings=path,
        openings_start=2,
        workers=0,
        progress=False,
    )
    counts = collections.Counter((frozenset((g["black"], g["white"])), g["opening_number"]) for g in result.games)
    assert set(counts.values()) == {4}  # 4 colour pairs per encounter, 2 openings: each twice, both colours
    first = [g["opening_number"] for g in result.games if g["game"] == 0]
    assert set(first) == {2}  # pair 0 of every encounter plays the start opening


def test_random_openings_in_a_tournament_are_shared_by_a_pair(othello6):
    result = tournaments.round_robin(
        ["random", "greedy"], game="othello", size=6, games=4, opening_plies=(2, 3), workers=0, progress=False
    )
    by_number = collections.defaultdict(set)
    for g in result.games:
        assert 2 <= g["opening"] <= 3
        by_number[g["opening_number"]].add(tuple(g["moves"][: g["opening"]]))
    assert sorted(by_number) == [1, 2] and all(len(v) == 1 for v in by_number.values())
    assert "Openings: random, 2-3 plies" in result.table()


def test_a_journal_is_resumed_only_with_the_suite_it_began_with(tmp_path):
    first = write(tmp_path, "a.txt", "c2 b4\nd5 e3 f2\n")
    other = write(tmp_path, "b.txt", "c2 b4\nb3\n")
    journal = str(tmp_path / "run.db")
    kw = {"game": "othello", "size": 6, "workers": 0, "progress": False, "journal": journal}
    done = tournaments.round_robin(["random", "greedy"], openings=first, **kw)
    again = tournaments.round_robin(["random", "greedy"], openings=first, resume=True, **kw)
    assert again.games == done.games
    with pytest.raises(JournalError, match="belongs to another tournament"):
        tournaments.round_robin(["random", "greedy"], openings=other, resume=True, **kw)
    with pytest.raises(JournalError, match="belongs to another tournament"):
        tournaments.round_robin(["random", "greedy"], resume=True, **kw)


def test_run_refuses_conflicting_opening_options(tmp_path):
    path = write(tmp_path, "s.txt", "c2\n")
    with pytest.raises(envs.ParameterError, match="not both"):
        tournaments.round_robin(
            ["random", "greedy"], openings=path, opening_plies=2, workers=0, progress=False, game="othello", size=6
        )
    with pytest.raises(envs.ParameterError, match="need a suite"):
        tournaments.round_robin(
            ["random", "greedy"], openings_start=2, workers=0, progress=False, game="othello", size=6
        )


def test_a_swiss_round_plays_one_opening(tmp_path):
    path = write(tmp_path, "s.txt", "c2 b4\nd5 e3 f2\nb3\n")
    result = tournaments.swiss(
        ["random", "greedy", "minimax:depth=1", "random:seed=2"],
        game="othello",
        size=6,
        rounds=4,
        openings=path,
        workers=0,
        progress=False,
    )
    assert [(g["round"], g["opening_number"]) for g in result.games] == [
        (r, [1, 2, 3, 1][r - 1]) for r in range(1, 5) for _ in range(2)
    ]
