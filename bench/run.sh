#!/usr/bin/env bash
# The benchmark: MB/s, events/s and peak RSS of `sselint check --format json`
# on synthetic captures, next to the parse-limit baseline (frame + typed
# serde parse, nothing else), measured in the same run.
#
# usage: bench/run.sh [SIZES_MB...]     (default: 1 10 100 1000)
#        VARIANTS="plain crlf keepalive tools n2 broken" bench/run.sh 100
# Needs /usr/bin/time (GNU time). Captures go to ${BENCH_DIR:-/tmp/sselint-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-1 10 100 1000}")
[ $# -eq 0 ] && sizes=(1 10 100 1000)
variants=(${VARIANTS:-plain})
dir=${BENCH_DIR:-/tmp/sselint-bench}
mkdir -p "$dir"
cargo build --release --quiet --bin sselint --example gen_capture --example parse_limit
bin=target/release/sselint
gen=target/release/examples/gen_capture
base=target/release/examples/parse_limit
measure() { # prints: seconds max_rss_kb
  local out
  out=$( { /usr/bin/time -f "%e %M" "$@" > /dev/null; } 2>&1 | tail -1 )
  echo "$out"
}
printf '| capture | size | events | parse limit | sselint check --format json | ratio | sselint peak RSS |\n'
printf '|---|---|---|---|---|---|---|\n'
for v in "${variants[@]}"; do
  flag=""
  [ "$v" != plain ] && flag="--$v"
  for mb in "${sizes[@]}"; do
    f="$dir/$v-$mb.sse"
    [ -f "$f" ] || $gen $((mb * 1000000)) "$f" $flag
    bytes=$(stat -c %s "$f")
    events=$(grep -c '^data: ' "$f" || true)
    # Warm the page cache, then take the median of 3 runs.
    cat "$f" > /dev/null
    b=(); s=(); r=()
    for i in 1 2 3; do
      read -r t _ < <(measure $base "$f"); b+=("$t")
      read -r t m < <(measure $bin check "$f" --format json --fail-on never); s+=("$t"); r+=("$m")
    done
    bt=$(printf '%s\n' "${b[@]}" | sort -n | sed -n 2p)
    st=$(printf '%s\n' "${s[@]}" | sort -n | sed -n 2p)
    rss=$(printf '%s\n' "${r[@]}" | sort -n | tail -1)
    awk -v v="$v" -v mb="$mb" -v bytes="$bytes" -v ev="$events" -v bt="$bt" -v st="$st" -v rss="$rss" 'BEGIN {
      bt = (bt < 0.005 ? 0.005 : bt); st = (st < 0.005 ? 0.005 : st);
      printf "| %s | %d MB | %d | %.0f MB/s | %.0f MB/s, %.2f M events/s | %.2f× | %.1f MiB |\n",
        v, mb, ev, bytes/1e6/bt, bytes/1e6/st, ev/1e6/st, st/bt, rss/1024 }'
  done
done
