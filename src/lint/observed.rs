//! What real clients did with each capture of the corpus: the record that
//! the client harness (`clients/run.py`) writes to `rules/observed.json` by
//! replaying every rule example, sample and test case to the clients of its
//! dialect: for Chat Completions openai-python, openai-node, LangChain, the
//! Vercel AI SDK and a hand-written parser; for OpenAI Responses
//! openai-python and openai-node (each raw and through its stream helper),
//! the Vercel AI SDK (`@ai-sdk/openai`) and LangChain; for Anthropic Messages
//! the Anthropic Python and TypeScript SDKs (each raw and through its stream
//! helper), the Vercel AI SDK (`@ai-sdk/anthropic`) and LangChain; for
//! Responses over a WebSocket (dialect [`SOCKET_DIALECT`]) openai-python's
//! `responses.connect()` and openai-node's `ResponsesWS`; for the Realtime
//! API (dialect `realtime`, text mode) openai-python's `realtime.connect()`
//! and openai-node's `OpenAIRealtimeWS`.
//! A capture's record lists the clients that read it.
//!
//! It is the only place where sselint speaks about a named client: `sselint
//! rule NAME` prints its table, the human report's notes quote its counts,
//! and the severity policy (`derived_severity`) is read off it. It does not
//! run any client; the harness does, and `tests/clients.rs` checks that a
//! fresh run still matches the record.

use super::Severity;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The record, embedded at build time (the path is relative to this file,
/// so a moved checkout embeds the same record).
const RECORD: &str = include_str!("../../rules/observed.json");

/// What one client ended up with on one capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The text, tool calls, finish_reason and usage the server meant.
    Ok,
    /// Text, tool calls and finish right; usage or the refusal reported
    /// otherwise.
    Diverges,
    /// Another text, other tool calls or another finish_reason.
    Differs,
    /// The client raised (threw).
    Raised,
}

impl Verdict {
    /// The word the tables show.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Diverges => "diverges",
            Verdict::Differs => "differs",
            Verdict::Raised => "raised",
        }
    }
}

/// One client's outcome on one capture.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// What differed (`text "HiHi"`), or the exception (`TypeError: …`,
    /// first line, ports scrubbed).
    #[serde(default)]
    pub detail: Option<String>,
}

/// A client the harness runs.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Client {
    /// Its name in tables (`openai-python`).
    pub name: String,
    /// The dialect whose captures it reads (`chat`, `responses`,
    /// `messages`; Chat when the record does not say).
    #[serde(default = "chat")]
    pub dialect: String,
    /// How the harness uses it.
    pub how: String,
    /// The pinned package versions.
    pub version: String,
}

fn chat() -> String {
    "chat".to_string()
}

/// The observations of one capture.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Capture {
    /// The answer the server meant (choice 0): `text`, `tool_calls`,
    /// `finish_reason`, as `check --format json` reconstructs it.
    pub expected: serde_json::Value,
    /// Client name → outcome: the clients of the capture's dialect.
    pub clients: BTreeMap<String, Outcome>,
}

/// The whole record.
#[derive(Debug, serde::Deserialize)]
pub struct Record {
    /// The clients, in table order.
    pub clients: Vec<Client>,
    /// Capture id (`rules/NAME.toml#K`, 1-based, or a repository path) →
    /// observations.
    pub captures: BTreeMap<String, Capture>,
}

/// The record's dialect of the clients that read Responses over a
/// WebSocket (WebSocket mode): a socket's captures are theirs, not the
/// HTTP Responses clients'.
pub const SOCKET_DIALECT: &str = "responses-ws";

/// The client that stands for hand-written parsers (of Chat streams): its
/// failures alone make a warning, not an error.
pub const HAND_WRITTEN: &str = "hand-written";

impl Record {
    /// The observations of `rule`'s example `k` (1-based), keyed by its
    /// file (`rules/chat/cut-off.toml#1`).
    pub fn example(&self, rule: &crate::lint::Rule, k: usize) -> Option<&Capture> {
        self.captures.get(&format!("{}#{k}", rule.file))
    }

    /// The clients that read at least one of `captures`, in table order
    /// (each capture is read by the clients of its dialect).
    pub fn clients_of<'a>(&'a self, captures: &[&Capture]) -> Vec<&'a Client> {
        self.clients
            .iter()
            .filter(|c| captures.iter().any(|cap| cap.clients.contains_key(&c.name)))
            .collect()
    }
}

