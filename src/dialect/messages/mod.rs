//! Anthropic Messages streams (`POST /v1/messages` with `stream: true`):
//! the stream model that assembles the answer from named events, and the
//! `messages-*` rules (`rules/messages/`).
//!
//! Events (Anthropic streaming guide, "Event types"; reference §2):
//! `message_start` (a Message with empty `content` and its `usage`), then
//! per content block `content_block_start` (`index`, `content_block`),
//! `content_block_delta` (`text_delta`, `input_json_delta`,
//! `thinking_delta`, `signature_delta`, `citations_delta`) and
//! `content_block_stop`; then `message_delta` (`delta.stop_reason`,
//! cumulative `usage`) and `message_stop`. `ping` may come anywhere;
//! `error` ends a failed stream. Every event is named (`event: TYPE`) and
//! its data's `type` repeats the name.
//!
//! The answer is choice 0 of [`Answer`] (see [`model::assemble`]): the
//! text blocks joined in index order, thinking joined as reasoning, each
//! `tool_use` block as a tool call (`id`, `name`, the
//! `input_json_delta` fragments joined as its arguments). Its
//! `finish_reason` is the `stop_reason`; its usage is `message_start`'s
//! usage with each `message_delta`'s fields written over it (cumulative
//! counts: overwritten, never added).
//!
//! How the stream ended ([`Ending`]): `complete` (`message_stop` after a
//! `stop_reason`), `no-done` (a `stop_reason` but no `message_stop`),
//! `done-without-finish` (`message_stop` but no `stop_reason`), `failed`
//! (an `error` event), `cut-off` (neither), `empty` (no event at all).
//!
//! The checks follow one root cause, one finding: a stream cut before
//! `message_stop` is `messages-cut-off` alone (not also a missing stop
//! reason or an unstopped block); an error event is
//! `messages-error-event` alone; an overlapping block's missing stop is
//! part of `messages-block-overlap`.

pub mod api;
pub mod fields;
pub mod model;
pub mod words;

use super::compact::{self, Text};
use super::{Event, Out, StreamEnd};
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::{Answer, Ending};
use model::{Block, Budget, Pool};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Most distinct unknown types, fields and schema pointers remembered per
/// stream (each is reported once); past it they are reported again and the
/// per-rule limit counts them.
const MAX_REMEMBERED: usize = 64;

/// Most tool-input findings held until the stop reason is known.
const MAX_PENDING: usize = 16;

/// A finding's location and event index.
type At = (Location, Option<u64>);

/// A tool block whose input did not assemble, held until the stream's
/// `stop_reason` says how bad that is.
#[derive(Debug, Clone)]
struct PendingInput {
    at: At,
    message: String,
}

/// The first event of a kind that a whole-stream finding points at.
#[derive(Debug, Clone)]
struct First {
    at: At,
    what: String,
}

/// The Messages checker for one stream.
#[derive(Debug, Default)]
pub struct Checker {
    events: u64,
    /// `message_start` events seen.
    messages: u64,
    start_missing_reported: bool,
    message_id: Option<String>,
    model: Option<String>,
    blocks: Vec<Block>,
    /// Blocks past [`model::MAX_BLOCKS`]: their text and thinking.
    overflow: Block,
    overflow_blocks: u64,
    /// Open blocks: index → position in `blocks` (`usize::MAX` for one
    /// kept only in the overflow).
    open: BTreeMap<u64, usize>,
    /// The latest block of each index: index → position in `blocks`.
    by_index: BTreeMap<u64, usize>,
    next_index: u64,
    /// The block started last (position in `blocks`).
    newest: Option<usize>,
    budget: Budget,
    /// The text of the stopped blocks, moved out of them for the answer.
    answered: model::Answered,
    index_reported: bool,
    overlap_reported: bool,
    interleave_reported: bool,
    not_open_reported: BTreeSet<u64>,
    delta_type_reported: bool,
    signature_reported: bool,
    /// Open blocks were judged (at the first `message_delta` or
    /// `message_stop`).
    unstopped_checked: bool,
    usage: Option<Value>,
    /// `message_start`'s `input_tokens: 0` (with no cache tokens).
    zero_input: Option<At>,
    /// A `message_delta` later carried `input_tokens` > 0.
    input_corrected: u64,
    last_output_tokens: Option<u64>,
    /// Whether `last_output_tokens` came from a `message_delta` (not from
    /// `message_start`).
    output_from_delta: bool,
    usage_decrease_reported: bool,
    stop_reason: Option<String>,
    message_deltas: u64,
    /// The last `message_delta` (or `message_stop` when none), for the
    /// missing stop reason.
    last_delta_at: Option<At>,
    stopped: bool,
    stop_at: Option<At>,
    after_stop: u64,
    first_after_stop: Option<First>,
    /// A `message_delta` with a stop reason after `message_stop`: a client
    /// that adds up every `message_delta` ends with the stop reason twice.
    stop_reason_after_stop: bool,
    /// A second `message_stop`: a client that takes each one as a finished
    /// message reports the usage twice.
    stop_again: bool,
    errored: bool,
    unnamed: u64,
    unnamed_drops: bool,
    first_unnamed: Option<First>,
    mismatches: u64,
    /// The first mismatch that loses an event, else the first one.
    first_mismatch: Option<(First, bool)>,
    reported_types: BTreeSet<String>,
    reported_fields: BTreeSet<String>,
    done_reported: bool,
    pending_input: Vec<PendingInput>,
    last: String,
    /// Events the shared stage rejected (`invalid-json`): the checker never
    /// saw them, so what their absence implies (a block never started or
    /// stopped, a missing stop reason or signature, tool input missing a
    /// fragment) is that finding's, not one of its own.
    lost: u64,
    /// A delta's escaped text, decoded by the fast path (reused).
    unescaped: String,
}

/// Reports `f` unless its rule is off or past its limit.
fn emit(out: &mut dyn Out, f: Finding) {
    if !out.muted(f.rule) {
        out.report(f);
    }
}

use crate::model::shorten;

/// The JSON type of `v`, for messages.
fn json_type(v: &Value) -> &'static str {
    crate::model::json_type(v)
}

/// `v` as a short JSON excerpt.
fn excerpt(v: &Value) -> String {
    shorten(&v.to_string(), 60)
}

impl Checker {
    fn remember(set: &mut BTreeSet<String>, key: String) -> bool {
        if set.contains(&key) {
            return false;
        }
        if set.len() < MAX_REMEMBERED {
            set.insert(key);
        }
        true
    }

    /// `messages-schema` at `pointer`, once per pointer (indices folded).
    fn schema(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        pointer: &str,
        level: Severity,
        message: String,
    ) {
        let key = crate::lint::profile::fold_indices(pointer);
        if !Self::remember(&mut self.reported_fields, format!("schema {key}")) {
            return;
        }
        let loc = out.at_pointer(pointer, false);
        emit(
            out,
            Finding::new(crate::lint::rule::MESSAGES_SCHEMA, message, loc)
                .level(level)
                .event(ev.index)
                .pointer(pointer),
        );
    }

    /// `messages-unknown-field` for the keys of `obj` (at `pointer`) that
    /// the object named `shape` (see [`fields::known_keys`]) does not
    /// define; fields a Messages profile lists name that provider, and
    /// are silent under its own profile.
    fn unknown_fields(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        obj: &Map<String, Value>,
        pointer: &str,
        shape: &str,
        what: &str,
    ) {
        let Some(known) = fields::known_keys(shape) else {
            return;
        };
        for k in obj.keys() {
            if known.contains(&k.as_str()) {
                continue;
            }
            let escaped = k.replace('~', "~0").replace('/', "~1");
            let p = format!("{pointer}/{escaped}");
            let folded = crate::lint::profile::fold_indices(&p);
            let vendors = crate::lint::profile::providers_of(super::Dialect::Messages, &folded);
            if vendors.iter().any(|pr| pr.name == out.profile()) || out.allowed(&p) {
                continue;
            }
            if !Self::remember(&mut self.reported_fields, format!("field {folded}")) {
                continue;
            }
            let message = if vendors.is_empty() {
                format!(
                    "`{}` is not a field of {what} in the Messages API; clients read past it, and what it carries is in no field they return",
                    shorten(&p, 80)
                )
            } else {
                let names: Vec<&str> = vendors.iter().map(|p| p.name.as_str()).collect();
                format!(
                    "`{}` is a field {} adds to {what} (`--profile {}` expects it); it is not part of the Messages API and clients ignore it",
                    shorten(&p, 80),
                    crate::lint::profile::provider_list(&vendors),
                    names.join("` or `--profile ")
                )
            };
            let loc = out.at_pointer(&p, true);
            emit(
                out,
                Finding::new(crate::lint::rule::MESSAGES_UNKNOWN_FIELD, message, loc)
                    .event(ev.index)
                    .pointer(p),
            );
        }
    }

