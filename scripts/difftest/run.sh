#!/usr/bin/env bash
# Cross-checks kabe's rules against independent implementations: the reference in
# reference.py (all variants), py-draughts >= 1.9.1 (international and Russian) and
# pydraughts (international, Russian, English, Italian, Brazilian, antidraughts) and the
# kish engine (Turkish). Both libraries install a package named `draughts`, so each gets its own venv
# under target/difftest. Usage: scripts/difftest/run.sh [POSITIONS]   (default 10000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/scripts/difftest"
positions=${1:-10000}
venvs="$root/target/difftest"
kabe="$root/target/release/kabe"

cargo build --release --quiet --manifest-path "$root/Cargo.toml" --workspace --bins --examples # as the test build (scripts/test.sh)

make_venv() { # name, pip requirement, module it installs
  local dir="$venvs/$1"
  if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import ${3:-draughts}" 2>/dev/null; then
    python3 -m venv "$dir"
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$2"
  fi
}
make_venv py-draughts 'py-draughts>=1.9.1'
make_venv pydraughts 'pydraughts>=0.6'
make_venv kish 'kish>=1.1' kish

# The comparisons run side by side, one a core (KABE_DIFFTEST_JOBS to change it): each is
# one Python process and one kabe. Each one's output is printed in the order they are
# listed, once all have ended.
source "$root/scripts/side-by-side.sh"
SIDE_BY_SIDE_JOBS=${KABE_DIFFTEST_JOBS:-$(nproc)}
logs="$venvs/logs"
rm -rf "$logs"
mkdir -p "$logs"
queued=0
run() {
  queued=$((queued + 1))
  side_by_side "$logs/$queued" "$@"
}
cd "$here"
# pydraughts is the slowest by far (some 10x the reference's time a position: 535 of the
# 830 CPU seconds at 10,000 each on the Xeon VM), so it checks a quarter of the positions,
# and its comparisons are queued first, the longest first, so that the two cores end
# together. `scripts/difftest/run.sh 100000` is the long form (docs/verification.md).
for v in antidraughts international russian brazilian english italian; do
  run "$venvs/pydraughts/bin/python" compare.py --impl pydraughts --variant "$v" --positions "$(((positions + 3) / 4))" --seed 2 --kabe "$kabe"
done
run python3 crosscheck_perft.py --impl reference --max-nodes 300000 "$root"/data/perft/*.perft
for v in international russian; do
  run "$venvs/py-draughts/bin/python" compare.py --impl py-draughts --variant "$v" --positions "$positions" --kabe "$kabe"
done
for v in international russian russian-free-landing kabe kabe-short-king-capture english italian pool brazilian czech giveaway poddavki; do
  run python3 compare.py --impl reference --variant "$v" --positions "$positions" --kabe "$kabe"
done
run "$venvs/kish/bin/python" compare_kish.py --positions "$positions" --kabe "$kabe"
run "$venvs/py-draughts/bin/python" crosscheck_perft.py --impl py-draughts --max-nodes 300000 "$root"/data/perft/*.perft
wait

status=0
for i in $(seq 1 "$queued"); do
  cat "$logs/$i.txt"
  [ "$(cat "$logs/$i.rc" 2>/dev/null)" = 0 ] || { echo "(the comparison above failed)"; status=1; }
done
exit $status
