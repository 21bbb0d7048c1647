#!/usr/bin/env bash
# Every test of the project, as CI runs them: formatting, lints, the Rust test suites
# (unit, property, integration, doc; the C interface's test compiles a C program), the
# deep perft vectors, table checks, a short fuzz run of the table reader, and the
# differential tests against independent implementations (which install their own venvs),
# and the Python package (built and tested in fresh venvs).
set -euo pipefail
cd "$(dirname "$0")/.."

# Built without thin LTO and in 16 codegen units: the workspace is compiled for the lints,
# the test binaries and the binaries the later sections run, and LTO was most of that (a
# fresh clone's test binaries: 416 s with the release profile as it is, 132 s so; the
# binaries then 167 s and 0 s), while the tests run about 12% slower (nextest 392 s
# against 439 s; Intel Xeon VM, 2 cores, 2026-12-02). kabe as users build it, and the
# benchmarks, keep the profile's LTO. Set the variables to build the tests otherwise.
export CARGO_PROFILE_RELEASE_LTO=${CARGO_PROFILE_RELEASE_LTO:-off}
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-16}

# Each section says when it starts, in seconds since this script did: where CI's time goes.
section() { echo "== $1 [+${SECONDS}s]"; }

# What the tests need beside the clone, checked before any work. As root on Debian the
# system packages are installed; elsewhere each missing one is named with how to get it.
missing=()
need() { command -v "$1" >/dev/null || missing+=("$1: $2"); }
debian_root() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }
if debian_root; then
  bash scripts/slurm/cluster.sh install # slurm-wlm and munge, for scripts/slurm/test.sh
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  fi
fi
need cargo "the Rust toolchain (https://rustup.rs)"
need cargo-nextest "cargo install --locked cargo-nextest"
need cc "a C compiler (Debian: apt-get install gcc), for the C interface's test"
need python3 "Python 3.9 or later (Debian: apt-get install python3 python3-venv)"
need node "Node.js 18 or later (Debian: apt-get install nodejs), for the browser test"
need chromium "Debian: apt-get install chromium, for the browser test"
need chromedriver "Debian: apt-get install chromium-driver, for the browser test"
need slurmctld "Debian: apt-get install slurm-wlm, for the cluster test"
need munged "Debian: apt-get install munge, for the cluster test"
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=("python3 venv: Debian: apt-get install python3-venv")
if [ ${#missing[@]} -gt 0 ]; then
  echo "scripts/test.sh: missing what the tests need (nothing was run):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 2
fi

section "format and lints"
cargo fmt --all --check
cargo clippy --workspace --all-targets --release --quiet -- -D warnings

section "Rust tests"
cargo test --doc --workspace --release --quiet
cargo nextest run --workspace --release


# The binary every step below runs (and the scripts it calls build the same way): the one
# the test build made. `--workspace --bins --examples` resolves the dependencies' features
# as the test build did (the dev-dependencies' unified in), so nothing is compiled again; a
# plain `cargo run --bin kabe` resolves them without and compiles most of the workspace anew.
cargo build --release --quiet --workspace --bins --examples
kabe=$PWD/target/release/kabe

section "deep perft vectors (every count in data/perft)"
"$kabe" perft --vectors data/perft/*.perft | tail -n 3

section "endgame tables: build, verify through the reader, statistics"
tables=target/ci-tables
rm -rf "$tables"
for spec in international:4 russian:4 kabe:3 turkish:3; do
  v=${spec%:*}; n=${spec#*:}
  "$kabe" generate --variant "$v" --pieces "$n" --tables "$tables" 2>/dev/null
  "$kabe" verify --variant "$v" --tables "$tables"
  # Byte for byte the set recorded in the repository (SHA-256 of every file).
  "$kabe" manifest --variant "$v" --tables "$tables" --check "data/manifests/$v-2-$n.txt" | tail -n 1
done
section "a set grown pair by pair (scripts/grow-set.sh): the same files as a whole build, resumed on a bare machine"
grown=target/ci-grown
rm -rf "$grown" "$grown-manifests" "$grown-stats"
mkdir -p "$grown-manifests"
MANIFESTS="$grown-manifests" STATS="$grown-stats" KABE=$kabe bash scripts/grow-set.sh russian 3 "$grown" >target/grow-set.txt 2>&1 ||
  { cat target/grow-set.txt; exit 1; }
grep -h '^[0-9]' "$grown-manifests"/russian-2-*.txt | sort >target/grow-set-files.txt
grep '^[0-9]' data/manifests/russian-2-4.txt | awk '{ n = 0; for (i = 1; i <= 4; i++) n += substr($1, i, 1); if (n <= 3) print }' | sort | cmp - target/grow-set-files.txt
head -n 1 "$grown-stats/russian.md" | grep -qx '# Russian draughts: statistics of the endgame tables, 2-3 pieces' ||
  { echo "grow-set's statistics page:"; head -n 3 "$grown-stats/russian.md"; exit 1; }
rm -rf "$grown"
MANIFESTS="$grown-manifests" STATS="$grown-stats" KABE=$kabe bash scripts/grow-set.sh russian 3 "$grown" 2>&1 | tail -n 1
# A bare machine with all of Russian 2-4 listed but 1030+3010 and 2020: 2020 first, though
# build order has 1030+3010 first, as it rebuilds less (4 listed pairs it reads, not 5).
# The statistics page keeps the rows it has (the repository's page, less the new pairs'
# rows and that of 2K v 2K, rebuilt but not verified here) and counts the others.
grep -vE '^(1030|3010|2020)\.' data/manifests/russian-2-4.txt >"$grown-manifests/russian-2-4.txt"
grep -vE '^\| (1M v 3M|2M v 2M|2K v 2K) \|' docs/stats/russian.md >"$grown-stats/russian.md"
rm -rf "$grown"
MANIFESTS="$grown-manifests" STATS="$grown-stats" KABE=$kabe bash scripts/grow-set.sh russian 4 "$grown" >target/grow-set.txt 2>&1 ||
  { cat target/grow-set.txt; exit 1; }
grep -m 1 ': building$' target/grow-set.txt | grep -q '\] 2020: building$' ||
  { echo "grow-set did not build 2020 first:"; grep 'grow-set:' target/grow-set.txt; exit 1; }
cmp "$grown-manifests/russian-2-4.txt" data/manifests/russian-2-4.txt
diff <(sed -n '/^## 4 pieces/,/^4 pieces:/p' "$grown-stats/russian.md") <(sed -n '/^## 4 pieces/,/^4 pieces:/p' docs/stats/russian.md)
tail -n 1 target/grow-set.txt
# Each file dropped for one side keeps its values aside for the pairs built later.
dropped=$(find "$grown/russian/dropped" -name '*.kabe' | wc -l)
[ "$dropped" -gt 0 ] || { echo "grow-set kept no dropped file aside in $grown/russian/dropped"; exit 1; }
# A closure build stopped after a listed pair it read was whole, before it kept one side:
# both sides hold values (as `generate --pair` leaves them). grow-set keeps one side of it
# and builds nothing again.
rm -f "$grown"/russian/{0211,1102}.*
"$kabe" generate --variant russian --pair 0211 --tables "$grown" >/dev/null
MANIFESTS="$grown-manifests" STATS="$grown-stats" KABE=$kabe bash scripts/grow-set.sh russian 4 "$grown" >target/grow-set.txt 2>&1 ||
  { cat target/grow-set.txt; exit 1; }
grep -q '^grow-set: 0211+1102: listed, differs from .*: keeping one side$' target/grow-set.txt &&
  ! grep -q 'building it again' target/grow-set.txt ||
  { echo "grow-set did not keep one side of 0211+1102:"; grep 'grow-set:' target/grow-set.txt; exit 1; }
cmp "$grown-manifests/russian-2-4.txt" data/manifests/russian-2-4.txt
# On a bare machine a new pair waits only for the inputs it reads: 0103+0301 (kings only)
# for the closure of 0102, not for the tables with men; the rest come at the end.
grep -vE '^(0103|0301)\.' data/manifests/russian-2-4.txt >"$grown-manifests/russian-2-4.txt"
rm -rf "$grown"
MANIFESTS="$grown-manifests" STATS="$grown-stats" KABE=$kabe bash scripts/grow-set.sh russian 4 "$grown" >target/grow-set.txt 2>&1 ||
  { cat target/grow-set.txt; exit 1; }
grep '^grow-set: \[' target/grow-set.txt | head -n 2 | diff - <(printf '%s\n' \
  'grow-set: [14/14] 0103+0301: building the inputs it reads: the closure of 0102' 'grow-set: [14/14] 0103+0301: building') ||
  { echo "grow-set built more than 0103+0301 reads first:"; grep 'grow-set:' target/grow-set.txt; exit 1; }
cmp "$grown-manifests/russian-2-4.txt" data/manifests/russian-2-4.txt
section "the explorer (kabe serve) in headless Chromium: load, hover, play, back, count, edit, 8x8, Turkish, phone"
bash scripts/browser-test.sh "$tables"

section "cluster build: kabe plan --slurm on a one-node Slurm (Debian slurm-wlm, munge), faults"
bash scripts/slurm/test.sh "$tables"

# Output goes to a file, not into `head`: kabe dies quietly of SIGPIPE when its reader
# stops early, which `set -o pipefail` would count as a failure.
"$kabe" stats --variant russian --tables "$tables" >target/stats-russian.txt
head -n 6 target/stats-russian.txt

section "draw rules: rule tables against the brute force (every counter state), a probe"
"$kabe" check-rules --variant international --pieces 3 --tables "$tables" | tail -n 1
"$kabe" check-rules --layered --variant russian --pieces 4 --tables "$tables" | tail -n 1
"$kabe" stats --variant russian --rules ussr1953 --tables "$tables" | tail -n 3
"$kabe" probe "W:WK46,K47,K48:BK5" --counters 6.3=30 --tables "$tables" >target/probe-6.3.txt
head -n 2 target/probe-6.3.txt

section "game analysis and studies on data/ (the README's main command on the tables above)"
KABE_TABLES="$tables" "$kabe" analyze data/games/international.pdn | tail -n 2
"$kabe" analyze data/games/*.pdn data/studies/*.pdn --tables "$tables" --no-generate | tail -n 2
# The Blonde 1819 study needs 5-piece tables: build only what its material reaches.
"$kabe" study "W:WK2,K5:B12,22,39" --generate --tables "$tables" --json 2>/dev/null >target/study-blonde.json
python3 - <<'PY'
import json
s = json.load(open("target/study-blonde.json"))
assert s["sound"] and s["keys"] == ["2-11"], s
assert [m["move"] for m in s["main_line"][:5]] == ["2-11", "12-17", "11-6", "39-43", "5-28"], s["main_line"]
print("study Blonde 1819: sound, key move 2-11, main line", " ".join(m["move"] for m in s["main_line"]))
PY
"$kabe" analyze data/studies/studies.pdn --tables "$tables" --pieces 5 --format json >target/study-blonde-solution.json
python3 - <<'PY'
import json
d = json.load(open("target/study-blonde-solution.json"))
g = d["games"][0]
assert g["status"] == "analysed" and g["positions"][0]["ply"] == 0, g
assert d["summary"]["errors"] == 0 and not d["summary"]["missing_tables"], d["summary"]
assert g["positions"][0]["exact"]["result"] == "win", g["positions"][0]
print("published solution of Blonde 1819: every position in the tables, no move flagged")
PY

section "compositions of 13-20 pieces proved by search down into the 4-piece tables, published solutions checked"
status=0
"$kabe" study --pdn data/studies/compositions/Cat.D1.pdn --variant international --tables "$tables" --json \
  >target/compositions-d1.json || status=$?
[ "$status" -le 1 ] || exit "$status" # 1: not every composition sound, which the check below weighs
python3 - <<'PY'
import json
d = json.load(open("target/compositions-d1.json"))
verdicts = [c.get("verdict", "unreadable").split(" ")[0] for c in d["compositions"]]
assert "refuted" not in verdicts, d["summary"]
assert verdicts.count("sound") >= 14, d["summary"]
assert all(c["checked"] for c in d["compositions"] if "checked" in c)
print(d["summary"])
PY

# Two games of the 1950 USSR championship whose endings need 5 pieces: moves that threw a
# result away, and the 30-move rule (16b) turning White's theoretical win into a draw.
"$kabe" generate --variant russian --pieces 5 --tables "$tables" 2>/dev/null | tail -n 1
"$kabe" analyze data/games/russian-rules.pdn --tables "$tables" --pieces 5 --no-generate --format json >target/russian-rules.json
python3 - <<'PY'
import json
d = json.load(open("target/russian-rules.json"))
flags = [(g["game"], p["move_number"], p["played"]["move"], p["played"]["error"]["from"], p["played"]["error"]["to"], p["played"]["error"]["best"])
         for g in d["games"] for p in g["positions"] if p["played"] and p["played"]["error"]]
assert flags == [(1, "30.", "f6-e7", "win", "draw", "h6-g7"), (1, "30...", "e3-f2", "draw", "loss", "e3-d2"),
                 (1, "49.", "e5-g7", "win", "draw", "e5-c7"), (2, "39.", "b4-e1", "win", "draw", "b4-c5")], flags
decided = [(g["game"], p["move_number"], p["rule"]["article"], p["rule"]["runs_out_at"]) for g in d["games"] for p in g["positions"] if p["rule_decides"]]
assert (1, "49...", "16b", "63...") in decided, decided
print("Shutilkin - Potapov 1950: 30. f6-e7? 30... e3-f2? 49. e5-g7? (16b decides); Potapov - Romanov: 39. b4-e1?")
PY

section "fuzz: the table reader, the PDN reader, the FEN parser and the API's queries, short runs from real input (cargo fuzz on the stable toolchain)"
if ! command -v cargo-fuzz >/dev/null; then
  cargo install cargo-fuzz --locked --version 0.13.2 --quiet
fi
fuzz/seed.sh "$tables"
# Built once, then the targets run side by side, one a core: each fuzzer is one process.
# Without AddressSanitizer (`-s none`): the targets are safe Rust, bounds-checked, with
# debug assertions and overflow checks; the only unsafe code they reach maps a file and
# hands out a cell behind its locks, and zstd's C is not instrumented either way. The
# build took 145 s so, 270 s with it (Intel Xeon VM, 2 cores, 2026-12-02).
(cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -s none) >target/fuzz-build.log 2>&1 || { tail -n 60 target/fuzz-build.log; exit 1; }
fuzz_target() {
  (cd fuzz && KABE_FUZZ_TABLES="$PWD/../$tables" RUSTC_BOOTSTRAP=1 cargo fuzz run -s none "$1" -- -max_total_time="${KABE_FUZZ_SECONDS:-45}" -max_len=8192)
}
source scripts/side-by-side.sh
for target in table_reader pdn_reader fen api_query; do
  side_by_side "target/fuzz-$target" fuzz_target $target
done
wait
for target in table_reader pdn_reader fen api_query; do
  if [ "$(cat "target/fuzz-$target.rc")" != 0 ]; then
    tail -n 60 "target/fuzz-$target.txt"
    echo "fuzzing $target failed (input kept under fuzz/artifacts/$target/)" >&2
    exit 1
  fi
  echo "$target: $(grep -E "^Done" "target/fuzz-$target.txt")"
done

section "the hostile user's list, quick form (damaged and missing files, junk input, extreme numbers, signals)"
bash scripts/hostile.sh --quick | tail -n 1

section "differential tests against independent implementations"
scripts/difftest/run.sh "${KABE_DIFFTEST_POSITIONS:-10000}"

section "the Python package: built from source and from the sdist, tested, against py-draughts"
bash scripts/python-test.sh "$tables"
