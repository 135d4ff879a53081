//! The answer as a conforming client reconstructs it: per choice, the text,
//! refusal, reasoning text of known extensions (kept apart from the answer),
//! tool calls assembled by index, and finish_reason; the usage; and how the
//! stream ended.
//!
//! Assembly follows what OpenAI's own clients do: `content` and `refusal`
//! deltas are appended in arrival order (even after a finish_reason, which
//! the rules flag), tool-call fragments are merged by their `index`
//! (`arguments` concatenated), and the last non-empty finish_reason wins.

use serde_json::Value;
use std::collections::BTreeMap;

/// Most text kept per choice (bytes); the rest is counted, not stored, so
/// memory stays flat on hour-long streams.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

thread_local! {
    static TEXT_CAP: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_TEXT_BYTES) };
}

/// The most of each text (an answer's text, reasoning, refusal,
/// transcript) the lints on this thread keep, in bytes: [`MAX_TEXT_BYTES`],
/// unless [`with_text_cap`] says less. The dialects' shared text budgets
/// are multiples of it.
pub fn text_cap() -> usize {
    TEXT_CAP.with(std::cell::Cell::get)
}

/// Bytes past which a growing kept text is given room for all it may
/// keep at once, instead of doubling: one allocation, whose pages the
/// system maps only as they are written. Each doubling past it left the
/// text's smaller copy behind in the heap, resident though free (the
/// copies of a 1 MiB text, about as much again; issue 40).
const RESERVE_FROM: usize = 64 * 1024;

/// Makes room in `kept` for `more` bytes of a text kept up to `cap`
/// bytes: as a `String` does below [`RESERVE_FROM`], past it the room for
/// `cap` bytes at once.
pub fn reserve_kept(kept: &mut String, more: usize, cap: usize) {
    let need = kept.len() + more;
    if need > kept.capacity() && need > RESERVE_FROM {
        kept.reserve_exact(cap.max(need) - kept.len());
    }
}

/// Runs `f` with at most `cap` bytes (no more than [`MAX_TEXT_BYTES`])
/// kept of each text by the lints it runs on this thread, then restores
/// the cap. `sselint proxy` lints many streams at once, each on a thread
/// of its own, and keeps less of each.
pub fn with_text_cap<R>(cap: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            TEXT_CAP.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(TEXT_CAP.with(|c| c.replace(cap.min(MAX_TEXT_BYTES))));
    f()
}

/// Delta fields that carry reasoning text in known extensions (DeepSeek,
/// xAI, llama.cpp, older vLLM: `reasoning_content`; vLLM, Ollama,
/// OpenRouter, Groq: `reasoning`).
pub const REASONING_FIELDS: &[&str] = &["reasoning_content", "reasoning"];

/// One tool call as assembled from its fragments: a function call the
/// client runs (Chat's `tool_calls`, a Responses `function_call`, a
/// Messages `tool_use` block), a custom tool's call (Responses
/// `custom_tool_call`, whose input is free text), or a call the server
/// ran itself (a Responses `web_search_call`, `mcp_call`, …; a Messages
/// `server_tool_use` block).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ToolCall {
    /// The `index` the fragments used (or their array position when they
    /// had none).
    pub index: u64,
    /// `id` of the first fragment that had one.
    pub id: Option<String>,
    /// Its kind: `function` (Chat's `type`), `custom` (free-text input),
    /// or the item or block type of a server-side call (`web_search_call`,
    /// `server_tool_use`). Reports show it unless it is `function`.
    #[serde(skip_serializing_if = "is_function")]
    pub kind: Option<String>,
    /// `function.name`.
    pub name: Option<String>,
    /// `function.arguments`, concatenated (a custom tool's input; what a
    /// server-side call was asked, such as a web search's `action`, as
    /// JSON).
    pub arguments: String,
    /// The server ran it: it is no call for the client, and no reason for
    /// a `tool_calls` finish. In the JSON as `"server": true` (left out
    /// when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub server: bool,
}

/// Whether a tool call's kind is the plain function call (or unsaid).
fn is_function(kind: &Option<String>) -> bool {
    matches!(kind.as_deref(), None | Some("" | "function"))
}

impl ToolCall {
    /// Whether its arguments are free text (a custom tool's input), not
    /// JSON.
    pub fn is_free_text(&self) -> bool {
        self.kind.as_deref() == Some("custom")
    }

