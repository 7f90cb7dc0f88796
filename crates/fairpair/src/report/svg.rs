//! SVG charts, written by hand.
//!
//! A chart here is a handful of rectangles, lines and `<text>` elements; writing them directly keeps the harness
//! free of font and rendering libraries (plotters' default features pull in fontconfig) and makes the output
//! byte-for-byte deterministic, which the report's golden test relies on. Text is left to the viewer's sans-serif.

use std::fmt::Write;

/// One bar: the median, with a whisker from min to max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub min: f64,
    pub max: f64,
}

/// A grouped bar chart: for each group, one bar per series (`None`: not measured, left empty).
pub struct Grouped<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub groups: Vec<String>,
    pub series: Vec<String>,
    /// `values[group][series]`.
    pub values: Vec<Vec<Option<Bar>>>,
    /// A limit per group, drawn as a dashed line across its bars: the loader's measured capacity in the throughput
    /// chart, so that a bar touching it is visibly a bound. Empty, or `None` for a group, where there is none.
    pub limits: Vec<Option<f64>>,
}

/// Colour-blind-safe palette (Okabe–Ito), one colour per series.
pub(crate) const COLOURS: [&str; 8] =
    ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 380.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 70.0;

/// Bars that differ by more than this factor get a logarithmic axis: on a linear one the smaller bars would be a
/// few pixels high (386 requests/s beside 40,000), and one long p99 would flatten every other bar.
pub const LOG_AXIS_RATIO: f64 = 10.0;

/// The value axis: linear from 0, or logarithmic between two powers of ten.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Linear { step: f64, ticks: u32 },
    Log { lo: i32, hi: i32 },
}

impl Axis {
    /// Linear unless, within some group, the medians of the series (the subjects, in the throughput and latency
    /// charts) differ by more than [`LOG_AXIS_RATIO`]. Only within a group: p50 and max of one subject always differ
    /// that much, and are not what the reader compares. `extent` is every value the axis must hold (whiskers too).
    fn for_chart(values: &[Vec<Option<Bar>>]) -> Axis {
        let spread = |group: &Vec<Option<Bar>>| {
            let v: Vec<f64> = group.iter().flatten().map(|b| b.value).filter(|v| *v > 0.0 && v.is_finite()).collect();
            v.iter().copied().fold(0.0, f64::max) / v.iter().copied().fold(f64::INFINITY, f64::min)
        };
        let extent: Vec<f64> = values
            .iter()
            .flatten()
            .flatten()
            .flat_map(|b| [b.value, b.min, b.max])
            .filter(|v| *v > 0.0 && v.is_finite())
            .collect();
        let top = extent.iter().copied().fold(0.0, f64::max);
        let bottom = extent.iter().copied().fold(f64::INFINITY, f64::min);
        if values.iter().any(|g| spread(g) > LOG_AXIS_RATIO) {
            let lo = bottom.log10().floor() as i32;
            Axis::Log { lo, hi: (top.log10().ceil() as i32).max(lo + 1) }
        } else {
            let (step, ticks) = nice_axis(top);
            Axis::Linear { step, ticks }
        }
    }

    /// Where `v` lies between the axis's bottom (0) and top (1).
    fn fraction(self, v: f64) -> f64 {
        match self {
            Axis::Linear { step, ticks } => v / (step * ticks as f64),
            Axis::Log { lo, hi } => {
                let v = v.max(10f64.powi(lo));
                (v.log10() - lo as f64) / (hi - lo) as f64
            }
        }
    }

    /// The value at the bottom of the bars: 0, or the lowest power of ten.
    fn base(self) -> f64 {
        match self {
            Axis::Linear { .. } => 0.0,
            Axis::Log { lo, .. } => 10f64.powi(lo),
        }
    }

    fn ticks(self) -> Vec<f64> {
        match self {
            Axis::Linear { step, ticks } => (0..=ticks).map(|i| step * i as f64).collect(),
            Axis::Log { lo, hi } => (lo..=hi).map(|e| 10f64.powi(e)).collect(),
        }
    }
}

