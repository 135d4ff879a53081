#!/usr/bin/env bash
# Writes link/order.txt: the functions `sselint check` runs, in the order
# a run first reaches them, for LLD's --symbol-ordering-file (build.rs
# passes it on release builds; docs/performance.md, "Link order").
#
# usage: scripts/link-order.sh
# Needs valgrind (callgrind) and nm. Run it again after a toolchain update
# or a large change: names the file no longer matches only lose their
# place (LLD skips them), and the binary's peak RSS creeps back up.
set -euo pipefail
cd "$(dirname "$0")/.."
# The binary alone, as `cargo build --release` builds it: building an
# example with it unifies the dev-dependencies' features into the
# dependencies, which renames every generic function the file lists.
[ "${SKIP_BUILD:-}" = 1 ] || cargo build --release --quiet --bin sselint
bin=target/release/sselint
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# About 1 MB of ordinary Chat chunks, plain and with tool calls.
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def chunk(delta, finish=None):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
         "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(c) + "\n\n"
with open(f"{w}/plain.sse", "w") as f:
    f.write(chunk({"role": "assistant", "content": ""}))
    for i in range(5000):
        f.write(chunk({"content": f" word{i}"}))
    f.write(chunk({}, "stop") + "data: [DONE]\n\n")
with open(f"{w}/tools.sse", "w") as f:
    f.write(chunk({"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}]}))
    f.write(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": "'}}]}))
    for i in range(5000):
        f.write(chunk({"tool_calls": [{"index": 0, "function": {"arguments": f"x{i} "}}]}))
    f.write(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
    f.write(chunk({}, "tool_calls") + "data: [DONE]\n\n")
# Long streams of the other dialects (as gen_capture writes them, about
# 1 MB each): each dialect's fast path and its end, whose pages a long
# capture's `check` holds (docs/performance.md, "`check` in 8 MiB").
words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]
def ev(name, d):
    return f"event: {name}\ndata: {json.dumps(d, separators=(',', ':'))}\n\n"
with open(f"{w}/responses.sse", "w") as f:
    resp = {"id": "resp_1", "object": "response", "created_at": 1700000000, "status": "in_progress",
            "model": "gpt-4.1-mini", "output": [], "usage": None}
    seq = 0
    def put(name, d):
        global seq
        f.write(ev(name, {"type": name, "sequence_number": seq, **d}))
        seq += 1
    put("response.created", {"response": resp})
    put("response.in_progress", {"response": resp})
    items = []
    for n in range(4):
        mid = f"msg_{n}"
        put("response.output_item.added", {"output_index": n, "item": {"id": mid, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}})
        put("response.content_part.added", {"item_id": mid, "output_index": n, "content_index": 0, "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}})
        text = ""
        for i in range(1000):
            d = words[i % 10]
            text += d
            put("response.output_text.delta", {"item_id": mid, "output_index": n, "content_index": 0, "delta": d, "logprobs": []})
        put("response.output_text.done", {"item_id": mid, "output_index": n, "content_index": 0, "text": text, "logprobs": []})
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        put("response.content_part.done", {"item_id": mid, "output_index": n, "content_index": 0, "part": part})
        item = {"id": mid, "type": "message", "status": "completed", "content": [part], "role": "assistant"}
        put("response.output_item.done", {"output_index": n, "item": item})
        items.append(item)
    usage = {"input_tokens": 25, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 4000,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 4025}
    put("response.completed", {"response": {**resp, "status": "completed", "output": items, "usage": usage}})
with open(f"{w}/messages.sse", "w") as f:
    f.write(ev("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 25, "output_tokens": 1}}}))
    for n in range(8):
        f.write(ev("content_block_start", {"type": "content_block_start", "index": n, "content_block": {"type": "text", "text": ""}}))
        for i in range(1000):
            f.write(ev("content_block_delta", {"type": "content_block_delta", "index": n, "delta": {"type": "text_delta", "text": words[i % 10]}}))
        f.write(ev("content_block_stop", {"type": "content_block_stop", "index": n}))
    f.write(ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 8000}}))
    f.write(ev("message_stop", {"type": "message_stop"}))
with open(f"{w}/gemini.sse", "w") as f:
    for i in range(5000):
        c = {"candidates": [{"content": {"parts": [{"text": words[i % 10]}], "role": "model"}, "index": 0}],
             "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}
        if i == 4999:
            c["candidates"][0]["finishReason"] = "STOP"
            c["usageMetadata"] = {"promptTokenCount": 9, "candidatesTokenCount": 5000, "totalTokenCount": 5009}
        f.write("data: " + json.dumps(c) + "\n\n")
PY
# The runs to learn from: Chat first (its RSS is the goal), then the
# other dialects, the human format, and a clean and a faulty capture.
runs=(
  "check $work/plain.sse --format json --fail-on never"
  "check $work/tools.sse --format json --fail-on never"
  "check samples/good/openai-basic.sse --fail-on never"
  "check samples/bad/tool-call-arguments.sse --format json --fail-on never"
  "check samples/bad/cut-off.sse --fail-on never"
  "check $work/responses.sse --format json --fail-on never"
  "check $work/messages.sse --format json --fail-on never"
  "check $work/gemini.sse --format json --fail-on never"
  "check samples/good/responses-basic.sse --format json --fail-on never"
  "check samples/good/messages-basic.sse --format json --fail-on never"
  "check samples/good/gemini-basic.sse --format json --fail-on never"
)
i=0
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086 # the run's words
  valgrind --tool=callgrind --demangle=no --dump-instr=no \
    --callgrind-out-file="$work/cg.$i" "$bin" $r > /dev/null 2> "$work/vg.$i" ||
    { cat "$work/vg.$i" >&2; exit 1; }
  i=$((i + 1))
done
nm "$bin" | awk 'NF == 3 && ($2 == "t" || $2 == "T") { print $3 }' > "$work/syms"
python3 - "$work" > link/order.txt <<'PY'
import glob, re, sys
work = sys.argv[1]
syms = set(open(f"{work}/syms").read().split())
seen, out = set(), []
for f in sorted(glob.glob(f"{work}/cg.*"), key=lambda p: int(p.rsplit(".", 1)[1])):
    for line in open(f, encoding="utf-8", errors="replace"):
        m = re.match(r"c?fn=\(\d+\) (\S+)", line)
        if not m:
            continue
        name = re.sub(r"'\d+$", "", m.group(1))
        if name in syms and name not in seen:
            seen.add(name)
            out.append(name)
print("# Written by scripts/link-order.sh: the functions `sselint check` runs,")
print("# for LLD's --symbol-ordering-file (see build.rs). Do not edit.")
print("\n".join(out))
PY
echo "link/order.txt: $(grep -vc '^#' link/order.txt) functions" >&2
