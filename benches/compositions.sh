#!/usr/bin/env bash
# Proof search over the bundled composition collections (data/studies/compositions):
# per file, how many were proved sound, cooked, refuted or left unresolved, how many have
# tries, the published solutions that do not hold, and the time each took; over all of
# them, the median, 95th percentile and longest time and the peak memory; then every try,
# and each unresolved key with the materials beyond the tables its search met most.
# Prints Markdown tables for docs/compositions.md.
# Usage: benches/compositions.sh TABLE_DIR [--nodes N] [--variant V] [FILE.pdn ...]
# (the variant defaults to international: the bundled collections are international
# problems whose files have no GameType, and a few have FENs on squares 1-32 only).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tables=${1:?table directory (international tables, 2-5 pieces for the recorded figures)}
shift
nodes=()
variant=international
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=(--nodes "$2"); shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
[ ${#files[@]} -gt 0 ] || files=("$root"/data/studies/compositions/*.pdn)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
kabe="$root/target/release/kabe"
out="$root/target/bench-compositions"
mkdir -p "$out"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "tables: $tables"
for f in "${files[@]}"; do
  name=$(basename "$f" .pdn)
  # Exit 1 means "not every composition sound": the figures are what we want.
  /usr/bin/time -f '%M' -o "$out/$name.rss" "$kabe" study --pdn "$f" --variant "$variant" --tables "$tables" "${nodes[@]}" --json \
    >"$out/$name.json" || [ $? -eq 1 ]
done
python3 - "$out" "${files[@]}" <<'PY'
import json, os, statistics, sys
out, files = sys.argv[1], sys.argv[2:]
print()
print("| file | compositions | sound | cooked | refuted | unresolved | unreadable | with duals | with tries | solutions not holding | median s | longest s | peak MiB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
tries, unresolved = [], []
times, peak = [], 0
for f in files:
    name = os.path.basename(f)[:-4]
    d = json.load(open(os.path.join(out, name + ".json")))
    rss = int(open(os.path.join(out, name + ".rss")).read().split()[-1]) // 1024
    peak = max(peak, rss)
    comps = d["compositions"]
    verdict = lambda c: c.get("verdict", "unreadable").split(" ")[0]
    count = lambda v: sum(1 for c in comps if verdict(c) == v)
    t = [c["elapsed_s"] for c in comps if "elapsed_s" in c]
    times += t
    duals = sum(1 for c in comps for m in c.get("moves", []) if m.get("outcome") == "win" and c.get("keys") and m["move"] in c["keys"] and any(x["duals"] for x in m.get("duals", [])))
    faulty = sum(1 for c in comps if "solution" in c and not c["solution"]["holds"])
    with_tries = sum(1 for c in comps if c.get("tries"))
    for c in comps:
        for m in c.get("moves", []):
            if m.get("try"):
                r = m["defences"]["holding"][0]
                tries.append((name, c.get("round") or f"game {c['game']}", c["fen"], m["move"], r["line"], r["end"], r["disproof_positions"]))
        if verdict(c) == "unresolved":
            key = c.get("solution", {}).get("published_key")
            beyond = next((m.get("beyond_tables", []) for m in c.get("moves", []) if m["move"] == key), [])
            unresolved.append((name, c.get("round") or f"game {c['game']}", c["fen"], key, beyond))
    print(f"| {name} | {len(comps)} | {count('sound')} | {count('cooked')} | {count('refuted')} | {count('unresolved')} | {count('unreadable')} | {duals} | {with_tries} | {faulty} | {statistics.median(t):.2f} | {max(t):.2f} | {rss} |")
times.sort()
p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
print()
print(f"{len(times)} compositions searched: median {statistics.median(times):.2f} s, 95th percentile {p95:.2f} s, longest {times[-1]:.2f} s; "
      f"{sum(t < 1 for t in times)} within 1 s, {sum(t <= 30 for t in times)} within 30 s; peak {peak} MiB")
print()
print(f"Tries ({len(tries)}): the first move, the one defence that refutes it, its line and how it ends (every disproof replayed by the checker).")
print()
print("| file | problem | position | try | refuted only by | line | end | disproof positions |")
print("|---|---|---|---|---|---|---|---|")
for name, problem, fen, move, line, end, size in tries:
    print(f"| {name} | {problem} | `{fen}` | {move} | {line[0]} | {' '.join(line)} | {end} | {size} |")
print()
print(f"Unresolved ({len(unresolved)}): the published key, and the materials beyond the tables its search met most (open positions of one piece more than the tables reach).")
print()
print("| file | problem | position | key (published) | open beyond the tables |")
print("|---|---|---|---|---|")
for name, problem, fen, key, beyond in unresolved:
    listed = ", ".join(f"{b['material']} ({b['positions']:,})" for b in beyond) or "none"
    print(f"| {name} | {problem} | `{fen}` | {key} | {listed} |")
PY
