//! OpenAI Responses streams (`POST /v1/responses` with `stream: true`):
//! the stream model that assembles the answer from `response.*` events, and
//! the `responses-*` rules (`rules/responses/`).
//!
//! Events (OpenAI `openapi.yaml`, `ResponseStreamEvent`; the reference's
//! §1): a lifecycle (`response.created`, `response.queued`,
//! `response.in_progress`, then one terminal event: `response.completed`,
//! `response.incomplete` or `response.failed`), output items
//! (`response.output_item.added` / `.done`, keyed by `output_index`),
//! content parts (`response.content_part.added` / `.done`, keyed by
//! `content_index`), and deltas with their `.done` events
//! (`response.output_text.*`, `response.refusal.*`,
//! `response.function_call_arguments.*`, `response.reasoning_text.*`,
//! `response.reasoning_summary_text.*` with `summary_index`). An `error`
//! event carries its fields at the top level (the schema's shape) or in an
//! `error` object (what OpenAI sends); both are read.
//!
//! The model, per output item (at most [`MAX_ITEMS`], each with at most
//! [`MAX_PARTS`] parts): its type, `id`, `call_id` and `name`; per content
//! part (and per reasoning summary part) the deltas joined and the last
//! full value a `.done` event gave; a function call's arguments likewise.
//! Text is kept within one budget per stream ([`text::MAX_KEPT_BYTES`],
//! of which text and reasoning each keep at most what the answer keeps);
//! past it, text is counted and hashed, so deltas and `.done` values are
//! still compared. A `.done` value that is the deltas joined is not kept
//! twice.
//!
//! The answer is choice 0 of [`Answer`]:
//! - text: the `output_text` parts of every `message` item, in
//!   `output_index` order, then `content_index` order; a part's text is its
//!   deltas joined, or, when it got no delta, the full value its `.done`
//!   events (or the terminal response's `output`) gave;
//! - refusal: the `refusal` parts, likewise;
//! - reasoning: `reasoning` items' `reasoning_text` parts, then their
//!   summary parts (separated by a blank line);
//! - tool calls: each `function_call` item, with `call_id` as the id,
//!   `name`, and its arguments; each `custom_tool_call` item likewise,
//!   of kind `custom`, its input as the arguments; and each server-side
//!   call ([`SERVER_CALLS`]: `web_search_call`, …), of its item type, with
//!   what it was asked as its arguments;
//! - finish_reason: the terminal response's `status` (`completed`,
//!   `incomplete`, `failed`; the event's own word when `status` is
//!   absent), and for an incomplete response its
//!   `incomplete_details.reason` after a colon: `incomplete:
//!   max_output_tokens`;
//! - usage: the terminal response's `usage`.
//!
//! The ending: `complete` after `response.completed` or
//! `response.incomplete`; `failed` after `response.failed` or an `error`
//! event; `cut-off` when the stream closed with neither; `empty` with no
//! event at all.

/// Reports a finding (built first, so it may locate itself through `out`)
/// unless its rule is off or past its limit.
macro_rules! report {
    ($out:expr, $f:expr $(,)?) => {{
        let f: $crate::lint::Finding = $f;
        if !$out.muted(f.rule) {
            $out.report(f);
        }
    }};
}

pub mod api;
mod events;
mod fast;
mod fields;
mod items;
mod lifecycle;
mod output;
mod socket;
pub mod text;
pub mod words;

use super::{Event, Out, StreamEnd};
use crate::lint::Location;
use crate::model::assembly::{Answer, Digest, Ending, Text, ToolCall};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use text::{Acc, Budget, Pool};

pub use events::{spec_of, Need, Spec, EVENTS, TERMINAL};

/// Most output items one stream's model tracks; later items are counted,
/// not checked or assembled (a `responses-output-index` info says so).
pub const MAX_ITEMS: usize = 1024;

/// Most content (or summary) parts tracked per output item.
pub const MAX_PARTS: usize = 64;

/// Most distinct (event type, field) pairs remembered as reported, so a
/// fault repeated on every event is reported once.
const MAX_KEYS: usize = 256;

/// Where something was seen: the location and the event's index.
type At = (Location, Option<u64>);

