//! The `*-repeated-answer` rules (`repeated-answer`,
//! `responses-repeated-answer`, `messages-repeated-answer`,
//! `gemini-repeated-answer`): a last text delta that repeats all the text
//! before it. The rule examples are the failing and passing samples
//! (tests/rule_examples.rs); these are the edges: a repeat that is not the
//! last delta, a repeat of a single earlier delta, the same verdict however
//! the bytes arrive (the typed fast paths and the general ones), and an
//! answer past the kept text.

mod common;
use common::{assert_same_verdict_at_every_split, lint_bytes, rules_at_least};
use sselint::lint::Severity;

fn chat(pieces: &[&str]) -> String {
    let mut s = String::new();
    for (i, p) in pieces.iter().enumerate() {
        let role = if i == 0 { r#""role":"assistant","# } else { "" };
        s.push_str(&format!(
            "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{{role}\"content\":{}}},\"finish_reason\":null}}]}}\n\n",
            serde_json::to_string(p).unwrap()
        ));
    }
    s.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    s
}

fn gemini(pieces: &[&str]) -> String {
    let mut s = String::new();
    for (i, p) in pieces.iter().enumerate() {
        let finish = if i + 1 == pieces.len() {
            r#","finishReason":"STOP""#
        } else {
            ""
        };
        s.push_str(&format!(
            "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":{}}}],\"role\":\"model\"}}{finish},\"index\":0}}],\"usageMetadata\":{{\"promptTokenCount\":3,\"candidatesTokenCount\":5,\"totalTokenCount\":8}},\"modelVersion\":\"gemini-2.5-flash\"}}\n\n",
            serde_json::to_string(p).unwrap()
        ));
    }
    s
}

fn messages(pieces: &[&str]) -> String {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for p in pieces {
        s.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":{}}}}}\n\n",
            serde_json::to_string(p).unwrap()
        ));
    }
    s.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s
}

