//! Chunk rules: the envelope (`missing-field`, `object-value`,
//! `created-value`, `id-changed`, `model-changed`, `schema`), the choices
//! (`missing-choices`, `empty-choices`, `missing-delta`, `choice-index`,
//! `choice-message`), the delta (`role-value`, `missing-role`,
//! `cumulative-content`, `refusal`, `empty-chunk`), the finish
//! (`finish-reason-value`, `finish-reason-repeated`, `content-after-finish`)
//! and the fields (`unknown-field`, `vendor-extension`).
//!
//! Source: OpenAI's `CreateChatCompletionStreamResponse` (openai-openapi,
//! `openapi.yaml`), `rules/schemas/chunk.schema.json`.

use super::{Checker, FINISH_REASONS};
use crate::dialect::{Dialect, Out};
use crate::lint::profile::{fold_indices, pointer_covers, provider_list, providers_of};
use crate::lint::{profile, Finding, Severity};
use crate::model::assembly::REASONING_FIELDS;
use crate::model::shorten;
use crate::model::{json_type, Field};
use serde_json::Value;
use std::sync::OnceLock;

const TOP_KEYS: &[&str] = &[
    "id",
    "object",
    "created",
    "model",
    "choices",
    "usage",
    "service_tier",
    "system_fingerprint",
    "obfuscation",
    "moderation",
];
const CHOICE_KEYS: &[&str] = &["index", "delta", "finish_reason", "logprobs", "message"];
/// OpenAI's delta fields: `annotations` (search models' URL citations) and
/// `audio` (audio models; its `transcript` is the spoken answer) are sent by
/// OpenAI itself (API reference, chat completion chunk object).
const DELTA_KEYS: &[&str] = &[
    "role",
    "content",
    "refusal",
    "tool_calls",
    "function_call",
    "annotations",
    "audio",
];
const AUDIO_KEYS: &[&str] = &["id", "data", "expires_at", "transcript"];
const TOOL_KEYS: &[&str] = &["index", "id", "type", "function"];
const FUNCTION_KEYS: &[&str] = &["name", "arguments"];
const USAGE_KEYS: &[&str] = &[
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "completion_tokens_details",
    "prompt_tokens_details",
];
const COMPLETION_DETAIL_KEYS: &[&str] = &[
    "accepted_prediction_tokens",
    "audio_tokens",
    "reasoning_tokens",
    "text_tokens",
    "rejected_prediction_tokens",
];
const PROMPT_DETAIL_KEYS: &[&str] = &[
    "audio_tokens",
    "cached_tokens",
    "text_tokens",
    "image_tokens",
    "cache_write_tokens",
];

/// The chunk schema, compiled once.
pub fn chunk_schema() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(include_str!("../../../rules/schemas/chunk.schema.json"))
                .expect("rules/schemas/chunk.schema.json is JSON");
        jsonschema::validator_for(&schema)
            .expect("rules/schemas/chunk.schema.json is a valid schema")
    })
}

impl Checker {
    /// Whether the chunk carries a pointer that marks an annotation chunk in
    /// `profile` (all profiles when `None`).
    fn is_annotation(&self, v: &Value, only_active: bool) -> bool {
        let has = |p: &profile::Profile| {
            p.annotation_pointers
                .iter()
                .any(|ptr| pointer_present(v, ptr))
        };
        if only_active {
            has(self.profile)
        } else {
            profile::profiles().iter().any(has)
        }
    }

    pub(super) fn check_chunk(&mut self, out: &mut dyn Out, index: Option<u64>, v: &Value) {
        let exempt = self.is_annotation(v, true);
        let annotation = exempt || self.is_annotation(v, false);
        if annotation {
            out.kind("annotation");
        }
        if let Some(seen) = out.fields_seen() {
            collect_pointers(v, &mut String::new(), seen);
        }
        if out.summaries() {
            self.summary = super::model::summarize_chunk(v);
        }
        self.check_envelope(out, index, v, exempt);
        let chunk_adds = self.check_choices(out, index, v, exempt, annotation);
        let usage = self.check_usage(out, index, v);
        self.check_fields(out, index, v);
        self.check_schema(out, index, v);
        let no_choices = v
            .get("choices")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if !chunk_adds && !usage && !annotation && no_choices && v.get("choices").is_some() {
            // `choices: []` outside a usage or annotation chunk
            // (`empty-choices` says so): it adds nothing either.
            out.kind("empty");
        }
        if !chunk_adds && !usage && !annotation && !no_choices {
            out.kind("empty");
            let loc = out.at_pointer("/choices", true);
            out.report(
                Finding::new(
                    crate::lint::rule::EMPTY_CHUNK,
                    "the chunk adds nothing: no content, role, tool call, finish_reason or usage",
                    loc,
                )
                .event(index),
            );
        }
    }

