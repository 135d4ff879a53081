//! The geometry of the timeline plot: scales, "nice" tick values and the
//! coordinates of each mark, as plain numbers and preformatted coordinate
//! lists for the template (which writes the SVG elements, escaping every
//! label). A module of our own rather than a plotting crate: the plot is
//! two step lines, a few markers and a strip of ticks, and owning the
//! geometry keeps it testable and the page free of generated styles.
//!
//! Not for reading timings: [`super::record::Timeline`] holds them.

use super::record::Timeline;

/// Plot width in SVG user units (the SVG scales to the page).
pub const WIDTH: f64 = 1000.0;
/// Plot height, axes and the arrivals strip included.
pub const HEIGHT: f64 = 260.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 64.0;
const TOP: f64 = 16.0;
/// The bottom of the plot area; the arrivals strip and the time axis sit
/// below it.
const BOTTOM: f64 = 196.0;
const STRIP_TOP: f64 = 204.0;
const STRIP_BOTTOM: f64 = 222.0;

/// A tick on an axis: its position and label.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// x (time axis) or y (value axes) in user units.
    pub pos: String,
    /// The label.
    pub label: String,
}

/// A vertical marker (TTFT).
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// x in user units.
    pub x: String,
    /// The label.
    pub label: String,
    /// `start`, or `end` near the right edge, so the label stays inside.
    pub anchor: &'static str,
    /// The label's offset from the line: `4`, or `-4` when anchored at
    /// its end.
    pub dx: &'static str,
}

/// Room a marker's label needs to the right of its line, in user units.
const LABEL_ROOM: f64 = 180.0;

/// A marker at `x` labelled `label`, its label on the side with room.
fn marker(x: f64, label: String) -> Marker {
    let end = x > WIDTH - RIGHT - LABEL_ROOM;
    Marker {
        x: fmt(x),
        label,
        anchor: if end { "end" } else { "start" },
        dx: if end { "-4" } else { "4" },
    }
}

/// A shaded span (a stall).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Left edge.
    pub x: String,
    /// Width (at least 2 units, so a short stall on a long axis shows).
    pub w: String,
    /// The tooltip.
    pub label: String,
}

/// Everything the template needs to draw one timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// The view box, `0 0 W H`.
    pub view_box: String,
    /// Left edge of the plot area.
    pub left: String,
    /// Right edge of the plot area.
    pub right: String,
    /// Top of the plot area.
    pub top: String,
    /// Bottom of the plot area.
    pub bottom: String,
    /// Arrivals strip top and bottom.
    pub strip: (String, String),
    /// Below the strip: where the time labels go.
    pub time_label_y: String,
    /// Polyline points of bytes received over time.
    pub bytes_line: String,
    /// Polyline points of answer characters over time.
    pub chars_line: String,
    /// Time axis ticks.
    pub x_ticks: Vec<Tick>,
    /// Left axis (bytes) ticks.
    pub bytes_ticks: Vec<Tick>,
    /// Right axis (characters) ticks.
    pub chars_ticks: Vec<Tick>,
    /// Time to first content.
    pub ttft: Option<Marker>,
    /// Stalls.
    pub stalls: Vec<Band>,
    /// x of each arrival.
    pub arrivals: Vec<String>,
}

/// Up to about `n` round tick values from 0 to at least `max` (steps of
/// 1, 2 or 5 times a power of ten).
pub fn nice_ticks(max: f64, n: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) {
        return vec![0.0];
    }
    let raw = max / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut v = Vec::new();
    let mut t = 0.0;
    while t < max + step * 0.5 && v.len() <= n + 2 {
        v.push(t);
        t += step;
    }
    if v.last().is_some_and(|l| *l < max) {
        v.push(t);
    }
    v
}

fn fmt(x: f64) -> String {
    format!("{x:.1}")
}

