//! The inner models of an Invoke stream other than Claude. Each `chunk`'s
//! `bytes` are one event of the model's own streaming API, and the last
//! also carries `amazon-bedrock-invocationMetrics` (the Bedrock user guide,
//! "Inference request parameters and response fields for foundation
//! models", each model family's page):
//!
//! - Amazon Titan Text: `{"index", "inputTextTokenCount",
//!   "totalOutputTextTokenCount", "outputText", "completionReason"}`, the
//!   reason `null` until the last chunk (`FINISH`, `LENGTH`,
//!   `STOP_CRITERIA_MET`, `CONTENT_FILTERED`, …);
//! - Meta Llama: `{"generation", "prompt_token_count",
//!   "generation_token_count", "stop_reason"}` (`stop`, `length`);
//! - Mistral AI (text completion): `{"outputs": [{"text", "stop_reason"}]}`;
//! - Cohere Command R: `{"is_finished", "event_type", "text"}`, the last
//!   `{"is_finished": true, "event_type": "stream-end", "finish_reason"}`;
//!   the older Command: `{"generations": [{"text", "finish_reason"}],
//!   "is_finished"}`;
//! - AI21 Jamba: chat-completion chunks, `{"choices": [{"index", "delta":
//!   {"content"}, "finish_reason"}]}`;
//! - Amazon Nova: ConverseStream's events, each an object of one key
//!   (`messageStart`, `contentBlockDelta`, `contentBlockStop`,
//!   `messageStop`, `metadata`): read by ConverseStream's checker
//!   ([`crate::dialect::bedrock_converse::Checker`]) from the parent module.
//!
//! Which model it is comes from the request path's model id
//! (`/model/{id}/invoke-with-response-stream`, an inference profile's
//! `us.`/`eu.` prefix and an ARN's path included) and, where the capture
//! has no path or the id names no family (an application inference
//! profile), from the first event's keys. A model of no family here is
//! not read: the wrapper's own rules still apply.
//!
//! [`Plain`] reads the text, the finish reason, and the usage (the
//! invocation metrics, else the model's own counts) of every family but
//! Claude and Nova, with no rule of its own: their APIs have no
//! documented faults sselint checks yet.

use crate::model::assembly::Answer;
use serde_json::{json, Value};

/// The model family behind an Invoke stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Anthropic's Claude: Messages events.
    Claude,
    /// Amazon Nova: ConverseStream's events inside the bytes.
    Nova,
    /// Amazon Titan Text.
    Titan,
    /// Meta Llama.
    Llama,
    /// Mistral AI's text completion.
    Mistral,
    /// Cohere Command and Command R.
    Cohere,
    /// AI21 Jamba.
    Ai21,
    /// A model of no family sselint reads: only the wrapper is checked.
    Other,
}

impl Family {
    /// The family's name as the reports say it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Claude => "Claude",
            Family::Nova => "Amazon Nova",
            Family::Titan => "Amazon Titan",
            Family::Llama => "Meta Llama",
            Family::Mistral => "Mistral AI",
            Family::Cohere => "Cohere",
            Family::Ai21 => "AI21",
            Family::Other => "an unknown model",
        }
    }

    /// What says the model's answer is whole, on its last chunk (the
    /// invocation metrics aside).
    pub fn finish_field(self) -> &'static str {
        match self {
            Family::Claude => "`message_stop`",
            Family::Nova => "`messageStop`",
            Family::Titan => "`completionReason`",
            Family::Llama | Family::Mistral => "`stop_reason`",
            Family::Cohere => "`is_finished` with a `finish_reason`",
            Family::Ai21 => "`finish_reason`",
            Family::Other => "finish reason",
        }
    }
}

/// The model id prefixes of each family (Bedrock's model ids are
/// `PROVIDER.MODEL-VERSION`).
const PREFIXES: [(&str, Family); 7] = [
    ("anthropic.", Family::Claude),
    ("amazon.nova-", Family::Nova),
    ("amazon.titan-text", Family::Titan),
    ("meta.llama", Family::Llama),
    ("mistral.", Family::Mistral),
    ("cohere.command", Family::Cohere),
    ("ai21.", Family::Ai21),
];

/// The family a model id names: a base model id
/// (`amazon.titan-text-express-v1`), an inference profile id
/// (`us.meta.llama3-2-1b-instruct-v1:0`) or a foundation model's ARN
/// (`arn:aws:bedrock:…::foundation-model/mistral.mistral-large-2402-v1:0`);
/// `None` for an id of no known family (an application inference
/// profile's ARN names none).
pub fn of_model_id(id: &str) -> Option<Family> {
    let id = id.rsplit('/').next().unwrap_or(id).to_ascii_lowercase();
    PREFIXES.iter().find_map(|(prefix, f)| {
        // The base id, or after a profile's region prefix (`us.`, `apac.`).
        let at = id.find(prefix)?;
        (at == 0 || id[..at].ends_with('.') && !id[..at - 1].contains('.')).then_some(*f)
    })
}

