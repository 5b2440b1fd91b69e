//! Live training plots (the page's one plotting code, `widgets::chart`, on a canvas): one metric at
//! a time, every shown run overlaid in its colour with a legend, a smoothing window, episodes or
//! each run's share of its episodes across, and exports of the metrics and the picture.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use crate::services::model::{PlotMetric, RunData, metrics_csv, metrics_json, series};
use crate::services::run_book::RunBook;
use crate::widgets::chart::{Axis, Chart, Series, Ticks, span};
use crate::widgets::download;
use crate::widgets::frame::redraw_on_change;

/// Points per series at most; more would not show on a canvas this wide.
const MAX_POINTS: usize = 900;

/// What the horizontal axis counts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Across {
    /// Episodes: runs of different lengths end at different places.
    Episodes,
    /// Each run's share of its planned episodes: a 500-episode DQN and a 5000-episode Q-learning
    /// run both span the width.
    ShareOfRun,
}

/// The vertical axis's title, in words with the unit, and its tick labels.
fn vertical(metric: PlotMetric) -> (&'static str, Ticks) {
    match metric {
        PlotMetric::SuccessLast100 => ("Success over the last 100 episodes", Ticks::Percent),
        PlotMetric::Return => ("Return per episode (reward summed)", Ticks::Decimals(1)),
        PlotMetric::Loss => ("Loss (mean TD error², squared reward units)", Ticks::Decimals(3)),
        PlotMetric::Epsilon => ("Exploration rate ε (chance of a random action)", Ticks::Decimals(2)),
        PlotMetric::Length => ("Episode length (steps)", Ticks::Whole),
    }
}

/// The plot of the shown runs; the canvas is `width` pixels wide.
fn chart(runs: &[RunData], metric: PlotMetric, window: usize, across: Across, width: u32) -> Chart {
    let series: Vec<Series> = runs
        .iter()
        .filter(|r| r.shown)
        .map(|run| {
            let planned = f64::from(run.spec.episodes.max(1));
            let mut points = series(&run.records, metric, window, MAX_POINTS);
            if across == Across::ShareOfRun {
                points.iter_mut().for_each(|p| p.0 /= planned);
            }
            Series { label: run.label(), colour: run.colour, points, band: Vec::new() }
        })
        .collect();
    let values = || series.iter().flat_map(|s| s.points.iter());
    let x = match across {
        // At least ten episodes wide, so that a young plot's axis reads 0, 1 … 10 rather than
        // fractions rounded to "0 0 0 1 1".
        Across::Episodes => Axis {
            title: "Episode".into(),
            range: 0.0..values().map(|p| p.0).fold(10.0, f64::max),
            ticks: Ticks::Whole,
        },
        Across::ShareOfRun => {
            Axis { title: "Share of each run's episodes".into(), range: 0.0..1.0, ticks: Ticks::Percent }
        }
    };
    let (title, ticks) = vertical(metric);
    let range = match metric {
        PlotMetric::SuccessLast100 | PlotMetric::Epsilon => 0.0..1.0,
        _ => span(values().map(|p| p.1), 2.0, 0.0..1.0),
    };
    Chart { x, y: Axis { title: title.into(), range, ticks }, series, width, plot_height: 380 }
}

fn draw(canvas: HtmlCanvasElement, chart: &Chart) -> Result<(), String> {
    canvas.set_height(chart.height());
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("the plot canvas has no 2D context")?;
    chart.draw(&backend.into_drawing_area())
}

