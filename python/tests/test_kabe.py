"""The Python package against the kabe command line (an independent path through the
same tables: `kabe probe --json`, `kabe analyze --format json`), and its errors."""

import concurrent.futures
import doctest
import json
import pathlib
import random
import shutil
import subprocess

import pytest

import kabe
from conftest import doctest_globals, small_pdn


def cli_probe(kabe_bin, tables, fen, variant, counters=None):
    args = [kabe_bin, "probe", fen, "--variant", variant, "--tables", str(tables), "--json"]
    if counters:
        args += ["--counters", counters]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def random_endgames(variant, pieces, count, seed):
    """Positions of random play from random setups, each within `pieces` pieces."""
    rng = random.Random(seed)
    squares = 50 if variant == "international" else 32
    found = []
    while len(found) < count:
        chosen = rng.sample(range(1, squares + 1), pieces)
        white = chosen[: rng.randint(1, pieces - 1)]
        black = chosen[len(white) :]

        row = 5 if squares == 50 else 4

        def piece(s, colour):
            # A man on its own promotion row would be a king: crown it.
            promoted = (colour == "W" and s <= row) or (colour == "B" and s > squares - row)
            return ("K" if promoted or rng.random() < 0.5 else "") + str(s)

        fen = "%s:W%s:B%s" % (
            rng.choice("WB"),
            ",".join(piece(s, "W") for s in white),
            ",".join(piece(s, "B") for s in black),
        )
        position = kabe.Position(fen, variant)
        for _ in range(rng.randint(0, 6)):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
        wm, wk, bm, bk = (int(d) for d in position.material)
        if wm + wk and bm + bk and position.legal_moves():
            found.append(position)
    return found


@pytest.mark.parametrize("variant", ["international", "russian"])
def test_probe_agrees_with_the_command_line(tables, kabe_bin, variant):
    tb = kabe.open_tablebase(tables)
    for position in random_endgames(variant, 4, 25, seed=hash(variant) & 0xFFFF):
        cli = cli_probe(kabe_bin, tables, position.fen, variant)
        verdict = tb.probe(position)
        assert verdict.to_dict() == cli["verdict"], position
        assert [m.text for m in tb.best_moves(position)] == cli["best_moves"], position
        assert [m.to_dict() for m in tb.ranked_moves(position)] == cli["moves"], position
        wld = {"win": 1, "draw": 0, "loss": -1}[cli["verdict"]["theoretical"]]
        assert tb.probe_wld(position) == wld
        assert tb.probe_wld_stored(position) in (wld, None)
        assert tb.probe_dtw(position) == (wld, cli["verdict"]["theoretical_plies"])


def test_the_stored_value_is_the_value_or_left_out(tb):
    # Over both sides to move of one material: one table of the pair stores its values,
    # the other is found by search, and a capture to make is always left out.
    found = set()
    for position in random_endgames("international", 3, 60, seed=7):
        stored = tb.probe_wld_stored(position)
        assert stored in (tb.probe_wld(position), None), position
        found.add(stored is None)
    assert found == {True, False}


def test_counters_change_the_verdict_as_the_command_line_says(tb, tables, kabe_bin):
    fen = "W:WK46,K47,K48:BK5"
    for counts in ["6.3=0", "6.3=28", "6.3=30", "6.2=20,6.3=30", {"6.3": 30}]:
        text = counts if isinstance(counts, str) else ",".join(f"{k}={v}" for k, v in counts.items())
        cli = cli_probe(kabe_bin, tables, fen, "international", text)
        assert tb.probe(fen, counts).to_dict() == cli["verdict"], counts
    assert tb.probe(fen, "6.3=28").exact == "win"
    assert tb.probe(fen, "6.3=30").exact == "draw"
    assert tb.probe(fen, "6.3=30").rule_decides


