//! The output-item rules of a Responses stream: items announced before use
//! and appended in order, events that match their item, content parts
//! announced before their deltas, nothing after an item's done, every
//! announcement closed, deltas that join to the `.done` values and to the
//! terminal response's `output`, and function-call arguments that parse.

use super::text::{describe_difference, Acc, Budget};
use super::{str_of, Checker, Item, Part, MAX_ITEMS, MAX_PARTS};
use crate::dialect::{Event, Out, StreamEnd};
use crate::lint::{Finding, Severity};
use serde_json::{Map, Value};

/// Which text of an item an event adds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    /// A content part (`content_index`).
    Content,
    /// A reasoning summary part (`summary_index`).
    Summary,
    /// A call's arguments (or a custom tool's input).
    Args,
}

/// The part `key` of `m`, created while fewer than [`MAX_PARTS`] exist.
fn entry(m: &mut super::Parts, key: u64) -> Option<&mut Part> {
    if m.contains_key(&key) || m.len() < MAX_PARTS {
        Some(m.entry(key).or_default())
    } else {
        None
    }
}

/// The key (`content_index` or `summary_index`) that the `j`-th part a
/// full item lists stands for: the `j`-th part streamed, in index order,
/// and past the streamed ones the indices after the last. A server may
/// number an item's only part 1 (vLLM does so for a message item after a
/// reasoning item); the item's `content` array still lists it first.
pub(super) fn listed_key(map: &super::Parts, j: usize) -> u64 {
    match (map.keys().nth(j), map.keys().next_back()) {
        (Some(k), _) => *k,
        (None, Some(last)) => last + 1 + (j - map.len()) as u64,
        (None, None) => j as u64,
    }
}

fn part_of(item: &mut Item, which: Which, key: u64) -> Option<&mut Part> {
    match which {
        Which::Content => entry(&mut item.parts, key),
        Which::Summary => entry(&mut item.summary, key),
        Which::Args => Some(&mut item.args),
    }
}

/// The text a content part object holds (`text`, or `refusal` for a
/// refusal part), with its key.
pub(super) fn part_text(p: &Value) -> Option<(&str, &'static str, &str)> {
    let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
    let key = if kind == "refusal" { "refusal" } else { "text" };
    p.get(key).and_then(Value::as_str).map(|t| (kind, key, t))
}

/// Describes an item for messages: `message msg_1`.
pub(super) fn describe(item: &Item) -> String {
    let kind = if item.kind.is_empty() {
        "item"
    } else {
        item.kind.as_str()
    };
    match &item.id {
        Some(id) => format!("{kind} {}", super::text::shorten(id, 40)),
        None => kind.to_string(),
    }
}

