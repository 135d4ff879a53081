//! What may go around the minimized body: the [`Shell`]s to try, in order,
//! built from the input and what reading it learnt. A raw body is written
//! alone (or with the bytes that were around it), a curl dump keeps its
//! head (or is written anew from what was read), a HAR entry keeps its
//! metadata, redacted, with its timing moved into the units.

use super::shell::{self, ByteShell, HarShell, Shell, Unit};
use super::{Input, Picked};
use crate::capture::{self, InputError, InputFormat, Timing};
use crate::redact;
use serde_json::Value;

/// The shells to try, each with the note that says what it changed, and
/// the extension of the output's default name.
pub(super) struct Shells {
    pub list: Vec<(Shell, Option<String>)>,
    pub extension: &'static str,
}

/// The shells for the picked stream of `input`; a HAR entry's timing goes
/// into `units` (each unit's dispatched event is `dispatch`'s).
pub(super) fn shells(
    path: &str,
    input: &Input<'_>,
    p: &Picked,
    units: &mut [Unit],
    dispatch: &[Option<u64>],
) -> Result<Shells, InputError> {
    let err = |m: String| InputError::new(path, m);
    let io = |e: std::io::Error| err(capture::io_message(&e));
    Ok(match p.format {
        InputFormat::Har => Shells {
            list: vec![(har_shell(path, input, p, units, dispatch)?, None)],
            extension: "har",
        },
        InputFormat::Sse => Shells {
            list: sse_shells(input, p).map_err(io)?,
            extension: "sse",
        },
        InputFormat::Curl => Shells {
            list: curl_shells(input, p).map_err(io)?,
            extension: "txt",
        },
    })
}

/// The picked entry of a HAR, its body, messages and reads taken out (the
/// units hold them), redacted.
fn har_shell(
    path: &str,
    input: &Input<'_>,
    p: &Picked,
    units: &mut [Unit],
    dispatch: &[Option<u64>],
) -> Result<Shell, InputError> {
    let err = |m: String| InputError::new(path, m);
    let reader = input.reader().map_err(|e| err(capture::io_message(&e)))?;
    let doc = capture::har::document(path, reader)?;
    let i = p.stream.origin.har_entry.unwrap_or(0);
    let mut entry = doc
        .pointer(&format!("/log/entries/{i}"))
        .cloned()
        .ok_or_else(|| err(format!("HAR entry {i} is missing")))?;
    drop(doc);
    let size = entry
        .pointer("/response/content/size")
        .and_then(Value::as_i64)
        .unwrap_or(-1);
    let text_len = entry
        .pointer("/response/content/text")
        .and_then(Value::as_str)
        .map(|_| p.body.len() as i64);
    let size_extra = match text_len {
        Some(n) if size > n => size - n,
        _ => 0,
    };
    let base64 = entry
        .pointer("/response/content/encoding")
        .and_then(Value::as_str)
        == Some("base64");
    move_timing(&entry, p.stream.timing.as_ref(), units, dispatch);
    let messages = entry.get("_eventSourceMessages").is_some();
    // A socket's frames are the units (its message log's lines).
    let socket = p.first.transport.is_socket();
    if socket {
        if let Some(m) = entry.as_object_mut() {
            m.remove("_webSocketMessages");
        }
    }
    let reads = matches!(p.stream.timing, Some(Timing::Reads(_)));
    strip_body_and_timing(&mut entry);
    let mut wrap = serde_json::json!({"log": {"entries": [entry]}});
    redact::har(&mut wrap, None).map_err(|e| err(e.to_string()))?;
    let entry = wrap["log"]["entries"][0].take();
    Ok(Shell::Har(HarShell {
        entry,
        base64,
        size_extra,
        messages,
        reads,
        socket,
    }))
}

