//! Vertex AI's streamed function-call arguments: `partialArgs` pieces,
//! each a `jsonPath` (RFC 9535, as Vertex writes them: `$.a.b[0]`,
//! `$['a']`) and one value (`stringValue`, `numberValue`, `boolValue`,
//! `nullValue`), put together into the call's `args` object. A string
//! split over several pieces of the same path is joined.

use serde_json::{Map, Value};

/// Most path segments read; deeper paths are not applied.
const MAX_DEPTH: usize = 32;
/// Largest array index applied (an index past it is not: a hostile
/// stream must not make a huge array).
const MAX_INDEX: usize = 4096;

/// One step of a path.
#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of `path` (`$.a[0]['b']`), or `None` when it is not one
/// this reads.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if out.len() >= MAX_DEPTH {
            return None;
        }
        if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']")?;
            out.push(Step::Key(r[..end].to_string()));
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let i: usize = r[..end].trim().parse().ok()?;
            if i > MAX_INDEX {
                return None;
            }
            out.push(Step::Index(i));
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            out.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        } else {
            return None;
        }
    }
    Some(out)
}

/// The value one `partialArgs` piece carries, and whether it is a string
/// (which a later piece of the same path continues).
fn value_of(piece: &Map<String, Value>) -> Option<Value> {
    if let Some(s) = piece.get("stringValue") {
        return Some(s.clone());
    }
    if let Some(n) = piece.get("numberValue") {
        return Some(n.clone());
    }
    if let Some(b) = piece.get("boolValue") {
        return Some(b.clone());
    }
    piece.get("nullValue").map(|_| Value::Null)
}

/// Applies one `partialArgs` piece to `args`. False when the piece has
/// no path this reads or no value.
pub fn apply(args: &mut Value, piece: &Value) -> bool {
    let Some(p) = piece.as_object() else {
        return false;
    };
    let Some(path) = p.get("jsonPath").and_then(Value::as_str) else {
        return false;
    };
    let (Some(steps), Some(value)) = (steps(path), value_of(p)) else {
        return false;
    };
    if steps.is_empty() {
        return false;
    }
    if !args.is_object() {
        *args = Value::Object(Map::new());
    }
    let mut at = args;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let next_is_index = steps
            .get(i + 1)
            .is_some_and(|s| matches!(s, Step::Index(_)));
        let empty = || {
            if next_is_index {
                Value::Array(Vec::new())
            } else {
                Value::Object(Map::new())
            }
        };
        let slot: &mut Value = match step {
            Step::Key(k) => {
                if !at.is_object() {
                    *at = Value::Object(Map::new());
                }
                let Some(o) = at.as_object_mut() else {
                    return false;
                };
                o.entry(k.clone())
                    .or_insert_with(|| if last { Value::Null } else { empty() })
            }
            Step::Index(n) => {
                if !at.is_array() {
                    *at = Value::Array(Vec::new());
                }
                let Some(a) = at.as_array_mut() else {
                    return false;
                };
                while a.len() <= *n {
                    a.push(Value::Null);
                }
                &mut a[*n]
            }
        };
        if last {
            match (slot, value) {
                (Value::String(s), Value::String(more)) => s.push_str(&more),
                (slot, value) => *slot = value,
            }
            return true;
        }
        if slot.is_null() {
            *slot = empty();
        }
        at = slot;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pieces_build_nested_arguments_and_join_split_strings() {
        let mut args = json!({});
        for p in [
            json!({"jsonPath": "$.location", "stringValue": "Bos", "willContinue": true}),
            json!({"jsonPath": "$.location", "stringValue": "ton"}),
            json!({"jsonPath": "$.recipe.ingredients[1].name", "stringValue": "salt"}),
            json!({"jsonPath": "$['n']", "numberValue": 3}),
            json!({"jsonPath": "$.ok", "boolValue": true}),
            json!({"jsonPath": "$.none", "nullValue": "NULL_VALUE"}),
        ] {
            assert!(apply(&mut args, &p), "{p}");
        }
        assert_eq!(
            args,
            json!({"location": "Boston", "recipe": {"ingredients": [null, {"name": "salt"}]}, "n": 3, "ok": true, "none": null})
        );
    }

    #[test]
    fn unreadable_or_huge_paths_are_not_applied() {
        let mut args = json!({});
        for p in [
            json!({"jsonPath": "location", "stringValue": "x"}),
            json!({"jsonPath": "$.a[99999999]", "stringValue": "x"}),
            json!({"jsonPath": "$.a", "other": 1}),
            json!({"jsonPath": "$", "stringValue": "x"}),
            json!({"jsonPath": "$.a[", "stringValue": "x"}),
        ] {
            assert!(!apply(&mut args, &p), "{p}");
        }
        assert_eq!(args, json!({}));
    }
}