/// Draws a [`Grouped`] chart: per group, a bar per series with its whisker and value, the group's name under it and
/// its limit as a dashed line across it; the legend and the notes along the bottom.
pub fn grouped_bars(chart: &Grouped) -> String {
    // The axis must reach the limits too; as a group of their own they do not change which axis is chosen.
    let limits: Vec<Option<Bar>> = chart.limits.iter().map(|l| l.map(|v| Bar { value: v, min: v, max: v })).collect();
    let axis = Axis::for_chart(&[chart.values.clone(), vec![limits]].concat());
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |v: f64| TOP + plot_h - axis.fraction(v) * plot_h;
    let mut s = String::new();
    frame(&mut s, chart.title, chart.y_label, axis, &y);

    let groups = chart.groups.len().max(1) as f64;
    let group_w = plot_w / groups;
    let n_series = chart.series.len().max(1) as f64;
    let bar_w = (group_w * 0.8 / n_series).min(60.0);
    for (gi, group) in chart.groups.iter().enumerate() {
        let gx = LEFT + group_w * gi as f64;
        let start = gx + (group_w - bar_w * n_series) / 2.0;
        for (si, bar) in chart.values.get(gi).into_iter().flatten().enumerate() {
            let Some(bar) = bar else { continue };
            let x = start + bar_w * si as f64;
            let colour = COLOURS[si % COLOURS.len()];
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{}: {}</title></rect>"#,
                y(bar.value),
                bar_w - 2.0,
                (y(axis.base()) - y(bar.value)).max(0.0),
                esc(&chart.series[si]),
                short(bar.value)
            );
            if bar.max > bar.min {
                whisker(&mut s, x + (bar_w - 2.0) / 2.0, y(bar.min), y(bar.max));
            }
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10">{}</text>"#,
                x + (bar_w - 2.0) / 2.0,
                y(bar.max.max(bar.value)) - 4.0,
                short(bar.value)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            gx + group_w / 2.0,
            y(axis.base()) + 18.0,
            esc(group)
        );
        if let Some(limit) = chart.limits.get(gi).copied().flatten() {
            let (x0, x1) = (start - 6.0, start + bar_w * n_series + 4.0);
            let _ = writeln!(
                s,
                r##"<path d="M{x0:.1} {:.1}H{x1:.1}" stroke="#D55E00" stroke-width="2" stroke-dasharray="6 3"><title>loader capacity: {}</title></path>"##,
                y(limit),
                short(limit)
            );
        }
    }
    legend(&mut s, &chart.series);
    bar_notes(&mut s, chart.limits.iter().any(Option::is_some));
    s.push_str("</svg>\n");
    s
}

/// A min–max whisker centred at `cx`: a vertical line between the two values with a short bar at each end.
fn whisker(s: &mut String, cx: f64, y_min: f64, y_max: f64) {
    let _ = writeln!(
        s,
        r#"<path d="M{cx:.1} {:.1}V{:.1}M{:.1} {:.1}H{:.1}M{:.1} {:.1}H{:.1}" stroke="black" fill="none"/>"#,
        y_min,
        y_max,
        cx - 4.0,
        y_min,
        cx + 4.0,
        cx - 4.0,
        y_max,
        cx + 4.0
    );
}

/// The notes under a bar chart: what the dashed limit lines are (when there are any), and what bars and whiskers show.
fn bar_notes(s: &mut String, limits: bool) {
    if limits {
        let _ = writeln!(
            s,
            r##"<text x="{LEFT}" y="{:.1}" font-size="10" fill="#D55E00">dashed: the loader's measured capacity (a bar at it is a bound)</text>"##,
            HEIGHT - 12.0
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10" fill="#555555">bars: median; whiskers: min–max</text>"##,
        WIDTH - RIGHT,
        HEIGHT - 12.0
    );
}

/// The opening of every chart: the `<svg>` element, a white background, the title (marked when the axis is
/// logarithmic), the value axis with its gridlines and label, and the base line.
fn frame(s: &mut String, title: &str, y_label: &str, axis: Axis, y: &dyn Fn(f64) -> f64) {
    let plot_h = HEIGHT - TOP - BOTTOM;
    let title = match axis {
        Axis::Linear { .. } => title.to_string(),
        Axis::Log { .. } => format!("{title} (log scale)"),
    };
    opening(s, WIDTH, HEIGHT, &title);
    // Y axis with gridlines.
    for v in axis.ticks() {
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#dddddd"/>"##,
            WIDTH - RIGHT
        );
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, yy + 4.0, tick(v));
    }
    let _ = writeln!(
        s,
        r#"<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">{}</text>"#,
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        esc(y_label)
    );
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"#,
        y(axis.base()),
        WIDTH - RIGHT,
        y(axis.base())
    );
}

