//! Stream dialects: the four JSON-over-SSE formats an LLM network panel
//! holds, and how a stream is told to be one of them.
//!
//! - [`Dialect::Chat`]: OpenAI Chat Completions (`chat.completion.chunk`
//!   objects in unnamed events, ended by `data: [DONE]`);
//! - [`Dialect::Responses`]: OpenAI's Responses API (`event:
//!   response.output_text.delta` with `data: {"type": …,
//!   "sequence_number": …}`);
//! - [`Dialect::Messages`]: Anthropic Messages (`event: message_start`,
//!   `content_block_delta`, …);
//! - [`Dialect::Gemini`]: Google Gemini's `streamGenerateContent`
//!   (unnamed events whose data is a whole `GenerateContentResponse`:
//!   `candidates`, `promptFeedback`, `usageMetadata`).
//!
//! The shared stages (capture, SSE framing, the transport and framing
//! rules, the lint engine, the renderers) carry a [`Dialect`] but do not
//! branch on its payloads; each dialect's stream model and checks sit in
//! its own folder ([`chat`], [`responses`], [`messages`]), and its rules in
//! `rules/DIALECT/`, each behind the [`Checker`] trait: the linter
//! ([`crate::checks::Linter`]) hands every event of a stream to its
//! dialect's checker after the shared transport and framing rules, and
//! the checker reports through [`Out`]. A stream whose dialect nothing has
//! named yet is read by the [`DEFAULT`] dialect's checker.
//!
//! Detection ([`sniff_url`], [`sniff_event`]) reads, in order: `--dialect`,
//! the request path where the capture has it (HAR, curl `-v`, `record`),
//! then the first event's data (its `type` field, or Chat's shape) and,
//! only where the data names no dialect, its `event:` name. A stream that
//! ended inside its first event is told by how that cut data starts
//! ([`sniff_partial`]).

pub mod api;
pub mod bedrock_converse;
pub mod bedrock_invoke;
pub mod chat;
pub(crate) mod compact;
pub mod gemini;
pub mod messages;
pub mod ollama;
pub mod realtime;
pub mod responses;
pub mod words;

use crate::lint::{Finding, Location, Settings};
use crate::model::assembly::Answer;
pub use api::Api;
use serde_json::Value;

pub use crate::vocab::{names, sniff_url, titles, Dialect, ALL, DEFAULT};

/// What each dialect's folder holds, picked by its id: the one place a
/// dialect is registered besides its id in [`crate::vocab`].
impl Dialect {
    /// This dialect's API on the wire ([`api::Api`]): what `record`,
    /// `probe`, `replay` and `diff` ask.
    pub fn api(self) -> &'static dyn Api {
        match self {
            Dialect::Chat => &chat::api::Api,
            Dialect::Responses => &responses::api::Api,
            Dialect::Messages => &messages::api::Api,
            Dialect::Gemini => &gemini::api::Api,
            Dialect::Ollama => &ollama::api::Api,
            Dialect::BedrockConverse => &bedrock_converse::api::Api,
            Dialect::BedrockInvoke => &bedrock_invoke::api::Api,
            Dialect::Realtime => &realtime::api::Api,
        }
    }

    /// What this dialect calls things and which of its fields hold text
    /// ([`words::Words`]): what `diff`, `redact` and `minimize` ask.
    pub fn words(self) -> &'static words::Words {
        match self {
            Dialect::Chat => &chat::words::WORDS,
            Dialect::Responses => &responses::words::WORDS,
            Dialect::Messages => &messages::words::WORDS,
            Dialect::Gemini => &gemini::words::WORDS,
            Dialect::Ollama => &ollama::words::WORDS,
            Dialect::BedrockConverse => &bedrock_converse::words::WORDS,
            Dialect::BedrockInvoke => &bedrock_invoke::words::WORDS,
            Dialect::Realtime => &realtime::words::WORDS,
        }
    }

    /// A new checker for one stream of this dialect (every dialect has
    /// one, so this is never `None`).
    pub fn checker(self) -> Option<Box<dyn Checker>> {
        match self {
            Dialect::Chat => Some(Box::new(chat::Checker::default())),
            Dialect::Responses => Some(Box::new(responses::Checker::default())),
            Dialect::Messages => Some(Box::new(messages::Checker::default())),
            Dialect::Gemini => Some(Box::new(gemini::Checker::default())),
            Dialect::Ollama => Some(Box::new(ollama::Checker::default())),
            Dialect::BedrockConverse => Some(Box::new(bedrock_converse::Checker::default())),
            Dialect::BedrockInvoke => Some(Box::new(bedrock_invoke::Checker::default())),
            Dialect::Realtime => Some(Box::new(realtime::Checker::default())),
        }
    }
}