/// One content part (or reasoning summary part, or a call's arguments) as
/// streamed.
#[derive(Debug, Default, Clone)]
pub struct Part {
    /// `part.type` (`output_text`, `refusal`, `reasoning_text`,
    /// `summary_text`) or what the deltas imply.
    pub kind: String,
    /// Announced by `content_part.added` / `reasoning_summary_part.added`
    /// (or created by a `.done` event that carried its full value).
    pub added: bool,
    /// `content_part.done` / `reasoning_summary_part.done` came.
    pub closed: bool,
    /// The text's own `.done` event came (`output_text.done`, …).
    pub text_done: bool,
    /// Deltas received.
    pub deltas: u64,
    /// The deltas joined.
    pub streamed: Acc,
    /// The last full value a `.done` event gave ([`Part::settled`]).
    settled: Option<Settled>,
    /// Which event gave it (for messages).
    settled_by: &'static str,
    /// A `responses-delta-mismatch` was found for it.
    mismatch: bool,
    /// That finding, held until the end, and the fingerprint of the value
    /// it differed from: whether the final value agrees with that one
    /// decides its level.
    /// Boxed, as is `at`: a part is kept per content index of up to
    /// [`MAX_ITEMS`] items, and most never need either.
    pending: Option<Box<(crate::lint::Finding, (u64, u64))>>,
    /// Where it was announced or first streamed.
    at: Option<Box<At>>,
    /// Non-empty `output_text` deltas received.
    text_deltas: u64,
    /// Where the last non-empty `output_text` delta, the third or later,
    /// repeated all the part's text before it (`responses-repeated-answer`);
    /// a later one clears it.
    repeat_at: Option<Box<At>>,
}

/// An item's parts by index, each boxed: a map's node holds room for 11
/// values, so unboxed an item's one part cost a 2.3 KB node (0.9 MiB for
/// the 390 items of a 100 MB capture, whose parts are kept to the end).
pub type Parts = BTreeMap<u64, Box<Part>>;

/// A full value a `.done` event gave.
#[derive(Debug, Clone)]
enum Settled {
    /// A value of its own.
    Own(Acc),
    /// The deltas joined, the very same text: held once, in
    /// [`Part::streamed`] (the usual case, and half the text a stream
    /// would keep otherwise). A later delta copies it out first.
    Deltas,
}

impl Part {
    /// The part's text for the answer: its deltas, or, with none, the last
    /// full value.
    pub fn text(&self) -> &str {
        &self.answer().kept
    }

    /// The text for the answer, with what was not kept of it.
    pub fn answer(&self) -> &Acc {
        match (self.settled(), self.deltas) {
            (Some(s), 0) => s,
            _ => &self.streamed,
        }
    }

    /// Takes the text [`Part::answer`] gives (its kept bytes, and the
    /// digest of those not kept), leaving it empty: the answer is made
    /// at the end from the parts' texts, which are not needed after it.
    fn take_answer(&mut self) -> (String, Digest) {
        let a = match (&mut self.settled, self.deltas) {
            (Some(Settled::Own(s)), 0) => s,
            _ => &mut self.streamed,
        };
        (std::mem::take(&mut a.kept), a.rest)
    }

    /// The last full value a `.done` event gave.
    pub fn settled(&self) -> Option<&Acc> {
        match &self.settled {
            Some(Settled::Own(a)) => Some(a),
            Some(Settled::Deltas) => Some(&self.streamed),
            None => None,
        }
    }

    /// The latest full text known: the last `.done` value, else the deltas.
    fn latest(&self) -> &Acc {
        self.settled().unwrap_or(&self.streamed)
    }

    /// Appends a delta to the text streamed; a full value that was the
    /// deltas joined is first given a copy of its own (within `budget`,
    /// as far as it lasts), since it no longer is.
    fn push_delta(&mut self, delta: &str, budget: &mut Budget) {
        let pool = self.pool();
        if let Some(Settled::Deltas) = self.settled {
            let copy = self.streamed.clone();
            budget.take(pool, copy.kept.len());
            self.settled = Some(Settled::Own(copy));
        }
        self.deltas += 1;
        self.streamed.push(delta, budget, pool);
    }

    /// The share of the stream's [`Budget`] its text draws on, by its
    /// type.
    fn pool(&self) -> Pool {
        Pool::of_kind(&self.kind)
    }

