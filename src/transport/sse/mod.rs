//! The SSE transport: `text/event-stream`, framed by the WHATWG
//! algorithm in [`crate::sse`]. That parser feeds the linter whole blocks
//! (the lines between two blank lines), since the SSE framing rules
//! (`rules/transport/`: comments, `data:` without a space, line endings,
//! unknown fields, an unterminated event) judge lines, not only the data
//! a block dispatches; a dialect's checker then reads each dispatched
//! event's type and data. Nothing here frames: this folder names the
//! transport and tells its first bytes.

/// The transport's name in reports.
pub const NAME: &str = "sse";
/// The media type of an event stream.
pub const MEDIA_TYPE: &str = "text/event-stream";
/// What one message is called.
pub const MESSAGE: &str = "event";
/// What a body of this transport is, in a phrase for messages.
pub const WHAT: &str = "server-sent events";

/// Whether `head`, a body's first bytes, starts as SSE text: its first
/// line that is not blank (a BOM before it skipped; lines end at CR or
/// LF, as the WHATWG algorithm splits them) starts like a field
/// (`data:`, `event:`, `id:`, `retry:`) or a comment (`:` and more).
/// Only the first such line counts: a binary body may hold `\r:name`
/// further on (an AWS event-stream frame's `:content-type` header, whose
/// name length is the byte 13), and that is no SSE line.
pub fn looks_like(head: &[u8]) -> bool {
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    let Some(line) = head
        .split(|b| *b == b'\n' || *b == b'\r')
        .find(|l| !l.iter().all(|b| *b == b' ' || *b == b'\t'))
    else {
        return false;
    };
    line.starts_with(b"data:")
        || line.starts_with(b"event:")
        || line.starts_with(b"id:")
        || line.starts_with(b"retry:")
        || (line.starts_with(b":") && line.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::looks_like;

    #[test]
    fn the_first_line_that_is_not_blank_decides() {
        assert!(looks_like(b"data: {}\n\n"));
        assert!(looks_like(b"\xEF\xBB\xBF\r\n\n: keep-alive\n"));
        assert!(looks_like(b"event: x\rdata: y\r\r"));
        assert!(!looks_like(b"{\"done\":true}\ndata: {}\n\n"));
        assert!(!looks_like(b""));
        assert!(!looks_like(b"\n\n"));
        // An event-stream prelude, then a header named `:content-type`.
        assert!(!looks_like(b"\0\0\0\x85\0\0\0R\x99A\xd0S\r:content-type"));
    }
}
