// The Node clients of the harness (see clients/README.md). Reads a job list
// (JSON: [{id, base_url, origin, tools, clients}]) from the file named in
// argv[2], runs each of the job's clients that is a Node one against
// `sselint replay`, and prints one JSON object:
// {job id: {client name: outcome}}.
//
// An outcome is what an application using that client ends up with:
// {text, refusal, tool_calls: [{id, name, arguments}], finish_reason, usage}
// or {error: {type, message}} when the client threw (message: first line).
// finish_reason is the dialect's own: Chat's finish_reason, the Responses
// status, the Messages stop_reason; usage keeps the dialect's token names.
// Each client is used the way its documentation shows.

import fs from "node:fs";
import OpenAI from "openai";
import { ResponsesWS } from "openai/resources/responses/ws";
import { OpenAIRealtimeWS } from "openai/realtime/ws";
import { OpenAIRealtimeWS as OpenAIRealtimeWSBeta } from "openai/beta/realtime/ws";
import net from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { streamText, jsonSchema, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { GoogleGenAI } from "@google/genai";
import { Ollama } from "ollama";
import { createOllama } from "ollama-ai-provider-v2";
import { BedrockRuntimeClient, ConverseStreamCommand, InvokeModelWithResponseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock";
import { createBedrockAnthropic } from "@ai-sdk/amazon-bedrock/anthropic";

const MODEL = "gpt-4o-mini";
const MESSAGES = [{ role: "user", content: "hi" }];
const TIMEOUT_MS = 15000;

function firstLine(s) {
  return String(s ?? "").split("\n")[0].slice(0, 300);
}

function failure(e) {
  return { error: { type: e?.constructor?.name ?? typeof e, message: firstLine(e?.message ?? e) } };
}

function client(baseURL) {
  return new OpenAI({ apiKey: "sk-harness", baseURL, maxRetries: 0, timeout: TIMEOUT_MS });
}

// openai-node, raw iteration: the loop of the SDK's README and of OpenAI's
// function-calling guide (a call is stored on its first fragment, later
// fragments append their arguments).
async function openaiNodeRaw(job) {
  const stream = await client(job.base_url).chat.completions.create({
    model: MODEL,
    messages: MESSAGES,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let refusal = null;
  let finish = null;
  let usage = null;
  const calls = new Map();
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta;
    text += delta?.content ?? "";
    if (delta?.refusal) refusal = (refusal ?? "") + delta.refusal;
    for (const tc of delta?.tool_calls ?? []) {
      if (!calls.has(tc.index)) {
        calls.set(tc.index, { id: tc.id ?? null, name: tc.function?.name ?? null, arguments: tc.function?.arguments ?? "" });
      } else {
        calls.get(tc.index).arguments += tc.function?.arguments ?? "";
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { text, refusal, tool_calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]), finish_reason: finish, usage };
}

// openai-node's helper: chat.completions.stream() and finalChatCompletion().
async function openaiNodeHelper(job) {
  const runner = client(job.base_url).chat.completions.stream({
    model: MODEL,
    messages: MESSAGES,
    stream_options: { include_usage: true },
  });
  const done = await runner.finalChatCompletion();
  const choice = done.choices[0];
  const msg = choice?.message ?? {};
  return {
    text: msg.content ?? "",
    refusal: msg.refusal ?? null,
    tool_calls: (msg.tool_calls ?? []).map((c) => ({ id: c.id ?? null, name: c.function?.name ?? null, arguments: c.function?.arguments ?? "" })),
    finish_reason: choice?.finish_reason ?? null,
    usage: done.usage ?? null,
  };
}

// The Vercel AI SDK: streamText() reading `fullStream`, the same loop for
// each provider (Chat through @ai-sdk/openai-compatible, Responses through
// @ai-sdk/openai's `responses()`, Messages through @ai-sdk/anthropic). The
// tools the stream calls are declared (as a request that got tool calls
// would have), without `execute`, so the SDK reports the calls and stops.
// An `error` part is what the application sees as a failure: `raised`.
// A tool call the provider executed itself (`providerExecuted`, a server
// tool) is not collected, as the raw Anthropic loops collect only
// `tool_use` blocks.
// Returns the text, the tool calls, the `finish` part (`finishReason`,
// `rawFinishReason`) and its `totalUsage`, for the caller to put in its
// dialect's terms, and the reasoning text (`reasoning-delta` parts).
async function vercelAiStream(job, model) {
  const tools = {};
  for (const name of job.tools ?? []) {
    if (name) tools[name] = tool({ inputSchema: jsonSchema({ type: "object" }) });
  }
  const result = streamText({
    model,
    prompt: "hi",
    maxRetries: 0,
    tools,
    abortSignal: AbortSignal.timeout(TIMEOUT_MS),
  });
  let text = "";
  let reasoning = null;
  let finish = null;
  let error = null;
  const calls = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text ?? "";
    else if (part.type === "reasoning-delta") reasoning = (reasoning ?? "") + (part.text ?? "");
    // A tool the provider ran itself (a server tool) is no call for the
    // application to make; the SDK marks it providerExecuted.
    else if (part.type === "tool-call" && !part.providerExecuted) calls.push({ id: part.toolCallId ?? null, name: part.toolName ?? null, arguments: JSON.stringify(part.input ?? null) });
    else if (part.type === "error" && !error) error = part.error;
    else if (part.type === "finish") finish = part;
  }
  if (error) throw error;
  return { text, calls, finish, reasoning };
}

// Usage as the AI SDK reports it, or null when it reports none.
function aiUsage(finish) {
  const u = finish?.totalUsage;
  return u && (u.inputTokens !== undefined || u.outputTokens !== undefined) ? u : null;
}

// Chat: the raw finish reason is Chat's finish_reason.
async function vercelAi(job) {
  const provider = createOpenAICompatible({ name: "replay", baseURL: job.base_url, apiKey: "sk-harness", includeUsage: true });
  const { text, calls, finish } = await vercelAiStream(job, provider.chatModel(MODEL));
  const u = aiUsage(finish);
  const usage = u ? { prompt_tokens: u.inputTokens ?? null, completion_tokens: u.outputTokens ?? null, total_tokens: u.totalTokens ?? null } : null;
  return { text, refusal: null, tool_calls: calls, finish_reason: finish?.rawFinishReason ?? null, usage };
}

// Responses: @ai-sdk/openai's `responses()` model. The SDK tells the ending
// by `finishReason` plus `rawFinishReason` (the `incomplete_details.reason`
// of response.completed/.incomplete, "error" for response.failed); put back
// as the status an application can tell from them: `interrupted` (no
// terminal event) is none, `error` is failed, a raw reason is incomplete,
// anything else completed.
async function vercelAiResponses(job) {
  const provider = createOpenAI({ baseURL: job.base_url, apiKey: "sk-harness" });
  const { text, calls, finish } = await vercelAiStream(job, provider.responses(MODEL));
  let status = null;
  if (finish && finish.finishReason !== "interrupted") {
    if (finish.finishReason === "error" || finish.rawFinishReason === "error") status = "failed";
    else if (finish.rawFinishReason !== undefined && finish.rawFinishReason !== null) status = "incomplete";
    else status = "completed";
  }
  const u = aiUsage(finish);
  const usage = u ? { input_tokens: u.inputTokens ?? null, output_tokens: u.outputTokens ?? null, total_tokens: u.totalTokens ?? null } : null;
  return { text, refusal: null, tool_calls: calls, finish_reason: status, usage };
}

// Messages: @ai-sdk/anthropic. The raw finish reason is the stop_reason
// (none when the stream ended `interrupted`). The SDK's `inputTokens` adds
// the cache reads and writes to Anthropic's `input_tokens`; its
// `inputTokenDetails.noCacheTokens` is the count Anthropic names
// `input_tokens`, so that is the one compared.
async function vercelAiMessages(job) {
  const provider = createAnthropic({ baseURL: job.base_url, apiKey: "sk-ant-harness" });
  const { text, calls, finish } = await vercelAiStream(job, provider.messages(CLAUDE));
  const u = aiUsage(finish);
  const usage = u ? { input_tokens: u.inputTokenDetails?.noCacheTokens ?? u.inputTokens ?? null, output_tokens: u.outputTokens ?? null } : null;
  return { text, refusal: null, tool_calls: calls, finish_reason: finish?.rawFinishReason ?? null, usage };
}

// The hand-written parser of the seed document (fetch, split on "\n", keep
// "data: " lines, compare [DONE], JSON.parse, append
// choices[0]?.delta?.content), which stands for the many home-made ones.
async function handWritten(job) {
  const res = await fetch(job.base_url + "/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-harness" },
    body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let out = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("data: ")) continue;
      const data = line.slice(6).trim();
      if (data === "[DONE]") return { text: out, refusal: null, tool_calls: null, finish_reason: null, usage: null };
      const chunk = JSON.parse(data);
      out += chunk.choices[0]?.delta?.content ?? "";
    }
  }
  return { text: out, refusal: null, tool_calls: null, finish_reason: null, usage: null };
}

