//! sselint: a stream inspector and conformance linter for LLM streaming
//! responses (server-sent events) in four dialects: OpenAI Chat
//! Completions, OpenAI Responses, Anthropic Messages and Google Gemini's
//! `streamGenerateContent`.
//!
//! The pipeline runs in one direction, each module looking only left:
//!
//! ```text
//! capture ──► sse ──► dialect (model + checks) ──► lint ──► report
//!                  chat │ responses │ messages │ gemini
//! ```
//!
//! - [`vocab`] names the dialects (their ids: name, title, endpoint),
//!   below everything that needs to name one;
//! - [`capture`] turns a file, stdin, a curl dump or a HAR into streams
//!   (body bytes, HTTP metadata, the request, timings);
//! - [`sse`] frames a body exactly as the WHATWG event-stream algorithm
//!   does, keeping byte offsets and line numbers;
//! - [`transport`] names the ways a stream's messages arrive (SSE, NDJSON
//!   lines), each a folder, and frames the ones that are not SSE into
//!   messages with their spans;
//! - [`checks`] holds the linter one stream goes through: the transport,
//!   framing and timing rules every dialect shares (`rules/transport/`),
//!   and the settling of the stream's dialect;
//! - [`model`] holds what every dialect shares about an event and its
//!   answer: what an event's data is (`[DONE]`, JSON, not JSON), where a
//!   JSON pointer's bytes are, and the [`model::assembly::Answer`] each
//!   dialect fills;
//! - [`dialect`] names the dialects, tells one from a URL or an event, and
//!   defines the [`dialect::Checker`] trait; each dialect's stream model
//!   and checks sit in their own folder ([`dialect::chat`],
//!   [`dialect::responses`], [`dialect::messages`]), and its rules in
//!   `rules/DIALECT/`; each folder implements the trait, which the linter
//!   hands every event of a stream of that dialect. Adding a fourth means
//!   a folder under `src/dialect/`, one under `rules/`, and a variant of
//!   [`dialect::Dialect`];
//! - [`lint`] holds the findings' vocabulary (severity, location,
//!   finding), the rule catalogue (the rule files, each in its dialect's
//!   folder), profiles, settings and the client record: the checkers
//!   build on it;
//! - [`pipeline`] ties a stream to its findings, [`streamlog`] records
//!   its events and timeline for the HTML pages; [`report`] renders them,
//!   [`diff`] compares two streams (across dialects on what both have);
//! - [`card`] holds what a probe run gives as data (outcomes, verdicts,
//!   report cards), which [`probe`] fills and [`report`] renders;
//! - [`proxy`] forwards an application's requests to their upstreams and
//!   lints each stream as it passes.

// In dependency order, leaves first: a module uses only those above it
// (tests/layering.rs).
pub mod output;
pub mod vocab;
pub mod sse;
pub mod transport;
pub mod capture;
pub mod model;
pub mod lint;
pub mod dialect;
pub mod checks;
pub mod pipeline;
pub mod config;
pub mod baseline;
pub mod streamlog;
pub mod redact;
pub mod diff;
pub mod card;
pub mod report;
pub mod minimize;
pub mod live;
pub mod probe;
pub mod replay;
pub mod proxy;
// The wheel's Python module (cargo feature `python`): it also holds the
// command line, which names this crate `sselint` as the binary does.
#[cfg(feature = "python")]
extern crate self as sselint;
#[cfg(feature = "python")]
pub mod python;
