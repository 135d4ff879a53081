//! `responses-output-mismatch`: the terminal response's `output` against
//! the items as streamed (matched by id, then by position), and the items
//! only the output holds, which join the model.

use super::items::{describe, part_text};
use super::text::{describe_difference, Acc, Budget, Pool};
use super::{str_of, Checker, Item, MAX_ITEMS};
use crate::dialect::{Event, Out};
use crate::lint::Finding;
use serde_json::{Map, Value};

impl Checker {
    /// `responses-output-mismatch`: the terminal response's `output`
    /// against the items streamed. Items only the output holds are added to
    /// the model (the answer includes them).
    pub(super) fn compare_output(
        &mut self,
        ev: &Event<'_>,
        r: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        let Some(output) = r.get("output").and_then(Value::as_array) else {
            return;
        };
        let streamed: Vec<u64> = self
            .by_index
            .iter()
            .filter(|(_, p)| !self.items[**p].from_output)
            .map(|(i, _)| *i)
            .collect();
        let ty = ev
            .json
            .and_then(|v| v.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("the terminal event");
        if output.is_empty() {
            if !streamed.is_empty() {
                let chars = self.streamed_chars();
                let calls = self.calls();
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_OUTPUT_MISMATCH,
                        format!(
                            "`{ty}` carries `output: []`, yet {} output item(s) streamed ({chars} characters of text, {calls} function call(s)): clients that take the final response get an empty answer, those that add up deltas the full one",
                            streamed.len()
                        ),
                        out.at_pointer("/response/output", false),
                    )
                    .event(ev.index)
                    .pointer("/response/output")
                    .help("put every output item, complete, in the terminal response's `output`"),
                );
            }
            return;
        }
        let mut first: Option<(String, String)> = None;
        let note = |first: &mut Option<(String, String)>, p: String, m: String| {
            if first.is_none() {
                *first = Some((p, m));
            }
        };
        let mut only_in_output = Vec::new();
        let mut matched = vec![false; self.items.len()];
        for (i, entry) in output.iter().enumerate() {
            let Some(e) = entry.as_object() else {
                continue;
            };
            let i = i as u64;
            let ety = str_of(e, "type").unwrap_or("");
            // The streamed item this entry stands for: by id, else by
            // position (an item may lack an id, a gap may shift positions).
            let by_id = str_of(e, "id").and_then(|id| {
                self.items
                    .iter()
                    .position(|it| !it.from_output && it.id.as_deref() == Some(id))
            });
            let by_position = self
                .by_index
                .get(&i)
                .copied()
                .filter(|p| !self.items[*p].from_output && !matched[*p]);
            let Some(pos) = by_id.or(by_position) else {
                if self.untracked == 0 {
                    note(
                        &mut first,
                        format!("/response/output/{i}"),
                        format!("output[{i}] (a {ety} item) was never streamed: clients that read the events miss it"),
                    );
                    only_in_output.push(i);
                }
                continue;
            };
            matched[pos] = true;
            let it = &self.items[pos];
            if !it.kind.is_empty() && !ety.is_empty() && it.kind != ety {
                note(
                    &mut first,
                    format!("/response/output/{i}/type"),
                    format!("output[{i}] is a {ety} item, but the item streamed as output_index {} is {}", it.output_index, describe(it)),
                );
            }
            if let (Some(a), Some(b)) = (it.id.as_deref(), str_of(e, "id")) {
                if a != b {
                    note(
                        &mut first,
                        format!("/response/output/{i}/id"),
                        format!(
                            "output[{i}] has id {}, the item streamed as output_index {} has {}",
                            super::text::shorten(b, 40),
                            it.output_index,
                            super::text::shorten(a, 40)
                        ),
                    );
                }
            }
            let mut budget = Budget::of(usize::MAX);
            if let Some(content) = e.get("content").and_then(Value::as_array) {
                for (j, c) in content.iter().enumerate() {
                    let Some((_, key, t)) = part_text(c) else {
                        continue;
                    };
                    let got = Acc::of(t, &mut budget, Pool::Other);
                    match it.parts.get(&super::items::listed_key(&it.parts, j)) {
                        Some(p) if !p.latest().same(&got) => note(
                            &mut first,
                            format!("/response/output/{i}/content/{j}/{key}"),
                            format!(
                                "output[{i}].content[{j}].{key} differs from what streamed: {}",
                                describe_difference(p.latest(), &got)
                            ),
                        ),
                        None if !t.is_empty() => note(
                            &mut first,
                            format!("/response/output/{i}/content/{j}"),
                            format!(
                                "output[{i}].content[{j}] holds {} characters that never streamed",
                                got.chars()
                            ),
                        ),
                        _ => {}
                    }
                }
                if let Some((k, p)) = it
                    .parts
                    .iter()
                    .skip(content.len())
                    .find(|(_, p)| !p.latest().is_empty())
                {
                    note(
                        &mut first,
                        format!("/response/output/{i}/content"),
                        format!(
                            "output[{i}] lists {} content part(s), yet part {k} streamed {} characters",
                            content.len(),
                            p.latest().chars()
                        ),
                    );
                }
            }
            if let Some(a) = str_of(e, "arguments") {
                let got = Acc::of(a, &mut budget, Pool::Other);
                let p = &it.args;
                if (p.deltas > 0 || p.settled.is_some()) && !p.latest().same(&got) {
                    note(
                        &mut first,
                        format!("/response/output/{i}/arguments"),
                        format!(
                            "output[{i}].arguments differs from what streamed: {}",
                            describe_difference(p.latest(), &got)
                        ),
                    );
                }
            }
        }
        let missing: Vec<u64> = self
            .items
            .iter()
            .enumerate()
            .filter(|(p, it)| !it.from_output && !matched[*p] && (it.added || it.done))
            .map(|(_, it)| it.output_index)
            .collect();
        if !missing.is_empty() {
            note(
                &mut first,
                "/response/output".to_string(),
                format!(
                    "`output` lists {} item(s) and leaves out {} that streamed (output_index {})",
                    output.len(),
                    missing.len(),
                    missing
                        .iter()
                        .take(5)
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        // An event the model lost (unreadable, no index) explains a
        // difference: its finding is the cause.
        if let Some((pointer, what)) = first.filter(|_| self.lost == 0) {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_OUTPUT_MISMATCH,
                    format!(
                        "`{ty}`'s response disagrees with the stream: {what}; clients that take the final response and clients that add up the events end with different answers"
                    ),
                    out.at_pointer(&pointer, false),
                )
                .event(ev.index)
                .pointer(pointer)
                .help("make the terminal response's `output` the items exactly as streamed"),
            );
        }
        // The items only the output holds join the model.
        for i in only_in_output {
            if self.items.len() >= MAX_ITEMS {
                break;
            }
            let Some(e) = output.get(i as usize).and_then(Value::as_object) else {
                continue;
            };
            let pos = self.items.len();
            self.items.push(Item {
                output_index: i,
                kind: str_of(e, "type").unwrap_or("").to_string(),
                id: str_of(e, "id").map(str::to_string),
                call_id: str_of(e, "call_id").map(str::to_string),
                name: str_of(e, "name").map(str::to_string),
                from_output: true,
                done: true,
                ..Item::default()
            });
            self.by_index.insert(i, pos);
            let mut quiet = Quiet(out);
            self.settle_item(
                pos,
                e,
                "the terminal response's output",
                "/response/output",
                ev,
                &mut quiet,
            );
        }
    }
}

/// An [`Out`] that locates like `out` but reports nothing (the model
/// settles items from the terminal output without judging them twice).
struct Quiet<'a>(&'a mut dyn Out);

impl Out for Quiet<'_> {
    fn report(&mut self, _f: Finding) {}
    fn at_event(&self) -> crate::lint::Location {
        self.0.at_event()
    }
    fn at_pointer(&self, pointer: &str, key: bool) -> crate::lint::Location {
        self.0.at_pointer(pointer, key)
    }
    fn at_name(&self) -> crate::lint::Location {
        self.0.at_name()
    }
    fn at_end(&self) -> crate::lint::Location {
        self.0.at_end()
    }
    fn kind(&mut self, _kind: &'static str) {}
    fn muted(&mut self, _rule: &'static str) -> bool {
        true
    }
    fn profile(&self) -> &'static str {
        self.0.profile()
    }
    fn allowed(&self, pointer: &str) -> bool {
        self.0.allowed(pointer)
    }
}
