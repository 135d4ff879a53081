//! `sselint._native`, the Python module of the wheel (cargo feature
//! `python`; maturin builds it, pyproject.toml): the lint in process, with
//! the GIL released while it runs, over bodies given as `bytes` or as a
//! pyarrow batch's column, and the `sselint` command itself (`main`).
//!
//! The Python package (python/sselint) wraps it: `lint`, `lint_many` and
//! `lint_arrow` (docs/python.md). Each row goes through the same steps as
//! `check --input-format jsonl`: [`jsonl::capture`] with the row's HTTP
//! facts, [`pipeline::lint_opened`], and [`crate::report::jsonl::rows`] or
//! the JSON report; so a row's result is the CLI's.
//!
//! Arrow batches cross through the Arrow C data interface (pyarrow's
//! `_export_to_c` and `_import_from_c`): the body column is read where
//! pyarrow keeps it; each body is copied once, while it is linted.

use crate::capture::jsonl::{self, Facts};
use crate::capture::Body;
use crate::capture::{InputFormat, Options};
use crate::config::Config;
use crate::lint::Diagnostic;
use crate::lint::{Settings, Severity};
use crate::pipeline::{self, FileResult};
use crate::report::json::{self, Json};
use crate::report::jsonl::Row;
use crate::report::{Render, Run};
use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder, StructBuilder};
use arrow_array::cast::AsArray;
use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_schema::{DataType, Field, Fields};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString, PyTuple};
use pyo3::{intern, IntoPyObjectExt};
use serde_json::Value;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "cli/mod.rs"]
#[allow(dead_code, unused_imports)]
mod cli;

/// What every row of a call shares.
struct Shared {
    opts: Options,
    config: Config,
    select: Vec<&'static str>,
    ignore: Vec<&'static str>,
    dialect: Option<crate::dialect::Dialect>,
    stall_ms: u64,
    max_event_bytes: Option<usize>,
    fail_on: Option<Severity>,
    profile: Option<String>,
    /// How long one row may take (`timeout_ms`); past it the row is an
    /// error row.
    timeout: Option<Duration>,
}

impl Shared {
    /// The settings for row `id` under `profile` (the row's, else the
    /// call's, else the configuration's).
    fn settings(&self, id: &str, profile: Option<&str>) -> Settings {
        let p = profile.or(self.profile.as_deref());
        let mut s = self.config.settings_for(id, p, &self.select, &self.ignore);
        s.stall_ms = self.stall_ms;
        s.dialect = self.dialect;
        if let Some(n) = self.max_event_bytes {
            s.max_event_bytes = n;
        }
        s
    }

