//! The Messages stream model: the message (`id`, `model`), its content
//! blocks in arrival order with their `index`, and how they assemble into
//! [`Answer`] choice 0.
//!
//! Shapes follow the Anthropic streaming guide ("Event types") and the
//! block and delta unions of the SDK types (reference §2.2): a block is
//! opened by `content_block_start` (`text`, `thinking`,
//! `redacted_thinking`, `tool_use`, `server_tool_use`, server tool result
//! blocks that arrive whole, …), filled by `content_block_delta` and closed
//! by `content_block_stop`.
//!
//! Memory is bounded: at most [`MAX_BLOCKS`] blocks are kept per stream
//! (later ones are counted, their text still joins the answer through an
//! overflow block), and all kept text, thinking, tool input and signatures
//! together hold at most [`MAX_STORED_BYTES`], text and thinking at most
//! [`MAX_TEXT_BYTES`] each (what the answer keeps of them); the rest is
//! counted as dropped.

use crate::model::assembly::{Answer, Text, ToolCall, MAX_TEXT_BYTES};

/// Most content blocks kept per stream; past it blocks are only counted.
pub const MAX_BLOCKS: usize = 4096;

/// Most bytes of text, thinking, tool input and signature kept across all
/// blocks of a stream (4 MiB); the rest is counted as dropped.
pub const MAX_STORED_BYTES: usize = 4 * MAX_TEXT_BYTES;

/// Longest block type kept verbatim (bytes); longer ones are cut.
const MAX_KIND_BYTES: usize = 64;

/// The block types that carry tool input (`input` object in
/// `content_block_start`, then `input_json_delta` fragments).
pub const TOOL_BLOCKS: &[&str] = &["tool_use", "server_tool_use", "mcp_tool_use"];

/// The block type that is a tool call for the client to run; the server
/// runs `server_tool_use` and `mcp_tool_use` itself, so they are tool
/// calls of their own kind in the answer (`ToolCall::server`).
pub const CLIENT_TOOL: &str = "tool_use";

/// One content block as streamed.
#[derive(Debug, Default, Clone)]
pub struct Block {
    /// Its `index` (the position in the final `content` array).
    pub index: u64,
    /// `content_block.type` (`text`, `thinking`, `tool_use`, …), at most
    /// 64 bytes; empty when absent.
    pub kind: String,
    /// Event index of its `content_block_start` (or of the first delta for
    /// a block that was never started).
    pub start_event: Option<u64>,
    /// `text_delta` text (and the start's `text`), whatever the block type.
    pub text: Text,
    /// `thinking_delta` text (and the start's `thinking`).
    pub thinking: Text,
    /// The signature (`signature_delta`, or the start's non-empty
    /// `signature`).
    pub signature: Option<String>,
    /// Deltas received.
    pub deltas: u64,
    /// A `tool_use` block's `id` and `name`.
    pub id: Option<String>,
    /// See `id`.
    pub name: Option<String>,
    /// `input_json_delta.partial_json` fragments joined.
    pub input: String,
    /// Bytes of input dropped past [`MAX_STORED_BYTES`]: the input can no
    /// longer be judged.
    pub input_dropped: u64,
    /// Whether any `input_json_delta` came.
    pub input_streamed: bool,
    /// The start's `input` object, serialized, when it was not `{}` (a
    /// block whose input arrives whole).
    pub start_input: Option<String>,
    /// Still open (no `content_block_stop` yet).
    pub open: bool,
    /// Non-empty `text_delta`s received.
    pub text_deltas: u64,
    /// Where the last non-empty `text_delta`, the third or later, repeated
    /// all the block's text before it, and its event (the
    /// `messages-repeated-answer` rule); a later one clears it. Boxed: a
    /// block is kept for each of up to [`MAX_BLOCKS`] blocks, and almost
    /// none has one (its 100 bytes unboxed were a quarter of a block).
    pub repeat_at: Option<Box<(crate::lint::Location, Option<u64>)>>,
    /// Never started: its first delta or stop came with no
    /// `content_block_start` (`messages-block-not-open`).
    pub implicit: bool,
    /// Left open when another block started (`messages-block-overlap`): its
    /// missing stop is part of that finding.
    pub overlapped: bool,
    /// Where its text went in the stream's [`Answered`] text, when it was
    /// moved there at its stop ([`Answered::take`]); `text` then keeps
    /// nothing.
    pub in_answer: Option<std::ops::Range<usize>>,
}

