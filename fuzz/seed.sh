#!/usr/bin/env bash
# Seeds the fuzz corpora from real input, so the fuzzers start from valid files and mutate
# them: small real tables (every metric) for table_reader, the PDN files of data/ (the corpus included)
# and data/ for pdn_reader. Usage: fuzz/seed.sh [TABLE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tables=${1:-$root/target/fuzz-seed-tables}
if [ ! -d "$tables/russian" ]; then
  cargo run --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe -- generate --variant russian --pieces 3 --dir "$tables" 2>/dev/null
fi
mkdir -p "$root/fuzz/corpus/table_reader" "$root/fuzz/corpus/pdn_reader"
find "$tables" -name '*.kabe' -size -4k -exec cp {} "$root/fuzz/corpus/table_reader/" \;
# PDN seeds: whole small files, and the first 8 KiB of large ones (the fuzzer's -max_len).
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  head -c 8192 "$f" >"$root/fuzz/corpus/pdn_reader/seed-$n.pdn"
done < <(find "$root/data" -name '*.pdn' -print0 2>/dev/null)
echo "corpus: $(ls "$root/fuzz/corpus/table_reader" | wc -l) tables, $(ls "$root/fuzz/corpus/pdn_reader" | wc -l) PDN files"
