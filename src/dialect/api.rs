//! What a dialect's API is on the wire, beyond its events: the endpoint,
//! how a key is sent, what a request body gains, the error body's shape,
//! the probe's scenarios (the request each sends, how a request is told to
//! be one, and the words its expectations use), and how its usage and
//! finish read on one footing across dialects.
//!
//! It also says how the API's clients read the shared SSE framing
//! ([`Api::framing`]): the framing rules are the same in every dialect,
//! but what an occurrence costs depends on the clients that read it.
//!
//! `record`, `probe`, `replay` and `diff` ask a dialect through [`Api`];
//! each dialect's folder implements it (`chat/api.rs`, `responses/api.rs`,
//! `messages/api.rs`), and [`super::Dialect::api`] is the one place that
//! picks it.

use serde_json::{json, Map, Value};

/// One probe scenario of a dialect (`sselint probe`, and what `replay DIR`
/// answers by).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// Stable kebab-case name (`plain`, `n2`, `parallel-tools`, …); also
    /// the capture's file name.
    pub name: &'static str,
    /// What it asks, in a few words (help and reports).
    pub about: &'static str,
    /// A 4xx answer means the endpoint does not offer the feature
    /// (`unsupported`), not that it is broken.
    pub optional: bool,
    /// Sent only with `--reasoning`.
    pub reasoning: bool,
}

/// A scenario that is not a reasoning one.
pub(crate) const fn sc(name: &'static str, about: &'static str, optional: bool) -> Scenario {
    Scenario {
        name,
        about,
        optional,
        reasoning: false,
    }
}

/// The scenarios every dialect ends with: an invalid request and a
/// client that hangs up.
pub(crate) const INVALID: Scenario = sc(
    "invalid",
    "an invalid request: must get a non-2xx JSON error, not a stream",
    false,
);
/// See [`INVALID`].
pub(crate) const DISCONNECT: Scenario = sc(
    "disconnect",
    "the client hangs up mid-stream; the next request must be answered",
    false,
);

/// Token budget of the `length` scenario (Chat, Messages).
pub const LENGTH_TOKENS: u64 = 5;
/// Token budget of the `length` scenario of Responses (its documented
/// minimum is 16).
pub const LENGTH_TOKENS_RESPONSES: u64 = 16;
/// Token budget of the `long` (and `disconnect`) scenario.
pub const LONG_TOKENS: u64 = 256;
/// Token budget of every other scenario.
pub const SHORT_TOKENS: u64 = 64;

/// The scenario a token budget kept where the probe's top-level reading
/// does not look (Ollama's `options.num_predict`, Converse's
/// `inferenceConfig.maxTokens`) says, by the probe's bounds: `length` at
/// 16 at most, `long` at 200 at least, none between.
pub(crate) fn budget_scenario(budget: Option<u64>) -> Option<&'static str> {
    match budget {
        Some(n) if n <= 16 => Some("length"),
        Some(n) if n >= 200 => Some("long"),
        _ => None,
    }
}
/// The `stop` scenario's stop sequence; its prompt asks for a list
/// separated by it.
pub const STOP_SEQUENCE: &str = ",";

/// The prompts the scenarios send.
pub(crate) const PROMPT: &str = "Say hello in one short sentence.";
pub(crate) const LONG_PROMPT: &str = "Count from 1 to 60 in words, separated by commas.";
pub(crate) const TOOL_PROMPT: &str = "What is the weather in Paris?";
pub(crate) const PARALLEL_PROMPT: &str = "What are the weather and the local time in Paris?";
pub(crate) const JSON_PROMPT: &str =
    "Reply with a JSON object {\"greeting\": \"hello\"} and nothing else.";

/// The parameters of the scenarios' `get_weather` (and `get_time`) tool:
/// one required string, `city`.
pub(crate) fn weather_params() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"]
    })
}

/// How an API key goes out, and what else every request carries.
#[derive(Debug, Clone, Copy)]
pub struct Auth {
    /// The header that carries the key (`Authorization`, `x-api-key`).
    pub key_header: &'static str,
    /// What comes before the key in it (`Bearer `, or nothing).
    pub key_prefix: &'static str,
    /// Headers sent unless one of the same name is given (`-H`), after
    /// the key (Anthropic's `anthropic-version`): no secrets, kept in the
    /// capture.
    pub fixed: &'static [(&'static str, &'static str)],
    /// How a request is sent, for the note `record` prints when it tells
    /// the dialect from the body ("the key as a Bearer token").
    pub how: &'static str,
}