    fn check_envelope(&mut self, out: &mut dyn Out, index: Option<u64>, v: &Value, exempt: bool) {
        if exempt {
            return;
        }
        let mut missing = Vec::new();
        for key in ["id", "object", "created", "model"] {
            match Field::of(v, key) {
                Field::Absent => missing.push(format!("`{key}` is absent")),
                Field::Null => missing.push(format!("`{key}` is null")),
                Field::Present(Value::String(s)) if s.is_empty() => {
                    missing.push(format!("`{key}` is empty"))
                }
                _ => {}
            }
        }
        // Once per stream for each distinct problem: a server that omits
        // `model` omits it on every chunk.
        if !missing.is_empty()
            && self
                .chat
                .reported_fields
                .insert(format!("missing-field:{missing:?}"))
        {
            let loc = out.at_pointer("", false);
            let first_ptr = ["id", "object", "created", "model"]
                .iter()
                .find(|k| !matches!(Field::of(v, k), Field::Present(x) if x.as_str() != Some("")))
                .map(|k| format!("/{k}"))
                .unwrap_or_default();
            let loc = if v.get(first_ptr.trim_start_matches('/')).is_some() {
                out.at_pointer(&first_ptr, false)
            } else {
                loc
            };
            out.report(
                Finding::new(
                    crate::lint::rule::MISSING_FIELD,
                    format!(
                        "{}: OpenAI sends id, object, created and model on every chunk; the observed SDKs read on without them, validators of OpenAI's schema do not",
                        missing.join(", ")
                    ),
                    loc,
                )
                .event(index)
                .pointer(first_ptr),
            );
        }
        if let Field::Present(o) = Field::of(v, "object") {
            let wrong = o
                .as_str()
                .is_some_and(|s| !s.is_empty() && s != "chat.completion.chunk")
                || !o.is_string();
            if wrong
                && self
                    .chat
                    .reported_fields
                    .insert(format!("object-value:{o}"))
            {
                let loc = out.at_pointer("/object", false);
                out.report(
                    Finding::new(
                        crate::lint::rule::OBJECT_VALUE,
                        format!(
                            "`object` is {} instead of \"chat.completion.chunk\"{}",
                            shorten(&o.to_string(), 60),
                            if o.as_str() == Some("chat.completion") {
                                ": that is the non-streamed response's object, not a chunk's"
                            } else {
                                ""
                            }
                        ),
                        loc,
                    )
                    .event(index)
                    .pointer("/object"),
                );
            }
        }
        if let Field::Present(c) = Field::of(v, "created") {
            let why = match c.as_u64() {
                Some(0) => Some("zero".to_string()),
                Some(n) if n > 100_000_000_000 => Some(format!(
                    "{n}, which looks like milliseconds; `created` is Unix seconds"
                )),
                Some(_) => None,
                None => Some(format!(
                    "a {} ({}), not an integer of Unix seconds",
                    json_type(c),
                    shorten(&c.to_string(), 40)
                )),
            };
            if let Some(why) = why.filter(|w| {
                self.chat
                    .reported_fields
                    .insert(format!("created-value:{w}"))
            }) {
                let loc = out.at_pointer("/created", false);
                out.report(
                    Finding::new(
                        crate::lint::rule::CREATED_VALUE,
                        format!("`created` is {why}"),
                        loc,
                    )
                    .event(index)
                    .pointer("/created"),
                );
            }
        }
        for (key, is_id) in [("id", true), ("model", false)] {
            let Some(s) = v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) else {
                continue;
            };
            let (first, changed) = if is_id {
                (&mut self.chat.first_id, &mut self.chat.id_changed)
            } else {
                (&mut self.chat.first_model, &mut self.chat.model_changed)
            };
            match first {
                None => *first = Some(s.to_string()),
                Some(f) if f != s && !*changed => {
                    *changed = true;
                    let msg = format!(
                        "`{key}` changed from {:?} to {:?}: every chunk of one completion carries the same {key}{}",
                        shorten(f, 40),
                        shorten(s, 40),
                        if is_id { "; code that groups chunks by id splits the answer (the observed SDKs do not group by id)" } else { "" }
                    );
                    let loc = out.at_pointer(&format!("/{key}"), false);
                    let rule = if is_id {
                        crate::lint::rule::ID_CHANGED
                    } else {
                        crate::lint::rule::MODEL_CHANGED
                    };
                    out.report(
                        Finding::new(rule, msg, loc)
                            .event(index)
                            .pointer(format!("/{key}")),
                    );
                }
                Some(_) => {}
            }
        }
    }

    /// Choice-level rules and assembly. Returns whether the chunk adds
    /// anything to the answer.
    fn check_choices(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        v: &Value,
        exempt: bool,
        annotation: bool,
    ) -> bool {
        let choices = match Field::of(v, "choices") {
            Field::Absent | Field::Null => {
                if !exempt {
                    let loc = out.at_pointer("", false);
                    out.report(
                        Finding::new(
                            crate::lint::rule::MISSING_CHOICES,
                            "the chunk has no `choices` array: clients that read `choices[0]` fail",
                            loc,
                        )
                        .event(index)
                        .pointer("/choices"),
                    );
                }
                return false;
            }
            Field::Present(Value::Array(a)) => a,
            Field::Present(_) => return false, // the schema rule reports the type
        };
        if choices.is_empty() {
            let has_usage = matches!(Field::of(v, "usage"), Field::Present(_));
            if !has_usage && !exempt {
                let loc = out.at_pointer("/choices", false);
                out.report(
                    Finding::new(
                        crate::lint::rule::EMPTY_CHOICES,
                        format!(
                            "`choices` is empty on a chunk without usage{}: the observed SDKs skip such chunks, while code that reads `choices[0]` unguarded indexes an empty array",
                            if annotation { " (a provider annotation chunk; `--profile` for that provider exempts it)" } else { "" }
                        ),
                        loc,
                    )
                    .event(index)
                    .pointer("/choices"),
                );
            }
            return false;
        }
        self.answer.chunks_with_choices += 1;
        let mut adds = false;
        let mut seen = Vec::new();
        let first_index = choices[0].get("index").and_then(Value::as_u64);
        self.track_drift(out, index, choices.len(), first_index);
        for (pos, choice) in choices.iter().enumerate() {
            let base = format!("/choices/{pos}");
            if !choice.is_object() {
                continue; // the schema rule reports the type
            }
            let idx = match Field::of(choice, "index") {
                Field::Present(i) if i.as_u64().is_some() => i.as_u64().unwrap_or(0),
                other => {
                    let what = match other {
                        Field::Absent => "absent".to_string(),
                        Field::Null => "null".to_string(),
                        // -1 or 0.5: a number, but no index (from 0, whole).
                        Field::Present(x) if x.is_number() => format!(
                            "{}, {}",
                            shorten(&crate::model::value_text(x), 40),
                            // Whole and not negative, past u64: too large.
                            if x.as_f64()
                                .is_some_and(|f| f.fract() == 0.0 && f > u64::MAX as f64)
                            {
                                "too large for an index"
                            } else {
                                "which is no index (choices are numbered 0, 1, …)"
                            }
                        ),
                        Field::Present(x) => {
                            format!(
                                "{} ({})",
                                json_type(x),
                                shorten(&crate::model::value_text(x), 40)
                            )
                        }
                    };
                    // One cause, one finding: a server that leaves the index
                    // out does so on every chunk.
                    if self
                        .chat
                        .reported_fields
                        .insert("choice-index:bad-index".to_string())
                    {
                        let loc = out.at_pointer(&format!("{base}/index"), true);
                        out.report(
                            Finding::new(
                                crate::lint::rule::CHOICE_INDEX,
                                format!("the choice's `index` is {what}: clients cannot tell which answer the delta belongs to (reported at its first chunk; later chunks are not repeated)"),
                                loc,
                            )
                            .event(index)
                            .pointer(format!("{base}/index")),
                        );
                    }
                    pos as u64
                }
            };
            if seen.contains(&idx) {
                let loc = out.at_pointer(&format!("{base}/index"), false);
                out.report(
                    Finding::new(
                        crate::lint::rule::CHOICE_INDEX,
                        format!("choice index {idx} appears twice in one chunk"),
                        loc,
                    )
                    .event(index)
                    .pointer(format!("{base}/index")),
                );
            }
            seen.push(idx);
            if idx == 0 {
                self.note_misplaced_text(out, index, &base, choice);
            }
            if let Some(n) = self.request.as_ref().and_then(|r| r.n) {
                if idx >= n.max(1) {
                    // Said once per index at the end, with how many chunks
                    // carried it (`finish_stream`).
                    match self.chat.past_n.get_mut(&idx) {
                        Some(seen) => seen.3 += 1,
                        None => {
                            let loc = out.at_pointer(&format!("{base}/index"), false);
                            self.chat
                                .past_n
                                .insert(idx, (loc, index, format!("{base}/index"), 1));
                        }
                    }
                }
            }
            if let Some(m) = choice
                .get("message")
                .filter(|_| !self.chat.choice_message_reported)
            {
                self.chat.choice_message_reported = true;
                let loc = out.at_pointer(&format!("{base}/message"), true);
                let first = self.chat.choices.get(&idx).is_none_or(|t| t.deltas == 0);
                // Observed: a stream helper starts its message from the
                // choice's first chunk, `message` included, then appends
                // the deltas (the text twice); a `message` on a later chunk
                // that repeats the text the deltas built changes no answer.
                let repeats = !first && {
                    let so_far = self.answer.choices.get(&idx);
                    let delta = Field::of(choice.get("delta").unwrap_or(&Value::Null), "content")
                        .nonempty_str()
                        .unwrap_or_default();
                    so_far.is_some_and(|c| c.text.dropped == 0)
                        && matches!(Field::of(m, "tool_calls"), Field::Absent | Field::Null)
                        && Field::of(m, "content").nonempty_str().unwrap_or_default()
                            == format!("{}{delta}", so_far.map_or("", |c| c.text.kept.as_str()))
                };
                let f = if first {
                    Finding::new(
                        crate::lint::rule::CHOICE_MESSAGE,
                        "a streamed choice carries `message` (the non-streamed shape) on its first chunk: a stream helper that starts its message from the first chunk takes it and then appends the deltas, so the text comes out doubled (the table shows one)",
                        loc,
                    )
                } else if repeats {
                    Finding::new(
                        crate::lint::rule::CHOICE_MESSAGE,
                        "a streamed choice carries `message` (the non-streamed shape) on a later chunk, repeating the text its deltas built: the clients of the record read `delta` and read the answer as meant",
                        loc,
                    )
                    .level(Severity::Info)
                } else {
                    Finding::new(
                        crate::lint::rule::CHOICE_MESSAGE,
                        "a streamed choice carries `message` (the non-streamed shape) beside or instead of `delta`, with another text than its deltas built; clients read `delta` and may double or drop the text",
                        loc,
                    )
                };
                out.report(f.event(index).pointer(format!("{base}/message")));
            }
            let choice_exempt = exempt
                || self
                    .profile
                    .annotation_pointers
                    .iter()
                    .any(|p| pointer_present(v, p) && p.starts_with("/choices"));
            match Field::of(choice, "delta") {
                Field::Absent | Field::Null if !choice_exempt => {
                    let known = self.is_annotation(v, false);
                    let loc = out.at_pointer(&base, false);
                    let mut f = Finding::new(
                        crate::lint::rule::MISSING_DELTA,
                        format!(
                            "the choice has no `delta`{}: clients that read `choices[i].delta.content` fail",
                            if known { " (a provider annotation chunk; `--profile` for that provider exempts it)" } else { "" }
                        ),
                        loc,
                    )
                    .event(index)
                    .pointer(format!("{base}/delta"));
                    if known {
                        f = f.level(Severity::Warning);
                    }
                    out.report(f);
                }
                Field::Present(d) if d.is_object() => {
                    adds |= self.check_delta(out, index, idx, &base, d);
                }
                // A delta of the wrong type: the schema rule reports it.
                Field::Present(_) => adds = true,
                _ => {}
            }
            adds |= self.check_finish(out, index, idx, &base, choice);
            if choice.get("logprobs").is_some_and(|l| !l.is_null()) {
                adds = true;
            }
            if let Some(d) = choice.get("delta").filter(|d| d.is_object()) {
                if let Some(calls) = d.get("tool_calls").and_then(Value::as_array) {
                    self.check_tool_calls(out, index, idx, &base, calls);
                }
            }
            self.answer.apply_choice(idx, choice);
        }
        adds
    }

    /// The bookkeeping of `choice-index`'s drift: chunks with exactly one
    /// choice whose index stays or grows, never goes back (one answer
    /// spread over "choices"; a real `n > 1` stream interleaves its choices
    /// or finishes each). `count` is the number of choices in the chunk,
    /// `first` the first one's index.
    pub(super) fn track_drift(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        count: usize,
        first: Option<u64>,
    ) {
        if count != 1 {
            self.chat.drift.broken = true;
            return;
        }
        let d = &mut self.chat.drift;
        match (d.last, first) {
            (None, Some(i)) => {
                d.last = Some(i);
                if i > 0 {
                    let loc = out.at_pointer("/choices/0/index", false);
                    self.chat.drift.start_loc = Some((loc, index));
                }
            }
            (Some(l), Some(i)) if i > l => {
                d.steps += 1;
                d.last = Some(i);
                if d.first_loc.is_none() {
                    let loc = out.at_pointer("/choices/0/index", false);
                    self.chat.drift.first_loc = Some((loc, index));
                }
            }
            (Some(l), Some(i)) if i == l => d.repeats = true,
            _ => self.chat.drift.broken = true,
        }
    }

    /// A non-empty `content` delta `s` of choice `idx`, before it is
    /// appended to the choice's text: the `cumulative-content` bookkeeping
    /// (each delta repeating the text so far) and the `repeated-answer`
    /// one (this delta, the third or later, repeating all the text before
    /// it; a later delta clears it). `pointer` gives the content's JSON
    /// pointer, built only for a finding.
    pub(super) fn track_content(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        idx: u64,
        pointer: impl Fn() -> String,
        s: &str,
    ) {
        out.kind("content");
        let repeats = self
            .answer
            .choices
            .get(&idx)
            .is_some_and(|c| c.text.is_repeated_by(s));
        let t = self.chat.choices.entry(idx).or_default();
        t.content_deltas += 1;
        t.repeat_loc = None;
        if repeats && t.content_deltas >= 3 {
            let loc = out.at_pointer(&pointer(), false);
            self.chat.choices.entry(idx).or_default().repeat_loc = Some((loc, index));
        }
        let t = self.chat.choices.entry(idx).or_default();
        if !t.last_content.is_empty()
            && s.len() > t.last_content.len()
            && s.starts_with(t.last_content.as_str())
        {
            t.cumulative += 1;
            if t.cumulative_loc.is_none() {
                let loc = out.at_pointer(&pointer(), false);
                self.chat.choices.entry(idx).or_default().cumulative_loc = Some((loc, index));
            }
        }
        let t = self.chat.choices.entry(idx).or_default();
        t.last_content.clear();
        // At most 4,096 bytes, cut at a character boundary.
        let keep = s.floor_char_boundary(4096);
        t.last_content.push_str(&s[..keep]);
    }

    fn check_delta(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        idx: u64,
        base: &str,
        d: &Value,
    ) -> bool {
        let mut adds = false;
        let first = {
            let t = self.chat.choices.entry(idx).or_default();
            t.deltas += 1;
            t.deltas == 1
        };
        if first {
            let loc = out.at_pointer(base, false);
            let t = self.chat.choices.entry(idx).or_default();
            t.first_loc = Some(loc);
            t.first_event = index;
        }
        match Field::of(d, "role") {
            Field::Present(r) => {
                out.kind("role");
                adds = true;
                let t = self.chat.choices.entry(idx).or_default();
                t.role_deltas += 1;
                let need_loc = t.role_deltas == 2;
                if need_loc {
                    let loc = out.at_pointer(&format!("{base}/delta/role"), true);
                    self.chat.choices.entry(idx).or_default().first_role_loc = Some(loc);
                }
                if r.as_str() != Some("assistant") {
                    let loc = out.at_pointer(&format!("{base}/delta/role"), false);
                    out.report(
                        Finding::new(
                            crate::lint::rule::ROLE_VALUE,
                            format!(
                                "`role` is {} in a streamed delta; only \"assistant\" is meaningful",
                                shorten(&r.to_string(), 40)
                            ),
                            loc,
                        )
                        .event(index)
                        .pointer(format!("{base}/delta/role")),
                    );
                }
            }
            _ => {
                // An event not read may have been the choice's first, role
                // and all: its finding is the cause.
                if first && self.chat.unread == 0 {
                    let loc = out.at_pointer(&format!("{base}/delta"), false);
                    out.report(
                        Finding::new(
                            crate::lint::rule::MISSING_ROLE,
                            "the first delta of the choice has no `role`; OpenAI sends `role: \"assistant\"` first, and stream helpers that build the message from the deltas refuse a choice without it",
                            loc,
                        )
                        .event(index)
                        .pointer(format!("{base}/delta")),
                    );
                }
            }
        }
        let finished = self.chat.choices.get(&idx).is_some_and(|t| t.finished);
        let mut after_finish = None;
        if let Some(s) = Field::of(d, "content").nonempty_str() {
            adds = true;
            let pointer = || format!("{base}/delta/content");
            self.track_content(out, index, idx, pointer, s);
            if finished {
                after_finish = Some("content");
            }
        }
        if let Some(_s) = Field::of(d, "refusal").nonempty_str() {
            out.kind("refusal");
            adds = true;
            if !self.chat.choices.entry(idx).or_default().refusal_reported {
                self.chat.choices.entry(idx).or_default().refusal_reported = true;
                let loc = out.at_pointer(&format!("{base}/delta/refusal"), false);
                out.report(
                    Finding::new(
                        crate::lint::rule::REFUSAL,
                        format!("choice {idx} streams a refusal; the answer shows the refusal text, and `content` may stay empty"),
                        loc,
                    )
                    .event(index)
                    .pointer(format!("{base}/delta/refusal"))
                    .help("nothing to change on the server: show `delta.refusal` to the user"),
                );
            }
            if finished {
                after_finish.get_or_insert("refusal");
            }
        }
        if d.get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
            || d.get("function_call").is_some_and(|f| !f.is_null())
        {
            out.kind("tool-call");
            adds = true;
            if finished {
                after_finish.get_or_insert("tool-call");
            }
        }
        for f in REASONING_FIELDS {
            if Field::of(d, f).nonempty_str().is_some() {
                out.kind("reasoning");
                adds = true;
            }
        }
        // An audio model's spoken answer, as its transcript (the audio
        // data itself is not text).
        if d.get("audio").is_some_and(|a| !a.is_null()) {
            out.kind("audio");
        }
        if let Some(obj) = d.as_object() {
            // Anything with a value counts, even of the wrong type (the
            // schema rule names that): the chunk is not "empty".
            let blank = |v: &Value| match v {
                Value::Null => true,
                Value::String(s) => s.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
                _ => false,
            };
            if obj.values().any(|v| !blank(v)) {
                adds = true;
            }
        }
        if let Some(what) = after_finish {
            let t = self.chat.choices.entry(idx).or_default();
            if !t.after_finish_reported {
                t.after_finish_reported = true;
                let ptr = format!("{base}/delta");
                let loc = out.at_pointer(&ptr, false);
                // Held until the choice's finish_reason comes again (a
                // premature finish: an error, see `check_finish`) or the
                // stream ends (info: the clients of the record read on).
                self.chat.choices.entry(idx).or_default().after_finish = Some((
                    Finding::new(
                        crate::lint::rule::CONTENT_AFTER_FINISH,
                        format!("a {what} delta for choice {idx} arrives after its finish_reason: a client that stops reading the choice at its finish_reason, as the API reference allows, loses it (the observed clients read on and keep it)"),
                        loc,
                    )
                    .event(index)
                    .pointer(ptr),
                    what,
                ));
            }
        }
        adds
    }

    fn check_finish(
        &mut self,
        out: &mut dyn Out,
        index: Option<u64>,
        idx: u64,
        base: &str,
        choice: &Value,
    ) -> bool {
        let ptr = format!("{base}/finish_reason");
        match Field::of(choice, "finish_reason") {
            Field::Absent | Field::Null => false,
            Field::Present(Value::String(s)) if s.is_empty() => {
                let loc = out.at_pointer(&ptr, false);
                out.report(
                    Finding::new(
                        crate::lint::rule::FINISH_REASON_VALUE,
                        "finish_reason is \"\" instead of null: code that tests `finish_reason != null` ends the choice here",
                        loc,
                    )
                    .event(index)
                    .pointer(ptr),
                );
                self.chat.choices.entry(idx).or_default().bad_finish = true;
                true
            }
            Field::Present(Value::String(s)) => {
                out.kind("finish");
                if !FINISH_REASONS.contains(&s.as_str())
                    && !self.chat.odd_finish_reasons.contains(s)
                    && self.chat.odd_finish_reasons.len() < 8
                {
                    self.chat.odd_finish_reasons.push(s.clone());
                }
                if !FINISH_REASONS.contains(&s.as_str()) && !self.profile.finish_reasons.contains(s)
                {
                    let known = profile::providers_of_finish_reason(Dialect::Chat, s);
                    let loc = out.at_pointer(&ptr, false);
                    let whose = if known.is_empty() {
                        String::new()
                    } else {
                        format!(" (a known {} value)", provider_list(&known))
                    };
                    out.report(
                        Finding::new(
                            crate::lint::rule::FINISH_REASON_VALUE,
                            format!(
                                "finish_reason {:?}{whose} is outside OpenAI's values (stop, length, tool_calls, content_filter, function_call): the SDKs pass it through, and code that switches on it falls through",
                                shorten(s, 40)
                            ),
                            loc,
                        )
                        .event(index)
                        .pointer(ptr.clone()),
                    );
                }
                let t = self.chat.choices.entry(idx).or_default();
                if let Some((f, what)) = t.after_finish.take() {
                    // The finish comes again after the content: the first
                    // one was premature, and the content sits between two.
                    out.report(
                        Finding {
                            message: format!("a {what} delta for choice {idx} arrives after its finish_reason, and the finish_reason comes again after it: the first one was premature; a client that joins the finish values ends with another finish (the table shows one), and a client that stops at the first loses the rest"),
                            ..f
                        }
                        .level(Severity::Error),
                    );
                }
                let t = self.chat.choices.entry(idx).or_default();
                if t.finished && !t.repeated_reported {
                    t.repeated_reported = true;
                    let loc = out.at_pointer(&ptr, false);
                    out.report(
                        Finding::new(
                            crate::lint::rule::FINISH_REASON_REPEATED,
                            format!("choice {idx} gets a second finish_reason ({s:?}): clients that stop at the first one lose what follows"),
                            loc,
                        )
                        .event(index)
                        .pointer(ptr),
                    );
                } else if !t.finished {
                    t.finished = true;
                    let loc = out.at_pointer(&format!("{base}/finish_reason"), false);
                    self.chat.choices.entry(idx).or_default().finish_loc = Some(loc);
                }
                true
            }
            Field::Present(other) => {
                let loc = out.at_pointer(&ptr, false);
                out.report(
                    Finding::new(
                        crate::lint::rule::FINISH_REASON_VALUE,
                        format!(
                            "finish_reason is a JSON {} ({}), not a string: clients cannot tell why the choice ended",
                            json_type(other),
                            shorten(&other.to_string(), 30)
                        ),
                        loc,
                    )
                    .level(Severity::Error)
                    .event(index)
                    .pointer(ptr),
                );
                self.chat.choices.entry(idx).or_default().bad_finish = true;
                true
            }
        }
    }

    /// `unknown-field` / `vendor-extension`, once per field (indices
    /// folded) per stream.
    fn check_fields(&mut self, out: &mut dyn Out, index: Option<u64>, v: &Value) {
        let mut found = Vec::new();
        collect_unknown(v, "", TOP_KEYS, &mut found);
        if let Some(cs) = v.get("choices").and_then(Value::as_array) {
            for (i, c) in cs.iter().enumerate() {
                let cb = format!("/choices/{i}");
                collect_unknown(c, &cb, CHOICE_KEYS, &mut found);
                if let Some(d) = c.get("delta") {
                    let db = format!("{cb}/delta");
                    collect_unknown(d, &db, DELTA_KEYS, &mut found);
                    if let Some(ts) = d.get("tool_calls").and_then(Value::as_array) {
                        for (j, t) in ts.iter().enumerate() {
                            let tb = format!("{db}/tool_calls/{j}");
                            collect_unknown(t, &tb, TOOL_KEYS, &mut found);
                            if let Some(f) = t.get("function") {
                                collect_unknown(
                                    f,
                                    &format!("{tb}/function"),
                                    FUNCTION_KEYS,
                                    &mut found,
                                );
                            }
                        }
                    }
                }
            }
        }
        let standard_usage = |u: &Value| {
            ["prompt_tokens", "completion_tokens", "total_tokens"]
                .iter()
                .all(|k| u.get(k).is_some_and(Value::is_u64))
        };
        // A usage object in another dialect is one `usage-shape` finding,
        // not one `unknown-field` per key.
        if let Some(u) = v
            .get("usage")
            .filter(|u| u.is_object() && standard_usage(u))
        {
            collect_unknown(u, "/usage", USAGE_KEYS, &mut found);
            if let Some(d) = u.get("completion_tokens_details") {
                collect_unknown(
                    d,
                    "/usage/completion_tokens_details",
                    COMPLETION_DETAIL_KEYS,
                    &mut found,
                );
            }
            if let Some(d) = u.get("prompt_tokens_details") {
                collect_unknown(
                    d,
                    "/usage/prompt_tokens_details",
                    PROMPT_DETAIL_KEYS,
                    &mut found,
                );
            }
        }
        for ptr in found {
            let folded = fold_indices(&ptr);
            if self.chat.reported_fields.contains(&folded) {
                continue;
            }
            // A known field sent as null carries nothing to name (and may
            // be named later, when it carries something).
            let is_null = v.pointer(&ptr).is_some_and(Value::is_null);
            if is_null && self.chat.known_null_fields.contains(&folded) {
                continue;
            }
            let known = providers_of(Dialect::Chat, &folded);
            if !known.is_empty() && is_null {
                self.chat.known_null_fields.insert(folded);
                continue;
            }
            if !known.is_empty() && self.chat.extension_fields.len() < 64 {
                self.chat.extension_fields.push(folded.clone());
            }
            self.chat.reported_fields.insert(folded.clone());
            let loc = out.at_pointer(&ptr, true);
            let allowed = out.allowed(&folded);
            if allowed {
                out.report(
                    Finding::new(
                        crate::lint::rule::VENDOR_EXTENSION,
                        format!("`{folded}` is an extension field allowed by allow-fields in sselint.toml"),
                        loc,
                    )
                    .event(index)
                    .pointer(ptr),
                );
            } else if known.is_empty() {
                out.report(
                    Finding::new(
                        crate::lint::rule::UNKNOWN_FIELD,
                        format!(
                            "`{folded}` is in neither OpenAI's chunk schema nor any known provider's extensions; unknown fields are a policy, not a spec violation (the schema allows extra fields); the observed SDKs ignore them"
                        ),
                        loc,
                    )
                    .event(index)
                    .pointer(ptr),
                );
            } else {
                let notes: Vec<&str> = known
                    .iter()
                    .flat_map(|p| p.extensions.iter())
                    .filter(|e| pointer_covers(&e.pointer, &folded))
                    .map(|e| e.note.as_str())
                    .take(1)
                    .collect();
                let mut f = Finding::new(
                    crate::lint::rule::VENDOR_EXTENSION,
                    format!(
                        "`{folded}` is a known {} extension{}",
                        provider_list(&known),
                        notes
                            .first()
                            .map(|n| format!(": {}", shorten(n, 120)))
                            .unwrap_or_default()
                    ),
                    loc,
                )
                .event(index)
                .pointer(ptr);
                if let Some(s) = self.profile.extension_severity {
                    f = f.level(s);
                }
                out.report(f);
            }
        }
    }

    /// The JSON Schema of the chunk, for what no dedicated rule covers.
    fn check_schema(&mut self, out: &mut dyn Out, index: Option<u64>, v: &Value) {
        if self.typed && super::typed::proven_valid(v) {
            return;
        }
        let validator = chunk_schema();
        // Chunks of one stream share a few shapes: validate each shape
        // once. The shape keeps everything the schema constrains.
        let shape = shape_hash(v);
        let valid = match self.chat.schema_cache.get(&shape) {
            Some(ok) => *ok,
            None => {
                let ok = validator.is_valid(v);
                if self.chat.schema_cache.len() < 4096 {
                    self.chat.schema_cache.insert(shape, ok);
                }
                ok
            }
        };
        if valid {
            return;
        }
        let mut found: Vec<(String, String, bool)> = Vec::new();
        for err in validator.iter_errors(v) {
            let path = err.instance_path().to_string();
            let (ptr, what) = match err.kind() {
                jsonschema::error::ValidationErrorKind::Required { property } => {
                    let p = property.as_str().unwrap_or("");
                    (format!("{path}/{p}"), "required".to_string())
                }
                jsonschema::error::ValidationErrorKind::Type { .. } => {
                    (path.clone(), "type".to_string())
                }
                jsonschema::error::ValidationErrorKind::Enum { .. } => {
                    (path.clone(), "enum".to_string())
                }
                jsonschema::error::ValidationErrorKind::Constant { .. } => {
                    (path.clone(), "const".to_string())
                }
                _ => (path.clone(), "other".to_string()),
            };
            if owned_by_rule(&ptr, &what, err.instance().is_null()) {
                continue;
            }
            if what == "required"
                && ptr.ends_with("/finish_reason")
                && self.profile.finish_reason_optional
            {
                continue;
            }
            if what == "enum" && ptr == "/service_tier" {
                if let Some(s) = v.get("service_tier").and_then(Value::as_str) {
                    if self.profile.service_tiers.iter().any(|t| t == s) {
                        continue;
                    }
                }
            }
            // A null where the structure belongs reads as "absent" to most
            // clients (`delta.tool_calls or []`): a warning, not an error.
            let is_null = err.instance().is_null();
            // Text and arguments of the wrong type make accumulators throw
            // (`text += 1989`), like a broken structure does.
            let walked = is_structural(&ptr) || is_accumulated(&ptr);
            let structural = what == "type" && walked && !is_null;
            let msg = if what == "required" && ptr.ends_with("/finish_reason") {
                "the choice has no `finish_reason` key: the schema requires it on every choice (null until the end); typed clients that expect the key may fail".to_string()
            } else {
                let mut m = err.to_string();
                if let Some(s) = profile::providers_of_service_tier(
                    Dialect::Chat,
                    v.get("service_tier").and_then(Value::as_str).unwrap_or(""),
                )
                .first()
                .filter(|_| ptr == "/service_tier")
                {
                    m = format!("{m} (a known {} value)", s.provider);
                }
                format!(
                    "{}: {}",
                    if ptr.is_empty() { "/" } else { &ptr },
                    shorten(&m, 160)
                )
            };
            found.push((ptr, msg, structural));
        }
        for (ptr, msg, structural) in found {
            let key = format!("{}#{}", fold_indices(&ptr), structural);
            if !self.chat.reported_fields.insert(format!("schema:{key}")) {
                continue;
            }
            let loc = out.at_pointer(&ptr, false);
            let f = Finding::new(crate::lint::rule::SCHEMA, msg, loc)
                .event(index)
                .pointer(ptr)
                // Observed (rules/observed.json): clients walk past a null
                // or a leaf of another type they do not read (a missing
                // finish_reason key, `role: null`, `tool_calls: null`), but
                // fail on a walked structure or text of the wrong type.
                .level(if structural {
                    Severity::Error
                } else {
                    Severity::Info
                });
            out.report(f);
        }
    }
}

