#!/usr/bin/env bash
# The minimize benchmark: a synthetic capture of SIZE_MB (default 10) with
# one broken event (a chunk cut before its closing brace: invalid-json)
# spliced in at the middle, minimized by `sselint minimize`; prints the
# time, the re-lints and the size before and after.
#
# usage: bench/minimize.sh [SIZE_MB]       (captures in ${BENCH_DIR:-/tmp/sselint-bench})
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-10}
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
cargo build --release --quiet --bin sselint --example gen_capture
bin=target/release/sselint
plain="$dir/plain-$mb.sse"
[ -f "$plain" ] || target/release/examples/gen_capture $((mb * 1000000)) "$plain"
f="$dir/fault-$mb.sse"
# The event at the middle loses its last byte before the blank line.
awk -v RS='\n\n' -v ORS='\n\n' -v n="$(grep -c '^data: ' "$plain")" \
  'NR == int(n / 2) { sub(/}$/, "") } { print }' "$plain" > "$f"
out="$dir/fault-$mb.min.sse"
start=$EPOCHREALTIME
$bin minimize "$f" -o "$out" --force --format json > "$dir/minimize.json"
t=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { printf "%.2f", a - b }')
python3 - "$dir/minimize.json" "$t" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b, a = r["before"], r["after"]
kept = ", ".join(f'{k["rule"]} ({k["severity"]})' for k in r["kept"])
print(f'| {b["bytes"]:,} bytes, {b["events"]:,} events | {kept} | {sys.argv[2]} s | {r["relints"]:,} | {a["bytes"]:,} bytes, {a["events"]:,} events |')
PY