impl Dialect {
    /// Whether `path` (no query) is one this dialect streams at: its
    /// endpoint, with or without its base ([`Dialect::is_endpoint`]), or
    /// another path its API names ([`Api::other_endpoint`]).
    pub fn streams_at(self, path: &str) -> bool {
        self.is_endpoint(path) || self.api().other_endpoint(path)
    }

    /// The URL a streaming request for `model` goes to, given `base`: the
    /// API's base URL (`http://127.0.0.1:8080/v1`; the endpoint is added,
    /// or what [`Api::endpoint_under`] says) or the endpoint itself
    /// (kept), its query kept, and the API's [`Api::stream_query`] added
    /// unless the query names that parameter.
    pub fn url_under(self, base: &str, model: &str) -> String {
        let (path, query) = match base.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (base, None),
        };
        let api = self.api();
        let bare = path.find("://").map_or(path, |s| {
            let rest = &path[s + 3..];
            rest.find('/').map_or("", |i| &rest[i..])
        });
        let mut url = if sniff_url(path) == Some(self) || api.other_endpoint(bare) {
            path.to_string()
        } else {
            api.endpoint_under(path, model).unwrap_or_else(|| {
                format!("{}{}", path.trim_end_matches('/'), self.endpoint_for(model))
            })
        };
        let mut params: Vec<String> = query
            .filter(|q| !q.is_empty())
            .map(|q| q.split('&').map(str::to_string).collect())
            .unwrap_or_default();
        if let Some((k, v)) = api.stream_query() {
            if !params.iter().any(|p| p.split('=').next() == Some(k)) {
                params.push(format!("{k}={v}"));
            }
        }
        if !params.is_empty() {
            url.push('?');
            url.push_str(&params.join("&"));
        }
        url
    }
}

/// The dialects whose streams ride on transport `t` ([`Api::transport`]),
/// in [`ALL`]'s order.
pub fn riding_on(t: crate::transport::Transport) -> Vec<Dialect> {
    ALL.iter()
        .copied()
        .filter(|d| d.api().transport() == t)
        .collect()
}

/// The dialect riding on transport `t` whose streams a message of type
/// `name` shows ([`Api::message_types`]: a frame's `:event-type`), if any.
pub fn of_message(t: crate::transport::Transport, name: &str) -> Option<Dialect> {
    riding_on(t)
        .into_iter()
        .find(|d| d.api().message_types().contains(&name))
}

/// The dialect riding on sockets whose own message WebSocket message
/// `data` is (`sent` by the client, or received: [`Api::socket_shows`],
/// Realtime's `session.created`), if any: what tells a socket whose URL
/// names no API.
pub fn of_socket_message(sent: bool, data: &str) -> Option<Dialect> {
    ALL.iter()
        .copied()
        .find(|d| d.api().rides_sockets() && d.api().socket_shows(sent, data))
}

/// The dialect whose streaming endpoint `path` (no query) is
/// ([`Dialect::streams_at`]), if any.
pub fn endpoint_of(path: &str) -> Option<Dialect> {
    ALL.iter().copied().find(|d| d.streams_at(path))
}

