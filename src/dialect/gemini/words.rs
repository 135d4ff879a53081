//! What Gemini's `streamGenerateContent` calls things (chunks, candidates,
//! parts, thoughts, `finishReason`), and which of its fields hold text:
//! the vocabulary `diff`, `redact` and `minimize` ask for
//! ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Terms, Words};

/// The Gemini vocabulary. A stream has no end marker: it ends when the
/// connection closes after the chunk with the `finishReason`; `[DONE]` is
/// what some proxies add, and is named as such.
pub const WORDS: Words = Words {
    terms: Terms {
        choice: "candidate",
        finish: "finishReason",
        reasoning: "thoughts",
    },
    end_marker: "[DONE]",
    sentinel: false,
    keepalive: "keepalive",
    event: "chunk",
    // Several candidates, told apart by `index`.
    answer: None,
    call_unit: Some("part"),
    finish: "finishReason",
    reasoning: "thoughts",
    reasoning_class: "thought",
    text_keys: &[
        // Text and thought parts.
        "text",
        // `codeExecutionResult.output` (`executableCode.code` is scrubbed
        // as one of `text_objects`: `code` is an error's code in the other
        // dialects, a name, not text).
        "output",
        // Why a candidate stopped, and an error's text.
        "finishMessage",
        "message",
        // A streamed argument's string piece (`partialArgs[].stringValue`).
        "stringValue",
        // Grounding: the search queries, the rendered search widget, the
        // sources' titles and addresses, the text a support quotes.
        "webSearchQueries",
        "renderedContent",
        "title",
        "uri",
        "retrievedUrl",
        "domain",
        // A citation's license: the source's own words, not a name sselint
        // knows (`CC-BY-4.0` or a sentence).
        "license",
        // A part's file: its address (`fileData.fileUri`, a user's
        // `gs://` object or Files API URI) and the name shown for it
        // (`displayName`, of a file or inline data) are the user's, and
        // so is inline data's base64 (`inlineData.data`): scrubbed as
        // text, letters to letters and digits to digits, so the shape
        // stays valid (`mimeType` names a type and stays).
        "fileUri",
        "displayName",
        "data",
    ],
    // Gemini's call arguments are a JSON object (`args`), not JSON text.
    json_text_keys: &[],
    // A function call's arguments (the values; the keys are the
    // function's parameter names), and the code a model ran (its
    // `language` is an identifier).
    text_objects: &["args", "executableCode"],
    request_options: &[
        // `toolConfig.functionCallingConfig.mode`, `generationConfig`'s
        // `responseMimeType`, `responseModalities`, `mediaResolution` and
        // `thinkingConfig.thinkingLevel`, `safetySettings`' `category`,
        // `threshold` and `method`, an inline part's `mimeType`.
        "mode",
        "responseMimeType",
        "responseModalities",
        "mediaResolution",
        "thinkingLevel",
        "category",
        "threshold",
        "method",
        "mimeType",
    ],
    identifiers: &[
        "role",
        "id",
        "name",
        "finishReason",
        "blockReason",
        "modelVersion",
        "responseId",
        "mimeType",
        "language",
        "outcome",
        "category",
        "probability",
        "severity",
        "thoughtSignature",
        "jsonPath",
        "modality",
        "trafficType",
        "createTime",
        "status",
    ],
    role_only_first_event: false,
    kept: &["index", "responseId", "modelVersion"],
    faults: &[
        (Fault::CutOff, "gemini-cut-off"),
        (Fault::ErrorEvent, "gemini-error-event"),
        (Fault::ArgumentsJson, "gemini-function-args"),
        (Fault::AfterEnd, "gemini-after-finish"),
        (Fault::Schema, "gemini-schema"),
        (Fault::UsageDecreasing, "gemini-usage-decreasing"),
        (Fault::UsageMismatch, "gemini-usage-total"),
        (Fault::FinishValue, "gemini-finish-reason-value"),
        (Fault::TokenBudget, "gemini-max-tokens"),
        // A filter's finish (`SAFETY`, `RECITATION`, …) or a blocked
        // prompt; `gemini-finish-reason` also reports a failed call
        // (`MALFORMED_FUNCTION_CALL`), whose finish is no filter's.
        (Fault::Filtered, "gemini-finish-reason"),
        (Fault::Filtered, "gemini-prompt-blocked"),
    ],
};
