//! Text as the Responses checker keeps it: the first bytes (within a budget
//! shared by the whole stream) plus the full length and a running hash, so
//! streamed deltas can be compared with a `.done` event's full value in
//! bounded memory, however long the answer.

use crate::model::assembly::MAX_TEXT_BYTES;

/// Most text bytes one Responses stream keeps in all (deltas, the full
/// values of `.done` events that differ from them, and arguments,
/// together): 2 MiB. Past it text is counted and hashed, not stored.
pub const MAX_KEPT_BYTES: usize = 2 * MAX_TEXT_BYTES;

/// The byte budget shared by every [`Acc`] of one stream, split as the
/// Messages model splits its own: [`MAX_KEPT_BYTES`] in all, of which the
/// message text (`output_text` and `refusal` parts) and the reasoning
/// (`reasoning_text` and summary parts) each take at most
/// [`MAX_TEXT_BYTES`], what the answer keeps of each. Arguments and
/// other parts draw on the total alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    left: usize,
    text_left: usize,
    reasoning_left: usize,
}

/// Which share of the [`Budget`] a text draws on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    /// A message's `output_text` and `refusal` parts.
    Text,
    /// `reasoning_text` and reasoning summary parts.
    Reasoning,
    /// Anything else (a call's arguments): the total alone.
    Other,
}

impl Pool {
    /// The pool of a part of type `kind` (`output_text`, `summary_text`, …).
    pub fn of_kind(kind: &str) -> Pool {
        match kind {
            "output_text" | "refusal" => Pool::Text,
            "reasoning_text" | "summary_text" => Pool::Reasoning,
            _ => Pool::Other,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        // Less when the caller keeps less of each text (`proxy`).
        let cap = crate::model::assembly::text_cap();
        Budget {
            left: 2 * cap,
            text_left: cap,
            reasoning_left: cap,
        }
    }
}

impl Budget {
    /// A budget of `bytes` in all, with no smaller share per pool (for a
    /// comparison that keeps everything, and for tests).
    pub fn of(bytes: usize) -> Budget {
        Budget {
            left: bytes,
            text_left: bytes,
            reasoning_left: bytes,
        }
    }

    /// Bytes still free in all.
    pub fn left(&self) -> usize {
        self.left
    }

    fn share(&mut self, pool: Pool) -> Option<&mut usize> {
        match pool {
            Pool::Text => Some(&mut self.text_left),
            Pool::Reasoning => Some(&mut self.reasoning_left),
            Pool::Other => None,
        }
    }

    /// Bytes a text of `pool` may still keep.
    fn room(&self, pool: Pool) -> usize {
        let share = match pool {
            Pool::Text => self.text_left,
            Pool::Reasoning => self.reasoning_left,
            Pool::Other => usize::MAX,
        };
        self.left.min(share)
    }

    /// Takes `n` bytes (at most what is left) from `pool` and the total.
    pub fn take(&mut self, pool: Pool, n: usize) {
        self.left = self.left.saturating_sub(n);
        if let Some(s) = self.share(pool) {
            *s = s.saturating_sub(n);
        }
    }

    /// Gives `n` bytes back to `pool` and the total.
    pub fn give(&mut self, pool: Pool, n: usize) {
        self.left += n;
        if let Some(s) = self.share(pool) {
            *s += n;
        }
    }
}

use crate::model::assembly::Digest;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// Accumulated text: the bytes kept, the length received (bytes) and an
/// FNV-1a hash of all of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acc {
    /// The text kept (a prefix of what was received).
    pub kept: String,
    /// Bytes received.
    pub len: u64,
    hash: u64,
    /// The bytes received past those kept, for the answer
    /// ([`crate::model::assembly::Text::push_parts`]).
    pub rest: Digest,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            kept: String::new(),
            len: 0,
            hash: FNV_OFFSET,
            rest: Digest::default(),
        }
    }
}

