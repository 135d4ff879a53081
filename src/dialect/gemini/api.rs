//! Gemini's `streamGenerateContent` on the wire
//! (`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`): the key as
//! `x-goog-api-key`, no `stream` field (the method streams), Google's
//! error body, the probe's Gemini scenarios, and its `finishReason` and
//! `usageMetadata` on the cross-dialect footing; and how Gemini's clients
//! read the shared SSE framing (every line but `data: ` breaks one).

use crate::dialect::api::{
    sc, weather_params, Auth, FramingReading, FramingShape, NoUnstreamed, Scenario, UsageCounts,
    DISCONNECT, INVALID, JSON_PROMPT, LENGTH_TOKENS, LONG_PROMPT, LONG_TOKENS, PROMPT,
    SHORT_TOKENS, STOP_SEQUENCE, TOOL_PROMPT,
};
use serde_json::{json, Map, Value};

/// Gemini's [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

const SCENARIOS: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "maxOutputTokens 5: the candidate must stop with MAX_TOKENS",
        false,
    ),
    sc("stop", "generationConfig.stopSequences", true),
    sc(
        "tool",
        "one function call forced by toolConfig (mode ANY): the call must come whole",
        true,
    ),
    sc("n2", "candidateCount 2: two candidates must come", true),
    sc(
        "json",
        "responseMimeType application/json: the answer must be JSON",
        true,
    ),
    sc(
        "long",
        "a longer answer (maxOutputTokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "thinking",
        about: "thinkingConfig with includeThoughts (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    INVALID,
    DISCONNECT,
];

/// The API versions a Gemini path starts with.
const VERSIONS: &[&str] = &["v1", "v1beta", "v1beta1"];