/// Whether the shown runs' lengths differ so much that, drawn by episode, the shortest would take a
/// sliver of the width: a hint then suggests drawing each across the whole width.
fn lengths_differ(runs: &[RunData]) -> Option<(u32, u32)> {
    let lengths = runs.iter().filter(|r| r.shown).map(|r| r.spec.episodes.max(1));
    let (shortest, longest) = lengths.fold((u32::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
    (longest >= 4 * shortest).then_some((shortest, longest))
}

#[component]
pub fn MetricsPlot(on_error: Callback<Option<String>>) -> impl IntoView {
    let runs = expect_context::<RunBook>().runs;
    let metric = RwSignal::new(PlotMetric::SuccessLast100);
    let window = RwSignal::new(20usize);
    let across = RwSignal::new(Across::Episodes);
    let canvas = NodeRef::<Canvas>::new();
    redraw_on_change(
        move || {
            runs.track();
            metric.track();
            window.track();
            across.track();
        },
        move || {
            let Some(canvas) = canvas.get_untracked() else { return };
            let width = canvas.width();
            let chart = runs.with_untracked(|runs| {
                chart(runs, metric.get_untracked(), window.get_untracked(), across.get_untracked(), width)
            });
            let drawn = draw(canvas, &chart);
            if let Err(problem) = drawn {
                on_error.run(Some(problem));
            }
        },
    );

    let shown = move || runs.with_untracked(|runs| runs.iter().filter(|r| r.shown).cloned().collect::<Vec<_>>());
    let export_csv = move |_| {
        let runs = shown();
        let csv = metrics_csv(&runs.iter().collect::<Vec<_>>());
        report(on_error, download::text("rlcg-metrics.csv", "text/csv", &csv));
    };
    let export_json = move |_| {
        let runs = shown();
        let json = metrics_json(&runs.iter().collect::<Vec<_>>());
        report(on_error, json.and_then(|json| download::text("rlcg-metrics.json", "application/json", &json)));
    };
    let export_png = move |_| {
        let url = canvas.get_untracked().map(|c| c.to_data_url().map_err(|e| crate::services::js_error::describe(&e)));
        let result = match url {
            Some(Ok(url)) => download::url("rlcg-plot.png", &url),
            Some(Err(e)) => Err(format!("the plot could not be turned into a PNG: {e}")),
            None => Err("the plot is not on the page".into()),
        };
        report(on_error, result);
    };
    let no_runs = move || runs.with(|r| r.is_empty());
    let differ = move || runs.with(|r| lengths_differ(r));

    view! {
        <section aria-labelledby="plots-heading" class="panel" id="results">
            <h2 id="plots-heading">"Training curves"</h2>
            <div class="row">
                <label>"Metric "
                    <select id="metric" on:change=move |ev| { if let Some(m) = PlotMetric::parse(&event_target_value(&ev)) { metric.set(m) } }>
                        {PlotMetric::ALL.iter().map(|m| view! { <option value=m.key()>{m.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Smoothing: " <output id="smoothing-value">{move || window.get()}</output> " episodes "
                    <input id="smoothing" type="range" min="1" max="500" prop:value=move || window.get().to_string()
                        on:input=move |ev| window.set(event_target_value(&ev).parse().unwrap_or(1)) />
                </label>
                <label>"Across "
                    <select id="plot-across" on:change=move |ev| across.set(if event_target_value(&ev) == "share" { Across::ShareOfRun } else { Across::Episodes })>
                        <option value="episodes">"episodes"</option>
                        <option value="share">"each run's share of its episodes"</option>
                    </select>
                </label>
            </div>
            <p id="plot-lengths" class="hint" hidden=move || differ().is_none() || across.get() == Across::ShareOfRun>
                {move || differ().map(|(shortest, longest)| format!("The shown runs are {shortest} to {longest} episodes long: drawn by episode, the shortest takes a sliver of the width. \"Across: each run's share of its episodes\" draws every run across the whole width."))}
            </p>
            <canvas id="plot" node_ref=canvas width="960" height="380" role="img"
                aria-label=move || format!("Training curves of the shown runs: {} against {}", vertical(metric.get()).0, if across.get() == Across::Episodes { "episode" } else { "each run's share of its episodes" })></canvas>
            <div class="row">
                <button id="export-csv" type="button" disabled=no_runs on:click=export_csv>"Export CSV"</button>
                <button id="export-json" type="button" disabled=no_runs on:click=export_json>"Export JSON"</button>
                <button id="export-png" type="button" disabled=no_runs on:click=export_png>"Save plot as PNG"</button>
            </div>
        </section>
    }
}

fn report(on_error: Callback<Option<String>>, result: Result<(), String>) {
    if let Err(problem) = result {
        on_error.run(Some(problem));
    }
}
