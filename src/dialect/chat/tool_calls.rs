//! Tool-call rules: `tool-call-index`, `tool-call-start`,
//! `tool-call-id-repeated`, `tool-call-index-reused` (per fragment) and
//! `tool-call-arguments`, `tool-calls-finish` (at the end). Source:
//! OpenAI's `ChatCompletionMessageToolCallChunk`; stream accumulators merge
//! fragments by `index` and concatenate `arguments` (what each observed
//! client does with the other fields is in `rules/observed.json`).

use super::{Checker, ToolTrack};
use crate::dialect::Out;
use crate::lint::Finding;
use crate::model::shorten;
use serde_json::Value;

impl Checker {
    pub(super) fn check_tool_calls(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        choice: u64,
        base: &str,
        calls: &[Value],
    ) {
        // Calls started earlier in this chunk: the answer applies the chunk
        // only after these checks, and parallel calls written under one
        // index in a single chunk are a reused index too.
        let mut in_chunk: Vec<(u64, Option<String>)> = Vec::new();
        for (pos, call) in calls.iter().enumerate() {
            let ptr = format!("{base}/delta/tool_calls/{pos}");
            let Some(obj) = call.as_object() else {
                continue; // schema reports the type
            };
            let tidx = match obj.get("index").and_then(Value::as_u64) {
                Some(i) => i,
                None => {
                    let what = match obj.get("index") {
                        None => "has no `index`".to_string(),
                        Some(v) => format!(
                            "has `index` {} instead of an integer",
                            shorten(&crate::model::value_text(v), 40)
                        ),
                    };
                    // One cause, one finding: reported at the first fragment.
                    if self
                        .chat
                        .reported_fields
                        .insert("tool-call-index:bad-index".to_string())
                    {
                        let loc = out.at_pointer(&ptr, false);
                        out.report(
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_INDEX,
                                format!("a tool-call delta {what}: accumulators merge fragments by index, so this one cannot be placed (assembled here by its array position {pos}; reported at its first fragment, later ones are not repeated)"),
                                loc,
                            )
                            .event(index)
                            .pointer(format!("{ptr}/index")),
                        );
                    }
                    pos as u64
                }
            };
            let id = obj
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            let kind = obj
                .get("type")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            let is_empty = |v: Option<&Value>| v.and_then(Value::as_str) == Some("");
            let empties: Vec<&str> = [
                ("id", obj.get("id")),
                ("type", obj.get("type")),
                (
                    "function.name",
                    obj.get("function").and_then(|f| f.get("name")),
                ),
            ]
            .into_iter()
            .filter(|(_, v)| is_empty(*v))
            .map(|(n, _)| n)
            .collect();
            let name = obj
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            // Absent, null or "" counts as missing; a value of the wrong
            // type is there (the schema rule names its type).
            let given =
                |v: Option<&Value>| v.is_some_and(|v| !v.is_null() && v.as_str() != Some(""));
            let args_wrong_type = obj
                .get("function")
                .and_then(|f| f.get("arguments"))
                .is_some_and(|a| !a.is_string() && !a.is_null());
            let has_id = given(obj.get("id"));
            let has_kind = given(obj.get("type"));
            let has_name = given(obj.get("function").and_then(|f| f.get("name")));
            // Only the call's id is needed: never clone its arguments (they
            // grow with every fragment).
            let existing = self
                .answer
                .choices
                .get(&choice)
                .and_then(|c| c.tool_calls.get(&tidx))
                .map(|t| t.id.clone())
                .or_else(|| {
                    in_chunk
                        .iter()
                        .find(|(i, _)| *i == tidx)
                        .map(|(_, id)| id.clone())
                });
            if !in_chunk.iter().any(|(i, _)| *i == tidx) {
                in_chunk.push((tidx, id.map(str::to_string)));
            }
            match existing {
                None => {
                    let mut missing = Vec::new();
                    if !has_id {
                        missing.push("id");
                    }
                    if !has_kind {
                        missing.push("type");
                    }
                    if !has_name {
                        missing.push("function.name");
                    }
                    let loc = out.at_pointer(&ptr, false);
                    if !missing.is_empty() {
                        out.report(
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_START,
                                format!(
                                    "the first fragment of tool call {tidx} lacks {}: clients build the call from its first fragment and end up without them",
                                    missing.join(", ")
                                ),
                                loc.clone(),
                            )
                            .event(index)
                            .pointer(ptr.clone()),
                        );
                    }
                    self.chat.choices.entry(choice).or_default().tools.insert(
                        tidx,
                        ToolTrack {
                            first_loc: loc,
                            first_event: index,
                            repeated_reported: false,
                            reused: false,
                            args_wrong_type,
                        },
                    );
                }
                Some(prev) => {
                    if args_wrong_type {
                        let t = self.chat.choices.entry(choice).or_default();
                        t.tools.entry(tidx).or_default().args_wrong_type = true;
                    }
                    let new_call = id.is_some_and(|i| prev.as_deref().is_some_and(|p| p != i));
                    let track = self
                        .chat
                        .choices
                        .entry(choice)
                        .or_default()
                        .tools
                        .entry(tidx)
                        .or_default();
                    if new_call {
                        track.reused = true;
                        if !track.repeated_reported {
                            track.repeated_reported = true;
                            let loc = out.at_pointer(&format!("{ptr}/id"), false);
                            out.report(
                                Finding::new(
                                    crate::lint::rule::TOOL_CALL_INDEX_REUSED,
                                    format!(
                                        "a new tool call (id {:?}) is written under index {tidx}, which already holds call {:?}: accumulators merge the two into one call with garbled arguments",
                                        shorten(id.unwrap_or(""), 40),
                                        shorten(prev.as_deref().unwrap_or(""), 40)
                                    ),
                                    loc,
                                )
                                .event(index)
                                .pointer(format!("{ptr}/index")),
                            );
                        }
                    } else if (id.is_some()
                        || kind.is_some()
                        || name.is_some()
                        || !empties.is_empty())
                        && !track.repeated_reported
                    {
                        track.repeated_reported = true;
                        let mut rep = Vec::new();
                        if id.is_some() {
                            rep.push("id");
                        }
                        if name.is_some() {
                            rep.push("function.name");
                        }
                        let loc = out.at_pointer(&ptr, false);
                        // Three causes, three levels, as the clients showed
                        // (rules/observed.json): a repeated id or name is
                        // concatenated; empty strings break an accumulator
                        // that checks the type; `type` alone is overwritten.
                        let finding = if !rep.is_empty() {
                            if kind.is_some_and(|k| !k.is_empty()) {
                                rep.insert(1.min(rep.len()), "type");
                            }
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_ID_REPEATED,
                                format!(
                                    "a continuation fragment of tool call {tidx} repeats {}: accumulators that concatenate string fields build ids and names like \"call_1call_1\"",
                                    rep.join(", ")
                                ),
                                loc,
                            )
                        } else if empties.contains(&"type") {
                            // Observed: an empty `type` makes an accumulator
                            // that checks the type raise
                            // (tool-call-id-repeated#4).
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_ID_REPEATED,
                                format!(
                                    "a continuation fragment of tool call {tidx} carries empty strings for {}: an accumulator that checks the accumulated type raises on the empty `type`; leave the keys out",
                                    empties.join(", ")
                                ),
                                loc,
                            )
                            .level(crate::lint::Severity::Error)
                        } else if !empties.is_empty() {
                            // Observed: an empty id alone appends nothing
                            // (tool-call-id-repeated#5, a Qwen stream's shape).
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_ID_REPEATED,
                                format!(
                                    "a continuation fragment of tool call {tidx} carries empty strings for {}: accumulators append nothing, so the call is unchanged; leave the keys out",
                                    empties.join(", ")
                                ),
                                loc,
                            )
                            .level(crate::lint::Severity::Info)
                        } else {
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_ID_REPEATED,
                                format!(
                                    "a continuation fragment of tool call {tidx} repeats only `type`; accumulators keep one type, so the call is unchanged"
                                ),
                                loc,
                            )
                            .level(crate::lint::Severity::Info)
                        };
                        out.report(finding.event(index).pointer(ptr.clone()));
                    }
                }
            }
        }
    }

    /// End-of-stream tool-call rules.
    pub(super) fn finish_tool_calls(&mut self, out: &mut dyn Out, cut: bool) {
        let mut findings = Vec::new();
        for (ci, c) in &self.answer.choices {
            let track = self.chat.choices.get(ci);
            if !cut {
                for (ti, tc) in &c.tool_calls {
                    let tt = track.and_then(|t| t.tools.get(ti));
                    if tt.is_some_and(|t| t.reused || t.args_wrong_type) {
                        // Reported already, as tool-call-index-reused or
                        // schema: one root cause, one finding.
                        continue;
                    }
                    let (loc, ev) = tt
                        .map(|t| (t.first_loc.clone(), t.first_event))
                        .unwrap_or_default();
                    let name = tc.name.as_deref().unwrap_or("unnamed");
                    if tc.arguments.is_empty() {
                        findings.push(
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_ARGUMENTS,
                                format!(
                                    "tool call {ti} ({name}) has empty arguments: parsing \"\" as JSON fails in every client (json.loads, JSON.parse); a call without parameters sends \"{{}}\""
                                ),
                                loc,
                            )
                            .level(crate::lint::Severity::Warning)
                            .event(ev),
                        );
                    } else if let Err(e) = serde_json::from_str::<Value>(&tc.arguments) {
                        findings.push(
                            Finding::new(
                                crate::lint::rule::TOOL_CALL_ARGUMENTS,
                                format!(
                                    "the assembled arguments of tool call {ti} ({name}) are not valid JSON ({}): {:?}",
                                    if crate::model::too_deep(&e) {
                                        crate::model::json_error(&e)
                                    } else {
                                        e.to_string()
                                    },
                                    shorten(&tc.arguments, 120)
                                ),
                                loc,
                            )
                            .event(ev),
                        );
                    }
                }
            }
            let loc = track
                .and_then(|t| t.finish_loc.clone())
                .or_else(|| track.and_then(|t| t.first_loc.clone()))
                .unwrap_or_default();
            match c.finish_reason.as_deref() {
                Some("stop") if !c.tool_calls.is_empty() => findings.push(Finding::new(
                    crate::lint::rule::TOOL_CALLS_FINISH,
                    format!(
                        "choice {ci} streamed {} tool call(s) but finished with \"stop\": clients that run tools only on \"tool_calls\" ignore them",
                        c.tool_calls.len()
                    ),
                    loc,
                )),
                Some("tool_calls") if c.tool_calls.is_empty() => findings.push(Finding::new(
                    crate::lint::rule::TOOL_CALLS_FINISH,
                    format!("choice {ci} finished with \"tool_calls\" but streamed no tool call"),
                    loc,
                )),
                _ => {}
            }
        }
        for f in findings {
            out.report(f);
        }
    }
}