/// `1.2k`, `3.4M`: short labels for counts.
pub fn short_count(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

/// `250 ms`, `1.5 s`.
pub fn short_ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{} s", trim(v / 1000.0))
    } else {
        format!("{v:.0} ms")
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// The plot of `t`, or `None` when it has no event with a time.
pub fn plot(t: &Timeline) -> Option<Plot> {
    if t.points.is_empty() {
        return None;
    }
    let xt = nice_ticks(t.end_ms().max(1.0), 8);
    let x_max = xt.last().copied().unwrap_or(1.0).max(1.0);
    let max_bytes = t.points.iter().map(|p| p.bytes).max().unwrap_or(0) as f64;
    let max_chars = t.points.iter().map(|p| p.chars).max().unwrap_or(0) as f64;
    let bt = nice_ticks(max_bytes.max(1.0), 4);
    let ct = nice_ticks(max_chars.max(1.0), 4);
    let b_max = bt.last().copied().unwrap_or(1.0).max(1.0);
    let c_max = ct.last().copied().unwrap_or(1.0).max(1.0);
    let x = |ms: f64| LEFT + (ms / x_max) * (WIDTH - LEFT - RIGHT);
    let y = |v: f64, max: f64| BOTTOM - (v / max) * (BOTTOM - TOP);
    // Step lines: a value holds until the next event changes it.
    let step = |val: &dyn Fn(&super::record::Point) -> f64, max: f64| {
        let mut pts = vec![format!("{},{}", fmt(x(0.0)), fmt(y(0.0, max)))];
        let mut prev = 0.0;
        for p in &t.points {
            let v = val(p);
            pts.push(format!("{},{}", fmt(x(p.ms)), fmt(y(prev, max))));
            pts.push(format!("{},{}", fmt(x(p.ms)), fmt(y(v, max))));
            prev = v;
        }
        pts.join(" ")
    };
    Some(Plot {
        view_box: format!("0 0 {WIDTH} {HEIGHT}"),
        left: fmt(LEFT),
        right: fmt(WIDTH - RIGHT),
        top: fmt(TOP),
        bottom: fmt(BOTTOM),
        strip: (fmt(STRIP_TOP), fmt(STRIP_BOTTOM)),
        time_label_y: fmt(STRIP_BOTTOM + 16.0),
        bytes_line: step(&|p| p.bytes as f64, b_max),
        chars_line: step(&|p| p.chars as f64, c_max),
        x_ticks: xt
            .iter()
            .map(|v| Tick {
                pos: fmt(x(*v)),
                label: short_ms(*v),
            })
            .collect(),
        bytes_ticks: bt
            .iter()
            .map(|v| Tick {
                pos: fmt(y(*v, b_max)),
                label: short_count(*v),
            })
            .collect(),
        chars_ticks: ct
            .iter()
            .map(|v| Tick {
                pos: fmt(y(*v, c_max)),
                label: short_count(*v),
            })
            .collect(),
        ttft: t
            .first_content_ms
            .map(|ms| marker(x(ms), format!("first content {}", short_ms(ms)))),
        stalls: t
            .stalls
            .iter()
            .map(|s| Band {
                x: fmt(x(s.from_ms)),
                w: fmt((x(s.to_ms) - x(s.from_ms)).max(2.0)),
                label: format!(
                    "stall: {} without an event before event {}",
                    short_ms(s.to_ms - s.from_ms),
                    s.before_event
                ),
            })
            .collect(),
        arrivals: t.arrivals.iter().map(|ms| fmt(x(*ms))).collect(),
    })
}

/// One stream's line on a two-stream plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Polyline points.
    pub line: String,
    /// Time to first content.
    pub ttft: Option<Marker>,
}

/// Two streams' answer characters (or body bytes, when neither has
/// answer text) against one time axis, for `diff`.
#[derive(Debug, Clone, PartialEq)]
pub struct PairPlot {
    /// The view box, `0 0 W H`.
    pub view_box: String,
    /// Left edge of the plot area.
    pub left: String,
    /// Right edge of the plot area.
    pub right: String,
    /// Top of the plot area.
    pub top: String,
    /// Bottom of the plot area.
    pub bottom: String,
    /// Where the time labels go.
    pub time_label_y: String,
    /// `answer characters` or `body bytes`.
    pub measure: &'static str,
    /// A's line, where A has timings.
    pub a: Option<Series>,
    /// B's line, where B has timings.
    pub b: Option<Series>,
    /// Time axis ticks.
    pub x_ticks: Vec<Tick>,
    /// Value axis ticks.
    pub y_ticks: Vec<Tick>,
}

