//! Who cut a HAR body: the browser's own error for the entry
//! (`response._error`, with `status: 0`) tells a client abort from a broken
//! transfer.

mod common;
use common::{lint_bytes, root};
use serde_json::Value;

/// Chrome's sample with entry 0's body cut mid-stream, `status: 0` and
/// `_error` set as the browser writes them.
fn har_with(error: Option<&str>) -> Vec<u8> {
    let mut v: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("samples/har/chrome.har")).unwrap(),
    )
    .unwrap();
    let entries = v["log"]["entries"].as_array_mut().unwrap();
    let e = entries
        .iter_mut()
        .find(|e| {
            e["response"]["content"]["mimeType"]
                .as_str()
                .is_some_and(|m| m.contains("event-stream"))
        })
        .unwrap();
    let text = e["response"]["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let cut = &text[..text.find("\n\n").unwrap() + 2];
    e["response"]["content"]["text"] = Value::from(cut);
    e["response"]["content"]["size"] = Value::from(cut.len());
    e["response"]["status"] = Value::from(0);
    if let Some(err) = error {
        e["response"]["_error"] = Value::from(err);
    }
    e.as_object_mut().unwrap().remove("_eventSourceMessages");
    serde_json::to_vec(&v).unwrap()
}

fn verdict(error: Option<&str>) -> Vec<(String, String, String)> {
    let r = lint_bytes(&har_with(error));
    r.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter())
        .map(|d| {
            (
                d.rule.to_string(),
                format!("{:?}", d.severity).to_lowercase(),
                d.message.clone(),
            )
        })
        .collect()
}

#[test]
fn a_client_abort_is_capture_truncated_and_says_the_browser_stopped_reading() {
    for err in ["net::ERR_ABORTED", "NS_BINDING_ABORTED", "cancelled"] {
        let v = verdict(Some(err));
        let t = v
            .iter()
            .find(|(r, _, _)| r == "capture-truncated")
            .unwrap_or_else(|| panic!("{err}: {v:?}"));
        assert!(t.2.contains(err), "{}", t.2);
        assert!(t.2.contains("stopped reading"), "{}", t.2);
        assert!(v.iter().all(|(r, _, _)| r != "cut-off"), "{err}: {v:?}");
    }
}

#[test]
fn a_broken_transfer_stays_cut_off_and_names_the_browsers_error() {
    for err in [
        "net::ERR_INCOMPLETE_CHUNKED_ENCODING",
        "net::ERR_HTTP2_PROTOCOL_ERROR",
        "net::ERR_CONNECTION_RESET",
        "net::ERR_NETWORK_CHANGED",
        "NS_ERROR_NET_PARTIAL_TRANSFER",
        "NS_ERROR_NET_RESET",
    ] {
        let v = verdict(Some(err));
        let c = v
            .iter()
            .find(|(r, _, _)| r == "cut-off")
            .unwrap_or_else(|| panic!("{err}: {v:?}"));
        assert_eq!(c.1, "error");
        assert!(c.2.contains(err), "{err}: {}", c.2);
        assert!(
            v.iter().all(|(r, _, _)| r != "capture-truncated"),
            "{err}: {v:?}"
        );
    }
    // Without an error the verdict is the ending's alone.
    let v = verdict(None);
    assert!(v.iter().any(|(r, _, _)| r == "cut-off"), "{v:?}");
}
