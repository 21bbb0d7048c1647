#!/usr/bin/env bash
# Times `kabe perft` against the PyPI wheel dame-rs (`dame.perft(dame.Board(), d)`) on
# the international start position, one thread each, in the same run, and prints the
# ratio. Usage: benches/perft_vs_dame.sh [DEPTHS...]   (default: 9 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/target/bench-venv"
depths=("${@:-9 10}")
[ $# -eq 0 ] && depths=(9 10)

cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
if ! "$venv/bin/python" -c "import dame" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check dame-rs
fi
dame_version=$("$venv/bin/python" -c "import dame; print(dame.__version__)")

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "kabe $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') vs dame-rs $dame_version, international start position, 1 thread, best of 3"
printf "%-6s %-12s %-10s %-10s %-8s\n" depth nodes kabe_s dame_s ratio
for d in "${depths[@]}"; do
  best_kabe=
  for _ in 1 2 3; do
    out=$("$root/target/release/kabe" perft --depth "$d")
    nodes=$(echo "$out" | awk '{print $4}')
    secs=$(echo "$out" | awk '{print $7}')
    if [ -z "$best_kabe" ] || awk "BEGIN{exit !($secs < $best_kabe)}"; then best_kabe=$secs; fi
  done
  read -r dame_nodes best_dame < <("$venv/bin/python" - "$d" <<'PY'
import sys, time, dame
d = int(sys.argv[1]); best = None
for _ in range(3 if d < 10 else 1):
    t = time.perf_counter(); n = dame.perft(dame.Board(), d); s = time.perf_counter() - t
    best = s if best is None else min(best, s)
print(n, f"{best:.3f}")
PY
)
  [ "$dame_nodes" = "$nodes" ] || { echo "node counts differ at depth $d: kabe $nodes, dame $dame_nodes"; exit 1; }
  ratio=$(awk "BEGIN{printf \"%.1f\", $best_dame / $best_kabe}")
  printf "%-6s %-12s %-10s %-10s %-8s\n" "$d" "$nodes" "$best_kabe" "$best_dame" "${ratio}x"
done
