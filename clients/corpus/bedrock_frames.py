#!/usr/bin/env python3
"""Writes the harness's crafted Bedrock streams: clients/corpus/bedrock-converse/*.bin
(ConverseStream) and clients/corpus/bedrock-invoke/*.bin (InvokeModelWithResponseStream
with Claude), AWS event-stream frames built from the shapes the Bedrock API reference and
the shared reference (transports.md §5-6) give. The .bin files are committed; this script
says how each was made, and writes the same bytes again (python3 clients/corpus/bedrock_frames.py).

A frame: total length (u32 BE), headers length (u32 BE), prelude CRC-32 (of the 8
bytes before it), headers (name length u8, name, type 7 = string, value length u16
BE, value), payload, message CRC-32 (of every byte before it). CRC-32 is the IEEE
one (zlib's `crc32`). Standard library only.
"""

import base64
import binascii
import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent


def headers(pairs):
    out = b""
    for name, value in pairs:
        n, v = name.encode(), value.encode()
        out += bytes([len(n)]) + n + b"\x07" + struct.pack(">H", len(v)) + v
    return out


def frame(pairs, payload, bad_prelude=False, bad_message=False):
    """One event-stream message; `bad_prelude` / `bad_message` flip the low
    bit of that CRC."""
    h = headers(pairs)
    total = 16 + len(h) + len(payload)
    prelude = struct.pack(">II", total, len(h))
    pcrc = binascii.crc32(prelude) ^ (1 if bad_prelude else 0)
    body = prelude + struct.pack(">I", pcrc) + h + payload
    mcrc = binascii.crc32(body) ^ (1 if bad_message else 0)
    return body + struct.pack(">I", mcrc)


def event(kind, obj, **bad):
    """An `event` frame of type `kind` with a JSON payload."""
    pairs = [(":event-type", kind), (":content-type", "application/json"), (":message-type", "event")]
    return frame(pairs, json.dumps(obj, separators=(",", ":")).encode(), **bad)


