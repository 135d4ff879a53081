"""The agent apps of the harness (see clients/README.md): Claude Code, Codex
CLI, Gemini CLI and opencode, each run as a user runs it, non-interactive,
one prompt ("hi"), against `sselint replay`.

Reads a job list (JSON: [{id, base_url, origin, tools, clients}]) from the
file named in argv[1], runs each of the job's clients that is an agent app
and prints one JSON object: {job id: {client name: outcome}}.

An outcome is what the app ended with, as far as it shows it: {text,
tool_calls, finish_reason, usage} (None where the app does not show the
field; clients/run.py compares only what each app shows), or {error: {type,
message}} when the app ended with an error; each with `requests`, what the
replay server was asked:

- every app is pointed at a relay of ours on 127.0.0.1 that passes each
  request to the replay byte for byte and counts it. `requests` is the
  number of requests to the dialect's streaming endpoint; `retries` those
  that repeat the first request's conversation (a retry the user sees as a
  wait or a repeated answer); `follow_ups` those whose conversation is
  longer (the app continued after a tool call: the calls it made are read
  from that request, which the relay answers with an HTTP 400 so that the
  app stops after one turn and runs nothing more).

Containment: each run gets a fresh temporary HOME (and XDG and TMPDIR
directories inside it) as its only writable place, an empty working
directory inside it, a dummy key, no proxy, the apps' telemetry, update
checks and retries off where they have the setting, and a time bound
(TIMEOUT_S); the apps' tools are denied where the app has the setting.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CLIENTS_DIR = Path(__file__).resolve().parent
AGENTS_BIN = CLIENTS_DIR / "agents" / "node_modules" / ".bin"
NODE = CLIENTS_DIR / "node_modules" / ".bin" / "node"
PROMPT = "hi"
TIMEOUT_S = 60
WORKERS = int(os.environ.get("SSELINT_AGENT_WORKERS", "3"))
# The streaming endpoint of each dialect, as a path prefix or fragment.
ENDPOINTS = {
    "messages": "/v1/messages",
    "responses": "/v1/responses",
    "chat": "/v1/chat/completions",
    "gemini": ":streamGenerateContent",
}
# A dialect's 400 error body, for the follow-up requests the relay refuses.
REFUSAL = json.dumps({"error": {"type": "invalid_request_error", "message": "harness: one turn only"}}).encode()


def first_line(s):
    return str(s).strip().split("\n")[0][:300]


def failure(kind, message):
    return {"error": {"type": kind, "message": first_line(message)}}


def conversation(body):
    """The conversation a request body carries, as a list (Chat's
    `messages`, Responses' `input`, Messages' `messages`, Gemini's
    `contents`), or None when the body is no JSON object."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict):
        return None
    for key in ("messages", "input", "contents"):
        v = doc.get(key)
        if isinstance(v, list):
            return v
        if isinstance(v, str):
            return [v]
    return None