    /// Appends an `arguments` fragment; a fragment that would take the
    /// arguments past [`MAX_TEXT_BYTES`] is dropped.
    pub fn push_arguments(&mut self, fragment: &str) {
        if self.arguments.len() + fragment.len() <= MAX_TEXT_BYTES {
            self.arguments.push_str(fragment);
        }
    }
}

/// A hash of a byte string that two can be joined by: the digest of `a`
/// then `b` follows from the digests of each (a polynomial hash modulo the
/// prime 2^61 − 1, with the length). It stands for text past what is kept,
/// so two answers of any length compare in bounded memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Digest {
    /// Bytes hashed.
    pub len: u64,
    hash: u64,
}

/// The modulus of [`Digest`]: the Mersenne prime 2^61 − 1.
const DIGEST_MOD: u64 = (1 << 61) - 1;
/// The base of [`Digest`]'s polynomial (any constant below the modulus).
const DIGEST_BASE: u64 = 0x1f_3d5b_79a1_c3e5;

/// `a · b mod 2^61 − 1` for `a, b` below the modulus, by folding (no
/// division: 2^61 ≡ 1).
fn mul_mod(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    let folded = ((p as u64) & DIGEST_MOD) + ((p >> 61) as u64);
    reduce(folded)
}

/// `x mod 2^61 − 1` for `x` below 2^63.
fn reduce(x: u64) -> u64 {
    let x = (x & DIGEST_MOD) + (x >> 61);
    if x >= DIGEST_MOD {
        x - DIGEST_MOD
    } else {
        x
    }
}

fn pow_mod(mut base: u64, mut exp: u64) -> u64 {
    let mut acc = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = mul_mod(acc, base);
        }
        base = mul_mod(base, base);
        exp >>= 1;
    }
    acc
}

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        let mut d = Digest::default();
        d.push(bytes);
        d
    }

    /// Appends `bytes`.
    pub fn push(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.hash = reduce(mul_mod(self.hash, DIGEST_BASE) + u64::from(*b) + 1);
        }
        self.len += bytes.len() as u64;
    }

    /// Appends the bytes `next` stands for.
    pub fn join(&mut self, next: Digest) {
        let shifted = mul_mod(self.hash, pow_mod(DIGEST_BASE, next.len));
        self.hash = reduce(shifted + next.hash);
        self.len += next.len;
    }
}

/// Text capped at [`MAX_TEXT_BYTES`]: the first bytes kept, the rest
/// counted and hashed ([`Digest`]), so two texts of any length compare
/// ([`Text::same`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    /// The text kept: a prefix of what was received.
    pub kept: String,
    /// Bytes received past the cap (or past a shared budget).
    pub dropped: u64,
    /// The bytes dropped, hashed.
    tail: Digest,
}

impl Text {
    /// Appends `s`, keeping at most [`text_cap`] bytes ([`MAX_TEXT_BYTES`]
    /// unless a caller asked for less); once anything was dropped,
    /// everything after it is too.
    pub fn push(&mut self, s: &str) {
        let cap = text_cap();
        if self.dropped == 0 && self.kept.len() + s.len() <= cap {
            reserve_kept(&mut self.kept, s.len(), cap);
            self.kept.push_str(s);
            return;
        }
        let room = if self.dropped == 0 {
            cap.saturating_sub(self.kept.len())
        } else {
            0
        };
        let cut = s.floor_char_boundary(room);
        reserve_kept(&mut self.kept, cut, cap);
        self.kept.push_str(&s[..cut]);
        self.drop_bytes(&s.as_bytes()[cut..]);
    }

    /// Counts and hashes `bytes` as received but not kept (a dialect's own
    /// budget ran out).
    pub fn drop_bytes(&mut self, bytes: &[u8]) {
        self.tail.push(bytes);
        self.dropped += bytes.len() as u64;
    }

    /// Keeps at most the first `max` bytes (cut back to a character
    /// boundary), the rest counted and hashed as dropped, as if the cap
    /// had been `max`; the room no longer needed is freed. For a record
    /// kept long after its stream (`sselint proxy`'s report).
    pub fn keep_at_most(&mut self, max: usize) {
        if self.kept.len() > max {
            let mut cut = max;
            while !self.kept.is_char_boundary(cut) {
                cut -= 1;
            }
            let mut tail = Digest::of(&self.kept.as_bytes()[cut..]);
            tail.join(self.tail);
            self.tail = tail;
            self.dropped += (self.kept.len() - cut) as u64;
            self.kept.truncate(cut);
        }
        self.kept.shrink_to_fit();
    }

