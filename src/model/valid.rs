//! Whether a text is JSON, told without building a [`serde_json::Value`]:
//! whole-stream checks of tool arguments only need the verdict, and
//! building the value of a large argument object costs an allocation per
//! string, key and container. The walk is serde_json's own (the same
//! string, number and depth rules as parsing to a `Value`), so the verdict
//! is the same; a caller that needs the error or the value's type parses
//! again.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Whether `text` is one JSON value: exactly when
/// `serde_json::from_str::<Value>(text)` is `Ok`.
pub fn is_json(text: &str) -> bool {
    serde_json::from_str::<Any>(text).is_ok()
}

/// Whether `text` is one JSON object: exactly when
/// `serde_json::from_str::<Value>(text)` is an `Ok` object.
pub fn is_json_object(text: &str) -> bool {
    serde_json::from_str::<Object>(text).is_ok()
}

/// Any JSON value, walked and dropped.
struct Any;

/// A JSON object, its members walked and dropped: deserializing one fails
/// exactly where a `Value` parse of it would, or on any other JSON type.
pub struct Object;

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // `deserialize_any`, as `Value` does: strings are decoded (escapes
        // and surrogates checked), not skipped.
        d.deserialize_any(Walk)
    }
}

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Walk).map(|_| Object)
    }
}

struct Walk;

impl<'de> Visitor<'de> for Walk {
    type Value = Any;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_str<E>(self, _: &str) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_unit<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_none<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Any, D::Error> {
        Any::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Any, A::Error> {
        while a.next_element::<Any>()?.is_some() {}
        Ok(Any)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Any, A::Error> {
        while a.next_entry::<Any, Any>()?.is_some() {}
        Ok(Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_verdict_is_the_one_a_value_parse_gives() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let texts = [
            r#"{"a": [1, 2.5, -3, 1e400, true, null, "x\"y"], "a": {}}"#,
            r#"{"s": "\ud83d\ude00"}"#,
            r#"{"s": "\ud83d"}"#,
            r#"{"\ud800": 1}"#,
            "{\"s\": \"tab\there\"}",
            r#"{"a": 1} trailing"#,
            r#"{"a": 1,}"#,
            r#"[1, 2]"#,
            r#""text""#,
            "  {}  ",
            "",
            "{",
            "18446744073709551616",
            "-0",
            &deep,
        ];
        for t in texts {
            let v = serde_json::from_str::<Value>(t);
            assert_eq!(is_json(t), v.is_ok(), "{t:?}");
            assert_eq!(
                is_json_object(t),
                matches!(v, Ok(Value::Object(_))),
                "{t:?}"
            );
        }
    }
}
