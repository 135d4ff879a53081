#!/usr/bin/env bash
# Peak RSS (whole process), wall and CPU time of every command on a 100 MB
# capture of each dialect and on a 100 MB HAR (issue 40's "Peak RSS"), plus
# `check` of 2 million comment lines in one block: one run each, release
# build, measured with GNU time (/usr/bin/time -f '%e %M %U %S'; CPU is
# user + system).
#
# usage: bench/memory.sh [SIZE_MB]          (default 100)
#        BIN=/path/to/sselint bench/memory.sh   (another build, e.g. a baseline)
#        GEN=/path/to/gen_capture bench/memory.sh  (the generator, built apart)
#        DIALECTS="chat gemini" COMMANDS="check redact-scrub" bench/memory.sh
#        DIALECTS="ollama converse invoke" bench/memory.sh   (NDJSON, event-stream)
#        RUNS=5 bench/memory.sh   (each command 5 times: the median wall and
#                                  CPU time, and the peak's min / median / max)
# Captures go to ${BENCH_DIR:-/tmp/sselint-bench} (shared with run.sh);
# outputs to a scratch directory removed at the end.
#
# Commands (COMMANDS, default all): check, inspect-jsonl (`-o FILE`),
# inspect (the table, to /dev/null), redact, redact-scrub (--scrub-text),
# minimize, diff (the capture against itself), replay (serving one request
# to curl), record (of `replay` over loopback; the peak is record's).
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-100}
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin sselint
  BIN=target/release/sselint
fi
gen=${GEN:-target/release/examples/gen_capture}
[ -x "$gen" ] || cargo build --release --quiet --example gen_capture
read -r -a dialects <<< "${DIALECTS:-chat responses messages gemini har}"
read -r -a commands <<< "${COMMANDS:-check inspect-jsonl inspect redact redact-scrub minimize diff replay record}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=${PORT:-18931}

# Prints "wall_s peak_KiB user_s sys_s" of one run of the command (output discarded),
# stopped after ${TIMEOUT:-600} s (the figures are then the run so far).
measure() {
  /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" timeout "${TIMEOUT:-600}" "$@" > /dev/null 2> "$tmp/err" || true
  tail -1 "$tmp/time"
}

capture_for() {
  case "$1" in
    chat) f="$dir/plain-$mb.sse"; [ -f "$f" ] || $gen $((mb * 1000000)) "$f" ;;
    responses | messages | gemini) f="$dir/$1-$mb.sse"; [ -f "$f" ] || $gen $((mb * 1000000)) "$f" "--$1" ;;
    har) f="$dir/har-$mb.har"; [ -f "$f" ] || $gen $((mb * 1000000)) "$f" --har ;;
    ollama) f="$dir/ollama-$mb.ndjson"; [ -f "$f" ] || $gen $((mb * 1000000)) "$f" --ollama ;;
    converse | invoke) f="$dir/$1-$mb.bin"; [ -f "$f" ] || $gen $((mb * 1000000)) "$f" "--$1" ;;
  esac
  echo "$f"
}

path_for() {
  case "$1" in
    responses) echo /v1/responses ;;
    messages) echo /v1/messages ;;
    gemini) echo '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse' ;;
    ollama) echo /api/chat ;;
    converse) echo /model/anthropic.claude-sonnet-4-5/converse-stream ;;
    invoke) echo /model/anthropic.claude-sonnet-4-5/invoke-with-response-stream ;;
    *) echo /v1/chat/completions ;;
  esac
}

# Waits until the replay started last says it serves (a probe connection
# would be the one request a `--once` replay answers).
wait_port() {
  for _ in $(seq 2400); do
    grep -q 'serving' "$tmp/replay.out" 2> /dev/null && return 0
    sleep 0.05
  done
  return 1
}

runs=${RUNS:-1}
if [ "$runs" -gt 1 ]; then
  printf '| input | command | wall (median) | CPU (median) | peak RSS min / median / max |\n|---|---|---|---|---|\n'