fn responses(pieces: &[&str]) -> String {
    let mut n = 0;
    let mut ev = |name: &str, rest: String| {
        let s = format!(
            "event: {name}\ndata: {{\"type\":\"{name}\",\"sequence_number\":{n}{rest}}}\n\n"
        );
        n += 1;
        s
    };
    let resp = |status: &str, output: &str| {
        format!(
            r#","response":{{"id":"resp_1","object":"response","created_at":1,"status":"{status}","model":"m","output":[{output}],"usage":null}}"#
        )
    };
    let full: String = pieces.concat();
    let text = serde_json::to_string(&full).unwrap();
    let item = format!(
        r#"{{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{{"type":"output_text","annotations":[],"logprobs":[],"text":{text}}}]}}"#
    );
    let mut s = ev("response.created", resp("in_progress", ""));
    s += &ev("response.output_item.added", r#","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}"#.to_string());
    s += &ev("response.content_part.added", r#","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}"#.to_string());
    for p in pieces {
        s += &ev(
            "response.output_text.delta",
            format!(
                r#","item_id":"msg_1","output_index":0,"content_index":0,"delta":{},"logprobs":[]"#,
                serde_json::to_string(p).unwrap()
            ),
        );
    }
    s += &ev(
        "response.output_text.done",
        format!(
            r#","item_id":"msg_1","output_index":0,"content_index":0,"text":{text},"logprobs":[]"#
        ),
    );
    s += &ev(
        "response.content_part.done",
        format!(
            r#","item_id":"msg_1","output_index":0,"content_index":0,"part":{{"type":"output_text","annotations":[],"logprobs":[],"text":{text}}}"#
        ),
    );
    s += &ev(
        "response.output_item.done",
        format!(r#","output_index":0,"item":{item}"#),
    );
    s += &ev("response.completed", resp("completed", &item));
    s
}

/// A body of one answer sent in the given text deltas.
type Build = fn(&[&str]) -> String;

/// Each dialect's body builder and its rule.
const DIALECTS: &[(Build, &str)] = &[
    (chat, "repeated-answer"),
    (gemini, "gemini-repeated-answer"),
    (messages, "messages-repeated-answer"),
    (responses, "responses-repeated-answer"),
];

fn fires(body: &str, rule: &str) -> bool {
    rules_at_least(&lint_bytes(body.as_bytes()), Severity::Info).contains(&rule)
}

#[test]
fn a_last_delta_that_repeats_every_delta_before_it_is_found_in_each_dialect() {
    for (build, rule) in DIALECTS {
        let body = build(&[
            "Rain forms",
            " when vapour",
            " condenses.",
            "Rain forms when vapour condenses.",
        ]);
        let r = lint_bytes(body.as_bytes());
        let found: Vec<_> = common::diags(&r)
            .into_iter()
            .filter(|d| d.rule == *rule)
            .collect();
        assert_eq!(found.len(), 1, "{rule}: {body}");
        assert_eq!(found[0].severity, Severity::Error, "{rule}");
        assert!(
            found[0].message.contains("twice"),
            "{rule}: {}",
            found[0].message
        );
        // Its place is the repeating delta, the last one, not the first.
        assert!(
            found[0].location.line > 3,
            "{rule}: at line {}",
            found[0].location.line
        );
        let whole = assert_same_verdict_at_every_split(body.as_bytes());
        assert!(
            whole.0.iter().any(|f| f.contains(rule)),
            "{rule}: {whole:?}"
        );
    }
}

#[test]
fn a_repeat_that_more_text_follows_or_that_repeats_one_delta_is_not_the_shape() {
    for (build, rule) in DIALECTS {
        // The answer repeated, then more: not a last delta repeating it.
        let body = build(&[
            "Rain forms",
            " when vapour",
            "Rain forms when vapour",
            " condenses.",
        ]);
        assert!(
            !fires(&body, rule),
            "{rule}: a repeat that more text follows: {body}"
        );
        // "ha" then "ha": an answer may say a word twice.
        let body = build(&["ha", "ha"]);
        assert!(!fires(&body, rule), "{rule}: one earlier delta: {body}");
        // The ordinary answer.
        let body = build(&["Rain forms", " when vapour", " condenses."]);
        assert!(!fires(&body, rule), "{rule}: {body}");
        // Empty deltas after the repeat leave it the last text.
        let body = build(&["Rain", " forms", "Rain forms", ""]);
        assert!(
            fires(&body, rule),
            "{rule}: an empty delta after the repeat: {body}"
        );
    }
}

#[test]
fn a_repeat_of_an_answer_past_the_kept_text_is_found_by_length_and_hash() {
    // Past every dialect's kept text (1 MiB of answer, 4 MiB per Responses
    // stream): compared by length and hash.
    let big = "word ".repeat((5 << 20) / 5);
    let (a, b) = big.split_at(big.len() / 2);
    for (build, rule) in DIALECTS {
        let body = build(&[a, b, &big]);
        assert!(fires(&body, rule), "{rule}");
        let mut other = big.clone();
        other.pop();
        other.push('!');
        let body = build(&[a, b, &other]);
        assert!(
            !fires(&body, rule),
            "{rule}: a last delta of the same length, other bytes"
        );
    }
}

/// A fresh-user trial of issue 41: a Chat content delta longer than the
/// 4,096 bytes kept of the last delta, with a character across byte 4,096,
/// made `check` panic (a slice inside 'é'), and a repeated CJK answer, the
/// rule's own shape, did too. The kept piece ends at a character boundary.
#[test]
fn a_delta_cut_inside_a_character_past_the_kept_bytes_is_read() {
    let long = format!("{}é", "a".repeat(4095));
    let r = lint_bytes(chat(&[&long]).as_bytes());
    assert!(rules_at_least(&r, Severity::Warning).is_empty());
    let cjk = "潮汐是由月球引力造成的。".repeat(150);
    let body = chat(&["潮汐", &cjk[6..], &cjk]);
    assert!(fires(&body, "repeated-answer"));
}
