#!/usr/bin/env bash
# The statistics page of a built table set, as docs/stats/VARIANT.md holds it: for every
# material, positions, wins, draws and losses for each side to move, the longest win
# with its FEN and length, how many theoretical wins the draw rules' fresh count turns
# into draws (and under which article), and the bytes of each kind of file.
# Usage: [KABE=BINARY] [LISTED="MANIFEST..."] scripts/stats-doc.sh VARIANT TABLE_DIR [RULES] > docs/stats/VARIANT.md
# A size with only some of its pairs built (a set still growing) is named as such. With
# LISTED, only the files those manifests list are read: a set that scripts/grow-set.sh is
# still writing into, whose newest pair is not verified yet (counting it from its files
# would take hours); the bytes of each kind are then the manifests'. With KEEP=PAGE too,
# a listed pair whose files are not on disk (a new machine that has not rebuilt it) keeps
# its row from PAGE, an earlier page of the same set; without its row there, or without
# KEEP, it is an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:?variant}
dir=${2:?table directory}
rules=${3:-}
if [ -z "${KABE:-}" ]; then # KABE=PATH: that binary, nothing built
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" --workspace --bins --examples # as the test build (scripts/test.sh)
fi
kabe=${KABE:-$root/target/release/kabe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The page's maker; `kept` prints the listed signatures whose rows KEEP holds.
cat >"$work/page.py" <<'PY'
import json, os, sys
from collections import defaultdict
mode, work, variant, folder, keep = sys.argv[1:6]
rules = sys.argv[6] if len(sys.argv) > 6 else ""

def flip(s):
    return s[2:] + s[:2]

def side(s):
    men, kings = int(s[0]), int(s[1])
    parts = []
    if kings:
        parts.append(f"{kings}K")
    if men:
        parts.append(f"{men}M")
    return "+".join(parts)

def material(s):
    return f"{side(s)} v {side(flip(s))}"

pieces = lambda s: sum(int(c) for c in s)
listed_path = os.path.join(work, "listed.txt")
listed = [line.split() for line in open(listed_path)] if os.path.exists(listed_path) else []
listed_pairs = {min(s, flip(s)) for s in (name.split(".", 1)[0] for name, _ in listed)}

def kept_rows(pairs):
    """The rows of these pairs (first signatures) that the page KEEP has."""
    by_material = {material(s): s for s in pairs}
    number = lambda text: int(text.replace(",", ""))
    triple = lambda text: [number(x) for x in text.split(" / ")]
    rows = {}
    for line in open(keep) if keep and os.path.exists(keep) else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] in by_material and len(cells) >= 6:
            s = by_material.pop(cells[0])
            rows[s] = {
                "positions": number(cells[1]), "white": triple(cells[2]), "black": triple(cells[3]),
                "sides": 1 if flip(s) == s else 2, "longest": cells[4], "fen": cells[5],
                "count": cells[6] if len(cells) > 6 else "-", "drawn": number(cells[7]) if len(cells) > 7 else 0,
            }
    return rows

if mode == "kept":
    # A listed pair's row, kept from the earlier page, stands for its files: the manifest
    # fixes their bytes, and so their counts.
    for s in sorted(kept_rows(listed_pairs)):
        print(s)
        if flip(s) != s:
            print(flip(s))
    sys.exit()

theory = {t["signature"]: t for t in json.load(open(os.path.join(work, "theory.json")))["tables"]}
ruled = {}
has_rules = os.path.exists(os.path.join(work, "rules.json"))
if has_rules:
    ruled = {t["signature"]: t.get("rules", {}) for t in json.load(open(os.path.join(work, "rules.json")))["tables"]}

sizes = defaultdict(int)
files = defaultdict(int)
if listed:
    # LISTED: the files the manifests list, with the bytes they give.
    for name, size in listed:
        kind = name.split(".", 1)[1][: -len(".kabe")]
        sizes[kind] += int(size)
        files[kind] += 1
else:
    for name in os.listdir(os.path.join(folder, variant)):
        if name.endswith(".kabe"):
            kind = name.split(".", 1)[1][: -len(".kabe")]
            sizes[kind] += os.path.getsize(os.path.join(folder, variant, name))
            files[kind] += 1

def all_pairs(n):
    """Every material of n pieces with a piece on each side, one signature of each pair."""
    sigs = set()
    for white in range(1, n):
        for wm in range(white + 1):
            for bm in range(n - white + 1):
                sig = f"{wm}{white - wm}{bm}{n - white - bm}"
                sigs.add(min(sig, flip(sig)))
    return sigs

# One row a pair (its first signature): the counts of each side to move, the longest win
# of the pair, the count that governs it and the wins that count draws.
rows = {}
for s in theory:
    if s > flip(s):
        continue
    w, b = theory[s], theory.get(flip(s), theory[s])
    pair = [w] if flip(s) == s else [w, b]
    longest = max(pair, key=lambda t: t["longest_win_plies"] or -1)
    r = [ruled.get(t["signature"], {}) for t in pair]
    rows[s] = {
        "positions": w["positions"],
        "white": [w[k] for k in ("wins", "draws", "losses")],
        "black": [b[k] for k in ("wins", "draws", "losses")],
        "sides": len(pair),
        "longest": str(longest["longest_win_plies"] or "-"),
        "fen": longest["longest_win_fen"] or "",
        "count": r[0].get("count") or "-",
        "drawn": sum(x.get("wins_drawn_by_count", 0) for x in r),
    }
# The listed pairs not counted: their rows from KEEP.
rows.update(kept_rows(listed_pairs - set(rows)))
if listed_pairs - set(rows):
    sys.exit("stats-doc: listed, but neither counted nor kept: " + ", ".join(sorted(map(material, listed_pairs - set(rows)))))