/// The dialect's reference stream: the canonical shape of a plain answer,
/// as its provider documents it. What a client does with it is what the
/// client does with every stream.
/// A name that is no dialect's gets the default dialect's; the
/// WebSocket-mode clients' (`responses-ws`, [`SOCKET_DIALECT`]) is a
/// Responses socket of two turns and a tool call.
pub fn reference_capture(dialect: &str) -> &'static str {
    if dialect == SOCKET_DIALECT {
        return "samples/websocket/responses-two-turns.har";
    }
    crate::vocab::Dialect::parse(dialect)
        .unwrap_or(crate::vocab::DEFAULT)
        .reference_sample()
}

/// The fields of an outcome's detail (`text "…"; usage {…}` gives `text`
/// and `usage`; `refusal shown as text` gives `refusal`).
fn fields(detail: &str) -> Vec<&str> {
    detail
        .split("; ")
        .filter_map(|part| part.split(' ').next())
        .filter(|f| !f.is_empty())
        .collect()
}

impl Record {
    /// What `client` did with its dialect's reference stream, if that was
    /// not the answer the server meant.
    pub fn baseline(&self, client: &str) -> Option<&Outcome> {
        let dialect = self
            .clients
            .iter()
            .find(|c| c.name == client)?
            .dialect
            .as_str();
        self.captures
            .get(reference_capture(dialect))?
            .clients
            .get(client)
            .filter(|o| o.verdict != Verdict::Ok)
    }

    /// The verdict of `client`'s outcome `o` on capture `c`, judged as the
    /// policy reads it:
    /// - a designed exception (`designed_exception`: a raise that reports
    ///   the very finish the server sent, such as `LengthFinishReasonError`
    ///   on a `length` finish) is a faithful reading: `diverges`, not
    ///   `raised`;
    /// - otherwise the outcome is judged against what the same client does
    ///   with its dialect's reference stream: a field the client already
    ///   reports otherwise there (LangChain's Messages usage,
    ///   `input_tokens: 0` on every stream whose `message_delta` lacks it)
    ///   is how that client reads every stream, not what this shape does,
    ///   so it does not count. What is left decides: another text, tool
    ///   calls or finish, or an agent app that sent the same conversation
    ///   again (`retried`), is `differs`; usage or the refusal alone is
    ///   `diverges`; nothing is `ok`. A raise counts unless the client
    ///   raises the same way on the reference stream.
    pub fn verdict(&self, c: &Capture, client: &str, o: &Outcome) -> Verdict {
        if o.verdict == Verdict::Raised && designed_exception(c, o) {
            return Verdict::Diverges;
        }
        let Some(base) = self.baseline(client) else {
            return o.verdict;
        };
        match o.verdict {
            Verdict::Ok => Verdict::Ok,
            Verdict::Raised => {
                if base.verdict == Verdict::Raised && base.detail == o.detail {
                    Verdict::Ok
                } else {
                    Verdict::Raised
                }
            }
            Verdict::Diverges | Verdict::Differs => {
                let own = base.detail.as_deref().map(fields).unwrap_or_default();
                let left: Vec<&str> = o
                    .detail
                    .as_deref()
                    .map(fields)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|f| !own.contains(f))
                    .collect();
                if left
                    .iter()
                    .any(|f| matches!(*f, "text" | "tool_calls" | "finish_reason" | "retried"))
                {
                    Verdict::Differs
                } else if left.is_empty() {
                    Verdict::Ok
                } else {
                    Verdict::Diverges
                }
            }
        }
    }

    /// The severity the policy gives a capture from what its clients (those
    /// of its dialect) did, each judged as `Record::verdict` judges it
    /// (against what it does with the dialect's reference stream; a
    /// designed exception is a faithful reading):
    /// - error: a mainstream client raised, or ended with another text, tool
    ///   calls or finish_reason (a Responses status, a Messages stop_reason);
    /// - warning: only the hand-written parser broke, or clients diverge on
    ///   usage or the refusal, or a client raised a designed exception that
    ///   reports the finish the server sent;
    /// - info: every client got the answer the server meant, or did with
    ///   this capture what it does with the reference stream.
    pub fn severity(&self, c: &Capture) -> Severity {
        let v = |n: &str, o: &Outcome| self.verdict(c, n, o);
        let broke = |n: &str, o: &Outcome| matches!(v(n, o), Verdict::Differs | Verdict::Raised);
        if c.clients
            .iter()
            .any(|(n, o)| n != HAND_WRITTEN && broke(n, o))
        {
            Severity::Error
        } else if c.clients.iter().any(|(n, o)| v(n, o) != Verdict::Ok) {
            Severity::Warning
        } else {
            Severity::Info
        }
    }

    /// The severity the policy gives rule `rule`'s finding on capture `c`:
    /// `Record::severity`, and at least a warning where `rule` is a
    /// dialect's budget-cut rule (`BUDGET_CUT_RULES`) and the server's
    /// finish says the token budget cut the answer (`budget_cut`): the
    /// user sees a cut answer whichever client reads it, and the SDKs that
    /// raise on it raise by design (a warning), so the cut is a warning in
    /// every dialect. An error stays an error (a cut inside a tool call's
    /// input, where clients end with other tool calls).
    pub fn severity_of(&self, rule: &str, c: &Capture) -> Severity {
        let s = self.severity(c);
        if BUDGET_CUT_RULES.contains(&rule) && budget_cut(c) {
            s.max(Severity::Warning)
        } else {
            s
        }
    }
}

