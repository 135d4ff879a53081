//! From a JSON pointer to the bytes it names inside a JSON text, and from a
//! position in an event's data to a position in the body.
//!
//! The scanner walks the text once along the pointer's path, skipping
//! everything else; it is only called for chunks that got a finding, so the
//! hot path never pays for it (taplo turns schema paths into ranges the same
//! way).

use crate::sse::{Block, Line};

/// A byte range in a JSON text: the value a pointer names, and its key when
/// the parent is an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonSpan {
    /// Start of the key's opening quote, when the parent is an object.
    pub key: Option<usize>,
    /// End of the key (after its closing quote).
    pub key_end: Option<usize>,
    /// Start of the value.
    pub start: usize,
    /// End of the value (exclusive).
    pub end: usize,
}

/// Finds the value `pointer` (RFC 6901) names in `text`. For a pointer whose
/// last key is absent, returns the span of the parent object instead (the
/// place the key is missing from). `None` when `text` is not the JSON the
/// pointer walks.
pub fn find(text: &str, pointer: &str) -> Option<JsonSpan> {
    let b = text.as_bytes();
    let mut pos = skip_ws(b, 0);
    let mut key_at = None;
    let mut key_end = None;
    let tokens: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    for tok in &tokens {
        match b.get(pos)? {
            b'{' => {
                let obj_start = pos;
                pos += 1;
                let mut found = None;
                loop {
                    pos = skip_ws(b, pos);
                    if b.get(pos)? == &b'}' {
                        break;
                    }
                    let k_start = pos;
                    let k_end = skip_string(b, pos)?;
                    let key: String = serde_json::from_str(&text[k_start..k_end]).ok()?;
                    pos = skip_ws(b, k_end);
                    if b.get(pos)? != &b':' {
                        return None;
                    }
                    pos = skip_ws(b, pos + 1);
                    if &key == tok {
                        found = Some((k_start, pos));
                        break;
                    }
                    pos = skip_value(b, pos)?;
                    pos = skip_ws(b, pos);
                    match b.get(pos)? {
                        b',' => pos += 1,
                        b'}' => break,
                        _ => return None,
                    }
                }
                match found {
                    Some((k, v)) => {
                        key_at = Some(k);
                        key_end = skip_string(b, k);
                        pos = v;
                    }
                    None => {
                        let end = skip_value(b, obj_start)?;
                        return Some(JsonSpan {
                            key: None,
                            key_end: None,
                            start: obj_start,
                            end,
                        });
                    }
                }
            }
            b'[' => {
                let want: usize = tok.parse().ok()?;
                pos += 1;
                let mut i = 0;
                loop {
                    pos = skip_ws(b, pos);
                    if b.get(pos)? == &b']' {
                        return None;
                    }
                    if i == want {
                        break;
                    }
                    pos = skip_value(b, pos)?;
                    pos = skip_ws(b, pos);
                    match b.get(pos)? {
                        b',' => pos += 1,
                        _ => return None,
                    }
                    i += 1;
                }
                key_at = None;
                key_end = None;
            }
            _ => return None,
        }
    }
    let end = skip_value(b, pos)?;
    Some(JsonSpan {
        key: key_at,
        key_end,
        start: pos,
        end,
    })
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && matches!(b[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}

/// End (exclusive) of the string starting at `pos`.
fn skip_string(b: &[u8], pos: usize) -> Option<usize> {
    if b.get(pos)? != &b'"' {
        return None;
    }
    let mut i = pos + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// End (exclusive) of the value starting at `pos`. Iterative, so deep
/// nesting cannot overflow the stack.
fn skip_value(b: &[u8], pos: usize) -> Option<usize> {
    match b.get(pos)? {
        b'"' => skip_string(b, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = skip_string(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = pos;
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
            {
                i += 1;
            }
            Some(i)
        }
    }
}

/// Maps a byte offset in a block's data buffer to the `data` line holding it
/// and the offset within that line's content.
pub fn data_position<'b>(block: &'b Block<'_>, at: usize) -> Option<(&'b Line, usize)> {
    let mut cum = 0usize;
    let mut last = None;
    for line in block.data_lines() {
        let value = block.value(line);
        let vstart = block.value_start(line);
        if at <= cum + value.len() {
            return Some((line, vstart + (at - cum)));
        }
        cum += value.len() + 1;
        last = Some((line, vstart + value.len()));
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_name_values_and_keys() {
        let t = r#"{"a": [1, {"b" : "x\"y"}], "c": null}"#;
        let s = find(t, "/a/1/b").unwrap();
        assert_eq!(&t[s.start..s.end], r#""x\"y""#);
        assert_eq!(&t[s.key.unwrap()..s.key.unwrap() + 3], r#""b""#);
        let s = find(t, "/c").unwrap();
        assert_eq!(&t[s.start..s.end], "null");
        let s = find(t, "").unwrap();
        assert_eq!((s.start, s.end), (0, t.len()));
    }

    #[test]
    fn a_missing_key_names_its_parent_object() {
        let t = r#"{"a": {"x": 1}}"#;
        let s = find(t, "/a/y").unwrap();
        assert_eq!(&t[s.start..s.end], r#"{"x": 1}"#);
    }
}
