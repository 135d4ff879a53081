//! Reading the compact JSON form that providers send, byte by byte.
//!
//! A delta event from a provider has one form in practice: no whitespace,
//! the documented keys in one order (Anthropic's
//! `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`).
//! A dialect's fast path matches that form literally with these helpers
//! and reads the values without a serde parse. They accept only what a
//! JSON parser accepts, and give the same value (`serde_json`'s); on
//! anything else they give `None`, and the caller falls back to its typed
//! serde parse, which decides. Each use is tested against that parse on
//! mutated inputs.

/// True when `s` is `end` followed by nothing but JSON whitespace (which a
/// JSON parser accepts after the value; Anthropic pads some events with
/// spaces).
pub(crate) fn ends(s: &str, end: &str) -> bool {
    s.strip_prefix(end)
        .is_some_and(|t| t.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')))
}

/// Where a string's decoded contents are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Text<'a> {
    /// The string held no escape: its contents, lent from the input.
    Lent(&'a str),
    /// The string held escapes: its contents were decoded into the
    /// caller's buffer.
    Kept,
}

/// A JSON unsigned integer at the start of `s` (digits, no sign, no
/// leading zero, no fraction or exponent, at most `u64::MAX`), and the
/// rest of `s`. `None` for anything else, including a number that goes on
/// with `.`, `e` or `E`.
pub(crate) fn uint(s: &str) -> Option<(u64, &str)> {
    let b = s.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || (digits > 1 && b[0] == b'0') {
        return None;
    }
    if matches!(b.get(digits), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    let mut n: u64 = 0;
    for &c in &b[..digits] {
        n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some((n, &s[digits..]))
}

/// A JSON string without escapes whose contents start at `s` (just after
/// the opening quote): its contents and the rest of `s` after its closing
/// quote. `None` when it is not closed, holds an escape or a control
/// character.
pub(crate) fn plain(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let end = b
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
    (b[end] == b'"').then(|| (&s[..end], &s[end + 1..]))
}

/// The JSON string whose contents start at `s` (just after the opening
/// quote), and the rest of `s` after its closing quote. Without escapes
/// the contents are lent; with escapes they are decoded into `buf`
/// (cleared first) and [`Text::Kept`] is returned. `None` when the string
/// is not closed, holds a control character (U+0000 to U+001F), a
/// malformed escape, or a `\u` escape of a lone surrogate.
pub(crate) fn string<'a>(s: &'a str, buf: &mut String) -> Option<(Text<'a>, &'a str)> {
    let b = s.as_bytes();
    let mut i = 0;
    // The run without escapes: lent when it ends the string.
    while i < b.len() {
        match b[i] {
            b'"' => return Some((Text::Lent(&s[..i]), &s[i + 1..])),
            b'\\' => break,
            c if c < 0x20 => return None,
            _ => i += 1,
        }
    }
    if i == b.len() {
        return None;
    }
    buf.clear();
    buf.push_str(&s[..i]);
    let mut run = i;
    while i < b.len() {
        match b[i] {
            b'"' => {
                buf.push_str(&s[run..i]);
                return Some((Text::Kept, &s[i + 1..]));
            }
            b'\\' => {
                buf.push_str(&s[run..i]);
                i = escape(b, i + 1, buf)?;
                run = i;
            }
            c if c < 0x20 => return None,
            _ => i += 1,
        }
    }
    None
}

/// Decodes the escape whose letter is at `b[i]` into `buf`; the index
/// after it.
fn escape(b: &[u8], i: usize, buf: &mut String) -> Option<usize> {
    let c = match *b.get(i)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hi = hex4(b, i + 1)?;
            return match hi {
                0xD800..=0xDBFF => {
                    // A high surrogate: a low one must follow at once.
                    if b.get(i + 5..i + 7)? != b"\\u" {
                        return None;
                    }
                    let lo = hex4(b, i + 7)?;
                    if !(0xDC00..=0xDFFF).contains(&lo) {
                        return None;
                    }
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    buf.push(char::from_u32(c)?);
                    Some(i + 11)
                }
                0xDC00..=0xDFFF => None,
                _ => {
                    buf.push(char::from_u32(hi)?);
                    Some(i + 5)
                }
            };
        }
        _ => return None,
    };
    buf.push(c);
    Some(i + 1)
}

/// Four hex digits at `b[i..]`, as a number.
fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let h = b.get(i..i + 4)?;
    let mut n = 0u32;
    for &c in h {
        n = n * 16 + char::from(c).to_digit(16)?;
    }
    Some(n)
}