impl Block {
    /// Lets go of the room its texts grew into but do not use, once the
    /// block has stopped and its deltas are over.
    pub fn shrink(&mut self) {
        self.text.kept.shrink_to_fit();
        self.thinking.kept.shrink_to_fit();
        self.input.shrink_to_fit();
    }

    /// A block of type `kind` at `index`.
    pub fn new(index: u64, kind: &str, start_event: Option<u64>) -> Self {
        let cut = kind.floor_char_boundary(MAX_KIND_BYTES);
        Block {
            index,
            kind: kind[..cut].to_string(),
            start_event,
            open: true,
            ..Block::default()
        }
    }

    /// Whether the block carries tool input.
    pub fn is_tool(&self) -> bool {
        TOOL_BLOCKS.contains(&self.kind.as_str())
    }

    /// The tool input as clients assemble it: the joined fragments, else
    /// the start's non-empty `input`, else `{}`.
    pub fn arguments(&self) -> String {
        self.arguments_str().to_string()
    }

    /// [`Block::arguments`], lent.
    pub fn arguments_str(&self) -> &str {
        if self.input_streamed {
            if self.input.is_empty() {
                "{}"
            } else {
                &self.input
            }
        } else {
            self.start_input.as_deref().unwrap_or("{}")
        }
    }
}

/// The byte budget shared by every block of a stream: [`MAX_STORED_BYTES`]
/// in all, of which text and thinking each take at most
/// [`MAX_TEXT_BYTES`] across the blocks, what the answer keeps of each
/// (blocks arrive in `index` order, so the text kept is the answer's).
#[derive(Debug, Clone)]
pub struct Budget {
    left: usize,
    text_left: usize,
    thinking_left: usize,
}

impl Default for Budget {
    fn default() -> Self {
        // Less text when the caller keeps less of each (`proxy`); the
        // rest (tool input) keeps its room.
        let cap = crate::model::assembly::text_cap();
        Budget {
            left: MAX_STORED_BYTES - 2 * (MAX_TEXT_BYTES - cap),
            text_left: cap,
            thinking_left: cap,
        }
    }
}

/// What a text pushed into a block is: its pool within the [`Budget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    /// `text` (a `text_delta`, a start's `text`).
    Text,
    /// `thinking` (a `thinking_delta`, a start's `thinking`).
    Thinking,
}

impl Budget {
    /// The longest prefix of `s` (on a char boundary) that still fits;
    /// takes it from the budget.
    pub fn take<'a>(&mut self, s: &'a str) -> &'a str {
        let cut = s.floor_char_boundary(self.left);
        self.left -= cut;
        &s[..cut]
    }

    /// Appends `s` to `t` within the budget and the pool's own share (the
    /// rest counts as dropped).
    pub fn push(&mut self, pool: Pool, t: &mut Text, s: &str) {
        let share = match pool {
            Pool::Text => &mut self.text_left,
            Pool::Thinking => &mut self.thinking_left,
        };
        let cut = s.floor_char_boundary((*share).min(self.left));
        *share -= cut;
        self.left -= cut;
        let kept = &s[..cut];
        t.push(kept);
        t.drop_bytes(&s.as_bytes()[kept.len()..]);
    }

    /// Appends `s` to `to` within the budget; returns the bytes dropped.
    pub fn push_str(&mut self, to: &mut String, s: &str) -> u64 {
        let kept = self.take(s);
        to.push_str(kept);
        (s.len() - kept.len()) as u64
    }
}