/// A stream's usage on one footing across dialects: `input` is every
/// input token, the cached ones included, as OpenAI counts them
/// (`prompt_tokens` and `input_tokens` include
/// `prompt_tokens_details.cached_tokens` / `input_tokens_details.cached_tokens`);
/// Anthropic counts them apart (the input is `input_tokens` plus
/// `cache_read_input_tokens` plus `cache_creation_input_tokens`), so a
/// Messages side is added up ([`Api::usage_apart`]). `total` is the
/// stream's own where it has one, else input plus output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct UsageCounts {
    /// Every input token, cached ones included.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// The total.
    pub total: Option<u64>,
    /// Input tokens read from the prompt cache (part of `input`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<u64>,
    /// Input tokens written to the prompt cache (part of `input`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<u64>,
}

/// One occurrence of a shared framing rule (`rules/transport/`), as the
/// framing checks ask a dialect about it ([`Api::framing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FramingShape {
    /// Comment lines (`comment`).
    Comment,
    /// `data:` lines with no space after the colon (`data-no-space`).
    DataNoSpace,
    /// A line whose field name is not `event`, `data`, `id` or `retry`
    /// (`unknown-sse-field`).
    UnknownField,
    /// An event whose data spans several `data` lines (`multiline-data`).
    MultilineData,
    /// Lines ended by a lone CR (`line-endings`).
    LoneCr,
    /// Every line ended by CRLF (`line-endings`).
    CrLf,
    /// Lines ended by LF and by CRLF in one stream (`line-endings`).
    Mixed,
}

/// What a dialect's clients make of one occurrence of a shared framing
/// rule, where it differs from the rule's own level and message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramingReading {
    /// The finding's level.
    pub level: crate::lint::Severity,
    /// What it costs in this dialect, added to the message after `; `
    /// (a claim about clients: it must be observed, `tests/claims.rs`).
    pub why: &'static str,
}

/// Why a stream has no unstreamed shape ([`Api::unstreamed`]): the shape
/// an API answers in without its stream query is a JSON array of the
/// stream's events (Gemini's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoUnstreamed {
    /// The API has none: it streams at every request.
    #[error("this API has no unstreamed shape")]
    NoShape,
    /// The stream never ends its answer (no line with `done: true`, in
    /// Ollama's): there is no whole answer to give as one object.
    #[error("the capture has no last line (`done: true`), so there is no whole answer to give as one JSON object")]
    NoEnd,
    /// Line `.0` (counted from 1) is an error line: unstreamed, the API
    /// answers with that error and an error status instead.
    #[error("line {0} of the capture is an error (`{{\"error\": …}}`), which the API answers unstreamed with an error status, not as an answer object")]
    ErrorLine(usize),
    /// The capture holds no event.
    #[error("the capture holds no event to give as a JSON array")]
    NoEvent,
    /// Event `.0` (counted from 0) is not a JSON object.
    #[error("event {0} of the capture is not a JSON object (the API never sends one such), so the stream has no JSON-array shape")]
    NotAnObject(usize),
}

/// Where one WebSocket message of an API goes ([`Api::socket_route`]):
/// which lane of the socket, and what it does there. A lane is
/// first-in, first-out: each response a client asks for on it starts
/// after the one before has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketRoute {
    /// The lane (Responses' `stream_id`); `None` is the default lane.
    pub lane: Option<String>,
    /// What the message does.
    pub step: SocketStep,
}

/// What one WebSocket message does on its lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocketStep {
    /// A client message that asks for a response (`response.create`).
    Create,
    /// Another client message.
    Client,
    /// The server starts a response (`response.created`), with its id.
    Start(Option<String>),
    /// An event of a response: its id where the event names one.
    Event(Option<String>),
    /// The event that ends a response (`response.completed`, `.failed`,
    /// `.incomplete`), with its id.
    End(Option<String>),
    /// An error event (`error`): inside the lane's running response, which
    /// goes on to its own end (Realtime's `response.done`), or the answer
    /// to a request that started none.
    Error,
    /// An error event that ends the lane's running response: the API sends
    /// nothing more of a response after an error inside it (Responses, as
    /// over SSE, where the checker ends the stream `failed`). With no
    /// response running, as [`SocketStep::Error`].
    Failure,
    /// An error event that refuses the lane's first waiting request though
    /// a response runs: the API runs one response at a time and refuses a
    /// second request rather than queue it (Realtime's
    /// `conversation_already_has_active_response`, shared reference
    /// transports.md §2.4). With no request waiting, as
    /// [`SocketStep::Error`].
    Refusal,
    /// A server message that is no response's event (a vendor's rate-limit
    /// note, a steer's acknowledgement): the running response's on its
    /// lane if one runs, else the socket's, starting none.
    Socket,
}

