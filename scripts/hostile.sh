#!/usr/bin/env bash
# The hostile user's list: damaged and missing table files, a torn ledger, junk and
# endless input, extreme numbers, files that are not files, two builds at once, signals
# and full disks. Each case prints OK or BAD with what it saw; the totals come last and
# the exit code is 1 when any case is BAD.
#
#   bash scripts/hostile.sh [--quick]
#   KABE=path/to/kabe bash scripts/hostile.sh [--quick]
#
# --quick (CI): smaller junk inputs (20 MB instead of 200 MB). Needs only the release
# binary, coreutils and Python 3. Work goes to target/hostile (removed first).
set -uo pipefail
cd "$(dirname "$0")/.."
quick=false
[ "${1:-}" = --quick ] && quick=true
# KABE=path/to/kabe runs the list against another build (an older one, to compare).
if [ -z "${KABE:-}" ]; then
  cargo build --release --quiet --workspace --bins --examples || exit 2 # as the test build (scripts/test.sh)
fi
kabe=$(realpath "${KABE:-target/release/kabe}")
work=$(realpath -m target/hostile)
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 2

ok=0
bad=0
verdict() { # name, then 0 (held) or anything else, then what was seen
  if [ "$2" = 0 ]; then
    ok=$((ok + 1))
    printf 'OK   %s\n' "$1"
  else
    bad=$((bad + 1))
    printf 'BAD  %s: %s\n' "$1" "${3:0:300}"
  fi
}
# Runs kabe with a time limit; sets $out (stdout and stderr) and $rc. A hang is rc 124.
run() { out=$(timeout 120 "$kabe" "$@" 2>&1); rc=$?; }
# The case holds when kabe ended with one of the codes in $2 (no panic: 101; no signal:
# 128+) and its output has $3 (a fixed string; empty: anything).
expect() { # name codes needle args...
  local name=$1 codes=$2 needle=$3
  shift 3
  run "$@"
  local held=1
  if [[ " $codes " == *" $rc "* ]] && [[ "$out" != *panicked* ]] && { [ -z "$needle" ] || [[ "$out" == *"$needle"* ]]; }; then
    held=0
  fi
  verdict "$name" "$held" "exit $rc: $out"
}

echo "== a fresh international 2-3 set, kept compact"
"$kabe" generate --pieces 3 --tables clean --threads 1 >/dev/null 2>&1 || { echo "cannot build the tables"; exit 2; }
t=clean/international
# 0111 keeps the values of the pair 0111+1101; 1101's files are headers read through it.
holder=0111
reader=1101
same_as_clean() { diff -r -q -x '*.lock' -x verified.txt "$1/international" clean/international >/dev/null; }

echo "== damaged and missing files: named, the rest answers, a build repairs"
reader_pos="B:WK46:B20,K3"   # 1101 to move: read through 0111
holder_pos="W:WK46:B20,K3"   # 0111 to move
other_pos="W:WK1,K5:BK50"    # 0201: needs neither
for kind in dtw wld fmjd; do
  for damage in remove empty flip truncate fifo folder foreign version; do
    for who in $holder $reader; do
      name="$who.$kind $damage"
      rm -rf d && cp -r clean d
      f=d/international/$who.$kind.kabe
      case $damage in
        remove) rm "$f" ;;
        empty) : >"$f" ;;
        flip) python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)-9]^=0x24; open(p,'wb').write(b)" "$f" ;;
        truncate) python3 -c "import sys; p=sys.argv[1]; b=open(p,'rb').read(); open(p,'wb').write(b[:max(40,len(b)//2)])" "$f" ;;
        fifo) rm "$f" && mkfifo "$f" ;;
        folder) rm "$f" && mkdir "$f" ;;
        foreign) cp d/international/0201.$kind.kabe "$f" ;;
        version) python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[8]=99; open(p,'wb').write(b)" "$f" ;;
      esac
      # Each probe answers as on the clean set or fails naming the file (or the file it
      # reads its values through); none hangs, panics or answers otherwise.
      held=0
      seen=""
      for pos in "$reader_pos" "$holder_pos"; do
        run probe --tables d "$pos"
        clean_out=$("$kabe" probe --tables clean "$pos" 2>&1)
        if [ $rc = 0 ] && [ "$out" = "$clean_out" ]; then continue; fi
        if [ $rc != 0 ] && [ $rc -lt 100 ] && [[ "$out" != *panicked* ]] \
          && [[ "$out" == *"$holder.$kind.kabe"* || "$out" == *"$who.$kind.kabe"* ]]; then continue; fi
        held=1
        seen="$seen exit $rc: $out |"
      done
      verdict "$name: each probe answers as before or names the file" $held "$seen"
      run probe --tables d "$other_pos"
      verdict "$name: another material answers" "$rc" "$out"
      run generate --pieces 3 --tables d --threads 1
      same=1
      if [ $damage = folder ] || [ $damage = fifo ]; then
        # A folder or FIFO is not kabe's to delete: the build stops naming it.
        [ $rc = 2 ] && [[ "$out" == *"$who.$kind.kabe: a "*" where kabe keeps a file of its own"* ]] && same=0
        verdict "$name: generate names the $damage in the table's place" $same "exit $rc: $(tail -n 2 <<<"$out")"
        continue
      fi
      [ $rc = 0 ] && same_as_clean d && same=0
      verdict "$name: generate makes the set whole again, as a clean build" $same "exit $rc: $(tail -n 2 <<<"$out")"
    done
  done