class Relay:
    """A relay on 127.0.0.1 (port from the OS) in front of `upstream`
    (http://HOST:PORT): each request is read whole, kept (method, path,
    body) and passed on byte for byte (a chunked body is sent on with its
    length); the answer comes back byte for byte. A request to `endpoint`
    whose conversation is longer than the first one's is answered with a 400
    instead (one turn only)."""

    def __init__(self, upstream, endpoint):
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.endpoint = endpoint
        self.requests = []
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.port}"

    def accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn):
        try:
            conn.settimeout(TIMEOUT_S)
            f = conn.makefile("rb")
            head = b""
            while True:
                line = f.readline(65536)
                if not line:
                    return
                head += line
                if line in (b"\r\n", b"\n"):
                    break
            lines = head.decode("latin-1").split("\r\n")
            method, path = (lines[0].split(" ") + ["", ""])[:2]
            length, chunked = 0, False
            kept = []
            for l in lines[1:]:
                name, _, value = l.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip() or 0)
                    continue
                if name.strip().lower() == "transfer-encoding" and "chunked" in value.lower():
                    chunked = True
                    continue
                if l:
                    kept.append(l)
            if chunked:
                body = b""
                while True:
                    size = int(f.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        f.readline()
                        break
                    body += f.read(size)
                    f.readline()
            else:
                body = f.read(length) if length else b""
            with self.lock:
                self.requests.append((method, path, body))
                first = next((b for m, p, b in self.requests if self.endpoint in p), None)
            if self.endpoint in path and first is not body:
                a, b = conversation(first), conversation(body)
                if a is not None and b is not None and len(b) > len(a):
                    conn.sendall(
                        b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
                        + f"content-length: {len(REFUSAL)}\r\nconnection: close\r\n\r\n".encode()
                        + REFUSAL
                    )
                    return
            up = socket.create_connection(self.upstream, timeout=TIMEOUT_S)
            head = "\r\n".join([lines[0], *kept, f"content-length: {len(body)}", "", ""]).encode("latin-1")
            up.sendall(head + body)
            while True:
                data = up.recv(65536)
                if not data:
                    break
                conn.sendall(data)
            up.close()
        except OSError:
            pass
        finally:
            conn.close()

    def close(self):
        self.closed = True
        self.sock.close()

    def counts(self):
        """(requests, retries, follow-ups) to the streaming endpoint, and
        the follow-up bodies."""
        with self.lock:
            reqs = [b for m, p, b in self.requests if self.endpoint in p]
        if not reqs:
            return 0, 0, 0, []
        first = conversation(reqs[0])
        retries, follow = 0, []
        for b in reqs[1:]:
            c = conversation(b)
            if first is not None and c is not None and len(c) > len(first):
                follow.append(b)
            else:
                retries += 1
        return len(reqs), retries, len(follow), follow


def contained_env(home):
    """The environment of one run: HOME and the XDG and temporary
    directories inside `home`, no proxy, none of the caller's API keys or
    settings, telemetry and update checks off."""
    keep = ("PATH", "LANG", "LC_ALL", "TERM", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = f"{NODE.parent}:{env.get('PATH', '/usr/bin:/bin')}"
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state"), ("TMPDIR", "tmp")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / sub)
    env["HOME"] = str(home)
    env["NO_PROXY"] = env["no_proxy"] = "*"
    env["CI"] = "true"
    env["NO_COLOR"] = "1"
    return env


def run_app(cmd, env, cwd):
    """(exit code, stdout, stderr) of one bounded run; (None, …) on timeout."""
    try:
        out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
        return out.returncode, out.stdout, out.stderr
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), ""


def json_lines(s):
    out = []
    for line in s.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


# ---- Claude Code ---------------------------------------------------------


def claude_code(job, relay, home, work):
    """`claude -p hi --output-format stream-json --verbose`, no tools, one
    turn. Its messages: the `assistant` events (one per content block:
    text, tool_use) and the closing `result` event (`is_error`, `result`,
    `stop_reason`, `usage`)."""
    env = contained_env(home)
    env.update(
        {
            "ANTHROPIC_BASE_URL": relay.origin,
            "ANTHROPIC_API_KEY": "sk-ant-harness",
            "CLAUDE_CODE_MAX_RETRIES": "0",
            "CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "API_TIMEOUT_MS": str((TIMEOUT_S - 10) * 1000),
        }
    )
    cmd = [
        str(AGENTS_BIN / "claude"), "-p", PROMPT, "--output-format", "stream-json", "--verbose",
        "--tools", "", "--strict-mcp-config", "--no-session-persistence", "--max-turns", "1",
        "--model", "claude-sonnet-4-5",
    ]
    code, out, err = run_app(cmd, env, work)
    events = json_lines(out)
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    if code is None:
        return failure("Timeout", f"no end after {TIMEOUT_S} s")
    if result is None:
        return failure("Exit", f"exit {code}: " + (err or out or "no output"))
    _, _, follow, _ = relay.counts()
    text, calls = "", []
    first_id = None
    for e in events:
        if e.get("type") != "assistant":
            continue
        msg_id = (e.get("message") or {}).get("id")
        first_id = first_id or msg_id
        if follow and msg_id != first_id:
            # After a refused follow-up it shows the API error as a message
            # of its own: only the replayed turn's message is its reading.
            break
        for block in (e.get("message") or {}).get("content") or []:
            if block.get("type") == "text":
                text += block.get("text") or ""
            elif block.get("type") == "tool_use":
                calls.append({"id": block.get("id"), "name": block.get("name"), "arguments": json.dumps(block.get("input"))})
    if follow:
        # It went on after the replayed turn (after `max_tokens` it asks
        # the model to resume; after a tool call it would send the result),
        # and the relay refused: what it showed of the replayed turn is its
        # assistant messages; its finish and usage are those of the whole
        # exchange, not compared.
        return {"text": text, "tool_calls": calls}
    if result.get("is_error") and result.get("subtype") != "error_max_turns":
        return failure("ClaudeCodeError", result.get("result") or result.get("subtype") or "is_error")
    u = result.get("usage") or {}
    return {
        "text": text,
        "tool_calls": calls,
        "finish_reason": result.get("stop_reason"),
        "usage": {"input_tokens": u.get("input_tokens"), "output_tokens": u.get("output_tokens")} if u else None,
    }


# ---- Codex CLI -----------------------------------------------------------


def codex(job, relay, home, work):
    """`codex exec --json --ephemeral -s read-only hi`, with a model provider
    of config.toml whose base_url is the relay and whose wire_api is
    `responses` (Codex 0.171 refuses `chat`). Its JSON lines: `item.completed`
    (`agent_message` text), `turn.completed` (usage) or `turn.failed` /
    `error`. It prints no function calls: they are read from its follow-up
    request (the `function_call` items it sends back), which the relay
    refuses."""
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        "\n".join(
            [
                'model = "gpt-5-mini"',
                'model_provider = "replay"',
                "check_for_update_on_startup = false",
                "[analytics]",
                "enabled = false",
                # Its curated-plugin sync looks up github.com at start.
                "[features]",
                "plugins = false",
                "[model_providers.replay]",
                'name = "replay"',
                f'base_url = "{relay.origin}/v1"',
                'env_key = "OPENAI_API_KEY"',
                'wire_api = "responses"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                f"stream_idle_timeout_ms = {(TIMEOUT_S - 10) * 1000}",
                "",
            ]
        ),
        encoding="utf-8",
    )
    env = contained_env(home)
    env.update({"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "sk-harness"})
    cmd = [str(AGENTS_BIN / "codex"), "exec", "--json", "--ephemeral", "-s", "read-only", "--skip-git-repo-check", PROMPT]
    code, out, err = run_app(cmd, env, work)
    if code is None:
        return failure("Timeout", f"no end after {TIMEOUT_S} s")
    events = json_lines(out)
    _, _, _, follow = relay.counts()
    calls = []
    if follow:
        first = {json.dumps(i, sort_keys=True) for i in conversation(relay_first(relay)) or []}
        for item in conversation(follow[0]) or []:
            if isinstance(item, dict) and item.get("type") == "function_call" and json.dumps(item, sort_keys=True) not in first:
                calls.append({"id": item.get("call_id"), "name": item.get("name"), "arguments": item.get("arguments")})
    text = "".join(
        (e.get("item") or {}).get("text") or ""
        for e in events
        if e.get("type") == "item.completed" and (e.get("item") or {}).get("type") == "agent_message"
    )
    failed = next((e for e in events if e.get("type") in ("turn.failed", "error")), None)
    if failed is not None and not follow:
        msg = (failed.get("error") or {}).get("message") if failed.get("type") == "turn.failed" else failed.get("message")
        return failure("CodexError", msg or json.dumps(failed))
    done = next((e for e in events if e.get("type") == "turn.completed"), None)
    if done is None and not follow:
        return failure("Exit", f"exit {code}: " + (err.strip().splitlines() or ["no output"])[-1])
    u = (done or {}).get("usage") or {}
    shown = {"text": text, "tool_calls": calls}
    if not follow:
        shown["usage"] = {"input_tokens": u.get("input_tokens"), "output_tokens": u.get("output_tokens")} if u else None
    return shown


def relay_first(relay):
    with relay.lock:
        return next((b for m, p, b in relay.requests if relay.endpoint in p), b"")



# ---- Gemini CLI ----------------------------------------------------------

# Gemini CLI's own tools, all excluded: a capture's call of one of these
# names must not run.
GEMINI_CLI_TOOLS = [
    "read_file", "write_file", "replace", "run_shell_command", "glob", "search_file_content",
    "grep_search", "list_directory", "read_many_files", "web_fetch", "google_web_search",
    "save_memory", "write_todos",
]


def gemini_cli(job, relay, home, work):
    """`gemini -p hi -m gemini-2.5-flash --skip-trust -o stream-json`, with
    settings.json choosing Gemini API key auth (GOOGLE_GEMINI_BASE_URL is the
    relay), usage statistics, telemetry and updates off, its own tools
    excluded. Its JSON lines: assistant `message` deltas, `tool_use`, and
    the closing `result` (`status`, `stats` with token counts) or `error`.
    The function calls are read from its follow-up request (the model turn's
    `functionCall` parts), which the relay refuses, or else from its
    `tool_use` events."""
    gdir = home / ".gemini"
    gdir.mkdir()
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "tools": {"exclude": GEMINI_CLI_TOOLS},
    }
    (gdir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    env = contained_env(home)
    env.update(
        {
            "GEMINI_API_KEY": "harness-gemini-key",
            "GOOGLE_GEMINI_BASE_URL": relay.origin,
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
    )
    cmd = [str(NODE), str(AGENTS_BIN / "gemini"), "-p", PROMPT, "-m", "gemini-2.5-flash", "--skip-trust", "-o", "stream-json"]
    code, out, err = run_app(cmd, env, work)
    if code is None:
        return failure("Timeout", f"no end after {TIMEOUT_S} s")
    events = json_lines(out)
    _, _, _, follow = relay.counts()
    calls = []
    if follow:
        convo = conversation(follow[0]) or []
        for turn in convo[len(conversation(relay_first(relay)) or []):]:
            if isinstance(turn, dict) and turn.get("role") == "model":
                for part in turn.get("parts") or []:
                    fc = part.get("functionCall") if isinstance(part, dict) else None
                    if isinstance(fc, dict):
                        calls.append({"id": fc.get("id"), "name": fc.get("name"), "arguments": json.dumps(fc.get("args") or {})})
    else:
        for e in events:
            if e.get("type") == "tool_use":
                calls.append({"id": e.get("tool_id"), "name": e.get("tool_name"), "arguments": json.dumps(e.get("parameters") or {})})
    text = "".join(e.get("content") or "" for e in events if e.get("type") == "message" and e.get("role") == "assistant")
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    error = next((e for e in events if e.get("type") == "error"), None)
    if not follow and (result is None or result.get("status") != "success"):
        why = (result or {}).get("error") or error or {}
        msg = why.get("message") if isinstance(why, dict) else str(why)
        if not msg:
            msg = f"exit {code}: " + ((err.strip().splitlines() or ["no output"])[-1])
        return failure("GeminiCliError", msg)
    st = (result or {}).get("stats") or {}
    usage = None
    if st:
        usage = {"promptTokenCount": st.get("input_tokens"), "candidatesTokenCount": st.get("output_tokens"), "totalTokenCount": st.get("total_tokens")}
    shown = {"text": text, "tool_calls": calls}
    if not follow:
        shown["usage"] = usage
    return shown


# ---- opencode ------------------------------------------------------------

# The AI SDK provider package opencode is given for each dialect (each is
# bundled in its binary; none is installed at run time) and the base URL
# each takes (all three include the version).
OPENCODE_PROVIDERS = {
    "chat": "@ai-sdk/openai-compatible",
    "messages": "@ai-sdk/anthropic",
    "responses": "@ai-sdk/openai",
}
OPENCODE_PLUGIN = CLIENTS_DIR / "agents" / "node_modules" / "@opencode-ai" / "plugin"


def opencode_version():
    lock = json.loads((CLIENTS_DIR / "agents" / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/opencode-ai"]["version"]


def opencode_usage(dialect, tokens):
    """opencode's step tokens ({input, output, reasoning, cache: {read,
    write}, total}) in the dialect's own counts: its `input` leaves the
    cache reads and writes out, its `output` the reasoning."""
    if not isinstance(tokens, dict):
        return None
    cache = tokens.get("cache") or {}
    inp, out = tokens.get("input") or 0, tokens.get("output") or 0
    read, write, reasoning = cache.get("read") or 0, cache.get("write") or 0, tokens.get("reasoning") or 0
    if dialect == "messages":
        return {"input_tokens": inp, "output_tokens": out}
    prompt, completion = inp + read + write, out + reasoning
    if dialect == "chat":
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": tokens.get("total", prompt + completion)}
    return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": tokens.get("total", prompt + completion)}


def opencode(dialect):
    def run(job, relay, home, work):
        """`opencode run hi --format json --pure --title hi`, a provider of
        opencode.json (`npm` the dialect's AI SDK package, `baseURL` the
        relay's `/v1`, one model), every tool permission denied, models.dev
        fetch, autoupdate, sharing and LSP downloads off. `--title` names
        the session, so it sends no title request of its own; `--pure`
        loads no plugin. Its config directory is pre-seeded with the pinned
        `@opencode-ai/plugin` (package.json, package-lock.json and
        node_modules), so the install it runs there at start finds it in
        place and asks no registry. Its JSON lines: `text` parts,
        `tool_use` parts (`callID`, `tool`, `state.input`: a call of a tool
        it does not have ends in error, nothing runs), `step_finish`
        (`tokens`) and `error`; the replayed turn is the first step's
        message."""
        conf = home / ".config" / "opencode"
        (conf / "node_modules" / "@opencode-ai").mkdir(parents=True, exist_ok=True)
        (conf / "node_modules" / "@opencode-ai" / "plugin").symlink_to(OPENCODE_PLUGIN)
        version = opencode_version()
        (conf / "package.json").write_text(json.dumps({"dependencies": {"@opencode-ai/plugin": version}}), encoding="utf-8")
        (conf / "package-lock.json").write_text(
            json.dumps({"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": version}}}}),
            encoding="utf-8",
        )
        (conf / "opencode.json").write_text(
            json.dumps(
                {
                    "autoupdate": False,
                    "share": "disabled",
                    "provider": {
                        "replay": {
                            "npm": OPENCODE_PROVIDERS[dialect],
                            "name": "replay",
                            "options": {"baseURL": f"{relay.origin}/v1", "apiKey": "sk-harness", "timeout": (TIMEOUT_S - 10) * 1000},
                            "models": {"m": {"name": "m"}},
                        }
                    },
                    "model": "replay/m",
                    "small_model": "replay/m",
                    "permission": {"*": "deny"},
                }
            ),
            encoding="utf-8",
        )
        env = contained_env(home)
        for flag in ("MODELS_FETCH", "AUTOUPDATE", "SHARE", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "PROJECT_CONFIG", "CLAUDE_CODE", "EXTERNAL_SKILLS"):
            env[f"OPENCODE_DISABLE_{flag}"] = "1"
        cmd = [str(AGENTS_BIN / "opencode"), "run", PROMPT, "--format", "json", "--pure", "--title", PROMPT]
        code, out, err = run_app(cmd, env, work)
        if code is None:
            return failure("Timeout", f"no end after {TIMEOUT_S} s")
        events = json_lines(out)
        _, _, follow, _ = relay.counts()
        first = next((e.get("part", {}).get("messageID") for e in events if e.get("type") == "step_start"), None)
        text, calls, tokens = "", [], None
        for e in events:
            part = e.get("part") or {}
            if part.get("messageID") != first:
                continue
            if e.get("type") == "text":
                text += part.get("text") or ""
            elif e.get("type") == "tool_use":
                state = part.get("state") or {}
                calls.append({"id": part.get("callID"), "name": part.get("tool"), "arguments": json.dumps(state.get("input"))})
            elif e.get("type") == "step_finish" and tokens is None:
                tokens = part.get("tokens")
        error = next((e for e in events if e.get("type") == "error"), None)
        if not follow and (error is not None or first is None):
            why = (error or {}).get("error") or {}
            msg = (why.get("data") or {}).get("message") or why.get("name") if isinstance(why, dict) else str(why)
            if not msg:
                msg = f"exit {code}: " + ((err.strip().splitlines() or ["no output"])[-1])
            return failure("OpencodeError", msg)
        shown = {"text": text, "tool_calls": calls}
        if not follow:
            shown["usage"] = opencode_usage(dialect, tokens)
        return shown

    return run


CLIENTS = {
    "claude-code": ("messages", claude_code),
    "codex": ("responses", codex),
    "gemini-cli": ("gemini", gemini_cli),
    "opencode-chat": ("chat", opencode("chat")),
    "opencode-messages": ("messages", opencode("messages")),
    "opencode-responses": ("responses", opencode("responses")),
}


def run_one(name, job):
    dialect, fn = CLIENTS[name]
    relay = Relay(job["origin"], ENDPOINTS[dialect])
    home = Path(tempfile.mkdtemp(prefix=f"sselint-{name}-"))
    work = home / "work"
    work.mkdir()
    try:
        try:
            outcome = fn(job, relay, home, work)
        except Exception as e:  # noqa: BLE001 (a failure of ours, said as such)
            outcome = failure("HarnessError", f"{type(e).__name__}: {e}")
        n, retries, follow, _ = relay.counts()
        outcome["requests"] = n
        outcome["retries"] = retries
        outcome["follow_ups"] = follow
        return outcome
    finally:
        relay.close()
        shutil.rmtree(home, ignore_errors=True)


def main():
    jobs = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    runs = [(job, name) for job in jobs for name in job["clients"] if name in CLIENTS]
    # Each app waits on its own start-up more than on the CPU: a few at once.
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = list(pool.map(lambda r: run_one(r[1], r[0]), runs))
    out = {job["id"]: {} for job in jobs}
    for (job, name), outcome in zip(runs, outcomes):
        out[job["id"]][name] = outcome
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