/// The model id in an Invoke request's URL or path
/// (`…/model/{id}/invoke-with-response-stream`, the id percent-encoded),
/// decoded; `None` for another path.
pub fn model_id_of_url(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let rest = path.strip_suffix("/invoke-with-response-stream")?;
    let at = rest.find("/model/")?;
    let id = &rest[at + "/model/".len()..];
    (!id.is_empty()).then(|| percent_decode(id))
}

/// `%XX` escapes decoded (as UTF-8, lossily); other bytes kept.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The family an inner event's shape names, for a stream whose path
/// names none; `None` for a shape of no family (an object with none of
/// their keys).
pub fn of_event(v: &Value) -> Option<Family> {
    let o = v.as_object()?;
    let has = |k: &str| o.contains_key(k);
    if o.get("type").is_some_and(Value::is_string) {
        return Some(Family::Claude);
    }
    // Nova's events are ConverseStream's, one key each.
    if crate::dialect::Dialect::BedrockConverse
        .api()
        .message_types()
        .iter()
        .any(|k| has(k))
    {
        return Some(Family::Nova);
    }
    let family = if has("outputText") || has("completionReason") {
        Family::Titan
    } else if has("generation") {
        Family::Llama
    } else if o.get("outputs").is_some_and(Value::is_array) {
        Family::Mistral
    } else if has("event_type") || has("is_finished") || has("generations") {
        Family::Cohere
    } else if o.get("choices").is_some_and(Value::is_array) {
        Family::Ai21
    } else {
        return None;
    };
    Some(family)
}

/// One non-Claude, non-Nova inner model's stream, read for its answer.
#[derive(Debug, Default)]
pub struct Plain {
    /// The text and finish reason of each choice.
    pub answer: Answer,
    /// The model's own token counts (input, output), when its events
    /// carry them.
    own_usage: (Option<u64>, Option<u64>),
    /// Events read.
    pub events: u64,
}

/// What one event added, for `inspect`'s summary and kind.
#[derive(Debug, Default)]
pub struct Added {
    /// The text it carried, the last piece when several.
    pub text: Option<String>,
    /// The finish reason it carried.
    pub finish: Option<String>,
}

impl Plain {
    /// Reads one inner event of `family` (not Claude, Nova or Other).
    pub fn event(&mut self, family: Family, v: &Value) -> Added {
        self.events += 1;
        let mut added = Added::default();
        let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let n = |k: &str| v.get(k).and_then(Value::as_u64);
        let mut piece =
            |answer: &mut Answer, i: u64, text: Option<String>, finish: Option<String>| {
                let c = answer.choice(i);
                if let Some(t) = &text {
                    c.text.push(t);
                }
                if let Some(f) = &finish {
                    c.finish_reason = Some(f.clone());
                }
                added.text = text.or(added.text.take());
                added.finish = finish.or(added.finish.take());
            };
        match family {
            Family::Titan => {
                piece(
                    &mut self.answer,
                    0,
                    s(v.get("outputText")),
                    s(v.get("completionReason")),
                );
                self.counts(n("inputTextTokenCount"), n("totalOutputTextTokenCount"));
            }
            Family::Llama => {
                piece(
                    &mut self.answer,
                    0,
                    s(v.get("generation")),
                    s(v.get("stop_reason")),
                );
                self.counts(n("prompt_token_count"), n("generation_token_count"));
            }
            Family::Mistral => {
                for (i, o) in v["outputs"].as_array().into_iter().flatten().enumerate() {
                    piece(
                        &mut self.answer,
                        i as u64,
                        s(o.get("text")),
                        s(o.get("stop_reason")),
                    );
                }
            }
            Family::Cohere => {
                if let Some(gens) = v.get("generations").and_then(Value::as_array) {
                    for (i, g) in gens.iter().enumerate() {
                        piece(
                            &mut self.answer,
                            i as u64,
                            s(g.get("text")),
                            s(g.get("finish_reason")),
                        );
                    }
                } else {
                    let finished = v.get("is_finished").and_then(Value::as_bool) == Some(true);
                    let text = (!finished).then(|| s(v.get("text"))).flatten();
                    let finish = finished.then(|| s(v.get("finish_reason"))).flatten();
                    piece(&mut self.answer, 0, text, finish);
                }
            }
            Family::Ai21 => {
                for (i, c) in v["choices"].as_array().into_iter().flatten().enumerate() {
                    let index = c.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
                    piece(
                        &mut self.answer,
                        index,
                        s(c.pointer("/delta/content")),
                        s(c.get("finish_reason")),
                    );
                }
                let u = |k: &str| {
                    v.get("usage")
                        .and_then(|u| u.get(k))
                        .and_then(Value::as_u64)
                };
                self.counts(u("prompt_tokens"), u("completion_tokens"));
            }
            Family::Claude | Family::Nova | Family::Other => {}
        }
        added
    }