/// One dialect's API (see the module docs). Every method is the dialect's
/// own answer; nothing outside its folder branches on which one it is.
pub trait Api: Sync + std::fmt::Debug {
    /// Whether this API's streams also ride on a WebSocket, several on one
    /// socket (Responses' WebSocket mode): then [`Api::socket_route`]
    /// says where each message goes. False by default.
    fn rides_sockets(&self) -> bool {
        false
    }

    /// Where a WebSocket message goes, `sent` by the client or received:
    /// its lane and step; `None` when `data` is not a JSON object with a
    /// string `type` (a message no client of the API can read), or the
    /// API has no WebSocket mode.
    fn socket_route(&self, _sent: bool, _data: &str) -> Option<SocketRoute> {
        None
    }

    /// The id of the response that WebSocket message `data` (`sent` by
    /// the client) continues, when it asks for a response that continues
    /// one (Responses' `previous_response_id` on a `response.create`):
    /// how `inspect` shows a socket's chains. `None` by default.
    fn socket_parent(&self, _sent: bool, _data: &str) -> Option<String> {
        None
    }

    /// Whether the server speaks first on a new socket of this API (the
    /// Realtime API's `session.created`), so that `record` waits for that
    /// greeting before sending; false by default (Responses' WebSocket
    /// mode sends nothing before the client's first `response.create`).
    fn socket_greets(&self) -> bool {
        false
    }

    /// Whether WebSocket message `data` (`sent` by the client, or
    /// received) is one only this API has (Realtime's `session.created`):
    /// what tells a socket whose URL names no API. False by default.
    fn socket_shows(&self, _sent: bool, _data: &str) -> bool {
        false
    }

    /// What `inspect` shows for WebSocket message `data` (`sent` by the
    /// client, or received) instead of the data itself, in every format
    /// (the table, and the JSON Lines record's `data`, marked
    /// `"withheld": true`): for a message that carries audio (Realtime's
    /// `input_audio_buffer.append`, its audio deltas), its type and
    /// decoded byte count. `None` (the default): the data is shown.
    fn socket_summary(&self, _sent: bool, _data: &str) -> Option<String> {
        None
    }