function pick(u, keys) {
  if (u === null || u === undefined) return null;
  return Object.fromEntries(keys.map((k) => [k, u[k] ?? null]));
}

const RESPONSES_USAGE = ["input_tokens", "output_tokens", "total_tokens"];
const MESSAGES_USAGE = ["input_tokens", "output_tokens"];
const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

// openai-node, raw iteration of responses.create({stream: true}), collecting
// what the streaming guides collect: text from response.output_text.delta,
// each function call from its response.output_item.added item plus its
// response.function_call_arguments.delta fragments, the status and usage
// from the terminal event.
async function openaiNodeResponses(job) {
  const stream = await client(job.base_url).responses.create({ model: MODEL, input: "hi", stream: true });
  let text = "";
  let refusal = null;
  let status = null;
  let usage = null;
  const calls = new Map();
  for await (const event of stream) {
    switch (event?.type) {
      case "response.output_text.delta":
        text += event.delta ?? "";
        break;
      case "response.refusal.delta":
        refusal = (refusal ?? "") + (event.delta ?? "");
        break;
      case "response.output_item.added":
        if (event.item?.type === "function_call") {
          calls.set(event.output_index, { id: event.item.call_id ?? null, name: event.item.name ?? null, arguments: event.item.arguments ?? "" });
        }
        break;
      case "response.function_call_arguments.delta": {
        const call = calls.get(event.output_index);
        if (call) call.arguments += event.delta ?? "";
        break;
      }
      default:
        if (TERMINAL.has(event?.type)) {
          status = event.response?.status ?? null;
          usage = pick(event.response?.usage, RESPONSES_USAGE);
        }
    }
  }
  return { text, refusal, tool_calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]), finish_reason: status, usage };
}

