#!/usr/bin/env python3
"""Writes sessions of OpenAI's Realtime API (shared reference
transports.md §2, the GA and beta type trees of openai-python's
`types/realtime/` and `types/beta/realtime/`) from the documented shapes,
as sselint's message log or as a Chrome HAR entry (`scripts/ws_session.py`
writes both forms).

    scripts/realtime_session.py log KIND    # a message log on stdout
    scripts/realtime_session.py har KIND    # a Chrome HAR on stdout
    scripts/realtime_session.py relay-log KIND  # the server's events as a
                                            # relay's server-sent events, in
                                            # a HAR entry (no socket)

KIND names one of the sessions in SESSIONS. Ids, times and audio are made
up; the audio is a few samples of silence.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ws_session  # noqa: E402

MODEL = "gpt-realtime"
URL = "wss://api.openai.com/v1/realtime?model=" + MODEL
# 20 ms of 24 kHz 16-bit silence per delta.
AUDIO = base64.b64encode(bytes(960)).decode()


class Ids:
    def __init__(self):
        self.n = 0

    def event(self):
        self.n += 1
        return "event_%04d" % self.n


def session_obj(beta=False):
    if beta:
        return {"id": "sess_001", "object": "realtime.session", "model": MODEL, "modalities": ["text"],
                "instructions": "", "voice": "alloy", "input_audio_format": "pcm16",
                "output_audio_format": "pcm16", "input_audio_transcription": None,
                "turn_detection": None, "tools": [], "tool_choice": "auto", "temperature": 0.8,
                "max_response_output_tokens": "inf"}
    return {"type": "realtime", "object": "realtime.session", "id": "sess_001", "model": MODEL,
            "output_modalities": ["text"], "instructions": "", "tools": [], "tool_choice": "auto",
            "max_output_tokens": "inf", "tracing": None, "prompt": None, "expires_at": 1798003600,
            "audio": {"input": {"format": {"type": "audio/pcm", "rate": 24000}, "transcription": None,
                                "noise_reduction": None, "turn_detection": None},
                      "output": {"format": {"type": "audio/pcm", "rate": 24000}, "voice": "marin", "speed": 1.0}},
            "include": None}


def response_obj(rid, status, output=(), usage=None, details=None, modalities=("text",)):
    return {"object": "realtime.response", "id": rid, "status": status, "status_details": details,
            "output": list(output), "conversation_id": "conv_001", "output_modalities": list(modalities),
            "max_output_tokens": "inf", "usage": usage, "metadata": None}


def usage(inp, out):
    return {"total_tokens": inp + out, "input_tokens": inp, "output_tokens": out,
            "input_token_details": {"text_tokens": inp, "audio_tokens": 0, "cached_tokens": 0,
                                    "cached_tokens_details": {"text_tokens": 0, "audio_tokens": 0}},
            "output_token_details": {"text_tokens": out, "audio_tokens": 0}}


RATE_LIMITS = [{"name": "requests", "limit": 1000, "remaining": 999, "reset_seconds": 0.06},
               {"name": "tokens", "limit": 50000, "remaining": 49750, "reset_seconds": 0.3}]


def opening(ids, beta=False, instructions="Answer in one short sentence.", tools=False):
    """session.created, the client's session.update and its answer."""
    update = {"type": "session.update", "session": {"instructions": instructions}}
    if beta:
        update["session"]["modalities"] = ["text"]
    else:
        update["session"].update({"type": "realtime", "output_modalities": ["text"]})
    if tools:
        update["session"]["tools"] = [{"type": "function", "name": "get_weather",
                                       "description": "The weather in a city",
                                       "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                      "required": ["city"]}}]
    updated = dict(session_obj(beta), instructions=instructions)
    if tools:
        updated["tools"] = update["session"]["tools"]
    return [("receive", {"type": "session.created", "event_id": ids.event(), "session": session_obj(beta)}),
            ("send", update),
            ("receive", {"type": "session.updated", "event_id": ids.event(), "session": updated})]


def user_turn(ids, item_id, text, prev=None, beta=False):
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    full = dict(item, id=item_id, object="realtime.item", status="completed")
    out = [("send", {"type": "conversation.item.create", "item": item})]
    if beta:
        out.append(("receive", {"type": "conversation.item.created", "event_id": ids.event(),
                                "previous_item_id": prev, "item": full}))
    else:
        out += [("receive", {"type": "conversation.item.added", "event_id": ids.event(), "previous_item_id": prev, "item": full}),
                ("receive", {"type": "conversation.item.done", "event_id": ids.event(), "previous_item_id": prev, "item": full})]
    return out


def function_output(ids, item_id, call_id, output, prev):
    item = {"type": "function_call_output", "call_id": call_id, "output": output}
    full = dict(item, id=item_id, object="realtime.item", status="completed")
    return [("send", {"type": "conversation.item.create", "item": item}),
            ("receive", {"type": "conversation.item.added", "event_id": ids.event(), "previous_item_id": prev, "item": full}),
            ("receive", {"type": "conversation.item.done", "event_id": ids.event(), "previous_item_id": prev, "item": full})]


def text_response(ids, rid, item_id, parts, beta=False, status="completed", details=None,
                  done_text=None, use=(24, 9), usage_obj=None, cut=None, prev=None):
    """A response with one text item; `cut` keeps that many messages."""
    text = "".join(parts)
    ev = lambda ty, **kw: dict({"type": ty, "event_id": ids.event()}, **kw)  # noqa: E731
    delta_ty = "response.text.delta" if beta else "response.output_text.delta"
    done_ty = "response.text.done" if beta else "response.output_text.done"
    item = {"id": item_id, "type": "message", "object": "realtime.item", "status": "in_progress",
            "role": "assistant", "content": []}
    content_ty = "text" if beta else "output_text"
    done_item = dict(item, status="completed" if status == "completed" else "incomplete",
                     content=[{"type": content_ty, "text": text}])
    at = dict(response_id=rid, item_id=item_id, output_index=0, content_index=0)
    msgs = [("receive", ev("response.created", response=response_obj(rid, "in_progress"))),
            ("receive", ev("rate_limits.updated", rate_limits=RATE_LIMITS)),
            ("receive", ev("response.output_item.added", response_id=rid, output_index=0, item=item))]
    if beta:
        msgs.append(("receive", ev("conversation.item.created", previous_item_id=prev, item=item)))
    else:
        msgs.append(("receive", ev("conversation.item.added", previous_item_id=prev, item=item)))
    msgs.append(("receive", ev("response.content_part.added", **at, part={"type": "text", "text": ""})))
    for p in parts:
        msgs.append(("receive", ev(delta_ty, **at, delta=p)))
    whole = text if done_text is None else done_text
    msgs += [("receive", ev(done_ty, **at, text=whole)),
             ("receive", ev("response.content_part.done", **at, part={"type": "text", "text": whole})),
             ("receive", ev("response.output_item.done", response_id=rid, output_index=0, item=done_item))]
    if not beta:
        msgs.append(("receive", ev("conversation.item.done", previous_item_id=prev, item=done_item)))
    u = usage_obj if usage_obj is not None else (usage(*use) if use else None)
    msgs.append(("receive", ev("response.done", response=response_obj(rid, status, [done_item], u, details))))
    return msgs[:cut] if cut is not None else msgs


def call_response(ids, rid, item_id, call_id, name, parts, done_args=None, prev=None):
    args = "".join(parts)
    ev = lambda ty, **kw: dict({"type": ty, "event_id": ids.event()}, **kw)  # noqa: E731
    item = {"id": item_id, "type": "function_call", "object": "realtime.item", "status": "in_progress",
            "call_id": call_id, "name": name, "arguments": ""}
    whole = args if done_args is None else done_args
    done_item = dict(item, status="completed", arguments=whole)
    at = dict(response_id=rid, item_id=item_id, output_index=0, call_id=call_id)
    msgs = [("receive", ev("response.created", response=response_obj(rid, "in_progress"))),
            ("receive", ev("rate_limits.updated", rate_limits=RATE_LIMITS)),
            ("receive", ev("response.output_item.added", response_id=rid, output_index=0, item=item)),
            ("receive", ev("conversation.item.added", previous_item_id=prev, item=item))]
    for p in parts:
        msgs.append(("receive", ev("response.function_call_arguments.delta", **at, delta=p)))
    msgs += [("receive", ev("response.function_call_arguments.done", **at, name=name, arguments=whole)),
             ("receive", ev("response.output_item.done", response_id=rid, output_index=0, item=done_item)),
             ("receive", ev("conversation.item.done", previous_item_id=prev, item=done_item)),
             ("receive", ev("response.done", response=response_obj(rid, "completed", [done_item], usage(61, 17))))]
    return msgs


def audio_response(ids, rid, item_id, parts, audio=(AUDIO, AUDIO, AUDIO), beta=False):
    """An audio answer: audio deltas and the transcript's deltas."""
    ev = lambda ty, **kw: dict({"type": ty, "event_id": ids.event()}, **kw)  # noqa: E731
    pre = "response.audio" if beta else "response.output_audio"
    tr = "response.audio_transcript" if beta else "response.output_audio_transcript"
    text = "".join(parts)
    item = {"id": item_id, "type": "message", "object": "realtime.item", "status": "in_progress",
            "role": "assistant", "content": []}
    done_item = dict(item, status="completed", content=[{"type": "audio" if beta else "output_audio", "transcript": text}])
    at = dict(response_id=rid, item_id=item_id, output_index=0, content_index=0)
    msgs = [("receive", ev("response.created", response=response_obj(rid, "in_progress", modalities=("audio",)))),
            ("receive", ev("response.output_item.added", response_id=rid, output_index=0, item=item)),
            ("receive", ev("response.content_part.added", **at, part={"type": "audio", "transcript": ""}))]
    for i, a in enumerate(audio):
        msgs.append(("receive", ev(pre + ".delta", **at, delta=a)))
        if i < len(parts):
            msgs.append(("receive", ev(tr + ".delta", **at, delta=parts[i])))
    msgs += [("receive", ev(pre + ".done", **at)),
             ("receive", ev(tr + ".done", **at, transcript=text)),
             ("receive", ev("response.content_part.done", **at, part={"type": "audio", "transcript": text})),
             ("receive", ev("response.output_item.done", response_id=rid, output_index=0, item=done_item)),
             ("receive", ev("response.done", response=response_obj(rid, "completed", [done_item], usage(30, 42), modalities=("audio",))))]
    return msgs


CREATE = ("send", {"type": "response.create", "response": {"output_modalities": ["text"]}})
BETA_CREATE = ("send", {"type": "response.create", "response": {"modalities": ["text"]}})
QUESTION = "What is the capital of France?"
ANSWER = ["The capital", " of France", " is Paris."]


def text_session(beta=False, **kw):
    ids = Ids()
    return (opening(ids, beta) + user_turn(ids, "item_u1", QUESTION, beta=beta)
            + [BETA_CREATE if beta else CREATE]
            + text_response(ids, "resp_001", "item_a1", ANSWER, beta=beta, prev="item_u1", **kw))


def function_call_session():
    ids = Ids()
    out = opening(ids, tools=True) + user_turn(ids, "item_u1", "What is the weather in Paris?") + [CREATE]
    out += call_response(ids, "resp_001", "item_f1", "call_001", "get_weather", ['{"city"', ':"Paris"}'], prev="item_u1")
    out += function_output(ids, "item_o1", "call_001", '{"temp_c":18,"sky":"sunny"}', "item_f1") + [CREATE]
    out += text_response(ids, "resp_002", "item_a2", ["It is 18 °C", " and sunny", " in Paris."], use=(88, 12), prev="item_o1")
    return out


def cut_session():
    """The socket closes (1006) inside the response."""
    return text_session(cut=7) + [ws_session.close(1006)]


def error_session():
    """An `error` inside the running response, then it ends failed."""
    ids = Ids()
    out = opening(ids) + user_turn(ids, "item_u1", QUESTION) + [CREATE]
    resp = text_response(ids, "resp_001", "item_a1", ANSWER, prev="item_u1", status="failed",
                         details={"type": "failed", "error": {"type": "server_error", "code": "server_error"}},
                         use=None)
    err = ("receive", {"type": "error", "event_id": ids.event(),
                       "error": {"type": "server_error", "code": "server_error",
                                 "message": "The server had an error while processing your request.",
                                 "param": None, "event_id": None}})
    return out + resp[:6] + [err, resp[-1]]


def busy_session():
    """A second `response.create` while the response runs: the server
    refuses it with an `error` (one response at a time) and the running
    response ends as it would have."""
    ids = Ids()
    out = opening(ids) + user_turn(ids, "item_u1", QUESTION) + [CREATE]
    resp = text_response(ids, "resp_001", "item_a1", ANSWER, prev="item_u1")
    err = ("receive", {"type": "error", "event_id": ids.event(),
                       "error": {"type": "invalid_request_error",
                                 "code": "conversation_already_has_active_response",
                                 "message": "Conversation already has an active response in progress.",
                                 "param": None, "event_id": None}})
    return out + resp[:6] + [CREATE, err] + resp[6:]


def unparseable_session():
    out = text_session()
    return out[:9] + [("receive", "{\"type\":\"response.output_text.delta\",")] + out[9:]


def audio_session(bad_audio=False, beta=False):
    ids = Ids()
    audio = (AUDIO, "not base64!", AUDIO) if bad_audio else (AUDIO, AUDIO, AUDIO)
    create = ("send", {"type": "response.create", "response": {"output_modalities": ["audio"]}})
    return (opening(ids) + user_turn(ids, "item_u1", QUESTION) + [create]
            + audio_response(ids, "resp_001", "item_a1", ANSWER, audio=audio, beta=beta))


SESSIONS = {
    "text": text_session,
    "text-beta": lambda: text_session(beta=True),
    "function-call": function_call_session,
    "cut": cut_session,
    "error": error_session,
    "unparseable": unparseable_session,
    "busy": busy_session,
    "audio": audio_session,
    "audio-bad": lambda: audio_session(bad_audio=True),
    "audio-beta": lambda: audio_session(beta=True),
    "incomplete": lambda: text_session(status="incomplete", details={"type": "incomplete", "reason": "max_output_tokens"}),
    "delta-mismatch": lambda: text_session(done_text="The capital of France is Lyon."),
    "no-usage": lambda: text_session(use=None),
    "usage-sum": lambda: text_session(usage_obj=dict(usage(24, 9), total_tokens=40)),
    "mixed-names": lambda: mixed_names(),
    "bad-args": lambda: bad_args(),
    "bad-rate-limits": lambda: bad_rate_limits(),
}


def mixed_names():
    """A GA session whose text deltas come in the beta name (a relay that
    rewrote half the names)."""
    out = text_session()
    first = next(i for i, m in enumerate(out) if m[0] == "receive" and isinstance(m[1], dict)
                 and m[1]["type"] == "response.output_text.delta")
    out[first] = ("receive", dict(out[first][1], type="response.text.delta"))
    return out


def bad_args():
    ids = Ids()
    out = opening(ids, tools=True) + user_turn(ids, "item_u1", "What is the weather in Paris?") + [CREATE]
    return out + call_response(ids, "resp_001", "item_f1", "call_001", "get_weather", ['{"city"', ':"Paris"'], prev="item_u1")


def bad_rate_limits():
    out = text_session()
    i = next(i for i, m in enumerate(out) if isinstance(m[1], dict) and m[1]["type"] == "rate_limits.updated")
    out[i] = ("receive", dict(out[i][1], rate_limits=[{"name": "tokens", "limit": 50000, "remaining": 60000, "reset_seconds": 0.3}]))
    return out


def relay_log_har(kind):
    """The server's events of session `kind` as a relay passes them on to a
    browser over HTTP, one server-sent event each (no socket around them)."""
    text = "".join("data: " + json.dumps(m[1], separators=(",", ":"), ensure_ascii=False) + "\n\n"
                   for m in SESSIONS[kind]() if m[0] == "receive" and isinstance(m[1], dict))
    entry = {
        "startedDateTime": "2026-12-07T10:00:00.000Z", "time": 1.2,
        "request": {"method": "GET", "url": "https://relay.example/v1/realtime?model=gpt-realtime",
                    "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [],
                    "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "text/event-stream"}], "cookies": [],
                     "content": {"size": len(text.encode()), "mimeType": "text/event-stream", "text": text},
                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 1}}
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                    "pages": [], "entries": [entry]}}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "log":
        sys.stdout.write(ws_session.log(SESSIONS[sys.argv[2]]()))
    elif len(sys.argv) == 3 and sys.argv[1] == "relay-log":
        sys.stdout.write(json.dumps(relay_log_har(sys.argv[2]), indent=2, ensure_ascii=False) + "\n")
    elif len(sys.argv) == 3 and sys.argv[1] == "har":
        sys.stdout.write(json.dumps(ws_session.har(SESSIONS[sys.argv[2]](), url=URL), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.exit(__doc__)