def test_counters_follow_the_game():
    start = "W:WK46,K47,K48:BK3"
    c = kabe.Counters.from_moves(start, ["46-41", "3-8", "41-46", "8-3"])
    assert c.as_dict() == {"6.2": 4, "6.3": 4}
    assert c.position == kabe.Position(start)
    assert c.governing() == ("6.3", 28)
    step = kabe.Counters(start)
    for m in ["46-41", "3-8", "41-46", "8-3"]:
        step = step.after(m)
    assert step == c
    # The lone king takes a king: 6.3's newer text keeps its count running; the older
    # one (fmjd-2000) ends it with the material, and 6.4 (2 kings against 1) starts.
    after_capture = ["46-37", "5x41"]
    assert str(kabe.Counters.from_moves("W:WK46,K47,K48:BK5", after_capture)) == "6.2=0,6.3=2"
    assert str(kabe.Counters.from_moves("W:WK46,K47,K48:BK5", after_capture, rules="fmjd-2000")) == "6.2=0,6.4=0"


def test_the_1953_deadline_names_its_side_where_a_king_faces_a_king():
    # After the lone king took two of three kings the deadline stands; with a king
    # against a king only the counters can say whose it is.
    with pytest.raises(kabe.CounterError, match="say which side had the kings"):
        kabe.Counters("W:WKc1:BKh8", "16c=30")
    c = kabe.Counters("W:WKc1:BKh8", "16c=30:white")
    assert str(c) == "16b=0,16c=30:white"
    assert c.governing() == ("16c", 5)
    assert "ussr1953-count-ends" in kabe.RULE_SETS and "fmjd-6.4-stands" in kabe.RULE_SETS


def test_one_tablebase_answers_under_the_rule_set_the_counters_carry(tables):
    with kabe.open_tablebase(tables, rules="ussr1953") as tb:
        c = tb.counters("W:WK46,K47,K48,K49:BK5")
        assert c.rules == "ussr1953"
        assert tb.rules("international") == "ussr1953"
        three_kings = "W:WK46,K47,K48:BK5"
        # Counters made under fmjd are probed under fmjd, by the same tablebase.
        v = tb.probe(three_kings, kabe.Counters(three_kings, "6.3=31"))
        assert v.count == ("6.3", 1) and v.exact == "draw" and v.theoretical == "win"
        with pytest.raises(kabe.CounterError, match="not written for russian"):
            kabe.Counters("W:WKa1,Kc1:BKh8", rules="fmjd", variant="russian")


def test_missing_tables_are_key_errors_or_none(tb):
    five = "W:W31,32,33,34:B1"
    with pytest.raises(kabe.MissingTableError, match="4010.wld.kabe") as raised:
        tb.probe_wld(five)
    assert isinstance(raised.value, KeyError)
    assert tb.get_wld(five) is None
    assert tb.get_dtw(five) is None
    assert tb.get(five) is None
    assert tb.get_best_moves(five) is None
    assert tb.get_wld("W:W32:B27") == 1


def test_a_variant_not_opened_is_a_missing_table(tables):
    with kabe.open_tablebase(tables, variants=["international"]) as tb:
        assert tb.variants == ["international"]
        with pytest.raises(kabe.MissingTableError, match="the tablebase has no russian tables"):
            tb.probe_wld("W:WKa1,Kc1:BKh8")
        assert tb.get_wld("W:WKa1,Kc1:BKh8") is None


def test_bad_input_names_what_is_wrong(tb):
    with pytest.raises(kabe.PositionError, match="white man on 3, its own promotion row"):
        kabe.Position("W:W3:B10")
    with pytest.raises(ValueError, match="square 31 is used twice"):
        tb.probe("W:W31,31:B1")
    with pytest.raises(kabe.PositionError, match="variant 'chess'"):
        kabe.Position("W:W31:B1", "chess")
    with pytest.raises(kabe.PositionError, match="cannot read a position from a int"):
        tb.probe_wld(42)
    with pytest.raises(kabe.CounterError, match="no article '9.9'"):
        tb.probe("W:WK46,K47,K48:BK5", "9.9=3")
    with pytest.raises(kabe.CounterError, match="past its limit"):
        tb.probe("W:WK46,K47,K48:BK5", "6.3=99")
    with pytest.raises(kabe.CounterError, match="plies must be a whole number"):
        tb.probe("W:WK46,K47,K48:BK5", {"6.3": "many"})
    with pytest.raises(kabe.MoveError, match=r"move 2 of the list: illegal move \"5-10\""):
        kabe.Counters.from_moves("W:WK46,K47,K48:BK5", ["46-37", "5-10"])
    with pytest.raises(kabe.MoveError, match="32-26"):
        kabe.Position.start().play("32-26")


