//! Framing rules: what the bytes and lines look like before any JSON is
//! read (`invalid-utf8`, `bom`, `line-endings`, `data-no-space`,
//! `multiline-data`, `missing-separator`, `unknown-sse-field`,
//! `unterminated-event`, `comment`). Source: WHATWG HTML §9.2.5–9.2.6.
//! Chat's `event-type` (a named event in a stream of unnamed ones) is
//! Chat's own, in [`crate::dialect::chat`].
//!
//! The rules are the same in every dialect; what an occurrence costs is
//! the stream's dialect's to say ([`crate::dialect::Api::framing`]): its
//! clients may break on a shape that the rule's own examples showed to
//! be harmless.

use super::Linter;
use crate::dialect::api::{FramingReading, FramingShape};
use crate::lint::{Finding, Location, Severity};
use crate::model::{self, shorten, Payload};
use crate::sse::{Block, Framing, LineEnd, LineKind};

/// Whether `s` (non-empty) is the end of `line`'s bytes, lent from them.
fn lent_from(s: &str, line: &[u8]) -> bool {
    let (sp, lp) = (s.as_ptr() as usize, line.as_ptr() as usize);
    !s.is_empty() && sp >= lp && sp + s.len() == lp + line.len()
}

impl Linter<'_> {
    /// How the stream's dialect (the default one while none is settled)
    /// reads `shape`, where it differs from the rule's own level.
    fn framing_reading(&self, shape: FramingShape) -> Option<FramingReading> {
        self.dialect
            .unwrap_or(crate::dialect::DEFAULT)
            .api()
            .framing(shape)
    }

    /// A framing finding at the level the stream's dialect gives `shape`,
    /// with what it costs there added to its message.
    fn read_as_dialect(&self, f: Finding, shape: FramingShape) -> Finding {
        match self.framing_reading(shape) {
            Some(r) => {
                let mut f = f.level(r.level);
                f.message = format!("{}; {}", f.message, r.why);
                f
            }
            None => f,
        }
    }

    /// Line-level rules for every line of a block.
    pub(super) fn check_block_framing(&mut self, block: &Block<'_>) {
        self.block_named = false;
        self.block_id = None;
        for (i, line) in block.lines.iter().enumerate() {
            let first = match line.end {
                LineEnd::Lf => &mut self.first_lf,
                LineEnd::CrLf => &mut self.first_crlf,
                LineEnd::Cr => &mut self.first_cr,
                LineEnd::Eof => &mut None,
            };
            if first.is_none() {
                let l = Location::in_line(
                    block.bytes(line),
                    line.offset,
                    line.line,
                    line.len,
                    line.len,
                );
                let mut l = l;
                self.to_file(&mut l);
                match line.end {
                    LineEnd::Lf => self.first_lf = Some(l),
                    LineEnd::CrLf => self.first_crlf = Some(l),
                    LineEnd::Cr => self.first_cr = Some(l),
                    LineEnd::Eof => {}
                }
            }
            let bytes = block.bytes(line);
            // The data of a one-line event and the event's type are this
            // line's value when the parser lent them as `str`s, which it
            // checked: the line is `data:` or `event:` before it.
            let checked = block.data.is_some_and(|d| lent_from(d, bytes))
                || block
                    .dispatch
                    .as_ref()
                    .is_some_and(|d| lent_from(d.event_type, bytes));
            // A character cut by the end of the stream (the last line's
            // last bytes begin one and the stream stops) is the cut, which
            // the ending rules report: no client ever decodes those bytes.
            // So is one cut where the parser stopped keeping an event too
            // large (`event-too-large`): the rest of it is in the bytes not
            // kept.
            let cut_here =
                line.end == LineEnd::Eof || (block.dropped > 0 && i + 1 == block.lines.len());
            let invalid = if checked {
                None
            } else {
                std::str::from_utf8(bytes)
                    .err()
                    .filter(|e| !(cut_here && e.error_len().is_none()))
            };
            if let Some(e) = invalid {
                let at = e.valid_up_to();
                let len = e.error_len().unwrap_or(bytes.len() - at);
                // One finding per stream, at the first bad bytes; the rest
                // are counted (random binary has them on every line).
                self.invalid_utf8_reported += 1;
                if self.first_invalid_utf8.is_none() {
                    let loc = self.loc(block, line, at, at + len);
                    self.first_invalid_utf8 = Some((loc, hex_bytes(&bytes[at..at + len])));
                }
            }
            match line.kind {
                LineKind::Comment => {
                    self.sse_lines += 1;
                    self.comment_lines += 1;
                    if self.first_comment.is_none() {
                        self.first_comment = Some(self.loc(block, line, 0, line.len));
                    }
                }
                LineKind::Field { colon } => {
                    let name = block.name(line);
                    match name {
                        b"data" => {
                            self.sse_lines += 1;
                            self.data_lines += 1;
                            if let Some(c) = colon {
                                let b = block.bytes(line);
                                if b.len() > c + 1 && b[c + 1] != b' ' {
                                    self.no_space_lines += 1;
                                    if self.first_no_space.is_none() {
                                        self.first_no_space = Some(self.loc(block, line, 0, c + 1));
                                    }
                                }
                            }
                        }
                        b"event" | b"id" | b"retry" => {
                            self.sse_lines += 1;
                            match name {
                                b"event" => self.block_named = true,
                                b"id" => self.block_id = Some(i),
                                _ => {}
                            }
                        }
                        b"error" => {
                            let loc = self.loc(block, line, 0, line.len);
                            let value = String::from_utf8_lossy(block.value(line)).into_owned();
                            self.error_fields += 1;
                            self.report(Finding::new(
                                crate::lint::rule::ERROR_EVENT,
                                format!(
                                    "an `error:` field carries an error inside the stream: {}",
                                    shorten(&value, 160)
                                ),
                                loc,
                            ).help("send errors as a data event whose JSON has a top-level `error` object with `message`"));
                        }
                        // A line of an event over the size limit, whose
                        // bytes were not kept (or were cut before its
                        // colon): its name is unknown, not wrong; the
                        // event is `event-too-large`.
                        _ if block.dropped > 0 && colon.is_none() => {}
                        _ => {
                            let value = block.value(line);
                            let payload = matches!(value.first(), Some(b'{' | b'['))
                                && value != b"[DONE]"
                                && std::str::from_utf8(value).is_ok_and(|s| {
                                    serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
                                });
                            let trimmed = String::from_utf8_lossy(name).trim().to_string();
                            let near = ["data", "event", "id", "retry"]
                                .iter()
                                .find(|n| trimmed.eq_ignore_ascii_case(n))
                                .filter(|n| name != n.as_bytes());
                            let loc = self.loc(block, line, 0, colon.unwrap_or(line.len));
                            let shown = String::from_utf8_lossy(name);
                            let mut f = Finding::new(
                                crate::lint::rule::UNKNOWN_SSE_FIELD,
                                if let Some(n) = near {
                                    format!("field `{}` is not `{n}` (field names are exact and case-sensitive): the line is ignored{}", shorten(&shown, 60), if *n == "data" { ", so its data is lost" } else { "" })
                                } else if payload {
                                    format!("field `{}` is not an SSE field (event, data, id, retry) and carries a JSON payload that every client ignores", shorten(&shown, 60))
                                } else {
                                    format!("field `{}` is not an SSE field (event, data, id, retry); clients ignore the line", shorten(&shown, 60))
                                },
                                loc,
                            );
                            if payload || near == Some(&"data") {
                                f = f.level(Severity::Error);
                            }
                            self.pending_unknown(f);
                        }
                    }
                }
            }
        }
        // Comments the parser counted without keeping them: none is the
        // stream's first with its line end or invalid bytes (those are kept).
        let skipped = block.skipped_comments;
        self.sse_lines += skipped.lines;
        self.comment_lines += skipped.lines;
        self.invalid_utf8_reported += skipped.invalid_utf8;
    }

    /// Holds `unknown-sse-field` findings until the body shows it is SSE at
    /// all: a body with no SSE line is one `body-not-sse`, not a finding per
    /// line. One reported before the stream's dialect is settled gets that
    /// dialect's level at the end ([`Linter::relevel_unsettled`]).
    fn pending_unknown(&mut self, f: Finding) {
        if self.sse_lines > 0 {
            if self.dialect.is_some() {
                let f = self.read_as_dialect(f, FramingShape::UnknownField);
                self.report(f);
            } else {
                let before = self.out.diagnostics.len();
                self.report(f);
                if self.out.diagnostics.len() > before {
                    self.unsettled_fields.push(before);
                }
            }
        } else if self.pending_fields.len() < 64 {
            self.pending_fields.push(f);
        }
    }

    /// The `unknown-sse-field` findings reported before the dialect was
    /// settled, at the level the settled dialect gives them (where it
    /// gives one; a stream never settled is read as the default dialect).
    fn relevel_unsettled(&mut self) {
        let held = std::mem::take(&mut self.unsettled_fields);
        if let Some(r) = self.framing_reading(FramingShape::UnknownField) {
            for i in held {
                self.out.relevel(i, r.level, r.why);
            }
        }
    }

    /// Event-level framing: several `data` lines (`missing-separator`,
    /// `multiline-data`). Returns whether the event's data is several JSON
    /// texts run together.
    pub(super) fn check_event_framing(&mut self, block: &Block<'_>, index: Option<u64>) -> bool {
        let mut separator = false;
        let several = block.data_lines().nth(1).is_some();
        let data_lines: Vec<_> = if several {
            block.data_lines().collect()
        } else {
            Vec::new()
        };
        if several {
            let all_json = data_lines.iter().all(|l| {
                let v = block.value(l);
                matches!(v.first(), Some(b'{' | b'['))
                    && std::str::from_utf8(v).ok().is_some_and(|s| {
                        matches!(model::decode(s), Payload::Json(_) | Payload::Done)
                    })
            });
            let first = data_lines[1];
            let loc = self.loc(block, first, 0, first.len);
            if all_json {
                separator = true;
                self.separator_errors += 1;
                self.report(
                    Finding::new(
                        crate::lint::rule::MISSING_SEPARATOR,
                        format!(
                            "one event holds {} JSON texts on separate `data` lines: the blank line between events is missing, so the data buffer joins them with LF and no JSON parser reads it",
                            data_lines.len()
                        ),
                        loc,
                    )
                    .event(index)
                    .help("end every event with a blank line (`\\n\\n`)"),
                );
            } else {
                // Said once for the stream, at its end (as `data-no-space`).
                self.multiline_events += 1;
                self.multiline_most = self.multiline_most.max(data_lines.len());
                if self.first_multiline.is_none() {
                    let data = block.data.unwrap_or_default();
                    let hash = crate::lint::fnv1a(&[data.as_bytes()]).to_le_bytes();
                    self.first_multiline = Some((loc, index, hash));
                }
            }
        }
        separator
    }

    /// The bytes after the last blank line at end of stream.
    pub(super) fn check_tail(&mut self, block: &Block<'_>) {
        let Some(first) = block.lines.iter().find(|l| l.kind != LineKind::Comment) else {
            return;
        };
        let loc = self.loc(block, first, 0, first.len);
        let Some(data) = block.data else {
            return;
        };
        match model::decode(data) {
            // The end marker alone: the stream still ends at the close right
            // after it, and it carries nothing else (in the record every
            // client read such a stream as meant), so it is info and still
            // counts as the marker: the ending is not also `missing-done`.
            Payload::Done => {
                self.report(
                    Finding::new(
                        crate::lint::rule::UNTERMINATED_EVENT,
                        "the last event, the end marker, is not followed by a blank line: the spec discards it at end of stream, which costs nothing here, as the stream closes right after it",
                        loc,
                    )
                    .level(Severity::Info)
                    .help("end the last event with a blank line too"),
                );
                self.check_event(block, data, None, "message");
            }
            // An event with data: the spec discards it, so the stream ends
            // without it and sselint does not assemble it; its loss is an
            // error (in the record, the clients lost the finish or raised).
            // Said at the stream's end, unless the capture cut it there.
            Payload::Json(_) | Payload::LoneSurrogates(_) => {
                let mut f = Finding::new(
                    crate::lint::rule::UNTERMINATED_EVENT,
                    "the last event is not followed by a blank line: the spec discards it at end of stream, so the stream ends without what it carries",
                    loc,
                )
                .level(Severity::Error)
                .help("end the last event with a blank line too");
                let data_hash = crate::lint::fnv1a(&[data.as_bytes()]).to_le_bytes();
                f.fingerprint = crate::lint::fnv1a(&[f.rule.as_bytes(), b"", &data_hash]);
                self.tail_unterminated = Some(f);
            }
            _ => {
                // A stream that ended inside its first event: no whole
                // event named the dialect, but how the cut data starts may
                // (where the request path names none: it decides at the
                // end).
                if self.dialect.is_none() && self.path_dialect().is_none() {
                    if let Some(d) = crate::dialect::sniff_partial(data) {
                        self.settle(d);
                    }
                }
                self.tail_loc = Some(loc);
            }
        }
    }

    /// Whole-stream framing counts.
    pub(super) fn finish_framing(&mut self, framing: &Framing) {
        self.relevel_unsettled();
        if let Some((loc, hex)) = self.first_invalid_utf8.take() {
            // "the byte 0xE9 is", "the bytes 0xE2 0x82 are": hex, not a count.
            let (bytes, decode) = match hex.split(' ').collect::<Vec<_>>().as_slice() {
                [one] => (format!("the byte 0x{one} is"), "it decodes"),
                many => (
                    format!(
                        "the bytes {} are",
                        many.iter()
                            .map(|b| format!("0x{b}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    "they decode",
                ),
            };
            let more = match self.invalid_utf8_reported {
                1 => String::new(),
                n => format!(" ({} lines hold such bytes)", n),
            };
            self.report(
                Finding::new(
                    crate::lint::rule::INVALID_UTF8,
                    format!(
                        "{bytes} not UTF-8{more}; {decode} to U+FFFD, so the text a client shows differs from what the server meant"
                    ),
                    loc,
                )
                .help("send the body as UTF-8; a split multi-byte character must be completed in the same stream"),
            );
        }
        if framing.bom {
            let mut l = Location {
                byte_offset: 0,
                byte_len: 3,
                line: 1,
                column: 1,
                source: None,
            };
            self.to_file(&mut l);
            // What a parser that keeps the BOM loses is the first event
            // (observed: the text of a Chat chunk that carries some,
            // rules/observed.json bom#1); a Chat chunk with only the role
            // carries nothing a client shows (bom#3).
            let role_only = crate::dialect::words::of(self.dialect).role_only_first_event
                && self
                    .first_event_kind
                    .as_ref()
                    .is_some_and(|k| k.iter().all(|k| matches!(*k, "role" | "empty")));
            let (consequence, level) = if role_only {
                ("; the first event, which they lose, carries only the role, which they assume anyway", Severity::Info)
            } else {
                ("", Severity::Error)
            };
            self.report(
                Finding::new(
                    crate::lint::rule::BOM,
                    format!("the body starts with a byte order mark (EF BB BF); the spec strips it, but clients that split on `data: ` see it glued to the first field name{consequence}"),
                    l,
                )
                .level(level)
                .help("send UTF-8 without a BOM"),
            );
        }
        let kinds =
            u8::from(framing.lf > 0) + u8::from(framing.crlf > 0) + u8::from(framing.cr > 0);
        if framing.cr > 0 {
            let loc = self.first_cr.clone().unwrap_or_default();
            let f = Finding::new(
                crate::lint::rule::LINE_ENDINGS,
                format!(
                    "{} line(s) end with a lone CR; legal SSE, but clients that split on `\\n` never see those lines end",
                    framing.cr
                ),
                loc,
            )
            .level(Severity::Warning);
            let f = self.read_as_dialect(f, FramingShape::LoneCr);
            self.report(f);
        } else if kinds > 1 {
            let loc = if framing.crlf <= framing.lf {
                self.first_crlf.clone()
            } else {
                self.first_lf.clone()
            }
            .unwrap_or_default();
            let f = Finding::new(
                crate::lint::rule::LINE_ENDINGS,
                format!(
                    "line endings are mixed ({} LF, {} CRLF); a parser that splits on `\\n` alone keeps a stray CR in some values (the observed SDKs split on both)",
                    framing.lf, framing.crlf
                ),
                loc,
            );
            let f = self.read_as_dialect(f, FramingShape::Mixed);
            self.report(f);
        } else if framing.crlf > 0 {
            let loc = self.first_crlf.clone().unwrap_or_default();
            let f = Finding::new(
                crate::lint::rule::LINE_ENDINGS,
                "lines end with CRLF; legal SSE, but clients that split on `\\n` keep a trailing CR in every value",
                loc,
            );
            let f = self.read_as_dialect(f, FramingShape::CrLf);
            self.report(f);
        }
        if self.no_space_lines > 0 {
            let loc = self.first_no_space.clone().unwrap_or_default();
            let f = Finding::new(
                crate::lint::rule::DATA_NO_SPACE,
                format!(
                    "`data:` is not followed by a space on {} of {} data lines; legal SSE, but clients that match the prefix `data: ` skip these lines",
                    self.no_space_lines, self.data_lines
                ),
                loc,
            )
            .help("write `data: ` with one space, as OpenAI does");
            let f = self.read_as_dialect(f, FramingShape::DataNoSpace);
            self.report(f);
        }
        if let Some((loc, index, data_hash)) = self.first_multiline.take() {
            let message = if self.multiline_events == 1 {
                format!(
                    "the event's data spans {} `data` lines (joined with LF); legal, but clients that handle each `data:` line on its own break",
                    self.multiline_most
                )
            } else {
                format!(
                    "{} events spread their data over several `data` lines (up to {}, joined with LF); legal, but clients that handle each `data:` line on its own break",
                    self.multiline_events, self.multiline_most
                )
            };
            let mut f = Finding::new(crate::lint::rule::MULTILINE_DATA, message, loc).event(index);
            f = self.read_as_dialect(f, FramingShape::MultilineData);
            // Fingerprinted by the first such event's data, as before.
            f.fingerprint = crate::lint::fnv1a(&[f.rule.as_bytes(), b"", &data_hash]);
            self.out.push(f);
        }
        if self.comment_lines > 0 {
            let loc = self.first_comment.clone().unwrap_or_default();
            let f = Finding::new(
                crate::lint::rule::COMMENT,
                format!(
                    "{} comment line(s) (keep-alives); legal SSE, ignored by conforming clients, but a client that parses every line as JSON fails on them",
                    self.comment_lines
                ),
                loc,
            );
            let f = self.read_as_dialect(f, FramingShape::Comment);
            self.report(f);
        }
        if self.sse_lines > 0 {
            for f in std::mem::take(&mut self.pending_fields) {
                let f = self.read_as_dialect(f, FramingShape::UnknownField);
                self.report(f);
            }
        }
    }
}

/// `EF BB` style rendering of bytes.
pub(super) fn hex_bytes(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}