    /// Appends a text whose first bytes are `kept` and whose bytes past
    /// them are `rest` (another [`Text`], or a dialect's own capped text).
    pub fn push_parts(&mut self, kept: &str, rest: Digest) {
        self.push(kept);
        if rest.len > 0 {
            self.tail.join(rest);
            self.dropped += rest.len;
        }
    }

    /// [`Text::push_parts`] of a text given whole: taken over without a
    /// copy when nothing came before it and it fits the cap (the same
    /// text either way), else copied and let go of at once.
    pub fn push_owned(&mut self, kept: String, rest: Digest) {
        if self.kept.is_empty() && self.dropped == 0 && kept.len() <= text_cap() {
            self.kept = kept;
            if rest.len > 0 {
                self.tail.join(rest);
                self.dropped += rest.len;
            }
        } else {
            self.push_parts(&kept, rest);
        }
    }

    /// Appends another text, what it dropped included.
    pub fn push_text(&mut self, other: &Text) {
        self.push_parts(&other.kept, other.tail);
    }

    /// Bytes received.
    pub fn received(&self) -> u64 {
        self.kept.len() as u64 + self.dropped
    }

    /// Whether both received the same text: compared byte for byte when
    /// both were kept whole, else by length and hash.
    pub fn same(&self, other: &Text) -> bool {
        if self.dropped == 0 && other.dropped == 0 {
            return self.kept == other.kept;
        }
        self.whole() == other.whole()
    }

    /// The digest of the whole text received.
    fn whole(&self) -> Digest {
        let mut d = Digest::of(self.kept.as_bytes());
        d.join(self.tail);
        d
    }

    /// Whether `piece` is the whole text received so far, once more: a
    /// delta about to be appended that repeats all the answer before it
    /// (the `*-repeated-answer` rules). Compared only when the lengths
    /// agree (a piece of another length costs nothing), byte for byte when
    /// both are kept whole, else by [`Text::same`]'s hash. An empty piece
    /// repeats nothing.
    pub fn is_repeated_by(&self, piece: &str) -> bool {
        if piece.is_empty() || self.received() != piece.len() as u64 {
            return false;
        }
        if self.dropped == 0 {
            return self.kept == piece;
        }
        let mut whole = Text::default();
        whole.push(piece);
        whole.same(self)
    }

    /// Whether nothing was received.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.dropped == 0
    }
}

/// One choice's reconstruction.
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// The choice index.
    pub index: u64,
    /// `content` deltas joined.
    pub text: Text,
    /// `refusal` deltas joined (`None` when none came).
    pub refusal: Option<Text>,
    /// Reasoning text of the known extensions, joined.
    pub reasoning: Text,
    /// `delta.audio.transcript` pieces joined: the spoken answer of an
    /// audio model, whose `content` stays null.
    pub transcript: Text,
    /// The last non-empty string finish_reason.
    pub finish_reason: Option<String>,
    /// Tool calls by index.
    pub tool_calls: BTreeMap<u64, ToolCall>,
    /// Set when the stream sent no such answer and this choice stands in
    /// for what it sent instead, so that its finish has a place (a Gemini
    /// prompt blocked before any candidate: choice 0, finished
    /// `blockReason:REASON`): what `inspect` shows in its place.
    pub stands_for: Option<String>,
}

impl Choice {
    /// Whether it holds a tool call for the client to run (not only calls
    /// the server ran).
    pub fn has_client_calls(&self) -> bool {
        self.tool_calls.values().any(|t| !t.server)
    }
}

/// How a stream ended (DESIGN.md's `ending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// `[DONE]` came and every choice got a finish_reason.
    Complete,
    /// Every choice got a finish_reason; `[DONE]` never came.
    NoDone,
    /// `[DONE]` came; some choice never got a finish_reason.
    DoneWithoutFinish,
    /// Neither a finish_reason nor `[DONE]` before the end.
    CutOff,
    /// No chunk with choices at all.
    Empty,
    /// The stream ended on an error (Responses `response.failed` or an
    /// `error` event; a Messages `error` event).
    Failed,
}

