#!/usr/bin/env python3
"""Writes the Bedrock InvokeModelWithResponseStream samples of models other
than Claude, samples/good/bedrock-invoke-{titan,llama,mistral,nova}.bin:
each `chunk` frame's `bytes` is one event of the model's own streaming API,
as the Bedrock user guide's model pages give it, and the last also carries
`amazon-bedrock-invocationMetrics`. Run from the repository root:

    python3 scripts/invoke_models.py
"""

import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from probe_fixtures import event_frame, write_bytes  # noqa: E402

OUT = os.path.join("samples", "good")
PIECES = ["Rain forms", " when water vapour", " cools and condenses", " into droplets."]


def metrics(inp, out):
    return {"inputTokenCount": inp, "outputTokenCount": out,
            "invocationLatency": 812, "firstByteLatency": 305}


def invoke(events):
    """Each event as a `chunk` frame, base64 in `bytes`, with padding."""
    frames = []
    for i, o in enumerate(events):
        raw = json.dumps(o, separators=(",", ":")).encode()
        frames.append(event_frame("chunk", {"bytes": base64.b64encode(raw).decode()}, i))
    return b"".join(frames)


def titan():
    """Amazon Titan Text: `outputText` pieces, `completionReason` null until
    the last, the counts on every chunk."""
    ev = []
    for i, p in enumerate(PIECES):
        last = i == len(PIECES) - 1
        ev.append({"outputText": p, "index": 0, "totalOutputTextTokenCount": 3 * (i + 1),
                   "completionReason": "FINISH" if last else None, "inputTextTokenCount": 11})
    ev[-1]["amazon-bedrock-invocationMetrics"] = metrics(11, 12)
    return invoke(ev)


def llama():
    """Meta Llama: `generation` pieces, `prompt_token_count` on the first
    chunk, `generation_token_count` counting up, `stop_reason` on the last."""
    ev = []
    for i, p in enumerate(PIECES):
        ev.append({"generation": p, "prompt_token_count": 18 if i == 0 else None,
                   "generation_token_count": 3 * (i + 1), "stop_reason": None})
    ev.append({"generation": "", "prompt_token_count": None, "generation_token_count": 13,
               "stop_reason": "stop", "amazon-bedrock-invocationMetrics": metrics(18, 13)})
    return invoke(ev)


def mistral():
    """Mistral AI text completion: `outputs[0].text`, `stop_reason` on the last."""
    ev = [{"outputs": [{"text": p, "stop_reason": None}]} for p in PIECES]
    ev.append({"outputs": [{"text": "", "stop_reason": "stop"}],
               "amazon-bedrock-invocationMetrics": metrics(21, 14)})
    return invoke(ev)


def nova():
    """Amazon Nova: ConverseStream's events, one key each, inside the bytes."""
    ev = [{"messageStart": {"role": "assistant"}}]
    ev += [{"contentBlockDelta": {"delta": {"text": p}, "contentBlockIndex": 0}} for p in PIECES]
    ev.append({"contentBlockStop": {"contentBlockIndex": 0}})
    ev.append({"messageStop": {"stopReason": "end_turn"}})
    ev.append({"metadata": {"usage": {"inputTokens": 9, "outputTokens": 14},
                            "metrics": {}, "trace": {}},
               "amazon-bedrock-invocationMetrics": metrics(9, 14)})
    return invoke(ev)


if __name__ == "__main__":
    for name, build in [("titan", titan), ("llama", llama), ("mistral", mistral), ("nova", nova)]:
        write_bytes(os.path.join(OUT, f"bedrock-invoke-{name}.bin"), build())