    /// The profile a report names.
    fn profile_name(&self, row: Option<&str>) -> String {
        row.map(str::to_string)
            .or_else(|| self.profile.clone())
            .or_else(|| self.config.profile.clone())
            .unwrap_or_else(|| "openai".to_string())
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn check_profile(name: &str) -> PyResult<()> {
    if crate::lint::profile::profile(name).is_some() {
        return Ok(());
    }
    let names: Vec<&str> = crate::lint::profile::profiles()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    Err(value_error(format!(
        "unknown profile {name:?}; known profiles: {}",
        names.join(", ")
    )))
}

#[allow(clippy::too_many_arguments)]
fn shared(
    profile: Option<String>,
    dialect: Option<&str>,
    select: Vec<String>,
    ignore: Vec<String>,
    fail_on: Option<&str>,
    config: Option<String>,
    find_config: bool,
    input_format: Option<&str>,
    max_event_bytes: Option<usize>,
    max_decoded_bytes: Option<u64>,
    stall_ms: Option<u64>,
    timeout_ms: Option<u64>,
) -> PyResult<Shared> {
    let config = match (config, find_config) {
        (Some(p), _) => Config::load(std::path::Path::new(&p))
            .map_err(|e| value_error(format!("bad configuration\n{}", e.message)))?,
        (None, true) => match std::env::current_dir().ok().and_then(|d| Config::find(&d)) {
            Some(p) => Config::load(&p)
                .map_err(|e| value_error(format!("bad configuration\n{}", e.message)))?,
            None => Config::empty(),
        },
        (None, false) => Config::empty(),
    };
    if let Some(p) = &profile {
        check_profile(p)?;
    }
    let dialect = match dialect {
        None => None,
        Some(d) => match crate::dialect::Dialect::parse(d) {
            Some(d) => Some(d),
            None => {
                let names: Vec<String> = crate::dialect::ALL
                    .iter()
                    .map(|d| format!("{:?}", d.name()))
                    .collect();
                return Err(value_error(format!(
                    "dialect {d:?}: use {}",
                    names.join(", ")
                )));
            }
        },
    };
    let rules = |v: &[String]| {
        let refs: Vec<&str> = v.iter().map(String::as_str).collect();
        crate::config::resolve_rules(&refs).map_err(value_error)
    };
    let fail_on = match fail_on {
        None => config.fail_on.unwrap_or(Some(Severity::Error)),
        Some("error") => Some(Severity::Error),
        Some("warning") => Some(Severity::Warning),
        Some("info") => Some(Severity::Info),
        Some("never") => None,
        Some(f) => {
            return Err(value_error(format!(
                "fail_on {f:?}: use \"error\", \"warning\", \"info\" or \"never\""
            )))
        }
    };
    let input_format = match input_format {
        None | Some("sse") => Some(InputFormat::Sse),
        Some("auto") => None,
        Some("curl") => Some(InputFormat::Curl),
        Some("har") => Some(InputFormat::Har),
        Some(f) => {
            return Err(value_error(format!(
                "input_format {f:?}: use \"sse\", \"curl\", \"har\" or \"auto\""
            )))
        }
    };
    Ok(Shared {
        opts: Options {
            input_format,
            max_decoded_bytes,
            ..Options::default()
        },
        select: rules(&select)?,
        ignore: rules(&ignore)?,
        config,
        dialect,
        stall_ms: stall_ms.unwrap_or(10_000),
        max_event_bytes,
        fail_on,
        profile,
        timeout: timeout_ms.map(Duration::from_millis),
    })
}

/// A row's headers as (name, value) pairs.
type HeaderPairs = Vec<(String, String)>;

/// A row's headers as `lint_many` takes them: pairs, or a JSON object as
/// text (read here, so a bad one is the row's error, as in `lint_arrow`).
#[derive(FromPyObject)]
enum HeaderArg {
    Text(String),
    Pairs(HeaderPairs),
}

/// One row to lint. The body is borrowed from the caller's `bytes` or
/// Arrow buffer (both stay alive and unchanged while the GIL is let go)
/// and copied once, into the capture's reader.
struct Input<'a> {
    id: String,
    body: Option<&'a [u8]>,
    facts: Facts,
    profile: Option<String>,
    /// A fact that could not be read (the row's error).
    bad: Option<String>,
}

fn lint_input(r: &Input<'_>, sh: &Shared) -> FileResult {
    if let Some(e) = &r.bad {
        return failed(&r.id, e.clone());
    }
    let Some(body) = &r.body else {
        return failed(&r.id, jsonl::NO_BODY.to_string());
    };
    let settings = sh.settings(&r.id, r.profile.as_deref());
    let started = Instant::now();
    let cap = jsonl::capture(&r.id, body.to_vec(), &r.facts, &sh.opts);
    lint_in_time(&r.id, cap, &settings, sh.timeout, started)
}

/// Lints an opened capture; with a `limit`, a capture that takes longer
/// (counted from `started`) gives an error row instead of its result.
/// Every stream's body is read through a [`Deadline`], so a long body
/// stops being read once the time is up; a HAR entry's body, kept whole
/// to map its findings into the file, is linted to its end first.
fn lint_in_time(
    id: &str,
    cap: Result<crate::capture::Capture, crate::capture::InputError>,
    settings: &Settings,
    limit: Option<Duration>,
    started: Instant,
) -> FileResult {
    let Some(limit) = limit else {
        return pipeline::lint_opened(id, cap, settings);
    };
    let until = started + limit;
    let hit = Arc::new(AtomicBool::new(false));
    let cap = cap.map(|mut c| {
        for s in &mut c.streams {
            let body = std::mem::replace(&mut s.body, Body::Bytes(Vec::new()));
            s.body = match body {
                Body::Reader(r) => Body::Reader(Box::new(Deadline {
                    inner: r,
                    until,
                    hit: hit.clone(),
                })),
                Body::Bytes(b) if s.origin.har_text.is_none() => Body::Reader(Box::new(Deadline {
                    inner: Box::new(std::io::Cursor::new(b)),
                    until,
                    hit: hit.clone(),
                })),
                kept => kept,
            };
        }
        c
    });
    let fr = pipeline::lint_opened(id, cap, settings);
    if hit.load(Ordering::Relaxed) || Instant::now() > until {
        return failed(
            id,
            format!(
                "linting took longer than the time-out (timeout_ms={}); the row was not judged",
                limit.as_millis()
            ),
        );
    }
    fr
}

/// A body reader that fails once `until` has passed (and says so in `hit`).
struct Deadline {
    inner: Box<dyn Read + Send>,
    until: Instant,
    hit: Arc<AtomicBool>,
}

impl Read for Deadline {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if Instant::now() > self.until {
            self.hit.store(true, Ordering::Relaxed);
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the time-out passed",
            ));
        }
        self.inner.read(buf)
    }
}

fn failed(id: &str, message: String) -> FileResult {
    FileResult {
        path: id.to_string(),
        input_format: None,
        detail: "",
        error: Some(message),
        rules_run: Vec::new(),
        streams: Vec::new(),
    }
}

/// Runs `f` on every index below `n` on `jobs` threads; results in order.
fn parallel<T: Send>(n: usize, jobs: usize, f: &(dyn Fn(usize) -> T + Sync)) -> Vec<T> {
    let workers = jobs.max(1).min(n.max(1));
    if workers == 1 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut parts: Vec<Vec<(usize, T)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        mine.push((i, f(i)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut all: Vec<(usize, T)> = parts.iter_mut().flat_map(std::mem::take).collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, t)| t).collect()
}

fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// One row's run (its report names the row's profile).
fn row_run(fr: FileResult, sh: &Shared, profile: Option<&str>) -> Run {
    Run {
        files: vec![fr],
        profile: sh.profile_name(profile),
        suppressed: 0,
        fail_on: sh.fail_on,
    }
}

