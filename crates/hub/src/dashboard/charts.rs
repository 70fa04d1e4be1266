//! The home page's charts, drawn on the server as SVG from the stored
//! counts (`usage_days`): REST-tier requests per day with the share that
//! failed, and webhook delivery attempts per day with the share that got
//! through. No script. Each chart has its axes (days along the bottom, a
//! round scale up the side), a legend, and a text alternative: a summary
//! the picture is labelled with, and the figures in a table beside it.

use lendhub_domain::billing::usage::{Metric, days_ending};
use lendhub_domain::people;
use lendhub_store::UsageCount;

/// How many days the charts show.
pub const DAYS: u16 = 30;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 200;
/// Room for the scale's labels on the left and the days' below.
const LEFT: u32 = 48;
const TOP: u32 = 10;
const BOTTOM: u32 = 28;
const PLOT_WIDTH: u32 = WIDTH - LEFT - 8;
const PLOT_HEIGHT: u32 = HEIGHT - TOP - BOTTOM;
const BAR: u32 = PLOT_WIDTH / DAYS as u32;

/// One day's bar: the whole, and the part drawn in the warning colour.
pub struct Bar {
    pub x: u32,
    pub width: u32,
    /// Top of the whole bar, and its height.
    pub y: u32,
    pub height: u32,
    /// Top of the part, and its height (drawn over the bottom of the bar).
    pub part_y: u32,
    pub part_height: u32,
    /// "3 November 2026".
    pub day: String,
    pub total: i64,
    pub part: i64,
}

/// A mark on an axis: where it is along it, and its label.
pub struct Tick {
    pub at: u32,
    pub label: String,
}

/// A chart as the page shows it.
pub struct Panel {
    pub id: &'static str,
    pub title: &'static str,
    /// What the whole bar counts, e.g. "requests".
    pub whole_label: &'static str,
    /// What the marked part is, e.g. "errors".
    pub part_label: &'static str,
    pub chart: Chart,
}

impl Panel {
    /// The chart's text alternative: what it shows, in a sentence.
    pub fn description(&self) -> String {
        let c = &self.chart;
        format!(
            "{} per day from {} to {}: {} {} in all, {} of them {} ({}). The busiest day had {}. The figures for each day are in the table below the charts.",
            self.title,
            c.first,
            c.last,
            c.total,
            self.whole_label,
            c.part,
            self.part_label,
            c.rate,
            c.peak
        )
    }
}

/// The home page's two panels: requests, then deliveries.
pub fn panels(counts: &[UsageCount], last: time::Date) -> [Panel; 2] {
    [
        Panel {
            id: "requests",
            title: "API requests",
            whole_label: "requests",
            part_label: "errors",
            chart: requests(counts, last),
        },
        Panel {
            id: "deliveries",
            title: "Webhook delivery attempts",
            whole_label: "attempts",
            part_label: "failed",
            chart: deliveries(counts, last),
        },
    ]
}

/// One day of the figures table: a day with anything to show.
pub struct Figures {
    pub day: String,
    pub requests: i64,
    pub errors: i64,
    pub attempts: i64,
    pub failed: i64,
}

/// The panels' figures by day, for the days with any.
pub fn figures([requests, deliveries]: &[Panel; 2]) -> Vec<Figures> {
    requests
        .chart
        .bars
        .iter()
        .zip(&deliveries.chart.bars)
        .filter(|(r, d)| r.total > 0 || d.total > 0)
        .map(|(r, d)| Figures {
            day: r.day.clone(),
            requests: r.total,
            errors: r.part,
            attempts: d.total,
            failed: d.part,
        })
        .collect()
}

pub struct Chart {
    pub width: u32,
    pub height: u32,
    /// The plot area: its left edge, top, right edge and baseline.
    pub left: u32,
    pub top: u32,
    pub right: u32,
    pub baseline: u32,
    pub bars: Vec<Bar>,
    /// The scale up the side (`at` is a height) and the days along the
    /// bottom (`at` is the middle of that day's bar).
    pub scale: Vec<Tick>,
    pub days: Vec<Tick>,
    pub total: i64,
    pub part: i64,
    /// `part` of `total` as a percentage with one decimal, or "–".
    pub rate: String,
    /// The tallest bar's figure.
    pub peak: i64,
    /// The first and last days shown.
    pub first: String,
    pub last: String,
}

