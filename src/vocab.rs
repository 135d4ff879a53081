//! The vocabulary every module shares, below all of them: the dialects'
//! ids (their names, titles and endpoint paths, and the order reports list
//! them in). What a dialect's events carry and how it is checked is in its
//! folder under `src/dialect/`, picked by this id there
//! ([`crate::dialect`]); here is only what the capture readers, the rule
//! catalogue and the profiles need to name a dialect.
//!
//! Adding a dialect means a variant here (its name, title and endpoint)
//! and its folder's registration in `src/dialect/mod.rs`.

/// One of the stream formats sselint knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    Chat,
    /// OpenAI Responses (`POST /v1/responses`).
    Responses,
    /// Anthropic Messages (`POST /v1/messages`).
    Messages,
    /// Google Gemini's `streamGenerateContent` (`POST
    /// /v1beta/models/MODEL:streamGenerateContent?alt=sse`, Vertex AI's
    /// `…/publishers/google/models/MODEL:streamGenerateContent`).
    Gemini,
    /// Ollama's native API (`POST /api/chat`, `/api/generate`), whose
    /// streams are NDJSON lines, not server-sent events.
    Ollama,
    /// Amazon Bedrock's `ConverseStream` (`POST
    /// /model/MODEL/converse-stream`), whose streams are AWS event-stream
    /// frames.
    BedrockConverse,
    /// Amazon Bedrock's `InvokeModelWithResponseStream` (`POST
    /// /model/MODEL/invoke-with-response-stream`): AWS event-stream frames
    /// whose `chunk`s wrap the model's own events (Claude's: Anthropic
    /// Messages) in base64.
    BedrockInvoke,
    /// OpenAI's Realtime API (`wss://…/v1/realtime?model=MODEL`): session,
    /// conversation and response events, one JSON object a WebSocket
    /// message, several responses on one socket.
    Realtime,
}

/// Every dialect, in the order reports list them.
pub const ALL: &[Dialect] = &[
    Dialect::Chat,
    Dialect::Responses,
    Dialect::Messages,
    Dialect::Gemini,
    Dialect::Ollama,
    Dialect::BedrockConverse,
    Dialect::BedrockInvoke,
    Dialect::Realtime,
];

/// The dialect a stream is read as until an event, the request path or
/// `--dialect` names one: Chat, as sselint read every stream before the
/// others came.
pub const DEFAULT: Dialect = Dialect::Chat;

impl Dialect {
    /// The name used by `--dialect`, reports, and the rule folder
    /// (`chat`, `responses`, `messages`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Chat => "chat",
            Dialect::Responses => "responses",
            Dialect::Messages => "messages",
            Dialect::Gemini => "gemini",
            Dialect::Ollama => "ollama",
            Dialect::BedrockConverse => "bedrock-converse",
            Dialect::BedrockInvoke => "bedrock-invoke",
            Dialect::Realtime => "realtime",
        }
    }

    /// The API's own name, for messages ("OpenAI Responses").
    pub fn title(self) -> &'static str {
        match self {
            Dialect::Chat => "OpenAI Chat Completions",
            Dialect::Responses => "OpenAI Responses",
            Dialect::Messages => "Anthropic Messages",
            Dialect::Gemini => "Google Gemini",
            Dialect::Ollama => "Ollama",
            Dialect::BedrockConverse => "Amazon Bedrock ConverseStream",
            Dialect::BedrockInvoke => "Amazon Bedrock InvokeModelWithResponseStream",
            Dialect::Realtime => "OpenAI Realtime",
        }
    }

    /// The title with its article, for prose ("an OpenAI Responses",
    /// "a Google Gemini").
    pub fn a_title(self) -> String {
        let title = self.title();
        let vowel = title.starts_with(['A', 'E', 'I', 'O', 'U']);
        format!("{} {title}", if vowel { "an" } else { "a" })
    }

    /// The dialect's reference stream, a path under the project root: the
    /// canonical shape of a plain answer, as its provider documents it.
    /// The client harness judges each client against what it does with
    /// this stream (`rules/observed.json`, docs/clients.md).
    pub fn reference_sample(self) -> &'static str {
        match self {
            Dialect::Chat => "samples/good/openai-basic.sse",
            Dialect::Responses => "samples/good/responses-basic.sse",
            Dialect::Messages => "samples/good/messages-basic.sse",
            Dialect::Gemini => "samples/good/gemini-basic.sse",
            Dialect::Ollama => "samples/good/ollama-chat.ndjson",
            Dialect::BedrockConverse => "samples/good/bedrock-converse.bin",
            Dialect::BedrockInvoke => "samples/good/bedrock-invoke.bin",
            Dialect::Realtime => "samples/websocket/realtime-text.har",
        }
    }

    /// The dialect called `name` (as [`Dialect::name`] gives it).
    pub fn parse(name: &str) -> Option<Dialect> {
        ALL.iter().copied().find(|d| d.name() == name)
    }

    /// The endpoint path under the API base ([`Dialect::base`]):
    /// `/chat/completions`, `/responses`, `/messages`. A `{model}` in it
    /// ([`MODEL`]) stands for the model's name, for an API that puts the
    /// model in the path.
    pub fn endpoint(self) -> &'static str {
        match self {
            Dialect::Chat => "/chat/completions",
            Dialect::Responses => "/responses",
            Dialect::Messages => "/messages",
            Dialect::Gemini => "/models/{model}:streamGenerateContent",
            Dialect::Ollama => "/api/chat",
            Dialect::BedrockConverse => "/model/{model}/converse-stream",
            Dialect::BedrockInvoke => "/model/{model}/invoke-with-response-stream",
            Dialect::Realtime => "/realtime",
        }
    }
}

