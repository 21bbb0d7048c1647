"""Recomputes the counts of kabe's perft data files with an independent implementation.

    python crosscheck_perft.py --impl reference data/perft/kabe.perft --max-nodes 300000

Captures with the same origin, destination and captured set (and crowning) count once,
the published convention. Closes with "N passed, M failed".
"""

import argparse
import sys

import reference as R


def read_vectors(path):
    vectors, cur = [], None
    for raw in open(path, encoding="utf-8"):
        line = raw.split("#")[0].strip()
        if not line:
            continue
        key, value = line.split(None, 1)
        if key == "id":
            cur = {"id": value}
        elif key == "variant":
            cur["variant"] = value
        elif key == "fen":
            cur["fen"] = value
            cur["counts"] = []
            vectors.append(cur)
        elif key == "perft":
            d, n = value.split()
            cur["counts"].append((int(d), int(n)))
    return vectors


def reference_perft(variant, fen, depth):
    return R.perft(R.Position.from_fen(variant, fen), depth)


def py_draughts_perft(variant, fen, depth):
    import draughts

    cls = {"international": draughts.StandardBoard, "russian": draughts.RussianBoard}[variant]
    board = cls.from_fen(fen)

    def unique(moves):
        seen, out = set(), []
        for m in moves:
            key = (m.square_list[0], m.square_list[-1], frozenset(m.captured_list), m.is_promotion)
            if key not in seen:
                seen.add(key)
                out.append(m)
        return out

    def go(d):
        moves = unique(board.legal_moves)
        if d == 1:
            return len(moves)
        total = 0
        for m in moves:
            board.push(m)
            total += go(d - 1)
            board.pop()
        return total

    return go(depth) if depth > 0 else 1


IMPLS = {"reference": (reference_perft, set(R.RULES)), "py-draughts": (py_draughts_perft, {"international", "russian"})}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=IMPLS, required=True)
    ap.add_argument("--max-nodes", type=int, default=300000)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    fn, variants = IMPLS[args.impl]
    passed = failed = 0
    for path in args.files:
        for v in read_vectors(path):
            if v["variant"] not in variants:
                continue
            for depth, expected in v["counts"]:
                if expected > args.max_nodes:
                    continue
                got = fn(v["variant"], v["fen"], depth)
                ok = got == expected
                passed += ok
                failed += not ok
                if not ok:
                    print(f"FAIL {path} {v['id']} depth {depth}: {args.impl} {got}, file {expected} ({v['fen']})")
    print(f"{args.impl} perft cross-check: {passed} passed, {failed} failed")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
