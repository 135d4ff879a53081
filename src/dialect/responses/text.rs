//! Text as the Responses checker keeps it: the first bytes (within a budget
//! shared by the whole stream) plus the full length and a running hash, so
//! streamed deltas can be compared with a `.done` event's full value in
//! bounded memory, however long the answer.

/// A budget of text bytes to keep, shared by every [`Acc`] of one stream.
#[derive(Debug, Clone, Copy)]
pub struct Budget(pub usize);

/// Most text bytes one Responses stream keeps (deltas and the full values
/// of `.done` events that differ from them, together): room for what the
/// answer keeps of its text and of its reasoning
/// ([`crate::model::assembly::MAX_TEXT_BYTES`] each). Past it text is
/// counted and hashed, not stored.
pub const MAX_KEPT_BYTES: usize = 2 * crate::model::assembly::MAX_TEXT_BYTES;

impl Default for Budget {
    fn default() -> Self {
        // Less when the caller keeps less of each text (`proxy`).
        Budget(2 * crate::model::assembly::text_cap())
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
    pub fn of(s: &str, budget: &mut Budget) -> Acc {
        let mut a = Acc::default();
        a.push(s, budget);
        a
    }

    /// Appends `s`: hashed and counted in full, kept while the budget lasts
    /// (and only while everything before it was kept).
    pub fn push(&mut self, s: &str, budget: &mut Budget) {
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
        let mut cut = s.len().min(budget.0);
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.kept.push_str(&s[..cut]);
        self.rest.push(&s.as_bytes()[cut..]);
        budget.0 -= cut;
    }

    /// Lets go of the room the kept text grew into but does not use: a
    /// text whose deltas have all come keeps only its bytes.
    pub fn shrink(&mut self) {
        self.kept.shrink_to_fit();
    }

    /// Gives the kept bytes back to `budget` (when the value is replaced).
    pub fn release(self, budget: &mut Budget) {
        budget.0 += self.kept.len();
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
        "{} and {}: {how}{part}, compared by length and hash (past sselint's {} of text kept per stream)",
        shown(a),
        shown(b),
        match 2 * crate::model::assembly::text_cap() {
            kept if kept >= 1 << 20 => format!("{} MiB", kept >> 20),
            kept => format!("{} KiB", kept >> 10),
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_compare_equal_to_the_whole_text_kept_or_not() {
        let mut b = Budget(1000);
        let mut a = Acc::default();
        for d in ["Hel", "lo ", "wörld"] {
            a.push(d, &mut b);
        }
        assert!(a.same(&Acc::of("Hello wörld", &mut b)));
        assert!(!a.same(&Acc::of("Hello world", &mut b)));
        // Past the budget: counted and hashed, not kept.
        let mut small = Budget(4);
        let mut c = Acc::default();
        c.push("Hel", &mut small);
        c.push("lo wörld", &mut small);
        assert!(!c.is_whole());
        assert_eq!(c.kept, "Hell");
        assert!(c.same(&a));
        assert_eq!(c.chars(), 4 + "o wörld".len() as u64);
        assert!(describe_difference(&a, &Acc::of("Hello", &mut b)).contains("part at character 6"));
    }

    #[test]
    fn a_multibyte_character_is_never_split_at_the_budget() {
        let mut b = Budget(2);
        let a = Acc::of("ö!", &mut b);
        assert_eq!(a.kept, "ö");
        let mut b = Budget(1);
        let a = Acc::of("ö", &mut b);
        assert_eq!(a.kept, "");
        assert_eq!(b.0, 1);
    }
}
