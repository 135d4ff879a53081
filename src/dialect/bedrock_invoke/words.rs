//! What Bedrock Invoke calls things: the inner events are Anthropic
//! Messages' ([`crate::dialect::messages::words::WORDS`]), carried in
//! frames, and the faults are Messages' rules but for a mid-stream
//! error, which in an Invoke stream is an exception frame
//! (`invoke-exception`).

use crate::dialect::messages::words::FAULTS as MESSAGES_FAULTS;
use crate::dialect::words::{Fault, Words};

/// Messages' faults, the error event's rule replaced by `invoke-exception`,
/// and after them a frame the transport could not read (`invoke-frame`),
/// which is the stream's cut where the body ends inside it.
const fn with_exception<const N: usize, const M: usize>(
    faults: [(Fault, &'static str); N],
) -> [(Fault, &'static str); M] {
    let mut out = [(Fault::Frame, "invoke-frame"); M];
    out[M - 1] = (Fault::CutOff, "invoke-frame");
    let mut i = 0;
    while i < N {
        out[i] = faults[i];
        if matches!(faults[i].0, Fault::ErrorEvent) {
            out[i].1 = "invoke-exception";
        }
        i += 1;
    }
    out
}

const FAULTS: [(Fault, &str); MESSAGES_FAULTS.len() + 2] = with_exception(MESSAGES_FAULTS);

/// The Invoke vocabulary.
pub const WORDS: Words = Words {
    event: "frame",
    faults: &FAULTS,
    ..crate::dialect::messages::words::WORDS
};