/// What a request body says about the API it is for (`record` on a URL
/// whose path names none, such as a gateway's `/api/proxy`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestKind {
    /// A field only this API has; the text names it (`` top-level `system` ``).
    Is(Dialect, String),
    /// Fields more than one API takes (`model`, `max_tokens`, `messages`);
    /// the text says which.
    Ambiguous(String),
}

/// Tells a request body's API from the fields only one API has:
/// Anthropic Messages from `anthropic_version` (Bedrock, Vertex AI), a
/// top-level `system`, `stop_sequences`, tools with an `input_schema`, or
/// `tool_use` / `tool_result` content blocks; OpenAI Responses from `input`
/// without `messages`; Chat Completions from `messages` without
/// `max_tokens` (which Messages requires), a `system` or `developer`
/// message, or a Chat-only field (`stream_options`, `n`,
/// `response_format`, `max_completion_tokens`, tools with a `function`);
/// Google Gemini from `contents` without `messages` or `input`.
pub fn sniff_request(body: &Value) -> RequestKind {
    if let Some(why) = gemini::request_field(body) {
        return RequestKind::Is(Dialect::Gemini, why);
    }
    let has = |k: &str| body.get(k).is_some();
    let field = |k: &str| format!("top-level `{k}`");
    for k in ["anthropic_version", "system", "stop_sequences"] {
        if has(k) {
            return RequestKind::Is(Dialect::Messages, field(k));
        }
    }
    let tools = body.get("tools").and_then(Value::as_array);
    if tools.is_some_and(|t| t.iter().any(|t| t.get("input_schema").is_some())) {
        return RequestKind::Is(Dialect::Messages, "tools with an `input_schema`".into());
    }
    let messages = body.get("messages").and_then(Value::as_array);
    let block_types = messages.into_iter().flatten().flat_map(|m| {
        m.get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("type").and_then(Value::as_str))
    });
    for t in block_types {
        if t == "tool_use" || t == "tool_result" {
            return RequestKind::Is(Dialect::Messages, format!("`{t}` content blocks"));
        }
    }
    if has("input") && !has("messages") {
        return RequestKind::Is(Dialect::Responses, "`input` instead of `messages`".into());
    }
    for k in [
        "stream_options",
        "n",
        "response_format",
        "max_completion_tokens",
    ] {
        if has(k) {
            return RequestKind::Is(Dialect::Chat, field(k));
        }
    }
    if tools.is_some_and(|t| t.iter().any(|t| t.get("function").is_some())) {
        return RequestKind::Is(Dialect::Chat, "tools with a `function`".into());
    }
    let role = messages.into_iter().flatten().find_map(|m| {
        m.get("role")
            .and_then(Value::as_str)
            .filter(|r| *r == "system" || *r == "developer")
    });
    if let Some(r) = role {
        return RequestKind::Is(Dialect::Chat, format!("a `{r}` message"));
    }
    if messages.is_some() && !has("max_tokens") {
        return RequestKind::Is(
            Dialect::Chat,
            "`messages` without `max_tokens` (which Anthropic Messages requires)".into(),
        );
    }
    if messages.is_some() {
        RequestKind::Ambiguous(
            "`model`, `max_tokens` and `messages` fit both OpenAI Chat Completions and Anthropic Messages".into(),
        )
    } else {
        RequestKind::Ambiguous("it has neither `messages`, `input` nor `contents`".into())
    }
}

/// The dialect whose answer a whole body is, when the body is one JSON
/// value in a shape a dialect names ([`Api::body_shape`]), and what the
/// shape is.
pub fn sniff_body(body: &Value) -> Option<(Dialect, String)> {
    ALL.iter()
        .find_map(|d| d.api().body_shape(body).map(|what| (*d, what)))
}

/// The dialect whose answer a body that is not whole JSON starts as
/// ([`Api::cut_body_shape`]), and what the shape is.
pub fn sniff_cut_body(head: &str) -> Option<(Dialect, String)> {
    ALL.iter()
        .find_map(|d| d.api().cut_body_shape(head).map(|what| (*d, what)))
}