    fn counts(&mut self, input: Option<u64>, output: Option<u64>) {
        self.own_usage.0 = input.or(self.own_usage.0);
        self.own_usage.1 = output.or(self.own_usage.1);
    }

    /// Whether every choice got a finish reason (and there is one).
    pub fn finished(&self) -> bool {
        !self.answer.choices.is_empty()
            && self
                .answer
                .choices
                .values()
                .all(|c| c.finish_reason.is_some())
    }

    /// The answer, its usage under Messages' names ([`usage`]).
    pub fn into_answer(mut self, metrics: Option<&Value>) -> Answer {
        self.answer.usage = usage(metrics, self.own_usage.0, self.own_usage.1);
        self.answer.chunks_with_choices = self.events;
        self.answer
    }
}

/// An inner model's usage under Messages' names (`input_tokens`,
/// `output_tokens`), as the Invoke dialect's usage is read: Bedrock's
/// invocation metrics (`inputTokenCount`, `outputTokenCount`) when the
/// stream has them, else the model's own counts (`input`, `output`);
/// `None` when there is neither.
pub fn usage(metrics: Option<&Value>, input: Option<u64>, output: Option<u64>) -> Option<Value> {
    let m = |k: &str| metrics.and_then(|m| m.get(k)).and_then(Value::as_u64);
    let mut u = serde_json::Map::new();
    if let Some(i) = m("inputTokenCount").or(input) {
        u.insert("input_tokens".into(), json!(i));
    }
    if let Some(o) = m("outputTokenCount").or(output) {
        u.insert("output_tokens".into(), json!(o));
    }
    (!u.is_empty()).then_some(Value::Object(u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_name_their_family() {
        let cases = [
            (
                "anthropic.claude-3-5-haiku-20241022-v1:0",
                Some(Family::Claude),
            ),
            (
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                Some(Family::Claude),
            ),
            ("amazon.titan-text-express-v1", Some(Family::Titan)),
            ("amazon.titan-embed-text-v2:0", None),
            ("us.amazon.nova-lite-v1:0", Some(Family::Nova)),
            ("meta.llama3-8b-instruct-v1:0", Some(Family::Llama)),
            ("apac.meta.llama3-2-1b-instruct-v1:0", Some(Family::Llama)),
            ("mistral.mistral-7b-instruct-v0:2", Some(Family::Mistral)),
            ("cohere.command-r-plus-v1:0", Some(Family::Cohere)),
            ("ai21.jamba-1-5-mini-v1:0", Some(Family::Ai21)),
            (
                "arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-text-lite-v1",
                Some(Family::Titan),
            ),
            (
                "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/a1b2c3",
                None,
            ),
            ("some.vendor.anthropic.claude", None),
        ];
        for (id, want) in cases {
            assert_eq!(of_model_id(id), want, "{id}");
        }
    }

    #[test]
    fn the_model_id_is_read_from_the_path_and_decoded() {
        assert_eq!(
            model_id_of_url("https://bedrock-runtime.us-east-1.amazonaws.com/model/meta.llama3-8b-instruct-v1%3A0/invoke-with-response-stream?x=1").as_deref(),
            Some("meta.llama3-8b-instruct-v1:0")
        );
        assert_eq!(
            model_id_of_url("/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A%3Afoundation-model%2Famazon.titan-text-lite-v1/invoke-with-response-stream").as_deref(),
            Some("arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-text-lite-v1")
        );
        assert_eq!(model_id_of_url("/model/x/converse-stream"), None);
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }

    #[test]
    fn event_shapes_name_their_family() {
        let cases = [
            (r#"{"type":"message_start"}"#, Some(Family::Claude)),
            (
                r#"{"outputText":"Hi","index":0,"completionReason":null}"#,
                Some(Family::Titan),
            ),
            (
                r#"{"generation":"Hi","stop_reason":null}"#,
                Some(Family::Llama),
            ),
            (
                r#"{"outputs":[{"text":"Hi","stop_reason":null}]}"#,
                Some(Family::Mistral),
            ),
            (
                r#"{"messageStart":{"role":"assistant"}}"#,
                Some(Family::Nova),
            ),
            (
                r#"{"is_finished":false,"event_type":"text-generation","text":"Hi"}"#,
                Some(Family::Cohere),
            ),
            (
                r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
                Some(Family::Ai21),
            ),
            (r#"{"something":"else"}"#, None),
        ];
        for (data, want) in cases {
            let v: Value = serde_json::from_str(data).unwrap();
            assert_eq!(of_event(&v), want, "{data}");
        }
    }
}