/// Exceptions that an SDK raises on purpose to report the finish the
/// server sent: (the finish, as the record's `expected.finish_reason` gives
/// it, or its first word before `:`; the start of the raise's detail, as
/// the record gives it). Such a raise reads the stream right: the
/// application learns the answer was cut or filtered because the server
/// said so.
/// - openai-python's Chat stream helper raises `LengthFinishReasonError`
///   on `length` and `ContentFilterFinishReasonError` on `content_filter`
///   (`openai/lib/_parsing/_completions.py`);
/// - openai-python's Responses stream helper raises "Didn't receive a
///   `response.completed` event." on a response that ended with the
///   documented `response.incomplete`; the same raise on a stream that
///   simply stops (no finish) is not designed, and counts;
/// - Codex CLI ends its turn with "Incomplete response returned, reason:
///   …" on a response that ended with `response.incomplete`, naming the
///   reason the server sent (clients/agent_clients.py records it as
///   `CodexError`);
/// - opencode ends its step with a `ContentFilterError`, "The response was
///   blocked by the provider's content filter", when the AI SDK reports the
///   finish `content-filter` (Chat's `content_filter`); clients/agent_clients.py
///   records it as `OpencodeError`.
pub const DESIGNED_EXCEPTIONS: &[(&str, &str)] = &[
    ("length", "LengthFinishReasonError:"),
    ("content_filter", "ContentFilterFinishReasonError:"),
    (
        "incomplete",
        "RuntimeError: Didn't receive a `response.completed` event.",
    ),
    (
        "incomplete",
        "CodexError: Incomplete response returned, reason:",
    ),
    (
        "content_filter",
        "OpencodeError: The response was blocked by the provider's content filter",
    ),
];

/// The finish the server meant for a capture (`expected.finish_reason`),
/// if it sent one.
fn expected_finish(c: &Capture) -> Option<&str> {
    c.expected.get("finish_reason").and_then(|f| f.as_str())
}

/// Whether `f` is `finish` or starts with `finish:` (a Responses status
/// may carry its reason: `incomplete: max_output_tokens`).
fn finish_is(f: &str, finish: &str) -> bool {
    f == finish
        || f.strip_prefix(finish)
            .is_some_and(|rest| rest.starts_with(':'))
}

/// Whether outcome `o` on capture `c` is a raise of `DESIGNED_EXCEPTIONS`
/// for the finish the server sent.
pub fn designed_exception(c: &Capture, o: &Outcome) -> bool {
    let (Some(f), Some(d)) = (expected_finish(c), o.detail.as_deref()) else {
        return false;
    };
    o.verdict == Verdict::Raised
        && DESIGNED_EXCEPTIONS
            .iter()
            .any(|(finish, raise)| finish_is(f, finish) && d.starts_with(raise))
}

/// The rules that report an answer cut by the token budget, one per
/// dialect: Chat's `length`, the Responses `incomplete` status, the
/// Messages `max_tokens` stop_reason (Bedrock Invoke's Claude events
/// included), Gemini's `MAX_TOKENS`, Ollama's `done_reason` `length`, Bedrock
/// ConverseStream's `stopReason` `max_tokens`.
pub const BUDGET_CUT_RULES: &[&str] = &[
    "finish-length",
    "responses-incomplete",
    "messages-max-tokens",
    "gemini-max-tokens",
    "ollama-length",
    "converse-max-tokens",
];