impl Acc {
    /// The whole of `s`, within `budget`.
    pub fn of(s: &str, budget: &mut Budget, pool: Pool) -> Acc {
        let mut a = Acc::default();
        a.push(s, budget, pool);
        a
    }

    /// Appends `s`: hashed and counted in full, kept while the budget lasts
    /// (and only while everything before it was kept).
    pub fn push(&mut self, s: &str, budget: &mut Budget, pool: Pool) {
        for b in s.as_bytes() {
            self.hash ^= u64::from(*b);
            self.hash = self.hash.wrapping_mul(FNV_PRIME);
        }
        let whole = self.is_whole();
        self.len += s.len() as u64;
        if !whole {
            self.rest.push(s.as_bytes());
            return;
        }
        let cut = s.floor_char_boundary(budget.room(pool));
        self.kept.push_str(&s[..cut]);
        self.rest.push(&s.as_bytes()[cut..]);
        budget.take(pool, cut);
    }

    /// Lets go of the room the kept text grew into but does not use: a
    /// text whose deltas have all come keeps only its bytes.
    pub fn shrink(&mut self) {
        self.kept.shrink_to_fit();
    }

    /// Gives the kept bytes back to `budget`'s `pool` (when the value is
    /// replaced).
    pub fn release(self, budget: &mut Budget, pool: Pool) {
        budget.give(pool, self.kept.len());
    }

    /// Whether every byte received is kept.
    pub fn is_whole(&self) -> bool {
        self.kept.len() as u64 == self.len
    }

    /// Whether nothing was received.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether both hold the same text (compared byte for byte where both
    /// are kept whole, by length and hash otherwise).
    pub fn same(&self, other: &Acc) -> bool {
        if self.len != other.len || self.hash != other.hash {
            return false;
        }
        !(self.is_whole() && other.is_whole()) || self.kept == other.kept
    }

    /// Whether `piece` is the whole text received so far, once more: a
    /// delta about to be appended that repeats all the text before it
    /// (`responses-repeated-answer`). Compared only when the lengths agree,
    /// byte for byte when all of it was kept, else by length and hash. An
    /// empty piece repeats nothing.
    pub fn is_repeated_by(&self, piece: &str) -> bool {
        if piece.is_empty() || self.len != piece.len() as u64 {
            return false;
        }
        if self.is_whole() {
            return self.kept == piece;
        }
        let mut hash = FNV_OFFSET;
        for b in piece.as_bytes() {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(FNV_PRIME);
        }
        hash == self.hash
    }

    /// The length and hash: two texts with the same fingerprint are the
    /// same text.
    pub fn fingerprint(&self) -> (u64, u64) {
        (self.len, self.hash)
    }

    /// Characters received, as far as they are kept (bytes past the budget
    /// count one each).
    pub fn chars(&self) -> u64 {
        self.kept.chars().count() as u64 + (self.len - self.kept.len() as u64)
    }
}

pub use crate::model::shorten;

/// How two texts differ, for messages: their lengths in characters and
/// where they part (`"Hello" (5 characters) and "Hello!" (6): they part at
/// character 6`). A text past the kept budget is described by its length
/// in bytes and what of it was kept, never as the empty string its kept
/// part may be; two such texts were compared by length and hash, and the
/// message says so.
pub fn describe_difference(a: &Acc, b: &Acc) -> String {
    if a.is_whole() && b.is_whole() {
        let at = a
            .kept
            .chars()
            .zip(b.kept.chars())
            .take_while(|(x, y)| x == y)
            .count();
        return format!(
            "{:?} ({} characters) and {:?} ({}): they part at character {}",
            shorten(&a.kept, 48),
            a.chars(),
            shorten(&b.kept, 48),
            b.chars(),
            at + 1
        );
    }
    let shown = |x: &Acc| {
        if x.is_whole() {
            format!("{:?} ({} bytes)", shorten(&x.kept, 48), x.len)
        } else if x.kept.is_empty() {
            format!("a text of {} bytes (none of it kept)", x.len)
        } else {
            format!(
                "{:?} ({} bytes, the first {} kept)",
                shorten(&x.kept, 48),
                x.len,
                x.kept.len()
            )
        }
    };
    let how = if a.len == b.len {
        format!("the same length ({} bytes) but other bytes", a.len)
    } else {
        format!("{} and {} bytes long", a.len, b.len)
    };
    // Where they part, when it lies in what both kept.
    let common = a
        .kept
        .bytes()
        .zip(b.kept.bytes())
        .take_while(|(x, y)| x == y)
        .count();
    let part = if common < a.kept.len().min(b.kept.len()) {
        format!(", parting at byte {}", common + 1)
    } else {
        String::new()
    };
    format!(
        "{} and {}: {how}{part}, compared by length and hash (past what sselint keeps of a stream: {cap} of text, {cap} of reasoning, {all} in all)",
        shown(a),
        shown(b),
        cap = size(crate::model::assembly::text_cap()),
        all = size(2 * crate::model::assembly::text_cap()),
    )
}