/// What one event's data says about the stream's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sniffed {
    /// The event belongs to this dialect.
    Dialect(Dialect),
    /// An error object, `[DONE]` or a keep-alive: it fits every dialect and
    /// decides nothing.
    Neutral,
    /// A JSON object of a format sselint does not read; the text says what
    /// it looks like ("Cohere's chat stream (`event_type`)").
    Other(String),
}

/// Whether `name` is one of Anthropic Messages' own event types (not
/// `error`, which every dialect has): the Messages folder's list.
fn is_messages_event(name: &str) -> bool {
    name != "error" && messages::fields::EVENT_TYPES.contains(&name)
}

/// Whether `o` is Anthropic's error event: a top-level `type: "error"`
/// with a nested `error` object that has a `type`
/// (`{"type":"error","error":{"type":"overloaded_error","message":…}}`).
/// OpenAI's nested Responses error has the same two levels but also a
/// `sequence_number` (every Responses event has one), and its flat one
/// has no `error` object; Chat's error has no top-level `type`. So the
/// shape without a `sequence_number` is Anthropic's.
fn is_messages_error(o: &serde_json::Map<String, Value>) -> bool {
    o.get("type").and_then(Value::as_str) == Some("error")
        && !o.contains_key("sequence_number")
        && o.get("error")
            .and_then(|e| e.get("type"))
            .and_then(Value::as_str)
            .is_some()
}

/// Classifies one event: its `event:` name (`message` when it had none)
/// and its data, parsed when it is JSON. The data decides first (its
/// `type`, Chat's `object` or `choices`, Anthropic's error shape): a
/// client reads the data, so an event named like one dialect whose data
/// is another's is the data's, and that dialect's name rule reports the
/// name. The name decides only where the data names no dialect.
pub fn sniff_event(event_type: &str, data: Option<&Value>) -> Sniffed {
    let o = data.and_then(Value::as_object);
    let ty = o
        .and_then(|o| o.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if let Some(o) = o {
        if o.contains_key("choices")
            || o.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
        {
            return Sniffed::Dialect(Dialect::Chat);
        }
        if ty.starts_with("response.") {
            return Sniffed::Dialect(Dialect::Responses);
        }
        if is_messages_event(ty) || is_messages_error(o) {
            return Sniffed::Dialect(Dialect::Messages);
        }
        if gemini::is_chunk(o) {
            return Sniffed::Dialect(Dialect::Gemini);
        }
    }
    if event_type.starts_with("response.") {
        return Sniffed::Dialect(Dialect::Responses);
    }
    if is_messages_event(event_type) {
        return Sniffed::Dialect(Dialect::Messages);
    }
    let Some(o) = o else {
        return Sniffed::Neutral;
    };
    if ty == "error" || o.contains_key("error") || ty == "keepalive" {
        return Sniffed::Neutral;
    }
    if o.contains_key("done") && (o.contains_key("message") || o.contains_key("response")) {
        return Sniffed::Other("Ollama's native /api/chat or /api/generate (`done`)".into());
    }
    if o.contains_key("event_type") {
        return Sniffed::Other("Cohere's chat stream (`event_type`)".into());
    }
    if o.get("object").and_then(Value::as_str) == Some("text_completion") {
        return Sniffed::Dialect(Dialect::Chat);
    }
    Sniffed::Neutral
}

/// The dialect whose event a cut piece of data starts as: the data of an
/// event the stream ended inside, before any whole event named a
/// dialect (a Gemini chunk's `{"candidates": [`). `None` when it names
/// none.
pub fn sniff_partial(data: &str) -> Option<Dialect> {
    if gemini::is_partial_chunk(data) {
        return Some(Dialect::Gemini);
    }
    None
}

/// What a dialect checker sees of one dispatched event.
#[derive(Debug)]
pub struct Event<'a> {
    /// The event's index in the stream (0-based), or `None` for the
    /// undispatched tail a lenient client would still read.
    pub index: Option<u64>,
    /// The `event:` name (`message` when the event had none).
    pub name: &'a str,
    /// Whether the event had an `event:` line.
    pub named: bool,
    /// The value of the event's own `id:` line, when its block had one
    /// (the last event ID in force is not repeated here).
    pub id: Option<&'a str>,
    /// The data buffer.
    pub data: &'a str,
    /// The data as JSON (`None` for `[DONE]`-like data and text that is
    /// not JSON: the shared stage reports the latter).
    pub json: Option<&'a Value>,
    /// The data is exactly `[DONE]`.
    pub done: bool,
}

