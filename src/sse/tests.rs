//! Unit tests of the framing, one spec clause each.

use super::*;

/// What a dispatched event looks like to a test: (type, data, last id, retry).
type Ev = (String, String, Option<String>, Option<u64>);

fn events(body: &[u8]) -> Vec<Ev> {
    let mut out = Vec::new();
    parse_all(body, &mut |b: &Block<'_>| {
        if let Some(d) = &b.dispatch {
            out.push((
                d.event_type.to_string(),
                d.data.to_string(),
                d.last_event_id.map(str::to_string),
                b.retry,
            ));
        }
    });
    out
}

fn ev(data: &str) -> Ev {
    ("message".into(), data.into(), None, None)
}

#[test]
fn one_space_after_the_colon_is_stripped_and_only_one() {
    assert_eq!(events(b"data:  x\n\n"), vec![ev(" x")]);
    assert_eq!(events(b"data:x\n\n"), vec![ev("x")]);
}

#[test]
fn data_lines_join_with_lf_and_the_last_lf_is_removed() {
    assert_eq!(events(b"data: a\ndata: b\n\n"), vec![ev("a\nb")]);
    assert_eq!(events(b"data\n\n"), vec![ev("")]);
}

#[test]
fn a_block_without_data_dispatches_nothing_but_is_kept() {
    let mut blocks = 0;
    let mut dispatched = 0;
    parse_all(b": ping\n\nevent: x\n\n", &mut |b: &Block<'_>| {
        blocks += 1;
        dispatched += usize::from(b.dispatch.is_some());
    });
    assert_eq!((blocks, dispatched), (2, 0));
}

#[test]
fn cr_crlf_and_lf_all_end_lines() {
    let want = vec![ev("a"), ev("b"), ev("c")];
    assert_eq!(events(b"data: a\r\rdata: b\r\n\r\ndata: c\n\n"), want);
}

#[test]
fn a_cr_at_the_end_of_a_feed_waits_for_the_next_byte() {
    let mut p = Parser::new();
    let mut n = 0;
    let mut sink = |b: &Block<'_>| n += usize::from(b.dispatch.is_some());
    p.feed(b"data: a\r", &mut sink);
    p.feed(b"\n\r", &mut sink);
    p.feed(b"\n", &mut sink);
    let f = p.finish(&mut sink);
    assert_eq!(n, 1);
    assert_eq!((f.crlf, f.cr, f.lf), (2, 0, 0));
}

#[test]
fn one_bom_is_stripped_only_at_the_start_even_split() {
    let mut p = Parser::new();
    let mut got = Vec::new();
    let mut sink = |b: &Block<'_>| {
        if let Some(d) = &b.dispatch {
            got.push(d.data.to_string());
        }
    };
    p.feed(&[0xEF], &mut sink);
    p.feed(&[0xBB, 0xBF, 0xEF, 0xBB, 0xBF], &mut sink);
    p.feed(b"data: x\n\n", &mut sink);
    let f = p.finish(&mut sink);
    assert!(f.bom);
    // The second BOM is content: part of a field named "\u{feff}data".
    assert!(got.is_empty());
}

#[test]
fn event_type_defaults_to_message_and_resets_per_block() {
    let got = events(b"event: a\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\n");
    let types: Vec<_> = got.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(types, ["a", "message", "message"]);
}

#[test]
fn last_event_id_persists_and_nul_ids_are_ignored() {
    let got = events(b"id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n");
    let ids: Vec<_> = got.iter().map(|e| e.2.clone()).collect();
    assert_eq!(
        ids,
        [
            Some("1".into()),
            Some("1".into()),
            Some("1".into()),
            Some(String::new())
        ]
    );
}

#[test]
fn retry_counts_only_when_all_ascii_digits() {
    let got = events(b"retry: 3000\ndata: a\n\nretry: 3s\ndata: b\n\nretry: \ndata: c\n\n");
    let r: Vec<_> = got.iter().map(|e| e.3).collect();
    assert_eq!(r, [Some(3000), None, None]);
}

