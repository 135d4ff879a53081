//! The field rules of a Responses stream: required fields per event type
//! (and of the Response object and of output items), unknown fields, event
//! types outside the union, and the SSE framing of each event (`event:`
//! name against the data's type, `id:` lines).

use super::events::{
    allowed, Kind, Need, Spec, RESPONSE_FIELDS, RESPONSE_REQUIRED, RESPONSE_VALIDATED,
    RESPONSE_WALKED, TOLERATED,
};
use super::{json_type, literal, Checker};
use crate::dialect::{Dialect, Event, Out};
use crate::lint::profile::{profiles, Profile};
use crate::lint::{Finding, Severity};
use serde_json::{Map, Value};

/// The Responses profiles that list event type `ty`.
fn providers_of_event(ty: &str) -> Vec<&'static Profile> {
    profiles()
        .iter()
        .filter(|p| p.dialect == Dialect::Responses)
        .filter(|p| p.events.iter().any(|e| e == ty))
        .collect()
}

fn level(need: Need) -> Severity {
    match need {
        Need::Walked => Severity::Error,
        Need::Shape => Severity::Warning,
        Need::Leaf => Severity::Info,
    }
}

/// What a missing field of this need does to clients.
fn consequence(need: Need) -> &'static str {
    match need {
        Need::Walked => "helpers that assemble the response find the item, part or text through it, and raise without it",
        Need::Shape => "the schema requires it; no client of the record has been run on this shape yet, so sselint keeps the rule's default level",
        Need::Leaf => "the schema requires it, but OpenAI's own examples or older servers leave it out, and clients read on",
    }
}

/// Fields an event over a WebSocket may carry besides the SSE event's:
/// `stream_id` on every event, and on `error` its `status` (and Codex's
/// spelling `status_code`) and the multi-agent beta's `agent` (shared
/// reference transports.md §1.3).
fn socket_field(ty: &str, field: &str) -> bool {
    field == "stream_id" || (ty == "error" && matches!(field, "status" | "status_code" | "agent"))
}

