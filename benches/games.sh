#!/usr/bin/env bash
# Builds and verifies the tables of every game kabe plays up to PIECES pieces (default
# 4) and prints, as Markdown, each game's figures: build time, positions, wins, draws
# and losses, and the longest win of each material with a position that has it. The
# docs/variants.md "Statistics of every game" summary and docs/games-stats.md come from here.
# Usage: benches/games.sh [PIECES] [GAME ...]   (games: every variant by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pieces=${1:-4}
shift || true
games=("$@")
if [ ${#games[@]} -eq 0 ]; then
  games=(international russian kabe english italian pool brazilian czech giveaway antidraughts poddavki turkish)
fi
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
kabe="$root/target/release/kabe"
# Relative to the checkout, so that the page it writes names no machine's paths.
cd "$root"
dir="target/bench-tables/games-$pieces"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); tables up to $pieces pieces in $dir"
for game in "${games[@]}"; do
  start=$(date +%s.%N)
  "$kabe" generate --variant "$game" --pieces "$pieces" --tables "$dir" >/dev/null 2>&1
  built=$(echo "$(date +%s.%N) - $start" | bc)
  verified=$("$kabe" verify --variant "$game" --tables "$dir" | tail -n 1)
  case "$verified" in
    *" 0 disagreements, 0 bad files"*) ;;
    *) echo "$game: verification failed: $verified" >&2; exit 1 ;;
  esac
  stats=$(mktemp)
  "$kabe" stats --variant "$game" --tables "$dir" >"$stats"
  echo
  echo "### $game"
  echo
  printf 'built in %.1f s (or found built), verified: %s\n\n' "$built" "$verified"
  # Rows: sig positions wins draws losses longest position; a material without a win
  # has "-" for its longest win and no position, and counts all the same.
  awk 'NR > 2 && NF >= 6 {
         n = 0; for (i = 1; i <= length($1); i++) n += substr($1, i, 1);
         pos[n] += $2; w[n] += $3; d[n] += $4; l[n] += $5;
         if (NF >= 7 && $6 + 0 > best[n]) { best[n] = $6 + 0; at[n] = $1 " " $7 }
       }
       END {
         print "| pieces | positions | wins | draws | losses | longest win (plies) | material, position |"
         print "| --- | --- | --- | --- | --- | --- | --- |"
         for (n = 2; n <= 9; n++) if (n in pos)
           printf "| %d | %d | %.1f%% | %.1f%% | %.1f%% | %d | %s |\n", n, pos[n], 100*w[n]/pos[n], 100*d[n]/pos[n], 100*l[n]/pos[n], best[n], at[n]
       }' "$stats"
  echo
  echo "<details><summary>every material</summary>"
  echo
  echo '```'
  cat "$stats"
  echo '```'
  echo "</details>"
  rm -f "$stats"
done