top = max(pieces(s) for s in rows)
# A set still being built (scripts/grow-set.sh) has only some pairs of its largest size.
have = {n: sum(1 for s in rows if pieces(s) == n) for n in range(2, top + 1)}
partial = {n: len(all_pairs(n)) for n in have if have[n] < len(all_pairs(n))}
reach = f"2-{top} pieces"
if partial:
    whole = min(partial) - 1
    reach = (f"2-{whole} pieces, " if whole > 2 else "2 pieces, ") + ", ".join(
        f"{have[n]} of the {partial[n]} pairs of {n}" for n in sorted(partial))
print(f"# {variant.capitalize()} draughts: statistics of the endgame tables, {reach}")
print()
print(f"Generated by `scripts/stats-doc.sh {variant} DIR{(' ' + rules) if rules else ''}` from `kabe stats --json`"
      f"{' and `kabe stats --rules ' + rules + ' --json`' if has_rules else ''}. The counts do not depend on the machine.")
print("A material is written White v Black (K kings, M men). Every position of the material is counted")
print("once for each side to move, captures included; results are for the side to move. The longest")
print("win is in plies (half-moves) to the end of the game, with White to move in its FEN when the")
print("side to move is White, else the colours flipped. Under the draw rules each position starts a fresh")
print("count: *drawn by the count* is how many theoretical wins (either side to move) the count that")
print("governs the material turns into draws.")
print()
print("| kind | files | bytes |")
print("|---|---:|---:|")
for kind in sorted(sizes):
    print(f"| {kind} | {files[kind]} | {sizes[kind]:,} |")
print()
for n in range(2, top + 1):
    sigs = sorted(s for s in rows if pieces(s) == n)
    total = defaultdict(int)
    print(f"## {n} pieces" + (f" ({have[n]} of {partial[n]} pairs)" if n in partial else ""))
    print()
    head = "| material | positions | White to move: win / draw / loss | Black to move: win / draw / loss | longest win (plies) | its position |"
    sep = "|---|---:|---:|---:|---:|---|"
    if has_rules:
        head += " count | drawn by the count |"
        sep += "---|---:|"
    print(head)
    print(sep)
    for s in sigs:
        r = rows[s]
        wdl = lambda c: " / ".join(f"{x:,}" for x in c)
        row = f"| {material(s)} | {r['positions']:,} | {wdl(r['white'])} | {wdl(r['black'])} | {r['longest']} | {r['fen']} |"
        total["positions"] += r["positions"] * r["sides"]
        for i, k in enumerate(("wins", "draws", "losses")):
            total[k] += r["white"][i] + (r["black"][i] if r["sides"] == 2 else 0)
        if has_rules:
            total["drawn"] += r["drawn"]
            row += f" {r['count']} | {r['drawn']:,} |"
        print(row)
    print()
    line = (f"{n} pieces: {total['positions']:,} positions (both sides to move), {total['wins']:,} wins, "
            f"{total['draws']:,} draws, {total['losses']:,} losses for the side to move")
    if has_rules:
        line += f"; {total['drawn']:,} wins drawn by the {rules} count"
    print(line + ".")
    print()
PY
signatures=()
if [ -n "${LISTED:-}" ]; then
  # The listed files on disk and the verifier's ledger, linked into a folder of their own.
  mkdir -p "$work/set/$variant"
  awk '$1 ~ /\.kabe$/ {print $1, $3}' $LISTED | sort -u >"$work/listed.txt"
  while read -r name bytes; do
    if [ -e "$dir/$variant/$name" ]; then
      ln -s "$(cd "$dir/$variant" && pwd)/$name" "$work/set/$variant/$name"
    fi
  done <"$work/listed.txt"
  if [ -e "$dir/$variant/verified.txt" ]; then
    ln -s "$(cd "$dir/$variant" && pwd)/verified.txt" "$work/set/$variant/verified.txt"
  fi
  given=$dir dir=$work/set
  python3 "$work/page.py" kept "$work" "$variant" "$dir" "${KEEP:-}" >"$work/kept.txt"
  # The listed signatures to count: those without a kept row (each on disk, or an error).
  while read -r sig; do
    grep -qx "$sig" "$work/kept.txt" && continue
    for name in $(awk -v s="$sig" 'index($1, s ".") == 1 { print $1 }' "$work/listed.txt"); do
      [ -e "$dir/$variant/$name" ] ||
        { echo "stats-doc: $given/$variant/$name is listed in $LISTED but missing${KEEP:+, and $KEEP has no row of it}" >&2; exit 1; }
    done
    signatures+=("$sig")
  done < <(awk '{ sub(/\..*/, "", $1); print $1 }' "$work/listed.txt" | sort -u)
fi
if [ -z "$rules" ]; then
  case "$variant" in
    international) rules=fmjd ;;
    russian) rules=ussr1953 ;;
    *) rules=none ;;
  esac
fi
# kabe stats of every table (no LISTED), or of the listed ones not kept (none: nothing to run).
stats() {
  if [ -z "${LISTED:-}" ]; then
    "$kabe" stats --variant "$variant" --tables "$dir" "$@" --json
  elif [ ${#signatures[@]} -gt 0 ]; then
    "$kabe" stats --variant "$variant" --tables "$dir" --signature "$(IFS=,; echo "${signatures[*]}")" "$@" --json
  else
    echo '{"tables": []}'
  fi
}
stats >"$work/theory.json"
if [ "$rules" != none ]; then
  stats --rules "$rules" >"$work/rules.json"
fi
python3 "$work/page.py" page "$work" "$variant" "$dir" "${KEEP:-}" "$rules"