else
  printf '| input | command | wall | CPU | peak RSS |\n|---|---|---|---|---|\n'
fi
# One row from the runs' "wall_s peak_KiB user_s sys_s" lines in file $3.
row() {
  local n mid t m u
  n=$(grep -c . "$3" || true)
  if [ "$n" -eq 0 ]; then
    printf '| %s | %s | — | — | — |\n' "$1" "$2"
    return
  fi
  mid=$(((n + 1) / 2))
  t=$(cut -d' ' -f1 "$3" | sort -n | sed -n "${mid}p")
  u=$(awk '{ print $3 + $4 }' "$3" | sort -n | sed -n "${mid}p")
  m=$(cut -d' ' -f2 "$3" | sort -n | awk -v mid="$mid" '{ a[NR] = $1 } END { print a[1], a[mid], a[NR] }')
  awk -v i="$1" -v c="$2" -v t="$t" -v u="$u" -v m="$m" -v n="$n" 'BEGIN {
    split(m, p, " ")
    if (n == 1) printf "| %s | %s | %.2f s | %.2f s | %.1f MiB |\n", i, c, t, u, p[1] / 1024
    else printf "| %s | %s | %.2f s | %.2f s | %.1f / %.1f / %.1f MiB |\n", i, c, t, u, p[1] / 1024, p[2] / 1024, p[3] / 1024
  }'
}
for d in "${dialects[@]}"; do
  f=$(capture_for "$d")
  cat "$f" > /dev/null
  for c in "${commands[@]}"; do
    for _ in $(seq "$runs"); do
      out="$tmp/out"
      [ "$d" = har ] && out="$tmp/out.har"
      case "$c" in
        check) r=$(measure "$BIN" check "$f" --format json --fail-on never) ;;
        inspect-jsonl) r=$(measure "$BIN" inspect "$f" --format jsonl -o "$out") ;;
        inspect) r=$(measure "$BIN" inspect "$f" --color never) ;;
        redact) r=$(measure "$BIN" redact "$f" -o "$out" --force) ;;
        redact-scrub) r=$(measure "$BIN" redact "$f" -o "$out" --force --scrub-text) ;;
        minimize) r=$(measure "$BIN" minimize "$f" -o "$out" --force) ;;
        diff) r=$(measure "$BIN" diff "$f" "$f") ;;
        replay)
          rm -f "$tmp/replay.out"
          /usr/bin/time -f '%e %M %U %S' -o "$tmp/replay.time" "$BIN" replay "$f" --listen "127.0.0.1:$port" --once --delay-ms 0 > "$tmp/replay.out" 2>&1 &
          wait_port
          curl -sN -X POST -H 'content-type: application/json' -d '{"stream":true}' "http://127.0.0.1:$port$(path_for "$d")" > /dev/null || true
          wait || true
          r=$(tail -1 "$tmp/replay.time")
          ;;
        record)
          rm -f "$tmp/replay.out"
          "$BIN" replay "$f" --listen "127.0.0.1:$port" --once --delay-ms 0 > "$tmp/replay.out" 2>&1 &
          wait_port
          printf '{"model": "m", "messages": [{"role": "user", "content": "hi"}]}' > "$tmp/body.json"
          r=$(measure "$BIN" record "http://127.0.0.1:$port$(path_for "$d")" --body "$tmp/body.json" -o "$out" --force --fail-on never)
          wait || true
          ;;
      esac
      echo "$r" >> "$tmp/runs"
      rm -f "$out"
    done
    row "$d $mb MB" "$c" "$tmp/runs"
    rm -f "$tmp/runs"
  done
done
[ -n "${NO_COMMENTS:-}" ] && exit 0
# 2 million comment lines (`:` alone), then one event: one block.
cm="$dir/comments-2m.sse"
[ -f "$cm" ] || { yes : | head -2000000 || true; printf 'data: {}\n\n'; } > "$cm"
for _ in $(seq "$runs"); do
  measure "$BIN" check "$cm" --format json --fail-on never >> "$tmp/runs"
done
row "2 M comment lines" check "$tmp/runs"
