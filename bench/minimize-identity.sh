#!/usr/bin/env bash
# Runs `sselint minimize` on every sample (samples/), test case
# (tests/cases), fixture (tests/fixtures) and rule example (rules/**) and
# keeps what it gave: the output file's bytes, the JSON report (less its
# `seconds`, a wall time) and the exit code. Run it with two builds and
# compare the folders, to show that a change to minimize keeps its
# behaviour byte for byte:
#
#   BIN=/tmp/old/sselint bench/minimize-identity.sh /tmp/min-old
#   BIN=target/release/sselint bench/minimize-identity.sh /tmp/min-new
#   bench/minimize-identity.sh --compare /tmp/min-old /tmp/min-new
#
# The inputs are bench/inputs.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --compare ]; then
  a=$2 b=$3
  total=$(find "$a" -type f | wc -l)
  if diff -r "$a" "$b" > /tmp/minimize-identity.diff; then
    echo "identical: $total files ($(find "$a" -name '*.out' | wc -l) outputs, $(find "$a" -name '*.report' | wc -l) reports, $(find "$a" -name '*.code' | wc -l) exit codes)"
  else
    echo "DIFFERENT (of $total files): $(grep -c '^diff\|^Only' /tmp/minimize-identity.diff) files; see /tmp/minimize-identity.diff"
    exit 1
  fi
  exit 0
fi
dest=${1:?usage: bench/minimize-identity.sh DEST_DIR}
bin=${BIN:-target/release/sselint}
# shellcheck source=bench/inputs.sh
. bench/inputs.sh
one() {
  local f=$1 key=$2 ext=${1##*.} code=0
  shift 2
  "$bin" minimize "$f" -o "$dest/$key.out.$ext" --force --format json "$@" \
    > "$dest/$key.report" 2> "$dest/$key.stderr" || code=$?
  echo "$code" > "$dest/$key.code"
  [ -f "$dest/$key.out.$ext" ] && mv "$dest/$key.out.$ext" "$dest/$key.out"
  # The wall time and the scratch folder's name are not behaviour.
  sed -i -e '/"seconds":/d' -e "s#$examples#EXAMPLES#g" -e "s#$dest#DEST#g" "$dest/$key.report" "$dest/$key.stderr"
  n=$((n + 1))
}
each_input one
echo "$n inputs minimized into $dest"
