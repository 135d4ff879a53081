//! Raw bodies: what `curl -N URL > file` or a browser's "Copy response"
//! gives. The file is the body; a gzip body (saved without `--compressed`)
//! is decoded; a trailing `curl: (N)` line (stderr merged in) is evidence of
//! a cut, not body.

use super::decode::{self, CurlErrorTail, Dechunk, Encoding};
use super::{Body, Capture, InputError, InputFormat, Origin, Stream};
use std::io::{BufRead, BufReader, Read};

/// Reads a raw body capture.
///
/// # Errors
/// Only I/O errors while looking at the first bytes.
pub fn read(
    name: &str,
    reader: Box<dyn Read + Send>,
    max_decoded: u64,
) -> Result<Capture, InputError> {
    let mut reader = BufReader::with_capacity(super::SNIFF_BYTES, reader);
    let head = reader
        .fill_buf()
        .map_err(|e| InputError::new(name, super::io_message(&e)))?
        .to_vec();
    let mut stream = Stream::new(display_name(name), Body::Bytes(Vec::new()));
    let mut detail = "raw body";
    let mut body: Box<dyn Read + Send> = Box::new(reader);
    let mut contiguous = true;
    if decode::is_gzip(&head) {
        stream.notes.push("body decoded from gzip".to_string());
        body = decode::decoder(Encoding::Gzip, body, stream.evidence.clone(), max_decoded);
        contiguous = false;
    } else if decode::looks_chunked(&head) && looks_like_sse(after_first_line(&head)) {
        stream
            .notes
            .push("chunked transfer framing removed (curl --raw)".to_string());
        body = Box::new(Dechunk::new(body, stream.evidence.clone()));
        detail = "raw chunked body";
        contiguous = false;
    }
    stream.body = Body::Reader(Box::new(CurlErrorTail::new(body, stream.evidence.clone())));
    stream.origin = Origin {
        file_start: contiguous.then_some((0, 1)),
        har_entry: None,
        ..Origin::default()
    };
    Ok(Capture {
        path: name.to_string(),
        input_format: InputFormat::Sse,
        detail,
        streams: vec![stream],
    })
}

fn after_first_line(b: &[u8]) -> &[u8] {
    match memchr::memchr(b'\n', b) {
        Some(i) => &b[i + 1..],
        None => &[],
    }
}

/// How an input is named in reports.
pub fn display_name(name: &str) -> String {
    if name == "-" {
        "<stdin>".to_string()
    } else {
        name.to_string()
    }
}

/// Whether `head` has a line that starts like an SSE field or comment
/// (`data:`, `event:`, `id:`, `retry:`, `:`), i.e. is worth linting as SSE.
pub fn looks_like_sse(head: &[u8]) -> bool {
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    head.split(|b| *b == b'\n' || *b == b'\r').any(|line| {
        line.starts_with(b"data:")
            || line.starts_with(b"event:")
            || line.starts_with(b"id:")
            || line.starts_with(b"retry:")
            || (line.starts_with(b":") && line.len() > 1)
    })
}
