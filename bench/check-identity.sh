#!/usr/bin/env bash
# Runs `sselint check` (JSON, SARIF, JUnit and text) and `inspect --format jsonl` on every
# sample (samples/), test case (tests/cases), fixture (tests/fixtures) and
# rule example (rules/**) and keeps what they gave: stdout, stderr and the
# exit code. Run it with two builds and compare the folders, to show that a
# change keeps the lint's behaviour byte for byte:
#
#   BIN=/tmp/old/sselint bench/check-identity.sh /tmp/check-old
#   BIN=target/debug/sselint bench/check-identity.sh /tmp/check-new
#   bench/minimize-identity.sh --compare /tmp/check-old /tmp/check-new
#
# The inputs are bench/inputs.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: bench/check-identity.sh DEST_DIR}
bin=${BIN:-target/release/sselint}
# shellcheck source=bench/inputs.sh
. bench/inputs.sh
one() {
  local f=$1 key=$2 run code
  shift 2
  for run in json sarif junit text jsonl; do
    code=0
    case $run in
      json | sarif | junit) "$bin" check "$f" --format "$run" "$@" > "$dest/$key.$run" 2> "$dest/$key.$run.err" || code=$? ;;
      text) "$bin" check "$f" --color never "$@" > "$dest/$key.$run" 2> "$dest/$key.$run.err" || code=$? ;;
      jsonl) "$bin" inspect "$f" --format jsonl "$@" > "$dest/$key.$run" 2> "$dest/$key.$run.err" || code=$? ;;
    esac
    echo "$code" > "$dest/$key.$run.code"
  done
  # The wall time and the scratch folder's name are not behaviour.
  sed -i -e '/"seconds":/d' -e "s#$examples#EXAMPLES#g" "$dest/$key".*
  n=$((n + 1))
}
# ALL_ONLY=1: only the run of every input at once below (the per-input
# runs take hours on a loaded debug build).
list=()
gather() { [ $# -gt 2 ] || list+=("$1"); n=$((n + 1)); }
if [ -n "${ALL_ONLY:-}" ]; then each_input gather; else each_input one; fi
# Every input (but those with their own flags) at once, in each format
# whose document counts the whole run, on two workers: one document of
# thousands of streams, written as they come (JSON, SARIF, JUnit), the
# same bytes as the old build's made from every result.
[ ${#list[@]} -gt 0 ] || { list=(); n=0; each_input gather; }
for fmt in json sarif junit; do
  code=0
  "$bin" check "${list[@]}" -j 2 --format "$fmt" > "$dest/all.$fmt" 2> "$dest/all.$fmt.err" || code=$?
  echo "$code" > "$dest/all.$fmt.code"
done
sed -i -e '/"seconds":/d' -e "s#$examples#EXAMPLES#g" "$dest"/all.*
echo "$n inputs checked and inspected into $dest (${#list[@]} of them at once)"