/// A hash of what the chunk schema constrains in `v`: keys, types, the
/// values of enum and const fields, empty strings, and the sign and kind
/// of numbers — not the text or the magnitudes, which the schema does not
/// judge. Equal shapes validate alike.
pub fn shape_hash(v: &Value) -> u64 {
    fn mix_bytes(h: &mut u64, b: &[u8]) {
        for x in b {
            *h ^= u64::from(*x);
            *h = h.wrapping_mul(0x0100_0000_01b3);
        }
        *h ^= 0xff;
        *h = h.wrapping_mul(0x0100_0000_01b3);
    }
    fn walk(v: &Value, key: &str, h: &mut u64) {
        match v {
            Value::Null => mix_bytes(h, b"n"),
            Value::Bool(b) => mix_bytes(h, if *b { b"t" } else { b"f" }),
            Value::Number(n) => mix_bytes(
                h,
                match (n.as_u64(), n.as_i64()) {
                    (Some(0), _) => b"0",
                    (Some(_), _) => b"u",
                    (None, Some(_)) => b"i",
                    _ => b"d",
                },
            ),
            Value::String(s) => {
                mix_bytes(h, b"s");
                if matches!(
                    key,
                    "object" | "role" | "finish_reason" | "service_tier" | "type"
                ) || s.is_empty()
                {
                    mix_bytes(h, s.as_bytes());
                }
            }
            Value::Array(a) => {
                mix_bytes(h, b"[");
                for x in a {
                    walk(x, "", h);
                }
                mix_bytes(h, b"]");
            }
            Value::Object(o) => {
                mix_bytes(h, b"{");
                for (k, x) in o {
                    mix_bytes(h, k.as_bytes());
                    walk(x, k, h);
                }
                mix_bytes(h, b"}");
            }
        }
    }
    let mut h = 0xcbf2_9ce4_8422_2325;
    walk(v, "", &mut h);
    h
}