/// A run's exit code: 2 when an input could not be read, 1 when a finding
/// reaches `fail_on`, else 0 (as `sselint check`).
fn exit_code(run: &Run) -> u8 {
    if run.had_input_errors() {
        2
    } else {
        match (run.fail_on, run.worst()) {
            (Some(t), Some(w)) if w >= t => 1,
            _ => 0,
        }
    }
}

/// A run's JSON report and its exit code.
fn json_report(run: &Run) -> (String, u8) {
    let mut buf = Vec::new();
    let _ = Json.render(run, &mut buf);
    (String::from_utf8_lossy(&buf).into_owned(), exit_code(run))
}

/// A row's run, its JSON document as text (for `Report.raw`) and its
/// exit code: what a typed report is built from.
type Done = (Run, String, u8);

fn done(run: Run) -> Done {
    let text = serde_json::to_string(&json::doc(&run)).unwrap_or_default();
    let code = exit_code(&run);
    (run, text, code)
}

/// Rows linted between two turns of building their reports (which needs
/// the GIL): bounds what is held at once.
const ROWS_AT_ONCE: usize = 1024;

fn facts_of(
    status: Option<i64>,
    headers: Option<Vec<(String, String)>>,
    path: Option<String>,
) -> (Facts, Option<String>) {
    let mut bad = None;
    let status = status.and_then(|s| match u16::try_from(s) {
        Ok(n) if (100..1000).contains(&n) => Some(n),
        _ => {
            bad = Some(format!(
                "the status {s} is not an HTTP status code (100-999)"
            ));
            None
        }
    });
    let headers = headers.unwrap_or_default();
    (
        Facts::new(
            status,
            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            path,
        ),
        bad,
    )
}

/// Lints many bodies in process; returns each row's typed `Report`
/// (python/sselint/_report.py), in order. A `None` body is that row's
/// error.
#[pyfunction]
#[pyo3(signature = (bodies, ids, statuses, headers, paths, profiles, jobs, profile, dialect, select, ignore, fail_on, config, find_config, input_format, max_event_bytes, max_decoded_bytes, stall_ms, timeout_ms))]
#[allow(clippy::too_many_arguments)]
fn lint_many<'py>(
    py: Python<'py>,
    bodies: Vec<Option<Bound<'py, PyBytes>>>,
    ids: Option<Vec<String>>,
    statuses: Option<Vec<Option<i64>>>,
    headers: Option<Vec<Option<HeaderArg>>>,
    paths: Option<Vec<Option<String>>>,
    profiles: Option<Vec<Option<String>>>,
    jobs: Option<usize>,
    profile: Option<String>,
    dialect: Option<&str>,
    select: Vec<String>,
    ignore: Vec<String>,
    fail_on: Option<&str>,
    config: Option<String>,
    find_config: bool,
    input_format: Option<&str>,
    max_event_bytes: Option<usize>,
    max_decoded_bytes: Option<u64>,
    stall_ms: Option<u64>,
    timeout_ms: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let n = bodies.len();
    for (what, len) in [
        ("ids", ids.as_ref().map(Vec::len)),
        ("statuses", statuses.as_ref().map(Vec::len)),
        ("headers", headers.as_ref().map(Vec::len)),
        ("request_paths", paths.as_ref().map(Vec::len)),
        ("profiles", profiles.as_ref().map(Vec::len)),
    ] {
        if let Some(l) = len.filter(|l| *l != n) {
            return Err(value_error(format!("{what} has {l} items for {n} bodies")));
        }
    }
    if let Some(ps) = &profiles {
        for p in ps.iter().flatten() {
            check_profile(p)?;
        }
    }
    let sh = shared(
        profile,
        dialect,
        select,
        ignore,
        fail_on,
        config,
        find_config,
        input_format,
        max_event_bytes,
        max_decoded_bytes,
        stall_ms,
        timeout_ms,
    )?;
    let mut ids = ids.map(Vec::into_iter);
    let mut statuses = statuses.map(Vec::into_iter);
    let mut headers = headers.map(Vec::into_iter);
    let mut paths = paths.map(Vec::into_iter);
    let mut profiles = profiles.map(Vec::into_iter);
    let inputs: Vec<Input> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (hdrs, bad_headers) = match headers.as_mut().and_then(Iterator::next).flatten() {
                None => (None, None),
                Some(HeaderArg::Pairs(p)) => (Some(p), None),
                Some(HeaderArg::Text(t)) => match jsonl::header_pairs_text(&t) {
                    Ok(p) => (Some(p), None),
                    Err(e) => (None, Some(e)),
                },
            };
            let (facts, bad_status) = facts_of(
                statuses.as_mut().and_then(Iterator::next).flatten(),
                hdrs,
                paths.as_mut().and_then(Iterator::next).flatten(),
            );
            let bad = bad_headers.or(bad_status);
            Input {
                id: ids
                    .as_mut()
                    .and_then(Iterator::next)
                    .unwrap_or_else(|| i.to_string()),
                body: b.as_ref().map(|b| b.as_bytes()),
                facts,
                profile: profiles.as_mut().and_then(Iterator::next).flatten(),
                bad,
            }
        })
        .collect();
    let jobs = jobs_or_cores(jobs);
    let typed = Typed::load(py)?;
    let mut reports = Vec::with_capacity(inputs.len());
    for part in inputs.chunks(ROWS_AT_ONCE) {
        let runs: Vec<Done> = py.detach(|| {
            parallel(part.len(), jobs, &|i| {
                let r = &part[i];
                done(row_run(lint_input(r, &sh), &sh, r.profile.as_deref()))
            })
        });
        let _gc = GcPaused::new(py)?;
        for (run, text, code) in &runs {
            reports.push(typed.report(&json::doc(run), *code, text)?);
        }
    }
    Ok(PyList::new(py, reports)?.into_any())
}

