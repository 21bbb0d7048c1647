#!/usr/bin/env bash
# Grows a table set by one number of pieces, one pair at a time, each pair verified and
# its files recorded in the repository's manifest as soon as it is, so that a build
# longer than a sitting survives a new machine:
#
#   scripts/grow-set.sh [--commit] VARIANT PIECES TABLES
#
#   1. The inputs, the pairs of fewer pieces. Where the repository lists them
#      (data/manifests/VARIANT-2-(PIECES-1).txt), each is built when a new pair reads it
#      (below) and checked against that manifest before anything is built on it; where it
#      does not, they are built whole (`kabe generate --pieces PIECES-1 --keep-dropped`,
#      resumes), verified (`kabe verify`) and their manifest written.
#   2. The pairs of PIECES pieces (`kabe plan --json`). Of the pairs the manifest
#      (data/manifests/VARIANT-2-PIECES.txt) does not list, those whose inputs of PIECES
#      pieces it lists are ready; the ready pair cheapest to build from what is on disk
#      (the plan's time for it and for the pairs it reads, directly or not, that are
#      missing, inputs and listed pairs alike; ties in build order) is built: first the
#      inputs it reads that are missing (`kabe generate --closure --keep-dropped` of each
#      that no other of them reads, then checked), then the pair (`kabe generate --closure
#      --keep-dropped`, which keeps one side of a whole pair, the other's values aside for
#      the pairs built later to read, and builds first the listed pairs it reads that are
#      missing); it is verified (`kabe verify --signature`:
#      every value derived again), and its files' lines added to the manifest and the
#      statistics page (docs/stats/VARIANT.md, by scripts/stats-doc.sh) written from the
#      manifests' files (with --commit, both committed at once). A listed pair found on
#      disk must match the manifest byte for byte (one with both sides holding values,
#      from a closure stopped before it kept one side, keeps one first; else it is built
#      again, and must then); one missing, input or listed pair, is built only when a pair
#      not listed reads it, or at the end: a run on a bare machine goes on with the new
#      pairs that need least rebuilt first, without rebuilding hours of pairs they do not
#      read.
#
# Interrupt it at any time: a run goes on with the pair then cheapest, the pair it was
# building unless the listed pairs it had rebuilt made another cheaper (the passes of a
# pair stopped in the middle resume from their checkpoints when it is built). KABE names the
# binary (default: target/release/kabe, built here); NICE the niceness (default 19; on
# Linux the session's scheduling group's too);
# MANIFESTS the folder of the manifests (default: data/manifests); STATS the folder of the
# statistics page (default: docs/stats).
set -euo pipefail
cd "$(dirname "$0")/.."

commit=false
if [ "${1:-}" = --commit ]; then commit=true; shift; fi
[ $# -eq 3 ] || { echo "usage: scripts/grow-set.sh [--commit] VARIANT PIECES TABLES" >&2; exit 2; }
variant=$1 pieces=$2 tables=$3
case $pieces in [3-9]) ;; *) echo "grow-set: PIECES must be 3 to 9, not '$pieces'" >&2; exit 2 ;; esac
inputs=$((pieces - 1))
manifests=${MANIFESTS:-data/manifests}
stats=${STATS:-docs/stats}
manifest=$manifests/$variant-2-$pieces.txt
input_manifest=$manifests/$variant-2-$inputs.txt

if [ -z "${KABE:-}" ]; then
  cargo build --release --quiet --workspace --bins --examples # as the test build (scripts/test.sh)
  KABE=target/release/kabe
fi
kabe() { nice -n "${NICE:-19}" "$KABE" "$@"; }
# Linux schedules each session as one group (autogroup): a nice build still takes half
# the cores from the work of another session. So the group is made nice too (the other
# work of this session with it: start the script in a session of its own, setsid, to
# spare it).
if [ -w /proc/self/autogroup ]; then echo "${NICE:-19}" > /proc/self/autogroup 2>/dev/null || true; fi
say() { echo "grow-set: $*"; }

# Signatures of PIECES pieces (or, with "up", up to PIECES) in build order, from the plan.
plan_signatures() {
  kabe plan --variant "$variant" --pieces "$1" --tables "$tables" --json | python3 -c '
import json, sys
for job in json.load(sys.stdin)["jobs"]:
    n = sum(int(c) for c in job["signatures"][0])
    if n == int(sys.argv[1]) or (sys.argv[2] == "up" and n < int(sys.argv[1])):
        print(",".join(job["signatures"]))
' "$1" "$2"
}

if [ -f "$input_manifest" ]; then
  say "inputs: $variant 2-$inputs in $tables, each pair built when a new pair reads it and checked against $input_manifest"
