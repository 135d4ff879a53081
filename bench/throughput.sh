#!/usr/bin/env bash
# Time per command of two builds on the same inputs (issue 40's
# "Throughput": time per command does not regress): check, inspect (JSON
# Lines to a file), redact, minimize, diff (the capture against itself),
# replay (one request, served to curl) and record (of that replay over
# loopback), each run RUNS times with the two builds alternating, the
# minimum of each kept. Prints wall time and CPU time (user + system; the
# figure to compare on a shared machine, where other jobs stretch the
# wall time) per build, and B's CPU time over A's.
#
# usage: A=/path/to/old/sselint B=target/release/sselint bench/throughput.sh [SIZE_MB]
#        RUNS=5 DIALECTS="chat har" COMMANDS="check diff" bench/throughput.sh
#        DIALECTS="ollama converse invoke" COMMANDS=check bench/throughput.sh
# SIZE_MB defaults to 100; inputs are bench/memory.sh's gen_capture
# captures in ${BENCH_DIR:-/tmp/sselint-bench} (GEN=/path/to/gen_capture
# when it is built apart). Commands that run past ${TIMEOUT:-300} s are
# stopped and their figure marked with `>`.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-100}
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
a=${A:?A=the baseline sselint}
b=${B:-target/release/sselint}
runs=${RUNS:-3}
gen=${GEN:-target/release/examples/gen_capture}
read -r -a dialects <<< "${DIALECTS:-chat har}"
read -r -a commands <<< "${COMMANDS:-check inspect-jsonl redact minimize diff replay record}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=${PORT:-18941}

capture_for() {
  case "$1" in
    chat) f="$dir/plain-$mb.sse" ;;
    responses | messages | gemini) f="$dir/$1-$mb.sse" ;;
    har) f="$dir/har-$mb.har" ;;
    ollama) f="$dir/ollama-$mb.ndjson" ;;
    converse | invoke) f="$dir/$1-$mb.bin" ;;
  esac
  if [ ! -f "$f" ]; then
    [ -x "$gen" ] || cargo build --release --quiet --example gen_capture
    case "$1" in
      chat) $gen $((mb * 1000000)) "$f" ;;
      har) $gen $((mb * 1000000)) "$f" --har ;;
      *) $gen $((mb * 1000000)) "$f" "--$1" ;;
    esac
  fi
  echo "$f"
}

path_for() {
  case "$1" in
    responses) echo /v1/responses ;;
    messages) echo /v1/messages ;;
    gemini) echo '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse' ;;
    ollama) echo /api/chat ;;
    converse) echo /model/m/converse-stream ;;
    invoke) echo /model/m/invoke-with-response-stream ;;
    *) echo /v1/chat/completions ;;
  esac
}

wait_serving() {
  for _ in $(seq 2400); do
    grep -q 'serving' "$tmp/replay.out" 2> /dev/null && return 0
    sleep 0.05
  done
  return 1
}

# Prints "wall cpu" (seconds) of one run of the command, output discarded;
# a run stopped by the timeout prints its figures with a leading `>`.
timed() {
  local code=0
  /usr/bin/time -f '%e %U %S' -o "$tmp/time" timeout "${TIMEOUT:-300}" "$@" > /dev/null 2> "$tmp/err" || code=$?
  awk -v c="$code" '{ printf "%s%s %.2f\n", (c == 124 ? ">" : ""), $1, $2 + $3 }' "$tmp/time" | tail -1
}

# One run of command $2 of build $1 on dialect $3's capture $4.
run() {
  local bin=$1 c=$2 d=$3 f=$4 out="$tmp/out"
  [ "$d" = har ] && out="$tmp/out.har"
  case "$c" in
    check) timed "$bin" check "$f" --format json --fail-on never ;;
    inspect-jsonl) timed "$bin" inspect "$f" --format jsonl -o "$out" ;;
    redact) timed "$bin" redact "$f" -o "$out" --force ;;
    minimize) timed "$bin" minimize "$f" -o "$out" --force ;;
    diff) timed "$bin" diff "$f" "$f" ;;
    replay)
      rm -f "$tmp/replay.out"
      /usr/bin/time -f '%e %U %S' -o "$tmp/replay.time" "$bin" replay "$f" --listen "127.0.0.1:$port" --once --delay-ms 0 > "$tmp/replay.out" 2>&1 &
      wait_serving
      curl -sN -X POST -H 'content-type: application/json' -d '{"stream":true}' "http://127.0.0.1:$port$(path_for "$d")" > /dev/null || true
      wait || true
      awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$tmp/replay.time" | tail -1
      ;;
    record)
      # The server is the new build's replay for both, so that only
      # record differs.
      rm -f "$tmp/replay.out"
      "$b" replay "$f" --listen "127.0.0.1:$port" --once --delay-ms 0 > "$tmp/replay.out" 2>&1 &
      wait_serving
      printf '{"model": "m", "messages": [{"role": "user", "content": "hi"}]}' > "$tmp/body.json"
      timed "$bin" record "http://127.0.0.1:$port$(path_for "$d")" --body "$tmp/body.json" -o "$out" --force --fail-on never
      wait || true
      ;;
  esac
  rm -f "$out"
}

# The smaller of two "wall cpu" figures, each part on its own.
least() {
  awk -v x="$1" -v y="$2" 'BEGIN {
    split(x, p, " "); split(y, q, " ");
    if (x == "") { print y; exit } if (y == "") { print x; exit }
    w = (q[1] + 0 < p[1] + 0) ? q[1] : p[1]; c = (q[2] + 0 < p[2] + 0) ? q[2] : p[2];
    print w, c }'
}

printf '| input | command | A: wall, CPU | B: wall, CPU | B/A (CPU) |\n|---|---|---|---|---|\n'
for d in "${dialects[@]}"; do
  f=$(capture_for "$d")
  cat "$f" > /dev/null
  for c in "${commands[@]}"; do
    ma="" mb_=""
    for _ in $(seq "$runs"); do
      ma=$(least "$ma" "$(run "$a" "$c" "$d" "$f")")
      mb_=$(least "$mb_" "$(run "$b" "$c" "$d" "$f")")
    done
    awk -v i="$d $mb MB" -v c="$c" -v x="$ma" -v y="$mb_" 'BEGIN {
      split(x, p, " "); split(y, q, " ");
      r = (p[2] + 0 > 0) ? sprintf("%.2f", q[2] / p[2]) : "—";
      printf "| %s | %s | %s s, %s s | %s s, %s s | %s |\n", i, c, p[1], p[2], q[1], q[2], r }'
  done
done