done

echo "== serve starts on a set with a lost file and serves the rest"
rm -rf d && cp -r clean d && rm d/international/$holder.dtw.kabe
port=$((20000 + RANDOM % 20000))
timeout 20 "$kabe" serve --tables d --bind 127.0.0.1:$port >serve.out 2>serve.err &
spid=$!
sleep 1
answer=$(python3 -c "import urllib.request,sys; print(urllib.request.urlopen('http://127.0.0.1:$port/api/international?fen=$other_pos').status)" 2>&1)
missing=$(python3 - "$port" "$reader_pos" <<'PY' 2>&1
import json, sys, urllib.error, urllib.parse, urllib.request
try:
    urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/international?fen={urllib.parse.quote(sys.argv[2])}")
    print("answered")
except urllib.error.HTTPError as e:
    print(e.code, json.load(e)["message"])
PY
)
kill -TERM $spid 2>/dev/null
wait $spid
src=$?
held=1
[ "$answer" = 200 ] && [[ "$missing" == 422*"international/$holder.dtw.kabe"* ]] && [[ "$missing" != *"$work"* ]] \
  && grep -q "serving without" serve.err && [ $src = 0 ] && held=0
verdict "serve: warns, serves the rest, names the lost file relative to its folder, exits 0 on SIGTERM" $held \
  "answer=$answer missing=$missing exit=$src $(cat serve.err)"

echo "== the ledger: torn or edited lines are not believed"
rm -rf v && cp -r clean v
"$kabe" verify --tables v >/dev/null 2>&1
"$kabe" stats --tables v --json >stats.clean 2>/dev/null
tamper() {
  case $1 in
    tear) python3 -c "import sys; p=sys.argv[1]; t=open(p).read().splitlines(); t[-1]=t[-1][:len(t[-1])//2]; open(p,'w').write('\n'.join(t))" v/international/verified.txt ;;
    edit) sed -i '2s/=\([0-9]*\),\([0-9]*\),/=\1,4242,/' v/international/verified.txt ;;
  esac
}
for how in tear edit; do
  cp v/international/verified.txt ledger.keep
  tamper $how
  expect "ledger $how: verify derives the pair again" "0" "torn or edited" verify --tables v
  cp ledger.keep v/international/verified.txt
  tamper $how
  run stats --tables v --json
  held=1
  [ $rc = 0 ] && [[ "$out" == *"torn or edited"* ]] && diff -q <(grep -v "torn or edited" <<<"$out") stats.clean >/dev/null && held=0
  verdict "ledger $how: stats warns and derives the pair again" $held "exit $rc: ${out:0:200}"
  expect "ledger $how: stats wrote the ledger anew" "0" " 0 pairs derived again" verify --tables v
  cp ledger.keep v/international/verified.txt
