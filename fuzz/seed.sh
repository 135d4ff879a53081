#!/usr/bin/env bash
# Seeds each fuzz target's corpus from the shipped samples and test cases,
# keeping only files no longer than the target's -max_len (below): one
# large seed makes libFuzzer raise its maximum length to match, and the
# corpus then fills with inputs near that size, which the slow targets
# (check_pipeline, har_reader, redact) run at a few dozen execs/s. The
# 1.19 MB samples/har/firefox-truncated.har is covered by a test
# (tests/samples.rs), not by a seed.
#
# Run each target with its length, e.g.
#   RUSTC_BOOTSTRAP=1 cargo fuzz run -O har_reader corpus/har_reader -- -max_len=65536
# `./seed.sh --print` lists the target and its -max_len, one per line.
set -euo pipefail
cd "$(dirname "$0")"

# target -max_len (bytes)
max_len() {
  case "$1" in
    chunk_decoder) echo 4096 ;;          # one chunk's JSON
    sse_split | typed_equivalence) echo 16384 ;;  # a few dozen events
    curl_reader | check_pipeline) echo 65536 ;;   # curl dumps up to 39 KB
    dialects) echo 16384 ;;              # a few dozen events of any dialect
    har_reader | redact) echo 65536 ;;   # HAR samples up to 36 KB
    *) echo "unknown target $1" >&2; exit 2 ;;
  esac
}
targets=(sse_split curl_reader har_reader chunk_decoder check_pipeline redact typed_equivalence dialects)
if [ "${1:-}" = "--print" ]; then
  for t in "${targets[@]}"; do echo "$t $(max_len "$t")"; done
  exit 0
fi

# seed TARGET FILE...: copies the files that fit the target's -max_len.
seed() {
  local t=$1 limit f
  shift
  limit=$(max_len "$t")
  for f in "$@"; do
    [ -f "$f" ] || continue
    if [ "$(wc -c < "$f")" -le "$limit" ]; then
      cp "$f" "corpus/$t/"
    fi
  done
}

for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
done
raw=(../samples/*/*.sse ../tests/cases/*.sse)
seed sse_split "${raw[@]}"
seed dialects "${raw[@]}"
seed check_pipeline "${raw[@]}" ../samples/curl/* ../samples/har/*.har
seed typed_equivalence "${raw[@]}"
seed curl_reader ../samples/curl/* ../samples/bad/*.txt
seed har_reader ../samples/har/*.har
seed redact ../samples/har/*.har ../samples/good/*.sse
# Gemini streams whose middle chunks take Gemini's fast path (the Gemini
# samples are a first chunk and a finish, which both take the general
# path): text, a thought with its signature, a running count, and
# Vertex's shape (role first, no index, createTime, trafficType).
gemini() {
  local tail='"modelVersion": "gemini-2.5-flash","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo"}'
  local usage='"usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}]}'
  local part
  for part in '{"text": "Hel"}' '{"text": "**Rain**","thought": true,"thoughtSignature": "CiQB0e2Kb3hJ7y0Y"}' \
    '{"text": "lo \"there\" \u00e9\n"}' '{"text": " and"}'; do
    printf 'data: {"candidates": [{"content": {"parts": [%s],"role": "model"},"index": 0}],%s,%s\r\n\r\n' "$part" "$usage" "$tail"
  done
  printf 'data: {"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 4,"totalTokenCount": 13},%s\r\n\r\n' "$tail"
}
vertex() {
  local w
  for w in Let " me" " look" " it" " up."; do
    printf 'data: {"candidates": [{"content": {"role": "model","parts": [{"text": "%s"}]}}],"usageMetadata": {"trafficType": "ON_DEMAND"},"modelVersion": "gemini-3-pro-preview","createTime": "2026-08-21T09:14:03.118204Z","responseId": "q3GmaN2uE6m3nvgP5pC2kAk"}\r\n\r\n' "$w"
  done
  printf 'data: {"candidates": [{"content": {"role": "model","parts": [{"text": ""}]},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 5,"totalTokenCount": 14,"trafficType": "ON_DEMAND"},"modelVersion": "gemini-3-pro-preview","createTime": "2026-08-21T09:14:03.118204Z","responseId": "q3GmaN2uE6m3nvgP5pC2kAk"}\r\n\r\n'
}
for t in typed_equivalence dialects sse_split; do
  gemini > "corpus/$t/gemini-fast-path.sse"
  vertex > "corpus/$t/vertex-gemini-fast-path.sse"
done
# One chunk per file for the chunk decoder.
for f in ../samples/good/*.sse ../samples/providers/*.sse; do
  grep -m 5 '^data: {' "$f" | while read -r line; do
    printf '%s' "${line#data: }" > "corpus/chunk_decoder/$(basename "$f")-$RANDOM"
  done
done
# Nothing larger than its target's limit.
for t in "${targets[@]}"; do
  limit=$(max_len "$t")
  if find "corpus/$t" -type f -size +"${limit}"c | grep -q .; then
    echo "seed.sh: corpus/$t holds a file over $limit bytes" >&2
    exit 1
  fi
done