/// `sselint check --format json PATHS` in process: the JSON report of the
/// files (directories expanded as the CLI does) and the exit code.
#[pyfunction]
#[pyo3(signature = (paths, jobs, profile, dialect, select, ignore, fail_on, config, find_config, input_format, max_event_bytes, max_decoded_bytes, stall_ms, timeout_ms))]
#[allow(clippy::too_many_arguments)]
fn check_paths(
    py: Python<'_>,
    paths: Vec<String>,
    jobs: Option<usize>,
    profile: Option<String>,
    dialect: Option<&str>,
    select: Vec<String>,
    ignore: Vec<String>,
    fail_on: Option<&str>,
    config: Option<String>,
    find_config: bool,
    input_format: Option<&str>,
    max_event_bytes: Option<usize>,
    max_decoded_bytes: Option<u64>,
    stall_ms: Option<u64>,
    timeout_ms: Option<u64>,
) -> PyResult<(String, u8)> {
    let sh = shared(
        profile,
        dialect,
        select,
        ignore,
        fail_on,
        config,
        find_config,
        input_format.or(Some("auto")),
        max_event_bytes,
        max_decoded_bytes,
        stall_ms,
        timeout_ms,
    )?;
    let jobs = jobs_or_cores(jobs);
    Ok(py.detach(|| {
        let (files, errors) = crate::capture::expand(&paths);
        let mut results: Vec<FileResult> = errors
            .into_iter()
            .map(|e| failed(&e.path, e.message))
            .collect();
        results.extend(parallel(files.len(), jobs, &|i| {
            let p = &files[i];
            let started = Instant::now();
            let cap = crate::capture::open(p, &sh.opts);
            lint_in_time(p, cap, &sh.settings(p, None), sh.timeout, started)
        }));
        json_report(&Run {
            files: results,
            profile: sh.profile_name(None),
            suppressed: 0,
            fail_on: sh.fail_on,
        })
    }))
}

/// The bytes of row `i` of a binary or string column (`None`: null).
fn bytes_at(a: &dyn Array, i: usize) -> Option<&[u8]> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Binary => a.as_binary::<i32>().value(i),
        DataType::LargeBinary => a.as_binary::<i64>().value(i),
        DataType::Utf8 => a.as_string::<i32>().value(i).as_bytes(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i).as_bytes(),
        DataType::BinaryView => a.as_binary_view().value(i),
        DataType::Utf8View => a.as_string_view().value(i).as_bytes(),
        _ => return None,
    })
}

fn is_bytes(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary
            | DataType::LargeBinary
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::BinaryView
            | DataType::Utf8View
    )
}

fn int_at(a: &dyn Array, i: usize) -> Option<i64> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Int8 => a.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i),
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => i64::try_from(a.as_primitive::<UInt64Type>().value(i)).unwrap_or(-1),
        _ => return None,
    })
}

fn is_int(t: &DataType) -> bool {
    t.is_integer()
}

/// The text of row `i` of a string (or integer) column.
fn text_at(a: &dyn Array, i: usize) -> Option<String> {
    if is_int(a.data_type()) {
        return int_at(a, i).map(|n| n.to_string());
    }
    bytes_at(a, i).map(|b| String::from_utf8_lossy(b).into_owned())
}

/// Row `i` of a headers column: `map<string, string>`, or JSON text.
fn headers_at(a: &dyn Array, i: usize) -> Result<Option<Vec<(String, String)>>, String> {
    if a.is_null(i) {
        return Ok(None);
    }
    if let DataType::Map(..) = a.data_type() {
        let m = a.as_map();
        let entries = m.value(i);
        let (k, v) = (entries.column(0), entries.column(1));
        let mut out = Vec::with_capacity(entries.len());
        for j in 0..entries.len() {
            let (Some(name), value) = (text_at(k.as_ref(), j), text_at(v.as_ref(), j)) else {
                continue;
            };
            out.push((name, value.unwrap_or_default()));
        }
        return Ok(Some(out));
    }
    match bytes_at(a, i) {
        Some(b) => {
            let text =
                std::str::from_utf8(b).map_err(|_| "the headers are not UTF-8".to_string())?;
            jsonl::header_pairs_text(text).map(Some)
        }
        None => Ok(None),
    }
}

