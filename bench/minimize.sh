#!/usr/bin/env bash
# The minimize benchmark: a synthetic capture of SIZE_MB (default 10) with
# one fault spliced in at the middle, minimized by `sselint minimize`;
# prints the time, the peak RSS (GNU time), the re-lints and the size
# before and after.
#
# KIND (default chat) picks the capture and its fault:
#   chat      a Chat stream, one chunk cut before its closing brace (invalid-json)
#   ollama    Ollama NDJSON, one line cut before its closing brace (ollama-invalid-line)
#   converse  Bedrock ConverseStream frames, one frame's message CRC off (converse-frame)
#
# usage: bench/minimize.sh [SIZE_MB]       (captures in ${BENCH_DIR:-/tmp/sselint-bench})
#        KIND=converse bench/minimize.sh 100
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-10}
kind=${KIND:-chat}
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
cargo build --release --quiet --bin sselint --example gen_capture
bin=target/release/sselint
gen=target/release/examples/gen_capture
case "$kind" in
  chat)
    plain="$dir/plain-$mb.sse"
    [ -f "$plain" ] || $gen $((mb * 1000000)) "$plain"
    f="$dir/fault-$mb.sse"
    # The event at the middle loses its last byte before the blank line.
    awk -v RS='\n\n' -v ORS='\n\n' -v n="$(grep -c '^data: ' "$plain")" \
      'NR == int(n / 2) { sub(/}$/, "") } { print }' "$plain" > "$f"
    ;;
  ollama)
    plain="$dir/ollama-$mb.ndjson"
    [ -f "$plain" ] || $gen $((mb * 1000000)) "$plain" --ollama
    f="$dir/fault-ollama-$mb.ndjson"
    awk -v n="$(wc -l < "$plain")" 'NR == int(n / 2) { sub(/}$/, "") } { print }' "$plain" > "$f"
    ;;
  converse)
    plain="$dir/converse-$mb.bin"
    [ -f "$plain" ] || $gen $((mb * 1000000)) "$plain" --converse
    f="$dir/fault-converse-$mb.bin"
    # The frame that starts past the middle gets its message CRC's last
    # byte flipped.
    python3 - "$plain" "$f" <<'PY'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
at, mid = 0, len(data) // 2
while at < mid:
    at += struct.unpack(">I", data[at:at + 4])[0]
end = at + struct.unpack(">I", data[at:at + 4])[0]
out = bytearray(data)
out[end - 1] ^= 0x5A
open(dst, "wb").write(out)
PY
    ;;
  *) echo "KIND is chat, ollama or converse" >&2; exit 2 ;;
esac
out="$dir/fault-$kind-$mb.min"
start=$EPOCHREALTIME
/usr/bin/time -f '%M' -o "$dir/minimize.rss" $bin minimize "$f" -o "$out" --force --format json > "$dir/minimize.json"
t=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { printf "%.2f", a - b }')
python3 - "$dir/minimize.json" "$t" "$(tail -1 "$dir/minimize.rss")" "$kind" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b, a = r["before"], r["after"]
kept = ", ".join(f'{k["rule"]} ({k["severity"]})' for k in r["kept"])
rss = int(sys.argv[3]) / 1024
print(f'| {sys.argv[4]} | {b["bytes"]:,} bytes, {b["events"]:,} events | {kept} | {sys.argv[2]} s | {rss:.1f} MiB | {r["relints"]:,} | {a["bytes"]:,} bytes, {a["events"]:,} events |')
PY
