"""The Python clients of the harness (see clients/README.md).

Reads a job list (JSON: [{id, base_url, origin, tools, clients}]) from the
file named in argv[1], runs each of the job's clients that is a Python one
against `sselint replay`, and prints one JSON object:
{job id: {client name: outcome}}.

An outcome is what an application using that client ends up with:
{text, refusal, tool_calls: [{id, name, arguments}], finish_reason, usage},
or {error: {type, message}} when the client raised (message: first line).
finish_reason is the dialect's own: Chat's finish_reason, the Responses
status, the Messages stop_reason; usage keeps the dialect's token names.
Each client is used the way its documentation shows.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")

import openai  # noqa: E402
from sdk_common import MESSAGES, TIMEOUT_S, failure  # noqa: E402

MODEL = "gpt-4o-mini"


def client(base_url):
    return openai.OpenAI(api_key="sk-harness", base_url=base_url, max_retries=0, timeout=TIMEOUT_S)


def usage_dict(u):
    if u is None:
        return None
    return {
        "prompt_tokens": getattr(u, "prompt_tokens", None),
        "completion_tokens": getattr(u, "completion_tokens", None),
        "total_tokens": getattr(u, "total_tokens", None),
    }


def openai_python_raw(job):
    """Raw iteration of `chat.completions.create(stream=True)`: the loop of
    the SDK's README and of OpenAI's function-calling guide (a call is stored
    on its first fragment, later fragments append their arguments)."""
    stream = client(job["base_url"]).chat.completions.create(
        model=MODEL, messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    text, refusal, finish, usage = "", None, None, None
    calls = {}
    for chunk in stream:
        if chunk.usage is not None:
            usage = usage_dict(chunk.usage)
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if delta is not None:
            text += delta.content or ""
            if delta.refusal:
                refusal = (refusal or "") + delta.refusal
            for tc in delta.tool_calls or []:
                fn = tc.function
                if tc.index not in calls:
                    calls[tc.index] = {
                        "id": tc.id,
                        "name": fn.name if fn else None,
                        "arguments": (fn.arguments if fn else None) or "",
                    }
                else:
                    calls[tc.index]["arguments"] += (fn.arguments if fn else None) or ""
        if choice.finish_reason:
            finish = choice.finish_reason
    return {
        "text": text,
        "refusal": refusal,
        "tool_calls": [calls[k] for k in sorted(calls)],
        "finish_reason": finish,
        "usage": usage,
    }


def openai_python_stream(job):
    """The helper: `chat.completions.stream()` and `get_final_completion()`."""
    with client(job["base_url"]).chat.completions.stream(
        model=MODEL, messages=MESSAGES, stream_options={"include_usage": True}
    ) as stream:
        for _ in stream:
            pass
        done = stream.get_final_completion()
    choice = done.choices[0] if done.choices else None
    msg = choice.message if choice else None
    return {
        "text": (msg.content if msg else None) or "",
        "refusal": msg.refusal if msg else None,
        "tool_calls": [
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
            for c in ((msg.tool_calls if msg else None) or [])
        ],
        "finish_reason": choice.finish_reason if choice else None,
        "usage": usage_dict(done.usage),
    }


def langchain(job):
    """LangChain's `ChatOpenAI.stream`, chunks added up as its docs show."""
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        model=MODEL,
        base_url=job["base_url"],
        api_key="sk-harness",
        max_retries=0,
        timeout=TIMEOUT_S,
        stream_usage=True,
    )
    total = None
    for chunk in llm.stream("hi"):
        total = chunk if total is None else total + chunk
    if total is None:
        return {"text": "", "refusal": None, "tool_calls": [], "finish_reason": None, "usage": None}
    content = total.content
    if isinstance(content, list):
        content = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    meta = total.response_metadata or {}
    um = total.usage_metadata
    return {
        "text": content,
        "refusal": total.additional_kwargs.get("refusal"),
        "tool_calls": [
            {"id": c.get("id"), "name": c.get("name"), "arguments": json.dumps(c.get("args"))}
            for c in total.tool_calls
        ]
        + [
            {"id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")}
            for c in total.invalid_tool_calls
        ],
        "finish_reason": meta.get("finish_reason"),
        "usage": {
            "prompt_tokens": um.get("input_tokens"),
            "completion_tokens": um.get("output_tokens"),
            "total_tokens": um.get("total_tokens"),
        }
        if um
        else None,
    }


def langchain_tools(job):
    """The tools the stream calls, declared as a request that got tool calls
    would have (OpenAI's function format, which both LangChain chat models
    take), so the model is bound as an application with tools binds it."""
    return [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in job.get("tools") or []
        if n
    ]


def langchain_total(llm):
    """`llm.stream("hi")`, chunks added up with `+` as LangChain's docs show."""
    total = None
    for chunk in llm.stream("hi"):
        total = chunk if total is None else total + chunk
    return total


