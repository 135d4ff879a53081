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
# Rule examples are written to files first (`rules/GROUP/NAME.toml`'s N-th
# example as NAME-N.sse, with --max-event-bytes when it sets one).
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
rm -rf "$dest"
mkdir -p "$dest"
examples=$(mktemp -d)
trap 'rm -rf "$examples"' EXIT
python3 - "$examples" <<'PY'
import pathlib, sys, tomllib
out = pathlib.Path(sys.argv[1])
for p in sorted(pathlib.Path("rules").rglob("*.toml")):
    doc = tomllib.loads(p.read_text())
    for i, ex in enumerate(doc.get("examples", [])):
        if "capture" not in ex:
            continue
        name = f"{p.parent.name}-{p.stem}-{i}"
        (out / f"{name}.sse").write_bytes(ex["capture"].encode())
        if "max_event_bytes" in ex:
            (out / f"{name}.args").write_text(f"--max-event-bytes {ex['max_event_bytes']}\n")
PY
n=0
while IFS= read -r -d '' f; do
  case "$f" in *.args | *.json | *.md | *.toml | *.gitattributes) continue ;; esac
  case "$f" in
    "$examples"/*) key=rule_${f#"$examples"/} ;;
    *) key=$(printf '%s' "$f" | tr '/' '_') ;;
  esac
  ext=${f##*.}
  args=()
  [ -f "${f%.*}.args" ] && read -r -a args < "${f%.*}.args"
  code=0
  "$bin" minimize "$f" -o "$dest/$key.out.$ext" --force --format json "${args[@]}" \
    > "$dest/$key.report" 2> "$dest/$key.stderr" || code=$?
  echo "$code" > "$dest/$key.code"
  [ -f "$dest/$key.out.$ext" ] && mv "$dest/$key.out.$ext" "$dest/$key.out"
  # The wall time and the scratch folder's name are not behaviour.
  sed -i -e '/"seconds":/d' -e "s#$examples#EXAMPLES#g" -e "s#$dest#DEST#g" "$dest/$key.report" "$dest/$key.stderr"
  n=$((n + 1))
done < <(find samples tests/cases tests/fixtures "$examples" -type f -print0 | sort -z)
echo "$n inputs minimized into $dest"
