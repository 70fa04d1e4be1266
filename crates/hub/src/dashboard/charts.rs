//! The home page's charts, drawn on the server as SVG from the stored
//! counts (`usage_days`): REST-tier requests per day with the share that
//! failed, and webhook delivery attempts per day with the share that got
//! through. No script; each bar carries its numbers as a tooltip, and the
//! figures are in a table beside the picture.

use lendhub_domain::billing::usage::{Metric, days_ending};
use lendhub_store::UsageCount;

/// How many days the charts show.
pub const DAYS: u16 = 30;

const WIDTH: u32 = 600;
const HEIGHT: u32 = 120;
const BAR: u32 = WIDTH / DAYS as u32;

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
    pub day: String,
    pub total: i64,
    pub part: i64,
}

/// A chart as the page shows it.
pub struct Panel {
    pub id: &'static str,
    pub title: &'static str,
    /// What the marked part is, e.g. "errors".
    pub part_label: &'static str,
    pub chart: Chart,
}

/// The home page's two panels: requests, then deliveries.
pub fn panels(counts: &[UsageCount], last: time::Date) -> [Panel; 2] {
    [
        Panel {
            id: "requests",
            title: "API requests",
            part_label: "errors",
            chart: requests(counts, last),
        },
        Panel {
            id: "deliveries",
            title: "Webhook delivery attempts",
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
    pub bars: Vec<Bar>,
    pub total: i64,
    pub part: i64,
    /// `part` of `total` as a percentage with one decimal, or "–".
    pub rate: String,
    /// The tallest bar's figure (the scale).
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
    let figures: Vec<(String, i64, i64)> = days
        .iter()
        .map(|d| {
            let day = d.to_string();
            let (t, p) = (sum(&day, total), sum(&day, part));
            (day, t, p.min(t))
        })
        .collect();
    let peak = figures.iter().map(|f| f.1).max().unwrap_or(0);
    let scale = |n: i64| -> u32 {
        if peak == 0 {
            0
        } else {
            // At least a pixel for any non-zero figure.
            let h = (n as i128 * i128::from(HEIGHT) / peak as i128) as u32;
            if n > 0 { h.max(1) } else { 0 }
        }
    };
    let bars = figures
        .iter()
        .enumerate()
        .map(|(i, (day, t, p))| {
            let (height, part_height) = (scale(*t), scale(*p).min(scale(*t)));
            Bar {
                x: i as u32 * BAR,
                width: BAR - 2,
                y: HEIGHT - height,
                height,
                part_y: HEIGHT - part_height,
                part_height,
                day: day.clone(),
                total: *t,
                part: *p,
            }
        })
        .collect();
    let (all, marked) = figures.iter().fold((0, 0), |(a, b), f| (a + f.1, b + f.2));
    Chart {
        width: WIDTH,
        height: HEIGHT,
        first: figures.first().map(|f| f.0.clone()).unwrap_or_default(),
        last: figures.last().map(|f| f.0.clone()).unwrap_or_default(),
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
    fn bars_scale_to_the_busiest_day_and_mark_the_failures() {
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
            ("2026-11-26", 120, 30)
        );
        assert_eq!(today.y + today.height, 120);
        assert_eq!(c.bars[28].height, 60);
        assert_eq!(c.bars[0].height, 0);

        let d = deliveries(
            &[
                count("2026-11-26", Metric::DeliveriesOk, 3),
                count("2026-11-26", Metric::DeliveriesFailed, 1),
            ],
            last,
        );
        assert_eq!((d.total, d.part, d.rate.as_str()), (4, 1, "25.0%"));
        assert_eq!(requests(&[], last).rate, "–");
    }
}
