"""The Python clients of the harness (see clients/README.md).

Reads a job list (JSON: [{id, base_url, tools}]) from the file named in
argv[1], runs every client on every job against `sselint replay`, and prints
one JSON object: {job id: {client name: outcome}}.

An outcome is what an application using that client ends up with:
{text, refusal, tool_calls: [{id, name, arguments}], finish_reason, usage},
or {error: {type, message}} when the client raised (message: first line).
Each client is used the way its documentation shows.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")

import openai  # noqa: E402

MODEL = "gpt-4o-mini"
MESSAGES = [{"role": "user", "content": "hi"}]
TIMEOUT_S = 15.0


def first_line(s):
    return str(s).split("\n")[0][:300]


def failure(e):
    return {"error": {"type": type(e).__name__, "message": first_line(e)}}


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


CLIENTS = {
    "openai-python": openai_python_raw,
    "openai-python-stream": openai_python_stream,
    "langchain": langchain,
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
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else list(CLIENTS)
    out = {}
    for job in jobs:
        out[job["id"]] = {name: run_one(CLIENTS[name], job) for name in only}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