else
  say "inputs: $variant 2-$inputs in $tables"
  kabe generate --variant "$variant" --pieces "$inputs" --tables "$tables" --keep-dropped
  say "no $input_manifest: verifying the inputs, then writing it"
  kabe verify --variant "$variant" --tables "$tables" --signature "$(plan_signatures "$inputs" up | paste -sd,)" | tail -n 3
  kabe manifest --variant "$variant" --tables "$tables" --signature "$(plan_signatures "$inputs" up | paste -sd,)" >"$input_manifest"
fi

if [ ! -f "$manifest" ]; then
  head -n 1 "$input_manifest" >"$manifest"
fi
head_line=$(head -n 1 "$manifest")

# The plan of PIECES pieces (every pair of 2 to PIECES pieces).
plan=$(kabe plan --variant "$variant" --pieces "$pieces" --tables "$tables" --json)
# The pairs of PIECES pieces ("new"), or of fewer ("inputs"), in build order: name, then
# the pair's file names.
pairs_of() {
  python3 -c '
import json, os, sys
plan = json.load(sys.stdin)
for job in plan["jobs"]:
    n = sum(int(c) for c in job["signatures"][0])
    if (n == int(sys.argv[1])) == (sys.argv[2] == "new"):
        print(job["name"], *sorted(os.path.basename(o) for o in job["outputs"]))
' "$pieces" "$1" <<<"$plan"
}
pairs=$(pairs_of new)
input_pairs=$(pairs_of inputs)

# The next pair to build, as a line of $pairs: of the pairs not listed whose inputs of
# PIECES pieces are listed, the one with the least plan time to build with the pairs it
# reads (directly or through others, inputs of fewer pieces and listed pairs alike) that
# are not on disk; nothing when every pair is listed.
next_pair() {
  python3 -c '
import json, os, sys
plan, pieces, manifest, folder = json.load(sys.stdin), int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(manifest) as f:
    listed_files = {line.split()[0] for line in f if not line.startswith("#") and line.strip()}
every = {j["name"]: j for j in plan["jobs"]}
jobs = {n: j for n, j in every.items() if sum(int(c) for c in j["signatures"][0]) == pieces}
files = {n: [os.path.basename(o) for o in j["outputs"]] for n, j in every.items()}
listed = {n for n in jobs if all(f in listed_files for f in files[n])}
on_disk = {n for n in every if all(os.path.isfile(os.path.join(folder, f)) for f in files[n])}
def missing(name, seen):
    if name in seen or name in on_disk:
        return 0.0
    seen.add(name)
    return every[name]["seconds"] + sum(missing(d, seen) for d in every[name]["depends_on"])
best = None
for name, job in jobs.items():
    if name in listed or not all(d in listed for d in job["depends_on"] if d in jobs):
        continue
    cost = missing(name, set())
    if best is None or cost < best[0]:
        best = (cost, name)
if best:
    print(best[1], *sorted(files[best[1]]))
' "$pieces" "$manifest" "$tables/$variant" <<<"$plan"
}

# The manifest lines of the pair NAME's files, as the set in TABLES has them now (the
# pair's values counted or read from the ledger, no other table's).
lines_of() {
  kabe manifest --variant "$variant" --tables "$tables" --signature "${1/+/,}" | grep -v '^#'
}

# Checks FILES of a pair against the lines of MANIFEST; exit 1 naming a difference.
check_listed() {
  local in=$1 listed
  shift
  listed=$(mktemp)
  { head -n 1 "$in"; for f in "$@"; do grep -E "^$f " "$in"; done; } >"$listed"
  if ! kabe manifest --variant "$variant" --tables "$tables" --check "$listed" >"$listed.out"; then
    grep -v "not in the manifest" "$listed.out" >&2
    rm -f "$listed" "$listed.out"
    return 1
  fi
  rm -f "$listed" "$listed.out"
}

# Whether every file of the pair is on disk.
on_disk() {
  local f
  for f in "$@"; do [ -f "$tables/$variant/$f" ] || return 1; done
}

# Whether MANIFEST lists every one of FILES.
is_listed() {
  local in=$1 f
  shift
  for f in "$@"; do grep -qE "^$f " "$in" || return 1; done
}

# The listed pairs on disk, inputs and new pairs, each checked against its manifest once
# in this run. One that differs may be whole with both sides holding values: a closure
# build stopped before it kept one side (it does so last, so that the pairs it builds on
# read no side by search). That is finished first (`kabe generate --closure` keeps one
# side and builds nothing here); a pair still different is built again, and then it
# must match.
declare -A checked=()
check_listed_on_disk() {
  local name files sig in list
  for in in "$input_manifest" "$manifest"; do
    if [ "$in" = "$manifest" ]; then list=$pairs; else list=$input_pairs; fi
    while read -r name files; do
      read -ra files <<<"$files"
      [ -z "${checked[$name]:-}" ] && is_listed "$in" "${files[@]}" && on_disk "${files[@]}" || continue
      sig=${name%%+*}
      if ! check_listed "$in" "${files[@]}" 2>/dev/null; then
        say "$name: listed, differs from $in: keeping one side"
        kabe generate --variant "$variant" --closure "$sig" --tables "$tables" --keep-dropped | tail -n 1
      fi
      if ! check_listed "$in" "${files[@]}" 2>/dev/null; then
        say "$name: listed, differs from $in: building it again"
        rm -f "${files[@]/#/$tables/$variant/}"
        kabe generate --variant "$variant" --closure "$sig" --tables "$tables" --keep-dropped
        check_listed "$in" "${files[@]}" || { say "$name: built again, it differs from $in"; exit 1; }
      fi
      checked[$name]=1
    done <<<"$list"
  done
}