#[test]
fn the_unterminated_tail_is_reported_but_not_dispatched() {
    let mut tails = Vec::new();
    let mut dispatched = 0;
    parse_all(b"data: a\n\ndata: [DONE]\n", &mut |b: &Block<'_>| {
        dispatched += usize::from(b.dispatch.is_some());
        if !b.terminated {
            tails.push(b.data.map(str::to_string));
        }
    });
    assert_eq!(dispatched, 1);
    assert_eq!(tails, [Some("[DONE]".to_string())]);
}

#[test]
fn a_line_without_a_colon_is_a_field_with_an_empty_value() {
    assert_eq!(events(b"data\ndata\n\n"), vec![ev("\n")]);
}

#[test]
fn invalid_utf8_decodes_to_replacement_characters() {
    assert_eq!(events(b"data: a\xFFb\n\n"), vec![ev("a\u{FFFD}b")]);
}

#[test]
fn lines_carry_offsets_and_line_numbers() {
    let mut seen = Vec::new();
    parse_all(
        b"\xEF\xBB\xBFdata: a\r\n\r\n: c\ndata: b\n\n",
        &mut |b: &Block<'_>| {
            for l in b.lines {
                seen.push((l.offset, l.line, l.end));
            }
        },
    );
    assert_eq!(
        seen,
        [
            (3, 1, LineEnd::CrLf),
            (14, 3, LineEnd::Lf),
            (18, 4, LineEnd::Lf)
        ]
    );
}

#[test]
fn a_long_run_of_comments_is_counted_not_kept() {
    // 100 000 comments in one block, one of them with a CR and one with
    // invalid UTF-8 past the kept lines, then a data line.
    let n = 100_000;
    let mut body = Vec::new();
    for i in 0..n {
        match i {
            50_000 => body.extend_from_slice(b": cr\r"),
            60_000 => body.extend_from_slice(b": \xFF\n"),
            _ => body.extend_from_slice(b":\n"),
        }
    }
    body.extend_from_slice(b": last\ndata: x\n\n");
    let mut seen = Vec::new();
    parse_all(&body, &mut |b: &Block<'_>| {
        let texts: Vec<Vec<u8>> = b.lines.iter().map(|l| b.bytes(l).to_vec()).collect();
        seen.push((b.lines.len(), b.skipped_comments, texts, b.lines.to_vec()));
    });
    assert_eq!(seen.len(), 1);
    let (kept, skipped, texts, lines) = &seen[0];
    // The first KEPT_LINES, the CR line, the invalid line, the last comment and the data line.
    assert_eq!(*kept, KEPT_LINES + 4);
    assert_eq!(skipped.lines, (n + 2 - kept) as u64);
    assert_eq!(skipped.invalid_utf8, 0);
    assert_eq!(texts[KEPT_LINES], b": cr");
    assert_eq!(lines[KEPT_LINES].line, 50_001);
    assert_eq!(texts[KEPT_LINES + 1], b": \xFF");
    assert_eq!(texts[KEPT_LINES + 2], b": last");
    assert_eq!(lines[KEPT_LINES + 2].line, n as u64 + 1);
    assert_eq!(texts[KEPT_LINES + 3], b"data: x");
}

#[test]
fn skipped_comments_with_invalid_utf8_are_counted() {
    let mut body = Vec::new();
    for _ in 0..KEPT_LINES + 10 {
        body.extend_from_slice(b": \xFF\n");
    }
    body.extend_from_slice(b"\n");
    let mut seen = Vec::new();
    parse_all(&body, &mut |b: &Block<'_>| {
        seen.push((b.lines.len(), b.skipped_comments));
    });
    assert_eq!(
        seen,
        [(
            KEPT_LINES + 1,
            Skipped {
                lines: 9,
                invalid_utf8: 9
            }
        )]
    );
}
