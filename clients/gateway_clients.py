"""The gateway of the harness (see clients/README.md): LiteLLM as a library,
`litellm.completion(stream=True)`, through the provider of each dialect:
`openai/` (Chat), `anthropic/` (Messages), `gemini/` (Gemini). What it
yields is what a gateway hands on: the stream translated into Chat chunks.

Reads a job list (JSON: [{id, base_url, origin, tools, clients}]) from the
file named in argv[1] and prints {job id: {client name: outcome}}, an
outcome being {text, tool_calls, finish_reason, usage} in Chat's terms, or
{error: {type, message}} when LiteLLM raised. Runs in its own venv
(clients/.venv-litellm, clients/requirements-litellm.txt).
"""

import atexit
import json
import os
import shutil
import sys
import tempfile
import threading
import warnings

warnings.filterwarnings("ignore")
# A fresh temporary HOME (and caches inside it) for this run, removed at
# exit; no fetch of the model cost map from the internet, no telemetry.
HOME = tempfile.mkdtemp(prefix="sselint-litellm-")
atexit.register(shutil.rmtree, HOME, True)
os.environ["HOME"] = HOME
os.environ["XDG_CACHE_HOME"] = os.path.join(HOME, ".cache")
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_TELEMETRY"] = "False"

import litellm  # noqa: E402
from sdk_common import MESSAGES, TIMEOUT_S, failure  # noqa: E402

litellm.telemetry = False
litellm.suppress_debug_info = True
litellm.num_retries = 0


def tools_of(job):
    """The stream's tools declared, as an application that got tool calls
    declared them (OpenAI's function-tool shape; LiteLLM translates)."""
    return [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
        for n in job.get("tools") or []
        if n
    ] or None


def collect(job, model, api_base):
    kwargs = {}
    if tools_of(job):
        kwargs["tools"] = tools_of(job)
    stream = litellm.completion(
        model=model,
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
        api_base=api_base,
        api_key="sk-harness",
        timeout=TIMEOUT_S,
        max_retries=0,
        **kwargs,
    )
    text, finish, usage = "", None, None
    calls = {}
    for chunk in stream:
        u = getattr(chunk, "usage", None)
        if u is not None:
            usage = {
                "prompt_tokens": getattr(u, "prompt_tokens", None),
                "completion_tokens": getattr(u, "completion_tokens", None),
                "total_tokens": getattr(u, "total_tokens", None),
            }
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if delta is not None:
            text += getattr(delta, "content", None) or ""
            for tc in getattr(delta, "tool_calls", None) or []:
                fn = tc.function
                i = tc.index if tc.index is not None else len(calls)
                if i not in calls:
                    calls[i] = {"id": tc.id, "name": fn.name if fn else None, "arguments": (fn.arguments if fn else None) or ""}
                else:
                    calls[i]["arguments"] += (fn.arguments if fn else None) or ""
        if choice.finish_reason:
            finish = choice.finish_reason
    return {"text": text, "tool_calls": [calls[i] for i in sorted(calls)], "finish_reason": finish, "usage": usage}


def litellm_openai(job):
    return collect(job, "openai/gpt-4o-mini", job["base_url"])


def litellm_anthropic(job):
    return collect(job, "anthropic/claude-sonnet-4-5", job["origin"])


def litellm_gemini(job):
    return collect(job, "gemini/gemini-2.5-flash", job["origin"] + "/v1beta")


CLIENTS = {
    "litellm-chat": litellm_openai,
    "litellm-messages": litellm_anthropic,
    "litellm-gemini": litellm_gemini,
}


# The most a call may take: LiteLLM 1.106.12 was seen to wait forever on a
# connection the server had closed.
HARD_LIMIT_S = 30.0


def run_one(fn, job):
    box = {}

    def go():
        try:
            box["out"] = fn(job)
        except BaseException as e:  # noqa: BLE001 - any exception is an observation
            box["out"] = failure(e)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(HARD_LIMIT_S)
    if t.is_alive():
        return {"error": {"type": "Timeout", "message": f"no end after {HARD_LIMIT_S:.0f} s (the server had closed the stream)"}}
    return box["out"]


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)
    out = {}
    for job in jobs:
        mine = out.setdefault(job["id"], {})
        for name in job["clients"]:
            if name not in CLIENTS:
                continue
            mine[name] = run_one(CLIENTS[name], job)
            if mine[name].get("error", {}).get("type") == "Timeout":
                # The call left hanging holds LiteLLM's locks: the calls
                # after it in this process wait on them (seen: every one
                # of them timed out). Stop here; run.py goes on with the
                # rest in a fresh process.
                break
        else:
            continue
        break
    json.dump(out, sys.stdout)
    sys.stdout.flush()
    # A call left hanging keeps its thread: end without waiting for it.
    shutil.rmtree(HOME, True)
    os._exit(0)


if __name__ == "__main__":
    main()
