#!/usr/bin/env bash
# Seeds the table_reader corpus with real small tables (every metric), so the fuzzer
# starts from valid files and mutates them. Usage: fuzz/seed.sh [TABLE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tables=${1:-$root/target/fuzz-seed-tables}
if [ ! -d "$tables/russian" ]; then
  cargo run --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe -- generate --variant russian --pieces 3 --dir "$tables" 2>/dev/null
fi
mkdir -p "$root/fuzz/corpus/table_reader"
find "$tables" -name '*.kabe' -size -4k -exec cp {} "$root/fuzz/corpus/table_reader/" \;
echo "corpus: $(ls "$root/fuzz/corpus/table_reader" | wc -l) files"