/// The plot of two timelines on one time axis, or `None` when neither has
/// an event with a time.
pub fn pair(a: Option<&Timeline>, b: Option<&Timeline>) -> Option<PairPlot> {
    let a = a.filter(|t| !t.points.is_empty());
    let b = b.filter(|t| !t.points.is_empty());
    if a.is_none() && b.is_none() {
        return None;
    }
    let both = || a.into_iter().chain(b);
    let chars = both().flat_map(|t| &t.points).any(|p| p.chars > 0);
    let val = move |p: &super::record::Point| if chars { p.chars } else { p.bytes } as f64;
    let end = both().map(Timeline::end_ms).fold(0.0, f64::max);
    let xt = nice_ticks(end.max(1.0), 8);
    let x_max = xt.last().copied().unwrap_or(1.0).max(1.0);
    let max_v = both().flat_map(|t| &t.points).map(val).fold(0.0, f64::max);
    let yt = nice_ticks(max_v.max(1.0), 4);
    let y_max = yt.last().copied().unwrap_or(1.0).max(1.0);
    let x = |ms: f64| LEFT + (ms / x_max) * (WIDTH - LEFT - RIGHT);
    let y = |v: f64| BOTTOM - (v / y_max) * (BOTTOM - TOP);
    let series = |t: &Timeline, side: &str| {
        let mut pts = vec![format!("{},{}", fmt(x(0.0)), fmt(y(0.0)))];
        let mut prev = 0.0;
        for p in &t.points {
            let v = val(p);
            pts.push(format!("{},{}", fmt(x(p.ms)), fmt(y(prev))));
            pts.push(format!("{},{}", fmt(x(p.ms)), fmt(y(v))));
            prev = v;
        }
        Series {
            line: pts.join(" "),
            ttft: t
                .first_content_ms
                .map(|ms| marker(x(ms), format!("{side} first content {}", short_ms(ms)))),
        }
    };
    Some(PairPlot {
        view_box: format!("0 0 {WIDTH} {}", BOTTOM + 30.0),
        left: fmt(LEFT),
        right: fmt(WIDTH - RIGHT),
        top: fmt(TOP),
        bottom: fmt(BOTTOM),
        time_label_y: fmt(BOTTOM + 18.0),
        measure: if chars {
            "answer characters"
        } else {
            "body bytes"
        },
        a: a.map(|t| series(t, "A")),
        b: b.map(|t| series(t, "B")),
        x_ticks: xt
            .iter()
            .map(|v| Tick {
                pos: fmt(x(*v)),
                label: short_ms(*v),
            })
            .collect(),
        y_ticks: yt
            .iter()
            .map(|v| Tick {
                pos: fmt(y(*v)),
                label: short_count(*v),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streamlog::{Point, Stall};

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(
            nice_ticks(1237.0, 8),
            vec![0.0, 200.0, 400.0, 600.0, 800.0, 1000.0, 1200.0, 1400.0]
        );
        assert_eq!(nice_ticks(10.0, 4), vec![0.0, 5.0, 10.0]);
        assert_eq!(nice_ticks(0.0, 4), vec![0.0]);
        assert_eq!(nice_ticks(f64::NAN, 4), vec![0.0]);
        for max in [1.0, 7.0, 99.0, 12_345.0, 9.9e7] {
            let t = nice_ticks(max, 5);
            assert!(*t.last().unwrap() >= max, "{max}: {t:?}");
            assert!(t.len() <= 8, "{max}: {t:?}");
        }
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(short_ms(250.0), "250 ms");
        assert_eq!(short_ms(1500.0), "1.5 s");
        assert_eq!(short_count(9471.0), "9.5k");
        assert_eq!(short_count(2_000_000.0), "2M");
    }

    #[test]
    fn marks_land_inside_the_plot() {
        let mut t = Timeline::default();
        t.points = vec![
            Point {
                ms: 100.0,
                bytes: 10,
                chars: 0,
            },
            Point {
                ms: 400.0,
                bytes: 500,
                chars: 20,
            },
            Point {
                ms: 12_000.0,
                bytes: 900,
                chars: 40,
            },
        ];
        t.arrivals = vec![90.0, 400.0, 12_000.0];
        t.first_content_ms = Some(400.0);
        t.stalls = vec![Stall {
            from_ms: 400.0,
            to_ms: 12_000.0,
            before_event: 2,
        }];
        t.stall_ms = 10_000;
        let p = plot(&t).unwrap();
        let xs: Vec<f64> = p
            .bytes_line
            .split(' ')
            .map(|xy| xy.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert!(
            xs.iter().all(|x| (LEFT..=WIDTH - RIGHT).contains(x)),
            "{xs:?}"
        );
        assert!(xs.windows(2).all(|w| w[0] <= w[1]));
        let m = p.ttft.unwrap();
        assert_eq!(m.label, "first content 400 ms");
        assert_eq!(m.anchor, "start");
        assert_eq!(p.stalls.len(), 1);
        assert!(
            p.stalls[0].label.contains("11.6 s"),
            "{}",
            p.stalls[0].label
        );
        assert_eq!(p.arrivals.len(), 3);
        assert!(plot(&Timeline::default()).is_none());
        let q = pair(Some(&t), None).unwrap();
        assert!(q.b.is_none());
        assert_eq!(q.measure, "answer characters");
        assert_eq!(q.a.unwrap().ttft.unwrap().label, "A first content 400 ms");
        assert!(pair(None, Some(&Timeline::default())).is_none());
    }
}