/// Timing goes with the units: each dispatched event's
/// `_eventSourceMessages` record (its data's keys redacted), and the
/// `_sselint.reads` records that fall in each unit.
fn move_timing(
    entry: &Value,
    timing: Option<&Timing>,
    units: &mut [Unit],
    dispatch: &[Option<u64>],
) {
    if let Some(msgs) = entry.get("_eventSourceMessages").and_then(Value::as_array) {
        for (u, d) in units.iter_mut().zip(dispatch) {
            if let Some(m) = d.and_then(|d| msgs.get(d as usize)) {
                let mut m = m.clone();
                if let Some(Value::String(t)) = m.get_mut("data") {
                    *t = capture::redact_keys(t);
                }
                u.timing_mut().message = Some(m);
            }
        }
    }
    if let Some(Timing::Reads(reads)) = timing {
        let mut at = 0u64;
        for u in units {
            let end = at + u.bytes.len() as u64;
            let covering = reads.iter().rev().find(|r| r.offset <= at);
            if let Some(c) = covering.filter(|c| c.offset < at) {
                u.timing_mut().reads.push((0, c.ms));
            }
            for r in reads.iter().filter(|r| r.offset >= at && r.offset < end) {
                u.timing_mut().reads.push((r.offset - at, r.ms));
            }
            at = end;
        }
    }
}

/// The entry without what the units render: the body, its messages and
/// reads (and the page it belonged to).
fn strip_body_and_timing(entry: &mut Value) {
    if let Some(m) = entry.as_object_mut() {
        m.remove("_eventSourceMessages");
        m.remove("pageref");
    }
    if let Some(Value::Object(s)) = entry.get_mut("_sselint") {
        s.remove("reads");
    }
    if let Some(Value::Object(c)) = entry.pointer_mut("/response/content") {
        c.remove("text");
        c.remove("compression");
    }
}

/// A raw body: with the bytes that were around it, when sselint read less
/// than the file (curl's error line is a finding's evidence:
/// `--input-format sse` on a curl dump), then alone. The file is held
/// whole only then; a body that is the whole file is never compared in
/// memory.
fn sse_shells(input: &Input<'_>, p: &Picked) -> std::io::Result<Vec<(Shell, Option<String>)>> {
    let gzip = capture::decode::is_gzip(&input.head(2)?);
    let differs = !gzip && !input.same_as(&p.body)?;
    let mut list = Vec::new();
    if differs && !p.body.is_empty() {
        let whole = input.whole()?;
        let file = super::unmetered(&whole);
        let body = spooled_bytes(&p.body)?;
        // Without curl's progress meter the file may be the body alone.
        let found = (*file != *body)
            .then(|| memchr::memmem::find(&file, &body))
            .flatten();
        if let Some(at) = found {
            list.push((
                Shell::Bytes(ByteShell {
                    prefix: shell::lines(&redact::raw(&file[..at], None)),
                    suffix: redact::raw(&file[at + body.len()..], None),
                    ..ByteShell::default()
                }),
                None,
            ));
        }
    }
    let gzip_cut = gzip && shell::gzip_is_cut(&input.whole()?);
    list.push((
        Shell::Bytes(ByteShell {
            gzip,
            gzip_cut,
            ..ByteShell::default()
        }),
        differs.then(|| "the output holds the body as sselint read it (curl's progress meter and other bytes around it left out)".to_string()),
    ));
    Ok(list)
}

/// The bytes of a spooled body, in memory.
fn spooled_bytes(b: &capture::spool::Spooled) -> std::io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(b.len() as usize);
    std::io::Read::read_to_end(&mut b.reader(), &mut v)?;
    Ok(v)
}