/// `bytes` as whole MiB, or whole KiB below one MiB.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_compare_equal_to_the_whole_text_kept_or_not() {
        let mut b = Budget::of(1000);
        let mut a = Acc::default();
        for d in ["Hel", "lo ", "wörld"] {
            a.push(d, &mut b, Pool::Text);
        }
        assert!(a.same(&Acc::of("Hello wörld", &mut b, Pool::Text)));
        assert!(!a.same(&Acc::of("Hello world", &mut b, Pool::Text)));
        // Past the budget: counted and hashed, not kept.
        let mut small = Budget::of(4);
        let mut c = Acc::default();
        c.push("Hel", &mut small, Pool::Text);
        c.push("lo wörld", &mut small, Pool::Text);
        assert!(!c.is_whole());
        assert_eq!(c.kept, "Hell");
        assert!(c.same(&a));
        assert_eq!(c.chars(), 4 + "o wörld".len() as u64);
        assert!(
            describe_difference(&a, &Acc::of("Hello", &mut b, Pool::Text))
                .contains("part at character 6")
        );
    }

    #[test]
    fn a_multibyte_character_is_never_split_at_the_budget() {
        let mut b = Budget::of(2);
        let a = Acc::of("ö!", &mut b, Pool::Text);
        assert_eq!(a.kept, "ö");
        let mut b = Budget::of(1);
        let a = Acc::of("ö", &mut b, Pool::Text);
        assert_eq!(a.kept, "");
        assert_eq!(b.left(), 1);
    }

    #[test]
    fn text_and_reasoning_each_keep_what_the_answer_keeps_and_arguments_the_rest() {
        let mib = "ab".repeat(MAX_TEXT_BYTES / 2);
        let mut b = Budget::default();
        let mut text = Acc::default();
        text.push(&mib, &mut b, Pool::Text);
        // The text's share is spent: a second text part keeps nothing,
        // a refusal neither (the same share), but is still counted.
        let more = Acc::of("more", &mut b, Pool::Text);
        assert_eq!((more.kept.as_str(), more.len), ("", 4));
        assert!(!Acc::of("no", &mut b, Pool::Text).is_whole());
        // Reasoning has a share of its own, arguments the total's rest.
        let mut thought = Acc::default();
        thought.push(&mib, &mut b, Pool::Reasoning);
        thought.push("!", &mut b, Pool::Reasoning);
        assert_eq!(
            (thought.kept.len(), thought.len),
            (MAX_TEXT_BYTES, MAX_TEXT_BYTES as u64 + 1)
        );
        assert_eq!(b.left(), 0);
        let args = Acc::of("{}", &mut b, Pool::Other);
        assert_eq!(args.kept, "");
        // Released text goes back to its share and to the total.
        text.release(&mut b, Pool::Text);
        assert_eq!(b.left(), MAX_TEXT_BYTES);
        assert_eq!(Acc::of("more", &mut b, Pool::Text).kept, "more");
        assert_eq!(Acc::of("{}", &mut b, Pool::Other).kept, "{}");
    }
}
