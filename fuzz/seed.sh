#!/usr/bin/env bash
# Seeds each fuzz target's corpus from the shipped samples and test cases.
set -euo pipefail
cd "$(dirname "$0")"
for t in sse_split curl_reader har_reader chunk_decoder check_pipeline redact typed_equivalence; do
  mkdir -p "corpus/$t"
done
for f in ../samples/*/*.sse ../tests/cases/*.sse; do
  cp "$f" corpus/sse_split/
  cp "$f" corpus/check_pipeline/
  cp "$f" corpus/typed_equivalence/
done
cp ../samples/curl/* ../samples/bad/*.txt corpus/curl_reader/
cp ../samples/curl/* corpus/check_pipeline/
cp ../samples/har/*.har corpus/har_reader/
cp ../samples/har/*.har corpus/check_pipeline/
cp ../samples/har/*.har ../samples/good/*.sse corpus/redact/
# One chunk per file for the chunk decoder.
i=0
for f in ../samples/good/*.sse ../samples/providers/*.sse; do
  grep '^data: {' "$f" | head -5 | while read -r line; do
    i=$((i + 1))
    printf '%s' "${line#data: }" > "corpus/chunk_decoder/$(basename "$f")-$RANDOM"
  done
done