// What an application collects from a Responses socket, response by
// response, as openaiNodeResponses collects one stream (py_clients.py's
// SocketAnswers: events given to the oldest open response of their lane,
// `stream_id`, first in, first out as the WebSocket-mode guide documents).
class SocketAnswers {
  constructor() {
    this.responses = [];
    this.open = new Map();
    this.errors = [];
  }
  _new(lane, id) {
    const r = { id, text: "", refusal: null, calls: new Map(), finish_reason: null, usage: null };
    this.responses.push(r);
    if (!this.open.has(lane)) this.open.set(lane, []);
    this.open.get(lane).push(r);
    return r;
  }
  _current(lane) {
    const q = this.open.get(lane) ?? [];
    return q.length ? q[0] : this._new(lane, null);
  }
  feed(event) {
    const kind = event?.type;
    const lane = event?.stream_id ?? null;
    if (kind === "response.created") {
      this._new(lane, event.response?.id ?? null);
      return;
    }
    if (TERMINAL.has(kind)) {
      const q = this.open.get(lane) ?? [];
      const named = q.find((x) => x.id !== null && x.id === event.response?.id);
      const r = named ?? this._current(lane);
      const at = q.indexOf(r);
      if (at >= 0) q.splice(at, 1);
      r.id ??= event.response?.id ?? null;
      r.finish_reason = event.response?.status ?? null;
      r.usage = pick(event.response?.usage, RESPONSES_USAGE);
      return;
    }
    if (typeof kind !== "string" || !kind.startsWith("response.")) return;
    const r = this._current(lane);
    switch (kind) {
      case "response.output_text.delta":
        r.text += event.delta ?? "";
        break;
      case "response.refusal.delta":
        r.refusal = (r.refusal ?? "") + (event.delta ?? "");
        break;
      case "response.output_item.added":
        if (event.item?.type === "function_call") {
          r.calls.set(event.output_index, { id: event.item.call_id ?? null, name: event.item.name ?? null, arguments: event.item.arguments ?? "" });
        }
        break;
      case "response.function_call_arguments.delta": {
        const call = r.calls.get(event.output_index);
        if (call) call.arguments += event.delta ?? "";
        break;
      }
    }
  }
  // Whether a response has started and not ended: the application waits
  // for its terminal event.
  running() {
    return [...this.open.values()].some((q) => q.length > 0);
  }
  outcome() {
    return {
      responses: this.responses.map((r) => ({
        id: r.id,
        text: r.text,
        refusal: r.refusal,
        tool_calls: [...r.calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]),
        finish_reason: r.finish_reason,
        usage: r.usage,
      })),
      errors: this.errors,
    };
  }
}

// openai-node's Responses WebSocket client (`ResponsesWS` from
// "openai/resources/responses/ws", over the `ws` package), used as its docs
// show: `for await` over the socket's records. Each client message of the
// capture is sent with `send()` once the messages the capture shows before
// it have arrived; `message` records (server events) and `raw` ones (what
// the SDK could not read as an event) count as arrived; `message` events
// are collected by SocketAnswers. An `error` record (the SDK's
// WebSocketError, for an `error` event or a socket failure) is what the
// application is told went wrong: the outcome is that error. The session
// ends at the `close` record, or when every message of the capture has
// arrived and no response is left running (the application then closes the
// socket); a response still running keeps it waiting, up to the time bound,
// and a capture that ends with the server's close is read to the close.
async function openaiNodeResponsesWs(job) {
  const sends = [...job.socket.sends].sort((a, b) => a.after - b.after);
  const want = job.socket.received;
  // The capture ends with the server's close: the application reads on
  // until the socket closes.
  const closes = job.socket.closes;
  const got = new SocketAnswers();
  const ws = new ResponsesWS(client(job.base_url));
  let seen = 0;
  let error = null;
  const sendDue = () => {
    while (sends.length && sends[0].after <= seen) ws.send(sends.shift().event);
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ws.close({ code: 1000, reason: "harness time bound" });
  }, TIMEOUT_MS);
  try {
    sendDue();
    if (sends.length || seen < want || got.running() || closes) {
      for await (const record of ws) {
        if (record.type === "message" || record.type === "raw") {
          seen += 1;
          if (record.type === "message") got.feed(record.message);
          sendDue();
          if (!sends.length && seen >= want && !got.running() && !closes) break;
        } else if (record.type === "error") {
          error ??= record.error;
          // An `error` event of the server comes as this record alone (the
          // WebSocketError keeps the event as its `error`): it is a message
          // that arrived.
          if (record.error?.error) {
            seen += 1;
            sendDue();
            if (!sends.length && seen >= want && !got.running() && !closes) break;
          }
        } else if (record.type === "close") {
          break;
        }
      }
    }
  } finally {
    clearTimeout(timer);
    ws.close({ code: 1000, reason: "done" });
  }
  if (timedOut) return { error: { type: "Timeout", message: `still waiting after ${TIMEOUT_MS / 1000} s` } };
  if (error) throw error;
  return got.outcome();
}