def test_damaged_and_foreign_files_are_table_errors_naming_the_file(tables, tmp_path):
    copy = tmp_path / "tables"
    shutil.copytree(tables / "international", copy / "international")
    damaged = copy / "international" / "0101.dtw.kabe"
    data = bytearray(damaged.read_bytes())
    for i in range(len(data) // 2, len(data) // 2 + 16):
        data[i] ^= 0x5A
    damaged.write_bytes(bytes(data))
    with kabe.open_tablebase(copy) as tb:
        with pytest.raises(kabe.TableError, match="0101.dtw.kabe") as raised:
            for fen in ["W:WK1:BK50", "W:WK10:BK41", "B:WK23:BK28", "W:WK46:BK5"]:
                tb.probe_dtw(fen)
        assert isinstance(raised.value, OSError)
    (copy / "international" / "0101.wld.kabe").write_text("not a table\n")
    # Set aside when the directory is opened: the probes that need it name it, the
    # others answer.
    with kabe.open_tablebase(copy) as tb:
        with pytest.raises(kabe.TableError, match="0101.wld.kabe"):
            tb.probe_wld("W:WK1:BK50")
        assert tb.probe_wld("W:W32:B27") == 1


def test_closed_tablebase_says_so(tables):
    with kabe.open_tablebase(tables) as tb:
        assert tb.probe_wld("W:W32:B27") == 1
    with pytest.raises(kabe.TableError, match="is closed"):
        tb.probe_wld("W:W32:B27")


class PyDraughtsLikeBoard:
    """The shape of a py-draughts board: `fen` wrapped in a PDN tag, a VARIANT_NAME."""

    VARIANT_NAME = "Russian draughts"

    def __init__(self, fen):
        self.fen = f'[FEN "{fen}"]'


class PyDraughtsLikeGame:
    """The shape of a pydraughts game: `get_fen()` and a variant name."""

    variant = "standard"

    def __init__(self, fen):
        self._fen = fen

    def get_fen(self):
        return self._fen


def test_boards_of_other_libraries_are_read_by_duck_typing(tb):
    # Numeric squares on 8x8: 29, 30 = a1, c1; 4 = h8.
    assert tb.probe_wld(PyDraughtsLikeBoard("W:WK29,K30:BK4")) == tb.probe_wld("W:WKa1,Kc1:BKh8") == 1
    assert tb.probe_wld(PyDraughtsLikeGame("W:W32:B27")) == 1
    assert kabe.Counters(PyDraughtsLikeBoard("W:WK29,K30:BK4")).rules == "ussr1953"
    with pytest.raises(kabe.PositionError, match="a russian position given with variant 'international'"):
        tb.probe_wld(kabe.Position("W:WKa1,Kc1:BKh8"), variant="international")


def test_positions_and_moves():
    p = kabe.Position("W:W32:B27")
    assert (p.variant, p.turn, p.pieces, p.material) == ("international", "white", 2, "1010")
    (m,) = p.legal_moves()
    assert (m.text, m.from_square, m.to_square, m.captured, m.is_capture, m.piece) == ("32x21", 32, 21, [27], True, "man")
    after = p.play(m)
    assert after == p.play("32x21") == kabe.Position("B:W21:B")
    assert after.is_game_over()
    assert kabe.Position("W:Wa1:Bh8").variant == "russian"  # squares by letter: 8x8
    assert hash(kabe.Position.start()) == hash(kabe.Position.start("international"))
    assert kabe.Position.start("russian").pieces_by_square()[1] == "b"


def test_threads_get_the_same_answers(tables):
    positions = random_endgames("international", 4, 200, seed=7) + random_endgames("russian", 4, 200, seed=8)
    with kabe.open_tablebase(tables, cache_bytes=1 << 20) as tb:
        def answers(p):
            v = tb.probe(p)
            return (tb.probe_wld(p), tb.probe_dtw(p), v.to_dict(), [m.text for m in tb.best_moves(p)])

        alone = [answers(p) for p in positions]
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(answers, positions * 3))
    assert together == alone * 3


