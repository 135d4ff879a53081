#!/usr/bin/env bash
# Runs `sselint check` in every format and `inspect` (text and JSON Lines)
# on every socket input among bench/inputs.sh's (samples, cases, fixtures
# and rule examples whose body is a WebSocket message log or a HAR with
# `_webSocketMessages`), then `check` of all of them at once (two workers,
# a second report per format, a baseline), and keeps stdout, stderr, the
# exit code and any report file. Run it with two builds and compare:
#
#   BIN=/tmp/old/sselint bench/socket-identity.sh /tmp/sock-old
#   BIN=target/debug/sselint bench/socket-identity.sh /tmp/sock-new
#   diff -r /tmp/sock-old /tmp/sock-new && echo identical
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: bench/socket-identity.sh DEST_DIR}
bin=${BIN:-target/release/sselint}
# shellcheck source=bench/inputs.sh
. bench/inputs.sh
list=()
keep() {
  local f=$1 key=$2
  grep -q -e '_webSocketMessages' -e '"direction":' "$f" 2> /dev/null || return 0
  list+=("$f")
  shift 2
  local fmt code
  for fmt in human json sarif junit github jsonl html; do
    code=0
    "$bin" check "$f" --color never --format "$fmt" "$@" > "$dest/$key.$fmt" 2> "$dest/$key.$fmt.err" || code=$?
    echo "$code" > "$dest/$key.$fmt.code"
  done
  for fmt in human jsonl; do
    code=0
    "$bin" inspect "$f" --color never --format "$fmt" "$@" > "$dest/$key.inspect-$fmt" 2> "$dest/$key.inspect-$fmt.err" || code=$?
    echo "$code" > "$dest/$key.inspect-$fmt.code"
  done
  n=$((n + 1))
}
each_input keep
# All at once: workers, --report files, -v, a baseline of today's findings.
all=$dest/all
mkdir -p "$all"
"$bin" check "${list[@]}" --write-baseline "$all/baseline.json" > /dev/null 2>&1 || true
for fmt in human github jsonl json sarif junit; do
  code=0
  "$bin" check "${list[@]}" -j 2 --color never --format "$fmt" -v \
    --report "human=$all/$fmt.report.txt" --report "jsonl=$all/$fmt.report.jsonl" \
    --report "json=$all/$fmt.report.json" --report "sarif=$all/$fmt.report.sarif" \
    --report "junit=$all/$fmt.report.xml" \
    > "$all/$fmt" 2> "$all/$fmt.err" || code=$?
  echo "$code" > "$all/$fmt.code"
  code=0
  "$bin" check "${list[@]}" -j 2 --color never --format "$fmt" --baseline "$all/baseline.json" \
    -o "$all/$fmt.baselined" > "$all/$fmt.b.out" 2> "$all/$fmt.b.err" || code=$?
  echo "$code" > "$all/$fmt.b.code"
done
rm -f "$all/baseline.json"
# The wall time and the scratch folder's name are not behaviour.
find "$dest" -type f -exec sed -i -e '/"seconds":/d' -e "s#$examples#EXAMPLES#g" {} +
echo "$n socket inputs checked in 7 formats and inspected into $dest"
