#!/usr/bin/env bash
# Peak RSS and wall time of `check` on WebSocket message logs of a growing
# number of turns (issue 39's "memory stays flat in the number and size of
# messages"): Responses turns over one socket (`gen_capture --websocket`,
# 20 deltas a turn; `--n2` for two lanes interleaved), and one log of few
# turns with long ones (`--deltas 20000`). One run each, measured with GNU
# time (/usr/bin/time -f '%e %M'), output discarded.
#
# usage: bench/socket-memory.sh                 (release build)
#        BIN=/path/to/sselint bench/socket-memory.sh   (another build, e.g. a baseline)
#        SIZES="2 17 170" FORMATS="human json" bench/socket-memory.sh
# SIZES are the logs' sizes in MB (17 MB is about 2,000 turns). Logs go
# to ${BENCH_DIR:-/tmp/sselint-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin sselint
  BIN=target/release/sselint
fi
gen=${GEN:-target/release/examples/gen_capture}
[ -x "$gen" ] || cargo build --release --quiet --example gen_capture
read -r -a sizes <<< "${SIZES:-2 17 170}"
read -r -a formats <<< "${FORMATS:-human json}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() {
  /usr/bin/time -f '%e %M' -o "$tmp/time" timeout "${TIMEOUT:-600}" "$@" > /dev/null 2> "$tmp/err" || true
  tail -1 "$tmp/time"
}

echo "| log | turns | format | wall s | peak RSS MiB |"
echo "|---|---:|---|---:|---:|"
run() { # NAME FILE
  local turns
  turns=$(grep -c '"direction":"sent"' "$2" || true)
  for fmt in "${formats[@]}"; do
    read -r wall kib <<< "$(measure "$BIN" check --format "$fmt" "$2")"
    printf '| %s | %s | %s | %s | %.1f |\n' "$1" "$((turns - 1))" "$fmt" "$wall" "$(echo "$kib / 1024" | bc -l)"
  done
}
for mb in "${sizes[@]}"; do
  f="$dir/ws-$mb.jsonl"
  [ -f "$f" ] || "$gen" $((mb * 1000000)) "$f" --websocket 2> /dev/null
  run "ws-$mb MB, one lane" "$f"
  f="$dir/ws-n2-$mb.jsonl"
  [ -f "$f" ] || "$gen" $((mb * 1000000)) "$f" --websocket --n2 2> /dev/null
  run "ws-$mb MB, two lanes" "$f"
done
f="$dir/ws-long.jsonl"
[ -f "$f" ] || "$gen" 17000000 "$f" --websocket --deltas 20000 2> /dev/null
run "17 MB, turns of 20,000 deltas" "$f"
