#!/usr/bin/env bash
# Runs `sselint check` (JSON and text) and `inspect --format jsonl` on every
# sample (samples/), test case (tests/cases), fixture (tests/fixtures) and
# rule example (rules/**) and keeps what they gave: stdout, stderr and the
# exit code. Run it with two builds and compare the folders, to show that a
# change keeps the lint's behaviour byte for byte:
#
#   BIN=/tmp/old/sselint bench/check-identity.sh /tmp/check-old
#   BIN=target/debug/sselint bench/check-identity.sh /tmp/check-new
#   bench/minimize-identity.sh --compare /tmp/check-old /tmp/check-new
#
# Rule examples are written to files first, as bench/minimize-identity.sh
# does.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: bench/check-identity.sh DEST_DIR}
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
  args=()
  [ -f "${f%.*}.args" ] && read -r -a args < "${f%.*}.args"
  for run in json text jsonl; do
    code=0
    case $run in
      json) "$bin" check "$f" --format json "${args[@]}" > "$dest/$key.$run" 2> "$dest/$key.$run.err" || code=$? ;;
      text) "$bin" check "$f" --color never "${args[@]}" > "$dest/$key.$run" 2> "$dest/$key.$run.err" || code=$? ;;
      jsonl) "$bin" inspect "$f" --format jsonl "${args[@]}" > "$dest/$key.$run" 2> "$dest/$key.$run.err" || code=$? ;;
    esac
    echo "$code" > "$dest/$key.$run.code"
  done
  # The wall time and the scratch folder's name are not behaviour.
  sed -i -e '/"seconds":/d' -e "s#$examples#EXAMPLES#g" "$dest/$key".*
  n=$((n + 1))
done < <(find samples tests/cases tests/fixtures "$examples" -type f -print0 | sort -z)
echo "$n inputs checked and inspected into $dest"