done
rm -f v/international/verified.txt && mkfifo v/international/verified.txt
expect "ledger as a FIFO: verify goes on without it" "0" "verified without the ledger" verify --tables v
expect "ledger as a FIFO: stats names it and counts without it" "0" "verified.txt" stats --tables v
rm -f v/international/verified.txt && mkdir v/international/verified.txt
expect "ledger as a folder: verify goes on without it" "0" "verified without the ledger" verify --tables v

echo "== analysis of junk: bounded memory, every game named"
big=$([ $quick = true ] && echo 20 || echo 200)
python3 -c "print('[GameType \"20\"]\n\n'+'a b c d e f g h i j k l m n o p q r s t\n'*500000)" >words.pdn
python3 - "$big" <<'PY'
import random, sys
random.seed(7)
alphabet = b"abc xyz[]{}()-19 "
with open("junk.pdn", "wb") as f:
    for _ in range(int(sys.argv[1])):
        f.write(bytes(alphabet[random.randrange(17)] if i % 81 != 80 else 10 for i in range(1 << 20)))
PY
head -c $((big << 20)) /dev/urandom >random.pdn
head -c $((20 << 20)) /dev/zero >zeros.pdn
printf '[Event "x"]\n1. 32-28 {never closed\n' >open-comment.pdn
printf '\xff\xfe[\x00E\x00' >utf16.pdn
: >empty.pdn
mkdir -p folder.pdn
mkfifo fifo.pdn
for input in words junk random zeros open-comment utf16 empty; do
  out=$( (ulimit -v 400000 && timeout 300 "$kabe" analyze --tables clean --no-generate $input.pdn) 2>&1 )
  rc=$?
  held=1
  [[ " 0 1 2 " == *" $rc "* ]] && [[ "$out" != *panicked* ]] && held=0
  verdict "analyze $input.pdn within 400 MB of address space" $held "exit $rc: ${out: -200}"
done
expect "analyze a folder named .pdn" "1 2" "folder.pdn" analyze --tables clean --no-generate folder.pdn
(sleep 1; printf '[GameType "20"]\n1. 32-28 *\n' >fifo.pdn) &
expect "analyze a FIFO fed by a writer (process substitution)" "0 1" "games read" analyze --tables clean --no-generate fifo.pdn
expect "analyze a missing file" "1 2" "missing.pdn" analyze --tables clean --no-generate missing.pdn

echo "== table directories that are not directories"
echo x >a-file
mkfifo a-fifo
for dir in a-file a-fifo; do
  for command in "probe W:W31:B20" "analyze --no-generate words.pdn" "stats" "verify" "generate --pieces 2" "serve" "study W:WK2,K5:B12,22,39"; do
    read -ra words <<<"$command"
    expect "--tables $dir: $command" "2" "$dir: a" "${words[0]}" --tables $dir "${words[@]:1}"
  done
done
out=$(cd "$work" && env HOME="$work/home" KABE_TABLES='~/kt' timeout 60 "$kabe" generate --pieces 2 2>&1)
held=1
[ -f home/kt/international/0101.dtw.kabe ] && [ ! -e '~' ] && held=0
verdict "KABE_TABLES='~/kt' is under HOME" $held "$out"
out=$(env -u HOME -u XDG_DATA_HOME -u KABE_TABLES timeout 20 "$kabe" probe W:W31:B20 2>&1)
rc=$?
held=1
[ $rc = 2 ] && [[ "$out" == *"HOME is not set"* ]] && [ ! -e kabe ] && held=0
verdict "no HOME: the error says what to set" $held "exit $rc: $out"