fn rate(part: i64, total: i64) -> String {
    if total == 0 {
        return "–".to_owned();
    }
    let tenths = (part as i128 * 1000 + total as i128 / 2) / total as i128;
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// The top of the scale: the smallest of 1, 2 or 4 times a power of ten
/// at or above `peak`, and at least 2, so the halfway mark is a whole
/// number too.
fn round_up(peak: i64) -> i64 {
    let mut power = 1i64;
    loop {
        for step in [1, 2, 4] {
            let top = power.saturating_mul(step);
            if top >= peak.max(2) {
                return top;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// "3 Nov": a day as the axis labels it.
fn short(d: time::Date) -> String {
    let full = people::date(d);
    let mut words = full.split(' ');
    let day = words.next().unwrap_or_default();
    let month: String = words.next().unwrap_or_default().chars().take(3).collect();
    format!("{day} {month}")
}

/// A chart of `total` per day with `part` of it marked, for the `DAYS`
/// days ending `last`.
fn chart(counts: &[UsageCount], last: time::Date, total: &[Metric], part: &[Metric]) -> Chart {
    let days = days_ending(last, DAYS);
    let sum = |day: &str, metrics: &[Metric]| -> i64 {
        counts
            .iter()
            .filter(|c| c.day == day && metrics.iter().any(|m| m.as_str() == c.metric))
            .map(|c| c.count)
            .sum()
    };
    let figures: Vec<(time::Date, i64, i64)> = days
        .iter()
        .map(|d| {
            let day = d.to_string();
            let (t, p) = (sum(&day, total), sum(&day, part));
            (*d, t, p.min(t))
        })
        .collect();
    let peak = figures.iter().map(|f| f.1).max().unwrap_or(0);
    let top = round_up(peak);
    let scale = |n: i64| -> u32 {
        // At least a pixel for any non-zero figure.
        let h = (n as i128 * i128::from(PLOT_HEIGHT) / top as i128) as u32;
        if n > 0 { h.max(1) } else { 0 }
    };
    let baseline = TOP + PLOT_HEIGHT;
    let bars: Vec<Bar> = figures
        .iter()
        .enumerate()
        .map(|(i, (day, t, p))| {
            let (height, part_height) = (scale(*t), scale(*p).min(scale(*t)));
            Bar {
                x: LEFT + i as u32 * BAR + 1,
                width: BAR - 2,
                y: baseline - height,
                height,
                part_y: baseline - part_height,
                part_height,
                day: people::date(*day),
                total: *t,
                part: *p,
            }
        })
        .collect();
    let day_tick = |i: usize| Tick {
        at: LEFT + i as u32 * BAR + BAR / 2,
        label: short(figures[i].0),
    };
    let (all, marked) = figures.iter().fold((0, 0), |(a, b), f| (a + f.1, b + f.2));
    Chart {
        width: WIDTH,
        height: HEIGHT,
        left: LEFT,
        top: TOP,
        right: LEFT + PLOT_WIDTH,
        baseline,
        scale: [0, top / 2, top]
            .into_iter()
            .map(|n| Tick {
                at: baseline - scale(n),
                label: n.to_string(),
            })
            .collect(),
        days: [0, figures.len() / 2, figures.len() - 1]
            .into_iter()
            .map(day_tick)
            .collect(),
        first: figures
            .first()
            .map(|f| people::date(f.0))
            .unwrap_or_default(),
        last: figures
            .last()
            .map(|f| people::date(f.0))
            .unwrap_or_default(),
        bars,
        total: all,
        part: marked,
        rate: rate(marked, all),
        peak,
    }
}

/// Requests per day, their errors (4xx and 5xx) marked.
pub fn requests(counts: &[UsageCount], last: time::Date) -> Chart {
    chart(
        counts,
        last,
        &[Metric::Requests],
        &[Metric::ClientErrors, Metric::ServerErrors],
    )
}

/// Delivery attempts per day, the failed ones marked.
pub fn deliveries(counts: &[UsageCount], last: time::Date) -> Chart {
    chart(
        counts,
        last,
        &[Metric::DeliveriesOk, Metric::DeliveriesFailed],
        &[Metric::DeliveriesFailed],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(day: &str, metric: Metric, n: i64) -> UsageCount {
        UsageCount {
            owner: "pk_live_a/test".into(),
            day: day.into(),
            metric: metric.as_str().into(),
            count: n,
        }
    }

    #[test]
    fn bars_scale_to_a_round_top_and_mark_the_failures() {
        let last = time::macros::date!(2026 - 11 - 26);
        let counts = [
            count("2026-11-26", Metric::Requests, 200),
            count("2026-11-26", Metric::ClientErrors, 30),
            count("2026-11-26", Metric::ServerErrors, 20),
            count("2026-11-25", Metric::Requests, 100),
            count("2026-10-01", Metric::Requests, 999),
        ];
        let c = requests(&counts, last);
        assert_eq!(c.bars.len(), 30);
        assert_eq!(
            (c.total, c.part, c.peak),
            (300, 50, 200),
            "the month before is out"
        );
        assert_eq!(c.rate, "16.7%");
        let today = c.bars.last().unwrap();
        assert_eq!(
            (today.day.as_str(), today.height, today.part_height),
            ("26 November 2026", PLOT_HEIGHT, PLOT_HEIGHT / 4)
        );
        assert_eq!(today.y + today.height, c.baseline);
        assert_eq!(c.bars[28].height, PLOT_HEIGHT / 2);
        assert_eq!(c.bars[0].height, 0);
        let scale: Vec<&str> = c.scale.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(scale, ["0", "100", "200"]);
        assert_eq!(c.scale[2].at, c.top, "the top of the scale is the plot's");
        let days: Vec<&str> = c.days.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(days, ["28 Oct", "12 Nov", "26 Nov"]);
        assert_eq!(
            (c.first.as_str(), c.last.as_str()),
            ("28 October 2026", "26 November 2026")
        );

        let d = deliveries(
            &[
                count("2026-11-26", Metric::DeliveriesOk, 3),
                count("2026-11-26", Metric::DeliveriesFailed, 1),
            ],
            last,
        );
        assert_eq!((d.total, d.part, d.rate.as_str()), (4, 1, "25.0%"));
        assert_eq!(d.scale.last().unwrap().label, "4");
        let quiet = requests(&[], last);
        assert_eq!(quiet.rate, "–");
        assert_eq!(
            quiet.scale.last().unwrap().label,
            "2",
            "a scale even with nothing on it"
        );
    }

    #[test]
    fn the_scale_tops_out_at_one_two_or_four_times_a_power_of_ten() {
        for (peak, top) in [
            (0, 2),
            (1, 2),
            (3, 4),
            (5, 10),
            (11, 20),
            (21, 40),
            (150, 200),
            (501, 1000),
        ] {
            assert_eq!(round_up(peak), top, "{peak}");
        }
    }
}
