//! What real clients did with each capture of the corpus: the record that
//! the client harness (`clients/run.py`) writes to `rules/observed.json` by
//! replaying every rule example, sample and test case to the clients of its
//! dialect: for Chat Completions openai-python, openai-node, LangChain, the
//! Vercel AI SDK and a hand-written parser; for OpenAI Responses
//! openai-python and openai-node (each raw and through its stream helper),
//! the Vercel AI SDK (`@ai-sdk/openai`) and LangChain; for Anthropic Messages
//! the Anthropic Python and TypeScript SDKs (each raw and through its stream
//! helper), the Vercel AI SDK (`@ai-sdk/anthropic`) and LangChain.
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
/// A name that is no dialect's gets the default dialect's.
pub fn reference_capture(dialect: &str) -> &'static str {
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

    /// The outcome's verdict judged against what the same client does with
    /// its dialect's reference stream: a field the client already reports
    /// otherwise there (LangChain's Messages usage, `input_tokens: 0` on
    /// every stream whose `message_delta` lacks it) is how that client
    /// reads every stream, not what this shape does, so it does not count.
    /// What is left decides: another text, tool calls or finish, or an agent
    /// app that sent the same conversation again (`retried`), is `differs`; usage or the refusal alone is `diverges`; nothing is `ok`.
    /// A raise counts unless the client raises the same way on the
    /// reference stream.
    pub fn verdict(&self, client: &str, o: &Outcome) -> Verdict {
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
    /// of its dialect) did, each judged against what it does with the
    /// dialect's reference stream (`Record::verdict`):
    /// - error: a mainstream client raised, or ended with another text, tool
    ///   calls or finish_reason (a Responses status, a Messages stop_reason);
    /// - warning: only the hand-written parser broke, or clients diverge on
    ///   usage or the refusal;
    /// - info: every client got the answer the server meant, or did with
    ///   this capture what it does with the reference stream.
    pub fn severity(&self, c: &Capture) -> Severity {
        let v = |n: &str, o: &Outcome| self.verdict(n, o);
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
}

/// The severity policy, as `sselint rules` prints it under its table and
/// the book's rules page states it (`docs/rules/index.md`): what decides a
/// level, and the rule that the same consequence gets the same level in
/// every dialect.
pub const SEVERITY_POLICY: &str = "\
Severities follow what the clients of the harness did with each shape (rules/observed.json; `sselint rule NAME` shows the table): \
error when a mainstream client raised or ended with another text, tool calls or finish than the server meant; \
warning when clients differ visibly without losing data; info when every client read the answer as meant. \
The same consequence gets the same level in every dialect, the consequence being what the clients did: \
an answer cut by the token budget is an error where a stream helper raises on it (Chat `finish-length`, Responses `responses-incomplete` ended by `response.incomplete`) \
and info where every client reads it as sent (Messages `messages-max-tokens`, Gemini `gemini-max-tokens`), an error again where the cut falls inside a tool call's input; \
an event whose loss changes the answer is an error wherever it is lost (an unterminated last event, a text delta after the end of its part or block); \
a refusal is a warning wherever clients hand it over in different places (Chat `refusal`, Responses `responses-refusal`); \
a field or event type a client reads past is info. \
Where one rule's shapes differ in consequence, each occurrence gets the level of its own shape \
(content after a finish is info when clients read on, an error after a premature finish; a `message` in a streamed choice is an error on its first chunk, info on a later one that repeats the text; a capture its tool cut, `capture-truncated`, is an error when the cut came before the finish, info when the whole ending was saved). \
Rules that replaying cannot judge say why in their severity basis.";

/// The severity the policy gives a capture of the committed record
/// (`Record::severity` on `record()`).
pub fn derived_severity(c: &Capture) -> Severity {
    record().severity(c)
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
            if self.verdict(n, o) == Verdict::Ok {
                as_reference.push(format!("{n} {}", what(o)));
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
}