def exception(kind, message, **extra):
    """An `exception` frame (a modeled error, mid-stream)."""
    pairs = [(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")]
    return frame(pairs, json.dumps({"message": message, **extra}, separators=(",", ":")).encode())


def error(code, message):
    """An `error` frame (an unmodeled error): its code and message in headers."""
    return frame([(":error-code", code), (":error-message", message), (":message-type", "error")], b"")


# ConverseStream events, with the `p` padding real streams carry.
def start():
    return event("messageStart", {"role": "assistant", "p": "abcdefgh"})


def text(i, t):
    return event("contentBlockDelta", {"contentBlockIndex": i, "delta": {"text": t}, "p": "abcd"})


def reasoning(i, t):
    return event("contentBlockDelta", {"contentBlockIndex": i, "delta": {"reasoningContent": {"text": t}}, "p": "ab"})


def signature(i):
    return event("contentBlockDelta", {"contentBlockIndex": i, "delta": {"reasoningContent": {"signature": "EqQBCgIYAhIMzLoky3dl1pkiMOYds"}}, "p": "abc"})


def block_stop(i):
    return event("contentBlockStop", {"contentBlockIndex": i, "p": "abcdefg"})


def tool_start(i, tid, name):
    return event("contentBlockStart", {"contentBlockIndex": i, "start": {"toolUse": {"toolUseId": tid, "name": name}}, "p": "abcdef"})


def tool_input(i, s):
    return event("contentBlockDelta", {"contentBlockIndex": i, "delta": {"toolUse": {"input": s}}, "p": "abcdefgh"})


def stop(reason):
    return event("messageStop", {"stopReason": reason, "p": "abcdefghijklm"})


def metadata(inp=21, out=9):
    return event("metadata", {"usage": {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out}, "metrics": {"latencyMs": 830}, "p": "ab"})


ANSWER = [start(), text(0, "Rain falls"), text(0, " when drops grow heavy."), block_stop(0)]
TOOL = [start(), tool_start(0, "tooluse_Q1w2E3r4T5y6U7i8O9p0", "get_weather"), tool_input(0, '{"city":"Os'), tool_input(0, 'lo"}'), block_stop(0)]

CONVERSE = {
    "text.bin": ANSWER + [stop("end_turn"), metadata()],
    "reasoning-then-text.bin": [start(), reasoning(0, "Rain is asked about."), reasoning(0, " Keep it short."), signature(0), block_stop(0), text(1, "Rain falls"), text(1, " when drops grow heavy."), block_stop(1), stop("end_turn"), metadata(30, 22)],
    "tool-use.bin": TOOL + [stop("tool_use"), metadata(40, 18)],
    "text-then-tool-use.bin": [start(), text(0, "Let me check."), block_stop(0), tool_start(1, "tooluse_A1s2D3f4G5h6J7k8L9z0", "get_weather"), tool_input(1, '{"city":"Oslo"}'), block_stop(1), stop("tool_use"), metadata(40, 24)],
    "two-tool-uses.bin": [start(), tool_start(0, "tooluse_one", "get_weather"), tool_input(0, '{"city":"Oslo"}'), block_stop(0), tool_start(1, "tooluse_two", "get_weather"), tool_input(1, '{"city":"Bergen"}'), block_stop(1), stop("tool_use"), metadata(40, 36)],
    "tool-use-empty-input.bin": [start(), tool_start(0, "tooluse_noargs", "get_time"), block_stop(0), stop("tool_use"), metadata(40, 10)],
    "tool-input-not-json.bin": [start(), tool_start(0, "tooluse_bad", "get_weather"), tool_input(0, '{"city":"Os'), block_stop(0), stop("tool_use"), metadata(40, 12)],
    "max-tokens.bin": [start(), text(0, "Rain falls when"), block_stop(0), stop("max_tokens"), metadata(21, 4)],
    "max-tokens-in-tool-input.bin": [start(), tool_start(0, "tooluse_cut", "get_weather"), tool_input(0, '{"city":"Os'), block_stop(0), stop("max_tokens"), metadata(40, 8)],
    "guardrail-intervened.bin": [start(), text(0, "Sorry, I cannot help with that."), block_stop(0), stop("guardrail_intervened"), metadata(21, 8)],
    "no-message-stop.bin": ANSWER + [metadata()],
    "no-metadata.bin": ANSWER + [stop("end_turn")],
    "ends-after-text.bin": [start(), text(0, "Rain falls"), text(0, " when drops")],
    "ends-inside-tool-input.bin": TOOL[:3],
    "metadata-before-message-stop.bin": ANSWER + [metadata(), stop("end_turn")],
    "no-content-block-stop.bin": [start(), text(0, "Rain falls"), text(0, " when drops grow heavy."), stop("end_turn"), metadata()],
    "no-message-start.bin": ANSWER[1:] + [stop("end_turn"), metadata()],
    "unknown-event-type.bin": ANSWER[:2] + [event("citationsDelta", {"contentBlockIndex": 0, "p": "ab"})] + ANSWER[2:] + [stop("end_turn"), metadata()],
    "no-padding-field.bin": [event("messageStart", {"role": "assistant"}), event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Rain falls."}}), event("contentBlockStop", {"contentBlockIndex": 0}), event("messageStop", {"stopReason": "end_turn"}), event("metadata", {"usage": {"inputTokens": 21, "outputTokens": 3, "totalTokens": 24}, "metrics": {"latencyMs": 500}})],
    "throttling-mid-stream.bin": ANSWER[:2] + [exception("throttlingException", "Too many tokens, please wait before trying again.")],
    "model-stream-error.bin": ANSWER[:3] + [exception("modelStreamErrorException", "Model stream error.", originalStatusCode=500, originalMessage="upstream reset")],
    "exception-first.bin": [exception("serviceUnavailableException", "Bedrock is unable to process your request.")],
    "exception-after-metadata.bin": ANSWER + [stop("end_turn"), metadata(), exception("internalServerException", "An internal error occurred.")],
    "error-frame.bin": ANSWER[:2] + [error("InternalFailure", "We encountered an internal error. Please try again.")],
    "bad-message-crc.bin": ANSWER[:2] + [event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": " when drops grow heavy."}, "p": "abcd"}, bad_message=True), block_stop(0), stop("end_turn"), metadata()],
    "bad-prelude-crc.bin": ANSWER[:2] + [event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": " when drops grow heavy."}, "p": "abcd"}, bad_prelude=True), block_stop(0), stop("end_turn"), metadata()],
    "bad-crc-last-frame.bin": ANSWER + [stop("end_turn"), event("metadata", {"usage": {"inputTokens": 21, "outputTokens": 9, "totalTokens": 30}, "metrics": {"latencyMs": 830}}, bad_message=True)],
    "cut-inside-frame.bin": ANSWER[:2] + [text(0, " when drops grow heavy.")[:30]],
    "cut-inside-last-frame.bin": ANSWER + [stop("end_turn"), metadata()[:25]],
    "sse-line-in-body.bin": ANSWER[:2] + [b'data: {"error":"plugin failed"}\n\n'] + ANSWER[2:] + [stop("end_turn"), metadata()],
}


# InvokeModelWithResponseStream: each `chunk` frame's payload is
# {"bytes": base64 of one Anthropic Messages event}; the last event carries
# amazon-bedrock-invocationMetrics.
METRICS = {"inputTokenCount": 19, "outputTokenCount": 14, "invocationLatency": 688, "firstByteLatency": 412}


def chunk(obj, raw=None, **bad):
    data = raw if raw is not None else json.dumps(obj, separators=(",", ":")).encode()
    return event("chunk", {"bytes": base64.b64encode(data).decode(), "p": "abcdefghijkl"}, **bad)


def msg_start(inp=19):
    return chunk({"type": "message_start", "message": {"id": "msg_bdrk_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": inp, "output_tokens": 1}}})


def cb_start(i, block):
    return chunk({"type": "content_block_start", "index": i, "content_block": block})


def cb_delta(i, delta):
    return chunk({"type": "content_block_delta", "index": i, "delta": delta})


def cb_stop(i):
    return chunk({"type": "content_block_stop", "index": i})


def msg_delta(reason, out=14):
    return chunk({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}, "usage": {"output_tokens": out}})


def msg_stop(metrics=True, out=14):
    """`message_stop`, with the invocation metrics (their token counts
    those of the stream's usage: 19 in, `out` out) unless `metrics` is
    false."""
    obj = {"type": "message_stop"}
    if metrics:
        obj["amazon-bedrock-invocationMetrics"] = {**METRICS, "outputTokenCount": out}
    return chunk(obj)


I_TEXT = [msg_start(), cb_start(0, {"type": "text", "text": ""}), cb_delta(0, {"type": "text_delta", "text": "Rain falls"}), cb_delta(0, {"type": "text_delta", "text": " when drops grow heavy."}), cb_stop(0)]
I_TOOL = [msg_start(), cb_start(0, {"type": "tool_use", "id": "toolu_bdrk_01Q2w3E4r5T6y7U8i9O0", "name": "get_weather", "input": {}}), cb_delta(0, {"type": "input_json_delta", "partial_json": '{"city":"Os'}), cb_delta(0, {"type": "input_json_delta", "partial_json": 'lo"}'}), cb_stop(0)]

INVOKE = {
    "text.bin": I_TEXT + [msg_delta("end_turn"), msg_stop()],
    "thinking-then-text.bin": [msg_start(), cb_start(0, {"type": "thinking", "thinking": ""}), cb_delta(0, {"type": "thinking_delta", "thinking": "Rain is asked about."}), cb_delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIMzLoky3dl1pkiMOYds"}), cb_stop(0), cb_start(1, {"type": "text", "text": ""}), cb_delta(1, {"type": "text_delta", "text": "Rain falls."}), cb_stop(1), msg_delta("end_turn", 20), msg_stop(out=20)],
    "tool-use.bin": I_TOOL + [msg_delta("tool_use", 18), msg_stop(out=18)],
    "max-tokens.bin": I_TEXT[:3] + [cb_stop(0), msg_delta("max_tokens", 4), msg_stop(out=4)],
    "no-metrics.bin": I_TEXT + [msg_delta("end_turn"), msg_stop(metrics=False)],
    "no-message-stop.bin": I_TEXT + [msg_delta("end_turn")],
    "ends-after-text.bin": I_TEXT[:3],
    "ends-inside-tool-input.bin": I_TOOL[:3],
    "throttling-mid-stream.bin": I_TEXT[:3] + [exception("throttlingException", "Too many tokens, please wait before trying again.")],
    "model-timeout.bin": I_TEXT[:3] + [exception("modelTimeoutException", "Model has timed out in processing the request.")],
    "model-stream-error.bin": I_TEXT[:3] + [exception("modelStreamErrorException", "Model stream error.", originalStatusCode=500, originalMessage="upstream reset")],
    "error-frame.bin": I_TEXT[:3] + [error("InternalFailure", "We encountered an internal error. Please try again.")],
    "bad-message-crc.bin": I_TEXT[:2] + [chunk({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Rain falls"}}, bad_message=True)] + I_TEXT[3:] + [msg_delta("end_turn"), msg_stop()],
    "bad-prelude-crc.bin": I_TEXT[:2] + [chunk({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Rain falls"}}, bad_prelude=True)] + I_TEXT[3:] + [msg_delta("end_turn"), msg_stop()],
    "cut-inside-frame.bin": I_TEXT[:3] + [I_TEXT[3][:40]],
    "bytes-not-base64.bin": I_TEXT[:2] + [event("chunk", {"bytes": "not base64 at all!", "p": "ab"})] + I_TEXT[2:] + [msg_delta("end_turn"), msg_stop()],
    "bytes-not-json.bin": I_TEXT[:3] + [chunk(None, raw=b"data: {\"type\":\"ping\"}\n\n")] + I_TEXT[3:] + [msg_delta("end_turn"), msg_stop()],
    "ping-event.bin": I_TEXT[:2] + [chunk({"type": "ping"})] + I_TEXT[2:] + [msg_delta("end_turn"), msg_stop()],
    "unknown-event-type.bin": I_TEXT[:2] + [event("trace", {"p": "ab"})] + I_TEXT[2:] + [msg_delta("end_turn"), msg_stop()],
    "converse-events-on-invoke.bin": CONVERSE["text.bin"],
}


def main():
    for folder, streams in (("bedrock-converse", CONVERSE), ("bedrock-invoke", INVOKE)):
        d = HERE / folder
        d.mkdir(exist_ok=True)
        for name, frames in streams.items():
            (d / name).write_bytes(b"".join(frames))


if __name__ == "__main__":
    main()
