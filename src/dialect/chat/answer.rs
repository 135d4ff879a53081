//! `empty-answer`: the stream ended and choice 0 shows nothing — no text
//! (or only whitespace, which a chat UI shows as blank), no refusal, no tool
//! calls, no audio transcript — and the message says why, from the evidence
//! the stream holds. This is the first question a user brings: "my chat UI
//! showed a blank answer; what happened?"
//!
//! It does not judge how the stream ended (`cut-off`, `error-event` and the
//! ending rules do); it names the cause of the blank. Tool calls alone are an
//! answer, not a blank one.

use super::Checker;
use crate::dialect::Out;
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::Ending;
use serde_json::Value;

/// Keys where some servers put choice 0's text instead of `delta.content`,
/// as JSON pointers below the choice. Clients read only `delta.content`.
const MISPLACED: &[(&str, &str)] = &[
    ("/delta/text", "delta.text"),
    ("/delta/message", "delta.message"),
    ("/delta/message/content", "delta.message.content"),
    ("/text", "choices[].text"),
    ("/message/content", "choices[].message.content"),
];

/// Text of choice 0 found under a key clients do not read.
#[derive(Debug, Clone, Default)]
pub(super) struct Misplaced {
    /// Where it was first seen (`delta.text`).
    key: &'static str,
    /// Characters seen there, over the whole stream.
    chars: usize,
    /// The first piece, for the message.
    sample: String,
    loc: Location,
    event: Option<u64>,
}

impl Checker {
    /// Notes text of choice 0 under a key clients do not read (see
    /// [`MISPLACED`]); called for every choice 0 the general path reads.
    pub(super) fn note_misplaced_text(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        base: &str,
        choice: &Value,
    ) {
        for (ptr, key) in MISPLACED {
            let Some(s) = choice.pointer(ptr).and_then(Value::as_str) else {
                continue;
            };
            if s.is_empty() {
                continue;
            }
            match self.chat.misplaced.as_mut() {
                Some(m) => m.chars += s.chars().count(),
                None => {
                    let full = format!("{base}{ptr}");
                    let loc = out.at_pointer(&full, false);
                    self.chat.misplaced = Some(Misplaced {
                        key,
                        chars: s.chars().count(),
                        sample: crate::model::shorten(s, 40),
                        loc,
                        event: index,
                    });
                }
            }
            return;
        }
    }

    /// The `empty-answer` finding, at the end of the stream; sets the
    /// answer's `empty` cause for the summary line.
    pub(super) fn check_empty_answer(&mut self, out: &mut dyn Out, ending: Ending) {
        let Some(c) = self.answer.choices.get(&0) else {
            // No chunk with choices: `empty-stream` (or `error-event`) is
            // the finding; the summary still says why the answer is blank.
            if self.error_events > 0 {
                self.answer.empty = Some("an error event came instead".to_string());
            }
            return;
        };
        let blank = c.text.kept.trim().is_empty() && c.text.dropped == 0;
        let refused = c.refusal.as_ref().is_some_and(|r| !r.is_empty());
        if !blank && c.finish_reason.as_deref() == Some("length") && !out.muted("finish-length") {
            // Observed (rules/observed.json): one stream helper raises on a
            // cut answer by design (a designed exception, which the policy
            // reads as a faithful reading), the raw loops read it as sent:
            // the rule's level (warning), as a budget cut is in every
            // dialect.
            let chars = c.text.kept.chars().count() as u64 + c.text.dropped;
            let loc = self
                .chat
                .choices
                .get(&0)
                .and_then(|t| t.finish_loc.clone())
                .unwrap_or_else(|| out.at_end());
            out.report(Finding::new(
                crate::lint::rule::FINISH_LENGTH,
                format!("choice 0 ended with finish_reason length after {chars} characters of text: the token budget ran out, so the answer is cut there (a stream helper raises on it by design, reporting this finish; raw loops read the text as sent)"),
                loc,
            ));
        }
        if !blank || refused || !c.tool_calls.is_empty() || !c.transcript.is_empty() {
            return;
        }
        let finish = c.finish_reason.clone();
        let finish_name = finish.as_deref().unwrap_or("(none)");
        let reasoning = c.reasoning.kept.chars().count() + c.reasoning.dropped as usize;
        let whitespace = c.text.kept.chars().count();
        let max_tokens = self
            .request
            .as_ref()
            .and_then(|r| r.max_tokens.map(|n| (r.max_tokens_key, n)))
            .map(|(key, n)| format!(" (the request's {key} was {n})"))
            .unwrap_or_default();
        let finish_loc = self.chat.choices.get(&0).and_then(|t| t.finish_loc.clone());
        // The cause, the summary's short form, the level the observed
        // clients give it (rules/observed.json), and where to point.
        let (cause, short, level, loc, event) = if let Some(m) = self.chat.misplaced.clone() {
            (
                format!(
                    "the text came under `{}` ({} characters, starting {:?}), where clients read only `delta.content`",
                    m.key, m.chars, m.sample
                ),
                format!("text under {}", m.key),
                Severity::Error,
                Some(m.loc),
                m.event,
            )
        } else if self.error_events > 0 {
            (
                "an error event came instead of the answer (see `error-event`)".to_string(),
                "an error event".to_string(),
                Severity::Error,
                None,
                None,
            )
        } else if ending == Ending::CutOff {
            (
                "the stream ended before any text arrived (see how it ended: `cut-off` or `capture-truncated`)".to_string(),
                "cut before any text".to_string(),
                Severity::Info,
                None,
                None,
            )
        } else if finish.as_deref() == Some("content_filter") {
            (
                "finish_reason is content_filter: the provider's filter withheld the answer"
                    .to_string(),
                "content_filter".to_string(),
                // A stream helper raises on it by design (a designed
                // exception: observed.rs's DESIGNED_EXCEPTIONS): a warning.
                Severity::Warning,
                finish_loc,
                None,
            )
        } else if reasoning > 0 {
            let why = if finish.as_deref() == Some("length") {
                format!(": the token budget went on reasoning{max_tokens}")
            } else {
                String::new()
            };
            (
                format!(
                    "only reasoning came ({reasoning} characters of reasoning text, no answer text) and finish_reason is {finish_name}{why}"
                ),
                if finish.as_deref() == Some("length") {
                    "length: the budget went on reasoning".to_string()
                } else {
                    format!("reasoning only, finish {finish_name}")
                },
                if finish.as_deref() == Some("length") {
                    Severity::Warning
                } else {
                    Severity::Info
                },
                finish_loc,
                None,
            )
        } else if finish.as_deref() == Some("length") {
            (
                format!("finish_reason is length before any text{max_tokens}"),
                "length before any text".to_string(),
                Severity::Warning,
                finish_loc,
                None,
            )
        } else if whitespace > 0 {
            (
                format!("the text is only whitespace ({whitespace} characters), which a chat UI shows as blank"),
                "whitespace only".to_string(),
                Severity::Info,
                finish_loc,
                None,
            )
        } else {
            (
                format!("the server sent no text: every delta's content was empty or null, and finish_reason is {finish_name}"),
                format!("no text sent, finish {finish_name}"),
                Severity::Info,
                finish_loc,
                None,
            )
        };
        self.answer.empty = Some(short);
        let loc = loc.unwrap_or_else(|| out.at_end());
        out.report(
            Finding::new(
                crate::lint::rule::EMPTY_ANSWER,
                format!("the answer is empty: {cause}"),
                loc,
            )
            .level(level)
            .event(event),
        );
    }
}