/// The column called `name` of `batch`, checked with `ok`.
fn column<'a>(
    batch: &'a StructArray,
    name: &str,
    what: &str,
    ok: fn(&DataType) -> bool,
) -> PyResult<&'a ArrayRef> {
    let c = batch.column_by_name(name).ok_or_else(|| {
        let names: Vec<&str> = batch.column_names();
        value_error(format!(
            "{what}={name:?}: the batch has no such column (it has {})",
            names.join(", ")
        ))
    })?;
    if !ok(c.data_type()) {
        return Err(PyTypeError::new_err(format!(
            "{what}={name:?}: the column is {}, which is not a {what} column",
            c.data_type()
        )));
    }
    Ok(c)
}

/// The result rows' schema (`full`: with `findings`).
fn out_fields(full: bool) -> Fields {
    let mut f = vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("verdict", DataType::Utf8, false),
        Field::new("errors", DataType::Int64, false),
        Field::new("warnings", DataType::Int64, false),
        Field::new("infos", DataType::Int64, false),
        Field::new("dialect", DataType::Utf8, true),
        Field::new("ending", DataType::Utf8, true),
        Field::new("provider_guess", DataType::Utf8, true),
        Field::new("answer_chars", DataType::Int64, false),
        Field::new(
            "rules",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        ),
        Field::new("read_error", DataType::Utf8, true),
    ];
    if full {
        f.push(Field::new(
            "findings",
            DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(finding_fields()),
                true,
            ))),
            false,
        ));
    }
    f.into()
}

fn finding_fields() -> Fields {
    vec![
        Field::new("rule", DataType::Utf8, false),
        Field::new("severity", DataType::Utf8, false),
        Field::new("message", DataType::Utf8, false),
        Field::new("event_index", DataType::Int64, true),
        Field::new("byte_offset", DataType::Int64, true),
    ]
    .into()
}

/// One finding, flat.
struct Flat {
    rule: &'static str,
    severity: &'static str,
    message: String,
    event_index: Option<u64>,
    byte_offset: u64,
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// A batch's result row: the row, and its findings when asked for.
fn row_of(fr: &FileResult, fail_on: Option<Severity>, full: bool) -> (Row, Vec<Flat>) {
    let mut rows = crate::report::jsonl::rows(fr, fail_on);
    let mut row = rows.remove(0);
    // A body read as HAR may hold several streams: one row still.
    for more in rows {
        row.errors += more.errors;
        row.warnings += more.warnings;
        row.infos += more.infos;
        for r in more.rules {
            if !row.rules.contains(&r) {
                row.rules.push(r);
            }
        }
        if more.verdict == "error" || (more.verdict == "fail" && row.verdict == "pass") {
            row.verdict = more.verdict;
        }
    }
    row.id = fr.path.clone();
    let flat = if full {
        fr.streams
            .iter()
            .flat_map(|s| &s.diagnostics)
            .map(|d| Flat {
                rule: d.rule,
                severity: severity_name(d.severity),
                message: crate::lint::printable_text(&d.message),
                event_index: d.event_index,
                byte_offset: d.location.byte_offset,
            })
            .collect()
    } else {
        Vec::new()
    };
    (row, flat)
}

fn build(rows: &[(Row, Vec<Flat>)], full: bool) -> StructArray {
    let n = rows.len();
    let mut id = StringBuilder::with_capacity(n, n * 16);
    let mut verdict = StringBuilder::with_capacity(n, n * 4);
    let mut errors = Int64Builder::with_capacity(n);
    let mut warnings = Int64Builder::with_capacity(n);
    let mut infos = Int64Builder::with_capacity(n);
    let mut dialect = StringBuilder::with_capacity(n, n * 8);
    let mut ending = StringBuilder::with_capacity(n, n * 8);
    let mut guess = StringBuilder::with_capacity(n, n * 6);
    let mut chars = Int64Builder::with_capacity(n);
    let mut rules = ListBuilder::new(StringBuilder::new());
    let mut read_error = StringBuilder::new();
    let mut findings = ListBuilder::new(StructBuilder::from_fields(finding_fields(), 0));
    let count = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    for (r, flat) in rows {
        id.append_value(&r.id);
        verdict.append_value(r.verdict);
        errors.append_value(count(r.errors));
        warnings.append_value(count(r.warnings));
        infos.append_value(count(r.infos));
        dialect.append_option(r.dialect);
        ending.append_option(r.ending);
        guess.append_option(r.provider_guess.as_deref());
        chars.append_value(count(r.answer_chars));
        for rule in &r.rules {
            rules.values().append_value(rule);
        }
        rules.append(true);
        read_error.append_option(r.read_error.as_deref());
        if full {
            let s = findings.values();
            for f in flat {
                if let Some(b) = s.field_builder::<StringBuilder>(0) {
                    b.append_value(f.rule);
                }
                if let Some(b) = s.field_builder::<StringBuilder>(1) {
                    b.append_value(f.severity);
                }
                if let Some(b) = s.field_builder::<StringBuilder>(2) {
                    b.append_value(&f.message);
                }
                if let Some(b) = s.field_builder::<Int64Builder>(3) {
                    b.append_option(f.event_index.map(count));
                }
                if let Some(b) = s.field_builder::<Int64Builder>(4) {
                    b.append_value(count(f.byte_offset));
                }
                s.append(true);
            }
            findings.append(true);
        }
    }
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(verdict.finish()),
        Arc::new(errors.finish()),
        Arc::new(warnings.finish()),
        Arc::new(infos.finish()),
        Arc::new(dialect.finish()),
        Arc::new(ending.finish()),
        Arc::new(guess.finish()),
        Arc::new(chars.finish()),
        Arc::new(rules.finish()),
        Arc::new(read_error.finish()),
    ];
    if full {
        cols.push(Arc::new(findings.finish()));
    }
    let fields = out_fields(full);
    // The list builders name their item field "item", as the schema does.
    let cols = cols
        .into_iter()
        .zip(fields.iter())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                c
            } else {
                let data = c.to_data().into_builder().data_type(f.data_type().clone());
                arrow_array::make_array(data.build().unwrap_or_else(|_| c.to_data()))
            }
        })
        .collect();
    StructArray::new(fields, cols, None)
}