    /// Records `new` as the full value, giving the room of the one it
    /// replaces back to `budget`; a value that is the deltas joined keeps
    /// no copy.
    fn settle_value(&mut self, new: Acc, budget: &mut Budget) {
        let pool = self.pool();
        let new = if self.deltas > 0 && new == self.streamed {
            new.release(budget, pool);
            Settled::Deltas
        } else {
            Settled::Own(new)
        };
        if let Some(Settled::Own(old)) = self.settled.replace(new) {
            old.release(budget, pool);
        }
    }
}

/// One output item as assembled.
#[derive(Debug, Default, Clone)]
pub struct Item {
    /// Its `output_index`.
    pub output_index: u64,
    /// `item.type` (`message`, `function_call`, `reasoning`, …).
    pub kind: String,
    /// `item.id`.
    pub id: Option<String>,
    /// A call's `call_id`.
    pub call_id: Option<String>,
    /// A call's `name`.
    pub name: Option<String>,
    /// Announced by `response.output_item.added`.
    pub added: bool,
    /// `response.output_item.done` came.
    pub done: bool,
    /// Known only from the terminal response's `output`.
    pub from_output: bool,
    /// Content parts by `content_index`.
    pub parts: Parts,
    /// Reasoning summary parts by `summary_index`.
    pub summary: Parts,
    /// A call's arguments (a custom tool's input).
    pub args: Part,
    /// What a server-side call was asked ([`SERVER_CALLS`]: a web
    /// search's `action`, a code interpreter's `code`), as JSON text, from
    /// the last full item.
    pub asked: Option<String>,
    /// Where it was announced (or first named).
    at: Option<At>,
    /// Where its arguments were last settled or streamed.
    args_at: Option<At>,
    /// Announced at an index past the next one (`responses-output-index`
    /// said so): later events that name it by id at another index are
    /// that finding's, not items of their own.
    misplaced: bool,
    /// Reported already: its identity, an event after its done.
    identity_reported: bool,
    late_reported: bool,
}

/// The output items that are tool calls the server runs itself, each with
/// the field that says what it was asked (`None`: its streamed
/// `arguments`, as for an `mcp_call`). They are tool calls of the answer
/// of their own kind, not calls for the client.
pub const SERVER_CALLS: &[(&str, Option<&str>)] = &[
    ("web_search_call", Some("action")),
    ("file_search_call", Some("queries")),
    ("code_interpreter_call", Some("code")),
    ("image_generation_call", None),
    ("mcp_call", None),
];

/// What the terminal event said.
#[derive(Debug, Clone)]
struct Terminal {
    /// The event type (`response.completed`, …).
    ty: String,
    /// The finish_reason this gives (see the module docs).
    finish: String,
    /// The response's `usage`, when an object.
    usage: Option<Value>,
    /// Where it is.
    at: At,
    /// The response ended incomplete (its status, or the event's type).
    incomplete: bool,
}

/// How the active profile's variant of the format differs (Open Responses
/// requires `[DONE]` and named events; OpenRouter may close without a
/// terminal event).
#[derive(Debug, Clone, Copy, Default)]
struct Variant {
    done_required: bool,
    names_required: bool,
    may_close_without_terminal: bool,
}

impl Variant {
    fn of(profile: &str) -> Variant {
        match profile {
            "open-responses" => Variant {
                done_required: true,
                names_required: true,
                ..Variant::default()
            },
            "openrouter-responses" => Variant {
                may_close_without_terminal: true,
                ..Variant::default()
            },
            _ => Variant::default(),
        }
    }
}

/// Most gaps in the numbering remembered (each may be filled later by a
/// number that comes back); past it, gaps are only counted.
const MAX_HOLES: usize = 64;

/// `sequence_number` bookkeeping.
#[derive(Debug, Default)]
struct Seq {
    last: Option<u64>,
    /// The highest number seen.
    max: Option<u64>,
    /// The lowest number seen.
    min: Option<u64>,
    first: Option<(u64, At)>,
    missing: u64,
    first_missing: Option<At>,
    /// Gaps not (yet) filled: the numbers before and after, and where.
    /// A number that comes back into a gap fills it: the gap was the
    /// backward step's doing (`responses-sequence-number`), not a loss.
    holes: Vec<(u64, u64, At)>,
    /// Gaps past [`MAX_HOLES`].
    more_gaps: u64,
    /// Events rejected (not JSON, too deep) since the last number: a gap
    /// no wider than these is their doing.
    unread: u64,
    /// Events rejected before the first number: a start no higher is
    /// theirs.
    unread_before_first: u64,
    bad_reported: bool,
    order_reported: bool,
}