/// Whether a schema failure at `ptr` is already a dedicated rule's.
fn owned_by_rule(ptr: &str, what: &str, is_null: bool) -> bool {
    let folded = fold_indices(ptr);
    let f = folded.as_str();
    matches!(f, "/object" | "/created")
        || (matches!(f, "/id" | "/model") && (what != "type" || is_null))
        || (f == "/choices" && (what == "required" || is_null))
        || f == "/choices/*/index"
        || (f == "/choices/*/delta" && what == "required")
        || (f == "/choices/*/finish_reason" && what != "required")
        || f == "/choices/*/delta/role" && !is_null
        || f == "/choices/*/delta/tool_calls/*/index"
        || f.starts_with("/usage")
}

/// The structure clients walk: the chunk, choices, each choice, its delta,
/// tool calls and their function.
fn is_structural(ptr: &str) -> bool {
    matches!(
        fold_indices(ptr).as_str(),
        "" | "/choices"
            | "/choices/*"
            | "/choices/*/delta"
            | "/choices/*/delta/tool_calls"
            | "/choices/*/delta/tool_calls/*"
            | "/choices/*/delta/tool_calls/*/function"
    )
}

/// Every key's pointer in `v`, array indices folded to `*`.
fn collect_pointers(v: &Value, base: &mut String, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, c) in o {
                let len = base.len();
                base.push('/');
                base.push_str(&k.replace('~', "~0").replace('/', "~1"));
                if !out.contains(base) {
                    out.push(base.clone());
                }
                collect_pointers(c, base, out);
                base.truncate(len);
            }
        }
        Value::Array(a) => {
            let len = base.len();
            base.push_str("/*");
            for c in a {
                collect_pointers(c, base, out);
            }
            base.truncate(len);
        }
        _ => {}
    }
}