def test_analyze_yields_the_records_of_the_command_line(tables, kabe_bin, tmp_path):
    files = [small_pdn(tmp_path)] + sorted((pathlib.Path(__file__).parents[2] / "data" / "games").glob("*.pdn"))
    for pdn in files:
        cli = json.loads(
            subprocess.run(
                [kabe_bin, "analyze", str(pdn), "--tables", str(tables), "--no-generate", "--pieces", "4", "--format", "json"],
                capture_output=True,
                text=True,
            ).stdout
        )
        with kabe.open_tablebase(tables) as tb:
            analysis = kabe.Analysis(tb, str(pdn), pieces=4)
            records = list(analysis)
            assert records == cli["games"], pdn
            assert analysis.summary == cli["summary"], pdn
        assert list(kabe.analyze(pdn, tables, pieces=4)) == cli["games"]


def test_docstring_examples(tmp_path):
    globs = doctest_globals(tmp_path)
    flags = doctest.ELLIPSIS
    attempted = 0
    for module in [kabe, kabe._native]:
        result = doctest.testmod(module, extraglobs=globs, optionflags=flags, verbose=False)
        assert result.failed == 0, module
        attempted += result.attempted
    assert attempted >= 15


def test_prove_a_composition_beyond_the_tables_as_the_command_line_does(tb, tables, kabe_bin):
    # M. Fedorov, FMJD contest 1998: 14 pieces, proved down into the 4-piece tables.
    fen = "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42"
    proof = tb.prove(fen, nodes=100_000)
    assert proof["result"] == "win" and proof["keys"] == ["46-41"] and proof["cooks"] == []
    assert proof["checked"] and proof["proof"]["move"] == "46-41"
    key = next(m for m in proof["moves"] if m["move"] == "46-41")
    assert key["main_line"][:4] == ["46-41", "37x46", "19-13", "46x5"]
    cli = subprocess.run(
        [kabe_bin, "study", fen, "--tables", str(tables), "--nodes", "100000", "--json"],
        capture_output=True, text=True, check=True,
    )
    from_cli = json.loads(cli.stdout)
    assert from_cli["keys"] == proof["keys"] and from_cli["result"] == proof["result"]
    assert [m["outcome"] for m in from_cli["moves"]] == [m["outcome"] for m in proof["moves"]]
    # Black to move first: White wins after every Black move.
    after = tb.prove("B:W9,29,45,50:B10,15,35", solver="white", nodes=100_000)
    assert after["solver"] == "white" and after["result"] == "win" and after["keys"] == []


def test_prove_rejects_bad_budgets_and_positions(tb):
    fen = "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42"
    with pytest.raises(ValueError, match="nodes 0"):
        tb.prove(fen, nodes=0)
    with pytest.raises(ValueError, match="give a number of seconds above 0"):
        tb.prove(fen, time=0)
    with pytest.raises(ValueError, match="give 'white' or 'black'"):
        tb.prove(fen, solver="red")
    with pytest.raises(ValueError, match="no legal move"):
        tb.prove("W:W46:B41,37,36")
    # Extreme numbers are refused by name, never a crash or an endless search.
    for nodes in [2**40, 2**63]:
        with pytest.raises((ValueError, OverflowError), match="nodes"):
            tb.prove(fen, nodes=nodes)
    for time in [1e20, float("inf"), float("nan"), -1.0]:
        with pytest.raises(ValueError, match="seconds"):
            tb.prove(fen, time=time)


def test_a_cache_size_past_its_range_is_refused_by_name(tables):
    with pytest.raises(ValueError, match="cache_bytes"):
        kabe.Tablebase(str(tables), cache_bytes=2**41)
    with pytest.raises(OverflowError):
        kabe.Tablebase(str(tables), cache_bytes=-1)