# The inputs (pairs of fewer pieces) the pair NAME reads, directly or through others,
# that are not on disk and that no other such input reads: the closures that build them
# all, a signature each.
missing_inputs() {
  python3 -c '
import json, os, sys
plan, pieces, name, folder = json.load(sys.stdin), int(sys.argv[1]), sys.argv[2], sys.argv[3]
every = {j["name"]: j for j in plan["jobs"]}
def on_disk(n):
    return all(os.path.isfile(os.path.join(folder, os.path.basename(o))) for o in every[n]["outputs"])
def reads(n, seen):
    for d in every[n]["depends_on"]:
        if d not in seen:
            seen.add(d)
            reads(d, seen)
    return seen
missing = {n for n in reads(name, set()) if sum(int(c) for c in every[n]["signatures"][0]) < pieces and not on_disk(n)}
read_by_others = set().union(*(reads(n, set()) for n in missing))
for n in every:  # build order
    if n in missing and n not in read_by_others:
        print(every[n]["signatures"][0])
' "$pieces" "$1" "$tables/$variant" <<<"$plan"
}

total=$(wc -l <<<"$pairs")
check_listed_on_disk
n=0 # pairs listed
while read -r name files; do
  read -ra files <<<"$files"
  if is_listed "$manifest" "${files[@]}"; then n=$((n + 1)); fi
done <<<"$pairs"
while :; do
  next=$(next_pair)
  [ -n "$next" ] || break
  n=$((n + 1))
  read -r name files <<<"$next"
  read -ra files <<<"$files"
  sig=${name%%+*}
  start=$(date +%s)
  # The inputs it reads that are not on disk first, each checked against the repository
  # before any pair is built on it.
  for input in $(missing_inputs "$name"); do
    say "[$n/$total] $name: building the inputs it reads: the closure of $input"
    kabe generate --variant "$variant" --closure "$input" --tables "$tables" --keep-dropped
  done
  check_listed_on_disk
  say "[$n/$total] $name: building"
  kabe generate --variant "$variant" --closure "$sig" --tables "$tables" --keep-dropped
  built=$(date +%s)
  check_listed_on_disk # the listed pairs the closure built again
  say "[$n/$total] $name: built in $((built - start)) s, verifying"
  kabe verify --variant "$variant" --tables "$tables" --signature "${name/+/,}" | tail -n 3
  say "[$n/$total] $name: verified in $(($(date +%s) - built)) s"
  lines=$(lines_of "$name")
  { tail -n +2 "$manifest"; echo "$lines"; } | sort -u >"$manifest.tmp"
  { echo "$head_line"; cat "$manifest.tmp"; } >"$manifest"
  rm -f "$manifest.tmp"
  # The statistics page of the listed pairs (of 2-PIECES pieces; the pair built next is in
  # no manifest yet): the pairs the page has keep their rows where the manifests' counts
  # agree (a new machine rebuilds only what it reads, and counting a pair not verified
  # here would take as long as verifying it); the new pair is counted from the ledger.
  mkdir -p "$stats"
  LISTED="$input_manifest $manifest" KEEP="$stats/$variant.md" KABE=$KABE bash scripts/stats-doc.sh "$variant" "$tables" >"$stats/$variant.md.tmp"
  mv "$stats/$variant.md.tmp" "$stats/$variant.md"
  if $commit; then
    git add "$manifest" "$stats/$variant.md"
    git commit --quiet -m "manifest: $variant $name built and verified ($((built - start)) s to build)" -- "$manifest" "$stats/$variant.md"
  fi
done
# The inputs and listed pairs no pair of this run read: built now, so that the set is
# whole.
say "inputs: the rest of $variant 2-$inputs"
kabe generate --variant "$variant" --pieces "$inputs" --tables "$tables" --keep-dropped | tail -n 1
kabe manifest --variant "$variant" --tables "$tables" --check "$input_manifest" | tail -n 1
while read -r name files; do
  read -ra files <<<"$files"
  on_disk "${files[@]}" && continue
  say "$name: listed, building it again"
  kabe generate --variant "$variant" --closure "${name%%+*}" --tables "$tables" --keep-dropped
done <<<"$pairs"
check_listed_on_disk
say "$variant 2-$pieces: every pair built, verified and in $manifest"