/// An event seen once and reported at the end with a count.
#[derive(Debug, Default)]
struct Tally {
    count: u64,
    first: Option<(At, String)>,
}

impl Tally {
    fn note(&mut self, at: impl FnOnce() -> At, what: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some((at(), what()));
        }
    }
}

/// The Responses checker for one stream.
#[derive(Debug, Default)]
pub struct Checker {
    items: Vec<Item>,
    by_index: BTreeMap<u64, usize>,
    ids: HashMap<String, u64>,
    /// The `output_index` the next `output_item.added` should carry.
    next_index: u64,
    /// Items past [`MAX_ITEMS`], not tracked.
    untracked: u64,
    budget: Budget,
    json_events: u64,
    seq: Seq,
    created: bool,
    before_created: Tally,
    terminal: Option<Terminal>,
    after_terminal: Tally,
    /// An event after the terminal one adds to the answer (a delta, a new
    /// item), so readers of the events and of the final response differ.
    after_terminal_adds: bool,
    /// Another terminal event follows the terminal one: a client that adds
    /// up every terminal event ends with the status twice.
    after_terminal_ends_again: bool,
    /// `[DONE]`: where, and whether it came before any terminal event.
    done_marker: Option<(At, bool)>,
    /// The last event was `response.done` (a ChatGPT backend terminal
    /// outside the union).
    ended_with_response_done: bool,
    errored: bool,
    error_reported: bool,
    error_shape_reported: bool,
    /// `responses-refusal` was reported (once per stream).
    refusal_reported: bool,
    names_differ: Tally,
    unnamed: Tally,
    id_lines: Tally,
    reported: BTreeSet<String>,
    usage_reported: bool,
    /// Events the model could not place: rejected by the shared stage
    /// (`invalid-json`) or naming no readable `output_index`. Their
    /// absence explains later differences (a delta missing from the text,
    /// an item never announced, an `output` the stream did not match),
    /// which are then not reported: the finding about the event is the
    /// cause.
    lost: u64,
    /// The first event was rejected: it may have been `response.created`.
    lost_first: bool,
    variant: Option<Variant>,
    /// What the last event added, for `inspect`: a rendering, or a delta's
    /// kind and first characters (rendered by `summary`).
    last: String,
    delta_kind: &'static str,
    delta_text: String,
    /// A delta's escaped text, decoded by the fast path (reused).
    unescaped: String,
    /// The stream is one response of a WebSocket
    /// ([`crate::dialect::Checker::on_socket`]): its events carry a
    /// `stream_id`, and have no SSE framing to judge.
    socket: bool,
}

/// The JSON type of `v`, for messages.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `v` as a short literal for messages.
fn literal(v: &Value) -> String {
    text::shorten(&v.to_string(), 40)
}

/// The string at `key` of `o`.
fn str_of<'v>(o: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    o.get(key).and_then(Value::as_str)
}

impl Checker {
    /// True the first time `key` is seen (then remembered, up to
    /// [`MAX_KEYS`] keys).
    fn first(&mut self, key: String) -> bool {
        if self.reported.contains(&key) {
            return false;
        }
        if self.reported.len() < MAX_KEYS {
            self.reported.insert(key);
        }
        true
    }

    fn variant(&mut self, out: &dyn Out) -> Variant {
        *self
            .variant
            .get_or_insert_with(|| Variant::of(out.profile()))
    }

    /// Characters of answer text streamed so far (all text parts).
    fn streamed_chars(&self) -> u64 {
        self.items
            .iter()
            .flat_map(|i| i.parts.values())
            .filter(|p| p.kind != "reasoning_text")
            .map(|p| p.streamed.chars())
            .sum()
    }