impl Ending {
    /// The kebab-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Complete => "complete",
            Ending::NoDone => "no-done",
            Ending::DoneWithoutFinish => "done-without-finish",
            Ending::CutOff => "cut-off",
            Ending::Empty => "empty",
            Ending::Failed => "failed",
        }
    }
}

/// The whole stream's reconstruction.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// Choices by index (sorted).
    pub choices: BTreeMap<u64, Choice>,
    /// The last non-null `usage` object.
    pub usage: Option<Value>,
    /// `[DONE]` arrived.
    pub done: bool,
    /// Chunks that carried a `choices` array with at least one choice.
    pub chunks_with_choices: u64,
    /// Why choice 0's answer is blank (`empty-answer`'s short cause, e.g.
    /// `length: the budget went on reasoning`); `None` when it is not.
    pub empty: Option<String>,
}

impl Answer {
    /// The choice `index`, created on first use.
    pub fn choice(&mut self, index: u64) -> &mut Choice {
        self.choices.entry(index).or_insert_with(|| Choice {
            index,
            ..Choice::default()
        })
    }

    /// Applies one choice object of a chunk to the reconstruction: content,
    /// refusal, reasoning, tool-call fragments, finish_reason. `index` is
    /// the choice index the caller settled on.
    pub fn apply_choice(&mut self, index: u64, choice: &Value) {
        let c = self.choice(index);
        if let Some(delta) = choice.get("delta").filter(|d| d.is_object()) {
            match delta.get("content") {
                Some(Value::String(s)) => c.text.push(s),
                // Typed parts, as Mistral's reasoning models send them
                // (`schema` reports the shape): the text parts are the
                // answer, the thinking parts its reasoning.
                Some(Value::Array(parts)) => {
                    for p in parts {
                        apply_content_part(c, p);
                    }
                }
                _ => {}
            }
            if let Some(s) = delta.get("refusal").and_then(Value::as_str) {
                c.refusal.get_or_insert_with(Text::default).push(s);
            }
            for f in REASONING_FIELDS {
                if let Some(s) = delta.get(*f).and_then(Value::as_str) {
                    c.reasoning.push(s);
                }
            }
            if let Some(s) = delta.pointer("/audio/transcript").and_then(Value::as_str) {
                c.transcript.push(s);
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for (pos, call) in calls.iter().enumerate() {
                    let idx = call
                        .get("index")
                        .and_then(Value::as_u64)
                        .unwrap_or(pos as u64);
                    let tc = c.tool_calls.entry(idx).or_insert_with(|| ToolCall {
                        index: idx,
                        ..ToolCall::default()
                    });
                    if let Some(id) = call.get("id").and_then(Value::as_str) {
                        if tc.id.is_none() && !id.is_empty() {
                            tc.id = Some(id.to_string());
                        }
                    }
                    if let Some(t) = call.get("type").and_then(Value::as_str) {
                        tc.kind.get_or_insert_with(|| t.to_string());
                    }
                    if let Some(f) = call.get("function") {
                        if let Some(n) = f.get("name").and_then(Value::as_str) {
                            if tc.name.is_none() && !n.is_empty() {
                                tc.name = Some(n.to_string());
                            }
                        }
                        if let Some(a) = f.get("arguments").and_then(Value::as_str) {
                            tc.push_arguments(a);
                        }
                    }
                }
            }
        }
        if let Some(fr) = choice.get("finish_reason").and_then(Value::as_str) {
            if !fr.is_empty() {
                c.finish_reason = Some(fr.to_string());
            }
        }
    }

    /// The ending kind, given whether `[DONE]` came.
    pub fn ending(&self) -> Ending {
        if self.choices.is_empty() {
            return Ending::Empty;
        }
        let all_finished = self.choices.values().all(|c| c.finish_reason.is_some());
        let any_finished = self.choices.values().any(|c| c.finish_reason.is_some());
        match (self.done, all_finished, any_finished) {
            (true, true, _) => Ending::Complete,
            (true, false, _) => Ending::DoneWithoutFinish,
            (false, true, _) => Ending::NoDone,
            (false, false, true) => Ending::NoDone,
            (false, false, false) => Ending::CutOff,
        }
    }
}