    /// `messages-unknown-type` for a type this dialect does not define,
    /// once per type and kind.
    fn unknown_type(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        kind: &str,
        ty: &str,
        pointer: &str,
    ) {
        if kind == "event" {
            if let Some(p) = fields::vendor_event(ty) {
                if out.profile() == p {
                    return;
                }
            }
        }
        if !Self::remember(&mut self.reported_types, format!("{kind} {ty}")) {
            return;
        }
        let shown = shorten(ty, 60);
        let message = match (kind, fields::vendor_event(ty)) {
            ("event", Some(p)) => {
                let provider = crate::lint::profile(p).map_or(p, |pr| pr.provider.as_str());
                format!(
                    "a `{shown}` event, which {provider} adds (`--profile {p}` expects it): it is not part of the Messages API; clients must skip event types they do not know, and a client that validates each event against the API's types raises on it"
                )
            }
            ("event", None) => format!(
                "an event of type `{shown}`, which the Messages API does not define: clients must skip unknown event types (the streaming guide says new ones may be added), yet a client that validates each event against the API's types raises on it"
            ),
            ("delta", _) => format!(
                "delta type `{shown}` is not one the Messages API defines: a client that validates each event against the API's types raises on it, others skip it"
            ),
            _ => format!(
                "{kind} type `{shown}` is not one the Messages API defines: clients skip it, so what it carries is lost to them"
            ),
        };
        // Observed (rules/observed.json, messages-unknown-type#1 and #2):
        // an unknown event or delta type makes a client that validates the
        // events raise; an unknown content block type was not observed.
        let level = if matches!(kind, "event" | "delta") {
            Severity::Error
        } else {
            Severity::Info
        };
        let loc = if pointer.is_empty() {
            out.at_name()
        } else {
            out.at_pointer(pointer, false)
        };
        emit(
            out,
            Finding::new(crate::lint::rule::MESSAGES_UNKNOWN_TYPE, message, loc)
                .event(ev.index)
                .level(level),
        );
    }

    /// `messages-start-missing` at the first event that needs a message
    /// before any `message_start`.
    fn needs_message(&mut self, out: &mut dyn Out, ev: &Event<'_>, ty: &str) {
        if self.messages > 0 || self.start_missing_reported || self.lost > 0 {
            return;
        }
        self.start_missing_reported = true;
        let loc = out.at_name();
        emit(
            out,
            Finding::new(
                crate::lint::rule::MESSAGES_START_MISSING,
                format!(
                    "`{ty}` arrived before any `message_start`: the message it belongs to was never opened, so clients that build the message from `message_start` fail on the event order or have no message to add it to"
                ),
                loc,
            )
            .event(ev.index)
            .help("send `message_start` (with `content: []` and `usage`) as the first event of the stream"),
        );
    }

    /// The event's block `index`, or `None` (with a `messages-block-index`
    /// finding) when it is missing or not a non-negative integer.
    fn index_of(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) -> Option<u64> {
        let raw = v.get("index");
        if let Some(i) = raw.and_then(Value::as_u64) {
            return Some(i);
        }
        if !self.index_reported {
            self.index_reported = true;
            let what = match raw {
                None => "has no `index`".to_string(),
                Some(x) => format!("has `index: {}`, not a non-negative integer", excerpt(x)),
            };
            let loc = out.at_pointer("/index", false);
            emit(
                out,
                Finding::new(
                    crate::lint::rule::MESSAGES_BLOCK_INDEX,
                    format!(
                        "this `{}` {what}: clients find the block by its index, so they fail on it or attach it to no block",
                        v.get("type").and_then(Value::as_str).unwrap_or(ev.name)
                    ),
                    loc,
                )
                .event(ev.index)
                .pointer("/index"),
            );
        }
        None
    }

    /// The block at position `pos` (the overflow for `usize::MAX`).
    fn block_mut(&mut self, pos: usize) -> &mut Block {
        if pos == usize::MAX {
            &mut self.overflow
        } else {
            &mut self.blocks[pos]
        }
    }

    fn block_ref(&self, pos: usize) -> &Block {
        if pos == usize::MAX {
            &self.overflow
        } else {
            &self.blocks[pos]
        }
    }

    /// Marks the block at `pos` open under `index`. At most
    /// [`model::MAX_BLOCKS`] blocks stay open: past that (a stream that
    /// never stops its blocks, already `messages-block-overlap`) the
    /// lowest index is closed.
    fn open_block(&mut self, index: u64, pos: usize) {
        if self.open.len() >= model::MAX_BLOCKS && !self.open.contains_key(&index) {
            if let Some((_, old)) = self.open.pop_first() {
                self.block_mut(old).open = false;
            }
        }
        self.open.insert(index, pos);
    }

    /// Stores a new block; past [`model::MAX_BLOCKS`] it is counted and
    /// its content goes to the overflow block.
    fn add_block(&mut self, b: Block) -> usize {
        if self.blocks.len() < model::MAX_BLOCKS {
            self.blocks.push(b);
            self.blocks.len() - 1
        } else {
            self.overflow_blocks += 1;
            usize::MAX
        }
    }

    fn message_start(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) {
        out.kind("role");
        self.messages += 1;
        if self.messages > 1 {
            let ended = if self.stopped {
                "after the first message's `message_stop`"
            } else {
                "before the first message ended"
            };
            let loc = out.at_name();
            emit(
                out,
                Finding::new(
                    crate::lint::rule::MESSAGES_START_REPEATED,
                    format!(
                        "a second `message_start` {ended}: one stream carries one message: one stream helper of the record raises on the event order, the other clients read on (the table)"
                    ),
                    loc,
                )
                .event(ev.index)
                .help("send one message per stream: join the upstream's turns into one message, or end the stream after the first `message_stop`"),
            );
            // A new message: its blocks count from 0 again, and the open
            // blocks of the first one are part of this finding.
            for pos in std::mem::take(&mut self.open).into_values() {
                let b = self.block_mut(pos);
                b.open = false;
                b.overlapped = true;
            }
            self.next_index = 0;
            self.by_index.clear();
            self.stopped = false;
            self.unstopped_checked = false;
        }
        let Some(m) = v.get("message").and_then(Value::as_object) else {
            let msg = match v.get("message") {
                None => "`message_start` has no `message` object: the stream helpers build the final message from it, which they cannot do without one".to_string(),
                Some(x) => format!("`message_start.message` is a {}, not an object: the stream helpers build the final message from it, which they cannot do with this", json_type(x)),
            };
            self.schema(out, ev, "/message", Severity::Error, msg);
            return;
        };
        self.unknown_fields(out, ev, m, "/message", "message", "the message");
        if self.message_id.is_none() {
            self.message_id = m.get("id").and_then(Value::as_str).map(|s| shorten(s, 120));
            self.model = m
                .get("model")
                .and_then(Value::as_str)
                .map(|s| shorten(s, 120));
        }
        self.last = format!(
            "message {} ({})",
            self.message_id.as_deref().unwrap_or("?"),
            self.model.as_deref().unwrap_or("?")
        );
        for key in ["id", "model"] {
            if !m.get(key).is_some_and(Value::is_string) {
                self.schema(
                    out,
                    ev,
                    &format!("/message/{key}"),
                    Severity::Info,
                    format!("`message.{key}` is missing or not a string; clients read past it, but logs and usage records keyed on it get nothing"),
                );
            }
        }
        match m.get("content") {
            Some(Value::Array(a)) if a.is_empty() => {}
            Some(Value::Array(a)) => self.schema(
                out,
                ev,
                "/message/content",
                Severity::Warning,
                format!("`message_start` already holds {} content block(s): the content starts empty and blocks arrive as `content_block_start`, so clients that append the streamed blocks count indexes from the wrong place", a.len()),
            ),
            other => {
                let what = other.map_or("missing".to_string(), |x| format!("a {}", json_type(x)));
                self.schema(
                    out,
                    ev,
                    "/message/content",
                    Severity::Error,
                    format!("`message.content` is {what}, not the empty array `[]`: the stream helpers append the streamed blocks to it and raise on this stream, while raw loops read on (the table)"),
                );
            }
        }
        // Observed (rules/observed.json, vLLM's `message_start`): a missing
        // role is read as the assistant's by every client (info); another
        // role is a warning.
        match m.get("role") {
            Some(Value::String(r)) if r == "assistant" => {}
            None => self.schema(
                out,
                ev,
                "/message/role",
                Severity::Info,
                "`message.role` is missing, not \"assistant\": the clients of the record read the message as the assistant's (the table)".to_string(),
            ),
            Some(r) => self.schema(
                out,
                ev,
                "/message/role",
                Severity::Warning,
                format!("`message.role` is {}, not \"assistant\"", excerpt(r)),
            ),
        }
        match m.get("usage") {
            Some(Value::Object(u)) => {
                self.usage = Some(Value::Object(u.clone()));
                self.unknown_fields(out, ev, u, "/message/usage", "usage", "the usage");
                for key in ["input_tokens", "output_tokens"] {
                    if !u.get(key).is_some_and(Value::is_u64) {
                        let loc = out.at_pointer("/message/usage", false);
                        emit(
                            out,
                            Finding::new(
                                crate::lint::rule::MESSAGES_USAGE_MISSING,
                                format!("`message_start` usage has no integer `{key}`: clients report the token counts from it, so theirs are wrong or missing"),
                                loc,
                            )
                            .level(Severity::Warning)
                            .event(ev.index)
                            .pointer(format!("/message/usage/{key}")),
                        );
                    }
                }
                self.last_output_tokens = u.get("output_tokens").and_then(Value::as_u64);
                let cached = ["cache_creation_input_tokens", "cache_read_input_tokens"]
                    .iter()
                    .filter_map(|k| u.get(*k).and_then(Value::as_u64))
                    .sum::<u64>();
                if u.get("input_tokens").and_then(Value::as_u64) == Some(0) && cached == 0 {
                    self.zero_input = Some((
                        out.at_pointer("/message/usage/input_tokens", false),
                        ev.index,
                    ));
                }
            }
            other => {
                let what = other.map_or("no `usage`".to_string(), |x| {
                    format!("`usage` as a {}", json_type(x))
                });
                let loc = out.at_pointer("/message", false);
                emit(
                    out,
                    Finding::new(
                        crate::lint::rule::MESSAGES_USAGE_MISSING,
                        format!("`message_start` has {what}, not an object: the stream helpers copy the usage into the message and update it at `message_delta`, so they raise on this stream, as one more SDK of the record does; raw loops read on (the table)"),
                        loc,
                    )
                    .event(ev.index)
                    .pointer("/message/usage")
                    .help("send `usage` with `input_tokens` and `output_tokens` in `message_start.message`"),
                );
            }
        }
    }