const REALTIME_MODEL = "gpt-realtime";
// The text and audio-transcript delta events of a Realtime answer, by
// interface (py_clients.py's REALTIME_TEXT).
const REALTIME_TEXT = {
  ga: new Set(["response.output_text.delta", "response.output_audio_transcript.delta"]),
  beta: new Set(["response.text.delta", "response.audio_transcript.delta"]),
};

// What a text-mode application collects from a Realtime session, response
// by response (py_clients.py's RealtimeAnswers).
class RealtimeAnswers {
  constructor(surface) {
    this.textEvents = REALTIME_TEXT[surface];
    this.responses = [];
    this.byId = new Map();
    this.open = [];
  }
  _new(id) {
    const r = { id, text: "", calls: new Map(), finish_reason: null, usage: null };
    this.responses.push(r);
    this.open.push(r);
    if (id != null) this.byId.set(id, r);
    return r;
  }
  _of(id) {
    if (id != null && this.byId.has(id)) return this.byId.get(id);
    return this.open.length ? this.open[0] : this._new(id ?? null);
  }
  feed(event) {
    const kind = event?.type;
    if (kind === "response.created") {
      this._new(event.response?.id ?? null);
    } else if (kind === "response.done") {
      const r = this._of(event.response?.id);
      const at = this.open.indexOf(r);
      if (at >= 0) this.open.splice(at, 1);
      r.finish_reason = event.response?.status ?? null;
      r.usage = pick(event.response?.usage, RESPONSES_USAGE);
    } else if (this.textEvents.has(kind)) {
      this._of(event.response_id).text += event.delta ?? "";
    } else if (kind === "response.output_item.added" && event.item?.type === "function_call") {
      this._of(event.response_id).calls.set(event.item.id, { id: event.item.call_id ?? null, name: event.item.name ?? null, arguments: event.item.arguments ?? "" });
    } else if (kind === "response.function_call_arguments.delta") {
      const call = this._of(event.response_id).calls.get(event.item_id);
      if (call) call.arguments += event.delta ?? "";
    }
  }
  // Whether a response has started and not ended: the application waits
  // for its response.done.
  running() {
    return this.open.length > 0;
  }
  outcome() {
    return {
      responses: this.responses.map((r) => ({ id: r.id, text: r.text, refusal: null, tool_calls: [...r.calls.values()], finish_reason: r.finish_reason, usage: r.usage })),
    };
  }
}

// openai-node's Realtime client in text mode (`OpenAIRealtimeWS` from
// "openai/realtime/ws", over the `ws` package; "openai/beta/realtime/ws"
// where the capture's application spoke the beta interface), used as its
// docs show: `send()` once the socket is open, an `event` listener, and an
// `error` listener (an `error` event of the server, or a message the SDK
// could not parse): the first error is what the application is told went
// wrong, and the outcome is that error. Each client message of the capture
// is sent once the messages the capture shows before it have arrived; the
// session ends when the socket closes, or when every message of the
// capture has arrived and no response is running (the application then
// closes the socket); a running response keeps it waiting, up to the time
// bound. The SDK always dials wss:// (TLS); the replay speaks plain
// WebSocket, so the `ws` package's own `createConnection` option hands it a
// plain TCP connection to the replay (the handshake and frames are the
// SDK's and ws's as ever).
async function openaiNodeRealtime(job) {
  const script = job.socket;
  const sends = [...script.sends].sort((a, b) => a.after - b.after);
  const want = script.received;
  const closes = script.closes;
  const surface = script.beta ? "beta" : "ga";
  const got = new RealtimeAnswers(surface);
  const origin = new URL(job.origin);
  const options = { createConnection: () => net.connect({ host: origin.hostname, port: Number(origin.port) }) };
  const Realtime = surface === "beta" ? OpenAIRealtimeWSBeta : OpenAIRealtimeWS;
  const rt = new Realtime({ model: REALTIME_MODEL, options }, client(job.base_url));
  let seen = 0;
  let error = null;
  let timedOut = false;
  rt.on("event", (event) => got.feed(event));
  rt.on("error", (e) => {
    error ??= e;
  });
  await new Promise((resolve) => {
    let over = false;
    const finish = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      finish();
    }, TIMEOUT_MS);
    const sendDue = () => {
      while (sends.length && sends[0].after <= seen) rt.send(sends.shift().event);
    };
    const done = () => !sends.length && seen >= want && !got.running() && !closes;
    rt.socket.on("open", () => {
      sendDue();
      if (done()) finish();
    });
    // Registered after the SDK's own listener: each message has been
    // handed to the `event` listener (or reported as an error) by now.
    rt.socket.on("message", () => {
      seen += 1;
      sendDue();
      if (done()) finish();
    });
    rt.socket.on("close", finish);
    rt.socket.on("error", finish);
  });
  rt.close({ code: 1000, reason: "done" });
  if (timedOut) return { error: { type: "Timeout", message: `still waiting after ${TIMEOUT_MS / 1000} s` } };
  if (error) throw error;
  return got.outcome();
}