impl Checker {
    /// The required fields of a known event type, and its unknown fields.
    pub(super) fn check_fields(
        &mut self,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        spec: &Spec,
        out: &mut dyn Out,
    ) {
        for (f, kind, need) in spec.required {
            let (what, bad) = match o.get(*f) {
                None => ("is missing".to_string(), false),
                Some(v) if !kind.fits(v) => (
                    format!("is {} ({}), not {}", literal(v), json_type(v), kind.name()),
                    true,
                ),
                Some(_) => continue,
            };
            // A leaf left out is a server's habit, and a walked field with
            // a value of the wrong kind (an index past 2^64) one fault
            // whichever events repeat it: once per stream.
            let per_stream = *need == Need::Leaf || bad;
            let key = if per_stream {
                format!("missing:*:{f}")
            } else {
                format!("missing:{}:{f}", spec.ty)
            };
            if !self.first(key) {
                continue;
            }
            let pointer = format!("/{f}");
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_MISSING_FIELD,
                    format!(
                        "`{}`: `{f}` {what}: {} (reported once per {})",
                        spec.ty,
                        consequence(*need),
                        if per_stream { "stream" } else { "event type" }
                    ),
                    out.at_pointer(&pointer, false),
                )
                .event(ev.index)
                .pointer(pointer)
                .level(level(*need)),
            );
        }
        for k in o.keys() {
            if !(allowed(spec, k) || (self.socket && socket_field(spec.ty, k))) {
                self.unknown_field(ev, spec.ty, k, &format!("/{k}"), out);
            }
        }
    }

    /// `responses-unknown-field` for `field` at `pointer`, once per event
    /// type and field; known provider fields name their provider, and are
    /// not reported under that provider's profile.
    fn unknown_field(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        field: &str,
        pointer: &str,
        out: &mut dyn Out,
    ) {
        let who = crate::lint::profile::providers_of(Dialect::Responses, pointer);
        if who.iter().any(|p| p.name == out.profile()) || out.allowed(pointer) {
            return;
        }
        if !self.first(format!("unknown:{ty}:{field}")) {
            return;
        }
        let shown = super::text::shorten(field, 60);
        let msg = if who.is_empty() {
            format!(
                "`{ty}` carries `{shown}`, a field the Responses schema does not list: clients read past it (unknown fields are a policy question, not a spec violation; reported once per event type)"
            )
        } else {
            // A field several providers send names them all, and each
            // one's profile (Azure OpenAI and Ollama both echo the
            // request's penalties).
            let names: Vec<&str> = who.iter().map(|p| p.name.as_str()).collect();
            format!(
                "`{ty}` carries `{shown}`, a field {} {} (see `--profile {}`): clients read past it",
                crate::lint::profile::provider_list(&who),
                if who.len() == 1 { "adds" } else { "add" },
                names.join("` or `--profile ")
            )
        };
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_UNKNOWN_FIELD,
                msg,
                out.at_pointer(pointer, true)
            )
            .event(ev.index)
            .pointer(pointer.to_string())
            .help("allow it with `allow-fields` in sselint.toml, or with the provider's profile"),
        );
    }

    /// The Response object of a lifecycle or terminal event: `output`, the
    /// other required fields, unknown fields.
    pub(super) fn check_response(
        &mut self,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        terminal: bool,
        out: &mut dyn Out,
    ) {
        let Some(r) = o.get("response").and_then(Value::as_object) else {
            return;
        };
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
        for (f, kind) in RESPONSE_WALKED {
            let what = match r.get(*f) {
                None => "is missing".to_string(),
                Some(v) if !kind.fits(v) => {
                    format!("is {} ({}), not {}", literal(v), json_type(v), kind.name())
                }
                Some(_) => continue,
            };
            if !self.first(format!("missing:{ty}:response.{f}")) {
                continue;
            }
            let pointer = format!("/response/{f}");
            // Observed (rules/observed.json, responses-missing-field#3): a
            // client that iterates the terminal response's `output` raises.
            let (lvl, why) = if terminal {
                (
                    Severity::Error,
                    "clients that keep the items they built from the events read on, but a client that iterates the final response's `output` raises (decolua/9router#705)",
                )
            } else {
                // Observed (responses-missing-field#6, llama.cpp's shape):
                // every client of the record reads on until the final
                // response.
                (
                    Severity::Info,
                    "the clients of the record read on (the table); the final response must carry the items",
                )
            };
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_MISSING_FIELD,
                    format!("`{ty}`: `response.{f}` {what}: {why}"),
                    out.at_pointer(&pointer, false),
                )
                .event(ev.index)
                .pointer(pointer)
                .level(lvl),
            );
        }
        // Observed (responses-missing-field#7, llama.cpp's shape): a client
        // that validates the opening events raises without these.
        let opening = matches!(ty, "response.created" | "response.in_progress");
        let mut lacks = Vec::new();
        let mut wrong = Vec::new();
        for (f, kind) in RESPONSE_VALIDATED.iter().filter(|_| opening) {
            match r.get(*f) {
                None => lacks.push(format!("`{f}`")),
                Some(v) if !kind.fits(v) => wrong.push(format!(
                    "`{f}` {} ({}), not {}",
                    literal(v),
                    json_type(v),
                    kind.name()
                )),
                Some(_) => {}
            }
        }
        let mut parts = Vec::new();
        if !lacks.is_empty() {
            parts.push(format!("lacks {}", lacks.join(", ")));
        }
        if !wrong.is_empty() {
            parts.push(format!("has {}", wrong.join(", ")));
        }
        if !parts.is_empty() && self.first(format!("validated:{ty}")) {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_MISSING_FIELD,
                    format!(
                        "`{ty}`'s response {}: a client that validates the opening events raises on it (the table)",
                        parts.join(" and ")
                    ),
                    out.at_pointer("/response", true),
                )
                .event(ev.index)
                .pointer("/response")
                .level(Severity::Error),
            );
        }
        let missing: Vec<&str> = RESPONSE_REQUIRED
            .iter()
            .copied()
            .filter(|f| !r.contains_key(*f))
            .filter(|f| !opening || RESPONSE_VALIDATED.iter().all(|(v, _)| v != f))
            .collect();
        if !missing.is_empty() && self.first("missing:response-required".to_string()) {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_MISSING_FIELD,
                    format!(
                        "`{ty}`'s response lacks {}, which the Response schema requires: clients read on without them (reported once per stream)",
                        missing
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    out.at_pointer("/response", true),
                )
                .event(ev.index)
                .pointer("/response")
                .level(Severity::Info),
            );
        }
        for k in r.keys() {
            if !RESPONSE_FIELDS.contains(&k.as_str()) {
                self.unknown_field(ev, "response", k, &format!("/response/{k}"), out);
            }
        }
    }

    /// The fields an output item needs, by its type.
    pub(super) fn check_item(
        &mut self,
        ev: &Event<'_>,
        item: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        let Some(t) = item.get("type").and_then(Value::as_str) else {
            if self.first("missing:item:type".to_string()) {
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_MISSING_FIELD,
                        "an output item without a string `type`: clients cannot tell a message from a function call, and raise",
                        out.at_pointer("/item", false),
                    )
                    .event(ev.index)
                    .pointer("/item/type")
                    .level(Severity::Error),
                );
            }
            return;
        };
        let needs: &[(&str, Kind, Need)] = match t {
            "message" => &[
                ("id", Kind::Str, Need::Walked),
                // Observed (responses-missing-field's example without
                // it): an agent app that files messages by role drops the
                // message's text.
                ("role", Kind::Str, Need::Walked),
                ("content", Kind::Arr, Need::Shape),
                ("status", Kind::Str, Need::Leaf),
            ],
            "function_call" => &[
                ("call_id", Kind::Str, Need::Walked),
                ("name", Kind::Str, Need::Walked),
                ("arguments", Kind::Str, Need::Shape),
            ],
            "reasoning" => &[
                ("id", Kind::Str, Need::Walked),
                ("summary", Kind::Arr, Need::Shape),
            ],
            _ => &[],
        };
        for (f, kind, need) in needs {
            let what = match item.get(*f) {
                None => "is missing".to_string(),
                Some(v) if !kind.fits(v) => {
                    format!("is {} ({}), not {}", literal(v), json_type(v), kind.name())
                }
                Some(Value::String(s)) if s.is_empty() && *need == Need::Walked => {
                    "is empty".to_string()
                }
                Some(_) => continue,
            };
            if !self.first(format!("missing:item:{t}:{f}")) {
                continue;
            }
            let pointer = format!("/item/{f}");
            let why = match (*f, *need) {
                ("id", _) => "clients that keep items by id (and check that they are unique and not empty) raise",
                ("call_id", _) => "the tool's result cannot be sent back without it, and strict clients raise",
                ("name", _) => "the client cannot tell which tool to run",
                ("role", _) => "a client that files the output's messages by role drops this message's text",
                ("status", _) => "the observed clients read on, but typed clients in other languages reject the item (diegosouzapw/OmniRoute#13964)",
                _ => consequence(*need),
            };
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_MISSING_FIELD,
                    format!("a {t} item's `{f}` {what}: {why} (reported once per item type)"),
                    out.at_pointer(&pointer, false),
                )
                .event(ev.index)
                .pointer(pointer)
                .level(level(*need)),
            );
        }
    }

    /// Data that is JSON but not an object.
    pub(super) fn not_an_object(&mut self, ev: &Event<'_>, v: &Value, out: &mut dyn Out) {
        if !self.first("not-object".to_string()) {
            return;
        }
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_MISSING_FIELD,
                format!(
                    "the event's data is {} ({}), not an event object: clients dispatch on `data.type` and find none (reported once per stream)",
                    json_type(v),
                    literal(v)
                ),
                out.at_event(),
            )
            .event(ev.index)
            .level(Severity::Error),
        );
    }

    /// An event object without a string `type`.
    pub(super) fn missing_type(
        &mut self,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        if !self.first("missing:type".to_string()) {
            return;
        }
        let keys: Vec<String> = o
            .keys()
            .take(6)
            .map(|k| format!("`{}`", super::text::shorten(k, 30)))
            .collect();
        let what = match o.get("type") {
            Some(v) => format!("a `type` that is {}", json_type(v)),
            None => "no `type`".to_string(),
        };
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_MISSING_FIELD,
                format!(
                    "an event with {what} (keys {}): clients dispatch on `data.type`, so they skip it or raise (reported once per stream)",
                    keys.join(", ")
                ),
                out.at_pointer("/type", false),
            )
            .event(ev.index)
            .pointer("/type")
            .level(Severity::Error),
        );
    }

    /// `responses-unknown-event`: a type outside the union.
    pub(super) fn unknown_event(&mut self, ev: &Event<'_>, ty: &str, out: &mut dyn Out) {
        // `response.done` (a backend's own terminal) is judged by
        // `responses-cut-off`: the stream ends with no terminal event.
        if ty == "response.done" || TOLERATED.contains(&ty) {
            return;
        }
        out.kind("unknown");
        if !self.first(format!("event:{ty}")) {
            return;
        }
        let who = providers_of_event(ty);
        let own = who.iter().any(|p| p.name == out.profile());
        let shown = super::text::shorten(ty, 60);
        let by = if who.is_empty() {
            String::new()
        } else {
            format!(
                " (sent by {}; see `--profile {}`)",
                crate::lint::profile::provider_list(&who),
                who[0].name
            )
        };
        let mut f = Finding::new(
            crate::lint::rule::RESPONSES_UNKNOWN_EVENT,
            format!(
                "event type `{shown}` is not in the Responses event union{by}: clients that dispatch on `data.type` skip it, but accumulating helpers that check every type raise on it (later events of this type are not repeated)"
            ),
            out.at_pointer("/type", false),
        )
        .event(ev.index)
        .pointer("/type")
        .help("send only the API's event types, or make clients aware of the extension");
        if own {
            f = f.level(Severity::Info);
        }
        report!(out, f);
    }

    /// `responses-event-name` and `responses-event-id`, once per stream.
    pub(super) fn finish_framing(&mut self, out: &mut dyn Out) {
        let variant = self.variant(out);
        if let Some(((loc, index), what)) = self.names_differ.first.take() {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_EVENT_NAME,
                    format!(
                        "{} event(s) whose `event:` name differs from their data's `type`, the first: {what}: clients that dispatch on `data.type` read the type, those that listen by name (a browser's EventSource) the name",
                        self.names_differ.count
                    ),
                    loc,
                )
                .event(index)
                .help("name every event with its data's `type`, or send no `event:` line"),
            );
        }
        if variant.names_required && self.json_events > 0 {
            if let Some(((loc, index), _)) = self.unnamed.first.take() {
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_EVENT_NAME,
                        format!(
                            "{} event(s) have no `event:` line: the Open Responses specification requires every event to be named by its `type`",
                            self.unnamed.count
                        ),
                        loc,
                    )
                    .event(index)
                    .level(Severity::Warning)
                    .help("send `event: <type>` before each `data:` line"),
                );
            }
        }
        if let Some(((loc, index), id)) = self.id_lines.first.take() {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_EVENT_ID,
                    format!(
                        "{} event(s) carry an `id:` line (the first: {id:?}): the Open Responses specification says servers should not send one; a browser's EventSource sends it back as `Last-Event-ID` when it reconnects, and the API resumes by `sequence_number` instead",
                        self.id_lines.count
                    ),
                    loc,
                )
                .event(index)
                .help("leave out `id:` lines; resumption uses `starting_after` with a sequence_number"),
            );
        }
    }
}
