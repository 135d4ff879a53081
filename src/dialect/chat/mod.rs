//! OpenAI Chat Completions: `chat.completion.chunk` objects in unnamed
//! events, ended by `data: [DONE]` (`POST /v1/chat/completions`). This
//! folder holds Chat's own model and checks, beside [`super::responses`]
//! and [`super::messages`]; its rules are in `rules/chat/`.
//!
//! - `events`: what one event of a Chat stream is (`[DONE]`, a malformed
//!   sentinel, an error, a foreign named event, a chunk) and the rules on
//!   it (`event-type`, `done-marker`, `data-after-done`, `error-event`,
//!   `error-shape`);
//! - [`chunk`]: the chunk rules (envelope, choices, delta, finish,
//!   fields, schema), and `typed`, the fast path for ordinary chunks
//!   ([`crate::dialect::Checker::fast`]);
//! - `tool_calls`, `usage`, `answer` (`empty-answer`): their families;
//! - `ending`: how a Chat stream ended (`cut-off`, `missing-done`,
//!   `empty-stream`, …) and the rules that need the whole stream;
//! - [`model`]: Chat's vocabulary (the finish reasons, the request
//!   options, `inspect`'s rendering of a chunk).
//!
//! [`Checker`] implements [`crate::dialect::Checker`] as the other
//! dialects' do: the shared stage hands it every event of a Chat stream
//! after the transport and framing rules (unparsed: it reads the data
//! itself, see [`crate::dialect::Checker::reads_data`]), and asks it to
//! finish once the body has ended. The answer is assembled into
//! [`crate::model::assembly::Answer`], which every dialect fills.

pub mod api;
mod answer;
pub mod chunk;
mod ending;
mod events;
pub mod model;
mod tool_calls;
mod typed;
mod usage;
pub mod words;

pub use chunk::chunk_schema;
pub use model::{RequestOptions, FINISH_REASONS};

use super::{Event, Hints, Out, StreamEnd};
use crate::lint::{Location, Profile, Settings};
use crate::model::assembly::{Answer, Ending};
use crate::model::Payload;
use std::collections::{BTreeMap, BTreeSet};

/// Chat Completions' checks for one stream (see the module docs).
#[derive(Debug)]
pub struct Checker {
    /// The sequence state.
    chat: ChatState,
    /// The answer, assembled chunk by chunk.
    answer: Answer,
    /// The active profile: its annotation chunks, optional finish_reason,
    /// service tiers and extension severity.
    profile: &'static Profile,
    /// `Settings::typed`: the typed fast path, and the typed proof that a
    /// chunk fits the schema, are on.
    typed: bool,
    /// The request's options, when the capture has the request.
    request: Option<RequestOptions>,
    /// `inspect`'s rendering of what the last chunk added.
    summary: String,
    /// Chunks the typed fast path took.
    typed_chunks: u64,
    /// Error events seen (and an error body): they explain an empty or cut
    /// answer.
    error_events: u64,
    /// Events of no known format came while this checker read the stream:
    /// its event names are then that format's, and `event-type` is silent.
    skipped: bool,
    /// What the typed parse made of the event the fast path just
    /// declined, when that was a syntax error: the general path does not
    /// parse the data again.
    parsed: Option<Payload>,
}

impl Default for Checker {
    fn default() -> Self {
        Checker {
            chat: ChatState::default(),
            answer: Answer::default(),
            profile: crate::lint::default_profile(),
            typed: true,
            request: None,
            summary: String::new(),
            typed_chunks: 0,
            error_events: 0,
            skipped: false,
            parsed: None,
        }
    }
}

impl super::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.check_event(ev, out);
    }

    fn finish(&mut self, end: StreamEnd, out: &mut dyn Out) -> (Answer, Ending) {
        self.finish_stream(end, out)
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn skipped(&mut self, events: u64, _first: Location, _first_index: Option<u64>) {
        self.skipped |= events > 0;
    }

    fn rejected(&mut self, _index: Option<u64>) {
        self.chat.unread += 1;
    }

    fn setup(&mut self, settings: &Settings, request: Option<&RequestOptions>) {
        self.profile = settings.profile;
        self.typed = settings.typed;
        self.request = request.cloned();
    }

    fn reads_data(&self) -> bool {
        true
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        self.check_typed(ev, out)
    }

    fn answer(&self) -> Option<&Answer> {
        Some(&self.answer)
    }

    fn hints(&self) -> Hints {
        Hints {
            model: self.chat.first_model.clone(),
            fields: self.chat.extension_fields.clone(),
            finish_reasons: self.chat.odd_finish_reasons.clone(),
            dialect: Some(super::Dialect::Chat),
        }
    }

    fn typed_chunks(&self) -> u64 {
        self.typed_chunks
    }
}

