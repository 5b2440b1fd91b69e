//! Every plot of the page, drawn one way (plotters): tick labels, axis titles in words with their
//! units, each series in its colour with its interval as a band, and the legend below the plot,
//! one line per series, so that no label is clipped and every label is part of the picture. The
//! training curves draw on a canvas (saved as a PNG); the other plots are SVG in the page, where
//! their text can be read, searched and scaled to a phone's width.

use std::ops::Range;

use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;

/// How an axis writes its tick labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ticks {
    /// Whole numbers (episodes, calls, executions).
    Whole,
    /// A share from 0 to 1 written in percent.
    Percent,
    /// A number with this many decimals.
    Decimals(usize),
}

impl Ticks {
    pub fn show(self, value: f64) -> String {
        match self {
            Ticks::Whole => format!("{value:.0}"),
            Ticks::Percent => format!("{:.0}%", 100.0 * value),
            Ticks::Decimals(places) => format!("{value:.places$}"),
        }
    }
}

/// An axis: its title in words with the unit, its range and its tick labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub title: String,
    pub range: Range<f64>,
    pub ticks: Ticks,
}

/// One line of a plot, with its name in the legend and, where it has one, its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub colour: (u8, u8, u8),
    pub points: Vec<(f64, f64)>,
    /// (x, low, high) at each point, drawn as a band behind the line; empty for none.
    pub band: Vec<(f64, f64, f64)>,
}

/// A plot: its axes, its series and the width and height of its plotting area in pixels (the
/// legend adds a line per series below it).
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub width: u32,
    pub plot_height: u32,
}

/// The height of one legend line, in pixels.
const LEGEND_LINE: u32 = 22;
const FONT: &str = "sans-serif";

/// The range from the smallest to the largest of `values`, at least `least` wide (so that a flat
/// or empty series still has an axis), or `fallback` when there are none.
pub fn span(values: impl Iterator<Item = f64>, least: f64, fallback: Range<f64>) -> Range<f64> {
    let (low, high) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !low.is_finite() {
        return fallback;
    }
    if high - low < least {
        let middle = (low + high) / 2.0;
        return middle - least / 2.0..middle + least / 2.0;
    }
    low..high
}

impl Chart {
    /// The whole picture's height: the plot and its legend.
    pub fn height(&self) -> u32 {
        self.plot_height + if self.series.is_empty() { 0 } else { 8 + LEGEND_LINE * self.series.len() as u32 }
    }

    /// Draws the plot on `root`, which is `width` × `height()` pixels.
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let failed = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("the plot could not be drawn: {e}");
        root.fill(&WHITE).map_err(failed)?;
        let (plot, legend) = root.split_vertically(self.plot_height);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(self.x.range.clone(), self.y.range.clone())
            .map_err(failed)?;
        let (x_ticks, y_ticks) = (self.x.ticks, self.y.ticks);
        chart
            .configure_mesh()
            .x_desc(self.x.title.as_str())
            .y_desc(self.y.title.as_str())
            .x_labels(8)
            .y_labels(6)
            .x_label_formatter(&|v| x_ticks.show(*v))
            .y_label_formatter(&|v| y_ticks.show(*v))
            .light_line_style(RGBColor(238, 238, 238))
            // plotters writes a font of size s as s / 1.24 pixels: 13 and 14 pixels.
            .label_style((FONT, 16))
            .axis_desc_style((FONT, 17))
            .draw()
            .map_err(failed)?;
        for series in &self.series {
            let (r, g, b) = series.colour;
            let colour = RGBColor(r, g, b);
            if !series.band.is_empty() {
                let upper = series.band.iter().map(|&(x, _, high)| (x, high));
                let lower = series.band.iter().rev().map(|&(x, low, _)| (x, low));
                let band = Polygon::new(upper.chain(lower).collect::<Vec<_>>(), colour.mix(0.15).filled());
                chart.draw_series(std::iter::once(band)).map_err(failed)?;
            }
            chart
                .draw_series(LineSeries::new(series.points.iter().copied(), colour.stroke_width(2)))
                .map_err(failed)?;
        }
        for (k, series) in self.series.iter().enumerate() {
            let (r, g, b) = series.colour;
            let y = 8 + LEGEND_LINE as i32 * k as i32 + LEGEND_LINE as i32 / 2;
            legend
                .draw(&PathElement::new(vec![(84, y), (108, y)], RGBColor(r, g, b).stroke_width(3)))
                .map_err(failed)?;
            legend.draw(&Text::new(series.label.clone(), (116, y - 8), (FONT, 17))).map_err(failed)?;
        }
        root.present().map_err(failed)
    }

    /// The plot as an SVG document.
    pub fn svg(&self) -> Result<String, String> {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (self.width, self.height())).into_drawing_area();
            self.draw(&root)?;
        }
        Ok(svg)
    }
}