    /// Function calls seen so far.
    fn calls(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.kind == "function_call")
            .count()
    }

    /// The answer, from the items (see the module docs). The parts' texts
    /// move into it (the first of each whole) and are let go of one by
    /// one, so the stream's text is not held twice at its end: the
    /// items are not read after this.
    fn assemble(&mut self) -> Answer {
        let mut answer = Answer::default();
        let c = answer.choice(0);
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_by_key(|&i| self.items[i].output_index);
        for i in order {
            let it = &mut self.items[i];
            match it.kind.as_str() {
                "reasoning" => {
                    for p in it.parts.values_mut() {
                        let (kept, rest) = p.take_answer();
                        c.reasoning.push_owned(kept, rest);
                    }
                    for (k, p) in it.summary.values_mut().enumerate() {
                        if k > 0 || !c.reasoning.is_empty() {
                            c.reasoning.push("\n\n");
                        }
                        let (kept, rest) = p.take_answer();
                        c.reasoning.push_owned(kept, rest);
                    }
                }
                "function_call" | "custom_tool_call" => {
                    let index = c.tool_calls.len() as u64;
                    let custom = it.kind == "custom_tool_call";
                    let mut call = ToolCall {
                        index,
                        id: it.call_id.clone(),
                        kind: Some(if custom { "custom" } else { "function" }.into()),
                        name: it.name.clone(),
                        ..ToolCall::default()
                    };
                    call.push_arguments(it.args.text());
                    c.tool_calls.insert(index, call);
                }
                k if SERVER_CALLS.iter().any(|(s, _)| *s == k) => {
                    let index = c.tool_calls.len() as u64;
                    let mut call = ToolCall {
                        index,
                        id: it.id.clone(),
                        kind: Some(it.kind.clone()),
                        // An `mcp_call` names its tool; the others are
                        // named by their item type: `web_search_call` is
                        // the `web_search` tool's call.
                        name: it.name.clone().or_else(|| {
                            Some(
                                it.kind
                                    .strip_suffix("_call")
                                    .unwrap_or(&it.kind)
                                    .to_string(),
                            )
                        }),
                        server: true,
                        ..ToolCall::default()
                    };
                    call.push_arguments(it.asked.as_deref().unwrap_or(it.args.text()));
                    c.tool_calls.insert(index, call);
                }
                _ => {
                    for p in it.parts.values_mut() {
                        let (kept, rest) = p.take_answer();
                        match p.kind.as_str() {
                            "refusal" => {
                                c.refusal
                                    .get_or_insert_with(Text::default)
                                    .push_owned(kept, rest);
                            }
                            "reasoning_text" => c.reasoning.push_owned(kept, rest),
                            _ => c.text.push_owned(kept, rest),
                        }
                    }
                }
            }
        }
        answer
    }
}

