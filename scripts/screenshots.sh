#!/usr/bin/env bash
# Writes OUTDIR/NAME.png: the HTML page of each sample below (or of the
# captures given after OUTDIR), as headless Chromium shows it at 1280 px
# wide, so a person can look at the pages without opening them.
#
#   scripts/screenshots.sh                       target/screenshots/*.png
#   scripts/screenshots.sh docs/screenshots      update the checked-in PNGs
#   scripts/screenshots.sh /tmp/shots samples/bad/cut-off.sse
#   HEIGHT=1400 scripts/screenshots.sh           a shorter window
#
# The binary: $SSELINT, else target/release/sselint when built (as the
# README's `cargo build --release` leaves it), else a debug build.
# Needs chromium (apt-get install chromium) or SSELINT_CHROMIUM.
set -euo pipefail
cd "$(dirname "$0")/.."
chrome=${SSELINT_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$chrome" ]; then
    echo "screenshots.sh: no chromium on PATH and SSELINT_CHROMIUM unset" >&2
    exit 2
fi
height=${HEIGHT:-2000}
if [ -n "${SSELINT:-}" ]; then
    bin=$SSELINT
elif [ -x target/release/sselint ]; then
    bin=target/release/sselint
else
    cargo build --quiet
    bin=target/debug/sselint
fi
out=${1:-target/screenshots}
[ $# -gt 0 ] && shift
echo "screenshots.sh: $bin → $out/" >&2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shoot() { # name page.html
    "$chrome" --headless --disable-gpu --no-sandbox --no-first-run --hide-scrollbars \
        --user-data-dir="$tmp/profile" --virtual-time-budget=2000 \
        --window-size=1280,"${height}" --screenshot="$out/$1.png" "file://$2" 2>/dev/null
    echo "$out/$1.png"
}
if [ $# -gt 0 ]; then
    inputs=("$@")
else
    inputs=(
        samples/har/chrome.har
        samples/bad/content-after-finish.sse
        samples/good/openai-tool-calls.sse
        samples/bad/messages-delta-type.sse
        samples/curl/curl-trace.txt
    )
fi
for i in "${inputs[@]}"; do
    name=$(basename "$i"); name=${name%.*}
    "$bin" inspect "$i" --format html -o "$tmp/$name.html"
    shoot "$name" "$tmp/$name.html"
done
if [ $# -eq 0 ]; then
    # The README's picture (checked in; keep it under 300 KB): a shorter
    # window on a page with a timeline.
    "$bin" inspect samples/har/chrome.har --format html -o "$tmp/readme.html"
    height=1150 shoot readme "$tmp/readme.html"
    # check over several inputs: the index of streams.
    "$bin" check samples/good/openai-basic.sse samples/bad/cut-off.sse samples/har/firefox.har \
        samples/providers/messages-anthropic-tools.sse --format html -o "$tmp/check.html" || true
    shoot check "$tmp/check.html"
    # diff: two timed captures on one time axis, and two answers with tool
    # calls that differ.
    "$bin" diff samples/har/chrome.har samples/curl/curl-trace.txt --format html -o "$tmp/diff.html" || true
    height=1400 shoot diff "$tmp/diff.html"
    "$bin" diff samples/good/openai-tool-calls.sse samples/providers/gemini.sse --format html \
        -o "$tmp/diff-tools.html" || true
    height=1600 shoot diff-tools "$tmp/diff-tools.html"
fi