def langchain_tool_calls(total):
    return [
        {"id": c.get("id"), "name": c.get("name"), "arguments": json.dumps(c.get("args"))}
        for c in total.tool_calls
    ] + [{"id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")} for c in total.invalid_tool_calls]


def langchain_blocks(content, kind, key):
    """The `key` of the content blocks of type `kind`. A string is text,
    whether it is the whole content or an item of the list (adding a chunk
    of string content to one of blocks puts the string in the list)."""
    if isinstance(content, str):
        return content if kind == "text" else ""
    out = ""
    for p in content or []:
        if isinstance(p, str):
            out += p if kind == "text" else ""
        elif isinstance(p, dict) and p.get("type") == kind:
            out += p.get(key) or ""
    return out


def langchain_responses(job):
    """LangChain's `ChatOpenAI(use_responses_api=True).stream()`, chunks added
    up: text from the message's text blocks, refusal from its refusal
    blocks, `tool_calls` (and `invalid_tool_calls`), the status and usage
    that `response_metadata` and `usage_metadata` give."""
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        model=MODEL,
        base_url=job["base_url"],
        api_key="sk-harness",
        max_retries=0,
        timeout=TIMEOUT_S,
        use_responses_api=True,
    )
    tools = langchain_tools(job)
    total = langchain_total(llm.bind_tools(tools) if tools else llm)
    if total is None:
        return {"text": "", "refusal": None, "tool_calls": [], "finish_reason": None, "usage": None}
    um = total.usage_metadata
    return {
        "text": langchain_blocks(total.content, "text", "text"),
        "refusal": langchain_blocks(total.content, "refusal", "refusal") or None,
        "tool_calls": langchain_tool_calls(total),
        "finish_reason": (total.response_metadata or {}).get("status"),
        "usage": {
            "input_tokens": um.get("input_tokens"),
            "output_tokens": um.get("output_tokens"),
            "total_tokens": um.get("total_tokens"),
        }
        if um
        else None,
    }