// openai-node's helper: responses.stream() and finalResponse(), read as its
// docs show (output_text, the function_call items, status, usage).
async function openaiNodeResponsesHelper(job) {
  const stream = client(job.base_url).responses.stream({ model: MODEL, input: "hi" });
  const done = await stream.finalResponse();
  let refusal = null;
  const calls = [];
  for (const item of done.output ?? []) {
    if (item.type === "message") {
      for (const part of item.content ?? []) if (part.type === "refusal") refusal = (refusal ?? "") + (part.refusal ?? "");
    } else if (item.type === "function_call") {
      calls.push({ id: item.call_id ?? null, name: item.name ?? null, arguments: item.arguments ?? "" });
    }
  }
  return { text: done.output_text ?? "", refusal, tool_calls: calls, finish_reason: done.status ?? null, usage: pick(done.usage, RESPONSES_USAGE) };
}

const CLAUDE = "claude-sonnet-4-5";
const MAX_TOKENS = 1024;

function anthropic(job) {
  return new Anthropic({ apiKey: "sk-ant-harness", baseURL: job.origin, maxRetries: 0, timeout: TIMEOUT_MS });
}

// @anthropic-ai/sdk, raw iteration of messages.create({stream: true}),
// accumulating as an application does: each block by index (text from
// text_delta, a tool_use block's input from its input_json_delta
// fragments), the stop_reason from message_delta, usage from message_start
// updated by each message_delta (its counts are cumulative).
async function anthropicTsRaw(job) {
  const stream = await anthropic(job).messages.create({ model: CLAUDE, max_tokens: MAX_TOKENS, messages: MESSAGES, stream: true });
  const blocks = new Map();
  let stop = null;
  let usage = null;
  for await (const event of stream) {
    switch (event?.type) {
      case "message_start":
        usage = pick(event.message?.usage, MESSAGES_USAGE);
        break;
      case "content_block_start": {
        const cb = event.content_block ?? {};
        blocks.set(event.index, { type: cb.type, text: cb.text ?? "", id: cb.id ?? null, name: cb.name ?? null, startInput: cb.input, json: "" });
        break;
      }
      case "content_block_delta": {
        const block = blocks.get(event.index);
        if (!block) break;
        if (event.delta?.type === "text_delta") block.text += event.delta.text ?? "";
        else if (event.delta?.type === "input_json_delta") block.json += event.delta.partial_json ?? "";
        break;
      }
      case "message_delta":
        stop = event.delta?.stop_reason ?? stop;
        if (event.usage) {
          usage ??= pick({}, MESSAGES_USAGE);
          for (const k of MESSAGES_USAGE) if (event.usage[k] !== undefined && event.usage[k] !== null) usage[k] = event.usage[k];
        }
        break;
    }
  }
  let text = "";
  const calls = [];
  for (const [, b] of [...blocks.entries()].sort((a, b) => a[0] - b[0])) {
    if (b.type === "text") text += b.text;
    else if (b.type === "tool_use") calls.push({ id: b.id, name: b.name, arguments: b.json !== "" ? b.json : JSON.stringify(b.startInput ?? {}) });
  }
  return { text, refusal: null, tool_calls: calls, finish_reason: stop, usage };
}

// @anthropic-ai/sdk's helper: messages.stream() and finalMessage(): its text
// blocks, tool_use blocks (input as JSON), stop_reason, usage.
async function anthropicTsHelper(job) {
  const stream = anthropic(job).messages.stream({ model: CLAUDE, max_tokens: MAX_TOKENS, messages: MESSAGES });
  const done = await stream.finalMessage();
  let text = "";
  const calls = [];
  for (const block of done.content ?? []) {
    if (block.type === "text") text += block.text ?? "";
    else if (block.type === "tool_use") calls.push({ id: block.id ?? null, name: block.name ?? null, arguments: JSON.stringify(block.input ?? null) });
  }
  return { text, refusal: null, tool_calls: calls, finish_reason: done.stop_reason ?? null, usage: pick(done.usage, MESSAGES_USAGE) };
}

const GEMINI = "gemini-2.5-flash";
// usageMetadata's counts, as the API names them.
const GEMINI_USAGE = ["promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount"];