/// How a checker reports and locates findings; the linter implements it.
pub trait Out {
    /// Reports a finding (its location from [`Out::at_event`] or
    /// [`Out::at_pointer`]).
    fn report(&mut self, f: Finding);
    /// The whole value of the current event's first `data` line.
    fn at_event(&self) -> Location;
    /// The bytes a JSON pointer names in the current event's data (its key
    /// when `key`), or the event when the pointer is absent.
    fn at_pointer(&self, pointer: &str, key: bool) -> Location;
    /// The current event's `event:` line, or its data when it has none.
    fn at_name(&self) -> Location;
    /// Where the stream stops: the end of its last line.
    fn at_end(&self) -> Location;
    /// Notes what the current event does (`content`, `tool`, `finish`,
    /// `usage`, `error`, …) for `inspect`, `buffered` and `stall`.
    fn kind(&mut self, kind: &'static str);
    /// Call just before building a finding of `rule`: true when the rule
    /// is off or past its per-rule limit (the finding is then counted, and
    /// must not be built or reported).
    fn muted(&mut self, rule: &'static str) -> bool;
    /// The active profile's name (`openai`, `openrouter-responses`, …).
    fn profile(&self) -> &'static str;
    /// Whether `allow-fields` in sselint.toml accepts the field at
    /// `pointer` (a JSON pointer into the event's data; `*` in a pattern
    /// stands for any array index): such a field is no finding.
    fn allowed(&self, pointer: &str) -> bool;
    /// Whether [`Checker::summary`] is read after this event (`inspect`
    /// asks for it): when false, a checker need not build its rendering of
    /// what the event added. True unless the caller says otherwise.
    fn summaries(&self) -> bool {
        true
    }
    /// Where `diff` collects the JSON pointers (indices folded) of the
    /// current event's data, when it asks for them; `None` otherwise.
    fn fields_seen(&mut self) -> Option<&mut Vec<String>> {
        None
    }
    /// `len` bytes of the current event's data from byte `start`, cut at
    /// the end of the line they start on (the event when the data has no
    /// such byte).
    fn at_data(&self, _start: usize, _len: usize) -> Location {
        self.at_event()
    }
    /// Reports the shared payload rule, `invalid-json`, on the current
    /// event, for a checker that reads the data itself
    /// ([`Checker::reads_data`]); the linter counts the event in
    /// [`StreamEnd::invalid_payloads`]. Reports nothing by default.
    fn invalid_json(&mut self, _invalid: &crate::model::InvalidJson) {}
    /// At the end of the stream: what the shared stage knows of the
    /// transfer (see [`Transport`]).
    fn transport(&self) -> Transport {
        Transport::default()
    }
    /// The value of the current message's header `name`, on a transport
    /// whose messages have headers (an event-stream frame's
    /// `:message-type`, `:exception-type`); `None` otherwise.
    fn header(&self, _name: &str) -> Option<&str> {
        None
    }
}

/// What the shared stage knows of how the transfer went, for a checker's
/// whole-stream rules ([`Out::transport`]).
#[derive(Debug, Clone, Default)]
pub struct Transport {
    /// The HTTP status, when the capture has one.
    pub status: Option<u16>,
    /// The body as one JSON value, when it is one (a bare error object, a
    /// non-streamed response).
    pub body: Option<Value>,
    /// The body's first line, where whole-body findings point.
    pub body_start: Location,
    /// Why the transfer broke, when the capture says (curl's exit line, a
    /// HAR's `_error`, `--read-timeout`); empty when it did not.
    pub breaks: Vec<String>,
    /// The first line of the undispatched tail: bytes after the last blank
    /// line that hold no complete event, when the stream ends with such.
    pub tail: Option<Location>,
}

/// What a stream's events say about its provider, for the guess of which
/// profile fits (`checks::provider`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hints {
    /// The model the stream names.
    pub model: Option<String>,
    /// Provider extension fields seen with a value (JSON pointers,
    /// indices folded).
    pub fields: Vec<String>,
    /// Finish reasons outside the API's own set.
    pub finish_reasons: Vec<String>,
    /// The dialect whose profiles name the fields and finish reasons
    /// (the checker's that saw them).
    pub dialect: Option<Dialect>,
}

impl Hints {
    /// Adds what `other` saw (its model only when this names none).
    pub fn add(&mut self, other: Hints) {
        if self.model.is_none() {
            self.model = other.model;
        }
        if self.dialect.is_none() {
            self.dialect = other.dialect;
        }
        self.fields.extend(other.fields);
        self.finish_reasons.extend(other.finish_reasons);
    }
}

/// What the stream carried, for the end-of-stream checks.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamEnd<'a> {
    /// Dispatched events.
    pub events: u64,
    /// The capture itself is damaged (cut by the tool that saved it): the
    /// ending says nothing about the server.
    pub damaged: bool,
    /// Events whose data was not JSON (reported by the shared stage).
    pub invalid_payloads: u64,
    /// Events past `--max-event-bytes` (`event-too-large`, shared): read
    /// and refused for their size, so what they held is unknown, as an
    /// event that was not JSON.
    pub oversized: u64,
    /// The body holds no SSE line at all (`body-not-sse`, shared, said
    /// so): a missing start or ending is that finding's consequence.
    pub not_sse: bool,
    /// How the transfer broke, where the capture says so (curl's error
    /// line, a HAR's `_error`, `--read-timeout`): a cut-off finding cites
    /// it, as Chat's `cut-off` does, so it is part of the fault (and
    /// `minimize` keeps it in the reproducer).
    pub transfer: Option<&'a str>,
    /// Events whose data lines held several JSON texts run together
    /// (`missing-separator`, shared).
    pub separator_errors: u64,
    /// Lines that are SSE fields with a known name (`data`, `event`, `id`,
    /// `retry`), or comments.
    pub sse_lines: u64,
    /// `error:` field lines, which the shared framing reports as
    /// `error-event`.
    pub error_fields: u64,
}

