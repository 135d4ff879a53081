//! What a dialect calls things, and which of its fields hold text: the
//! vocabulary the commands around the checks ask a dialect for, so that
//! none of them names one.
//!
//! - `diff` names rows in the dialect's own words (`message_stop`, not
//!   `[DONE]`; `ping`, not `keepalive`; the message's thinking, not a
//!   reasoning extension field);
//! - `redact --scrub-text` scrubs the fields that hold text
//!   ([`Words::text_keys`]) and keeps the ones that name things
//!   ([`Words::identifiers`]);
//! - `minimize` never drops the identifiers an event needs to be read as
//!   its dialect's ([`Words::kept`]).
//!
//! Each dialect's folder defines its [`Words`] (`NAME/words.rs`);
//! [`super::Dialect::words`] is the one place that picks them.

/// One dialect's vocabulary (see the module docs).
#[derive(Debug)]
pub struct Words {
    /// The end marker, as `diff` names the event that carries it (`[DONE]`,
    /// `message_stop`).
    pub end_marker: &'static str,
    /// Whether the end marker is a sentinel outside the data's own events
    /// (Chat's `data: [DONE]`): across dialects it is then named among what
    /// is not compared.
    pub sentinel: bool,
    /// The keep-alive event, as `diff` names it (`keepalive`, `ping`).
    pub keepalive: &'static str,
    /// What one event is called in `diff`'s rows (`chunk`, `event`).
    pub event: &'static str,
    /// What holds the answer, in rows about it (`None`: `choice N`, for a
    /// dialect with several choices; `message`, `response`).
    pub answer: Option<&'static str>,
    /// What one tool call is on the wire, after `tool call N` in `diff`'s
    /// rows (`content block`, `output item`); `None`: nothing added.
    pub call_unit: Option<&'static str>,
    /// The field that holds the finish (`finish_reason`, `stop_reason`,
    /// `status`).
    pub finish: &'static str,
    /// What the reasoning text is called (`reasoning`, `thinking`).
    pub reasoning: &'static str,
    /// How `diff` classifies a reasoning row (`reasoning (extension
    /// field)` where reasoning is a provider extension).
    pub reasoning_class: &'static str,
    /// Keys whose string values are text a person wrote or a model said
    /// (the answer, reasoning, tool input, error messages, what search
    /// results quote): `redact --scrub-text` replaces them.
    pub text_keys: &'static [&'static str],
    /// Keys whose string is JSON text split over events (tool-call
    /// arguments): scrubbed inside its inner strings, so the assembled
    /// JSON stays as valid (or invalid) as it was.
    pub json_text_keys: &'static [&'static str],
    /// Keys whose value is an object (or array) every string of which is
    /// text, whatever its own key (Gemini's function-call `args`, whose
    /// keys are the function's parameters): `redact --scrub-text`
    /// replaces each string inside but the [`Words::identifiers`], and
    /// keeps the keys.
    pub text_objects: &'static [&'static str],
    /// Keys whose strings name things (a type, an id, a model, a status):
    /// never scrubbed, and never shortened by `minimize`.
    pub identifiers: &'static [&'static str],
    /// Whether a first event that carries only the role (or nothing) holds
    /// nothing a client shows, so that a parser which loses the first
    /// event loses nothing (Chat's role chunk: rules/observed.json bom#3).
    pub role_only_first_event: bool,
    /// Keys an event of this dialect is not read without (its `type`, its
    /// numbering): `minimize` keeps them (what is inside may be reduced).
    pub kept: &'static [&'static str],
}

/// The words of `dialect`; a stream of no known dialect is read with
/// the default dialect's (Chat's: the words the reports used before
/// dialects had their own).
pub fn of(dialect: Option<super::Dialect>) -> &'static Words {
    dialect.map_or(super::DEFAULT.words(), super::Dialect::words)
}