// @google/genai, raw iteration of models.generateContentStream(),
// accumulating as google-genai does in py_clients.py: each chunk's `text`
// getter (candidate 0's text parts that are not thoughts) and
// `functionCalls` getter (candidate 0's functionCall parts, args as JSON),
// candidate 0's thought text as reasoning, the last finishReason seen, the
// last usageMetadata seen. Pointed at the replay by `httpOptions.baseUrl`;
// without `retryOptions` it makes one attempt.
async function googleGenaiJs(job) {
  const ai = new GoogleGenAI({ apiKey: "harness-gemini-key", httpOptions: { baseUrl: job.origin, timeout: TIMEOUT_MS } });
  const stream = await ai.models.generateContentStream({ model: GEMINI, contents: "hi" });
  let text = "";
  let reasoning = null;
  let finish = null;
  let usage = null;
  const calls = [];
  for await (const chunk of stream) {
    text += chunk.text ?? "";
    for (const fc of chunk.functionCalls ?? []) calls.push({ id: fc.id ?? null, name: fc.name ?? null, arguments: JSON.stringify(fc.args ?? {}) });
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) if (part.thought && part.text) reasoning = (reasoning ?? "") + part.text;
    if (candidate?.finishReason) finish = candidate.finishReason;
    if (chunk.usageMetadata) usage = pick(chunk.usageMetadata, GEMINI_USAGE);
  }
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: finish, usage };
}

// Gemini through the Vercel AI SDK: @ai-sdk/google, whose base URL includes
// the version (`…/v1beta`). The finish is its raw finish reason (the
// finishReason as sent; none when the stream ended without one). Its usage is
// put back in usageMetadata's terms: `inputTokens` is promptTokenCount,
// `outputTokens` adds candidates and thoughts (its
// `outputTokenDetails.reasoningTokens`), `totalTokens` is totalTokenCount.
async function vercelAiGoogle(job) {
  const provider = createGoogleGenerativeAI({ baseURL: job.origin + "/v1beta", apiKey: "harness-gemini-key" });
  const { text, calls, finish, reasoning } = await vercelAiStream(job, provider(GEMINI));
  const u = aiUsage(finish);
  let usage = null;
  if (u) {
    const thoughts = u.outputTokenDetails?.reasoningTokens ?? u.reasoningTokens ?? null;
    const output = u.outputTokens ?? null;
    usage = {
      promptTokenCount: u.inputTokens ?? null,
      candidatesTokenCount: output === null ? null : output - (thoughts ?? 0),
      thoughtsTokenCount: thoughts,
      totalTokenCount: u.totalTokens ?? null,
    };
  }
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: finish?.rawFinishReason ?? null, usage };
}

// Ollama's native API (`/api/chat`, `/api/generate`, NDJSON lines).
const OLLAMA_MODEL = "llama3.2";

// A tool call of an Ollama line as the application gets it: the function's
// name and arguments (an object, encoded as JSON for the comparison), the id
// where the line has one.
function ollamaToolCall(tc) {
  const args = tc?.function?.arguments;
  return { id: tc?.id ?? null, name: tc?.function?.name ?? null, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
}

// ollama-js, as its README's streaming example: `for await` over
// `new Ollama({host}).chat({stream: true})` (or `generate()` for a stream of
// `/api/generate`), appending `message.content` (`response`) and
// `message.thinking` (`thinking`), collecting `message.tool_calls`, keeping
// `done_reason` and the counts of the part that says `done`. The library
// takes no timeout: its fetch gets the harness's bound.
async function ollamaJs(job) {
  const client = new Ollama({
    host: job.origin,
    fetch: (url, init) => fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS) }),
  });
  const generate = job.api === "generate";
  const parts = generate
    ? await client.generate({ model: OLLAMA_MODEL, prompt: "hi", stream: true })
    : await client.chat({ model: OLLAMA_MODEL, messages: MESSAGES, stream: true });
  let text = "";
  let reasoning = null;
  let finish = null;
  let usage = null;
  const calls = [];
  for await (const part of parts) {
    const source = generate ? part : part?.message;
    text += (generate ? source?.response : source?.content) ?? "";
    if (source?.thinking) reasoning = (reasoning ?? "") + source.thinking;
    for (const tc of source?.tool_calls ?? []) calls.push(ollamaToolCall(tc));
    if (part?.done) {
      finish = part.done_reason ?? null;
      usage = pick(part, OLLAMA_USAGE);
    }
  }
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: finish, usage };
}

const OLLAMA_USAGE = ["prompt_eval_count", "eval_count"];

// Ollama through the Vercel AI SDK: ollama-ai-provider-v2 (the community
// provider the AI SDK's docs list for Ollama, written for AI SDK 7), its chat
// model (`/api/chat`), or its completion model for a stream of
// `/api/generate`. The finish is its raw finish reason (the done_reason as
// sent, or `tool_calls`, which it reports for a stream that called tools);
// usage is put back in Ollama's terms (`inputTokens` is prompt_eval_count,
// `outputTokens` eval_count).
async function vercelAiOllama(job) {
  const provider = createOllama({ baseURL: job.origin + "/api" });
  const model = job.api === "generate" ? provider.completion(OLLAMA_MODEL) : provider.chat(OLLAMA_MODEL);
  const { text, calls, finish, reasoning } = await vercelAiStream(job, model);
  const u = aiUsage(finish);
  const usage = u ? { prompt_eval_count: u.inputTokens ?? null, eval_count: u.outputTokens ?? null } : null;
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: finish?.rawFinishReason ?? null, usage };
}