    fn block_start(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) {
        self.needs_message(out, ev, "content_block_start");
        // What the event does, for `inspect` and diff's sequence: a block
        // opens (a tool block is `tool` too, below).
        out.kind("block");
        let index = self.index_of(out, ev, v);
        let cb = v.get("content_block").and_then(Value::as_object);
        let kind = cb
            .and_then(|o| o.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if cb.is_none() {
            let what = v
                .get("content_block")
                .map_or("missing".to_string(), |x| format!("a {}", json_type(x)));
            self.schema(
                out,
                ev,
                "/content_block",
                Severity::Error,
                format!("`content_block` is {what}, not an object: the stream helpers add it to the message's content, which they cannot do with this"),
            );
        } else if kind.is_empty() {
            self.schema(
                out,
                ev,
                "/content_block/type",
                Severity::Error,
                "`content_block` has no `type`: clients cannot tell what the block holds"
                    .to_string(),
            );
        }
        let index = index.unwrap_or(self.next_index);
        // Overlap: another block (or this index) still open.
        let overlapped = if let Some(&pos) = self.open.get(&index) {
            let old = self.block_ref(pos).kind.clone();
            self.report_overlap(
                out,
                ev,
                true,
                format!(
                    "a second `content_block_start` for index {index} while its `{}` block is still open (no `content_block_stop` came): clients look blocks up by index, so deltas meant for one block reach the other, or the block is not found",
                    shorten(&old, 40)
                ),
            );
            let b = self.block_mut(pos);
            b.open = false;
            b.overlapped = true;
            self.open.remove(&index);
            true
        } else if let Some((&i, &pos)) = self.open.iter().next() {
            let old = self.block_ref(pos).kind.clone();
            self.report_overlap(
                out,
                ev,
                false,
                format!(
                    "block {index} (`{}`) starts while block {i} (`{}`) is still open: documented streams stop each block before the next starts; clients route these deltas by index, but code that takes the latest block as the current one mixes them up",
                    shorten(kind, 40),
                    shorten(&old, 40)
                ),
            );
            // Each open block but the newest was marked when its successor
            // started; mark the newest.
            if let Some(pos) = self.newest {
                self.block_mut(pos).overlapped = true;
            }
            true
        } else {
            false
        };
        // A lost event may have been the block in between.
        let lost_between = index > self.next_index && self.lost > 0;
        if !overlapped && index != self.next_index && !self.index_reported && !lost_between {
            self.index_reported = true;
            let started = self.next_index;
            let message = if index > self.next_index {
                format!(
                    "`content_block_start` has index {index}, but the next position in this message's `content` is {started}: the index is the block's position, and clients that keep blocks in an array fail on the gap or attach deltas to the wrong block"
                )
            } else {
                format!(
                    "`content_block_start` reuses index {index}, whose block already stopped (the next index is {started}): clients that keep blocks by position attach this block's deltas to the earlier one"
                )
            };
            let loc = out.at_pointer("/index", false);
            emit(
                out,
                Finding::new(crate::lint::rule::MESSAGES_BLOCK_INDEX, message, loc)
                    .event(ev.index)
                    .pointer("/index")
                    .help("number the blocks of a message 0, 1, 2, … in the order they start"),
            );
        }
        self.next_index = self.next_index.max(index.saturating_add(1));
        let mut b = Block::new(index, kind, ev.index);
        if let Some(o) = cb {
            self.check_block_shape(out, ev, o, kind, &mut b);
        }
        let pos = self.add_block(b);
        self.open_block(index, pos);
        self.newest = Some(pos);
        if pos != usize::MAX {
            self.by_index.insert(index, pos);
        }
        self.last = format!("start block {index} ({})", shorten(kind, 40));
    }

    /// `messages-block-overlap`, once per stream for a reused open index
    /// (error) and once for blocks that interleave under their own
    /// indexes (info: observed, clients route those deltas by index).
    fn report_overlap(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        same_index: bool,
        message: String,
    ) {
        // A lost event may have been the earlier block's stop.
        if self.lost > 0 {
            return;
        }
        let flag = if same_index {
            &mut self.overlap_reported
        } else {
            &mut self.interleave_reported
        };
        if *flag {
            return;
        }
        *flag = true;
        let level = if same_index {
            Severity::Error
        } else {
            Severity::Info
        };
        let loc = out.at_pointer("/index", false);
        emit(
            out,
            Finding::new(crate::lint::rule::MESSAGES_BLOCK_OVERLAP, message, loc)
                .level(level)
                .event(ev.index)
                .pointer("/index")
                .help(
                    "send `content_block_stop` for a block before the next `content_block_start`",
                ),
        );
    }

    /// The fields of a `content_block` by its type; fills what the block
    /// starts with.
    fn check_block_shape(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        kind: &str,
        b: &mut Block,
    ) {
        if !kind.is_empty() && !fields::BLOCK_TYPES.contains(&kind) {
            self.unknown_type(out, ev, "content block", kind, "/content_block/type");
        }
        self.unknown_fields(
            out,
            ev,
            o,
            "/content_block",
            &format!("block:{kind}"),
            &format!("a `{}` block", shorten(kind, 40)),
        );
        match kind {
            "text" => {
                if let Some(t) = o.get("text").and_then(Value::as_str) {
                    self.budget.push(Pool::Text, &mut b.text, t);
                } else {
                    self.schema(
                        out,
                        ev,
                        "/content_block/text",
                        Severity::Warning,
                        "a `text` block's `text` is missing or not a string (it starts as \"\")"
                            .into(),
                    );
                }
            }
            "thinking" => {
                if let Some(t) = o.get("thinking").and_then(Value::as_str) {
                    self.budget.push(Pool::Thinking, &mut b.thinking, t);
                } else {
                    self.schema(out, ev, "/content_block/thinking", Severity::Warning, "a `thinking` block's `thinking` is missing or not a string (it starts as \"\")".into());
                }
                if let Some(s) = o
                    .get("signature")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    let mut kept = String::new();
                    self.budget.push_str(&mut kept, s);
                    b.signature = Some(kept);
                }
            }
            "redacted_thinking" if !o.get("data").is_some_and(Value::is_string) => {
                self.schema(out, ev, "/content_block/data", Severity::Warning, "a `redacted_thinking` block has no `data` string: it arrives whole in `content_block_start` (no delta carries it), so the block is lost and cannot be sent back".into());
            }
            k if model::TOOL_BLOCKS.contains(&k) => {
                out.kind("tool");
                for key in ["id", "name"] {
                    match o.get(key).and_then(Value::as_str) {
                        Some(s) if !s.is_empty() => {
                            let s = Some(shorten(s, 200));
                            if key == "id" {
                                b.id = s;
                            } else {
                                b.name = s;
                            }
                        }
                        _ => self.schema(
                            out,
                            ev,
                            &format!("/content_block/{key}"),
                            Severity::Warning,
                            format!("a `{k}` block has no `{key}` string: clients cannot match the call to a tool or send its result back"),
                        ),
                    }
                }
                match o.get("input") {
                    Some(Value::Object(i)) if i.is_empty() => {}
                    Some(Value::Object(_)) => {
                        let s = o["input"].to_string();
                        let mut kept = String::new();
                        if self.budget.push_str(&mut kept, &s) == 0 {
                            b.start_input = Some(kept);
                        }
                    }
                    // Observed (rules/observed.json, llama.cpp's
                    // `tool_use` start): a missing `input` is read as `{}`
                    // by every client (info); another type is a warning.
                    None => self.schema(
                        out,
                        ev,
                        "/content_block/input",
                        Severity::Info,
                        format!("a `{k}` block's `input` is missing, not an object (`{{}}` until the `input_json_delta` fragments arrive): the clients of the record start the input empty and read the call as meant (the table)"),
                    ),
                    Some(other) => {
                        let what = format!("a {}", json_type(other));
                        self.schema(
                            out,
                            ev,
                            "/content_block/input",
                            Severity::Warning,
                            format!("a `{k}` block's `input` is {what}, not an object (`{{}}` until the `input_json_delta` fragments arrive)"),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// The open block for `index`, or after a finding the block it most
    /// likely meant; `None` when nothing should be assembled.
    fn route(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        index: u64,
        what: &str,
        implied_kind: &str,
    ) -> Option<usize> {
        if let Some(&pos) = self.open.get(&index) {
            return Some(pos);
        }
        let first = Self::remember_index(&mut self.not_open_reported, index);
        if let Some(&pos) = self.by_index.get(&index) {
            if first {
                let loc = out.at_pointer("/index", false);
                let kind = shorten(&self.blocks[pos].kind, 40);
                // Observed (rules/observed.json, messages-block-not-open#2):
                // a text delta after its block's stop makes a client that
                // drops a block at its stop raise; other kinds were not
                // observed.
                let (consequence, level) = if kind == "text" {
                    ("a client that drops a block at its stop raises on it, others still add it to the block by its index", Severity::Error)
                } else {
                    ("clients still add it to the block by its index, but code that finishes a block at its stop (shows it, parses its tool input) misses it", Severity::Info)
                };
                emit(
                    out,
                    Finding::new(
                        crate::lint::rule::MESSAGES_BLOCK_NOT_OPEN,
                        format!("{what} for index {index} after that `{kind}` block's `content_block_stop`: {consequence}"),
                        loc,
                    )
                    .level(level)
                    .event(ev.index)
                    .pointer("/index"),
                );
            }
            return Some(pos);
        }
        if first && self.lost == 0 {
            let loc = out.at_pointer("/index", false);
            emit(
                out,
                Finding::new(
                    crate::lint::rule::MESSAGES_BLOCK_NOT_OPEN,
                    format!("{what} for index {index}, which no `content_block_start` opened: clients keep blocks by index and there is no block {index}: the stream helpers and one more SDK of the record raise on it, and the raw loops lose what it carries (the table)"),
                    loc,
                )
                .event(ev.index)
                .pointer("/index")
                .help("send `content_block_start` (with the block's type) before its first delta"),
            );
        }
        if implied_kind.is_empty() {
            return None;
        }
        // The deltas of a block that was never started still say what
        // the server meant: assemble them in a block of their kind.
        let mut b = Block::new(index, implied_kind, ev.index);
        b.implicit = true;
        let pos = self.add_block(b);
        self.open_block(index, pos);
        if pos != usize::MAX {
            self.by_index.insert(index, pos);
        }
        self.next_index = self.next_index.max(index.saturating_add(1));
        Some(pos)
    }

    fn remember_index(set: &mut BTreeSet<u64>, index: u64) -> bool {
        if set.contains(&index) {
            return false;
        }
        if set.len() < MAX_REMEMBERED {
            set.insert(index);
        }
        true
    }

    fn block_delta(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) {
        self.needs_message(out, ev, "content_block_delta");
        let index = self.index_of(out, ev, v);
        let Some(d) = v.get("delta").and_then(Value::as_object) else {
            let what = v
                .get("delta")
                .map_or("missing".to_string(), |x| format!("a {}", json_type(x)));
            self.schema(out, ev, "/delta", Severity::Error, format!("`delta` is {what}, not an object: clients read the delta's type and text from it, so they fail on this event"));
            return;
        };
        let Some(dtype) = d.get("type").and_then(Value::as_str) else {
            self.schema(
                out,
                ev,
                "/delta/type",
                Severity::Error,
                "the delta has no `type`: clients cannot tell text from tool input or thinking"
                    .into(),
            );
            return;
        };
        let Some(belongs) = fields::delta_blocks(dtype) else {
            self.unknown_type(out, ev, "delta", dtype, "/delta/type");
            return;
        };
        self.unknown_fields(
            out,
            ev,
            d,
            "/delta",
            &format!("delta:{dtype}"),
            &format!("a `{dtype}`"),
        );
        let Some(index) = index else {
            return;
        };
        let pos = self.route(out, ev, index, &format!("a `{dtype}`"), belongs[0]);
        let Some(pos) = pos else {
            return;
        };
        let kind = self.block_ref(pos).kind.clone();
        let misfit = !kind.is_empty()
            && !belongs.contains(&kind.as_str())
            && fields::BLOCK_TYPES.contains(&kind.as_str());
        if misfit && !self.delta_type_reported {
            self.delta_type_reported = true;
            let loc = out.at_pointer("/delta/type", false);
            emit(
                out,
                Finding::new(
                    crate::lint::rule::MESSAGES_DELTA_TYPE,
                    format!(
                        "a `{dtype}` on index {index}, which is a `{}` block: a `{dtype}` belongs in a `{}` block, and clients fill a block by its own type, so what this delta carries never reaches their answer (nor the answer sselint rebuilds)",
                        shorten(&kind, 40),
                        belongs.join("` or `")
                    ),
                    loc,
                )
                .event(ev.index)
                .pointer("/delta/type")
                .help("send each delta with the index of the block of its kind (open a new block when the kind changes)"),
            );
        }
        let field = match dtype {
            "text_delta" => "text",
            "thinking_delta" => "thinking",
            "input_json_delta" => "partial_json",
            "signature_delta" => "signature",
            _ => "",
        };
        let value = if field.is_empty() {
            None
        } else {
            match d.get(field).and_then(Value::as_str) {
                Some(s) => Some(s),
                None => {
                    self.schema(
                        out,
                        ev,
                        &format!("/delta/{field}"),
                        Severity::Error,
                        format!("a `{dtype}` has no `{field}` string: clients append it to the block, so they fail on it or add nothing"),
                    );
                    return;
                }
            }
        };
        // Clients fill a block by its own type and skip a delta that does
        // not fit (observed: every SDK ended `messages-delta-type`'s
        // example with no text): the rebuilt answer leaves it out too.
        if misfit {
            self.last = format!("{dtype} skipped (a `{}` block)", shorten(&kind, 40));
            return;
        }
        self.apply_delta(out, ev, pos, index, dtype, value);
    }

    /// Adds one delta's text, thinking, signature or tool input to the
    /// block at `pos` (shared by the general and the fast path).
    fn apply_delta(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        pos: usize,
        index: u64,
        dtype: &str,
        value: Option<&str>,
    ) {
        let signed = self.block_ref(pos).signature.is_some();
        if pos != usize::MAX {
            // A delta after the block's stop: its text comes back to it.
            self.answered.restore(&mut self.blocks[pos]);
        }
        let mut budget = std::mem::take(&mut self.budget);
        let b = self.block_mut(pos);
        b.deltas += 1;
        let mut note = None;
        // The rendering for `inspect`, built only when it is read.
        let summary = out.summaries();
        let mut last = String::new();
        match (dtype, value) {
            ("text_delta", Some(t)) => {
                out.kind("content");
                if !t.is_empty() {
                    let repeats = b.text.is_repeated_by(t);
                    b.text_deltas += 1;
                    b.repeat_at = (repeats && b.text_deltas >= 3)
                        .then(|| Box::new((out.at_pointer("/delta/text", false), ev.index)));
                }
                budget.push(Pool::Text, &mut b.text, t);
                if summary {
                    last = format!("text {:?}", shorten(t, 60));
                }
            }
            ("thinking_delta", Some(t)) => {
                out.kind("reasoning");
                budget.push(Pool::Thinking, &mut b.thinking, t);
                if signed {
                    note = Some(format!("a `thinking_delta` on index {index} after the block's `signature_delta`: the signature comes last and covers the thinking before it, so this block, sent back on a later turn, may fail verification"));
                }
                if summary {
                    last = format!("thinking {:?}", shorten(t, 60));
                }
            }
            ("signature_delta", Some(s)) => {
                out.kind("reasoning");
                if signed {
                    note = Some(format!("a second `signature_delta` on index {index}: a thinking block has one signature, sent just before `content_block_stop`, and clients keep only one of them"));
                } else {
                    let mut kept = String::new();
                    budget.push_str(&mut kept, s);
                    b.signature = Some(kept);
                }
                last = "signature".to_string();
            }
            ("input_json_delta", Some(t)) => {
                out.kind("tool");
                b.input_streamed = true;
                b.input_dropped += budget.push_str(&mut b.input, t);
                if summary {
                    last = format!("tool input {:?}", shorten(t, 60));
                }
            }
            _ => {}
        }
        self.budget = budget;
        self.last = last;
        if let Some(message) = note {
            self.signature_finding(out, ev, message, "/delta/type");
        }
    }

    /// An ordinary `content_block_delta` in the compact form Anthropic
    /// sends (exactly its documented fields, in their order, no
    /// whitespace but after the event), read byte by byte: the index, the delta type and its
    /// text. `None` for any other form, which [`Self::fast_delta`] reads
    /// (with the same result where both read it).
    fn compact_delta<'d>(data: &'d str, buf: &mut String) -> Option<(u64, &'static str, Text<'d>)> {
        let rest = data.strip_prefix(r#"{"type":"content_block_delta","index":"#)?;
        let (index, rest) = compact::uint(rest)?;
        let rest = rest.strip_prefix(r#","delta":{"type":""#)?;
        let (dtype, rest) = if let Some(r) = rest.strip_prefix(r#"text_delta","text":""#) {
            ("text_delta", r)
        } else if let Some(r) = rest.strip_prefix(r#"input_json_delta","partial_json":""#) {
            ("input_json_delta", r)
        } else {
            (
                "thinking_delta",
                rest.strip_prefix(r#"thinking_delta","thinking":""#)?,
            )
        };
        let (text, rest) = compact::string(rest, buf)?;
        compact::ends(rest, "}}").then_some((index, dtype, text))
    }

    /// The typed form of an ordinary `content_block_delta`: exactly its
    /// documented fields, nothing else.
    fn fast_delta(data: &str) -> Option<(u64, &'static str, std::borrow::Cow<'_, str>)> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Ev<'a> {
            #[serde(rename = "type", borrow)]
            kind: &'a str,
            index: u64,
            #[serde(borrow)]
            delta: Inner<'a>,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Inner<'a> {
            #[serde(rename = "type", borrow)]
            kind: &'a str,
            #[serde(borrow)]
            text: Option<Str<'a>>,
            #[serde(borrow)]
            thinking: Option<Str<'a>>,
            #[serde(borrow)]
            partial_json: Option<Str<'a>>,
        }
        /// A string lent from the data when it holds no escape (serde
        /// borrows a `Cow` only when it is the field's own type, not
        /// inside an `Option`).
        #[derive(serde::Deserialize)]
        struct Str<'a>(#[serde(borrow)] std::borrow::Cow<'a, str>);
        let e: Ev<'_> = serde_json::from_str(data).ok()?;
        if e.kind != "content_block_delta" {
            return None;
        }
        let d = e.delta;
        match (d.kind, d.text, d.thinking, d.partial_json) {
            ("text_delta", Some(t), None, None) => Some((e.index, "text_delta", t.0)),
            ("thinking_delta", None, Some(t), None) => Some((e.index, "thinking_delta", t.0)),
            ("input_json_delta", None, None, Some(t)) => Some((e.index, "input_json_delta", t.0)),
            _ => None,
        }
    }

    fn signature_finding(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        message: String,
        pointer: &str,
    ) {
        if self.signature_reported || self.lost > 0 {
            return;
        }
        self.signature_reported = true;
        let loc = out.at_pointer(pointer, false);
        emit(
            out,
            Finding::new(crate::lint::rule::MESSAGES_THINKING_SIGNATURE, message, loc)
                .event(ev.index)
                .help("stream the thinking, then one `signature_delta`, then `content_block_stop`"),
        );
    }

    fn block_stop(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) {
        self.needs_message(out, ev, "content_block_stop");
        out.kind("block");
        let Some(index) = self.index_of(out, ev, v) else {
            return;
        };
        let Some(&pos) = self.open.get(&index) else {
            // Never started, or stopped twice.
            let first = Self::remember_index(&mut self.not_open_reported, index);
            let never_started = !self.by_index.contains_key(&index);
            if first && !(never_started && self.lost > 0) {
                let loc = out.at_pointer("/index", false);
                let f = if self.by_index.contains_key(&index) {
                    Finding::new(
                        crate::lint::rule::MESSAGES_BLOCK_NOT_OPEN,
                        format!("a second `content_block_stop` for index {index}: the block already stopped; clients read past it, but code that finishes a block at its stop does it twice"),
                        loc,
                    )
                    .level(Severity::Info)
                } else {
                    Finding::new(
                        crate::lint::rule::MESSAGES_BLOCK_NOT_OPEN,
                        format!("`content_block_stop` for index {index}, which no `content_block_start` opened: clients keep blocks by index and there is no block {index}, so they fail on it"),
                        loc,
                    )
                };
                emit(out, f.event(ev.index).pointer("/index"));
            }
            return;
        };
        self.open.remove(&index);
        if pos != usize::MAX {
            self.answered.take(&mut self.blocks[pos]);
        }
        let stopped = self.block_mut(pos);
        stopped.open = false;
        stopped.shrink();
        self.last = format!("stop block {index}");
        let b = self.block_ref(pos);
        let unsigned = b.kind == "thinking" && b.signature.is_none() && !b.implicit;
        let judge_input = b.is_tool() && b.input_dropped == 0 && b.input_streamed;
        let (kind, name) = (b.kind.clone(), b.name.clone());
        // The input is judged in place; only one that is no JSON object
        // is copied out for the finding.
        let text = (judge_input
            && self.pending_input.len() < MAX_PENDING
            && !crate::model::valid::is_json_object(b.arguments_str()))
        .then(|| b.arguments());
        if unsigned {
            self.signature_finding(
                out,
                ev,
                format!("thinking block {index} stopped without a signature (no `signature_delta`): a thinking block is sent back with its signature on later turns (tool use with thinking needs it), and without one it is refused"),
                "/index",
            );
        }
        if let Some(text) = text {
            let problem = match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(_)) => None,
                Ok(other) => Some(format!(
                    "a JSON {}, not an object (tool input is always an object)",
                    json_type(&other)
                )),
                Err(e) => Some(format!(
                    "text that is not JSON ({})",
                    if crate::model::too_deep(&e) {
                        crate::model::json_error(&e)
                    } else {
                        e.to_string()
                    }
                )),
            };
            if let Some(problem) = problem {
                let name = name
                    .as_deref()
                    .map(|n| format!(" (`{}`)", shorten(n, 60)))
                    .unwrap_or_default();
                self.pending_input.push(PendingInput {
                    at: (out.at_event(), ev.index),
                    message: format!(
                        "the `input_json_delta` fragments of {kind} block {index}{name} join to {problem}: {:?}",
                        shorten(&text, 80)
                    ),
                });
            }
        }
    }

    /// `messages-block-unstopped`: blocks still open when the message
    /// ends (at its first `message_delta`, or `message_stop`).
    fn check_unstopped(&mut self, out: &mut dyn Out, ev: &Event<'_>, stop_reason: Option<&str>) {
        if self.unstopped_checked {
            return;
        }
        self.unstopped_checked = true;
        let open: Vec<(u64, usize)> = self.open.iter().map(|(i, p)| (*i, *p)).collect();
        let mut first = None;
        for (i, pos) in open {
            let b = self.block_ref(pos);
            if !b.overlapped && !b.implicit && first.is_none() {
                first = Some((i, b.kind.clone()));
            }
        }
        // The blocks stay open (deltas may still come); only the finding
        // is decided here.
        let Some((i, kind)) = first else {
            return;
        };
        // Observed in the SDK's own fixture: a tool block cut by the token
        // limit ends with no `content_block_stop` (reference §2.3).
        if stop_reason == Some("max_tokens") {
            return;
        }
        // An error event explains a block it interrupted
        // (`messages-error-event` is the finding), a lost event one whose
        // stop it may have been.
        if self.errored || self.lost > 0 {
            return;
        }
        let loc = out.at_name();
        emit(
            out,
            Finding::new(
                crate::lint::rule::MESSAGES_BLOCK_UNSTOPPED,
                format!(
                    "block {i} (`{}`) never got its `content_block_stop` before `{}`: the SDKs read the block anyway, but a client that takes a block at its stop (to show it, to parse tool input) shows nothing of it",
                    shorten(&kind, 40),
                    if ev.name == "message_stop" || self.message_deltas == 0 { "message_stop" } else { "message_delta" }
                ),
                loc,
            )
            .event(ev.index)
            // Observed (this rule's example #1): an agent app that takes
            // each block at its stop showed no text.
            .level(Severity::Error)
            .help("send `content_block_stop` for every block before `message_delta`"),
        );
    }

    fn message_delta(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) {
        out.kind("finish");
        self.needs_message(out, ev, "message_delta");
        self.message_deltas += 1;
        self.last_delta_at = Some((out.at_name(), ev.index));
        match v.get("delta") {
            Some(Value::Object(d)) => {
                self.unknown_fields(
                    out,
                    ev,
                    d,
                    "/delta",
                    "message_delta.delta",
                    "`message_delta.delta`",
                );
                match d.get("stop_reason") {
                    Some(Value::String(r)) => {
                        self.stop_reason = Some(shorten(r, 80));
                        self.last = format!("stop_reason {r:?}");
                        // Observed (rules/observed.json): every client
                        // ends with the text and the stop reason as sent
                        // (a warning, as a budget cut is in every dialect),
                        // unless the budget ran out inside a tool_use
                        // block's input: then the stream helpers and two
                        // more SDKs end with different tool calls (a
                        // partial parse, or none), an error.
                        if r == "max_tokens" && !self.stop_reason_after_stop {
                            let loc = out.at_pointer("/delta/stop_reason", false);
                            let cut_call = self
                                .open
                                .iter()
                                .find(|(_, p)| self.block_ref(**p).kind.ends_with("tool_use"));
                            let f = match cut_call {
                                Some((i, _)) => Finding::new(
                                    crate::lint::rule::MESSAGES_MAX_TOKENS,
                                    format!("`stop_reason` is max_tokens while tool_use block {i} is still open: the budget ran out inside the call's input: the stream helpers and two more SDKs end with different tool calls, raw loops keep the cut input (the table)"),
                                    loc,
                                )
                                .level(Severity::Error),
                                None => Finding::new(
                                    crate::lint::rule::MESSAGES_MAX_TOKENS,
                                    "`stop_reason` is max_tokens: the token budget ran out, so the answer is cut there",
                                    loc,
                                ),
                            };
                            emit(out, f.event(ev.index).pointer("/delta/stop_reason"));
                        }
                        if !fields::STOP_REASONS.contains(&r.as_str()) {
                            let loc = out.at_pointer("/delta/stop_reason", false);
                            emit(
                                out,
                                Finding::new(
                                    crate::lint::rule::MESSAGES_STOP_REASON,
                                    format!("`stop_reason` {:?} is not one of the documented values ({}): clients pass it through, but code that acts on the stop reason does not know it", shorten(r, 60), fields::STOP_REASONS.join(", ")),
                                    loc,
                                )
                                .level(Severity::Info)
                                .event(ev.index)
                                .pointer("/delta/stop_reason"),
                            );
                        }
                    }
                    None | Some(Value::Null) => {}
                    Some(other) => {
                        let loc = out.at_pointer("/delta/stop_reason", false);
                        emit(
                            out,
                            Finding::new(
                                crate::lint::rule::MESSAGES_STOP_REASON,
                                format!("`stop_reason` is a {}, not a string: clients take it as the reason the message ended", json_type(other)),
                                loc,
                            )
                            .event(ev.index)
                            .pointer("/delta/stop_reason"),
                        );
                    }
                }
            }
            other => {
                let what = other.map_or("missing".to_string(), |x| format!("a {}", json_type(x)));
                self.schema(out, ev, "/delta", Severity::Error, format!("`message_delta.delta` is {what}, not an object: it carries the stop reason, and clients read it"));
            }
        }
        match v.get("usage") {
            Some(Value::Object(u)) => {
                out.kind("usage");
                self.unknown_fields(out, ev, u, "/usage", "usage", "the usage");
                let usage = self.usage.get_or_insert_with(|| Value::Object(Map::new()));
                if let Some(o) = usage.as_object_mut() {
                    // A null repeats nothing: the count given before
                    // stands (as the SDKs keep it).
                    for (k, x) in u.iter().filter(|(_, x)| !x.is_null()) {
                        o.insert(k.clone(), x.clone());
                    }
                }
                if u.get("input_tokens")
                    .and_then(Value::as_u64)
                    .is_some_and(|n| n > 0)
                {
                    self.input_corrected = u["input_tokens"].as_u64().unwrap_or(0);
                }
                match u.get("output_tokens").and_then(Value::as_u64) {
                    Some(n) => {
                        if let Some(prev) = self.last_output_tokens.filter(|p| n < *p) {
                            if !self.usage_decrease_reported {
                                self.usage_decrease_reported = true;
                                let loc = out.at_pointer("/usage/output_tokens", false);
                                // Observed (this rule's example #1): after
                                // an earlier `message_delta` the clients
                                // report different counts (LiteLLM keeps the
                                // first); below `message_start`'s count
                                // alone, every client reports the delta's
                                // (samples/bad/messages-usage-decreasing.sse).
                                let (msg, level) = if self.output_from_delta {
                                    (format!("`usage.output_tokens` goes down from {prev} to {n}: usage in `message_delta` is cumulative and the SDKs keep the latest value, so a count that restarts is reported (and billed) as {n}, not the total, while a client that keeps the first `message_delta`'s usage reports {prev}"), Severity::Warning)
                                } else {
                                    (format!("`usage.output_tokens` goes down from {prev} in `message_start` to {n}: usage is cumulative and the clients of the record report {n}, so the count is lower than the one the message started with"), Severity::Info)
                                };
                                emit(
                                    out,
                                    Finding::new(crate::lint::rule::MESSAGES_USAGE_DECREASING, msg, loc)
                                    .event(ev.index)
                                    .level(level)
                                    .pointer("/usage/output_tokens")
                                    .help("send the running total in every `message_delta.usage`, never the tokens since the last event"),
                                );
                            }
                        }
                        self.last_output_tokens = Some(n);
                        self.output_from_delta = true;
                    }
                    None => {
                        let loc = out.at_pointer("/usage", false);
                        emit(
                            out,
                            Finding::new(
                                crate::lint::rule::MESSAGES_USAGE_MISSING,
                                "`message_delta` usage has no integer `output_tokens` (the one field it requires): clients take the output count from it, so theirs is wrong or missing".to_string(),
                                loc,
                            )
                            .level(Severity::Warning)
                            .event(ev.index)
                            .pointer("/usage/output_tokens"),
                        );
                    }
                }
            }
            other => {
                let what = other.map_or("no `usage`".to_string(), |x| {
                    format!("`usage` as a {}", json_type(x))
                });
                // The wrong value, or the event's data when there is none.
                let loc = match other {
                    Some(_) => out.at_pointer("/usage", false),
                    None => out.at_event(),
                };
                emit(
                    out,
                    Finding::new(
                        crate::lint::rule::MESSAGES_USAGE_MISSING,
                        format!("`message_delta` has {what}, not an object with `output_tokens`: the stream helpers update the message's usage from it and raise on this stream, as one more SDK of the record does; raw loops read on (the table)"),
                        loc,
                    )
                    .event(ev.index)
                    .pointer("/usage")
                    .help("send `usage` with the cumulative `output_tokens` in every `message_delta`"),
                );
            }
        }
        let reason = self.stop_reason.clone();
        self.check_unstopped(out, ev, reason.as_deref());
    }

    fn message_stop(&mut self, out: &mut dyn Out, ev: &Event<'_>) {
        out.kind("done");
        self.needs_message(out, ev, "message_stop");
        let reason = self.stop_reason.clone();
        self.check_unstopped(out, ev, reason.as_deref());
        self.stopped = true;
        self.stop_at = Some((out.at_name(), ev.index));
        self.last = "message_stop".into();
    }

    fn error_event(&mut self, out: &mut dyn Out, ev: &Event<'_>, v: &Value) {
        out.kind("error");
        self.errored = true;
        let e = v.get("error");
        let ty = e.and_then(|e| e.get("type")).and_then(Value::as_str);
        let msg = e.and_then(|e| e.get("message")).and_then(Value::as_str);
        let what = match (ty, msg) {
            (Some(t), Some(m)) => format!("{}: {:?}", shorten(t, 60), shorten(m, 160)),
            (Some(t), None) => format!("{} (with no `message`)", shorten(t, 60)),
            (None, Some(m)) => format!("{:?} (with no `type`)", shorten(m, 160)),
            (None, None) => format!(
                "{} (not an `error` object with `type` and `message`)",
                shorten(ev.data, 120)
            ),
        };
        let streamed = model::streamed(&self.blocks, &self.overflow, &self.answered);
        let after = if self.messages == 0 {
            "before the message started".to_string()
        } else {
            format!("after {}", streamed.describe())
        };
        let known = ty.is_none_or(|t| fields::ERROR_TYPES.contains(&t));
        // The `error` value where there is one, else the event's data.
        let (loc, pointer) = if e.is_some() {
            (out.at_pointer("/error", false), Some("/error"))
        } else {
            (out.at_event(), None)
        };
        let mut f = Finding::new(
                crate::lint::rule::MESSAGES_ERROR_EVENT,
                format!(
                    "an `error` event ended the stream {after}: {what}{}; clients raise it as an error, and the answer is incomplete",
                    if known { "" } else { " (an error type the API does not list)" }
                ),
                loc,
            )
            .event(ev.index)
            .help("an error inside a 200 stream is the server's way to fail after streaming began: retry, or fix the cause the message names");
        if let Some(p) = pointer {
            f = f.pointer(p);
        }
        emit(out, f);
    }
}

impl super::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.last.clear();
        self.events += 1;
        if ev.done {
            out.kind("done");
            if !self.done_reported {
                self.done_reported = true;
                let loc = out.at_event();
                emit(
                    out,
                    Finding::new(
                        crate::lint::rule::MESSAGES_DONE_MARKER,
                        "`data: [DONE]` is not part of an Anthropic Messages stream (it ends with `message_stop`): clients that dispatch on event names skip it, but the stream is not conformant",
                        loc,
                    )
                    .event(ev.index)
                    .help("end the stream after `message_stop`; do not add the Chat Completions sentinel"),
                );
            }
            return;
        }
        let Some(v) = ev.json else {
            return;
        };
        let Some(o) = v.as_object() else {
            self.schema(
                out,
                ev,
                "",
                Severity::Error,
                format!("the event's data is a JSON {}, not an object: every Messages event is an object with a `type`", json_type(v)),
            );
            return;
        };
        let data_type = o.get("type").and_then(Value::as_str);
        let ty: &str = match data_type {
            Some(t) => t,
            None if o.get("error").is_some_and(Value::is_object) => "error",
            None if ev.named => ev.name,
            None => "",
        };
        // Names: only dispatched events (the undispatched tail has none).
        if ev.index.is_some() {
            self.check_name(out, ev, data_type, ty);
        }
        // Observed (messages-schema's example without it): the SDKs fill
        // the type in from the event name, while an agent app that
        // dispatches on the data's `type` drops the event (and its text or
        // stop reason).
        if data_type.is_none() && !ty.is_empty() {
            self.schema(
                out,
                ev,
                "/type",
                Severity::Error,
                format!("the data has no `type` (the event name says `{}`): a client that dispatches on the data's `type` drops the event, and what it carries is lost", shorten(ty, 40)),
            );
        }
        if self.stopped && !matches!(ty, "ping" | "message_start" | "error") {
            self.after_stop += 1;
            self.stop_again |= ty == "message_stop";
            self.stop_reason_after_stop |= ty == "message_delta"
                && o.get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .is_some_and(Value::is_string);
            if self.first_after_stop.is_none() {
                self.first_after_stop = Some(First {
                    at: (out.at_name(), ev.index),
                    what: shorten(ty, 40),
                });
            }
        }
        if fields::EVENT_TYPES.contains(&ty) {
            let what = format!("the `{ty}` event");
            self.unknown_fields(out, ev, o, "", ty, &what);
        }
        match ty {
            "message_start" => self.message_start(out, ev, v),
            "content_block_start" => self.block_start(out, ev, v),
            "content_block_delta" => self.block_delta(out, ev, v),
            "content_block_stop" => self.block_stop(out, ev, v),
            "message_delta" => self.message_delta(out, ev, v),
            "message_stop" => self.message_stop(out, ev),
            "ping" => {
                out.kind("keepalive");
                self.last = "ping".into();
            }
            "error" => self.error_event(out, ev, v),
            "" => self.schema(
                out,
                ev,
                "",
                Severity::Error,
                "the event has neither an `event:` name nor a `type`: nothing says what it is"
                    .into(),
            ),
            other => {
                out.kind("unknown");
                self.unknown_type(out, ev, "event", other, "");
            }
        }
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        let mut answer = Answer {
            usage: self.usage.clone(),
            done: self.stopped,
            ..Answer::default()
        };
        let ending = if self.errored {
            Ending::Failed
        } else if self.stopped && self.stop_reason.is_some() {
            Ending::Complete
        } else if self.stop_reason.is_some() {
            Ending::NoDone
        } else if self.stopped {
            Ending::DoneWithoutFinish
        } else if self.messages == 0 && self.blocks.is_empty() && self.overflow_blocks == 0 {
            Ending::Empty
        } else {
            Ending::CutOff
        };
        self.finish_names(out);
        if let Some(f) = self.first_after_stop.take() {
            // Observed (rules/observed.json, messages-after-stop): a stop
            // reason again after `message_stop` makes a client that adds up
            // every `message_delta` end with another stop reason; other
            // events after it change what no client ends with.
            let (consequence, level) = if self.stop_reason_after_stop {
                (
                    "; one of them a `message_delta` with a stop reason again, so a client that adds up every `message_delta` ends with the stop reason twice",
                    Severity::Error,
                )
            } else if self.stop_again {
                // Observed (samples/bad/messages-after-stop.sse): an agent
                // app reported the usage twice.
                (
                    "; one of them a second `message_stop`, so a client that takes each `message_stop` as a finished message reports the usage twice",
                    Severity::Warning,
                )
            } else {
                (
                    ", so clients that stop reading there lose what follows, while others add it to a finished message",
                    Severity::Info,
                )
            };
            emit(
                out,
                Finding::new(
                    crate::lint::rule::MESSAGES_AFTER_STOP,
                    format!(
                        "{} event(s) follow `message_stop` (the first a `{}`): `message_stop` ends the message{consequence}",
                        self.after_stop, f.what
                    ),
                    f.at.0,
                )
                .event(f.at.1)
                .level(level)
                .help("send nothing after `message_stop` but the end of the response"),
            );
        }
        for b in &self.blocks {
            if let Some((loc, ev)) = b.repeat_at.as_deref().cloned() {
                emit(
                    out,
                    Finding::new(
                        crate::lint::rule::MESSAGES_REPEATED_ANSWER,
                        format!(
                            "block {}'s last `text_delta` repeats the whole text of the deltas before it: clients that append each `text_delta` show the text twice",
                            b.index
                        ),
                        loc,
                    )
                    .event(ev)
                    .help("send only the new text in each `text_delta`"),
                );
            }
        }
        let streamed = model::streamed(&self.blocks, &self.overflow, &self.answered);
        // A lost event may have been the stop reason or `message_stop`:
        // the ending's finding names it, as `messages-cut-off` does.
        let unread = if self.lost > 0 {
            format!(
                " ({} event(s) could not be read, and one of them may have been it)",
                self.lost
            )
        } else {
            String::new()
        };
        if !end.damaged {
            match ending {
                Ending::CutOff => {
                    let open = self
                        .open
                        .iter()
                        .next()
                        .map(|(i, p)| {
                            format!(
                                ", and block {i} (`{}`) was still open",
                                shorten(&self.block_ref(*p).kind, 40)
                            )
                        })
                        .unwrap_or_default();
                    let loc = out.at_end();
                    emit(
                        out,
                        Finding::new(
                            crate::lint::rule::MESSAGES_CUT_OFF,
                            format!(
                                "the stream ended after {} event(s) with neither a `stop_reason` nor `message_stop`{unread}{}: {} had streamed{open}; nothing says the answer is complete: one stream helper of the record raises, and the other clients show the answer as if it were whole (the table)",
                                end.events,
                                end.broke(),
                                streamed.describe()
                            ),
                            loc,
                        )
                        .help("find what closed the connection (a proxy timeout, a crash); a finished message ends with `message_delta` (with its `stop_reason`) and `message_stop`, a failed one with an `error` event"),
                    );
                }
                Ending::NoDone => {
                    let loc = out.at_end();
                    emit(
                        out,
                        Finding::new(
                            crate::lint::rule::MESSAGES_STOP_MISSING,
                            format!(
                                "`message_delta` gave the stop reason ({}), but the stream ended without `message_stop`{unread}: clients that wait for it treat the message as unfinished",
                                self.stop_reason.as_deref().unwrap_or("")
                            ),
                            loc,
                        )
                        .help("send `message_stop` as the last event"),
                    );
                }
                Ending::DoneWithoutFinish => {
                    let (loc, ev) = self
                        .last_delta_at
                        .clone()
                        .or_else(|| self.stop_at.clone())
                        .unwrap_or_else(|| (out.at_end(), None));
                    let why = if self.message_deltas == 0 {
                        "no `message_delta` came before `message_stop`".to_string()
                    } else {
                        "no `message_delta` carried a `stop_reason` (it stayed null)".to_string()
                    };
                    // Observed (rules/observed.json): the SDKs report no
                    // stop reason, but the gateway (LiteLLM) hands on
                    // `stop`, the finish of an answer that ended: error.
                    // With no `message_delta` at all, the output usage is
                    // missing too.
                    let f = if self.message_deltas == 0 {
                        Finding::new(
                            crate::lint::rule::MESSAGES_STOP_REASON,
                            format!("{why}{unread}: the SDKs report no stop reason, a gateway of the record hands on `stop` as if the answer had ended, and with no `message_delta` there is no final usage either (the table)"),
                            loc,
                        )
                    } else {
                        Finding::new(
                            crate::lint::rule::MESSAGES_STOP_REASON,
                            format!("{why}{unread}: the SDKs report no stop reason and a gateway of the record hands on `stop`, so a finished answer cannot be told from one cut by the token limit or a tool call (the table)"),
                            loc,
                        )
                    }
                    .level(Severity::Error);
                    emit(
                        out,
                        f.event(ev)
                        .help("send `message_delta` with `delta.stop_reason` (end_turn, max_tokens, tool_use, …) before `message_stop`"),
                    );
                }
                Ending::Empty
                    if end.unread() == 0 && !end.not_sse && !self.start_missing_reported =>
                {
                    self.start_missing_reported = true;
                    let loc = out.at_end();
                    emit(
                        out,
                        Finding::new(
                            crate::lint::rule::MESSAGES_START_MISSING,
                            if end.events == 0 {
                                "the stream has no events: no `message_start`, so clients see no message at all".to_string()
                            } else {
                                format!("no `message_start` in {} event(s): the stream helpers have no message to build and raise (the table), while raw loops read on", end.events)
                            },
                            loc,
                        ),
                    );
                }
                _ => {}
            }
        }
        let cut = self.stop_reason.as_deref() == Some("max_tokens");
        // A lost event may have been one of the input's fragments.
        let pending = std::mem::take(&mut self.pending_input);
        for p in pending.into_iter().filter(|_| self.lost == 0) {
            // Observed: clients end with another tool input (a partial
            // parse, `{}`) or raise, whether or not the token limit cut it.
            let tail = if cut {
                "; the stop reason is max_tokens, so the token limit cut the input, yet the block was stopped as if whole: clients that parse the input at the block's stop keep a different object (a partial parse, or `{}`)"
            } else {
                "; clients that parse the input at the block's stop end with a partial object, and others run the tool with it"
            };
            emit(
                out,
                Finding::new(crate::lint::rule::MESSAGES_TOOL_INPUT, format!("{}{tail}", p.message), p.at.0)
                    .event(p.at.1)
                    .help("stream `partial_json` fragments that join to one JSON object (`{}` for a tool without parameters)"),
            );
        }
        // LiteLLM's adapter sends a zero usage in `message_start` by design
        // and the real counts in the last `message_delta` (its profile).
        let zero_by_design = self.input_corrected > 0 && out.profile() == "litellm-messages";
        if let Some((loc, ev)) = self.zero_input.take().filter(|_| !zero_by_design) {
            let f = if self.input_corrected > 0 {
                Finding::new(
                    crate::lint::rule::MESSAGES_INPUT_TOKENS_ZERO,
                    format!("`message_start` reports `input_tokens: 0` and no cache tokens; the real count ({}) comes only in `message_delta`, so displays that show the context size from `message_start` show 0 until the end", self.input_corrected),
                    loc,
                )
                .level(Severity::Info)
            } else {
                Finding::new(
                    crate::lint::rule::MESSAGES_INPUT_TOKENS_ZERO,
                    "`message_start` reports `input_tokens: 0` and no cache tokens, and no `message_delta` gives the real count: clients report an empty prompt, and context and cost displays show 0",
                    loc,
                )
            };
            emit(
                out,
                f.event(ev).pointer("/message/usage/input_tokens").help(
                    "send the prompt's token count in `message_start.message.usage.input_tokens`",
                ),
            );
        }
        // Last: the checks above count the blocks' text, which the answer
        // may take over from `answered`.
        model::assemble(
            &mut answer,
            &self.blocks,
            &self.overflow,
            std::mem::take(&mut self.answered),
        );
        answer.choice(0).finish_reason = self.stop_reason.clone();
        (answer, ending)
    }

    fn rejected(&mut self, _index: Option<u64>) {
        self.lost += 1;
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        // What the general path would take without a finding: a named
        // delta of a started, unstopped message, to a block open under
        // its index and of the delta's kind (a thinking block not yet
        // signed).
        if !ev.named || ev.name != "content_block_delta" || self.messages == 0 || self.stopped {
            return false;
        }
        let mut buf = std::mem::take(&mut self.unescaped);
        let taken = match Self::compact_delta(ev.data, &mut buf) {
            Some((index, dtype, text)) => {
                let value = match text {
                    Text::Lent(t) => t,
                    Text::Kept => buf.as_str(),
                };
                self.fast_apply(ev, out, index, dtype, value)
            }
            None => Self::fast_delta(ev.data).is_some_and(|(index, dtype, value)| {
                self.fast_apply(ev, out, index, dtype, &value)
            }),
        };
        self.unescaped = buf;
        taken
    }

    fn summary(&self) -> String {
        self.last.clone()
    }
}

impl Checker {
    /// The fast path's checks and work for a delta read as `index`,
    /// `dtype` and `value`. True when the delta was taken.
    fn fast_apply(
        &mut self,
        ev: &Event<'_>,
        out: &mut dyn Out,
        index: u64,
        dtype: &'static str,
        value: &str,
    ) -> bool {
        let Some(&pos) = self.open.get(&index) else {
            return false;
        };
        let b = self.block_ref(pos);
        // A block of no type (the overflow past `MAX_BLOCKS` is one) takes
        // any delta on the general path too.
        let fits = b.kind.is_empty()
            || fields::delta_blocks(dtype).is_some_and(|k| k.contains(&b.kind.as_str()));
        if !fits || (dtype == "thinking_delta" && b.signature.is_some()) {
            return false;
        }
        self.last.clear();
        self.events += 1;
        self.apply_delta(out, ev, pos, index, dtype, Some(value));
        true
    }
}

impl Checker {
    /// Tracks `event:` lines: missing (`messages-unnamed-event`) or other
    /// than the data's `type` (`messages-event-mismatch`), both reported
    /// once per stream at the end.
    fn check_name(&mut self, out: &mut dyn Out, ev: &Event<'_>, data_type: Option<&str>, ty: &str) {
        if !ev.named {
            self.unnamed += 1;
            if fields::DISPATCHED.contains(&ty) || ty == "error" {
                self.unnamed_drops = true;
            }
            if self.first_unnamed.is_none() {
                self.first_unnamed = Some(First {
                    at: (out.at_event(), ev.index),
                    what: shorten(if ty.is_empty() { "event" } else { ty }, 40),
                });
            }
            return;
        }
        let Some(t) = data_type else {
            return;
        };
        if t == ev.name {
            return;
        }
        self.mismatches += 1;
        let type_kept = fields::DISPATCHED.contains(&t);
        let (name, shown) = (shorten(ev.name, 40), shorten(t, 40));
        let lost = if ev.name == "error" {
            Some(format!("clients raise an event named `error`, so this `{shown}` ends the stream as a failure"))
        } else if t == "error" {
            Some("clients raise errors by the `error` name, so this error is not raised and the failure goes unnoticed".to_string())
        } else if matches!(ev.name, "ping" | "message") && type_kept {
            // Observed: a `ping` (or unnamed) event is skipped whatever its
            // data; an unknown name is read by its data's type.
            Some(format!("clients that dispatch on the event name skip events named `{name}`, so this `{shown}` and what it carries are lost to them (the table)"))
        } else if type_kept && !fields::DISPATCHED.contains(&ev.name) {
            // Observed (samples/bad/messages-event-mismatch.sse): the SDKs
            // read an unknown name by its data's type; an agent app that
            // dispatches on the name skipped it.
            Some(format!("the SDKs read it by its data's type, but a client that dispatches on the event name skips a name it does not know, so this `{shown}` and what it carries are lost"))
        } else {
            None
        };
        let drops = lost.is_some();
        let better = match &self.first_mismatch {
            None => true,
            Some((_, d)) => drops && !d,
        };
        if better {
            self.first_mismatch = Some((
                First {
                    at: (out.at_name(), ev.index),
                    what: format!(
                        "the event is named `{name}` but its data is a `{shown}`{{more}}: {}",
                        lost.unwrap_or_else(|| "clients pick events by name and read them by type, so nothing is lost here, but the two are meant to agree".to_string())
                    ),
                },
                drops,
            ));
        }
    }

    fn finish_names(&mut self, out: &mut dyn Out) {
        if let Some(f) = self.first_unnamed.take() {
            let (message, level) = if self.unnamed_drops {
                (
                    format!(
                        "{} event(s) have no `event:` line (the first is a `{}`): clients that dispatch Messages events on their name drop every unnamed one, so they see none of its content (most observed clients did; one that reads the data's `type` did not)",
                        self.unnamed, f.what
                    ),
                    Severity::Error,
                )
            } else {
                (
                    format!(
                        "{} event(s) have no `event:` line (the first is a `{}`): clients that dispatch on the event name drop unnamed events, which loses nothing here, but every Messages event is named",
                        self.unnamed, f.what
                    ),
                    Severity::Info,
                )
            };
            emit(
                out,
                Finding::new(crate::lint::rule::MESSAGES_UNNAMED_EVENT, message, f.at.0)
                    .level(level)
                    .event(f.at.1)
                    .help("send `event: TYPE` before each `data:` line, with the data's `type`"),
            );
        }
        if let Some((f, drops)) = self.first_mismatch.take() {
            let more = if self.mismatches > 1 {
                format!(" ({} events disagree)", self.mismatches)
            } else {
                String::new()
            };
            let message = f.what.replace("{more}", &more);
            let f = Finding::new(crate::lint::rule::MESSAGES_EVENT_MISMATCH, message, f.at.0)
                .event(f.at.1);
            let f = if drops { f.level(Severity::Error) } else { f };
            emit(
                out,
                f.help("name each event after its data's `type` (`event: content_block_delta` for `\"type\":\"content_block_delta\"`)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_compact(data: &str) -> Option<(u64, &'static str, String)> {
        let mut buf = String::new();
        let (index, dtype, text) = Checker::compact_delta(data, &mut buf)?;
        let text = match text {
            Text::Lent(t) => t.to_string(),
            Text::Kept => buf,
        };
        Some((index, dtype, text))
    }

    #[test]
    fn compact_deltas_read_as_the_typed_parse_reads_them() {
        let seeds = [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"there\" \u00e9\ud83d\ude00"}}"#,
            r#"{"type":"content_block_delta","index":17,"delta":{"type":"thinking_delta","thinking":"hm"}}  "#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":", \"unit\": \"celsius\"}"}}"#,
        ];
        let (mut read, mut n) = (0, 0);
        for seed in seeds {
            assert!(by_compact(seed).is_some(), "{seed}");
            for s in std::iter::once(seed.to_string()).chain(compact::one_char_changes(seed)) {
                if let Some(ours) = by_compact(&s) {
                    let theirs = Checker::fast_delta(&s).map(|(i, d, t)| (i, d, t.into_owned()));
                    assert_eq!(Some(ours), theirs, "{s}");
                    read += 1;
                }
                n += 1;
            }
        }
        assert!(read > 200 && n > 5_000, "{read} of {n}");
    }
}