/// Lints one pyarrow `RecordBatch`: one result row per input row.
#[pyfunction]
#[pyo3(signature = (batch, body, id, status, headers, request_path, profile_column, full, jobs, profile, dialect, select, ignore, fail_on, config, find_config, max_event_bytes, max_decoded_bytes, stall_ms, timeout_ms))]
#[allow(clippy::too_many_arguments)]
fn lint_arrow<'py>(
    py: Python<'py>,
    batch: Bound<'py, PyAny>,
    body: &str,
    id: Option<&str>,
    status: Option<&str>,
    headers: Option<&str>,
    request_path: Option<&str>,
    profile_column: Option<&str>,
    full: bool,
    jobs: Option<usize>,
    profile: Option<String>,
    dialect: Option<&str>,
    select: Vec<String>,
    ignore: Vec<String>,
    fail_on: Option<&str>,
    config: Option<String>,
    find_config: bool,
    max_event_bytes: Option<usize>,
    max_decoded_bytes: Option<u64>,
    stall_ms: Option<u64>,
    timeout_ms: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let sh = shared(
        profile,
        dialect,
        select,
        ignore,
        fail_on,
        config,
        find_config,
        None,
        max_event_bytes,
        max_decoded_bytes,
        stall_ms,
        timeout_ms,
    )?;
    let mut array = FFI_ArrowArray::empty();
    let mut schema = FFI_ArrowSchema::empty();
    batch.call_method1(
        "_export_to_c",
        (
            &mut array as *mut FFI_ArrowArray as usize,
            &mut schema as *mut FFI_ArrowSchema as usize,
        ),
    )?;
    // SAFETY: pyarrow filled both structs by the C data interface; `from_ffi`
    // takes the array over and releases it when the data is dropped.
    let data = unsafe { from_ffi(array, &schema) }.map_err(value_error)?;
    let input = StructArray::from(data);
    let bodies = column(&input, body, "body", is_bytes)?;
    let ids = id
        .map(|c| column(&input, c, "id", |t| is_bytes(t) || is_int(t)))
        .transpose()?;
    let statuses = status
        .map(|c| column(&input, c, "status", is_int))
        .transpose()?;
    let headers = headers
        .map(|c| {
            column(&input, c, "headers", |t| {
                is_bytes(t) || matches!(t, DataType::Map(..))
            })
        })
        .transpose()?;
    let paths = request_path
        .map(|c| column(&input, c, "request_path", is_bytes))
        .transpose()?;
    let profiles = profile_column
        .map(|c| column(&input, c, "profile", is_bytes))
        .transpose()?;
    if let Some(p) = profiles {
        for i in 0..p.len() {
            if let Some(name) = text_at(p.as_ref(), i) {
                check_profile(&name)?;
            }
        }
    }
    let n = input.len();
    let jobs = jobs_or_cores(jobs);
    let fail = sh.fail_on;
    let rows = py.detach(|| {
        parallel(n, jobs, &|i| {
            let id = ids
                .and_then(|c| text_at(c.as_ref(), i))
                .unwrap_or_else(|| i.to_string());
            let (hdrs, bad_headers) = match headers.map(|c| headers_at(c.as_ref(), i)) {
                Some(Ok(h)) => (h, None),
                Some(Err(e)) => (None, Some(e)),
                None => (None, None),
            };
            let (facts, bad_status) = facts_of(
                statuses.and_then(|c| int_at(c.as_ref(), i)),
                hdrs,
                paths.and_then(|c| text_at(c.as_ref(), i)),
            );
            let input = Input {
                id,
                body: bytes_at(bodies.as_ref(), i),
                facts,
                profile: profiles.and_then(|c| text_at(c.as_ref(), i)),
                bad: bad_headers.or(bad_status),
            };
            row_of(&lint_input(&input, &sh), fail, full)
        })
    });
    let out = build(&rows, full);
    let (array, schema) = to_ffi(&out.to_data()).map_err(value_error)?;
    let mut array = Box::new(array);
    let mut schema = Box::new(schema);
    let pa = py.import("pyarrow")?;
    // pyarrow moves both structs out (their release callbacks go with it).
    pa.getattr("RecordBatch")?.call_method1(
        "_import_from_c",
        (
            &mut *array as *mut FFI_ArrowArray as usize,
            &mut *schema as *mut FFI_ArrowSchema as usize,
        ),
    )
}