// Amazon Bedrock. Every client is pointed at the replay (the endpoint or
// base URL), with dummy credentials, region us-east-1 and one attempt:
// nothing goes anywhere else, and the replay does not check the signature.
// The AWS SDK's Bedrock runtime client speaks HTTP/2 by default (its
// NodeHttp2Handler, over TLS to AWS); the replay is plain HTTP/1.1, so it
// gets the SDK's HTTP/1.1 handler (NodeHttpHandler), as an application
// that points it at a local endpoint or a proxy does. Both hand the same
// bytes to the same event-stream decoder.
const BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const CREDENTIALS = { accessKeyId: "AKIDHARNESSEXAMPLE", secretAccessKey: "harness-secret" };
const CONVERSE_USAGE = ["inputTokens", "outputTokens", "totalTokens"];

function bedrock(job) {
  return new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint: job.origin,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ requestTimeout: TIMEOUT_MS, connectionTimeout: TIMEOUT_MS }),
  });
}

// @aws-sdk/client-bedrock-runtime's ConverseStreamCommand, its `stream`
// iterated as the SDK's ConverseStream example does, each event by its
// member: blocks by contentBlockIndex (a tool use from contentBlockStart's
// start.toolUse, its input from the toolUse.input fragments; text and
// reasoningContent.text from contentBlockDelta), messageStop's stopReason,
// metadata's usage.
async function awsSdkConverse(job) {
  const response = await bedrock(job).send(
    new ConverseStreamCommand({ modelId: BEDROCK_MODEL, messages: [{ role: "user", content: [{ text: "hi" }] }] }),
  );
  const blocks = new Map();
  const block = (i) => {
    if (!blocks.has(i)) blocks.set(i, { text: "", id: null, name: null, input: "", tool: false });
    return blocks.get(i);
  };
  let stop = null;
  let usage = null;
  let reasoning = null;
  for await (const event of response.stream ?? []) {
    if (event.contentBlockStart) {
      const tool = event.contentBlockStart.start?.toolUse;
      if (tool) Object.assign(block(event.contentBlockStart.contentBlockIndex), { tool: true, id: tool.toolUseId ?? null, name: tool.name ?? null });
    } else if (event.contentBlockDelta) {
      const b = block(event.contentBlockDelta.contentBlockIndex);
      const delta = event.contentBlockDelta.delta ?? {};
      if (delta.text !== undefined) b.text += delta.text ?? "";
      if (delta.toolUse) b.input += delta.toolUse.input ?? "";
      if (delta.reasoningContent?.text) reasoning = (reasoning ?? "") + delta.reasoningContent.text;
    } else if (event.messageStop) {
      stop = event.messageStop.stopReason ?? null;
    } else if (event.metadata) {
      usage = pick(event.metadata.usage, CONVERSE_USAGE);
    }
  }
  let text = "";
  const calls = [];
  for (const [, b] of [...blocks.entries()].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))) {
    text += b.text;
    if (b.tool) calls.push({ id: b.id, name: b.name, arguments: b.input });
  }
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: stop, usage };
}

// Anthropic Messages events (objects), accumulated as anthropicTsRaw does:
// the text blocks, the tool_use blocks, the thinking text, the stop_reason,
// the usage.
function messagesEvents(events) {
  const blocks = new Map();
  let stop = null;
  let usage = null;
  let reasoning = null;
  for (const event of events) {
    switch (event?.type) {
      case "message_start":
        usage = pick(event.message?.usage, MESSAGES_USAGE);
        break;
      case "content_block_start": {
        const cb = event.content_block ?? {};
        blocks.set(event.index, { type: cb.type, text: cb.text ?? "", id: cb.id ?? null, name: cb.name ?? null, startInput: cb.input, json: "" });
        break;
      }
      case "content_block_delta": {
        if (event.delta?.type === "thinking_delta") reasoning = (reasoning ?? "") + (event.delta.thinking ?? "");
        const block = blocks.get(event.index);
        if (!block) break;
        if (event.delta?.type === "text_delta") block.text += event.delta.text ?? "";
        else if (event.delta?.type === "input_json_delta") block.json += event.delta.partial_json ?? "";
        break;
      }
      case "message_delta":
        stop = event.delta?.stop_reason ?? stop;
        if (event.usage) {
          usage ??= pick({}, MESSAGES_USAGE);
          for (const k of MESSAGES_USAGE) if (event.usage[k] !== undefined && event.usage[k] !== null) usage[k] = event.usage[k];
        }
        break;
    }
  }
  let text = "";
  const calls = [];
  for (const [, b] of [...blocks.entries()].sort((a, b) => a[0] - b[0])) {
    if (b.type === "text") text += b.text;
    else if (b.type === "tool_use") calls.push({ id: b.id, name: b.name, arguments: b.json !== "" ? b.json : JSON.stringify(b.startInput ?? {}) });
  }
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: stop, usage };
}