/// Chat Completions' sequence state: ids, finish reasons, tool-call
/// fragments, usage placement, `[DONE]` and what came after it.
#[derive(Debug, Default)]
struct ChatState {
    /// `[DONE]` (or a malformed one) came.
    done: bool,
    after_done: u64,
    /// Events after `[DONE]` that carry data other than a repeated `[DONE]`.
    after_done_data: u64,
    first_after_done: Option<Location>,
    first_id: Option<String>,
    id_changed: bool,
    first_model: Option<String>,
    model_changed: bool,
    usage_chunks: u64,
    usage_repeat_loc: Option<Location>,
    choices: BTreeMap<u64, ChoiceTrack>,
    /// Chunks holding exactly one choice: (index, event) in order, while
    /// they might show a drifting index.
    drift: DriftTrack,
    reported_fields: BTreeSet<String>,
    /// Non-default event types already reported: one finding per type per
    /// stream (a server that names every event does it on each one).
    reported_event_types: BTreeSet<String>,
    /// Known extension fields (indices folded) seen as null: skipped
    /// without looking them up in the profiles again.
    known_null_fields: BTreeSet<String>,
    /// Choice 0's text under a key clients do not read (`empty-answer`).
    misplaced: Option<answer::Misplaced>,
    /// Provider extension fields seen with a value (folded pointers).
    extension_fields: Vec<String>,
    /// finish_reason values outside OpenAI's set.
    odd_finish_reasons: Vec<String>,
    choice_message_reported: bool,
    /// Events not read (not JSON, too large): one may have held what a
    /// later chunk seems to lack (the first delta's `role`).
    unread: u64,
    /// `error-null` was reported (once per stream).
    error_null_reported: bool,
    /// Choice indices at or past the request's `n`: the first chunk's
    /// place (location, event, pointer) and how many chunks carried it;
    /// one `choice-index` each at the end.
    past_n: BTreeMap<u64, (Location, Option<u64>, String, u64)>,
    /// Schema verdicts by chunk shape (see `chunk::shape_hash`); the keys
    /// are hashes already, so the map does not hash them again.
    schema_cache:
        std::collections::HashMap<u64, bool, std::hash::BuildHasherDefault<IdentityHasher>>,
}

#[derive(Debug, Default)]
struct DriftTrack {
    last: Option<u64>,
    steps: u64,
    /// A chunk repeated the index before it (the drift began mid-stream).
    repeats: bool,
    broken: bool,
    first_loc: Option<(Location, Option<u64>)>,
    /// Where the first single-choice chunk gave an index other than 0.
    start_loc: Option<(Location, Option<u64>)>,
}

/// Per-choice bookkeeping of the sequence rules.
#[derive(Debug, Default, Clone)]
struct ChoiceTrack {
    deltas: u64,
    role_deltas: u64,
    first_role_loc: Option<Location>,
    last_content: String,
    /// Non-empty `content` deltas.
    content_deltas: u64,
    /// Content deltas that start with the one before and are longer.
    cumulative: u64,
    cumulative_loc: Option<(Location, Option<u64>)>,
    /// Where the last content delta, the third or later, repeated all the
    /// text before it (`repeated-answer`); cleared by any later one.
    repeat_loc: Option<(Location, Option<u64>)>,
    finished: bool,
    finish_loc: Option<Location>,
    repeated_reported: bool,
    after_finish_reported: bool,
    /// The `content-after-finish` finding, until the choice's finish_reason
    /// comes again (an error) or the stream ends (info).
    after_finish: Option<(crate::lint::Finding, &'static str)>,
    first_loc: Option<Location>,
    /// The event of the choice's first delta.
    first_event: Option<u64>,
    refusal_reported: bool,
    /// A finish_reason came but was malformed (`""`, not a string).
    bad_finish: bool,
    tools: BTreeMap<u64, ToolTrack>,
}

#[derive(Debug, Default, Clone)]
struct ToolTrack {
    first_loc: Location,
    first_event: Option<u64>,
    repeated_reported: bool,
    /// A second call was written under this index (`tool-call-index-reused`):
    /// its garbled arguments are that finding's consequence.
    reused: bool,
    /// A fragment's `arguments` was not a string (the schema rule's).
    args_wrong_type: bool,
}

/// A hasher for keys that are hashes already (u64 shape hashes).
#[derive(Debug, Default)]
pub struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
