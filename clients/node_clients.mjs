// The Node clients of the harness (see clients/README.md). Reads a job list
// (JSON: [{id, base_url, tools}]) from the file named in argv[2], runs every
// client on every job against `sselint replay`, and prints one JSON object:
// {job id: {client name: outcome}}.
//
// An outcome is what an application using that client ends up with:
// {text, refusal, tool_calls: [{id, name, arguments}], finish_reason, usage}
// or {error: {type, message}} when the client threw (message: first line).
// Each client is used the way its documentation shows.

import fs from "node:fs";
import OpenAI from "openai";
import { streamText, jsonSchema, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";

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

// The Vercel AI SDK: streamText with @ai-sdk/openai-compatible. The tools
// the stream calls are declared (as a request that got tool calls would
// have), without `execute`, so the SDK reports the calls and stops.
async function vercelAi(job) {
  const provider = createOpenAICompatible({ name: "replay", baseURL: job.base_url, apiKey: "sk-harness", includeUsage: true });
  const tools = {};
  for (const name of job.tools ?? []) {
    if (name) tools[name] = tool({ inputSchema: jsonSchema({ type: "object" }) });
  }
  const result = streamText({
    model: provider.chatModel(MODEL),
    prompt: "hi",
    maxRetries: 0,
    tools,
    abortSignal: AbortSignal.timeout(TIMEOUT_MS),
  });
  let text = "";
  let finish = null;
  let usage = null;
  let error = null;
  const calls = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text ?? "";
    else if (part.type === "tool-call") calls.push({ id: part.toolCallId ?? null, name: part.toolName ?? null, arguments: JSON.stringify(part.input ?? null) });
    else if (part.type === "error" && !error) error = part.error;
    else if (part.type === "finish") {
      finish = part.rawFinishReason ?? null;
      const u = part.totalUsage;
      if (u && (u.inputTokens !== undefined || u.outputTokens !== undefined)) {
        usage = { prompt_tokens: u.inputTokens ?? null, completion_tokens: u.outputTokens ?? null, total_tokens: u.totalTokens ?? null };
      }
    }
  }
  if (error) return failure(error);
  return { text, refusal: null, tool_calls: calls, finish_reason: finish, usage };
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

export const CLIENTS = {
  "openai-node": openaiNodeRaw,
  "openai-node-stream": openaiNodeHelper,
  "vercel-ai": vercelAi,
  "hand-written": handWritten,
};

async function runOne(fn, job) {
  try {
    return await fn(job);
  } catch (e) {
    return failure(e);
  }
}

const jobs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const only = process.argv[3] ? process.argv[3].split(",") : Object.keys(CLIENTS);
const out = {};
for (const job of jobs) {
  out[job.id] = {};
  for (const name of only) out[job.id][name] = await runOne(CLIENTS[name], job);
}
process.stdout.write(JSON.stringify(out));
