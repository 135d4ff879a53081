# Sourced by bench/minimize-identity.sh and bench/check-identity.sh: every
# sample (samples/), test case (tests/cases), fixture (tests/fixtures) and
# rule example (rules/**, written to files first: `rules/GROUP/NAME.toml`'s
# N-th example as GROUP-NAME-N.sse, and GROUP-NAME-N.args holding
# --max-event-bytes when the example sets one).
#
# Sourced with `$dest` set: it empties that folder for the results. After
# sourcing: `$examples` is the scratch folder of the rule examples (removed
# on exit), `n` is 0, and `each_input FN` calls `FN FILE KEY ARGS...` for
# every input, KEY a flat name for its results and ARGS its extra flags.
rm -rf "$dest"
mkdir -p "$dest"
n=0
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

each_input() {
  local f key args
  while IFS= read -r -d '' f; do
    case "$f" in *.args | *.json | *.md | *.toml | *.gitattributes) continue ;; esac
    case "$f" in
      "$examples"/*) key=rule_${f#"$examples"/} ;;
      *) key=$(printf '%s' "$f" | tr '/' '_') ;;
    esac
    args=()
    [ -f "${f%.*}.args" ] && read -r -a args < "${f%.*}.args"
    "$1" "$f" "$key" "${args[@]}"
  done < <(find samples tests/cases tests/fixtures "$examples" -type f -print0 | sort -z)
}