impl StreamEnd<'_> {
    /// Events the shared stage read but could not hand over: not JSON, or
    /// too large ([`StreamEnd::invalid_payloads`], [`StreamEnd::oversized`]).
    /// Any of them may have held the start or the finish the ending rules
    /// look for: their finding is the cause, so those rules do not say
    /// the stream was empty or unfinished on their account.
    pub fn unread(&self) -> u64 {
        self.invalid_payloads + self.oversized
    }

    /// ` (the transfer broke: …)` after a cut-off finding's account of the
    /// stream, or nothing.
    pub fn broke(&self) -> String {
        self.transfer
            .map(|t| format!(" (the transfer broke: {t})"))
            .unwrap_or_default()
    }
}

/// One dialect's checks for one stream: fed each event in order, then
/// asked to finish. It assembles the answer into [`Answer`] (choice 0 for
/// single-answer dialects) and reports through [`Out`].
pub trait Checker: std::fmt::Debug {
    /// One event.
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out);
    /// The end of the stream: the whole-stream rules. Returns the answer
    /// and how the stream ended.
    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending);
    /// A short rendering of what the last event added (`inspect`).
    fn summary(&self) -> String {
        String::new()
    }
    /// Events that came before the stream's dialect was recognised (their
    /// data named no known format then, e.g. a vendor event ahead of
    /// `response.created`): how many, and where the first one was. Called
    /// just after the checker is made, before its first event; and, for
    /// the checker that reads a stream not yet settled (the default
    /// dialect's), again after each such event.
    fn skipped(&mut self, _events: u64, _first: Location, _first_index: Option<u64>) {}
    /// What the stream's context says before its first event: the
    /// settings in force, and the request's options when the capture has
    /// the request. Called once, just after the checker is made.
    fn setup(&mut self, _settings: &Settings, _request: Option<&chat::RequestOptions>) {}
    /// The request's URL (or path), when the capture has one (HAR, curl
    /// `-v`, `record`), told once before the first event: for a dialect
    /// whose events mean what the path says (Bedrock Invoke's inner model
    /// is named in it). Nothing by default.
    fn request_url(&mut self, _url: &str) {}
    /// Whether the checker reads each event's data itself: the shared
    /// stage then hands it over unparsed (`Event::json` is `None` and
    /// `Event::done` false) and reports nothing on it, and the checker
    /// reports `invalid-json` through [`Out::invalid_json`]. Chat's does:
    /// its `[DONE]`, its error and named events, and whatever follows
    /// `[DONE]`, are judged before any parse.
    fn reads_data(&self) -> bool {
        false
    }
    /// The answer assembled so far, for a checker that builds it as the
    /// events come (the HTML report counts its characters event by event).
    fn answer(&self) -> Option<&Answer> {
        None
    }
    /// What the events said about the provider (read after the stream,
    /// whether or not [`Checker::finish`] ran).
    fn hints(&self) -> Hints {
        Hints::default()
    }
    /// Events (Chat chunks, NDJSON lines, event-stream frames) the fast
    /// path took, for the record (`pipeline::StreamResult::typed_chunks`,
    /// which no report shows); read with [`Checker::hints`].
    fn typed_chunks(&self) -> u64 {
        0
    }
    /// The fast path: an ordinary event (a text or argument delta with
    /// exactly its documented fields, in a stream whose state raises no
    /// question) read from its typed form without building a JSON value.
    /// Returns true when it took the event, which must then leave the
    /// checker exactly as [`Checker::event`] would and report nothing;
    /// false sends it down the general path. `ev.json` is `None` here. Off
    /// when `Settings::typed` is (the tests that compare both paths).
    fn fast(&mut self, _ev: &Event<'_>, _out: &mut dyn Out) -> bool {
        false
    }
    /// A message of a transport other than SSE that the checker judges
    /// before the shared stage parses its data: an event-stream frame
    /// that is no event (Bedrock's `exception` and `error` frames, whose
    /// payload is the exception's own and may be empty), which must not be
    /// reported as `invalid-json`. True when it took the message, which
    /// the shared stage then neither parses nor hands on. Called before
    /// [`Checker::fast`]; `ev.json` is `None`. Nothing by default.
    fn takes_unparsed(&mut self, _ev: &Event<'_>, _out: &mut dyn Out) -> bool {
        false
    }
    /// An event whose data the shared stage rejected (`invalid-json`: not
    /// JSON, nested too deep; `event-too-large`, with no index: past the
    /// size limit): the checker never sees it, and must not
    /// report what its absence implies (a delta missing from the text, a
    /// gap in the numbering, a block never opened) as findings of their
    /// own: that finding is the cause.
    fn rejected(&mut self, _index: Option<u64>) {}
    /// A message its transport could not read whole (an event-stream
    /// frame that fails its CRC, a cut frame): `what` says why, and
    /// [`Out::at_event`] points at the bytes at fault. Only a dialect on
    /// such a transport hears of one; its rule for it is its own, since
    /// what the fault costs depends on its clients. Nothing by default.
    fn fault(&mut self, _index: Option<u64>, _what: &str, _out: &mut dyn Out) {}
    /// The stream is one response on a WebSocket ([`crate::transport::websocket`]):
    /// its messages have no SSE framing, and carry the socket's own fields
    /// (Responses' `stream_id`). Called once, before the first event, on
    /// a dialect whose API [`Api::rides_sockets`]. Nothing by default.
    fn on_socket(&mut self) {}
}

pub use crate::model::assembly::Ending;