/// The finishes that say the token budget cut the answer, as the record's
/// `expected.finish_reason` gives them (a Responses `incomplete` status
/// does not say its reason there; `responses-incomplete` reports both).
const BUDGET_CUTS: &[&str] = &["length", "incomplete", "max_tokens", "MAX_TOKENS"];

/// Whether the server's finish for capture `c` says the budget cut it.
pub fn budget_cut(c: &Capture) -> bool {
    expected_finish(c).is_some_and(|f| BUDGET_CUTS.iter().any(|b| finish_is(f, b)))
}

/// The severity policy, as `sselint rules` prints it under its table and
/// the book's rules page states it (`docs/rules/index.md`): what decides a
/// level, and the rule that the same consequence gets the same level in
/// every dialect.
pub const SEVERITY_POLICY: &str = "\
Severities follow what the clients of the harness did with each shape (rules/observed.json; `sselint rule NAME` shows the table): \
error when a mainstream client raised or ended with another text, tool calls or finish than the server meant; \
warning when clients differ visibly without losing data; info when every client read the answer as meant. \
A designed exception is a faithful reading, not a break: a stream helper that raises on purpose to report the very finish the server sent (a `length` or `content_filter` finish, a `response.incomplete` ending) counts as differing visibly, a warning. \
The same consequence gets the same level in every dialect, the consequence being what the clients did: \
an answer cut by the token budget is a warning in every dialect (Chat `finish-length`, Responses `responses-incomplete`, Messages `messages-max-tokens` (Bedrock Invoke's Claude events included), Gemini `gemini-max-tokens`, Ollama `ollama-length`, Bedrock ConverseStream `converse-max-tokens`), an error where clients end with other tool calls or another finish because the cut fell inside a tool call's input (Messages) or after tool calls (Ollama); \
an event whose loss changes the answer is an error wherever it is lost (an unterminated last event, a text delta after the end of its part or block); \
a refusal is a warning wherever clients hand it over in different places (Chat `refusal`, Responses `responses-refusal`); \
a field or event type a client reads past is info. \
A loss the record cannot show is an error all the same: a cut answer with no finish, a tool call with no name, tool arguments that are not JSON (the loss shows against the answer the server meant, or in the application that runs the call). \
Where one rule's shapes differ in consequence, each occurrence gets the level of its own shape \
(content after a finish is info when clients read on, an error after a premature finish; a `message` in a streamed choice is an error on its first chunk, info on a later one that repeats the text; a capture its tool cut, `capture-truncated`, is an error when the cut came before the finish, info when the whole ending was saved). \
Rules that replaying cannot judge say why in their severity basis.";

/// The severity the policy gives a capture of the committed record
/// (`Record::severity` on `record()`).
pub fn derived_severity(c: &Capture) -> Severity {
    record().severity(c)
}

/// The severity the policy gives rule `rule`'s finding on a capture of the
/// committed record (`Record::severity_of` on `record()`).
pub fn derived_severity_of(rule: &str, c: &Capture) -> Severity {
    record().severity_of(rule, c)
}

/// One line on what the clients did with a capture, for notes:
/// `3 of 7 clients broke (openai-node raised SyntaxError, …)`, on the
/// committed record (`Record::summary`).
pub fn summary(c: &Capture) -> String {
    record().summary(c)
}

impl Record {
    /// One line on what the clients did with a capture: those that did not
    /// read it as meant, and apart those that did with it only what they
    /// do with the reference stream.
    pub fn summary(&self, c: &Capture) -> String {
        let what = |o: &Outcome| match (o.verdict, &o.detail) {
            (Verdict::Raised, Some(d)) => {
                format!("raised {}", d.split(':').next().unwrap_or(d))
            }
            (v, Some(d)) => format!("{}: {}", v.name(), d),
            (v, None) => v.name().to_string(),
        };
        let mut bad = Vec::new();
        let mut as_reference = Vec::new();
        for (n, o) in c.clients.iter().filter(|(_, o)| o.verdict != Verdict::Ok) {
            let v = self.verdict(c, n, o);
            if v == Verdict::Ok {
                as_reference.push(format!("{n} {}", what(o)));
            } else if designed_exception(c, o) {
                bad.push(format!(
                    "{n} {} (by design: it reports the finish sent)",
                    what(o)
                ));
            } else {
                bad.push(format!("{n} {}", what(o)));
            }
        }
        let mut line = if bad.is_empty() {
            format!("all {} clients read it as meant", c.clients.len())
        } else {
            format!(
                "{} of {} clients did not: {}",
                bad.len(),
                c.clients.len(),
                bad.join("; ")
            )
        };
        if !as_reference.is_empty() {
            line.push_str(&format!(
                " (as on the dialect's reference stream: {})",
                as_reference.join("; ")
            ));
        }
        line
    }
}

