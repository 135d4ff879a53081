//! One event's way through the linter: the event framing, then its
//! dialect's [`Checker`](crate::dialect::Checker); and the shared payload
//! rule, `invalid-json` (the event's data is neither JSON nor `[DONE]`).

use super::Linter;
use crate::lint::Finding;
use crate::model;
use crate::sse::Block;

impl Linter<'_> {
    /// Everything about one event (a dispatched one, or the tail with
    /// `index == None`).
    pub(super) fn check_event(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        event_type: &str,
    ) {
        self.event_kind.clear();
        self.event_summary.clear();
        if let Some(f) = self.fields_seen.as_mut() {
            f.clear();
        }
        let route = self.route(block, data, index, event_type);
        let separator = self.check_event_framing(block, index);
        match route {
            super::dialect::Route::Unknown => {}
            super::dialect::Route::Dialect => {
                self.dialect_event(block, data, index, event_type, separator)
            }
        }
        if index.is_some() && self.first_event_kind.is_none() {
            self.first_event_kind = Some(self.event_kind.clone());
        }
    }

    /// `invalid-json` at the byte where the parser gave up.
    pub(super) fn report_invalid_json(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        invalid: &model::InvalidJson,
        separator: bool,
    ) {
        if self.out.count_only("invalid-json", None) {
            return;
        }
        let (message, at) = (invalid.message(), invalid.at(data));
        let loc = match model::span::data_position(block, at) {
            Some((line, s)) => self.loc(block, line, s, (s + 1).min(line.len)),
            None => self.event_loc(block),
        };
        let why = if separator {
            " (several events run together)".to_string()
        } else {
            String::new()
        };
        self.report(
            Finding::new(
                crate::lint::rule::INVALID_JSON,
                format!("the event's data is neither JSON nor `[DONE]`{why}: {message}; clients that parse every event fail here"),
                loc,
            )
            .event(index),
        );
    }
}
