//! The SSE transport: `text/event-stream`, framed by the WHATWG
//! algorithm in [`crate::sse`]. That parser feeds the linter whole blocks
//! (the lines between two blank lines), since the SSE framing rules
//! (`rules/transport/`: comments, `data:` without a space, line endings,
//! unknown fields, an unterminated event) judge lines, not only the data
//! a block dispatches; a dialect's checker then reads each dispatched
//! event's type and data. Nothing here frames: this folder names the
//! transport.

/// The transport's name in reports.
pub const NAME: &str = "sse";
/// The media type of an event stream.
pub const MEDIA_TYPE: &str = "text/event-stream";
/// What one message is called.
pub const MESSAGE: &str = "event";