def langchain_messages(job):
    """LangChain's `ChatAnthropic.stream()`, chunks added up: text from the
    text blocks, `tool_calls` (and `invalid_tool_calls`), `stop_reason` from
    `response_metadata`, usage from `usage_metadata`. LangChain's
    `input_tokens` adds the cache reads and writes (its
    `input_token_details`) to Anthropic's `input_tokens`; they are taken off
    again, so the count compared is the one Anthropic names `input_tokens`."""
    from langchain_anthropic import ChatAnthropic

    llm = ChatAnthropic(
        model=CLAUDE,
        base_url=job["origin"],
        api_key="sk-ant-harness",
        max_retries=0,
        default_request_timeout=TIMEOUT_S,
        max_tokens=MAX_TOKENS,
    )
    tools = langchain_tools(job)
    total = langchain_total(llm.bind_tools(tools) if tools else llm)
    if total is None:
        return {"text": "", "refusal": None, "tool_calls": [], "finish_reason": None, "usage": None}
    um = total.usage_metadata
    usage = None
    if um:
        details = um.get("input_token_details") or {}
        cached = sum(
            details.get(k) or 0
            for k in ("cache_read", "cache_creation", "ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
        )
        inp = um.get("input_tokens")
        usage = {"input_tokens": inp - cached if isinstance(inp, int) else inp, "output_tokens": um.get("output_tokens")}
    return {
        "text": langchain_blocks(total.content, "text", "text"),
        "refusal": None,
        "tool_calls": langchain_tool_calls(total),
        "finish_reason": (total.response_metadata or {}).get("stop_reason"),
        "usage": usage,
    }


def field(o, name):
    """A field of an SDK object or of a plain dict, None when absent (raw
    events are built without validation, so a field may be missing)."""
    if isinstance(o, dict):
        return o.get(name)
    return getattr(o, name, None)


def tokens(u, keys):
    if u is None:
        return None
    return {k: field(u, k) for k in keys}


RESPONSES_USAGE = ("input_tokens", "output_tokens", "total_tokens")
MESSAGES_USAGE = ("input_tokens", "output_tokens")


def openai_python_responses(job):
    """Raw iteration of `responses.create(stream=True)`, collecting what the
    streaming guides collect: text from `response.output_text.delta`, each
    function call from its `response.output_item.added` item plus its
    `response.function_call_arguments.delta` fragments, the status and
    usage from the terminal event."""
    stream = client(job["base_url"]).responses.create(model=MODEL, input="hi", stream=True)
    text, refusal, status, usage = "", None, None, None
    calls = {}
    for event in stream:
        kind = field(event, "type")
        if kind == "response.output_text.delta":
            text += field(event, "delta") or ""
        elif kind == "response.refusal.delta":
            refusal = (refusal or "") + (field(event, "delta") or "")
        elif kind == "response.output_item.added":
            item = field(event, "item")
            if field(item, "type") == "function_call":
                calls[field(event, "output_index")] = {
                    "id": field(item, "call_id"),
                    "name": field(item, "name"),
                    "arguments": field(item, "arguments") or "",
                }
        elif kind == "response.function_call_arguments.delta":
            call = calls.get(field(event, "output_index"))
            if call is not None:
                call["arguments"] += field(event, "delta") or ""
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = field(event, "response")
            status = field(response, "status")
            usage = tokens(field(response, "usage"), RESPONSES_USAGE)
    return {
        "text": text,
        "refusal": refusal,
        "tool_calls": [calls[k] for k in sorted(calls, key=lambda k: (k is None, k or 0))],
        "finish_reason": status,
        "usage": usage,
    }


def openai_python_responses_stream(job):
    """The helper: `responses.stream()` and `get_final_response()`, read as
    its docs show (`output_text`, the function_call items, `status`,
    `usage`)."""
    with client(job["base_url"]).responses.stream(model=MODEL, input="hi") as stream:
        for _ in stream:
            pass
        done = stream.get_final_response()
    refusal = None
    calls = []
    for item in done.output or []:
        if item.type == "message":
            for part in item.content or []:
                if part.type == "refusal":
                    refusal = (refusal or "") + (part.refusal or "")
        elif item.type == "function_call":
            calls.append({"id": item.call_id, "name": item.name, "arguments": item.arguments})
    return {
        "text": done.output_text,
        "refusal": refusal,
        "tool_calls": calls,
        "finish_reason": done.status,
        "usage": tokens(done.usage, RESPONSES_USAGE),
    }


class Timeout(Exception):
    """The harness's time bound on a socket session (TIMEOUT_S): the client
    was still waiting for a message."""


class SocketAnswers:
    """What an application collects from a Responses socket, response by
    response, as openai-python-responses collects one stream: text and
    refusal deltas, function calls from `response.output_item.added` plus
    their argument deltas, the status and usage of the terminal event.

    Events are given to a response by lane (`stream_id`, none for the
    default lane), as the WebSocket-mode guide documents lanes: first in,
    first out, never overlapping. So an event belongs to the oldest
    response of its lane that has had no terminal event; `response.created`
    queues a new one; a terminal event ends the open response it names (or
    the oldest). The `error` events the SDK hands over are kept by their
    message."""

    TERMINAL = ("response.completed", "response.incomplete", "response.failed")

    def __init__(self):
        self.responses = []
        self.open = {}
        self.errors = []

    def _new(self, lane, rid):
        r = {"id": rid, "text": "", "refusal": None, "calls": {}, "finish_reason": None, "usage": None}
        self.responses.append(r)
        self.open.setdefault(lane, []).append(r)
        return r

    def _current(self, lane):
        q = self.open.get(lane) or []
        return q[0] if q else self._new(lane, None)

    def feed(self, event):
        kind = field(event, "type")
        lane = field(event, "stream_id")
        if kind == "error":
            self.errors.append(field(field(event, "error"), "message") or field(event, "message") or "")
            return
        if kind == "response.created":
            self._new(lane, field(field(event, "response"), "id"))
            return
        if kind in self.TERMINAL:
            response = field(event, "response")
            q = self.open.get(lane) or []
            r = next((x for x in q if x["id"] is not None and x["id"] == field(response, "id")), None)
            r = r or self._current(lane)
            if r in q:
                q.remove(r)
            r["id"] = r["id"] or field(response, "id")
            r["finish_reason"] = field(response, "status")
            r["usage"] = tokens(field(response, "usage"), RESPONSES_USAGE)
            return
        if not (kind or "").startswith("response."):
            return
        r = self._current(lane)
        if kind == "response.output_text.delta":
            r["text"] += field(event, "delta") or ""
        elif kind == "response.refusal.delta":
            r["refusal"] = (r["refusal"] or "") + (field(event, "delta") or "")
        elif kind == "response.output_item.added":
            item = field(event, "item")
            if field(item, "type") == "function_call":
                r["calls"][field(event, "output_index")] = {
                    "id": field(item, "call_id"),
                    "name": field(item, "name"),
                    "arguments": field(item, "arguments") or "",
                }
        elif kind == "response.function_call_arguments.delta":
            call = r["calls"].get(field(event, "output_index"))
            if call is not None:
                call["arguments"] += field(event, "delta") or ""

    def running(self):
        """Whether a response has started and not ended: the application
        waits for its terminal event."""
        return any(self.open.values())

    def outcome(self):
        return {
            "responses": [
                {
                    "id": r["id"],
                    "text": r["text"],
                    "refusal": r["refusal"],
                    "tool_calls": [r["calls"][k] for k in sorted(r["calls"], key=lambda k: (k is None, k or 0))],
                    "finish_reason": r["finish_reason"],
                    "usage": r["usage"],
                }
                for r in self.responses
            ],
            "errors": self.errors,
        }


def openai_python_responses_ws(job):
    """`client.responses.connect()` (WebSocket mode), used as the SDK's
    docs show: each `response.create` of the capture sent with
    `connection.response.create(...)` once the messages the capture shows
    before it have arrived (a turn after the previous turn's terminal
    event), the connection iterated, each event collected by
    `SocketAnswers`. The session ends when the socket closes (the iteration
    ends, or raises), or when every message of the capture has arrived and
    no response is left running (the application has every answer it asked
    for, and leaves the `with` block, which closes the socket). A response
    still running keeps the application waiting, up to the time bound; a
    capture that ends with the server's close is read until the socket
    closes (the iteration's end, or what it raises)."""
    import inspect
    import signal

    def expired(*_):
        raise Timeout(f"still waiting after {TIMEOUT_S:g} s")

    sends = sorted(job["socket"]["sends"], key=lambda s: s["after"])
    want = job["socket"]["received"]
    # The capture ends with the server's close: the application reads on
    # until the socket closes.
    closes = job["socket"]["closes"]
    got = SocketAnswers()
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
    try:
        with client(job["base_url"]).responses.connect() as connection:
            seen = 0
            known = set(inspect.signature(connection.response.create).parameters)

            def send_due():
                while sends and sends[0]["after"] <= seen:
                    event = sends.pop(0)["event"]
                    body = {k: v for k, v in event.items() if k != "type"}
                    if event.get("type") == "response.create" and set(body) <= known:
                        connection.response.create(**body)
                    else:
                        # Another client message (`response.steer`), or a
                        # field the method does not take: sent as the
                        # capture has it.
                        connection.send(event)

            send_due()
            if not sends and seen >= want and not got.running() and not closes:
                return got.outcome()
            for event in connection:
                seen += 1
                got.feed(event)
                send_due()
                if not sends and seen >= want and not got.running() and not closes:
                    break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return got.outcome()


REALTIME_MODEL = "gpt-realtime"
REALTIME_USAGE = ("input_tokens", "output_tokens", "total_tokens")
# The text and audio-transcript delta events of a Realtime answer, by
# interface: an application written against one handles its own names (the
# SDK's event types of that interface).
REALTIME_TEXT = {
    "ga": ("response.output_text.delta", "response.output_audio_transcript.delta"),
    "beta": ("response.text.delta", "response.audio_transcript.delta"),
}


class RealtimeAnswers:
    """What a text-mode application collects from a Realtime session,
    response by response (`response.created` … `response.done`): the text
    and audio-transcript deltas of its interface (GA
    `response.output_text.delta` / `response.output_audio_transcript.delta`,
    beta `response.text.delta` / `response.audio_transcript.delta`),
    function calls from `response.output_item.added` plus their argument
    deltas, and `response.done`'s status and usage. An event goes to the
    response its `response_id` names (else the one running); `error`
    events are kept by their message."""

    def __init__(self, surface):
        self.text_events = REALTIME_TEXT[surface]
        self.responses = []
        self.by_id = {}
        self.open = []
        self.errors = []

    def _new(self, rid):
        r = {"id": rid, "text": "", "calls": {}, "finish_reason": None, "usage": None}
        self.responses.append(r)
        self.open.append(r)
        if rid is not None:
            self.by_id[rid] = r
        return r

    def _of(self, rid):
        if rid is not None and rid in self.by_id:
            return self.by_id[rid]
        return self.open[0] if self.open else self._new(rid)

    def feed(self, event):
        kind = field(event, "type")
        if kind == "error":
            self.errors.append(field(field(event, "error"), "message") or "")
            return
        if kind == "response.created":
            self._new(field(field(event, "response"), "id"))
            return
        if kind == "response.done":
            response = field(event, "response")
            r = self._of(field(response, "id"))
            if r in self.open:
                self.open.remove(r)
            r["finish_reason"] = field(response, "status")
            r["usage"] = tokens(field(response, "usage"), REALTIME_USAGE)
            return
        if kind in self.text_events:
            self._of(field(event, "response_id"))["text"] += field(event, "delta") or ""
        elif kind == "response.output_item.added":
            item = field(event, "item")
            if field(item, "type") == "function_call":
                self._of(field(event, "response_id"))["calls"][field(item, "id")] = {
                    "id": field(item, "call_id"),
                    "name": field(item, "name"),
                    "arguments": field(item, "arguments") or "",
                }
        elif kind == "response.function_call_arguments.delta":
            call = self._of(field(event, "response_id"))["calls"].get(field(event, "item_id"))
            if call is not None:
                call["arguments"] += field(event, "delta") or ""

    def running(self):
        """Whether a response has started and not ended: the application
        waits for its `response.done`."""
        return bool(self.open)

    def outcome(self):
        return {
            "responses": [
                {
                    "id": r["id"],
                    "text": r["text"],
                    "refusal": None,
                    "tool_calls": list(r["calls"].values()),
                    "finish_reason": r["finish_reason"],
                    "usage": r["usage"],
                }
                for r in self.responses
            ],
            "errors": self.errors,
        }


def openai_python_realtime(job):
    """openai-python's Realtime client in text mode, used as its docs show:
    `client.realtime.connect(model=…)` (the GA interface), or
    `client.beta.realtime.connect(model=…)` where the capture's application
    spoke the beta interface (`job["socket"]["beta"]`). Each client message
    of the capture is sent once the messages the capture shows before it
    have arrived, through the connection's method for it
    (`connection.session.update(session=…)`,
    `connection.conversation.item.create(item=…)`,
    `connection.response.create(response=…)`; another message with
    `connection.send`); the connection is iterated and each event collected
    by `RealtimeAnswers`. The session ends as `openai_python_responses_ws`'s
    does: when the socket closes, or when every message of the capture has
    arrived and no response is running; a running response keeps the
    application waiting, up to the time bound.

    The beta interface's URL and `OpenAI-Beta: realtime=v1` header are the
    SDK's; the replay serves the capture whatever the path and headers."""
    import inspect
    import signal

    def expired(*_):
        raise Timeout(f"still waiting after {TIMEOUT_S:g} s")

    script = job["socket"]
    sends = sorted(script["sends"], key=lambda s: s["after"])
    want, closes = script["received"], script["closes"]
    surface = "beta" if script.get("beta") else "ga"
    got = RealtimeAnswers(surface)
    # The beta interface dials wss:// from the base URL; the client's own
    # `websocket_base_url` option names the replay's plain ws:// endpoint
    # (the GA interface reads it too).
    api = openai.OpenAI(
        api_key="sk-harness",
        base_url=job["base_url"],
        websocket_base_url=job["base_url"].replace("http://", "ws://", 1),
        max_retries=0,
        timeout=TIMEOUT_S,
    )
    realtime = api.beta.realtime if surface == "beta" else api.realtime
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
    try:
        with realtime.connect(model=REALTIME_MODEL) as connection:
            seen = 0
            methods = {
                "session.update": connection.session.update,
                "conversation.item.create": connection.conversation.item.create,
                "response.create": connection.response.create,
            }

            def send_due():
                while sends and sends[0]["after"] <= seen:
                    event = sends.pop(0)["event"]
                    body = {k: v for k, v in event.items() if k != "type"}
                    method = methods.get(event.get("type"))
                    if method is not None and set(body) <= set(inspect.signature(method).parameters):
                        method(**body)
                    else:
                        connection.send(event)

            def done():
                return not sends and seen >= want and not got.running() and not closes

            send_due()
            if done():
                return got.outcome()
            for event in connection:
                seen += 1
                got.feed(event)
                send_due()
                if done():
                    break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return got.outcome()


def anthropic_client(job):
    import anthropic

    return anthropic.Anthropic(api_key="sk-ant-harness", base_url=job["origin"], max_retries=0, timeout=TIMEOUT_S)


CLAUDE = "claude-sonnet-4-5"
MAX_TOKENS = 1024


def anthropic_python(job):
    """Raw iteration of `messages.create(stream=True)`, accumulating as an
    application does: each block by `index` (text from `text_delta`, a
    tool_use block's input from its `input_json_delta` fragments), the
    stop_reason from `message_delta`, usage from `message_start` updated by
    each `message_delta` (its counts are cumulative)."""
    return anthropic_raw(anthropic_client(job), CLAUDE)


def anthropic_raw(client, model):
    """`anthropic_python`'s loop over `client.messages.create(stream=True)`
    (thinking deltas kept as the reasoning, which Bedrock Invoke compares)."""
    stream = client.messages.create(model=model, max_tokens=MAX_TOKENS, messages=MESSAGES, stream=True)
    blocks, stop, usage, reasoning = {}, None, None, None
    for event in stream:
        kind = field(event, "type")
        if kind == "message_start":
            usage = tokens(field(field(event, "message"), "usage"), MESSAGES_USAGE)
        elif kind == "content_block_start":
            cb = field(event, "content_block")
            blocks[field(event, "index")] = {
                "type": field(cb, "type"),
                "text": field(cb, "text") or "",
                "id": field(cb, "id"),
                "name": field(cb, "name"),
                "start_input": field(cb, "input"),
                "json": "",
            }
        elif kind == "content_block_delta":
            block = blocks.get(field(event, "index"))
            delta = field(event, "delta")
            if field(delta, "type") == "thinking_delta":
                reasoning = (reasoning or "") + (field(delta, "thinking") or "")
            if block is None:
                continue
            if field(delta, "type") == "text_delta":
                block["text"] += field(delta, "text") or ""
            elif field(delta, "type") == "input_json_delta":
                block["json"] += field(delta, "partial_json") or ""
        elif kind == "message_delta":
            stop = field(field(event, "delta"), "stop_reason") or stop
            u = field(event, "usage")
            if u is not None:
                usage = usage or {k: None for k in MESSAGES_USAGE}
                for k in MESSAGES_USAGE:
                    if field(u, k) is not None:
                        usage[k] = field(u, k)
    text, calls = "", []
    for k in sorted(blocks, key=lambda k: (k is None, k or 0)):
        b = blocks[k]
        if b["type"] == "text":
            text += b["text"]
        elif b["type"] == "tool_use":
            args = b["json"] if b["json"] else json.dumps(b["start_input"] if b["start_input"] is not None else {})
            calls.append({"id": b["id"], "name": b["name"], "arguments": args})
    return {"text": text, "refusal": None, "reasoning": reasoning, "tool_calls": calls, "finish_reason": stop, "usage": usage}


def anthropic_python_stream(job):
    """The helper: `messages.stream()` and `get_final_message()`: its text
    blocks, tool_use blocks (`input` as JSON), `stop_reason`, `usage`."""
    with anthropic_client(job).messages.stream(model=CLAUDE, max_tokens=MAX_TOKENS, messages=MESSAGES) as stream:
        for _ in stream:
            pass
        done = stream.get_final_message()
    text, calls = "", []
    for block in done.content or []:
        if block.type == "text":
            text += block.text or ""
        elif block.type == "tool_use":
            calls.append({"id": block.id, "name": block.name, "arguments": json.dumps(block.input)})
    return {
        "text": text,
        "refusal": None,
        "tool_calls": calls,
        "finish_reason": done.stop_reason,
        "usage": tokens(done.usage, MESSAGES_USAGE),
    }


GEMINI = "gemini-2.5-flash"
# usageMetadata's counts, as the API names them (the Python SDK's fields are
# their snake_case forms).
GEMINI_USAGE = ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount")


def snake(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def google_genai(job):
    """Raw iteration of google-genai's `models.generate_content_stream`,
    accumulating as an application does: each chunk's `text` (candidate 0's
    text parts that are not thoughts) and `function_calls` (candidate 0's
    functionCall parts, each as the SDK yields it, `args` as JSON), the
    text of candidate 0's thought parts as reasoning, the last finishReason
    seen, the last usageMetadata seen. The SDK is pointed at the replay by
    its `http_options` base URL, with the API version the other Gemini
    clients use (`v1beta`; this SDK's own default in 3.6.1 is `v1`); without
    `retry_options` it makes one attempt; automatic function calling is
    off."""
    from google import genai
    from google.genai import types

    client = genai.Client(
        api_key="harness-gemini-key",
        http_options=types.HttpOptions(base_url=job["origin"], api_version="v1beta", timeout=int(TIMEOUT_S * 1000)),
    )
    config = types.GenerateContentConfig(
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    text, reasoning, finish, usage = "", None, None, None
    calls = []
    for chunk in client.models.generate_content_stream(model=GEMINI, contents="hi", config=config):
        text += chunk.text or ""
        for fc in chunk.function_calls or []:
            calls.append({"id": fc.id, "name": fc.name, "arguments": json.dumps(fc.args if fc.args is not None else {})})
        candidate = chunk.candidates[0] if chunk.candidates else None
        content = candidate.content if candidate is not None else None
        for part in (content.parts if content is not None else None) or []:
            if part.thought and part.text:
                reasoning = (reasoning or "") + part.text
        if candidate is not None and candidate.finish_reason is not None:
            fr = candidate.finish_reason
            finish = fr.value if hasattr(fr, "value") else str(fr)
        if chunk.usage_metadata is not None:
            usage = {k: getattr(chunk.usage_metadata, snake(k), None) for k in GEMINI_USAGE}
    return {"text": text, "refusal": None, "reasoning": reasoning, "tool_calls": calls, "finish_reason": finish, "usage": usage}


# Ollama's native API (`/api/chat`, `/api/generate`, NDJSON lines). The model
# name is the library's to send; the replay answers whatever it is.
OLLAMA_MODEL = "llama3.2"
# The counts of Ollama's last line that the harness compares.
OLLAMA_USAGE = ("prompt_eval_count", "eval_count")


def ollama_tool_call(tc):
    """A tool call as the application gets it: the function's name and its
    arguments (a mapping, encoded as JSON for the comparison); the id where
    the object has one (ollama-python's model has none)."""
    fn = field(tc, "function")
    args = field(fn, "arguments")
    return {
        "id": field(tc, "id"),
        "name": field(fn, "name"),
        "arguments": json.dumps(dict(args) if args is not None else {}) if not isinstance(args, str) else args,
    }


def ollama_python(job):
    """ollama-python, as its README's streaming example: iterate
    `Client(host=…).chat(model, messages, stream=True)` (or `generate(model,
    prompt, stream=True)` for a stream of `/api/generate`), appending each
    part's `message.content` (`response`) and `message.thinking`
    (`thinking`), collecting `message.tool_calls` (`tool_calls`), and
    keeping `done_reason` and the counts of the part that says `done`."""
    import ollama

    client = ollama.Client(host=job["origin"], timeout=TIMEOUT_S)
    generate = job.get("api") == "generate"
    if generate:
        parts = client.generate(model=OLLAMA_MODEL, prompt="hi", stream=True)
    else:
        parts = client.chat(model=OLLAMA_MODEL, messages=MESSAGES, stream=True)
    text, reasoning, finish, usage = "", None, None, None
    calls = []
    for part in parts:
        source = part if generate else field(part, "message")
        text += field(source, "response" if generate else "content") or ""
        if field(source, "thinking"):
            reasoning = (reasoning or "") + field(source, "thinking")
        for tc in field(source, "tool_calls") or []:
            calls.append(ollama_tool_call(tc))
        if field(part, "done"):
            finish = field(part, "done_reason")
            usage = tokens(part, OLLAMA_USAGE)
    return {"text": text, "refusal": None, "reasoning": reasoning, "tool_calls": calls, "finish_reason": finish, "usage": usage}


# Amazon Bedrock: boto3's `bedrock-runtime` client pointed at the replay by
# `endpoint_url`, with dummy credentials (nothing is sent anywhere else; the
# replay does not check the signature) and one attempt.
BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
CONVERSE_USAGE = ("inputTokens", "outputTokens", "totalTokens")


def bedrock_client(job):
    import boto3
    from botocore.config import Config

    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=job["origin"],
        aws_access_key_id="AKIDHARNESSEXAMPLE",
        aws_secret_access_key="harness-secret",
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}, read_timeout=TIMEOUT_S, connect_timeout=TIMEOUT_S),
    )


