#!/usr/bin/env bash
# The benchmark: MB/s, events/s and peak RSS of `sselint check --format json`
# on synthetic captures, next to the parse-limit baseline (frame + typed
# serde parse, nothing else), measured in the same run; and the whole-process
# time of a 100 KB capture.
#
# usage: bench/run.sh [SIZES_MB...]     (default: 1 10 100 1000)
#        VARIANTS="plain crlf keepalive tools n2 broken har" bench/run.sh 100
#        VARIANTS="responses messages responses-tools messages-tools" bench/run.sh 100
#        VARIANTS="gemini gemini-tools" bench/run.sh 100
#        VARIANTS="ollama converse invoke" bench/run.sh 100   (NDJSON, event-stream)
#        RUNS=7 bench/run.sh 100        (timed runs per figure; default 5)
# Needs bash 5 (EPOCHREALTIME) and GNU time (/usr/bin/time) for peak RSS.
# Captures go to ${BENCH_DIR:-/tmp/sselint-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ $# -eq 0 ] && sizes=(1 10 100 1000)
read -r -a variants <<< "${VARIANTS:-plain}"
runs=${RUNS:-5}
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
# The binary alone first, as `cargo build --release` builds it: built with
# the examples, it would get the dev-dependencies' features, other symbol
# names, and none of link/order.txt's layout (build.rs).
cargo build --release --quiet --bin sselint
cargo build --release --quiet --example gen_capture --example parse_limit
bin=target/release/sselint
gen=target/release/examples/gen_capture
base=target/release/examples/parse_limit

# Median wall time (seconds) of $runs runs of the command, output discarded.
wall() {
  local t=() i start
  for ((i = 0; i < runs; i++)); do
    start=$EPOCHREALTIME
    "$@" > /dev/null
    t+=("$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { print a - b }')")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}
# Peak RSS (KiB) of one run.
rss() { { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | tail -1; }

printf '| capture | size | events | parse limit | sselint check --format json | ratio | sselint peak RSS |\n'
printf '|---|---|---|---|---|---|---|\n'
for v in "${variants[@]}"; do
  flag=""
  [ "$v" != plain ] && flag="--$v"
  # A dialect variant: its generator flags, and the baseline's typed event.
  dialect=""
  case "$v" in
    responses | messages | gemini) dialect="--$v" flag="--$v" ;;
    responses-tools | messages-tools | gemini-tools) dialect="--${v%-tools}" flag="--${v%-tools} --tools" ;;
    ollama | converse | invoke) dialect="--$v" flag="--$v" ;;
  esac
  ext=sse
  [ "$v" = har ] && ext=har
  [ "$v" = ollama ] && ext=ndjson
  [ "$v" = converse ] || [ "$v" = invoke ] && ext=bin
  for mb in "${sizes[@]}"; do
    f="$dir/$v-$mb.$ext"
    # shellcheck disable=SC2086 # the flags are words
    [ -f "$f" ] || $gen $((mb * 1000000)) "$f" $flag
    bytes=$(stat -c %s "$f")
    cat "$f" > /dev/null # warm the page cache
    if [ "$v" = har ]; then
      # The events are inside a JSON string: no line-based baseline.
      events=$($bin check "$f" --format json --fail-on never | grep -o '"events": *[0-9]*' | grep -o '[0-9]*$')
      bt=""
    elif [ "$ext" != sse ]; then
      # NDJSON lines, event-stream frames: the baseline counts them.
      # shellcheck disable=SC2086
      events=$($base "$f" $dialect | grep -o '^[0-9]*')
      # shellcheck disable=SC2086
      bt=$(wall $base "$f" $dialect)
    else
      events=$(grep -c '^data: ' "$f" || true)
      # shellcheck disable=SC2086
      bt=$(wall $base "$f" $dialect)
    fi
    st=$(wall $bin check "$f" --format json --fail-on never)
    m=$(rss $bin check "$f" --format json --fail-on never)
    awk -v v="$v" -v mb="$mb" -v bytes="$bytes" -v ev="$events" -v bt="$bt" -v st="$st" -v rss="$m" 'BEGIN {
      if (bt == "") { limit = "—"; ratio = sprintf("RSS %.1f× the file", rss * 1024 / bytes) }
      else { limit = sprintf("%.0f MB/s", bytes/1e6/bt); ratio = sprintf("%.2f×", st/bt) }
      printf "| %s | %d MB | %d | %s | %.0f MB/s, %.2f M events/s | %s | %.1f MiB |\n",
        v, mb, ev, limit, bytes/1e6/st, ev/1e6/st, ratio, rss/1024 }'
  done
done

# A 100 KB capture, whole process: the mean of 50 runs.
small="$dir/small-100k.sse"
[ -f "$small" ] || $gen 100000 "$small"
start=$EPOCHREALTIME
for _ in $(seq 50); do $bin check "$small" --format json --fail-on never > /dev/null; done
awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { printf "\n100 KB capture, whole process: %.2f ms (mean of 50 runs)\n", (a - b) * 1000 / 50 }'
