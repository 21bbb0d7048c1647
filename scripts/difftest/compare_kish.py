"""Differential test of Turkish draughts: kabe's legal moves against the kish engine's.

    python compare_kish.py --positions 10000 --kabe PATH   (in a venv with `kish`)

kish's notes say a man reaching the last row mid-capture "promotes immediately and
continues as king", but its move generator goes on as a man (c6xc8xe8=K with d8
adjacent, never c6xc8xf8; c6xc8 alone with f8 three squares away): it plays kabe's
`turkish-crown-at-end` reading, which is what this compares by default.

Positions: half late positions of random games from the start, half random placements
(men off their own last row, many kings) followed by a few random moves, all played with
kish. For each, the set of moves as (origin, destination, captured squares, position
after) must be equal; kish lists captures that take the same pieces by different routes
apart, so both sides are compared as sets. Prints every disagreement (the first ten) and
"N passed, M failed".
"""

import argparse
import json
import random
import subprocess
import sys

import kish

from compare import report


def bit(name):
    """kish's bit of an algebraic square: a1 = 0, h8 = 63."""
    return (int(name[1:]) - 1) * 8 + "abcdefgh".index(name[0].lower())


def name_of_bit(b):
    return "abcdefgh"[b % 8] + str(b // 8 + 1)


def bit_of_number(n):
    """kabe numbers the orthogonal board from a8 (1) to h1 (64)."""
    row_from_top, col = divmod(n - 1, 8)
    return (7 - row_from_top) * 8 + col


def squares(mask):
    return [b for b in range(64) if mask >> b & 1]


def fen_of(board):
    white, black, kings, turn = board.bitboards()
    side = lambda mask: ",".join(("K" if kings >> b & 1 else "") + name_of_bit(b) for b in squares(mask))
    return f"{'W' if turn == 0 else 'B'}:W{side(white)}:B{side(black)}"


def state_of_fen(fen):
    turn, white, black = fen.split(":")
    masks = {"W": 0, "B": 0}
    kings = 0
    for part in (white, black):
        color, items = part[0], part[1:]
        for item in filter(None, items.split(",")):
            k = item.startswith("K")
            b = bit(item[1:] if k else item)
            masks[color] |= 1 << b
            kings |= k << b
    return (masks["W"], masks["B"], kings, 0 if turn == "W" else 1)


def ends(origin, destination):
    """A capture that returns to its own square: kish's actions are square deltas and name
    no square for it (64), so both sides write it as (None, None)."""
    return (None, None) if origin == destination or origin >= 64 else (origin, destination)


def kish_moves(board):
    out = set()
    for a in board.actions():
        after = board.apply(a).bitboards()
        captured = frozenset(bit(s.notation()) for s in a.captured_pieces())
        out.add((*ends(bit(a.source().notation()), bit(a.destination().notation())), captured, after))
    return out


def kabe_moves(kabe, variant, fens):
    proc = subprocess.run([kabe, "moves", "--variant", variant, "--stdin"], input="\n".join(fens) + "\n",
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"kabe moves failed: {proc.stderr}")
    result = []
    for line in proc.stdout.splitlines():
        data = json.loads(line)
        result.append({(*ends(bit_of_number(m["from"]), bit_of_number(m["to"])),
                        frozenset(bit_of_number(c) for c in m["captured"]), state_of_fen(m["fen_after"]))
                       for m in data["moves"]})
    return result


def random_placement(rng):
    white = black = kings = 0
    taken = 0
    for color in (0, 1):
        for _ in range(rng.randint(1, 7)):
            b = rng.randrange(64)
            king = rng.random() < 0.5
            last_row = 7 if color == 0 else 0
            if taken >> b & 1 or (not king and b // 8 == last_row):
                continue
            taken |= 1 << b
            if color == 0:
                white |= 1 << b
            else:
                black |= 1 << b
            kings |= king << b
    if not white or not black:
        return None
    return kish.Board.from_bitboards(turn=rng.randrange(2), white=white, black=black, kings=kings)


def random_positions(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        if rng.random() < 0.5:
            board, plies = kish.Board(), rng.randint(10, 120)
            for ply in range(plies):
                actions = board.actions()
                if not actions:
                    break
                if rng.random() < ply / plies * 0.25:
                    out.append(board)
                board = board.apply(rng.choice(actions))
            out.append(board)
        else:
            board = random_placement(rng)
            if board is None:
                continue
            for _ in range(rng.randint(0, 6)):
                actions = board.actions()
                if not actions:
                    break
                out.append(board)
                board = board.apply(rng.choice(actions))
            out.append(board)
    return out[:count]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kabe", required=True)
    ap.add_argument("--variant", default="turkish-crown-at-end")
    args = ap.parse_args()
    boards = random_positions(args.positions, args.seed)
    fens = [fen_of(b) for b in boards]
    ours = kabe_moves(args.kabe, args.variant, fens)
    theirs = [kish_moves(b) for b in boards]
    with_kings = [b.bitboards()[2] != 0 for b in boards]
    sys.exit(report("kish", args.variant, fens, ours, theirs, with_kings))

if __name__ == "__main__":
    main()