def boto3_converse(job):
    """boto3's `converse_stream()`, its `stream` iterated as the Bedrock user
    guide's ConverseStream example does, each event by its member name:
    blocks by `contentBlockIndex` (a tool use from `contentBlockStart`'s
    `start.toolUse`, its input from the `toolUse.input` fragments; text
    and `reasoningContent.text` from `contentBlockDelta`), `messageStop`'s
    `stopReason`, `metadata`'s usage."""
    response = bedrock_client(job).converse_stream(
        modelId=BEDROCK_MODEL, messages=[{"role": "user", "content": [{"text": "hi"}]}]
    )
    blocks, stop, usage, reasoning = {}, None, None, None

    def block(i):
        return blocks.setdefault(i, {"text": "", "id": None, "name": None, "input": "", "tool": False})

    for event in response["stream"]:
        if "contentBlockStart" in event:
            e = event["contentBlockStart"]
            tool = (e.get("start") or {}).get("toolUse")
            if tool is not None:
                b = block(e.get("contentBlockIndex"))
                b.update(tool=True, id=tool.get("toolUseId"), name=tool.get("name"))
        elif "contentBlockDelta" in event:
            e = event["contentBlockDelta"]
            b = block(e.get("contentBlockIndex"))
            delta = e.get("delta") or {}
            if "text" in delta:
                b["text"] += delta["text"] or ""
            if "toolUse" in delta:
                b["input"] += (delta["toolUse"] or {}).get("input") or ""
            rc = delta.get("reasoningContent") or {}
            if rc.get("text"):
                reasoning = (reasoning or "") + rc["text"]
        elif "messageStop" in event:
            stop = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            usage = tokens(event["metadata"].get("usage"), CONVERSE_USAGE)
    text, calls = "", []
    for k in sorted(blocks, key=lambda k: (k is None, k or 0)):
        b = blocks[k]
        text += b["text"]
        if b["tool"]:
            calls.append({"id": b["id"], "name": b["name"], "arguments": b["input"]})
    return {"text": text, "refusal": None, "reasoning": reasoning, "tool_calls": calls, "finish_reason": stop, "usage": usage}