/// One typed part of a Chat delta's `content` array, as Mistral's reasoning
/// models stream it (docs.mistral.ai, "Reasoning"): `{"type": "text",
/// "text": …}` adds to the answer; `{"type": "thinking", "thinking": [text
/// parts]}` (or a string) to the reasoning. Other part types add nothing.
fn apply_content_part(c: &mut Choice, part: &Value) {
    match part.get("type").and_then(Value::as_str) {
        Some("text") => {
            if let Some(s) = part.get("text").and_then(Value::as_str) {
                c.text.push(s);
            }
        }
        Some("thinking") => match part.get("thinking") {
            Some(Value::String(s)) => c.reasoning.push(s),
            Some(Value::Array(inner)) => {
                for t in inner {
                    if let Some(s) = t.get("text").and_then(Value::as_str) {
                        c.reasoning.push(s);
                    }
                }
            }
            _ => {}
        },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_joins_as_the_bytes_do() {
        let mut d = Digest::of(b"hello ");
        d.join(Digest::of(b"world"));
        assert_eq!(d, Digest::of(b"hello world"));
        assert_ne!(d, Digest::of(b"hello World"));
        let mut e = Digest::default();
        e.join(Digest::of(b"x"));
        assert_eq!(e, Digest::of(b"x"));
    }

    #[test]
    fn a_text_kept_shorter_still_compares_with_the_whole() {
        let long = "héllo ".repeat(MAX_TEXT_BYTES / 5);
        let mut whole = Text::default();
        whole.push(&long);
        let mut short = whole.clone();
        // Byte 4097 is inside an `é` (7 bytes a word, 585 words are 4095):
        // the cut goes back to the boundary before it.
        short.keep_at_most(4097);
        assert_eq!(short.kept.len(), 4096);
        assert_eq!(short.kept.capacity(), short.kept.len());
        assert_eq!(
            short.kept.len() as u64 + short.dropped,
            whole.kept.len() as u64 + whole.dropped
        );
        assert!(short.same(&whole));
        let mut other = whole.clone();
        other.keep_at_most(100);
        assert!(other.same(&short));
        let mut changed = Text::default();
        changed.push(&long[..long.len() - 1]);
        changed.push("X");
        changed.keep_at_most(100);
        assert!(!changed.same(&short));
    }

    #[test]
    fn texts_past_the_cap_compare_by_length_and_hash() {
        let long = "ab ".repeat(MAX_TEXT_BYTES / 3 + 100);
        let (mut a, mut b, mut c) = (Text::default(), Text::default(), Text::default());
        for piece in long.as_bytes().chunks(1000) {
            a.push(std::str::from_utf8(piece).unwrap());
        }
        b.push(&long);
        c.push(&long[..long.len() - 1]);
        c.push("X");
        assert_eq!(a.kept.len(), MAX_TEXT_BYTES);
        assert!(a.dropped > 0);
        assert!(a.same(&b));
        assert!(!a.same(&c));
        // Joined from pieces that each kept their own part, the same.
        let mut first = Text::default();
        first.push(&long[..10]);
        let mut rest = Text::default();
        rest.push(&long[10..]);
        let mut joined = Text::default();
        joined.push_text(&first);
        joined.push_text(&rest);
        assert!(joined.same(&a));
        // Nothing kept after a byte was dropped: a short push stays out.
        let mut d = b.clone();
        d.push("z");
        assert_eq!(d.kept, b.kept);
        assert!(!d.same(&b));
    }

    #[test]
    fn a_piece_repeats_the_text_only_when_it_is_all_of_it() {
        let mut t = Text::default();
        assert!(!t.is_repeated_by(""));
        t.push("Rain forms");
        t.push(" when vapour condenses.");
        assert!(t.is_repeated_by("Rain forms when vapour condenses."));
        assert!(!t.is_repeated_by("Rain forms when vapour condenses!"));
        assert!(!t.is_repeated_by(" when vapour condenses."));
        assert!(!t.is_repeated_by(""));
        // Past the cap, by length and hash.
        let long = "ab ".repeat(MAX_TEXT_BYTES / 3 + 100);
        let mut big = Text::default();
        for piece in long.as_bytes().chunks(1000) {
            big.push(std::str::from_utf8(piece).unwrap());
        }
        assert!(big.dropped > 0);
        assert!(big.is_repeated_by(&long));
        let mut other = long.clone();
        other.pop();
        other.push('X');
        assert!(!big.is_repeated_by(&other));
    }
}