/// A plot in the page as SVG, scaled to the width there is; `label` says what it shows to a
/// screen reader. A plot that could not be drawn says why in its place.
#[component]
pub fn SvgChart(id: &'static str, label: &'static str, chart: Signal<Chart>) -> impl IntoView {
    let drawn = move || chart.with(Chart::svg);
    view! {
        <div id=id class="chart" role="img" aria-label=label
            inner_html=move || drawn().unwrap_or_default()></div>
        <p class="error" role="alert" hidden=move || drawn().is_ok()>{move || drawn().err()}</p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::model::palette_colour as colour;

    fn chart(series: Vec<Series>) -> Chart {
        Chart {
            x: Axis { title: "LLM calls".into(), range: 0.0..20.0, ticks: Ticks::Whole },
            y: Axis {
                title: "Best score so far (share of tests passed)".into(),
                range: 0.0..1.0,
                ticks: Ticks::Percent,
            },
            series,
            width: 560,
            plot_height: 240,
        }
    }

    #[test]
    fn ticks_are_written_as_their_axis_says() {
        assert_eq!(Ticks::Whole.show(1999.6), "2000");
        assert_eq!(Ticks::Percent.show(0.425), "42%");
        assert_eq!(Ticks::Decimals(2).show(-0.5), "-0.50");
    }

    #[test]
    fn a_span_covers_every_value_and_is_never_flat() {
        assert_eq!(span([3.0, -1.0, 2.0].into_iter(), 1.0, 0.0..1.0), -1.0..3.0);
        assert_eq!(span([0.5, 0.5].into_iter(), 1.0, 0.0..1.0), 0.0..1.0);
        assert_eq!(span([f64::NAN].into_iter(), 1.0, 0.0..10.0), 0.0..10.0);
    }

    #[test]
    fn the_legend_adds_a_line_per_series_below_the_plot() {
        let line =
            |label: &str| Series { label: label.into(), colour: colour(0), points: vec![(1.0, 0.5)], band: vec![] };
        assert_eq!(chart(vec![]).height(), 240);
        assert_eq!(chart(vec![line("a"), line("b")]).height(), 240 + 8 + 2 * LEGEND_LINE);
    }

    #[test]
    fn the_svg_holds_the_tick_labels_the_axis_titles_and_the_legend() {
        let line = Series {
            label: "#1 gif-mcts on running_sum".into(),
            colour: colour(1),
            points: vec![(1.0, 0.25), (20.0, 1.0)],
            band: vec![(1.0, 0.0, 0.5), (20.0, 0.9, 1.0)],
        };
        let svg = chart(vec![line]).svg().unwrap();
        // plotters writes each text on a line of its own.
        let lines: Vec<&str> = svg.lines().map(str::trim).collect();
        for text in [
            "LLM calls",
            "Best score so far (share of tests passed)",
            "#1 gif-mcts on running_sum",
            "0%",
            "100%",
            "0",
            "20",
        ] {
            assert!(lines.contains(&text), "{text} is not in {svg}");
        }
        assert_eq!(svg.matches("<polygon").count(), 1, "the band");
    }
}