def messages_events(events):
    """Anthropic Messages events (dicts), accumulated as `anthropic_python`
    accumulates them: the text blocks, the tool_use blocks, the thinking
    text, the stop_reason, the usage."""
    blocks, stop, usage, reasoning = {}, None, None, None
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            usage = tokens((event.get("message") or {}).get("usage"), MESSAGES_USAGE)
        elif kind == "content_block_start":
            cb = event.get("content_block") or {}
            blocks[event.get("index")] = {
                "type": cb.get("type"),
                "text": cb.get("text") or "",
                "id": cb.get("id"),
                "name": cb.get("name"),
                "start_input": cb.get("input"),
                "json": "",
            }
        elif kind == "content_block_delta":
            b = blocks.get(event.get("index"))
            delta = event.get("delta") or {}
            if delta.get("type") == "thinking_delta":
                reasoning = (reasoning or "") + (delta.get("thinking") or "")
            if b is None:
                continue
            if delta.get("type") == "text_delta":
                b["text"] += delta.get("text") or ""
            elif delta.get("type") == "input_json_delta":
                b["json"] += delta.get("partial_json") or ""
        elif kind == "message_delta":
            stop = (event.get("delta") or {}).get("stop_reason") or stop
            u = event.get("usage")
            if u is not None:
                usage = usage or {k: None for k in MESSAGES_USAGE}
                for k in MESSAGES_USAGE:
                    if u.get(k) is not None:
                        usage[k] = u[k]
    text, calls = "", []
    for k in sorted(blocks, key=lambda k: (k is None, k or 0)):
        b = blocks[k]
        if b["type"] == "text":
            text += b["text"]
        elif b["type"] == "tool_use":
            args = b["json"] if b["json"] else json.dumps(b["start_input"] if b["start_input"] is not None else {})
            calls.append({"id": b["id"], "name": b["name"], "arguments": args})
    return {"text": text, "refusal": None, "reasoning": reasoning, "tool_calls": calls, "finish_reason": stop, "usage": usage}