/// The record, parsed once.
///
/// # Panics
/// When the embedded record is malformed: `tests/clients.rs` parses it.
pub fn record() -> &'static Record {
    static R: OnceLock<Record> = OnceLock::new();
    R.get_or_init(|| {
        serde_json::from_str(RECORD)
            .unwrap_or_else(|e| panic!("rules/observed.json does not parse: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_DIALECTS: &str = r#"{
        "clients": [
            {"name": "c1", "dialect": "chat", "how": "", "version": ""},
            {"name": "hand-written", "dialect": "chat", "how": "", "version": ""},
            {"name": "m1", "dialect": "messages", "how": "", "version": ""},
            {"name": "m2", "dialect": "messages", "how": "", "version": ""}
        ],
        "captures": {
            "chat": {"expected": {}, "clients": {
                "c1": {"verdict": "ok"},
                "hand-written": {"verdict": "raised", "detail": "SyntaxError: x"}}},
            "messages": {"expected": {}, "clients": {
                "m1": {"verdict": "ok"},
                "m2": {"verdict": "raised", "detail": "AssertionError: "}}}
        }
    }"#;

    #[test]
    fn a_table_shows_only_the_clients_of_its_captures_dialect() {
        let rec: Record = serde_json::from_str(TWO_DIALECTS).unwrap();
        let names = |ids: &[&str]| -> Vec<String> {
            let caps: Vec<&Capture> = ids.iter().map(|i| &rec.captures[*i]).collect();
            rec.clients_of(&caps)
                .iter()
                .map(|c| c.name.clone())
                .collect()
        };
        assert_eq!(names(&["messages"]), ["m1", "m2"]);
        assert_eq!(names(&["chat"]), ["c1", "hand-written"]);
        assert_eq!(names(&["chat", "messages"]).len(), 4);
    }

    #[test]
    fn the_hand_written_exception_is_chat_only_and_counts_are_per_dialect() {
        let rec: Record = serde_json::from_str(TWO_DIALECTS).unwrap();
        // Only the hand-written parser broke: a warning.
        assert_eq!(rec.severity(&rec.captures["chat"]), Severity::Warning);
        // A Messages client raised: an error (no hand-written parser there).
        assert_eq!(rec.severity(&rec.captures["messages"]), Severity::Error);
        assert_eq!(
            rec.summary(&rec.captures["messages"]),
            "1 of 2 clients did not: m2 raised AssertionError"
        );
        // A record without dialects is Chat's.
        let old: Record = serde_json::from_str(
            r#"{"clients": [{"name": "c1", "how": "", "version": ""}], "captures": {}}"#,
        )
        .unwrap();
        assert_eq!(old.clients[0].dialect, "chat");
    }

    #[test]
    fn a_client_is_judged_against_what_it_does_with_the_reference_stream() {
        let rec: Record = serde_json::from_str(
            r#"{
            "clients": [
                {"name": "m1", "dialect": "messages", "how": "", "version": ""},
                {"name": "m2", "dialect": "messages", "how": "", "version": ""}
            ],
            "captures": {
                "samples/good/messages-basic.sse": {"expected": {}, "clients": {
                    "m1": {"verdict": "ok"},
                    "m2": {"verdict": "diverges", "detail": "usage {\"input_tokens\": 0}"}}},
                "same": {"expected": {}, "clients": {
                    "m1": {"verdict": "ok"},
                    "m2": {"verdict": "diverges", "detail": "usage {\"input_tokens\": 0}"}}},
                "finish": {"expected": {}, "clients": {
                    "m1": {"verdict": "ok"},
                    "m2": {"verdict": "differs", "detail": "finish_reason \"x\"; usage {}"}}},
                "other": {"expected": {}, "clients": {
                    "m1": {"verdict": "diverges", "detail": "usage {\"input_tokens\": 0}"},
                    "m2": {"verdict": "ok"}}}
            }
        }"#,
        )
        .unwrap();
        // m2 reports usage otherwise on the reference stream too: its usage
        // says nothing about a shape.
        assert_eq!(
            rec.severity(&rec.captures["samples/good/messages-basic.sse"]),
            Severity::Info
        );
        assert_eq!(rec.severity(&rec.captures["same"]), Severity::Info);
        assert!(rec
            .summary(&rec.captures["same"])
            .starts_with("all 2 clients read it as meant (as on"));
        // Another finish still counts.
        assert_eq!(rec.severity(&rec.captures["finish"]), Severity::Error);
        // m1 reads the reference stream as meant: its usage counts.
        assert_eq!(rec.severity(&rec.captures["other"]), Severity::Warning);
    }

    #[test]
    fn a_designed_exception_for_the_finish_sent_is_a_warning_and_no_other_raise_is() {
        let rec: Record = serde_json::from_str(
            r#"{
            "clients": [
                {"name": "raw", "dialect": "chat", "how": "", "version": ""},
                {"name": "helper", "dialect": "chat", "how": "", "version": ""},
                {"name": "r", "dialect": "responses", "how": "", "version": ""}
            ],
            "captures": {
                "length": {"expected": {"finish_reason": "length"}, "clients": {
                    "raw": {"verdict": "ok"},
                    "helper": {"verdict": "raised", "detail": "LengthFinishReasonError: Could not parse"}}},
                "filtered": {"expected": {"finish_reason": "content_filter"}, "clients": {
                    "raw": {"verdict": "ok"},
                    "helper": {"verdict": "raised", "detail": "ContentFilterFinishReasonError: x"}}},
                "filtered-agent": {"expected": {"finish_reason": "content_filter"}, "clients": {
                    "raw": {"verdict": "ok"},
                    "helper": {"verdict": "raised", "detail": "OpencodeError: The response was blocked by the provider's content filter"}}},
                "agent-stop": {"expected": {"finish_reason": "stop"}, "clients": {
                    "raw": {"verdict": "ok"},
                    "helper": {"verdict": "raised", "detail": "OpencodeError: The response was blocked by the provider's content filter"}}},
                "stop": {"expected": {"finish_reason": "stop"}, "clients": {
                    "raw": {"verdict": "ok"},
                    "helper": {"verdict": "raised", "detail": "LengthFinishReasonError: Could not parse"}}},
                "incomplete": {"expected": {"finish_reason": "incomplete"}, "clients": {
                    "r": {"verdict": "raised", "detail": "RuntimeError: Didn't receive a `response.completed` event."}}},
                "cut": {"expected": {"finish_reason": null}, "clients": {
                    "r": {"verdict": "raised", "detail": "RuntimeError: Didn't receive a `response.completed` event."}}},
                "other-raise": {"expected": {"finish_reason": "length"}, "clients": {
                    "raw": {"verdict": "raised", "detail": "TypeError: x"}}},
                "read": {"expected": {"finish_reason": "MAX_TOKENS"}, "clients": {
                    "raw": {"verdict": "ok"}}}
            }
        }"#,
        )
        .unwrap();
        let sev = |id: &str| rec.severity(&rec.captures[id]);
        // The raise reports the finish the server sent: a faithful reading.
        assert_eq!(sev("length"), Severity::Warning);
        assert_eq!(sev("filtered"), Severity::Warning);
        assert_eq!(sev("incomplete"), Severity::Warning);
        assert_eq!(sev("filtered-agent"), Severity::Warning);
        assert!(rec
            .summary(&rec.captures["length"])
            .contains("helper raised LengthFinishReasonError (by design"));
        // The same raise on another finish, or another raise, still counts.
        assert_eq!(sev("stop"), Severity::Error);
        assert_eq!(sev("agent-stop"), Severity::Error);
        assert_eq!(sev("cut"), Severity::Error);
        assert_eq!(sev("other-raise"), Severity::Error);
        // Every client read the cut as sent: info for the capture, a
        // warning for the budget-cut rule's finding, which reports the cut.
        assert_eq!(sev("read"), Severity::Info);
        let of = |rule: &str, id: &str| rec.severity_of(rule, &rec.captures[id]);
        assert_eq!(of("gemini-max-tokens", "read"), Severity::Warning);
        assert_eq!(of("gemini-schema", "read"), Severity::Info);
        assert_eq!(of("finish-length", "other-raise"), Severity::Error);
        assert_eq!(of("finish-length", "stop"), Severity::Error);
    }
}
