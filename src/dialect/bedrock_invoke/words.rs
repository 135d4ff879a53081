//! What Bedrock Invoke calls things: the inner events are Anthropic
//! Messages' ([`crate::dialect::messages::words::WORDS`]), carried in
//! frames, and the faults are Messages' rules but for a mid-stream
//! error, which in an Invoke stream is an exception frame
//! (`invoke-exception`).

use crate::dialect::messages::words::FAULTS as MESSAGES_FAULTS;
use crate::dialect::words::{Fault, Words};

/// Messages' faults, the error event's rule replaced by `invoke-exception`.
const fn with_exception<const N: usize>(
    mut faults: [(Fault, &'static str); N],
) -> [(Fault, &'static str); N] {
    let mut i = 0;
    while i < N {
        if matches!(faults[i].0, Fault::ErrorEvent) {
            faults[i].1 = "invoke-exception";
        }
        i += 1;
    }
    faults
}

const FAULTS: [(Fault, &str); MESSAGES_FAULTS.len()] = with_exception(MESSAGES_FAULTS);

/// The Invoke vocabulary.
pub const WORDS: Words = Words {
    event: "frame",
    faults: &FAULTS,
    ..crate::dialect::messages::words::WORDS
};