def anthropic_python_bedrock(job):
    """anthropic-sdk-python's Bedrock client (`AnthropicBedrock`, which
    signs with botocore and reads the event stream with botocore's decoder),
    pointed at the replay by `base_url`, with the harness's dummy
    credentials: `messages.create(stream=True)` iterated as
    `anthropic_python` iterates it."""
    import anthropic

    client = anthropic.AnthropicBedrock(
        aws_access_key="AKIDHARNESSEXAMPLE",
        aws_secret_key="harness-secret",
        aws_region="us-east-1",
        base_url=job["origin"],
        max_retries=0,
        timeout=TIMEOUT_S,
    )
    return anthropic_raw(client, BEDROCK_MODEL)


def boto3_invoke(job):
    """boto3's `invoke_model_with_response_stream()` with a Claude request
    body, its `body` iterated as the Bedrock user guide's example does:
    each `chunk` event's `bytes` decoded as JSON (an Anthropic Messages
    event), accumulated as the raw Anthropic loop accumulates them."""
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": MAX_TOKENS, "messages": MESSAGES})
    response = bedrock_client(job).invoke_model_with_response_stream(modelId=BEDROCK_MODEL, body=body)

    events = [json.loads(e["chunk"]["bytes"]) for e in response["body"] if e.get("chunk") is not None]
    if events and "type" not in events[0]:
        return other_model_events(events)
    return messages_events(iter(events))


