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
}

/// Colour-blind-safe palette (Okabe–Ito), one colour per series.
const COLOURS: [&str; 8] = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 380.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 70.0;

pub fn grouped_bars(chart: &Grouped) -> String {
    let top = chart.values.iter().flatten().flatten().map(|b| b.max.max(b.value)).fold(0.0, f64::max);
    let (step, ticks) = nice_axis(top);
    let y_max = step * ticks as f64;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |v: f64| TOP + plot_h - if y_max > 0.0 { v / y_max * plot_h } else { 0.0 };

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
        WIDTH / 2.0,
        esc(chart.title)
    );
    // Y axis with gridlines.
    for i in 0..=ticks {
        let v = step * i as f64;
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
        esc(chart.y_label)
    );
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"#,
        y(0.0),
        WIDTH - RIGHT,
        y(0.0)
    );

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
                (y(0.0) - y(bar.value)).max(0.0),
                esc(&chart.series[si]),
                short(bar.value)
            );
            if bar.max > bar.min {
                let cx = x + (bar_w - 2.0) / 2.0;
                let _ = writeln!(
                    s,
                    r#"<path d="M{cx:.1} {:.1}V{:.1}M{:.1} {:.1}H{:.1}M{:.1} {:.1}H{:.1}" stroke="black" fill="none"/>"#,
                    y(bar.min),
                    y(bar.max),
                    cx - 4.0,
                    y(bar.min),
                    cx + 4.0,
                    cx - 4.0,
                    y(bar.max),
                    cx + 4.0
                );
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
            y(0.0) + 18.0,
            esc(group)
        );
    }
    // Legend.
    let mut lx = LEFT;
    for (si, name) in chart.series.iter().enumerate() {
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
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10" fill="#555555">bars: median; whiskers: min–max</text>"##,
        WIDTH - RIGHT,
        HEIGHT - 12.0
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

fn esc(text: &str) -> String {
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
        });
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<title>").count(), 3);
        assert_eq!(svg.matches("<path").count(), 2);
        assert!(svg.contains("t &lt;x&gt;"));
    }
}