/// Characters of text, thinking and tool calls assembled so far, for
/// messages that say how much of an answer streamed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Streamed {
    /// Characters of answer text.
    pub text_chars: u64,
    /// Characters of thinking.
    pub thinking_chars: u64,
    /// Tool-input blocks.
    pub tool_blocks: u64,
}

impl Streamed {
    /// "37 characters of text, 120 of thinking and 1 tool_use block".
    pub fn describe(&self) -> String {
        let mut parts = vec![format!("{} characters of text", self.text_chars)];
        if self.thinking_chars > 0 {
            parts.push(format!("{} of thinking", self.thinking_chars));
        }
        if self.tool_blocks > 0 {
            parts.push(format!(
                "{} tool_use block{}",
                self.tool_blocks,
                if self.tool_blocks == 1 { "" } else { "s" }
            ));
        }
        match parts.as_slice() {
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
            [] => String::new(),
        }
    }
}

/// The text of the blocks that have stopped, joined in the order they
/// stopped: a stopped block's whole kept text moves here, so that the
/// answer takes it over at the end instead of copying it (one copy of
/// the answer's text at the stream's end, not two; issue 40). Each moved
/// block keeps its range ([`Block::in_answer`]), so any order of blocks
/// still assembles as from the blocks' own texts.
#[derive(Debug, Default, Clone)]
pub struct Answered {
    text: String,
}

impl Answered {
    /// Moves the stopped block `b`'s text here, when all of it was kept
    /// and the joined text stays within what the answer keeps.
    pub fn take(&mut self, b: &mut Block) {
        let t = &b.text;
        if b.in_answer.is_some()
            || t.dropped > 0
            || t.kept.is_empty()
            || self.text.len() + t.kept.len() > MAX_TEXT_BYTES
        {
            return;
        }
        let start = self.text.len();
        crate::model::assembly::reserve_kept(&mut self.text, t.kept.len(), MAX_TEXT_BYTES);
        self.text.push_str(&t.kept);
        b.text = Text::default();
        b.in_answer = Some(start..self.text.len());
    }

    /// Gives `b` its text back (more text is coming for it: a delta after
    /// its stop).
    pub fn restore(&self, b: &mut Block) {
        if let Some(r) = b.in_answer.take() {
            b.text = Text::default();
            b.text.push(&self.text[r]);
        }
    }

    /// The text of `b`, kept here or in the block.
    fn of<'a>(&'a self, b: &'a Block) -> &'a str {
        match &b.in_answer {
            Some(r) => &self.text[r.clone()],
            None => &b.text.kept,
        }
    }
}

/// Counts what `blocks` (and the overflow) hold.
pub fn streamed(blocks: &[Block], overflow: &Block, answered: &Answered) -> Streamed {
    let mut s = Streamed::default();
    for b in blocks.iter().chain(std::iter::once(overflow)) {
        s.text_chars += answered.of(b).chars().count() as u64 + b.text.dropped;
        s.thinking_chars += b.thinking.kept.chars().count() as u64 + b.thinking.dropped;
        if b.is_tool() {
            s.tool_blocks += 1;
        }
    }
    s
}