impl super::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.last.clear();
        self.delta_kind = "";
        self.variant(out);
        if ev.done {
            self.on_done_marker(ev, out);
            return;
        }
        let Some(v) = ev.json else {
            self.on_malformed_done(ev, out);
            return;
        };
        self.json_events += 1;
        let Some(o) = v.as_object() else {
            self.not_an_object(ev, v, out);
            return;
        };
        self.check_sequence(ev, o, out);
        let ty = str_of(o, "type");
        self.check_framing(ev, ty, out);
        let is_error = ty == Some("error")
            || ev.name == "error"
            || (o.get("error").is_some_and(|e| !e.is_null())
                && !ty.is_some_and(|t| t.starts_with("response.")));
        if self.terminal.is_some() && ty != Some("keepalive") {
            self.after_terminal_adds |=
                ty.is_some_and(|t| t.ends_with(".delta") || t == "response.output_item.added");
            self.after_terminal_ends_again |= ty.is_some_and(|t| {
                matches!(
                    t,
                    "response.completed" | "response.incomplete" | "response.failed"
                )
            });
            let shown = ty.unwrap_or("(no type)").to_string();
            self.after_terminal
                .note(|| (out.at_event(), ev.index), || shown);
        }
        if is_error {
            self.on_error(ev, o, out);
            return;
        }
        let Some(ty) = ty else {
            self.missing_type(ev, o, out);
            return;
        };
        self.ended_with_response_done = ty == "response.done";
        self.note_created(ev, ty, out);
        match events::spec_of(ty) {
            Some(spec) => self.check_fields(ev, o, spec, out),
            None => self.unknown_event(ev, ty, out),
        }
        self.note_refusal(ev, ty, o, out);
        match ty {
            "response.created" | "response.queued" | "response.in_progress" => {
                out.kind("lifecycle");
                let status = o
                    .get("response")
                    .and_then(|r| r.get("status"))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                self.last = format!("response {status}");
                self.check_response(ev, o, false, out);
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.on_terminal(ev, ty, o, out);
            }
            "response.output_item.added" => self.on_item_added(ev, o, out),
            "response.output_item.done" => self.on_item_done(ev, o, out),
            "response.content_part.added" | "response.content_part.done" => {
                self.on_content_part(ev, ty, o, out);
            }
            "response.reasoning_summary_part.added" | "response.reasoning_summary_part.done" => {
                self.on_summary_part(ev, ty, o, out);
            }
            "response.output_text.delta"
            | "response.refusal.delta"
            | "response.reasoning_text.delta"
            | "response.reasoning_summary_text.delta"
            | "response.function_call_arguments.delta"
            | "response.custom_tool_call_input.delta"
            | "response.mcp_call_arguments.delta" => self.on_delta(ev, ty, o, out),
            "response.output_text.done"
            | "response.refusal.done"
            | "response.reasoning_text.done"
            | "response.reasoning_summary_text.done"
            | "response.function_call_arguments.done"
            | "response.custom_tool_call_input.done"
            | "response.mcp_call_arguments.done" => self.on_text_done(ev, ty, o, out),
            "keepalive" => out.kind("keepalive"),
            _ => {
                // Other item-scoped events of the union (annotations, hosted
                // tools' progress): the item they name must exist and match.
                if events::spec_of(ty).is_some() && o.contains_key("output_index") {
                    out.kind("item");
                    self.scoped(ev, ty, o, out);
                }
            }
        }
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        self.variant(out);
        self.finish_lifecycle(end, out);
        self.finish_items(end, out);
        self.finish_framing(out);
        let mut answer = self.assemble();
        answer.done = self.done_marker.is_some();
        let failed = self.errored
            || self
                .terminal
                .as_ref()
                .is_some_and(|t| t.ty == "response.failed");
        let ending = match &self.terminal {
            Some(t) => {
                let c = answer.choice(0);
                c.finish_reason = Some(t.finish.clone());
                answer.usage = t.usage.clone();
                if failed {
                    Ending::Failed
                } else {
                    Ending::Complete
                }
            }
            None if failed => Ending::Failed,
            None if end.events == 0 => Ending::Empty,
            None => Ending::CutOff,
        };
        (answer, ending)
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        self.fast_event(ev, out)
    }

    fn summary(&self) -> String {
        if self.delta_kind.is_empty() {
            self.last.clone()
        } else {
            format!(
                "{} {:?}",
                self.delta_kind,
                text::shorten(&self.delta_text, 60)
            )
        }
    }

    fn on_socket(&mut self) {
        self.socket = true;
    }

    fn rejected(&mut self, _index: Option<u64>) {
        if self.json_events == 0 && !self.created {
            self.lost_first = true;
        }
        self.lost += 1;
        self.seq.unread += 1;
    }

    fn skipped(&mut self, events: u64, first: Location, first_index: Option<u64>) {
        self.before_created.count += events;
        if self.before_created.first.is_none() {
            self.before_created.first = Some((
                (first, first_index),
                "an event of a format not recognised at that point".to_string(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_done_value_that_is_the_deltas_is_kept_once_and_copied_out_by_a_later_delta() {
        let mut budget = Budget::of(100);
        let mut p = Part {
            kind: "output_text".into(),
            ..Part::default()
        };
        p.push_delta("Hello", &mut budget);
        p.push_delta(" world", &mut budget);
        assert_eq!(budget.left(), 89);
        let done = Acc::of("Hello world", &mut budget, Pool::Text);
        p.settle_value(done, &mut budget);
        // Held once: its room went back.
        assert_eq!(budget.left(), 89);
        assert_eq!(p.settled().map(|a| a.kept.as_str()), Some("Hello world"));
        // A delta after it: the value stays what the done event said.
        p.push_delta("!", &mut budget);
        assert_eq!(p.streamed.kept, "Hello world!");
        assert_eq!(p.settled().map(|a| a.kept.as_str()), Some("Hello world"));
        assert!(!p.latest().same(&p.streamed));
        assert_eq!(budget.left(), 100 - 12 - 11);
        // A value of its own is kept, and gives its room back when replaced.
        let other = Acc::of("Hi", &mut budget, Pool::Text);
        p.settle_value(other, &mut budget);
        assert_eq!(p.latest().kept, "Hi");
        assert_eq!(budget.left(), 100 - 12 - 2);
    }
}