/// JSON text `json` (valid) re-indented with two spaces, `": "` after
/// each key, its keys in their order (a `Value` would sort them).
fn pretty(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let (mut in_str, mut escaped) = (false, false);
    let mut chars = json.trim().chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                while chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_ascii_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// The finish reasons that say a filter stopped the candidate.
const FILTERED: &[&str] = &[
    "safety",
    "recitation",
    "blocklist",
    "prohibited_content",
    "spii",
    "image_safety",
    "image_prohibited_content",
    "image_recitation",
];

/// The finish reasons that say the model's call went wrong.
const CALL_FAILED: &[&str] = &[
    "malformed_function_call",
    "unexpected_tool_call",
    "too_many_tool_calls",
];

/// Google's status and HTTP code for an error type: Google's own
/// (`NOT_FOUND`), or the generic ones the replay asks for.
fn status_of(kind: &str) -> (u16, &'static str) {
    match kind {
        "NOT_FOUND" | "not_found_error" => (404, "NOT_FOUND"),
        "RESOURCE_EXHAUSTED" | "rate_limit_error" => (429, "RESOURCE_EXHAUSTED"),
        "UNAVAILABLE" | "overloaded_error" => (503, "UNAVAILABLE"),
        "INTERNAL" | "api_error" | "server_error" => (500, "INTERNAL"),
        "PERMISSION_DENIED" | "permission_error" => (403, "PERMISSION_DENIED"),
        "UNAUTHENTICATED" | "authentication_error" => (401, "UNAUTHENTICATED"),
        _ => (400, "INVALID_ARGUMENT"),
    }
}

impl crate::dialect::Api for Api {
    /// Google's SDKs add `/v1beta/models/…` to the origin.
    fn sdk_base(&self) -> &'static str {
        ""
    }

    fn auth(&self) -> Auth {
        Auth {
            key_header: "x-goog-api-key",
            key_prefix: "",
            fixed: &[],
            how: "the key as x-goog-api-key, no `stream` field",
        }
    }

    /// A Bearer token to Vertex AI's project paths
    /// (`…/projects/P/locations/L/publishers/google/models/…`, an OAuth
    /// access token); `x-goog-api-key` elsewhere (the Gemini API, and
    /// Vertex AI's express mode without a project).
    fn auth_for(&self, url: &str) -> Auth {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        if path.contains("/projects/") && path.contains("/locations/") {
            Auth {
                key_header: "Authorization",
                key_prefix: "Bearer ",
                fixed: &[],
                how: "the access token as a Bearer token (Vertex AI), no `stream` field",
            }
        } else {
            self.auth()
        }
    }

    /// `alt=sse`: without it `streamGenerateContent` answers with one
    /// JSON array (reference §1.3).
    fn stream_query(&self) -> Option<(&'static str, &'static str)> {
        Some(("alt", "sse"))
    }

    /// An origin (or a proxy's prefix) gains `/v1beta`; a path ending in
    /// an API version (`/v1`, `/v1beta`, `/v1beta1`) or in
    /// `/publishers/google` gains the model's path; Vertex AI's
    /// `…/projects/P/locations/L` gains `/publishers/google` first. A
    /// model named `models/…` or `tunedModels/…` is used as it is.
    fn endpoint_under(&self, base: &str, model: &str) -> Option<String> {
        let b = base.trim_end_matches('/');
        let b = b.strip_suffix("/models").unwrap_or(b);
        let name = if model.starts_with("models/") || model.starts_with("tunedModels/") {
            model.to_string()
        } else {
            format!("models/{model}")
        };
        let segs: Vec<&str> = b.split('/').collect();
        let n = segs.len();
        let prefix = if b.ends_with("/publishers/google") || VERSIONS.contains(&segs[n - 1]) {
            b.to_string()
        } else if n >= 4 && segs[n - 2] == "locations" && segs[n - 4] == "projects" {
            format!("{b}/publishers/google")
        } else {
            format!("{b}/v1beta")
        };
        Some(format!("{prefix}/{name}:streamGenerateContent"))
    }

    /// `[/VERSION][/projects/P/locations/L][/publishers/google]/(models|tunedModels)/M:streamGenerateContent`.
    fn other_endpoint(&self, path: &str) -> bool {
        let Some(rest) = path.strip_suffix(":streamGenerateContent") else {
            return false;
        };
        let segs: Vec<&str> = rest.split('/').collect();
        if segs.first() != Some(&"") {
            return false;
        }
        let mut i = 1;
        if segs.get(i).is_some_and(|s| VERSIONS.contains(s)) {
            i += 1;
        }
        if segs.get(i) == Some(&"projects") && segs.get(i + 2) == Some(&"locations") {
            if segs.get(i + 1).is_none_or(|p| p.is_empty())
                || segs.get(i + 3).is_none_or(|l| l.is_empty())
            {
                return false;
            }
            i += 4;
        }
        if segs.get(i) == Some(&"publishers") && segs.get(i + 1) == Some(&"google") {
            i += 2;
        }
        segs.len() == i + 2
            && matches!(segs[i], "models" | "tunedModels")
            && !segs[i + 1].is_empty()
    }

    /// The JSON array `streamGenerateContent` sends without `?alt=sse`
    /// (reference §1.3): `[{…}\n,\r\n{…}\n]`, each element a chunk
    /// pretty-printed with 2-space indentation, keys in their order.
    fn unstreamed(&self, datas: &[&str]) -> Result<(String, String), NoUnstreamed> {
        if datas.is_empty() {
            return Err(NoUnstreamed::NoEvent);
        }
        let mut elements = Vec::new();
        for (i, d) in datas.iter().enumerate() {
            if !serde_json::from_str::<Value>(d).is_ok_and(|v| v.is_object()) {
                return Err(NoUnstreamed::NotAnObject(i));
            }
            elements.push(pretty(d));
        }
        Ok((
            "application/json; charset=UTF-8".to_string(),
            format!("[{}\n]", elements.join("\n,\r\n")),
        ))
    }

    /// The method streams; a `stream` field is an unknown name to the
    /// API, which rejects it.
    fn prepare(&self, body: &mut Map<String, Value>, _include_usage: bool) {
        body.remove("stream");
    }

    /// `{"error":{"code":…,"message":…,"status":…}}`.
    fn error_body(&self, kind: &str, message: &str) -> String {
        let (code, status) = status_of(kind);
        let message = Value::String(message.to_string()).to_string();
        format!(r#"{{"error":{{"code":{code},"message":{message},"status":"{status}"}}}}"#)
    }

    fn not_found_kind(&self) -> &'static str {
        "NOT_FOUND"
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn scenario_body(&self, name: &str, _model: &str) -> Value {
        let user = |text: &str| json!([{"role": "user", "parts": [{"text": text}]}]);
        let mut b = json!({"contents": user(PROMPT), "generationConfig": {"maxOutputTokens": SHORT_TOKENS}});
        match name {
            "length" => {
                b["generationConfig"]["maxOutputTokens"] = json!(LENGTH_TOKENS);
                b["contents"] = user(LONG_PROMPT);
            }
            "stop" => {
                b["contents"] = user(LONG_PROMPT);
                b["generationConfig"]["stopSequences"] = json!([STOP_SEQUENCE]);
            }
            "tool" => {
                b["contents"] = user(TOOL_PROMPT);
                b["tools"] = json!([{"functionDeclarations": [{"name": "get_weather", "description": "The weather in a city", "parameters": weather_params()}]}]);
                b["toolConfig"] = json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}});
            }
            "n2" => b["generationConfig"]["candidateCount"] = json!(2),
            "json" => {
                b["contents"] = user(JSON_PROMPT);
                b["generationConfig"]["responseMimeType"] = json!("application/json");
            }
            "long" => {
                b["generationConfig"]["maxOutputTokens"] = json!(LONG_TOKENS);
                b["contents"] = user(LONG_PROMPT);
            }
            "thinking" => {
                b["generationConfig"]["thinkingConfig"] =
                    json!({"includeThoughts": true, "thinkingBudget": 1024});
                b["generationConfig"]["maxOutputTokens"] = json!(LONG_TOKENS);
            }
            // `contents` must be an array: the API rejects a number.
            "invalid" => b["contents"] = json!(42),
            _ => {}
        }
        b
    }

    fn scenario_of(&self, o: &Map<String, Value>) -> Option<&'static str> {
        if !o.get("contents").is_some_and(Value::is_array) {
            return Some("invalid");
        }
        if o.get("tools")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            return Some("tool");
        }
        let config = o.get("generationConfig");
        let get = |k: &str| config.and_then(|c| c.get(k)).filter(|v| !v.is_null());
        if get("candidateCount")
            .and_then(Value::as_u64)
            .is_some_and(|n| n >= 2)
        {
            return Some("n2");
        }
        if get("thinkingConfig").is_some() {
            return Some("thinking");
        }
        if get("responseMimeType").and_then(Value::as_str) == Some("application/json") {
            return Some("json");
        }
        if get("stopSequences").is_some() {
            return Some("stop");
        }
        match get("maxOutputTokens").and_then(Value::as_u64) {
            Some(n) if n <= LENGTH_TOKENS => Some("length"),
            Some(n) if n >= LONG_TOKENS => Some("long"),
            _ => None,
        }
    }

    fn budget_keys(&self) -> &'static [&'static str] {
        &["maxOutputTokens"]
    }

    fn forced_tool(&self, _name: &str) -> &'static str {
        "toolConfig allowed only the function get_weather (mode ANY)"
    }

    fn forced_tool_named(&self) -> &'static str {
        self.forced_tool("tool")
    }

    fn cut_finish(&self) -> &'static str {
        "MAX_TOKENS"
    }

    fn n2_field(&self) -> &'static str {
        "generationConfig.candidateCount"
    }

    fn stop_key(&self) -> &'static str {
        "generationConfig.stopSequences"
    }

    fn input_key(&self) -> &'static str {
        "contents"
    }

    /// `STOP` is `stop` (`tool_calls` when the candidate called a
    /// function: Gemini has no finish of its own for that); `MAX_TOKENS`
    /// is `length`; the filters' reasons and a blocked prompt are
    /// `content_filter`; a malformed or unexpected call is `error`.
    fn finish_class(&self, f: &str, finish: &str, has_tool_calls: bool) -> String {
        if f == "stop" {
            if has_tool_calls { "tool_calls" } else { "stop" }.to_string()
        } else if f == "max_tokens" {
            "length".to_string()
        } else if FILTERED.contains(&f) || f.starts_with("blockreason") {
            "content_filter".to_string()
        } else if CALL_FAILED.contains(&f) {
            "error".to_string()
        } else {
            finish.to_string()
        }
    }

    /// A JSON array of GenerateContentResponse objects is the answer
    /// without `?alt=sse`; one such object is a non-streamed answer.
    fn body_shape(&self, body: &Value) -> Option<String> {
        let is_response = |v: &Value| {
            v.as_object().is_some_and(|o| {
                super::is_chunk(o) || (o.len() == 1 && o.get("error").is_some_and(Value::is_object))
            })
        };
        match body {
            Value::Array(a) if !a.is_empty() && a.iter().all(is_response) => Some(format!(
                "a JSON array of {} Gemini GenerateContentResponse object(s): what `streamGenerateContent` sends without `?alt=sse`",
                a.len()
            )),
            Value::Object(o) if super::is_chunk(o) => Some(
                "one Gemini GenerateContentResponse object: a non-streamed answer (`generateContent`)".to_string(),
            ),
            _ => None,
        }
    }

    /// The key that makes it a chunk: `candidates`, `promptFeedback` or
    /// `usageMetadata` (its events have no `type`).
    fn shown_by(&self, data: &Value) -> Option<String> {
        ["candidates", "promptFeedback", "usageMetadata"]
            .into_iter()
            .find(|k| data.get(k).is_some())
            .map(str::to_string)
    }

    /// A body that starts as `[{"candidates": [` but does not parse
    /// whole: the JSON array cut before its end.
    fn cut_body_shape(&self, head: &str) -> Option<String> {
        let rest = head.trim_start().strip_prefix('[')?;
        super::is_partial_chunk(rest).then(|| {
            "the start of a JSON array of Gemini GenerateContentResponse objects that does not parse whole (cut before its end): what `streamGenerateContent` sends without `?alt=sse`".to_string()
        })
    }

    /// `usage: 9+11=20`: the prompt (tool-use prompt included), the output
    /// (thoughts included) and the total, then the thoughts and the cached
    /// part where there are some.
    fn usage_line(&self, u: &Value) -> Option<String> {
        let c = self.usage_apart(u)?;
        let q = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
        let mut s = format!("usage: {}+{}={}", q(c.input), q(c.output), q(c.total));
        let mut more = Vec::new();
        if let Some(t) = u
            .get("thoughtsTokenCount")
            .and_then(Value::as_u64)
            .filter(|t| *t > 0)
        {
            more.push(format!("{t} thoughts"));
        }
        if let Some(t) = c.cached.filter(|t| *t > 0) {
            more.push(format!("{t} cached"));
        }
        if !more.is_empty() {
            s.push_str(&format!(" ({})", more.join(", ")));
        }
        Some(s)
    }

    /// `promptTokenCount` (which includes `cachedContentTokenCount`) plus
    /// `toolUsePromptTokenCount` in; `candidatesTokenCount` plus
    /// `thoughtsTokenCount` out; `totalTokenCount`.
    fn usage_apart(&self, u: &Value) -> Option<UsageCounts> {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        let input = add(n("promptTokenCount"), n("toolUsePromptTokenCount"));
        let output = add(n("candidatesTokenCount"), n("thoughtsTokenCount"));
        Some(UsageCounts {
            input,
            output,
            total: n("totalTokenCount").or_else(|| Some(input?.saturating_add(output?))),
            cached: n("cachedContentTokenCount"),
            cache_write: None,
        })
    }

    /// Google's servers end every line with CRLF (`data: {…}\r\n\r\n`).
    fn line_ending(&self) -> &'static str {
        "CRLF"
    }

    /// Gemini's clients read a stream of `data: ` lines and blank lines
    /// only (rules/observed.json, clients/corpus/gemini/): a line that is
    /// not `data: …` (a comment, `data:` with no space, another field
    /// name) goes to a JSON parser and raises (google-genai's
    /// `_iter_response_stream` hands it to its raw-JSON buffer); an event
    /// on several `data` lines keeps the second `data:` inside its JSON
    /// (@google/genai strips the first only); a lone CR ends no line for
    /// a reader that splits on LF (`@ai-sdk/google` lost the events it
    /// ended). Each occurrence is therefore an error here.
    fn framing(&self, shape: FramingShape) -> Option<FramingReading> {
        use crate::lint::Severity::{Error, Info};
        if shape == FramingShape::CrLf {
            // Google's servers end every line with CRLF (`data: {…}\r\n\r\n`):
            // the API's own framing, which every client of the record reads.
            return Some(FramingReading {
                level: Info,
                why: "in a Gemini stream that is the API's own framing (Google's servers end every line with CRLF), and no client of the record broke on it: nothing to change",
            });
        }
        const NOT_DATA: &str = "in a Gemini stream that is an error: clients that parse every line not starting with `data: ` as JSON raise on it";
        let why = match shape {
            FramingShape::Comment | FramingShape::DataNoSpace | FramingShape::UnknownField => {
                NOT_DATA
            }
            FramingShape::MultilineData => {
                "in a Gemini stream that is an error: clients that strip only an event's first `data:` raise on the rest"
            }
            FramingShape::LoneCr => {
                "in a Gemini stream that is an error: clients that end lines at LF alone lose the events these lines end"
            }
            FramingShape::Mixed => {
                // Observed (clients/corpus/gemini/crlf-lines-lf-blank.sse):
                // an agent app raised ("Incomplete JSON segment") and sent
                // the request again.
                "in a Gemini stream that is an error: a client that ends events at a blank line in the stream's own line ending runs events together and raises"
            }
            FramingShape::CrLf => return None,
        };
        Some(FramingReading { level: Error, why })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;

    #[test]
    fn a_stream_without_a_json_array_shape_says_why() {
        let api = Dialect::parse("gemini").unwrap().api();
        let e = api.unstreamed(&[]).unwrap_err();
        assert_eq!(e, NoUnstreamed::NoEvent);
        assert_eq!(
            e.to_string(),
            "the capture holds no event to give as a JSON array"
        );
        let e = api.unstreamed(&["{}", "[1]"]).unwrap_err();
        assert_eq!(e, NoUnstreamed::NotAnObject(1));
        assert!(
            e.to_string()
                .starts_with("event 1 of the capture is not a JSON object"),
            "{e}"
        );
    }
}