/// Assembles the blocks into choice 0 of `answer`: text blocks joined in
/// `index` order (arrival order among equal indexes), thinking as
/// reasoning, each tool block as a tool call (`id`, `name`, input as its
/// arguments; a `tool_use` block is a `function` call, a server-run
/// tool's block a call of its block type that the server ran); the
/// overflow block's text last.
///
/// The text the blocks moved to `answered` is taken over whole when those
/// blocks come first in that order, in the order they moved (a stream's
/// blocks arrive by index, so they do), and copied from it otherwise.
pub fn assemble(answer: &mut Answer, blocks: &[Block], overflow: &Block, mut answered: Answered) {
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&i| (blocks[i].index, i));
    // Whether the moved texts are the first texts in that order, each
    // where the one before it ended, and all of `answered`: then they are
    // the answer's text so far. Blocks with no text (a tool_use block)
    // may sit anywhere: they add nothing.
    let mut next = 0;
    let mut in_order = true;
    let mut unmoved_text = false;
    for b in order.iter().map(|&i| &blocks[i]) {
        match &b.in_answer {
            Some(r) => {
                in_order &= !unmoved_text && r.start == next;
                next = r.end;
            }
            None => unmoved_text |= b.text.received() > 0,
        }
    }
    let c = answer.choice(0);
    let whole = in_order && next == answered.text.len() && c.text.received() == 0;
    if whole {
        c.text.kept = std::mem::take(&mut answered.text);
    }
    for b in order
        .into_iter()
        .map(|i| &blocks[i])
        .chain(std::iter::once(overflow))
    {
        match &b.in_answer {
            Some(_) if whole => {}
            Some(r) => c.text.push(&answered.text[r.clone()]),
            None => c.text.push_text(&b.text),
        }
        c.reasoning.push_text(&b.thinking);
        if b.is_tool() {
            let index = c.tool_calls.len() as u64;
            let server = b.kind != CLIENT_TOOL;
            c.tool_calls.insert(
                index,
                ToolCall {
                    index,
                    id: b.id.clone(),
                    kind: Some(if server {
                        b.kind.clone()
                    } else {
                        "function".into()
                    }),
                    name: b.name.clone(),
                    arguments: b.arguments(),
                    server,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_cuts_on_a_char_boundary_and_counts_the_rest() {
        let mut b = Budget {
            left: 5,
            ..Budget::default()
        };
        let mut t = Text::default();
        b.push(Pool::Text, &mut t, "héllo");
        // "hé" is 3 bytes, "hél" 4, "héll" 5.
        assert_eq!(t.kept, "héll");
        assert_eq!(t.dropped, 1);
        b.push(Pool::Text, &mut t, "more");
        assert_eq!(t.kept, "héll");
        assert_eq!(t.dropped, 5);
    }

    #[test]
    fn text_and_thinking_each_keep_what_the_answer_keeps() {
        let mut b = Budget::default();
        let (mut t, mut u, mut r) = (Text::default(), Text::default(), Text::default());
        let mib = "ab".repeat(MAX_TEXT_BYTES / 2);
        b.push(Pool::Text, &mut t, &mib[..MAX_TEXT_BYTES - 1]);
        // A second block's text past the share: its two-byte character
        // does not fit the one byte left.
        b.push(Pool::Text, &mut u, "éx");
        assert_eq!((t.dropped, u.kept.as_str(), u.dropped), (0, "", 3));
        // Thinking has its own share.
        b.push(Pool::Thinking, &mut r, &mib);
        assert_eq!((r.kept.len(), r.dropped), (MAX_TEXT_BYTES, 0));
        // The answer joins them as it would have the whole texts.
        let mut whole = Text::default();
        whole.push(&mib[..MAX_TEXT_BYTES - 1]);
        whole.push("éx");
        let mut joined = Text::default();
        joined.push_text(&t);
        joined.push_text(&u);
        assert!(joined.same(&whole));
        assert_eq!(joined.kept, whole.kept);
    }

    #[test]
    fn blocks_assemble_in_index_order_with_tool_input_as_arguments() {
        let mut text = Block::new(1, "text", Some(5));
        text.text.push("world");
        let mut first = Block::new(0, "text", Some(1));
        first.text.push("hello ");
        let mut tool = Block::new(2, "tool_use", Some(8));
        tool.id = Some("toolu_1".into());
        tool.name = Some("f".into());
        tool.input_streamed = true;
        tool.input = r#"{"a":1}"#.into();
        let mut answer = Answer::default();
        assemble(
            &mut answer,
            &[text, first, tool],
            &Block::default(),
            Answered::default(),
        );
        let c = &answer.choices[&0];
        assert_eq!(c.text.kept, "hello world");
        assert_eq!(c.tool_calls[&0].arguments, r#"{"a":1}"#);
        assert_eq!(
            Streamed {
                text_chars: 3,
                thinking_chars: 0,
                tool_blocks: 1
            }
            .describe(),
            "3 characters of text and 1 tool_use block"
        );
    }

    #[test]
    fn a_tool_block_without_deltas_keeps_its_start_input() {
        let mut b = Block::new(0, "server_tool_use", None);
        assert_eq!(b.arguments(), "{}");
        b.start_input = Some(r#"{"query":"x"}"#.into());
        assert_eq!(b.arguments(), r#"{"query":"x"}"#);
        b.input_streamed = true;
        assert_eq!(b.arguments(), "{}");
    }

    /// The answer as assembled from `blocks` with none moved.
    fn unmoved(blocks: &[Block]) -> Answer {
        let mut a = Answer::default();
        assemble(&mut a, blocks, &Block::default(), Answered::default());
        a
    }

    fn text_block(index: u64, text: &str) -> Block {
        let mut b = Block::new(index, "text", None);
        b.text.push(text);
        b
    }

    #[test]
    fn stopped_blocks_hand_their_text_to_the_answer_which_takes_it_over() {
        // In index order, each stopped as the next starts: the blocks keep
        // no text of their own, and the answer takes the joined text over
        // whole (its buffer is the one the blocks' texts moved into).
        let mut blocks: Vec<Block> = (0..50)
            .map(|i| text_block(i, &format!("part {i}. ")))
            .collect();
        blocks.insert(7, Block::new(50, "tool_use", None));
        let before = unmoved(&blocks);
        let mut answered = Answered::default();
        for b in &mut blocks {
            answered.take(b);
        }
        assert_eq!(blocks.iter().map(|b| b.text.kept.len()).sum::<usize>(), 0);
        let joined = answered.text.as_ptr();
        let s = streamed(&blocks, &Block::default(), &answered);
        assert_eq!(
            s.text_chars,
            before.choices[&0].text.kept.chars().count() as u64
        );
        let mut after = Answer::default();
        assemble(&mut after, &blocks, &Block::default(), answered);
        assert_eq!(format!("{after:?}"), format!("{before:?}"));
        assert_eq!(after.choices[&0].text.kept.as_ptr(), joined);
    }

    #[test]
    fn moved_text_out_of_order_or_given_back_assembles_as_unmoved() {
        let cases: [&[u64]; 3] = [&[1, 0, 2], &[0, 2, 1], &[2, 1, 0]];
        for stops in cases {
            let mut blocks: Vec<Block> = ["alpha ", "beta ", "gamma"]
                .iter()
                .enumerate()
                .map(|(i, t)| text_block(i as u64, t))
                .collect();
            // Block 1 arrived with index 5: it sorts last.
            blocks[1].index = 5;
            let before = unmoved(&blocks);
            let mut answered = Answered::default();
            for &i in stops {
                answered.take(&mut blocks[i as usize]);
            }
            let mut after = Answer::default();
            assemble(&mut after, &blocks, &Block::default(), answered);
            assert_eq!(
                format!("{after:?}"),
                format!("{before:?}"),
                "stopped in order {stops:?}"
            );
        }
        // A delta after a block's stop: its text comes back, then grows.
        let mut blocks = vec![text_block(0, "one "), text_block(1, "two ")];
        let mut answered = Answered::default();
        answered.take(&mut blocks[0]);
        answered.take(&mut blocks[1]);
        answered.restore(&mut blocks[0]);
        blocks[0].text.push("more ");
        answered.take(&mut blocks[0]);
        let mut after = Answer::default();
        assemble(&mut after, &blocks, &Block::default(), answered);
        assert_eq!(after.choices[&0].text.kept, "one more two ");
        // A text cut by the budget stays in its block.
        let mut cut = text_block(0, "kept");
        cut.text.drop_bytes(b"dropped");
        let mut answered = Answered::default();
        answered.take(&mut cut);
        assert!(cut.in_answer.is_none() && cut.text.kept == "kept");
    }
}