// @aws-sdk/client-bedrock-runtime's InvokeModelWithResponseStreamCommand
// with a Claude request body, its `body` iterated as the SDK's example does:
// each `chunk` event's `bytes` decoded as UTF-8 JSON (an Anthropic Messages
// event), accumulated as the raw Anthropic loop accumulates them.
async function awsSdkInvoke(job) {
  const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: MAX_TOKENS, messages: MESSAGES });
  const response = await bedrock(job).send(
    new InvokeModelWithResponseStreamCommand({ modelId: BEDROCK_MODEL, contentType: "application/json", accept: "application/json", body }),
  );
  const events = [];
  const decoder = new TextDecoder();
  for await (const event of response.body ?? []) {
    if (event.chunk?.bytes) events.push(JSON.parse(decoder.decode(event.chunk.bytes)));
  }
  if (events.length && !("type" in events[0])) return otherModelEvents(events);
  return messagesEvents(events);
}

// An Invoke stream of another model than Claude, read as py_clients.py's
// other_model_events reads it (each model's own Bedrock example).
function otherModelEvents(events) {
  let text = "";
  let stop = null;
  let usage = null;
  for (const e of events) {
    const m = e["amazon-bedrock-invocationMetrics"];
    if (m) usage = { input_tokens: m.inputTokenCount ?? null, output_tokens: m.outputTokenCount ?? null };
    const outs = e.outputs ?? [];
    const delta = e.contentBlockDelta?.delta ?? {};
    text += e.outputText || e.generation || outs.map((o) => o.text ?? "").join("") || delta.text || "";
    stop = e.completionReason || e.stop_reason || outs.find((o) => o.stop_reason)?.stop_reason || e.messageStop?.stopReason || stop;
  }
  return { text, refusal: null, reasoning: null, tool_calls: [], finish_reason: stop, usage };
}

// Bedrock through the Vercel AI SDK: @ai-sdk/amazon-bedrock. Converse with
// its default model (`/converse-stream`); Invoke with its Anthropic provider
// (`@ai-sdk/amazon-bedrock/anthropic`, `/invoke-with-response-stream`). The
// finish is the raw finish reason (the stopReason / stop_reason as sent);
// usage is put back in the stream's own terms: Converse's inputTokens,
// outputTokens and totalTokens; Invoke's input_tokens (its
// `inputTokenDetails.noCacheTokens`) and output_tokens.
const AWS_SETTINGS = { region: "us-east-1", ...CREDENTIALS };

async function vercelAiBedrock(job) {
  const provider = createAmazonBedrock({ ...AWS_SETTINGS, baseURL: job.origin });
  const { text, calls, finish, reasoning } = await vercelAiStream(job, provider(BEDROCK_MODEL));
  const u = aiUsage(finish);
  const usage = u ? { inputTokens: u.inputTokenDetails?.noCacheTokens ?? u.inputTokens ?? null, outputTokens: u.outputTokens ?? null, totalTokens: u.totalTokens ?? null } : null;
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: finish?.rawFinishReason ?? null, usage };
}

async function vercelAiBedrockAnthropic(job) {
  const provider = createBedrockAnthropic({ ...AWS_SETTINGS, baseURL: job.origin });
  const { text, calls, finish, reasoning } = await vercelAiStream(job, provider(BEDROCK_MODEL));
  const u = aiUsage(finish);
  const usage = u ? { input_tokens: u.inputTokenDetails?.noCacheTokens ?? u.inputTokens ?? null, output_tokens: u.outputTokens ?? null } : null;
  return { text, refusal: null, reasoning, tool_calls: calls, finish_reason: finish?.rawFinishReason ?? null, usage };
}

export const CLIENTS = {
  "openai-node": openaiNodeRaw,
  "openai-node-stream": openaiNodeHelper,
  "vercel-ai": vercelAi,
  "hand-written": handWritten,
  "openai-node-responses": openaiNodeResponses,
  "openai-node-responses-stream": openaiNodeResponsesHelper,
  "openai-node-responses-ws": openaiNodeResponsesWs,
  "openai-node-realtime": openaiNodeRealtime,
  "anthropic-ts": anthropicTsRaw,
  "anthropic-ts-stream": anthropicTsHelper,
  "vercel-ai-responses": vercelAiResponses,
  "vercel-ai-messages": vercelAiMessages,
  "google-genai-js": googleGenaiJs,
  "vercel-ai-google": vercelAiGoogle,
  "ollama-js": ollamaJs,
  "vercel-ai-ollama": vercelAiOllama,
  "aws-sdk-js-converse": awsSdkConverse,
  "vercel-ai-bedrock": vercelAiBedrock,
  "aws-sdk-js-invoke": awsSdkInvoke,
  "vercel-ai-bedrock-invoke": vercelAiBedrockAnthropic,
};

async function runOne(fn, job) {
  try {
    return await fn(job);
  } catch (e) {
    return failure(e);
  }
}

const jobs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = {};
for (const job of jobs) {
  out[job.id] = {};
  for (const name of job.clients) if (CLIENTS[name]) out[job.id][name] = await runOne(CLIENTS[name], job);
}
process.stdout.write(JSON.stringify(out));
