//! Greedy reduction of one JSON value: object members and array elements
//! dropped, long strings shortened, each change kept only when the test
//! still passes. Used inside events (a chunk's fields, choices, tool-call
//! fragments), on a HAR entry's metadata and on a request body.
//!
//! Not ddmin: a JSON value has few members, and a member that cannot go is
//! looked into, so one pass in document order is both cheap and thorough
//! enough. It knows nothing of streams.

use super::ddmin::Verdict;
use serde_json::Value;

/// Strings longer than this (in characters) are tried shortened to
/// [`SHORT_STRING`] characters.
pub const LONG_STRING: usize = 16;
/// What a long string is shortened to, in characters.
pub const SHORT_STRING: usize = 8;

/// Members of a HAR entry whose strings name things (a date, a version,
/// a media type, a method): never shortened.
const HAR_IDENTIFIER_KEYS: &[&str] = &[
    "startedDateTime",
    "httpVersion",
    "version",
    "mimeType",
    "method",
];

/// Whether a member's string names a thing rather than holds text (a
/// type, an event name, a model, an id, a status): never shortened, since
/// the fault may be that very name (`"chat.completions.chunk"`). The
/// default dialect's identifiers ([`crate::dialect::words::Words::identifiers`]),
/// the stream's own dialect's (`ids`: Gemini's `modelVersion` and
/// `responseId`), and a HAR's.
fn is_identifier(key: &str, ids: &[&str]) -> bool {
    ids.contains(&key)
        || crate::dialect::words::of(None).identifiers.contains(&key)
        || HAR_IDENTIFIER_KEYS.contains(&key)
}

/// What may happen to the value at a JSON pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// It may be dropped or reduced.
    Free,
    /// It stays, but what is inside it may be reduced.
    Keep,
    /// It stays as it is, with everything under it.
    Frozen,
}

/// Reduces `v` in place. `guard` says what may happen at each JSON
/// pointer; long strings are tried shortened only when `shorten` is
/// `Some` (never in a HAR entry's metadata: its dates and versions must
/// stay valid), except under the keys it lists and the other identifiers
/// ([`is_identifier`]);
/// `test` judges a whole candidate value.
///
/// Returns whether `v` changed, or `None` when `test` said the budget is
/// spent (`v` then holds the best value found so far).
pub fn reduce(
    v: &mut Value,
    guard: &dyn Fn(&str) -> Guard,
    shorten: Option<&[&str]>,
    test: &mut dyn FnMut(&Value) -> Verdict,
) -> Option<bool> {
    let mut changed = false;
    walk(v, String::new(), guard, shorten, test, &mut changed)?;
    Some(changed)
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn walk(
    root: &mut Value,
    path: String,
    guard: &dyn Fn(&str) -> Guard,
    shorten: Option<&[&str]>,
    test: &mut dyn FnMut(&Value) -> Verdict,
    changed: &mut bool,
) -> Option<()> {
    let Some(node) = root.pointer(&path) else {
        return Some(());
    };
    match node {
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                let child = format!("{path}/{}", escape(&k));
                match guard(&child) {
                    Guard::Frozen => continue,
                    Guard::Keep => {
                        walk(root, child, guard, shorten, test, changed)?;
                        continue;
                    }
                    Guard::Free => {}
                }
                let mut cand = root.clone();
                if let Some(Value::Object(m)) = cand.pointer_mut(&path) {
                    m.remove(&k);
                }
                if test(&cand)? {
                    *root = cand;
                    *changed = true;
                } else {
                    walk(root, child, guard, shorten, test, changed)?;
                }
            }
        }
        Value::Array(a) => {
            for i in (0..a.len()).rev() {
                let child = format!("{path}/{i}");
                match guard(&child) {
                    Guard::Frozen => continue,
                    Guard::Keep => {
                        walk(root, child, guard, shorten, test, changed)?;
                        continue;
                    }
                    Guard::Free => {}
                }
                let mut cand = root.clone();
                if let Some(Value::Array(a)) = cand.pointer_mut(&path) {
                    a.remove(i);
                }
                if test(&cand)? {
                    *root = cand;
                    *changed = true;
                } else {
                    walk(root, child, guard, shorten, test, changed)?;
                }
            }
        }
        Value::String(s)
            if shorten.is_some_and(|ids| {
                s.chars().count() > LONG_STRING
                    && !is_identifier(path.rsplit('/').next().unwrap_or(""), ids)
            }) =>
        {
            let short: String = s.chars().take(SHORT_STRING).collect();
            let mut cand = root.clone();
            if let Some(slot) = cand.pointer_mut(&path) {
                *slot = Value::String(short);
            }
            if test(&cand)? {
                *root = cand;
                *changed = true;
            }
        }
        _ => {}
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drops_what_the_test_does_not_need_and_shortens_strings() {
        let mut v = json!({"id": "x", "choices": [{"index": 0, "delta": {"content": "a long piece of text here"}}, {"index": 1}], "keep": {"a": 1, "b": 2}});
        let changed = reduce(&mut v, &|_| Guard::Free, Some(&[]), &mut |c: &Value| {
            Some(c.pointer("/keep/b").is_some() && c.pointer("/choices/0/delta/content").is_some())
        });
        assert_eq!(changed, Some(true));
        assert_eq!(
            v,
            json!({"choices": [{"delta": {"content": "a long p"}}], "keep": {"b": 2}})
        );
    }

    #[test]
    fn guarded_pointers_stay() {
        let mut v = json!({"a": 1, "b": {"c": 2}, "k": {"d": 3}});
        let guard = |p: &str| match p {
            "/b" => Guard::Frozen,
            "/k" => Guard::Keep,
            _ => Guard::Free,
        };
        reduce(&mut v, &guard, Some(&[]), &mut |_| Some(true));
        assert_eq!(v, json!({"b": {"c": 2}, "k": {}}));
    }
}
