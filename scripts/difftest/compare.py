"""Differential test: kabe's legal moves against an independent implementation.

    python compare.py --impl py-draughts --variant international --positions 10000 --kabe PATH

Positions come from random play with the reference implementation (reference.py), half
from whole random games (sampled late, so endgames with kings are frequent) and half
from random king-rich placements followed by a few random moves. For each position the
set of legal moves, each as (origin, destination, captured squares, position after), must
be equal. Prints every disagreement and closes with "N passed, M failed".
"""

import argparse
import json
import random
import re
import subprocess
import sys

import reference as R

LIB_VARIANTS = {
    "py-draughts": {"international", "russian"},
    "pydraughts": {"international", "russian", "english", "italian", "brazilian", "antidraughts"},
    "reference": set(R.RULES),
}


def random_positions(variant, count, seed):
    rng = random.Random(seed)
    rules = R.RULES[variant]
    out = []
    while len(out) < count:
        if rng.random() < 0.5:
            pos = R.start(variant)
            plies = rng.randint(10, 160)
            for ply in range(plies):
                moves = pos.legal_moves()
                if not moves:
                    break
                # Sample more often the further the game goes.
                if rng.random() < ply / plies * 0.25:
                    out.append(pos)
                pos = pos.play(rng.choice(moves))
            out.append(pos)
        else:
            pos = random_placement(rules, variant, rng)
            for _ in range(rng.randint(0, 6)):
                moves = pos.legal_moves()
                if not moves:
                    break
                out.append(pos)
                pos = pos.play(rng.choice(moves))
            out.append(pos)
    return out[:count]


def random_placement(rules, variant, rng):
    size = rules.size
    squares = size * size // 2
    board = {}
    for color in "WB":
        for _ in range(rng.randint(1, 6)):
            king = rng.random() < 0.6
            n = rng.randint(1, squares)
            rc = R.square_to_rc(size, n)
            promo = 0 if color == "W" else size - 1
            if rc in board or (not king and rc[0] == promo):
                continue
            board[rc] = color if king else color.lower()
    return R.Position(variant, rng.choice("WB"), board)


def canon_fen(size, fen, mirrored=False):
    m = re.search(r'"([^"]*)"', fen)
    turn, board = R.parse_fen(size, m.group(1) if m else fen)
    if mirrored:
        board = {R.square_to_rc(size, mirror(size, R.rc_to_square(size, rc))): p for rc, p in board.items()}
    return R.canonical(size, turn, board)


def mirror(size, n):
    """A square number on the mirrored board (Italian): the same row, counted from the
    other end. Its own inverse."""
    half = size // 2
    row, k = divmod(n - 1, half)
    return row * half + (half - 1 - k) + 1


def written(variant, fen):
    """A reference FEN in the numbers the game writes (mirrored for Italian)."""
    r = R.RULES[variant]
    if not r.mirrored:
        return fen
    turn, board = R.parse_fen(r.size, fen)
    side = lambda c: ",".join(sorted(("K" if p.isupper() else "") + str(mirror(r.size, R.rc_to_square(r.size, rc))) for rc, p in board.items() if p.upper() == c))
    return f"{turn}:W{side('W')}:B{side('B')}"


def kabe_moves(kabe, variant, fens):
    size, mirrored = R.RULES[variant].size, R.RULES[variant].mirrored
    back = (lambda n: mirror(size, n)) if mirrored else (lambda n: n)
    proc = subprocess.run(
        [kabe, "moves", "--variant", variant, "--stdin"],
        input="\n".join(written(variant, f) for f in fens) + "\n",
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"kabe moves failed: {proc.stderr}")
    result = []
    for line in proc.stdout.splitlines():
        data = json.loads(line)
        result.append(
            {
                (back(m["from"]), back(m["to"]), frozenset(back(c) for c in m["captured"]), canon_fen(size, m["fen_after"], mirrored))
                for m in data["moves"]
            }
        )
    return result


def reference_moves(variant, fen):
    pos = R.Position.from_fen(variant, fen)
    size = pos.r.size
    return {
        (
            R.rc_to_square(size, m[0]),
            R.rc_to_square(size, m[1]),
            frozenset(R.rc_to_square(size, c) for c in m[2]),
            pos.play(m).canonical(),
        )
        for m in pos.legal_moves()
    }


def py_draughts_moves(variant, fen):
    import draughts

    cls = {"international": draughts.StandardBoard, "russian": draughts.RussianBoard}[variant]
    size = R.RULES[variant].size
    board = cls.from_fen(fen)
    out = set()
    for m in board.legal_moves:
        board.push(m)
        after = canon_fen(size, board.fen)
        board.pop()
        out.add((m.square_list[0] + 1, m.square_list[-1] + 1, frozenset(c + 1 for c in m.captured_list), after))
    return out


def pydraughts_square(variant, n):
    """pydraughts numbers Russian and Brazilian squares from White's bottom-left (a1 = 1),
    Italian squares as Italian books do (the mirrored board)."""
    if variant == "italian":
        return mirror(8, n)
    if variant not in ("russian", "brazilian"):
        return n
    rank, k = divmod(n - 1, 4)
    col = 2 * k + (0 if rank % 2 == 0 else 1)
    return R.rc_to_square(8, (7 - rank, col))


def pydraughts_moves(variant, fen):
    from draughts import Board

    size, mirrored = R.RULES[variant].size, R.RULES[variant].mirrored
    fen = written(variant, fen)
    if variant in ("russian", "brazilian"):
        turn, board = R.parse_fen(size, fen)
        side = lambda c: ",".join(("K" if p.isupper() else "") + R.rc_to_alg(size, rc) for rc, p in board.items() if p.upper() == c)
        fen = f"{turn}:W{side('W')}:B{side('B')}"
    board = Board(variant={"international": "standard"}.get(variant, variant), fen=fen)
    sq = lambda n: pydraughts_square(variant, n)
    out = set()
    for m in board.legal_moves():
        after = board.copy()
        after.push(m)
        out.add((sq(m.steps_move[0]), sq(m.steps_move[-1]), frozenset(sq(c) for c in m.captures), canon_fen(size, after.fen, mirrored)))
    return out


IMPLS = {"reference": reference_moves, "py-draughts": py_draughts_moves, "pydraughts": pydraughts_moves}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=IMPLS, required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--positions", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kabe", required=True)
    args = ap.parse_args()
    if args.variant not in LIB_VARIANTS[args.impl]:
        sys.exit(f"{args.impl} does not implement {args.variant}")
    positions = random_positions(args.variant, args.positions, args.seed)
    fens = [p.fen() for p in positions]
    ours = kabe_moves(args.kabe, args.variant, fens)
    theirs_fn = IMPLS[args.impl]
    theirs = [theirs_fn(args.variant, fen) for fen in fens]
    sys.exit(report(args.impl, args.variant, fens, ours, theirs, ["K" in fen for fen in fens]))


def report(impl, variant, fens, ours, theirs, with_kings):
    """Prints the first ten disagreements and the totals; returns the exit status."""
    passed = failed = 0
    for fen, mine, other in zip(fens, ours, theirs):
        if mine == other:
            passed += 1
            continue
        failed += 1
        if failed <= 10:
            print(f"DIFFER {variant} {fen}")
            print(f"  only kabe: {sorted(mine - other, key=str)}")
            print(f"  only {impl}: {sorted(other - mine, key=str)}")
    captures = sum(any(m[2] for m in mine) for mine in ours)
    print(f"{impl} {variant}: {len(fens)} positions, {sum(with_kings)} with kings, {captures} with captures")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    main()