impl Checker {
    /// The item an item-scoped event names by `output_index`, checked:
    /// `responses-item-not-added` when no `output_item.added` announced it
    /// (it is then made, so the rest of the stream is still read), and
    /// `responses-item-identity` when `item_id` names another item.
    pub(super) fn scoped(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) -> Option<usize> {
        let Some(i) = o.get("output_index").and_then(Value::as_u64) else {
            // `responses-missing-field` says so; the event is lost.
            self.lost += 1;
            return None;
        };
        let item_id = str_of(o, "item_id").or_else(|| {
            o.get("item")
                .and_then(Value::as_object)
                .and_then(|m| str_of(m, "id"))
        });
        let Some(&pos) = self.by_index.get(&i) else {
            // The item was announced at an index out of place (a gap,
            // `responses-output-index` said so), and this event names it
            // by its id at another: the same fault, not a second item.
            let misplaced = item_id
                .and_then(|id| self.ids.get(id))
                .and_then(|j| self.by_index.get(j))
                .copied()
                .filter(|p| self.items[*p].misplaced);
            if let Some(p) = misplaced {
                return Some(p);
            }
            if self.items.len() >= MAX_ITEMS {
                return None;
            }
            // An event lost before (unreadable, no index) may have been
            // the announcement: that finding is the cause.
            if self.untracked == 0 && self.lost == 0 {
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_ITEM_NOT_ADDED,
                        format!(
                            "`{ty}` names output_index {i}{}, but no `response.output_item.added` announced an item there: clients that keep the response's items by index raise, or drop what this event adds",
                            item_id.map_or(String::new(), |id| format!(" (item_id {})", super::text::shorten(id, 40)))
                        ),
                        out.at_pointer("/output_index", false),
                    )
                    .event(ev.index)
                    .pointer("/output_index")
                    .help("send `response.output_item.added` with the item (type, id, status) before any event about it"),
                );
            }
            let pos = self.items.len();
            self.items.push(Item {
                output_index: i,
                id: item_id.map(str::to_string),
                at: Some((out.at_event(), ev.index)),
                ..Item::default()
            });
            self.by_index.insert(i, pos);
            // Clients hold an item there now: the next one is not a gap.
            if i >= self.next_index {
                self.next_index = i.saturating_add(1);
            }
            return Some(pos);
        };
        let it = &mut self.items[pos];
        match (item_id, it.id.as_deref()) {
            (Some(iid), Some(id)) if iid != id && !it.identity_reported => {
                it.identity_reported = true;
                let elsewhere = self.ids.get(iid).map_or(String::new(), |j| {
                    format!(" (the id of output_index {j}'s item)")
                });
                let msg = format!(
                        "`{ty}` names item_id {}{elsewhere}, but the item at output_index {i} is {}: strict clients raise on the mismatch, the others put the text in the item at output_index {i}",
                        super::text::shorten(iid, 40),
                        describe(it)
                    );
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_ITEM_IDENTITY,
                        msg,
                        out.at_pointer("/item_id", false)
                    )
                    .event(ev.index)
                    .pointer("/item_id")
                    .help("keep one id per output item, the same in every event about it"),
                );
            }
            (Some(iid), None) => it.id = Some(iid.to_string()),
            _ => {}
        }
        Some(pos)
    }

    /// `responses-item-identity` when an event's type does not fit the item
    /// it names (a text delta for a function call).
    fn check_kind(
        &mut self,
        pos: usize,
        want: &str,
        ty: &str,
        ev: &Event<'_>,
        out: &mut dyn Out,
    ) -> bool {
        let it = &mut self.items[pos];
        if it.kind.is_empty() {
            it.kind = want.to_string();
            return true;
        }
        if it.kind == want {
            return true;
        }
        if it.identity_reported {
            return false;
        }
        it.identity_reported = true;
        let msg = format!(
            "a `{ty}` event for output_index {}, whose item is {}, not a {want}: clients that check the item's type raise, the others attach the text to the wrong item",
            it.output_index,
            describe(it)
        );
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_ITEM_IDENTITY,
                msg,
                out.at_pointer("/type", false)
            )
            .event(ev.index)
            .pointer("/type"),
        );
        false
    }

    /// `responses-after-done`, once per item.
    fn late(&mut self, pos: usize, what: &str, ty: &str, ev: &Event<'_>, out: &mut dyn Out) {
        if self.terminal.is_some() {
            // `responses-after-terminal` covers everything after the end.
            return;
        }
        let it = &mut self.items[pos];
        if it.late_reported {
            return;
        }
        it.late_reported = true;
        let msg = format!(
            "a `{ty}` event arrives after {what} of output_index {} ({}): a done event is final, so clients that build the response from done events lose what comes after it, while those that add up deltas keep it",
            it.output_index,
            describe(it)
        );
        report!(
            out,
            Finding::new(crate::lint::rule::RESPONSES_AFTER_DONE, msg, out.at_event())
                .event(ev.index)
                .help("send every delta before its `.done` event, and every event of an item before `response.output_item.done`"),
        );
    }

    /// Records a full value a `.done` layer gives and compares it with the
    /// deltas or the earlier full value (`responses-delta-mismatch`).
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &mut self,
        pos: usize,
        which: Which,
        key: u64,
        kind: &str,
        value: &str,
        layer: &'static str,
        pointer: &str,
        ev: &Event<'_>,
        out: &mut dyn Out,
    ) {
        let budget: &mut Budget = &mut self.budget;
        let it = &mut self.items[pos];
        let index = it.output_index;
        let Some(p) = part_of(it, which, key) else {
            return;
        };
        if p.kind.is_empty() {
            p.kind = kind.to_string();
        }
        // Its deltas are over: the room their text grew into goes.
        p.streamed.shrink();
        let new = Acc::of(value, budget, p.pool());
        let reference = match (p.settled(), p.deltas) {
            (Some(s), _) => Some((s, p.settled_by)),
            (None, 0) => None,
            (None, _) => Some((&p.streamed, "the deltas joined")),
        };
        let differs = reference
            .filter(|(r, _)| !r.same(&new) && !p.mismatch)
            .map(|(r, by)| (by, describe_difference(r, &new), r.fingerprint()));
        if let Some((by, difference, reference)) = differs {
            p.mismatch = true;
            let what = match which {
                Which::Args => "arguments".to_string(),
                Which::Summary => format!("summary part {key}"),
                Which::Content => format!("content part {key}"),
            };
            let msg = format!(
                "{layer} for output_index {index}'s {what} differs from {by}: {difference}"
            );
            // Judged at the end: what matters is whether the final value
            // differs from what the deltas (or the earlier value) gave.
            let f = Finding::new(
                crate::lint::rule::RESPONSES_DELTA_MISMATCH,
                msg,
                out.at_pointer(pointer, false),
            )
            .event(ev.index)
            .pointer(pointer)
            .help("build each `.done` value from exactly the deltas sent before it");
            p.pending = Some(Box::new((f, reference)));
        }
        p.settle_value(new, budget);
        p.settled_by = layer;
        if p.at.is_none() {
            p.at = Some(Box::new((out.at_event(), ev.index)));
        }
    }

    /// `response.output_item.added`: `responses-output-index`, a duplicate
    /// id, the item's own fields.
    pub(super) fn on_item_added(
        &mut self,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        out.kind("item");
        let Some(i) = o.get("output_index").and_then(Value::as_u64) else {
            // `responses-missing-field` says so; the item is lost.
            self.lost += 1;
            return;
        };
        let item = o.get("item").and_then(Value::as_object);
        if let Some(item) = item {
            self.check_item(ev, item, out);
        }
        let kind = item.and_then(|m| str_of(m, "type")).unwrap_or("");
        let id = item.and_then(|m| str_of(m, "id")).filter(|s| !s.is_empty());
        self.last = format!("item {i} {kind}");
        let expected = self.next_index;
        let existing = self.by_index.get(&i).copied();
        let reused = existing.is_some_and(|p| self.items[p].added);
        // The same item (type and id) announced again: one item, announced
        // twice (a repeated event), not a second item over the first.
        let again = reused
            && existing.is_some_and(|p| {
                let it = &self.items[p];
                it.id.as_deref() == id && (kind.is_empty() || it.kind == kind)
            });
        let mut misplaced = false;
        // An item that events named before its announcement
        // (`responses-item-not-added` said so) is announced late, not out
        // of place.
        let named_before = existing.is_some_and(|p| !self.items[p].added);
        if i != expected && !named_before {
            // Observed: a reused index makes the helpers raise; a gap (or
            // an index filled in late) is read as it comes.
            let (msg, level) = if again {
                let p = existing.unwrap_or(0);
                (
                    format!(
                        "`response.output_item.added` announces output_index {i} ({}) a second time: an item is added once; clients that keep items by index raise, or start the item over",
                        describe(&self.items[p])
                    ),
                    Severity::Error,
                )
            } else if reused {
                let p = existing.unwrap_or(0);
                (
                    format!(
                        "`response.output_item.added` reuses output_index {i}, which already holds {}: items are appended (0, 1, 2, …); clients that keep items by index raise, or keep only one of the two",
                        describe(&self.items[p])
                    ),
                    Severity::Error,
                )
            } else if i < expected {
                (
                    format!(
                        "`response.output_item.added` carries output_index {i} after {}: items are appended in order (0, 1, 2, …); clients read it where the index says",
                        expected - 1
                    ),
                    Severity::Info,
                )
            } else {
                misplaced = true;
                (
                    format!(
                        "`response.output_item.added` carries output_index {i} where {expected} was next: items are appended without gaps (0, 1, 2, …); clients read it where the index says, but a gap suggests an item went missing upstream"
                    ),
                    Severity::Info,
                )
            };
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_OUTPUT_INDEX,
                    msg,
                    out.at_pointer("/output_index", false)
                )
                .event(ev.index)
                .pointer("/output_index")
                .level(level)
                .help("number output items 0, 1, 2, … in the order they are added"),
            );
        }
        if i >= self.next_index {
            self.next_index = i.saturating_add(1);
        }
        // A duplicate id across items.
        if let Some(id) = id {
            if let Some(&j) = self.ids.get(id) {
                if j != i {
                    report!(
                        out,
                        Finding::new(
                            crate::lint::rule::RESPONSES_ITEM_IDENTITY,
                            format!(
                                "output_index {i}'s item has id {}, already the id of output_index {j}'s item: clients that look items up by id raise or merge the two",
                                super::text::shorten(id, 40)
                            ),
                            out.at_pointer("/item/id", false),
                        )
                        .event(ev.index)
                        .pointer("/item/id")
                        .help("give every output item its own id"),
                    );
                }
            }
        }
        let pos = match existing {
            Some(p) if !self.items[p].added || again => p,
            _ => {
                if self.items.len() >= MAX_ITEMS {
                    self.untracked += 1;
                    if self.untracked == 1 {
                        report!(
                            out,
                            Finding::new(
                                crate::lint::rule::RESPONSES_OUTPUT_INDEX,
                                format!(
                                    "more than {MAX_ITEMS} output items: sselint checks and assembles the first {MAX_ITEMS} only; this item and the later ones are counted, not read"
                                ),
                                out.at_pointer("/output_index", false),
                            )
                            .event(ev.index)
                            .level(Severity::Info),
                        );
                    }
                    return;
                }
                self.items.push(Item {
                    output_index: i,
                    ..Item::default()
                });
                self.items.len() - 1
            }
        };
        self.by_index.insert(i, pos);
        if let Some(id) = id {
            self.ids.entry(id.to_string()).or_insert(i);
        }
        let it = &mut self.items[pos];
        it.added = true;
        it.misplaced = misplaced;
        if !kind.is_empty() {
            it.kind = kind.to_string();
        }
        if let Some(id) = id {
            it.id = Some(id.to_string());
        }
        if let Some(item) = item {
            if let Some(c) = str_of(item, "call_id").filter(|s| !s.is_empty()) {
                it.call_id = Some(c.to_string());
            }
            if let Some(n) = str_of(item, "name").filter(|s| !s.is_empty()) {
                it.name = Some(n.to_string());
            }
        }
        it.at = Some((out.at_event(), ev.index));
    }

    /// `response.output_item.done`: identity against the added item, then
    /// its content and arguments against what streamed.
    pub(super) fn on_item_done(
        &mut self,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        out.kind("item");
        let Some(item) = o.get("item").and_then(Value::as_object) else {
            return;
        };
        self.check_item(ev, item, out);
        let Some(pos) = self.scoped(ev, "response.output_item.done", o, out) else {
            return;
        };
        let kind = str_of(item, "type").unwrap_or("");
        let id = str_of(item, "id").filter(|s| !s.is_empty());
        let call_id = str_of(item, "call_id").filter(|s| !s.is_empty());
        self.last = format!("item {} done", self.items[pos].output_index);
        if self.items[pos].done {
            self.late(
                pos,
                "`response.output_item.done`",
                "response.output_item.done",
                ev,
                out,
            );
        }
        {
            let it = &mut self.items[pos];
            let mut changed = Vec::new();
            if !it.kind.is_empty() && !kind.is_empty() && it.kind != kind {
                changed.push(format!("type {} → {kind}", it.kind));
            }
            if let (Some(a), Some(b)) = (it.id.as_deref(), id) {
                if a != b {
                    changed.push(format!(
                        "id {} → {}",
                        super::text::shorten(a, 40),
                        super::text::shorten(b, 40)
                    ));
                }
            }
            if let (Some(a), Some(b)) = (it.call_id.as_deref(), call_id) {
                if a != b {
                    changed.push(format!(
                        "call_id {} → {}",
                        super::text::shorten(a, 40),
                        super::text::shorten(b, 40)
                    ));
                }
            }
            if !changed.is_empty() && !it.identity_reported {
                it.identity_reported = true;
                let msg = format!(
                    "`response.output_item.done` for output_index {} changes the item's {}: strict clients raise, the others keep two views of one item",
                    it.output_index,
                    changed.join(", ")
                );
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_ITEM_IDENTITY,
                        msg,
                        out.at_pointer("/item", false)
                    )
                    .event(ev.index)
                    .pointer("/item"),
                );
            }
            it.done = true;
            if it.kind.is_empty() {
                it.kind = kind.to_string();
            }
            if it.id.is_none() {
                it.id = id.map(str::to_string);
            }
            if it.call_id.is_none() {
                it.call_id = call_id.map(str::to_string);
            }
            if it.name.is_none() {
                it.name = str_of(item, "name")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
            }
        }
        self.settle_item(
            pos,
            item,
            "`response.output_item.done`'s item",
            "/item",
            ev,
            out,
        );
        if kind == "function_call" {
            self.items[pos].args_at = Some((out.at_pointer("/item/arguments", false), ev.index));
        }
    }

    /// Settles an item object's content, summary and arguments (from
    /// `output_item.done` or the terminal `output`).
    pub(super) fn settle_item(
        &mut self,
        pos: usize,
        item: &Map<String, Value>,
        layer: &'static str,
        at: &str,
        ev: &Event<'_>,
        out: &mut dyn Out,
    ) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        if let Some((_, Some(field))) = super::SERVER_CALLS.iter().find(|(k, _)| *k == kind) {
            if let Some(v) = item.get(*field) {
                self.items[pos].asked = Some(match v {
                    Value::String(s) => s.clone(),
                    v => v.to_string(),
                });
            }
        }
        if let Some(content) = item.get("content").and_then(Value::as_array) {
            let keys: Vec<u64> = (0..content.len())
                .map(|j| listed_key(&self.items[pos].parts, j))
                .collect();
            for ((j, c), k) in content.iter().enumerate().zip(keys) {
                if let Some((kind, key, t)) = part_text(c) {
                    let ptr = format!("{at}/content/{j}/{key}");
                    self.settle(pos, Which::Content, k, kind, t, layer, &ptr, ev, out);
                }
            }
            self.parts_beyond(
                pos,
                Which::Content,
                content.len(),
                layer,
                &format!("{at}/content"),
                ev,
                out,
            );
        }
        if let Some(summary) = item.get("summary").and_then(Value::as_array) {
            let keys: Vec<u64> = (0..summary.len())
                .map(|j| listed_key(&self.items[pos].summary, j))
                .collect();
            for ((j, c), k) in summary.iter().enumerate().zip(keys) {
                if let Some(t) = c.get("text").and_then(Value::as_str) {
                    let ptr = format!("{at}/summary/{j}/text");
                    self.settle(
                        pos,
                        Which::Summary,
                        k,
                        "summary_text",
                        t,
                        layer,
                        &ptr,
                        ev,
                        out,
                    );
                }
            }
            self.parts_beyond(
                pos,
                Which::Summary,
                summary.len(),
                layer,
                &format!("{at}/summary"),
                ev,
                out,
            );
        }
        for key in ["arguments", "input"] {
            if let Some(a) = str_of(item, key) {
                let streamed = {
                    let p = &self.items[pos].args;
                    p.deltas > 0 || p.settled.is_some()
                };
                // An in-progress item may carry its arguments empty.
                if streamed || !a.is_empty() {
                    let ptr = format!("{at}/{key}");
                    self.settle(pos, Which::Args, 0, "arguments", a, layer, &ptr, ev, out);
                }
            }
        }
    }

    /// A full item that lists fewer parts than streamed with text.
    #[allow(clippy::too_many_arguments)]
    fn parts_beyond(
        &mut self,
        pos: usize,
        which: Which,
        listed: usize,
        layer: &'static str,
        pointer: &str,
        ev: &Event<'_>,
        out: &mut dyn Out,
    ) {
        let lost = self.lost;
        let it = &mut self.items[pos];
        let index = it.output_index;
        let map = match which {
            Which::Summary => &mut it.summary,
            _ => &mut it.parts,
        };
        // The parts past the listed ones, in index order (`listed_key`).
        let extra = map
            .iter_mut()
            .skip(listed)
            .find(|(_, p)| !p.latest().is_empty() && !p.mismatch)
            .filter(|_| lost == 0);
        if let Some((k, p)) = extra {
            p.mismatch = true;
            let msg = format!(
                "{layer} for output_index {index} lists {listed} part(s), yet part {k} streamed {} characters: clients that keep the final item lose that text",
                p.latest().chars()
            );
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_DELTA_MISMATCH,
                    msg,
                    out.at_pointer(pointer, false)
                )
                .event(ev.index)
                .pointer(pointer.to_string()),
            );
        }
    }

    /// An item for `inspect`: `item 0` (its `output_index`; the adds column
    /// is narrow, and the item's id is on its `output_item.added` row).
    fn item_label(&self, pos: usize) -> String {
        format!("item {}", self.items[pos].output_index)
    }

    /// `responses-refusal`, once per stream, at the first event that shows
    /// a refusal content part: `response.content_part.added` /
    /// `response.output_item.added` / `.done` with a part of type
    /// `refusal`, or a `response.refusal.delta` / `.done`. The typed fast
    /// path takes a refusal delta only to a part announced as a refusal,
    /// which this has already seen.
    pub(super) fn note_refusal(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        if self.refusal_reported {
            return;
        }
        let is_refusal = |p: &Value| p.get("type").and_then(Value::as_str) == Some("refusal");
        let pointer = match ty {
            "response.refusal.delta" => "/delta".to_string(),
            "response.refusal.done" => "/refusal".to_string(),
            "response.content_part.added" | "response.content_part.done" => match o.get("part") {
                Some(p) if is_refusal(p) => "/part/type".to_string(),
                _ => return,
            },
            "response.output_item.added" | "response.output_item.done" => {
                let parts = o
                    .get("item")
                    .and_then(|i| i.get("content"))
                    .and_then(Value::as_array);
                match parts.and_then(|ps| ps.iter().position(is_refusal)) {
                    Some(j) => format!("/item/content/{j}/type"),
                    None => return,
                }
            }
            _ => return,
        };
        self.refusal_reported = true;
        let item = o
            .get("output_index")
            .and_then(Value::as_u64)
            .map_or_else(String::new, |i| format!("item {i} "));
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_REFUSAL,
                format!("{item}streams a refusal content part; the answer shows the refusal text, and the output text may stay empty"),
                out.at_pointer(&pointer, false),
            )
            .event(ev.index)
            .pointer(pointer)
            .help("nothing to change on the server: show the `refusal` part to the user"),
        );
    }

    /// `response.content_part.added` / `.done`.
    pub(super) fn on_content_part(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        out.kind("part");
        let Some(pos) = self.scoped(ev, ty, o, out) else {
            return;
        };
        let Some(ci) = o.get("content_index").and_then(Value::as_u64) else {
            return;
        };
        let part = o.get("part");
        let kind = part
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if self.items[pos].done {
            self.late(pos, "`response.output_item.done`", ty, ev, out);
        }
        let shown_kind = if kind.is_empty() { "(no type)" } else { kind };
        if ty.ends_with(".added") {
            self.last = format!("{} part {ci} {shown_kind} added", self.item_label(pos));
            // Parts are appended: a new part's `content_index` is the count
            // of its item's parts so far. Observed: where it skips (vLLM's
            // only part at 1), the accumulating helpers raise.
            let next = self.items[pos].parts.len() as u64;
            if ci > next && !self.items[pos].parts.contains_key(&ci) {
                let msg = format!(
                    "`response.content_part.added` carries content_index {ci} for output_index {}, which has {next} part(s): parts are appended (0, 1, …), so the item's `content` lists this one at {next}, and clients that look the part up by its content_index find none there",
                    self.items[pos].output_index
                );
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_OUTPUT_INDEX,
                        msg,
                        out.at_pointer("/content_index", false)
                    )
                    .event(ev.index)
                    .pointer("/content_index")
                    .help("number each item's parts from 0, and keep the index for every event about the part"),
                );
            }
            let at = (out.at_event(), ev.index);
            if let Some(p) = part_of(&mut self.items[pos], Which::Content, ci) {
                p.added = true;
                if !kind.is_empty() {
                    p.kind = kind.to_string();
                }
                p.at.get_or_insert_with(|| Box::new(at));
            }
            return;
        }
        self.last = match part.and_then(part_text) {
            Some((_, _, t)) => format!(
                "{} part {ci} {shown_kind} done, {} characters",
                self.item_label(pos),
                t.chars().count()
            ),
            None => format!("{} part {ci} {shown_kind} done", self.item_label(pos)),
        };
        if let Some((kind, key, t)) = part.and_then(part_text) {
            let ptr = format!("/part/{key}");
            self.settle(
                pos,
                Which::Content,
                ci,
                kind,
                t,
                "`response.content_part.done`'s part",
                &ptr,
                ev,
                out,
            );
        }
        if let Some(p) = part_of(&mut self.items[pos], Which::Content, ci) {
            p.closed = true;
            if !p.added && p.deltas == 0 {
                // Announced by its done event alone.
                p.added = true;
            }
        }
    }

    /// `response.reasoning_summary_part.added` / `.done`.
    pub(super) fn on_summary_part(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        out.kind("part");
        let Some(pos) = self.scoped(ev, ty, o, out) else {
            return;
        };
        if !self.check_kind(pos, "reasoning", ty, ev, out) {
            return;
        }
        let Some(si) = o.get("summary_index").and_then(Value::as_u64) else {
            return;
        };
        if self.items[pos].done {
            self.late(pos, "`response.output_item.done`", ty, ev, out);
        }
        let text = o
            .get("part")
            .and_then(|p| p.get("text"))
            .and_then(Value::as_str);
        self.last = match (ty.ends_with(".added"), text) {
            (true, _) => format!("{} summary part {si} added", self.item_label(pos)),
            (false, Some(t)) => format!(
                "{} summary part {si} done, {} characters",
                self.item_label(pos),
                t.chars().count()
            ),
            (false, None) => format!("{} summary part {si} done", self.item_label(pos)),
        };
        if ty.ends_with(".added") {
            let at = (out.at_event(), ev.index);
            if let Some(p) = part_of(&mut self.items[pos], Which::Summary, si) {
                p.added = true;
                p.kind = "summary_text".to_string();
                p.at.get_or_insert_with(|| Box::new(at));
            }
            return;
        }
        if let Some(t) = o
            .get("part")
            .and_then(|p| p.get("text"))
            .and_then(Value::as_str)
        {
            self.settle(
                pos,
                Which::Summary,
                si,
                "summary_text",
                t,
                "`response.reasoning_summary_part.done`'s part",
                "/part/text",
                ev,
                out,
            );
        }
        if let Some(p) = part_of(&mut self.items[pos], Which::Summary, si) {
            p.closed = true;
            p.added = true;
        }
    }

    /// A delta event: appended to its part, after the checks of order.
    pub(super) fn on_delta(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        let (which, index_key, want, part_kind, kind) = match ty {
            "response.output_text.delta" => (
                Which::Content,
                "content_index",
                "message",
                "output_text",
                "content",
            ),
            "response.refusal.delta" => (
                Which::Content,
                "content_index",
                "message",
                "refusal",
                "content",
            ),
            "response.reasoning_text.delta" => (
                Which::Content,
                "content_index",
                "reasoning",
                "reasoning_text",
                "reasoning",
            ),
            "response.reasoning_summary_text.delta" => (
                Which::Summary,
                "summary_index",
                "reasoning",
                "summary_text",
                "reasoning",
            ),
            "response.function_call_arguments.delta" => {
                (Which::Args, "", "function_call", "arguments", "tool")
            }
            "response.custom_tool_call_input.delta" => {
                (Which::Args, "", "custom_tool_call", "input", "tool")
            }
            _ => (Which::Args, "", "mcp_call", "arguments", "tool"),
        };
        out.kind(kind);
        let Some(delta) = str_of(o, "delta") else {
            return;
        };
        // What `inspect` shows; formatted only when asked for (`summary`).
        self.delta_kind = part_kind;
        self.delta_text.clear();
        if out.summaries() {
            self.delta_text.extend(delta.chars().take(61));
        }
        let Some(pos) = self.scoped(ev, ty, o, out) else {
            return;
        };
        if !self.check_kind(pos, want, ty, ev, out) {
            return;
        }
        let key = if which == Which::Args {
            0
        } else {
            let Some(k) = o.get(index_key).and_then(Value::as_u64) else {
                return;
            };
            k
        };
        let announced = self.items[pos].added;
        let (exists, late_what) = {
            let it = &self.items[pos];
            let p = match which {
                Which::Content => it.parts.get(&key).map(|p| &**p),
                Which::Summary => it.summary.get(&key).map(|p| &**p),
                Which::Args => Some(&it.args),
            };
            let late = if it.done {
                Some("`response.output_item.done`")
            } else {
                match p {
                    Some(p) if p.closed => Some("the part's done event"),
                    Some(p) if p.text_done => Some("its text's `.done` event"),
                    _ => None,
                }
            };
            (p.is_some(), late)
        };
        if let Some(what) = late_what {
            self.late(pos, what, ty, ev, out);
        }
        // Observed: the helpers keep a message's content parts and a
        // reasoning item's summary parts by index, and raise on a delta for
        // one never announced.
        let needs_part = (which == Which::Content && want == "message") || which == Which::Summary;
        if needs_part && !exists && announced && self.lost == 0 {
            let (what, event) = if which == Which::Summary {
                ("summary_index", "response.reasoning_summary_part.added")
            } else {
                ("content_index", "response.content_part.added")
            };
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_PART_NOT_ADDED,
                    format!(
                        "`{ty}` adds to {what} {key} of output_index {}, but no `{event}` announced that part: clients that keep the item's parts by index raise here",
                        self.items[pos].output_index
                    ),
                    out.at_pointer(&format!("/{what}"), false),
                )
                .event(ev.index)
                .pointer(format!("/{what}"))
                .help("announce each part (`response.content_part.added`, `response.reasoning_summary_part.added`, with the empty part) before its first delta"),
            );
        }
        self.apply_delta(pos, which, key, part_kind, delta, ev, out);
    }

    /// Adds a delta to its part (both paths: the general one above, and
    /// the typed fast path for an ordinary delta).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply_delta(
        &mut self,
        pos: usize,
        which: Which,
        key: u64,
        part_kind: &str,
        delta: &str,
        ev: &Event<'_>,
        out: &mut dyn Out,
    ) {
        // Locations are built for the first delta only: they are needed
        // by few findings, and building one costs more than the delta.
        let budget: &mut Budget = &mut self.budget;
        let it = &mut self.items[pos];
        let is_args = which == Which::Args;
        if is_args && it.args_at.is_none() {
            it.args_at = Some((out.at_event(), ev.index));
        }
        if let Some(p) = part_of(it, which, key) {
            if p.kind.is_empty() {
                p.kind = part_kind.to_string();
            }
            if part_kind == "output_text" && !delta.is_empty() {
                let repeats = p.streamed.is_repeated_by(delta);
                p.text_deltas += 1;
                p.repeat_at = (repeats && p.text_deltas >= 3)
                    .then(|| Box::new((out.at_pointer("/delta", false), ev.index)));
            }
            p.push_delta(delta, budget);
            if p.at.is_none() {
                p.at = Some(Box::new((out.at_event(), ev.index)));
            }
        }
    }

    /// A text's own `.done` event (`output_text.done`,
    /// `function_call_arguments.done`, …).
    pub(super) fn on_text_done(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        let (which, index_key, want, part_kind, field) = match ty {
            "response.output_text.done" => (
                Which::Content,
                "content_index",
                "message",
                "output_text",
                "text",
            ),
            "response.refusal.done" => (
                Which::Content,
                "content_index",
                "message",
                "refusal",
                "refusal",
            ),
            "response.reasoning_text.done" => (
                Which::Content,
                "content_index",
                "reasoning",
                "reasoning_text",
                "text",
            ),
            "response.reasoning_summary_text.done" => (
                Which::Summary,
                "summary_index",
                "reasoning",
                "summary_text",
                "text",
            ),
            "response.function_call_arguments.done" => {
                (Which::Args, "", "function_call", "arguments", "arguments")
            }
            "response.custom_tool_call_input.done" => {
                (Which::Args, "", "custom_tool_call", "input", "input")
            }
            _ => (Which::Args, "", "mcp_call", "arguments", "arguments"),
        };
        out.kind("part");
        let Some(pos) = self.scoped(ev, ty, o, out) else {
            return;
        };
        if !self.check_kind(pos, want, ty, ev, out) {
            return;
        }
        let key = if which == Which::Args {
            0
        } else {
            let Some(k) = o.get(index_key).and_then(Value::as_u64) else {
                return;
            };
            k
        };
        let late = {
            let it = &self.items[pos];
            let p = match which {
                Which::Content => it.parts.get(&key).map(|p| &**p),
                Which::Summary => it.summary.get(&key).map(|p| &**p),
                Which::Args => Some(&it.args),
            };
            if it.done {
                Some("`response.output_item.done`")
            } else if p.is_some_and(|p| p.closed) {
                Some("the part's done event")
            } else if p.is_some_and(|p| p.text_done) {
                Some("an earlier `.done` event of the same text")
            } else {
                None
            }
        };
        if let Some(what) = late {
            self.late(pos, what, ty, ev, out);
        }
        if let Some(value) = str_of(o, field) {
            let layer: &'static str = match ty {
                "response.output_text.done" => "`response.output_text.done`'s text",
                "response.refusal.done" => "`response.refusal.done`'s refusal",
                "response.reasoning_text.done" => "`response.reasoning_text.done`'s text",
                "response.reasoning_summary_text.done" => {
                    "`response.reasoning_summary_text.done`'s text"
                }
                "response.function_call_arguments.done" => {
                    "`response.function_call_arguments.done`'s arguments"
                }
                "response.custom_tool_call_input.done" => {
                    "`response.custom_tool_call_input.done`'s input"
                }
                _ => "`response.mcp_call_arguments.done`'s arguments",
            };
            let ptr = format!("/{field}");
            self.settle(pos, which, key, part_kind, value, layer, &ptr, ev, out);
        }
        let it = &mut self.items[pos];
        if which == Which::Args {
            it.args_at = Some((out.at_pointer(&format!("/{field}"), false), ev.index));
            if it.name.is_none() {
                it.name = str_of(o, "name")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
            }
        }
        if let Some(p) = part_of(it, which, key) {
            p.text_done = true;
            if p.deltas == 0 {
                p.added = true;
            }
        }
        self.last = format!("{part_kind} done");
    }

    /// Whole-stream item rules: `responses-not-done` and
    /// `responses-arguments-json`.
    pub(super) fn finish_items(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) {
        // `responses-delta-mismatch`: an error when the final value (the
        // done item, the last done event) differs from what it first
        // differed from, as clients that keep the final value and clients
        // that add up deltas then disagree; info when a later done event
        // restored it (only readers of the odd done event see it).
        for it in &mut self.items {
            for p in it
                .parts
                .values_mut()
                .chain(it.summary.values_mut())
                .map(|p| &mut **p)
                .chain(std::iter::once(&mut it.args))
            {
                let Some((mut f, reference)) = p.pending.take().map(|b| *b) else {
                    continue;
                };
                // A lost event (a delta, a done event) explains it; so does
                // a delta that came after the done event
                // (`responses-after-done`) when the final value is the
                // deltas joined.
                if self.lost > 0
                    || (it.late_reported && p.deltas > 0 && p.latest().same(&p.streamed))
                {
                    continue;
                }
                if p.latest().fingerprint() == reference {
                    f.message.push_str(
                        "; the final value agrees with it again, so only readers of this done event see the difference",
                    );
                    f = f.level(Severity::Info);
                } else {
                    f.message.push_str(
                        "; clients that keep the final value and clients that add up deltas end with different answers",
                    );
                }
                report!(out, f);
            }
        }
        // `responses-repeated-answer`: a part's last delta that repeats all
        // its text before it (the `.done` event's whole text is not a delta).
        for it in &self.items {
            for (ci, p) in &it.parts {
                if let Some(at) = &p.repeat_at {
                    let (loc, ev) = (**at).clone();
                    report!(
                        out,
                        Finding::new(
                            crate::lint::rule::RESPONSES_REPEATED_ANSWER,
                            format!(
                                "the last `response.output_text.delta` of output_index {} content_index {ci} repeats the whole text of the deltas before it: clients that append deltas show the text twice, while the `.done` event and the final output hold it once",
                                it.output_index
                            ),
                            loc,
                        )
                        .event(ev)
                        .help("send only the new text in each `response.output_text.delta`"),
                    );
                }
            }
        }
        // A response that ended normally; an incomplete one may leave its
        // last item open (`responses-incomplete` says it was cut short).
        let finished = self
            .terminal
            .as_ref()
            .is_some_and(|t| t.ty != "response.failed" && !t.incomplete)
            && !self.errored;
        // A lost event may have been the done event.
        if finished && self.lost == 0 {
            let mut open_items = 0u64;
            let mut open_parts = 0u64;
            let mut open_texts = 0u64;
            // A message item never done: an agent app that takes each
            // message from its `response.output_item.done` shows no text
            // (observed: this rule's example #1).
            let mut open_message = false;
            let mut first: Option<(super::At, String)> = None;
            for it in self.items.iter().filter(|i| i.added && !i.from_output) {
                if !it.done {
                    open_items += 1;
                    open_message |= it.kind == "message";
                    if first.is_none() {
                        if let Some(at) = &it.at {
                            first = Some((
                                at.clone(),
                                format!(
                                    "output_index {} ({}) never got `response.output_item.done`",
                                    it.output_index,
                                    describe(it)
                                ),
                            ));
                        }
                    }
                }
                for (k, p) in it.parts.iter().chain(it.summary.iter()) {
                    if !p.added {
                        continue;
                    }
                    let is_summary = p.kind == "summary_text";
                    if !p.closed && (p.kind == "output_text" || p.kind == "refusal" || is_summary) {
                        open_parts += 1;
                        if first.is_none() {
                            if let Some(at) = &p.at {
                                first = Some((
                                    (**at).clone(),
                                    format!(
                                        "output_index {}'s {} part {k} never got its `{}`",
                                        it.output_index,
                                        if is_summary { "summary" } else { "content" },
                                        if is_summary {
                                            "response.reasoning_summary_part.done"
                                        } else {
                                            "response.content_part.done"
                                        }
                                    ),
                                ));
                            }
                        }
                    }
                    if p.deltas > 0 && !p.text_done {
                        open_texts += 1;
                        if first.is_none() {
                            if let Some(at) = &p.at {
                                first = Some((
                                    (**at).clone(),
                                    format!(
                                        "output_index {}'s part {k} streamed deltas but never got its text's `.done` event",
                                        it.output_index
                                    ),
                                ));
                            }
                        }
                    }
                }
                if it.args.deltas > 0 && !it.args.text_done {
                    open_texts += 1;
                    if first.is_none() {
                        if let Some(at) = &it.args.at {
                            first = Some((
                                (**at).clone(),
                                format!(
                                    "output_index {}'s arguments streamed but never got `response.function_call_arguments.done`",
                                    it.output_index
                                ),
                            ));
                        }
                    }
                }
            }
            if let Some(((loc, index), what)) = first {
                let mut counts = Vec::new();
                if open_items > 0 {
                    counts.push(format!("{open_items} item(s) not done"));
                }
                if open_parts > 0 {
                    counts.push(format!("{open_parts} part(s) not done"));
                }
                if open_texts > 0 {
                    counts.push(format!("{open_texts} text(s) without their `.done` event"));
                }
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_NOT_DONE,
                        format!(
                            "{what} before the response ended ({}): clients that act on done events (to show a finished message, to run a tool call) never do{}",
                            counts.join(", "),
                            if open_message {
                                "; a client that takes each message from its `response.output_item.done` shows no text"
                            } else {
                                ""
                            }
                        ),
                        loc,
                    )
                    .event(index)
                    .level(if open_message { Severity::Error } else { Severity::Info })
                    .help("close everything you open: every `.added` gets its `.done`, every streamed text its `.done` event, before the terminal event"),
                );
            }
        }
        // Text or arguments that arrive only whole, in done events.
        let mut only_done = 0u64;
        let mut first_only: Option<(super::At, String)> = None;
        for it in self.items.iter().filter(|i| i.added && !i.from_output) {
            let parts: Vec<(&Part, String)> = match it.kind.as_str() {
                "message" => it
                    .parts
                    .iter()
                    .filter(|(_, p)| p.kind == "output_text" || p.kind == "refusal")
                    .map(|(k, p)| (&**p, format!("content part {k}")))
                    .collect(),
                "function_call" => vec![(&it.args, "arguments".to_string())],
                _ => Vec::new(),
            };
            for (p, what) in parts {
                let whole = p.settled().is_some_and(|s| !s.is_empty());
                if p.deltas == 0 && whole {
                    only_done += 1;
                    if first_only.is_none() {
                        let at =
                            p.at.as_deref()
                                .cloned()
                                .or_else(|| it.at.clone())
                                .unwrap_or_else(|| (out.at_end(), None));
                        first_only = Some((
                            at,
                            format!(
                                "output_index {}'s {what} ({})",
                                it.output_index,
                                describe(it)
                            ),
                        ));
                    }
                }
            }
        }
        // Lost deltas leave only the done value: that is their finding's.
        if let Some(((loc, index), what)) = first_only.filter(|_| self.lost == 0) {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_DONE_ONLY,
                    format!(
                        "{only_done} text(s) or argument(s) arrive only whole, in their done events, with no delta, the first {what}: clients that build the answer from deltas, as the streaming guides show, get none of it; those that read done events or the final response get it"
                    ),
                    loc,
                )
                .event(index)
                .help("stream every text and argument string as deltas before its done event, even in one piece"),
            );
        }
        // Function-call arguments that do not parse.
        let cut = self.terminal.is_none() || end.damaged;
        let mut found = Vec::new();
        for it in self.items.iter().filter(|i| i.kind == "function_call") {
            if cut && !it.done {
                continue;
            }
            let a = it.args.latest();
            if !a.is_whole() || (self.lost > 0 && it.args.settled.is_none()) {
                continue;
            }
            // Judged without building the value; parsed again for the
            // error only when it fails.
            if crate::model::valid::is_json(&a.kept) {
                continue;
            }
            if let Err(e) = serde_json::from_str::<Value>(&a.kept) {
                let why = if a.kept.trim().is_empty() {
                    "they are empty".to_string()
                } else {
                    let m = crate::model::json_error(&e);
                    format!("{m}: {:?}", super::text::shorten(&a.kept, 80))
                };
                let at = it
                    .args_at
                    .clone()
                    .or_else(|| it.at.clone())
                    .unwrap_or_else(|| (out.at_end(), None));
                found.push((
                    at,
                    format!(
                        "the arguments of function call {}{} (output_index {}) are not valid JSON ({why}): the tool cannot be run with them",
                        it.name.as_deref().unwrap_or("(no name)"),
                        it.call_id
                            .as_deref()
                            .map_or(String::new(), |c| format!(" ({})", super::text::shorten(c, 40))),
                        it.output_index
                    ),
                ));
            }
        }
        // Arguments cut by an output budget: the same failure for the
        // client, but the response already says it is incomplete.
        let truncated = self.terminal.as_ref().is_some_and(|t| t.incomplete);
        for ((loc, index), msg) in found {
            let mut f = Finding::new(crate::lint::rule::RESPONSES_ARGUMENTS_JSON, msg, loc)
                .event(index)
                .help("stream the arguments as fragments of one JSON object, and send it whole in the `.done` events");
            if truncated {
                f = f.level(Severity::Warning);
            }
            report!(out, f);
        }
    }
}
