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

/// What the reports that show an assembled answer (`inspect`, the human
/// report's `inspect` view, the HTML pages, `diff`'s rows within one
/// dialect) call one of its answers, its finish and its reasoning.
#[derive(Debug)]
pub struct Terms {
    /// One of several answers (`choice`, Gemini's `candidate`).
    pub choice: &'static str,
    /// Its finish, as `inspect` labels it (`finish_reason`, Gemini's
    /// `finishReason`).
    pub finish: &'static str,
    /// Its reasoning, as `inspect` and the HTML page label it
    /// (`reasoning`, Gemini's `thoughts`).
    pub reasoning: &'static str,
}

/// The terms the reports used for every stream before the dialects had
/// their own (Chat's): Chat, Responses and Messages keep them, so that
/// their outputs stay as they were.
pub const CHAT_TERMS: Terms = Terms {
    choice: "choice",
    finish: "finish_reason",
    reasoning: "reasoning",
};

/// A fault more than one dialect reports, each under a rule of its own
/// ([`Words::faults`]): across dialects `diff` compares a finding with its
/// counterpart, so `missing-done` on a Chat side and
/// `messages-stop-missing` on a Messages side are one fault, not two
/// differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// The stream was cut before it ended.
    CutOff,
    /// A finish came, the end marker did not.
    NoEndMarker,
    /// The end marker came without a finish.
    NoFinish,
    /// An error inside the stream.
    ErrorEvent,
    /// The error's shape.
    ErrorShape,
    /// Tool-call arguments that are not valid JSON.
    ArgumentsJson,
    /// No usage.
    UsageMissing,
    /// Usage that does not add up.
    UsageMismatch,
    /// Events after the end.
    AfterEnd,
    /// A required field missing or of the wrong type.
    Schema,
    /// Fields the API does not define.
    UnknownField,
    /// Usage that goes down within the stream.
    UsageDecreasing,
    /// A finish outside the API's values.
    FinishValue,
    /// The token budget cut the answer (Chat's `length`, Gemini's
    /// `MAX_TOKENS`).
    TokenBudget,
    /// A filter stopped the answer or blocked the prompt (Chat's
    /// `content_filter`, Gemini's `SAFETY`).
    Filtered,
    /// The model refused: a refusal in place of the answer (Chat's
    /// `delta.refusal`, a Responses `refusal` content part).
    Refusal,
    /// A binary frame the transport could not read (an AWS event-stream
    /// frame that fails a CRC, an impossible length, a frame cut short):
    /// ConverseStream's `converse-frame`, Invoke's `invoke-frame`.
    Frame,
}

impl Fault {
    /// Every fault, in the order `diff` keys them.
    pub const ALL: &'static [Fault] = &[
        Fault::CutOff,
        Fault::NoEndMarker,
        Fault::NoFinish,
        Fault::ErrorEvent,
        Fault::ErrorShape,
        Fault::ArgumentsJson,
        Fault::UsageMissing,
        Fault::UsageMismatch,
        Fault::AfterEnd,
        Fault::Schema,
        Fault::UnknownField,
        Fault::UsageDecreasing,
        Fault::FinishValue,
        Fault::TokenBudget,
        Fault::Filtered,
        Fault::Refusal,
        Fault::Frame,
    ];

    /// What the fault is, in a few words (`diff`'s notes).
    pub fn about(self) -> &'static str {
        match self {
            Fault::CutOff => "the stream was cut before it ended",
            Fault::NoEndMarker => "a finish came, the end marker did not",
            Fault::NoFinish => "the end marker came without a finish",
            Fault::ErrorEvent => "an error inside the stream",
            Fault::ErrorShape => "the error's shape",
            Fault::ArgumentsJson => "tool-call arguments that are not valid JSON",
            Fault::UsageMissing => "no usage",
            Fault::UsageMismatch => "usage that does not add up",
            Fault::AfterEnd => "events after the end",
            Fault::Schema => "a required field missing or of the wrong type",
            Fault::UnknownField => "fields the API does not define",
            Fault::UsageDecreasing => "usage that goes down",
            Fault::FinishValue => "a finish outside the API's values",
            Fault::TokenBudget => "the token budget cut the answer",
            Fault::Filtered => "a filter stopped the answer",
            Fault::Refusal => "the model refused",
            Fault::Frame => "a frame the transport could not read",
        }
    }

    /// The finish, in `diff`'s one vocabulary across dialects, that a
    /// finding reports this fault only beside: a rule that reports an
    /// ending for more than one reason (a response left incomplete by the
    /// budget or by a filter) is this fault's counterpart on a side whose
    /// finish says this reason. `None`: the fault stands on its own.
    pub fn finish(self) -> Option<&'static str> {
        match self {
            Fault::TokenBudget => Some("length"),
            Fault::Filtered => Some("content_filter"),
            _ => None,
        }
    }

    /// The ending a finding reports this fault only beside: a rule that
    /// reports more than one fault (an event-stream frame that cannot be
    /// read, because a CRC fails or because the body ends inside it) is
    /// this fault's counterpart on a side whose stream ended so. `None`:
    /// any ending.
    pub fn ending(self) -> Option<crate::model::assembly::Ending> {
        match self {
            Fault::CutOff => Some(crate::model::assembly::Ending::CutOff),
            _ => None,
        }
    }
}

/// One dialect's vocabulary (see the module docs).
#[derive(Debug)]
pub struct Words {
    /// What the reports call an answer, its finish and its reasoning.
    pub terms: Terms,
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
    /// Keys of a request whose strings are options the API enumerates (a
    /// mode, a MIME type, a safety category): `redact --scrub-text`
    /// keeps them, so the copy asks for what the original asked.
    pub request_options: &'static [&'static str],
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
    /// This dialect's rules for each [`Fault`] it reports: `diff` across
    /// dialects pairs them with the other dialect's. The first rule of a
    /// fault is the one `diff`'s notes name; a rule listed under several
    /// faults stands for the one whose [`Fault::finish`] its side's finish
    /// says.
    pub faults: &'static [(Fault, &'static str)],
}

/// The words of `dialect`; a stream of no known dialect is read with
/// the default dialect's (Chat's: the words the reports used before
/// dialects had their own).
pub fn of(dialect: Option<super::Dialect>) -> &'static Words {
    dialect.map_or(super::DEFAULT.words(), super::Dialect::words)
}