def other_model_events(events):
    """An Invoke stream of another model than Claude, read as that model's
    Bedrock example reads it: Titan's `outputText` / `completionReason`,
    Llama's `generation` / `stop_reason`, Mistral's `outputs[].text` /
    `stop_reason`, Nova's `contentBlockDelta.delta.text` /
    `messageStop.stopReason`; the usage from the last chunk's
    `amazon-bedrock-invocationMetrics`."""
    text, stop, usage = "", None, None
    for e in events:
        m = e.get("amazon-bedrock-invocationMetrics")
        if m is not None:
            usage = {"input_tokens": m.get("inputTokenCount"), "output_tokens": m.get("outputTokenCount")}
        outs = e.get("outputs") or []
        delta = (e.get("contentBlockDelta") or {}).get("delta") or {}
        text += e.get("outputText") or e.get("generation") or "".join(o.get("text") or "" for o in outs) or delta.get("text") or ""
        stop = (
            e.get("completionReason")
            or e.get("stop_reason")
            or next((o.get("stop_reason") for o in outs if o.get("stop_reason")), None)
            or (e.get("messageStop") or {}).get("stopReason")
            or stop
        )
    return {"text": text, "refusal": None, "reasoning": None, "tool_calls": [], "finish_reason": stop, "usage": usage}


CLIENTS = {
    "openai-python": openai_python_raw,
    "openai-python-stream": openai_python_stream,
    "langchain": langchain,
    "openai-python-responses": openai_python_responses,
    "openai-python-responses-stream": openai_python_responses_stream,
    "openai-python-responses-ws": openai_python_responses_ws,
    "openai-python-realtime": openai_python_realtime,
    "anthropic-python": anthropic_python,
    "anthropic-python-stream": anthropic_python_stream,
    "langchain-responses": langchain_responses,
    "langchain-messages": langchain_messages,
    "google-genai": google_genai,
    "ollama-python": ollama_python,
    "boto3-converse": boto3_converse,
    "boto3-invoke": boto3_invoke,
    "anthropic-python-bedrock": anthropic_python_bedrock,
}


def run_one(fn, job):
    try:
        return fn(job)
    except BaseException as e:  # noqa: BLE001 - any exception is an observation
        if isinstance(e, KeyboardInterrupt):
            raise
        return failure(e)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)
    out = {}
    for job in jobs:
        out[job["id"]] = {name: run_one(CLIENTS[name], job) for name in job["clients"] if name in CLIENTS}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
