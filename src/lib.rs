//! sselint: a stream inspector and conformance linter for the
//! OpenAI-compatible Chat Completions streaming format.
//!
//! The pipeline runs in one direction, each module looking only left:
//!
//! ```text
//! capture ──► sse ──► model ──► checks (lint) ──► report
//! ```
//!
//! - [`capture`] turns a file, stdin, a curl dump or a HAR into streams
//!   (body bytes, HTTP metadata, the request, timings);
//! - [`sse`] frames a body exactly as the WHATWG event-stream algorithm
//!   does, keeping byte offsets and line numbers;
//! - [`model`] reads each event's data (`[DONE]`, a chunk, an error, not
//!   JSON) and reconstructs the answer;
//! - [`lint`] holds the rule catalogue, profiles and settings, and
//!   [`checks`] runs the rules;
//! - [`pipeline`] ties a stream to its findings; [`report`] renders them.

pub mod baseline;
pub mod capture;
pub mod checks;
pub mod config;
pub mod dialect;
pub mod diff;
pub mod lint;
pub mod live;
pub mod model;
pub mod output;
pub mod pipeline;
pub mod redact;
pub mod replay;
pub mod report;
pub mod sse;
