#!/usr/bin/env bash
# Seeds the fuzz corpora from real input, so the fuzzers start from valid files and mutate
# them: small real tables (every metric) for table_reader, the PDN files of data/ (the corpus
# included) for pdn_reader, positions for fen, API questions for api_query. Usage: fuzz/seed.sh [TABLE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tables=${1:-$root/target/fuzz-seed-tables}
if [ ! -d "$tables/russian" ]; then
  cargo run --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe -- generate --variant russian --pieces 3 --tables "$tables" 2>/dev/null
fi
mkdir -p "$root/fuzz/corpus/table_reader" "$root/fuzz/corpus/pdn_reader" "$root/fuzz/corpus/fen" "$root/fuzz/corpus/api_query"
find "$tables" -name '*.kabe' -size -4k -exec cp {} "$root/fuzz/corpus/table_reader/" \;
# PDN seeds: whole small files, and the first 8 KiB of large ones (the fuzzer's -max_len).
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  head -c 8192 "$f" >"$root/fuzz/corpus/pdn_reader/seed-$n.pdn"
done < <(find "$root/data" -name '*.pdn' -print0 2>/dev/null)
# FEN seeds: the positions of the perft vectors and the README's, some with counters.
n=0
while IFS= read -r fen; do
  n=$((n + 1))
  printf '%s' "$fen" >"$root/fuzz/corpus/fen/seed-$n"
done < <(sed -n 's/^fen //p' "$root"/data/perft/*.perft | head -n 200)
printf 'W:WK46,K47,K48:BK5\t6.3=9,6.2=4' >"$root/fuzz/corpus/fen/counters-6.3"
printf 'W:WKh8,Ke7,Kf6:BKa3\t16c=20:white' >"$root/fuzz/corpus/fen/counters-16c"
# API seeds: a variant, then the query.
printf 'international?fen=W:WK46,K47,K48:BK5&counters=6.3%%3D9' >"$root/fuzz/corpus/api_query/probe"
printf 'russian?fen=W:WKa1,Kc1:BKh8&rules=ussr1953-count-ends' >"$root/fuzz/corpus/api_query/rules"
printf 'international?fen=W:W32:B27&nodes=100' >"$root/fuzz/corpus/api_query/prove"
echo "corpus: $(ls "$root/fuzz/corpus/table_reader" | wc -l) tables, $(ls "$root/fuzz/corpus/pdn_reader" | wc -l) PDN files, $(ls "$root/fuzz/corpus/fen" | wc -l) FENs, $(ls "$root/fuzz/corpus/api_query" | wc -l) API queries"