/// The `<svg>` element of a chart `width` × `height` pixels, its white background and its title, centred on top.
pub(crate) fn opening(s: &mut String, width: f64, height: f64, title: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
        width / 2.0,
        esc(title)
    );
}

/// One coloured square and name per series, along the bottom.
fn legend(s: &mut String, series: &[String]) {
    let mut lx = LEFT;
    for (si, name) in series.iter().enumerate() {
        let ly = HEIGHT - 22.0;
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="12" fill="{}"/>"#,
            ly - 10.0,
            COLOURS[si % COLOURS.len()]
        );
        let _ = writeln!(s, r#"<text x="{:.1}" y="{ly:.1}">{}</text>"#, lx + 16.0, esc(name));
        lx += 28.0 + 7.0 * name.chars().count() as f64;
    }
}

/// A point of a latency distribution: a percentile, or the largest value seen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantile {
    Percent(f64),
    Max,
}

/// One subject's line in a [`Spectrum`]: a value per quantile (`None`: not reported by the load tool).
pub struct Line {
    pub name: String,
    pub points: Vec<(Quantile, Option<f64>)>,
}

/// A percentile spectrum: latency against the quantile on a "nines" axis, one line per series.
pub struct Spectrum<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub lines: Vec<Line>,
}

impl Quantile {
    /// The position on the nines axis, `log10(1 / (1 - q))`: 50 % → 0.3, 90 % → 1, 99 % → 2, 99.9 % → 3. Each step
    /// of the axis is ten times fewer requests, which is how tails are read (HdrHistogram's plots). The max has no
    /// such place (q = 1 is infinitely far), so it is drawn one step past the last percentile, `last`.
    fn nines(self, last: f64) -> f64 {
        match self {
            Quantile::Percent(p) => (1.0 / (1.0 - p / 100.0)).log10(),
            Quantile::Max => last + 1.0,
        }
    }

    fn label(self) -> String {
        match self {
            Quantile::Percent(p) => format!("{p}%"),
            Quantile::Max => "max".into(),
        }
    }
}

/// Draws a [`Spectrum`]. The value axis is chosen as for the bar charts (linear, or logarithmic when the subjects
/// differ more than [`LOG_AXIS_RATIO`] at some quantile). A gap where a percentile is missing is bridged by a dashed
/// segment, and a note under the chart names what is missing.
pub fn spectrum(chart: &Spectrum) -> String {
    let quantiles: Vec<Quantile> =
        chart.lines.first().map(|l| l.points.iter().map(|p| p.0).collect()).unwrap_or_default();
    let last = quantiles.iter().filter(|q| **q != Quantile::Max).map(|q| q.nines(0.0)).fold(0.0, f64::max);
    let first = quantiles.first().map_or(0.0, |q| q.nines(last));
    let by_quantile: Vec<Vec<Option<Bar>>> = (0..quantiles.len())
        .map(|i| {
            let at = |l: &Line| l.points.get(i).and_then(|p| p.1).map(|v| Bar { value: v, min: v, max: v });
            chart.lines.iter().map(at).collect()
        })
        .collect();
    let axis = Axis::for_chart(&by_quantile);
    let (plot_left, plot_right) = (LEFT + 20.0, WIDTH - RIGHT - 30.0);
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x =
        |q: Quantile| plot_left + (q.nines(last) - first) / (last + 1.0 - first).max(1e-9) * (plot_right - plot_left);
    let y = |v: f64| TOP + plot_h - axis.fraction(v) * plot_h;

    let mut s = String::new();
    frame(&mut s, chart.title, chart.y_label, axis, &y);
    for q in &quantiles {
        let xx = x(*q);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#dddddd"/>"##,
            y(axis.base())
        );
        let _ = writeln!(
            s,
            r#"<text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y(axis.base()) + 18.0,
            esc(&q.label())
        );
    }
    let mut missing = Vec::new();
    for (li, line) in chart.lines.iter().enumerate() {
        let colour = COLOURS[li % COLOURS.len()];
        let mut previous: Option<(f64, f64, bool)> = None;
        for (q, v) in &line.points {
            let Some(v) = v else {
                missing.push(format!("{} {}", line.name, q.label()));
                previous = previous.map(|(px, py, _)| (px, py, true));
                continue;
            };
            let (xx, yy) = (x(*q), y(*v));
            if let Some((px, py, gap)) = previous {
                let dash = if gap { r#" stroke-dasharray="4 4""# } else { "" };
                let _ = writeln!(
                    s,
                    r#"<line x1="{px:.1}" y1="{py:.1}" x2="{xx:.1}" y2="{yy:.1}" stroke="{colour}" stroke-width="2"{dash}/>"#
                );
            }
            let _ = writeln!(
                s,
                r#"<circle cx="{xx:.1}" cy="{yy:.1}" r="3.5" fill="{colour}"><title>{} {}: {}</title></circle>"#,
                esc(&line.name),
                esc(&q.label()),
                short(*v)
            );
            previous = Some((xx, yy, false));
        }
    }
    legend(&mut s, &chart.lines.iter().map(|l| l.name.clone()).collect::<Vec<_>>());
    let note = if missing.is_empty() {
        "medians over runs; max: one step past the last percentile".to_string()
    } else {
        format!("not reported by the load tool (dashed): {}", missing.join(", "))
    };
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10" fill="#555555">{}</text>"##,
        WIDTH - RIGHT,
        HEIGHT - 12.0,
        esc(&note)
    );
    s.push_str("</svg>\n");
    s
}