/// Whether a pointer (indices folded) is a field of OpenAI's chunk schema
/// (anything under `logprobs` and `moderation` counts: those objects are
/// OpenAI's own).
pub fn is_openai_field(pointer: &str) -> bool {
    let parts: Vec<&str> = pointer.split('/').skip(1).collect();
    let mut level: &[&str] = TOP_KEYS;
    let mut i = 0;
    while i < parts.len() {
        let p = parts[i];
        if !level.contains(&p) {
            return false;
        }
        let next = parts.get(i + 1).copied();
        level = match (p, next) {
            ("logprobs" | "moderation" | "annotations", _) => return true,
            ("audio", _) => AUDIO_KEYS,
            ("choices", Some("*")) => {
                i += 1;
                CHOICE_KEYS
            }
            ("delta", _) | ("message", _) => DELTA_KEYS,
            ("tool_calls", Some("*")) => {
                i += 1;
                TOOL_KEYS
            }
            ("function" | "function_call", _) => FUNCTION_KEYS,
            ("usage", _) => USAGE_KEYS,
            ("completion_tokens_details", _) => COMPLETION_DETAIL_KEYS,
            ("prompt_tokens_details", _) => PROMPT_DETAIL_KEYS,
            (_, None) => return true,
            _ => return false,
        };
        i += 1;
    }
    true
}