/// Every string made from `seed` by deleting one character, replacing it
/// with one of a few that matter to JSON, or inserting one of those before
/// it: the mutations the dialects' tests read both ways.
#[cfg(test)]
pub(crate) fn one_char_changes(seed: &str) -> Vec<String> {
    let subs = [
        "", "\"", "\\", "u", "d", "8", "0", "1", "-", ".", "e", ",", ":", "}", "]", "[", " ", "a",
        "/", "n", "\u{1}", "\u{7f}", "é",
    ];
    let mut out = Vec::new();
    for (at, c) in seed.char_indices() {
        let end = at + c.len_utf8();
        for sub in subs {
            out.push(format!("{}{sub}{}", &seed[..at], &seed[end..]));
            if !sub.is_empty() {
                out.push(format!("{}{sub}{}", &seed[..at], &seed[at..]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `string` on `"…"` as serde_json reads it.
    fn both(json: &str) -> (Option<String>, Option<String>) {
        let mut buf = String::new();
        let Some(inner) = json.strip_prefix('"') else {
            return (None, None);
        };
        let ours = string(inner, &mut buf).and_then(|(t, rest)| {
            rest.is_empty().then(|| match t {
                Text::Lent(s) => s.to_string(),
                Text::Kept => buf.clone(),
            })
        });
        (ours, serde_json::from_str::<String>(json).ok())
    }

    #[test]
    fn strings_read_as_serde_json_reads_them() {
        let cases = [
            r#""""#,
            r#""plain text é ✓""#,
            r#""a \"quoted\" \\ \/ \b\f\n\r\t end""#,
            r#""\u0041\u00e9\u2713\u0000""#,
            r#""\ud83d\ude00 pair""#,
            r#""{\"a\": [\"The\", \" quick\"]}""#,
        ];
        for c in cases {
            let (ours, theirs) = both(c);
            assert!(ours.is_some(), "{c}");
            assert_eq!(ours, theirs, "{c}");
        }
        // What serde_json rejects is not read here either (the caller's
        // serde parse then decides).
        let bad = [
            "\"open",
            "\"a\\",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"\\ud83d\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ude00\"",
            "\"tab\there\"",
            "\"nl\nhere\"",
        ];
        for c in bad {
            assert_eq!(both(c).0, None, "{c:?}");
        }
    }

    #[test]
    fn every_one_byte_change_reads_as_serde_json_or_not_at_all() {
        let seeds = [
            r#""{\"a\": [\"The\", \" quick\"]}""#,
            r#""x\u00e9\ud83d\ude00y\n""#,
            r#""Hello there""#,
        ];
        let (mut read, mut n) = (0, 0);
        for seed in seeds {
            for s in one_char_changes(seed) {
                let (ours, theirs) = both(&s);
                if ours.is_some() {
                    assert_eq!(ours, theirs, "{s:?}");
                    read += 1;
                }
                n += 1;
            }
        }
        assert!(read > 100 && n > 1000, "{read} of {n}");
    }

    #[test]
    fn only_json_whitespace_may_follow_the_end() {
        assert!(ends("}}", "}}"));
        assert!(ends("}}   \t\r\n", "}}"));
        for s in ["}", "}} x", "}}\u{a0}", "}}\u{c}", " }}"] {
            assert!(!ends(s, "}}"), "{s:?}");
        }
        for s in ["{}", "{}  ", "{} \n"] {
            assert!(
                serde_json::from_str::<serde_json::Value>(s).is_ok(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn plain_strings_are_read_only_without_escapes() {
        assert_eq!(plain(r#"msg_1","x"#), Some(("msg_1", r#","x"#)));
        assert_eq!(plain(r#"""#), Some(("", "")));
        for s in [r#"a\"b""#, "a\tb\"", "a", "a\u{1}\""] {
            assert_eq!(plain(s), None, "{s:?}");
        }
    }

    #[test]
    fn numbers_read_as_serde_json_reads_a_u64() {
        for s in [
            "0",
            "7",
            "42",
            "18446744073709551615",
            "18446744073709551616",
            "01",
            "-1",
            "1.0",
            "1e3",
            "",
            "x",
        ] {
            let ours = uint(&format!("{s},")).map(|(n, _)| n);
            assert_eq!(ours, serde_json::from_str::<u64>(s).ok(), "{s}");
        }
        assert_eq!(uint("12}"), Some((12, "}")));
    }
}