/// A step of 1, 2 or 5 × 10ⁿ giving about five gridlines above `max`.
fn nice_axis(max: f64) -> (f64, u32) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 1);
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    (step, (max / step).ceil().max(1.0) as u32)
}

/// Compact numbers for labels: 45.2k, 1.5M, 3.25.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Axis labels: like [`short`], without trailing zeros (50, 2.5, 10k rather than 50.0, 2.50, 10.0k).
fn tick(v: f64) -> String {
    let s = short(v);
    let (number, suffix) = match s.strip_suffix(['k', 'M']) {
        Some(n) => (n.to_string(), &s[n.len()..]),
        None => (s.clone(), ""),
    };
    let number = if number.contains('.') { number.trim_end_matches('0').trim_end_matches('.') } else { &number };
    format!("{number}{suffix}")
}

/// Text for XML and HTML: the characters that could end a text node or a double-quoted attribute, escaped (the
/// HTML report uses it too).
pub(crate) fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_steps() {
        assert_eq!(nice_axis(47_000.0), (10_000.0, 5));
        assert_eq!(nice_axis(9.0), (2.0, 5));
        assert_eq!(nice_axis(0.0), (1.0, 1));
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(50.0), "50");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(5.0), "5");
        assert_eq!(tick(5_000.0), "5k");
        assert_eq!(tick(10_000.0), "10k");
        assert_eq!(tick(0.0), "0");
    }

    #[test]
    fn labels() {
        assert_eq!(short(45_210.0), "45k");
        assert_eq!(short(1_500_000.0), "1.5M");
        assert_eq!(short(2_345.0), "2.3k");
        assert_eq!(short(3.254), "3.25");
    }

    fn bars(values: &[f64]) -> Vec<Option<Bar>> {
        values.iter().map(|&v| Some(Bar { value: v, min: v, max: v })).collect()
    }

    #[test]
    fn subjects_ten_times_apart_get_a_log_axis() {
        // 386 requests/s beside 40,000: a log axis from 100 to 100k, each bar visible.
        let axis = Axis::for_chart(&[bars(&[40_000.0, 386.0])]);
        assert_eq!(axis, Axis::Log { lo: 2, hi: 5 });
        assert_eq!(axis.ticks(), [100.0, 1_000.0, 10_000.0, 100_000.0]);
        assert!((axis.fraction(386.0) - (386f64.log10() - 2.0) / 3.0).abs() < 1e-9);
        assert!(axis.fraction(386.0) > 0.15, "the small bar is a fifth of the plot, not a sliver");
        // Within 10×: linear from 0. Across groups (p50 and max of one subject) does not count.
        assert!(matches!(Axis::for_chart(&[bars(&[9_000.0, 1_000.0])]), Axis::Linear { .. }));
        assert!(matches!(Axis::for_chart(&[bars(&[0.7, 0.8]), bars(&[40.0, 45.0])]), Axis::Linear { .. }));
        let svg = grouped_bars(&Grouped {
            title: "Throughput",
            y_label: "requests/s",
            groups: vec!["get c=50".into()],
            series: vec!["rust".into(), "mine".into()],
            values: vec![bars(&[40_000.0, 386.0])],
            limits: vec![],
        });
        assert!(svg.contains("Throughput (log scale)"), "{svg}");
        assert!(svg.contains(">100k</text>") && svg.contains(">100</text>"), "{svg}");
    }

    #[test]
    fn a_chart_has_a_bar_and_whisker_per_value() {
        let svg = grouped_bars(&Grouped {
            title: "t <x>",
            y_label: "y",
            groups: vec!["g1".into(), "g2".into()],
            series: vec!["a".into(), "b".into()],
            values: vec![
                vec![Some(Bar { value: 10.0, min: 9.0, max: 11.0 }), None],
                vec![Some(Bar { value: 5.0, min: 5.0, max: 5.0 }), Some(Bar { value: 7.0, min: 6.0, max: 8.0 })],
            ],
            limits: vec![],
        });
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<title>").count(), 3);
        assert_eq!(svg.matches("<path").count(), 2);
        assert!(svg.contains("t &lt;x&gt;"));
    }

    fn spectrum_of(lines: &[(&str, [Option<f64>; 5])]) -> String {
        let qs = [
            Quantile::Percent(50.0),
            Quantile::Percent(90.0),
            Quantile::Percent(99.0),
            Quantile::Percent(99.9),
            Quantile::Max,
        ];
        let lines = lines
            .iter()
            .map(|(name, values)| Line { name: name.to_string(), points: qs.into_iter().zip(*values).collect() })
            .collect();
        spectrum(&Spectrum { title: "Latency by percentile", y_label: "ms", lines })
    }

    #[test]
    fn the_nines_axis_puts_each_decade_of_the_tail_one_step_apart() {
        let last = 3.0;
        let at = |q: Quantile| q.nines(last);
        assert!((at(Quantile::Percent(90.0)) - 1.0).abs() < 1e-9);
        assert!((at(Quantile::Percent(99.0)) - 2.0).abs() < 1e-9);
        assert!((at(Quantile::Percent(99.9)) - 3.0).abs() < 1e-9);
        assert!((at(Quantile::Percent(50.0)) - 2f64.log10()).abs() < 1e-9);
        assert_eq!(at(Quantile::Max), 4.0, "max one step past the last percentile");
        assert_eq!(Quantile::Percent(99.9).label(), "99.9%");
        assert_eq!(Quantile::Percent(50.0).label(), "50%");
    }

    #[test]
    fn a_spectrum_draws_a_point_per_reported_percentile_and_says_what_is_missing() {
        let svg = spectrum_of(&[
            ("rust", [Some(0.8), Some(1.1), Some(1.7), Some(5.5), Some(11.8)]),
            ("node <ab>", [Some(2.9), Some(3.7), Some(4.9), None, Some(130.0)]),
        ]);
        assert_eq!(svg.matches("<circle").count(), 9, "{svg}");
        for label in [">50%<", ">90%<", ">99%<", ">99.9%<", ">max<"] {
            assert!(svg.contains(label), "x axis label {label} missing: {svg}");
        }
        // rust's line is solid throughout; node's bridges the missing p99.9 with one dashed segment.
        assert_eq!(svg.matches("stroke-dasharray").count(), 1, "{svg}");
        assert!(svg.contains("not reported by the load tool (dashed): node &lt;ab&gt; 99.9%"), "{svg}");
        // 0.8 ms beside 2.9 ms at p50 is under 10×, 11.8 beside 130 at max is not: a log axis.
        assert!(svg.contains("(log scale)"), "{svg}");
        let complete = spectrum_of(&[("rust", [Some(1.0), Some(2.0), Some(3.0), Some(4.0), Some(5.0)])]);
        assert!(!complete.contains("dasharray") && complete.contains("medians over runs"), "{complete}");
    }
}