/// The strings clients append delta by delta.
fn is_accumulated(ptr: &str) -> bool {
    matches!(
        fold_indices(ptr).as_str(),
        "/choices/*/delta/content"
            | "/choices/*/delta/refusal"
            | "/choices/*/delta/tool_calls/*/function/arguments"
            | "/choices/*/delta/tool_calls/*/function/name"
    )
}

/// Pointers of keys of `obj` (at `base`) not in `known`.
fn collect_unknown(obj: &Value, base: &str, known: &[&str], out: &mut Vec<String>) {
    if let Some(o) = obj.as_object() {
        for k in o.keys() {
            if !known.contains(&k.as_str()) {
                out.push(format!(
                    "{base}/{}",
                    k.replace('~', "~0").replace('/', "~1")
                ));
            }
        }
    }
}

/// Whether `v` has a value at `pattern` (`*` = any array index).
pub(super) fn pointer_present(v: &Value, pattern: &str) -> bool {
    fn walk(v: &Value, parts: &[&str]) -> bool {
        match parts.split_first() {
            None => true,
            Some((p, rest)) => match v {
                Value::Object(o) => o.get(*p).is_some_and(|c| walk(c, rest)),
                Value::Array(a) if *p == "*" => a.iter().any(|c| walk(c, rest)),
                Value::Array(a) => p
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get(i))
                    .is_some_and(|c| walk(c, rest)),
                _ => false,
            },
        }
    }
    // Most chunks lack the first key: answer that without allocating.
    let mut it = pattern.split('/').skip(1);
    match it.next() {
        Some(first) if v.get(first).is_none() => false,
        _ => {
            let parts: Vec<&str> = pattern.split('/').skip(1).collect();
            walk(v, &parts)
        }
    }
}