/// Runs the `sselint` command with `argv` (`argv[0]` is the program name);
/// returns its exit code. The console script of the wheel.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| match cli::run_from(argv) {
        // ExitCode keeps its number to itself; the command's are 0 to 2.
        Ok(code) => (0..=255u8)
            .find(|n| std::process::ExitCode::from(*n) == code)
            .unwrap_or(2),
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return 0;
            }
            eprintln!("sselint: error: {e:#}");
            2
        }
    })
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lint_many, m)?)?;
    m.add_function(wrap_pyfunction!(lint_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(check_paths, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The classes of `sselint._report` a typed report is made of, and
/// `object.__new__`: [`Typed`] fills each instance's `__dict__` with the
/// fields `Report.from_json` would give it, without the JSON text and the
/// Python code in between (python/sselint/_report.py is the model; the
/// package's tests compare both ways on every row).
struct Typed<'py> {
    new: Bound<'py, PyAny>,
    report: Bound<'py, PyAny>,
    summary: Bound<'py, PyAny>,
    file: Bound<'py, PyAny>,
    stream: Bound<'py, PyAny>,
    choice: Bound<'py, PyAny>,
    tool_call: Bound<'py, PyAny>,
    http: Bound<'py, PyAny>,
    guess: Bound<'py, PyAny>,
    finding: Bound<'py, PyAny>,
}

type Slots<'a, 'py> = [(&'a Bound<'py, PyString>, Bound<'py, PyAny>)];

impl<'py> Typed<'py> {
    fn load(py: Python<'py>) -> PyResult<Self> {
        let m = py.import("sselint._report")?;
        Ok(Typed {
            new: py
                .import("builtins")?
                .getattr("object")?
                .getattr("__new__")?,
            report: m.getattr("Report")?,
            summary: m.getattr("Summary")?,
            file: m.getattr("FileReport")?,
            stream: m.getattr("Stream")?,
            choice: m.getattr("Choice")?,
            tool_call: m.getattr("ToolCall")?,
            http: m.getattr("Http")?,
            guess: m.getattr("ProviderGuess")?,
            finding: m.getattr("Finding")?,
        })
    }

    /// An instance of `cls` (a frozen dataclass) with these fields.
    fn make(
        &self,
        cls: &Bound<'py, PyAny>,
        fields: &Slots<'_, 'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let o = self.new.call1((cls,))?;
        let d = o.getattr(intern!(py, "__dict__"))?.cast_into::<PyDict>()?;
        for (k, v) in fields {
            d.set_item(*k, v)?;
        }
        Ok(o)
    }

    /// `Report.from_json(doc, code)` for the document `doc` (the parts
    /// `check --format json` writes), with `raw` left to be parsed from
    /// `text` (that document as JSON) when it is first asked for.
    fn report(&self, doc: &json::Doc<'_>, code: u8, text: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = self.new.py();
        let files = PyTuple::new(
            py,
            doc.files
                .iter()
                .map(|f| self.file_report(f))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        let s = &doc.summary;
        let summary = self.make(
            &self.summary,
            &[
                (intern!(py, "errors"), s.errors.into_bound_py_any(py)?),
                (intern!(py, "warnings"), s.warnings.into_bound_py_any(py)?),
                (intern!(py, "infos"), s.infos.into_bound_py_any(py)?),
                (
                    intern!(py, "suppressed"),
                    s.suppressed.into_bound_py_any(py)?,
                ),
            ],
        )?;
        self.make(
            &self.report,
            &[
                (intern!(py, "files"), files.into_any()),
                (intern!(py, "summary"), summary),
                (intern!(py, "exit_code"), code.into_bound_py_any(py)?),
                (intern!(py, "profile"), doc.profile.into_bound_py_any(py)?),
                (
                    intern!(py, "tool_version"),
                    doc.tool.version.into_bound_py_any(py)?,
                ),
                (intern!(py, "human"), py.None().into_bound(py)),
                (intern!(py, "_raw_json"), text.into_bound_py_any(py)?),
            ],
        )
    }

    fn file_report(&self, f: &json::File<'_>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.new.py();
        let streams = PyTuple::new(
            py,
            f.streams
                .iter()
                .map(|s| self.stream(s, f.path))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        self.make(
            &self.file,
            &[
                (intern!(py, "path"), f.path.into_bound_py_any(py)?),
                (
                    intern!(py, "input_format"),
                    f.input_format.as_deref().into_bound_py_any(py)?,
                ),
                (intern!(py, "error"), f.error.into_bound_py_any(py)?),
                (intern!(py, "streams"), streams.into_any()),
            ],
        )
    }

    fn stream(&self, s: &json::Stream<'_>, path: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = self.new.py();
        let http = match &s.http {
            Some(h) => self.make(
                &self.http,
                &[
                    (intern!(py, "status"), h.status.into_bound_py_any(py)?),
                    (
                        intern!(py, "content_type"),
                        h.content_type.into_bound_py_any(py)?,
                    ),
                ],
            )?,
            None => py.None().into_bound(py),
        };
        let guess = match s.provider_guess {
            Some(g) => self.make(
                &self.guess,
                &[
                    (
                        intern!(py, "profile"),
                        g.profile.as_str().into_bound_py_any(py)?,
                    ),
                    (
                        intern!(py, "provider"),
                        g.provider.as_str().into_bound_py_any(py)?,
                    ),
                    (
                        intern!(py, "evidence"),
                        PyTuple::new(py, g.evidence.iter().map(String::as_str))?.into_any(),
                    ),
                ],
            )?,
            None => py.None().into_bound(py),
        };
        let choices = PyTuple::new(
            py,
            s.choices
                .iter()
                .map(|c| self.choice(c))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        let findings = PyTuple::new(
            py,
            s.diagnostics
                .iter()
                .map(|d| self.finding(d, path, s.label))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        let omitted = PyDict::new(py);
        for (rule, n) in s.omitted {
            omitted.set_item(*rule, *n)?;
        }
        let usage = match s.usage {
            Some(u) => to_py(py, u)?,
            None => py.None().into_bound(py),
        };
        self.make(
            &self.stream,
            &[
                (intern!(py, "label"), s.label.into_bound_py_any(py)?),
                (
                    intern!(py, "dialect"),
                    s.dialect.map(|d| d.name()).into_bound_py_any(py)?,
                ),
                (intern!(py, "http"), http),
                (intern!(py, "events"), s.events.into_bound_py_any(py)?),
                (intern!(py, "ending"), s.ending.into_bound_py_any(py)?),
                (intern!(py, "positions"), s.positions.into_bound_py_any(py)?),
                (intern!(py, "choices"), choices.into_any()),
                (intern!(py, "usage"), usage),
                (intern!(py, "findings"), findings.into_any()),
                (intern!(py, "omitted"), omitted.into_any()),
                (
                    intern!(py, "notes"),
                    PyTuple::new(py, s.notes.iter().map(String::as_str))?.into_any(),
                ),
                (
                    intern!(py, "empty_answer"),
                    s.empty_answer.into_bound_py_any(py)?,
                ),
                (intern!(py, "provider_guess"), guess),
            ],
        )
    }

    fn choice(&self, c: &json::Choice<'_>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.new.py();
        let calls = PyTuple::new(
            py,
            c.tool_calls
                .iter()
                .map(|t| {
                    self.make(
                        &self.tool_call,
                        &[
                            (intern!(py, "index"), t.index.into_bound_py_any(py)?),
                            (intern!(py, "id"), t.id.as_deref().into_bound_py_any(py)?),
                            (
                                intern!(py, "name"),
                                t.name.as_deref().into_bound_py_any(py)?,
                            ),
                            (
                                intern!(py, "arguments"),
                                t.arguments.as_str().into_bound_py_any(py)?,
                            ),
                        ],
                    )
                })
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        self.make(
            &self.choice,
            &[
                (intern!(py, "index"), c.index.into_bound_py_any(py)?),
                (intern!(py, "text"), c.text.as_ref().into_bound_py_any(py)?),
                (
                    intern!(py, "refusal"),
                    c.refusal.as_deref().into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "reasoning"),
                    c.reasoning.as_deref().into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "finish_reason"),
                    c.finish_reason.into_bound_py_any(py)?,
                ),
                (intern!(py, "tool_calls"), calls.into_any()),
                (
                    intern!(py, "transcript"),
                    c.transcript.as_deref().into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "text_omitted_bytes"),
                    c.text_omitted_bytes.into_bound_py_any(py)?,
                ),
            ],
        )
    }

    fn finding(&self, d: &Diagnostic, path: &str, stream: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = self.new.py();
        let l = &d.location;
        self.make(
            &self.finding,
            &[
                (intern!(py, "rule"), d.rule.into_bound_py_any(py)?),
                (intern!(py, "code"), d.code.into_bound_py_any(py)?),
                (
                    intern!(py, "severity"),
                    severity_name(d.severity).into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "message"),
                    d.message.as_str().into_bound_py_any(py)?,
                ),
                (intern!(py, "line"), l.line.into_bound_py_any(py)?),
                (intern!(py, "column"), l.column.into_bound_py_any(py)?),
                (
                    intern!(py, "byte_offset"),
                    l.byte_offset.into_bound_py_any(py)?,
                ),
                (intern!(py, "byte_len"), l.byte_len.into_bound_py_any(py)?),
                (
                    intern!(py, "event_index"),
                    d.event_index.into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "pointer"),
                    d.pointer.as_deref().into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "fingerprint"),
                    d.fingerprint.as_str().into_bound_py_any(py)?,
                ),
                (
                    intern!(py, "suppressed"),
                    d.suppressed.into_bound_py_any(py)?,
                ),
                (intern!(py, "path"), path.into_bound_py_any(py)?),
                (intern!(py, "stream"), stream.into_bound_py_any(py)?),
            ],
        )
    }
}

/// The cyclic garbage collector, off while a batch of reports is built
/// (it would otherwise walk every object made so far, again and again)
/// and back on as it was when dropped.
struct GcPaused<'py> {
    gc: Bound<'py, PyModule>,
    was: bool,
}

impl<'py> GcPaused<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        let was = gc.call_method0("isenabled")?.is_truthy()?;
        gc.call_method0("disable")?;
        Ok(GcPaused { gc, was })
    }
}

impl Drop for GcPaused<'_> {
    fn drop(&mut self) {
        if self.was {
            let _ = self.gc.call_method0("enable");
        }
    }
}

/// A JSON value as `json.loads` gives it.
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}
