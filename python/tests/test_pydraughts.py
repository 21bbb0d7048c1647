"""kabe against py-draughts (an independent implementation, installed in its own venv by
scripts/python-test.sh): random games on py-draughts boards; kabe reads every board as
it stands, and within the tables every best move kabe gives is legal in py-draughts.

Skipped where py-draughts is not installed, unless KABE_REQUIRE_PYDRAUGHTS=1 (the
script sets it, so the check cannot pass by being skipped)."""

import os
import random

import pytest

import kabe

if os.environ.get("KABE_REQUIRE_PYDRAUGHTS") == "1":
    import draughts
else:
    draughts = pytest.importorskip("draughts")

GAMES = int(os.environ.get("KABE_PYDRAUGHTS_GAMES", "200"))


def pydraughts_moves(board):
    """py-draughts' legal moves as (from, to, captured squares), 1-based."""
    return {
        (m.square_list[0] + 1, m.square_list[-1] + 1, frozenset(c + 1 for c in m.captured_list))
        for m in board.legal_moves
    }


@pytest.mark.parametrize("board_class, variant", [("StandardBoard", "international"), ("RussianBoard", "russian")])
def test_best_moves_are_legal_in_pydraughts(tables, board_class, variant):
    rng = random.Random(20261123)
    probed = boards = 0
    with kabe.open_tablebase(tables) as tb:
        reach = tb.max_pieces(variant)
        assert reach >= 3, "the test tables must reach at least 3 pieces"
        for _ in range(GAMES):
            board = getattr(draughts, board_class)()
            for _ply in range(600):
                legal = list(board.legal_moves)
                if not legal:
                    break
                position = kabe.Position(board.fen.split('"')[1], variant)
                # The board object itself, read by duck typing, is the same position.
                assert tb.counters(board).position == position
                boards += 1
                if position.pieces <= reach:
                    expected = pydraughts_moves(board)
                    for best in tb.best_moves(board):
                        m = best.move
                        key = (m.from_square, m.to_square, frozenset(m.captured))
                        assert key in expected, (board.fen, m.text, sorted(expected))
                    probed += 1
                board.push(rng.choice(legal))
    # Enough endgames reached that the check means something.
    print(f"{variant}: {boards} boards read, {probed} within {reach} pieces probed")
    assert boards > 1000 and probed >= GAMES, (boards, probed)