/// A curl dump: its own head and tail around the body where they can be
/// found again as they were (a `curl -i` dump, chunked or gzipped or not;
/// a `curl -v` dump whose body is in the file as read), else a dump
/// written anew. A curl dump is held whole.
fn curl_shells(input: &Input<'_>, p: &Picked) -> std::io::Result<Vec<(Shell, Option<String>)>> {
    let whole = input.whole()?;
    let file = super::unmetered(&whole);
    let input: &[u8] = &file;
    let body = spooled_bytes(&p.body)?;
    let notes = &p.stream.notes;
    let gzip = notes
        .iter()
        .any(|n| n.contains("decoded from Content-Encoding: gzip"));
    let other_encoding = !gzip && notes.iter().any(|n| n.contains("body decoded from"));
    let same = |prefix: &[u8], rest: &[u8], chunked: Option<bool>| ByteShell {
        prefix: shell::lines(&redact::raw(prefix, None)),
        suffix: redact::raw(rest, None),
        gzip,
        gzip_cut: false,
        chunked,
        chunk_cut: false,
    };
    let mut list = Vec::new();
    if p.detail == "curl -i" && !other_encoding {
        if let Some(h) = shell::curl_i_header_end(input) {
            let rest = &input[h..];
            let chunked = notes
                .iter()
                .any(|n| n.contains("chunked transfer framing removed"));
            if chunked {
                let (end, last) = shell::chunked_end(rest);
                let mut sh = same(&input[..h], &rest[end.min(rest.len())..], Some(last));
                sh.chunk_cut = end == usize::MAX;
                list.push((Shell::Bytes(sh), None));
            } else if gzip {
                let mut sh = same(&input[..h], &[], None);
                sh.gzip_cut = shell::gzip_is_cut(rest);
                list.push((Shell::Bytes(sh), None));
            } else if rest.starts_with(&body) {
                list.push((
                    Shell::Bytes(same(&input[..h], &rest[body.len()..], None)),
                    None,
                ));
            }
        }
    }
    if p.detail == "curl -v" && !gzip && !other_encoding && !body.is_empty() {
        if let Some(at) = memchr::memmem::find(input, &body) {
            list.push((
                Shell::Bytes(same(&input[..at], &input[at + body.len()..], None)),
                None,
            ));
        }
    }
    list.push(curl_written_anew(p));
    Ok(list)
}

/// A curl dump written anew from what was read: the request (when the
/// dump showed it) and the response's status and headers, less the
/// framing ones (the body is written decoded, unframed).
fn curl_written_anew(p: &Picked) -> (Shell, Option<String>) {
    let http = p.stream.http.clone().unwrap_or_default();
    let version = if http.version.is_empty() {
        "HTTP/1.1"
    } else {
        &http.version
    };
    let status = format!("{version} {} {}", http.status, http.reason);
    let keep = |n: &str| {
        !["transfer-encoding", "content-encoding", "content-length"]
            .iter()
            .any(|x| n.eq_ignore_ascii_case(x))
    };
    let request = p.stream.request.as_ref().filter(|r| !r.method.is_empty());
    let mut prefix = Vec::new();
    if let Some(r) = request {
        let (host, path) = match r.url.split_once("://") {
            Some((_, rest)) => match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, "/"),
            },
            None => ("", r.url.as_str()),
        };
        // The request went out in the response's HTTP version.
        prefix.push(format!("> {} {path} {version}\r\n", r.method));
        if !host.is_empty() {
            prefix.push(format!("> Host: {host}\r\n"));
        }
        for h in r
            .headers
            .iter()
            .filter(|h| !h.name.eq_ignore_ascii_case("host"))
        {
            prefix.push(format!("> {}: {}\r\n", h.name, h.value));
        }
        prefix.push(">\r\n".to_string());
        prefix.push(format!("< {}\r\n", status.trim_end()));
        for h in http.headers.iter().filter(|h| keep(&h.name)) {
            prefix.push(format!("< {}: {}\r\n", h.name, h.value));
        }
        prefix.push("<\r\n".to_string());
    } else {
        prefix.push(format!("{}\r\n", status.trim_end()));
        for h in http.headers.iter().filter(|h| keep(&h.name)) {
            prefix.push(format!("{}: {}\r\n", h.name, h.value));
        }
        prefix.push("\r\n".to_string());
    }
    let kind = if request.is_some() {
        "curl -v"
    } else {
        "curl -i"
    };
    let detail = p.detail;
    (
        Shell::Bytes(ByteShell {
            prefix: prefix
                .iter()
                .map(|l| redact::raw(l.as_bytes(), None))
                .collect(),
            ..ByteShell::default()
        }),
        Some(format!(
            "the input is a {detail} dump; the output is a {kind} dump written anew from what sselint read (the body decoded, no transfer framing{})",
            if detail.contains("trace") { ", the trace's timing left out" } else { "" }
        )),
    )
}