impl Dialect {
    /// The API base path the endpoint is under, as clients call it: `/v1`.
    pub fn base(self) -> &'static str {
        match self {
            Dialect::Chat | Dialect::Responses | Dialect::Messages | Dialect::Realtime => "/v1",
            Dialect::Gemini => "/v1beta",
            Dialect::Ollama | Dialect::BedrockConverse | Dialect::BedrockInvoke => "",
        }
    }

    /// Whether `path` (no query) is this dialect's endpoint, with or
    /// without its base (`/v1/chat/completions`, `/chat/completions`),
    /// any model standing in for `{model}`.
    pub fn is_endpoint(self, path: &str) -> bool {
        let e = self.endpoint();
        matches_whole(e, path.strip_prefix(self.base()).unwrap_or(path))
    }

    /// Other paths this dialect streams at beside its endpoint, as
    /// [`sniff_url`] reads them (Ollama's `/api/generate`).
    pub fn other_paths(self) -> &'static [&'static str] {
        match self {
            Dialect::Ollama => &["/api/generate"],
            _ => &[],
        }
    }

    /// Whether a request to this dialect's endpoint streams by its path
    /// alone, whatever its body says: Gemini's `:streamGenerateContent`
    /// does (the method that does not stream is `:generateContent`), and
    /// answers without `alt=sse` with one JSON array sent as
    /// `application/json`, which is still the stream to lint. The other
    /// endpoints stream only when the request asks (`"stream": true`), so
    /// a JSON answer there is no stream.
    pub fn streams_by_path(self) -> bool {
        match self {
            Dialect::Chat | Dialect::Responses | Dialect::Messages => false,
            // Ollama streams unless the request says `"stream": false`.
            Dialect::Gemini
            | Dialect::Ollama
            | Dialect::BedrockConverse
            | Dialect::BedrockInvoke
            // A socket: every response on it streams.
            | Dialect::Realtime => true,
        }
    }

    /// The endpoint path with `model` in place of `{model}` (the endpoint
    /// itself when it names no model).
    pub fn endpoint_for(self, model: &str) -> String {
        self.endpoint().replace(MODEL, model)
    }
}

/// What stands for the model's name in an endpoint path.
pub const MODEL: &str = "{model}";

/// Whether `model` can be a model's name in a path: one path segment.
fn is_model(model: &str) -> bool {
    !model.is_empty() && !model.contains(['/', '?', '#'])
}

/// Whether `path` is `pattern` (a `{model}` in it standing for a model).
fn matches_whole(pattern: &str, path: &str) -> bool {
    match pattern.split_once(MODEL) {
        None => path == pattern,
        Some((pre, post)) => path
            .strip_prefix(pre)
            .and_then(|r| r.strip_suffix(post))
            .is_some_and(is_model),
    }
}

/// Whether `path` ends with `pattern` (a `{model}` in it standing for a
/// model).
fn matches_end(pattern: &str, path: &str) -> bool {
    match pattern.split_once(MODEL) {
        None => path.ends_with(pattern),
        Some((pre, post)) => {
            let Some(rest) = path.strip_suffix(post) else {
                return false;
            };
            let start = rest.rfind(['/', '?', '#']).map_or(0, |i| i + 1);
            (start..rest.len())
                .filter(|i| rest.is_char_boundary(*i))
                .any(|i| rest[..i].ends_with(pre) && is_model(&rest[i..]))
        }
    }
}

/// Every dialect's name joined by `sep` (`chat|responses|messages|gemini`
/// with `|`): what help texts list as `--dialect`'s values.
pub fn names(sep: &str) -> String {
    ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(sep)
}

/// Every dialect's title, joined by `, ` (`OpenAI Chat Completions,
/// OpenAI Responses, …`).
pub fn titles() -> String {
    ALL.iter().map(|d| d.title()).collect::<Vec<_>>().join(", ")
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The dialect a request URL names by its path (`…/chat/completions`,
/// `…/responses`, `…/messages`, any model standing in for an endpoint's
/// `{model}`, query ignored); `None` for any other path.
pub fn sniff_url(url: &str) -> Option<Dialect> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path.trim_end_matches('/');
    // The endpoints end differently, so at most one matches.
    ALL.iter().copied().find(|d| {
        matches_end(d.endpoint(), path) || d.other_paths().iter().any(|p| path.ends_with(p))
    })
}

/// Whether a request URL's path is an endpoint that streams by its path
/// alone ([`Dialect::streams_by_path`]; query ignored).
pub fn streaming_url(url: &str) -> bool {
    sniff_url(url).is_some_and(Dialect::streams_by_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_placeholder_matches_one_path_segment() {
        let p = "/models/{model}:stream";
        assert!(matches_whole(p, "/models/m-1.5:stream"));
        assert!(!matches_whole(p, "/models/:stream"));
        assert!(!matches_whole(p, "/models/a/b:stream"));
        assert!(matches_end(p, "/v1/projects/p/models/m:stream"));
        assert!(!matches_end(p, "/v1/models/:stream"));
        assert!(!matches_end(p, "/v1/other/m:stream"));
        assert!(matches_end("/chat/completions", "/x/chat/completions"));
        assert!(matches_whole("/chat/completions", "/chat/completions"));
    }
}