    /// What a client of this API takes as its base URL, after the origin
    /// (OpenAI's SDKs add the path to `…/v1`, Anthropic's add
    /// `/v1/messages` to the origin): `/v1` or nothing.
    fn sdk_base(&self) -> &'static str {
        "/v1"
    }

    /// The transport this API's streams ride on ([`crate::transport`]):
    /// server-sent events unless the API says otherwise (Ollama's native
    /// API streams NDJSON lines).
    fn transport(&self) -> crate::transport::Transport {
        crate::transport::Transport::Sse
    }

    /// The message types (an event-stream frame's `:event-type`) that
    /// show a stream is this API's, where several APIs ride on one
    /// transport (ConverseStream's `messageStart`, Invoke's `chunk`);
    /// none by default.
    fn message_types(&self) -> &'static [&'static str] {
        &[]
    }

    /// The event message `data` wraps, as text, where this API's
    /// messages wrap another API's events (an Invoke `chunk`'s base64
    /// `bytes`, decoded): what `inspect` shows beside the message. `None`
    /// by default, and for a message that wraps nothing readable.
    fn unwrapped(&self, _data: &str) -> Option<String> {
        None
    }

    /// The dialect whose events this API's messages wrap, whose checker
    /// and rules judge them (Bedrock Invoke's chunks: Anthropic Messages);
    /// none by default.
    fn wraps(&self) -> Option<crate::vocab::Dialect> {
        None
    }

    /// How the key is sent.
    fn auth(&self) -> Auth;

    /// How the key is sent to `url`, where the URL decides it (Vertex
    /// AI's Gemini endpoints take an OAuth access token as a Bearer
    /// token, the Gemini API a key as `x-goog-api-key`); else
    /// [`Api::auth`].
    fn auth_for(&self, _url: &str) -> Auth {
        self.auth()
    }

    /// The query parameter a streaming request carries, as `(name,
    /// value)`, where the endpoint streams an event stream only with it
    /// (Gemini's `alt=sse`: without it the same method answers with one
    /// JSON array). `None`: the endpoint streams as it is.
    fn stream_query(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// The endpoint's path under `base`, the path (no query) of the base
    /// URL a user gives `probe`, for model `model`, where this API does
    /// not just add its endpoint to it (Gemini: an origin gains
    /// `/v1beta`, Vertex AI's `…/locations/L` gains
    /// `/publishers/google`). `None`: `base` and the endpoint.
    fn endpoint_under(&self, _base: &str, _model: &str) -> Option<String> {
        None
    }

    /// Whether `path` (no query) is another path this API streams at,
    /// beside its endpoint under its base ([`super::Dialect::is_endpoint`]):
    /// Gemini's `/v1/…` and `/v1beta1/…`, `tunedModels/…`, and Vertex AI's
    /// `/v1/projects/P/locations/L/publishers/google/models/…`.
    fn other_endpoint(&self, _path: &str) -> bool {
        false
    }

    /// The answer to a request without [`Api::stream_query`], made from a
    /// stream whose events carry `datas`: `(content type, body)` in the
    /// shape the API gives then (Gemini's JSON array). `Err`: why this
    /// stream has no such shape ([`NoUnstreamed`]).
    fn unstreamed(&self, _datas: &[&str]) -> Result<(String, String), NoUnstreamed> {
        Err(NoUnstreamed::NoShape)
    }

    /// The boolean request field whose `false` asks this API for one
    /// JSON answer in place of a stream, where the API streams unless told
    /// not to (Ollama's `stream`): `replay` answers such a request with
    /// [`Api::unstreamed`] of its capture. `None`: no field does (OpenAI's
    /// `stream` defaults to false; replay streams whatever is asked).
    fn unstream_field(&self) -> Option<&'static str> {
        None
    }

    /// The path (under [`super::Dialect::base`]) a stream answers, told
    /// from its first message's data, where the API streams at several
    /// paths in messages of different shapes (Ollama's `/api/generate`
    /// lines carry `response`, `/api/chat`'s a `message`); `None`: the
    /// endpoint ([`super::Dialect::endpoint`]).
    fn endpoint_of_message(&self, _data: &Value) -> Option<&'static str> {
        None
    }

    /// Headers an error answer of HTTP `status` carries besides its body,
    /// where clients read the error's type from one (AWS's
    /// `x-amzn-ErrorType`, which boto3 and the AWS SDK for JavaScript
    /// take the error code from); none by default.
    fn error_headers(&self, _status: u16) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// The AWS service name a request to this API is signed for with
    /// SigV4 when AWS credentials are in the environment (Bedrock's
    /// `bedrock`); `None`: the API takes a key, not a signature.
    fn sigv4_service(&self) -> Option<&'static str> {
        None
    }

    /// What the request body gains before it is sent (`stream: true` is
    /// forced by the caller): Chat asks for usage when `include_usage`
    /// (`stream_options` is Chat's alone; the others send usage unasked).
    fn prepare(&self, _body: &mut Map<String, Value>, _include_usage: bool) {}

    /// An API error body in this API's shape; `kind` is the error's type,
    /// `message` its text (both escaped here). OpenAI's:
    /// `{"error":{"message":…,"type":…,"param":null,"code":null}}`.
    fn error_body(&self, kind: &str, message: &str) -> String {
        let message = Value::String(message.to_string()).to_string();
        let kind = Value::String(kind.to_string()).to_string();
        format!(r#"{{"error":{{"message":{message},"type":{kind},"param":null,"code":null}}}}"#)
    }

    /// The error type of a 404 in this API (`invalid_request_error`,
    /// Anthropic's `not_found_error`).
    fn not_found_kind(&self) -> &'static str {
        "invalid_request_error"
    }

    /// Every probe scenario, in the order they run (the reasoning ones
    /// included).
    fn scenarios(&self) -> &'static [Scenario];

    /// The request body of scenario `name` (one of [`Api::scenarios`],
    /// `disconnect` already read as `long`), `stream: true` included.
    fn scenario_body(&self, name: &str, model: &str) -> Value;

    /// The scenario a request body names by a feature of this API alone
    /// (`invalid`, `n2`, `tool`, `json`, `reasoning`, `stop`, …); `None`
    /// leaves it to the token budget.
    fn scenario_of(&self, body: &Map<String, Value>) -> Option<&'static str>;

    /// The keys that hold the token budget, the first one present read
    /// (the last when none is).
    fn budget_keys(&self) -> &'static [&'static str] {
        &["max_completion_tokens", "max_tokens"]
    }

    /// `(old, new)`: the budget key `probe --max-completion-tokens`
    /// renames, where this API has a newer one.
    fn budget_rename(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// What forced a tool call in scenario `name` (`tool`,
    /// `parallel-tools`), for `probe-no-tool-call`.
    fn forced_tool(&self, name: &str) -> &'static str;

    /// What the `tool` scenario's request forced, for `probe-wrong-tool`
    /// when another tool was called.
    fn forced_tool_named(&self) -> &'static str {
        "tool_choice forced the tool get_weather"
    }

    /// How the `n2` scenario asks for two answers, before the number, for
    /// its message (`n =`, Gemini's `candidateCount`).
    fn n2_field(&self) -> &'static str {
        "n ="
    }

    /// The finish the `length` scenario expects, in this API's words.
    fn cut_finish(&self) -> &'static str;

    /// The `length` scenario's budget, as its message says it.
    fn length_budget(&self) -> String {
        format!("a token budget of {LENGTH_TOKENS}")
    }

    /// The request field the `stop` scenario sets (`stop`,
    /// `stop_sequences`).
    fn stop_key(&self) -> &'static str {
        "stop"
    }

    /// The request field the `invalid` scenario breaks (`messages`,
    /// `input`).
    fn input_key(&self) -> &'static str {
        "messages"
    }

    /// A finish in one vocabulary across dialects (`stop`, `length`,
    /// `tool_calls`, `content_filter`, `error`); `lower` is `finish` in
    /// lower case. Anything this API does not map is kept as it is.
    fn finish_class(&self, _lower: &str, finish: &str, _has_tool_calls: bool) -> String {
        finish.to_string()
    }

    /// A usage object of an API that counts cached input tokens apart from
    /// the input (Anthropic's), or whose usage has other names than
    /// OpenAI's, on the footing of [`UsageCounts`]; `None` for an API
    /// whose usage has OpenAI's names (`prompt_tokens`, `input_tokens`).
    fn usage_apart(&self, _usage: &Value) -> Option<UsageCounts> {
        None
    }

    /// How `diff` classes a field at `pointer` (indices folded or not):
    /// `openai-schema` for one of the API's own, `extension (PROVIDERS)`
    /// for one the profiles list, else `unknown`.
    fn field_class(&self, _pointer: &str) -> String {
        "unknown".to_string()
    }

    /// Whether this API counts cached input tokens apart from the input
    /// (what [`Api::usage_apart`] reads); `diff` says so in its row.
    fn cache_apart(&self) -> bool {
        false
    }

    /// What a whole response body that is one JSON value is, when it is
    /// this API's answer in a shape that is not an event stream (a
    /// non-streamed form of its responses): a few words for
    /// `body-not-sse` ("a JSON array of …"). `None`: not this API's.
    fn body_shape(&self, _body: &Value) -> Option<String> {
        None
    }

    /// The same for a body that is not whole JSON (cut, or longer than the
    /// part read), told by how its text starts. `None`: not this API's.
    fn cut_body_shape(&self, _head: &str) -> Option<String> {
        None
    }

    /// What in one event's data shows it to be this API's, as the notes
    /// that say what a stream looks like quote it (`--dialect`'s hint,
    /// `path-dialect-mismatch`): by default the event's `type`. `None`:
    /// nothing in it does.
    fn shown_by(&self, data: &Value) -> Option<String> {
        data.get("type").and_then(Value::as_str).map(str::to_string)
    }

    /// The usage as the human report's summary line shows it
    /// (`usage: …`), for an API whose usage fields are not OpenAI's or
    /// Anthropic's names; `None`: the report reads those names.
    fn usage_line(&self, _usage: &Value) -> Option<String> {
        None
    }

    /// Whether this API's usage has a total (Anthropic's has none): the
    /// human report then shows `in+out=total`.
    fn usage_total(&self) -> bool {
        true
    }

    /// The line ending this API's own servers send, as a cross-dialect
    /// `diff` names a stream's line endings: `"LF"` (the default), or
    /// `"CRLF"` where they end every line so (Google's Gemini servers). A
    /// stream that ends its lines as its API does differs in nothing from
    /// another dialect's that does the same.
    fn line_ending(&self) -> &'static str {
        "LF"
    }

    /// How this API's clients read one occurrence of a shared framing
    /// rule: `None` (the default) keeps the rule's own level and message,
    /// as the rule's examples observed them; a dialect whose clients
    /// break on a shape the rule calls harmless (or shrug off one it
    /// calls harmful) gives the level its clients' outcomes call for.
    fn framing(&self, _shape: FramingShape) -> Option<FramingReading> {
        None
    }

    /// A message payload of this API (`payload`, JSON text) whose text
    /// sits inside an encoding of the API's own, with that text put
    /// through `text` and encoded again, the rest of the payload as it
    /// was; `None` (the default) where the payload is the text itself and
    /// is rewritten as it is. Bedrock Invoke's `chunk` carries the inner
    /// model's event as base64 `bytes`: `redact` and `minimize` reach it
    /// through this, and never read the base64 as text.
    fn rewrap(&self, _payload: &str, _text: &mut dyn FnMut(&str) -> String) -> Option<String> {
        None
    }
}