echo "== numbers without a ceiling"
mkdir -p empty-dir
study="W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42"
while read -r flag context; do
  for value in -1 0 18446744073709551615 18446744073709551616 1e308 inf NaN 1e30T x; do
    # shellcheck disable=SC2086
    run ${context//V/$value}
    held=1
    if [[ $rc -lt 3 && "$out" != *panicked* ]]; then
      if [ "$value" = 0 ]; then
        held=0 # taken or refused, either is fine
      elif [ $rc = 2 ] && [[ "$out" == *"$flag"* || "$out" == *"$value"* ]]; then
        held=0
      fi
    fi
    verdict "$flag $value" $held "exit $rc: $out"
  done
done <<EOF
--threads generate --pieces 2 --tables n1 --threads V
--memory generate --pieces 2 --tables n2 --memory V
--pieces generate --tables n3 --pieces V
--cpus plan --pieces 3 --tables n4 --cpus V
--job-memory plan --pieces 3 --tables n4 --job-memory V
--depth perft --depth V
--nodes study $study --tables clean --time 1 --nodes V
--time study $study --tables clean --nodes 1 --time V
--concurrency serve --tables empty-dir --concurrency V
--max-connections serve --tables empty-dir --max-connections V
--header-timeout serve --tables empty-dir --header-timeout V
--cache serve --tables empty-dir --cache V
--show verify --tables clean --show V
--memory verify --tables clean --memory V
--pieces analyze --tables clean --no-generate words.pdn --pieces V
--pieces check-rules --tables clean --pieces V
--pieces info --pieces V
EOF

echo "== two builds into one folder"
rm -rf twice
timeout 300 "$kabe" generate --pieces 4 --tables twice --threads 1 >/dev/null 2>first.err &
first=$!
sleep 1
run generate --pieces 4 --tables twice --threads 1
wait $first
frc=$?
held=1
[ $rc = 2 ] && [[ "$out" == *"another kabe build is writing these tables"* ]] && [ $frc = 0 ] && held=0
verdict "a second generate is refused while the first runs, which finishes" $held "second: exit $rc $out; first: exit $frc $(cat first.err)"

echo "== interrupted and resumed"
rm -rf stop && timeout -s INT 2 "$kabe" generate --pieces 4 --tables stop --threads 1 >/dev/null 2>&1
run generate --pieces 4 --tables stop --threads 1
held=1
[ $rc = 0 ] && diff -r -q -x '*.lock' stop/international twice/international >/dev/null && held=0
verdict "generate interrupted by SIGINT resumes to the same files" $held "exit $rc: $out"

echo "== writes that stay home: links, devices, FIFOs and another game's folder"
# Cases that need root (a device node, a bind mount, another user) are skipped with a
# line saying so elsewhere; CI runs as root.
skip() { printf 'SKIP %s: %s\n' "$1" "$2"; }
is_root() { [ "$(id -u)" = 0 ]; }
echo precious >victim
victim_kept() { [ "$(cat victim)" = precious ] && [ ! -L victim ]; }
# manifest --output: a device, a FIFO and a link are written through and stay what they
# were; a folder is refused by name.
if is_root; then
  rm -f nulldev && mknod -m 666 nulldev c 1 3
  run manifest --tables clean --output nulldev
  held=1
  [ $rc = 0 ] && [ -c nulldev ] && held=0
  verdict "manifest --output onto a character device: written through, still a device" $held "exit $rc: $out; $(ls -l nulldev)"
else
  skip "manifest --output onto a character device" "mknod needs root"
fi
rm -f out-fifo && mkfifo out-fifo
(timeout 20 cat out-fifo >fifo.read) &
reader=$!
run manifest --tables clean --output out-fifo
wait $reader
held=1
[ $rc = 0 ] && [ -p out-fifo ] && grep -q '^# kabe manifest: international' fifo.read && held=0
verdict "manifest --output onto a FIFO: streamed to its reader, still a FIFO" $held "exit $rc: $out"
out=$(timeout 20 "$kabe" manifest --tables clean --output /dev/stdout 2>&1 | head -n 1)
held=1
[[ "$out" == "# kabe manifest: international"* ]] && [ -L /dev/stdout ] && held=0
verdict "manifest --output /dev/stdout: printed, /dev/stdout still a link" $held "$out"
echo old >out-target && ln -sfn out-target out-link
run manifest --tables clean --output out-link
held=1
[ $rc = 0 ] && [ -L out-link ] && grep -q '^# kabe manifest' out-target && held=0
verdict "manifest --output onto a link: written through, the link kept" $held "exit $rc: $out"
expect "manifest --output onto a folder: refused by name" "2" "empty-dir: a directory" manifest --tables clean --output empty-dir
ln -sfn "$work/victim" out-file.tmp
run manifest --tables clean --output out-file
held=1
[ $rc = 2 ] && [[ "$out" == *"out-file.tmp: a symbolic link"* ]] && victim_kept && held=0
verdict "manifest --output with a link planted at its .tmp: refused by name, the target untouched" $held "exit $rc: $out"

# Another game's folder under this game's name: refused before anything is written.
rm -rf shared && cp -r clean shared && ln -s international shared/russian
before=$(cd shared/international && sha256sum ./*.kabe)
run generate --variant russian --pieces 3 --tables shared
held=1
[ $rc = 2 ] && [[ "$out" == *"the same directory as"* ]] && [[ "$out" != *delete* ]] \
  && [ "$before" = "$(cd shared/international && sha256sum ./*.kabe)" ] && held=0
verdict "generate --variant russian into a link to the international folder: refused, nothing touched" $held "exit $rc: $out"
expect "verify --variant russian through the same link: refused by name" "2" "the same directory as" verify --variant russian --tables shared
if is_root && mkdir -p bound/international bound/russian && mount --bind bound/international bound/russian 2>/dev/null; then
  cp clean/international/*.kabe bound/international/
  before=$(cd bound/international && sha256sum ./*.kabe)
  run generate --variant russian --pieces 3 --tables bound
  umount bound/russian
  held=1
  [ $rc = 2 ] && [[ "$out" == *"the same directory as"* ]] && [ "$before" = "$(cd bound/international && sha256sum ./*.kabe)" ] && held=0
  verdict "generate --variant russian into a bind mount of the international folder: refused, nothing touched" $held "exit $rc: $out"
else
  skip "generate into a bind mount of another game's folder" "mount --bind needs root (and a kernel that lets this container mount)"
fi
# One game's table copied into another's folder: named, never replaced or deleted.
rm -rf mixed && cp -r clean mixed && mkdir -p mixed/russian && cp clean/international/0201.dtw.kabe mixed/russian/0201.dtw.kabe
run generate --variant russian --pieces 3 --tables mixed
held=1
[ $rc = 2 ] && [[ "$out" == *"0201.dtw.kabe: a table of international draughts"* ]] && [[ "$out" != *delete* ]] \
  && cmp -s mixed/russian/0201.dtw.kabe clean/international/0201.dtw.kabe && held=0
verdict "an international table in the Russian folder: named, left as it is" $held "exit $rc: $out"

# Links planted at the names of kabe's temporary and scratch files: refused by name, the
# file they point to untouched.
for planted in 0201.dtw.kabe.tmp 0201.wld.kabe.tmp 0102.results.scratch-tmp 0102.results.scratch 0102.theory.checkpoint-tmp; do
  rm -rf p && cp -r clean p && rm -f p/international/{0102,0201}.*.kabe
  ln -s "$work/victim" "p/international/$planted"
  run generate --pieces 3 --tables p --threads 1
  held=1
  [ $rc = 2 ] && [[ "$out" == *"$planted: a symbolic link"* ]] && victim_kept && held=0
  # A pass this short writes no checkpoint: it must only never follow the link.
  [[ $planted == *checkpoint-tmp ]] && [ $rc = 0 ] && victim_kept && held=0
  verdict "a link planted at $planted: refused by name when written, the target untouched" $held "exit $rc: $(tail -n 2 <<<"$out")"
done
rm -rf p && cp -r clean p && rm -f p/international/0201.dtw.kabe && mkdir p/international/0201.dtw.kabe.tmp
expect "a folder at a table's .tmp name: named as the .tmp" "2" "0201.dtw.kabe.tmp: a directory" generate --pieces 3 --tables p --threads 1
rm -rf p && cp -r clean p
rm -f p/international/verified.txt && ln -s "$work/victim" p/international/verified.txt
run verify --tables p
held=1
[[ "$out" == *"verified.txt: a symbolic link"* ]] && victim_kept && held=0
verdict "a link at the ledger: verify goes on without it, the target untouched" $held "exit $rc: $out"
rm -rf slurm-out && mkdir -p slurm-out/jobs && ln -s "$work/victim" slurm-out/submit.sh
run plan --pieces 3 --tables clean --slurm slurm-out
held=1
[ $rc = 2 ] && [[ "$out" == *"submit.sh: a symbolic link"* ]] && victim_kept && held=0
verdict "plan --slurm with a link at submit.sh: refused by name" $held "exit $rc: $out"
rm -rf slurm-out && mkdir -p slurm-out && ln -s "$work" slurm-out/jobs
run plan --pieces 3 --tables clean --slurm slurm-out
held=1
[ $rc = 2 ] && [[ "$out" == *"jobs: a symbolic link"* ]] && ! ls ./*.sbatch >/dev/null 2>&1 && held=0
verdict "plan --slurm with jobs/ a link: refused by name, nothing written through it" $held "exit $rc: $out"

# Endless or foreign input, and a FIFO at the lock: refused at once, no hang.
start=$SECONDS
expect "manifest --check /dev/zero: refused at its first line" "2" "/dev/zero: line 1" manifest --tables clean --check /dev/zero
held=1
[ $((SECONDS - start)) -lt 10 ] && held=0
verdict "manifest --check /dev/zero: within 10 s" $held "$((SECONDS - start)) s"
expect "perft --vectors /dev/zero: refused within its bound" "2" "/dev/zero: longer than" perft --vectors /dev/zero
expect "manifest --check of a table file: not a manifest" "2" "not a kabe manifest" manifest --tables clean --check clean/international/0101.dtw.kabe
"$kabe" manifest --tables clean >whole.txt 2>/dev/null
head -n 1 whole.txt >head-only.txt
expect "manifest --check of a head-only manifest: refused" "2" "a head line and no files" manifest --tables clean --check head-only.txt
head -n 20 whole.txt >cut.txt
expect "manifest --check of a manifest cut short: refused" "2" "cut short" manifest --tables clean --check cut.txt
rm -rf both && "$kabe" generate --pieces 3 --tables both --both-sides >/dev/null 2>&1
expect "manifest --check of a set kept on both sides: says why and what to run" "1" "kabe generate --closure" manifest --tables both --check whole.txt
rm -rf l && cp -r clean l && rm -f l/international/0201.dtw.kabe l/.international.build.lock && mkfifo l/.international.build.lock
expect "a FIFO at the build lock: refused by name at once" "2" ".international.build.lock: a FIFO" generate --pieces 3 --tables l
rm -rf l && cp -r clean l && rm -f l/.international.build.lock && mkfifo l/.international.build.lock
expect "a FIFO at the lock of a complete set: generate has nothing to write, no hang" "0" "" generate --pieces 3 --tables l
expect "a FIFO at the lock of a complete set: analyze --generate, no hang" "0" "games read" analyze --tables l --generate --pieces 3 open-comment.pdn
expect "a FIFO at the lock of a complete set: study --generate, no hang" "0 1" "" study "W:WK1:B20" --tables l --generate

# A complete set on read-only media "builds" again: nothing is opened for writing.
rm -rf ro && cp -r clean ro && rm -f ro/.international.build.lock
run generate --pieces 3 --tables ro
held=1
[ $rc = 0 ] && [ ! -e ro/.international.build.lock ] && held=0
verdict "generate on a complete set writes nothing, not even its lock" $held "exit $rc: $out"
if is_root && mkdir -p ro-mount && mount --bind ro ro-mount 2>/dev/null && mount -o remount,bind,ro ro-mount 2>/dev/null; then
  expect "generate on a complete set on read-only media" "0" "loaded" generate --pieces 3 --tables ro-mount
  umount ro-mount
else
  umount ro-mount 2>/dev/null
  skip "generate on a complete set on read-only media" "a read-only bind mount needs root"
fi

# verify says what it did not see.
rm -rf half && cp -r clean half && rm -f half/international/verified.txt
: >half/international/0102.theory.checkpoint
expect "verify of a set with a pass stopped in the middle: incomplete, names the checkpoint" "1" "0102.theory.checkpoint" verify --tables half
rm -f half/international/0102.theory.checkpoint half/international/{0102,0201}.*.kabe
expect "verify of a set missing a pair its tables lead to: incomplete, names it" "1" "missing: moves of" verify --tables half
rm -f half/international/0201.*.kabe half/international/{0111,1101}.*.kabe
rm -rf half && cp -r clean half
if command -v flock >/dev/null; then
  flock -x half/.international.build.lock sleep 4 &
  sleep 1
  expect "verify beside a running build: incomplete, says a build is writing" "1" "a build is writing this set now" verify --tables half
  wait
fi

# The rest of the list.
rm -f loop-a loop-b && ln -s loop-a loop-b && ln -s loop-b loop-a
expect "--tables a loop of links: named as a link, not 'File exists'" "2" "symbolic link" generate --pieces 2 --tables loop-a
expect "a probe of 10 pieces: no build command that cannot work" "2" "up to 8 pieces" probe --tables clean "W:W31,32,33,34,35:B1,2,3,4,5"
run probe --tables clean "W:W31,32,33,34,35:B1,2,3,4,5"
held=1
[[ "$out" != *"kabe generate"* ]] && held=0
verdict "a probe of 10 pieces suggests no build" $held "$out"
printf '[Event "x"]\n[FEN "W:WK46:BK5"]\n1. 46-37 (1. 46-41 5-10\n' >open-variation.pdn
expect "a variation left open at the end of a file: named" "0" "variation opened on line 3 is not closed" analyze --tables clean --no-generate open-variation.pdn
run analyze --tables clean --no-generate missing.pdn open-variation.pdn
held=1
[ $rc = 2 ] && [[ "$out" == *"missing.pdn"* ]] && [[ "$out" == *"1 games read"* ]] && held=0
verdict "one missing file in a batch: named, the others analysed, exit 2" $held "exit $rc: $out"
run probe --tables clean "W:WK46:BK5,K4"
held=1
[[ "$out" == *"1 ply after"* ]] && [[ "$out" != *"1 plies"* ]] && held=0
verdict "one ply is '1 ply'" $held "$out"
if is_root && id nobody >/dev/null 2>&1 && command -v su >/dev/null; then
  mkdir -p closed/international && chmod 000 closed
  out=$(su nobody -s /bin/sh -c "timeout 10 '$kabe' serve --tables '$work/closed' --bind 127.0.0.1:1" 2>&1)
  rc=$?
  chmod 755 closed
  held=1
  [ $rc = 2 ] && [[ "$out" == *"Permission denied"* ]] && [[ "$out" != *"build some first"* ]] && held=0
  verdict "serve of an unreadable table folder: says why, not 'no tables'" $held "exit $rc: $out"
else
  skip "serve of an unreadable table folder" "needs root to run as another user"
fi
port=$((20000 + RANDOM % 20000))
timeout 20 "$kabe" serve --tables clean --bind "localhost:$port" >serve.out 2>serve.err &
spid=$!
sleep 1
answers=$(python3 - "$port" <<'PY' 2>&1
import socket, sys
port = int(sys.argv[1])
seen = []
for _ in range(5):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /api/international?fen=W:WK46:BK5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    s.shutdown(socket.SHUT_WR)  # the client is done sending: a half-close
    reply = b""
    while chunk := s.recv(65536):
        reply += chunk
    seen.append(reply.split(b"\r\n", 1)[0].decode())
print(" | ".join(seen))
PY
)
kill -TERM $spid 2>/dev/null
wait $spid
held=1
[ "$answers" = "$(printf 'HTTP/1.1 200 OK | %.0s' 1 2 3 4)HTTP/1.1 200 OK" ] && held=0
verdict "serve --bind localhost:PORT answers clients that half-close after a whole request" $held "$answers $(cat serve.err)"

echo "== write errors"
if [ -w /dev/full ]; then
  for command in "perft --depth 3" "moves W:W31:B1" "probe --tables clean $other_pos" "stats --tables clean" "info"; do
    # shellcheck disable=SC2086
    out=$(timeout 60 "$kabe" $command 2>&1 >/dev/full)
    rc=$?
    held=1
    [ $rc != 0 ] && [ $rc -lt 100 ] && [[ "$out" != *panicked* ]] && held=0
    verdict "$command >/dev/full: a non-zero exit, no panic" $held "exit $rc: $out"
  done
fi

echo "hostile: $((ok + bad)) cases, $ok OK, $bad BAD"
[ $bad = 0 ]
