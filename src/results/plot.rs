//! Live training plots (plotters on a canvas): one metric at a time, every shown run overlaid in its
//! colour with a legend, a smoothing window, and exports of the metrics and the picture.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use crate::services::model::{PlotMetric, RunData, metrics_csv, metrics_json, series};
use crate::services::run_book::RunBook;
use crate::widgets::download;
use crate::widgets::frame::redraw_on_change;

/// Points per series at most; more would not show on a canvas this wide.
const MAX_POINTS: usize = 900;

fn draw(canvas: HtmlCanvasElement, runs: &[RunData], metric: PlotMetric, window: usize) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("the plot canvas has no 2D context")?;
    let root = backend.into_drawing_area();
    let failed = |e: DrawingAreaErrorKind<_>| format!("the plot could not be drawn: {e}");
    root.fill(&WHITE).map_err(failed)?;
    let lines: Vec<(&RunData, Vec<(f64, f64)>)> =
        runs.iter().filter(|r| r.shown).map(|r| (r, series(&r.records, metric, window, MAX_POINTS))).collect();
    let points = || lines.iter().flat_map(|(_, s)| s.iter());
    // At least ten episodes wide, so that an empty or young plot's axis reads 0, 1 … 10 rather than
    // fractions rounded to "0 0 0 1 1".
    let x_max = points().map(|p| p.0).fold(10.0, f64::max);
    let (mut y_min, mut y_max) = match metric {
        PlotMetric::SuccessLast100 | PlotMetric::Epsilon => (0.0, 1.0),
        _ => points().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.1), hi.max(p.1))),
    };
    if !y_min.is_finite() || y_max - y_min < 1e-9 {
        (y_min, y_max) = if y_min.is_finite() { (y_min - 1.0, y_max + 1.0) } else { (0.0, 1.0) };
    }
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..x_max, y_min..y_max)
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc("episode")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(metric.key())
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(failed)?;
    for (run, line) in lines {
        let (r, g, b) = run.colour;
        let colour = RGBColor(r, g, b);
        chart
            .draw_series(LineSeries::new(line, colour.stroke_width(2)))
            .map_err(failed)?
            .label(run.label())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(failed)?;
    root.present().map_err(failed)
}

#[component]
pub fn MetricsPlot(on_error: Callback<Option<String>>) -> impl IntoView {
    let runs = expect_context::<RunBook>().runs;
    let metric = RwSignal::new(PlotMetric::SuccessLast100);
    let window = RwSignal::new(20usize);
    let canvas = NodeRef::<Canvas>::new();
    redraw_on_change(
        move || {
            runs.track();
            metric.track();
            window.track();
        },
        move || {
            let Some(canvas) = canvas.get_untracked() else { return };
            let drawn = runs.with_untracked(|runs| draw(canvas, runs, metric.get_untracked(), window.get_untracked()));
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

    view! {
        <section aria-labelledby="plots-heading" class="panel" id="results">
            <h2 id="plots-heading">"Training curves"</h2>
            <div class="row">
                <label>"PlotMetric "
                    <select id="metric" on:change=move |ev| { if let Some(m) = PlotMetric::parse(&event_target_value(&ev)) { metric.set(m) } }>
                        {PlotMetric::ALL.iter().map(|m| view! { <option value=m.key()>{m.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Smoothing: " <output id="smoothing-value">{move || window.get()}</output> " episodes "
                    <input id="smoothing" type="range" min="1" max="500" prop:value=move || window.get().to_string()
                        on:input=move |ev| window.set(event_target_value(&ev).parse().unwrap_or(1)) />
                </label>
            </div>
            <canvas id="plot" node_ref=canvas width="960" height="380" role="img"
                aria-label="Training curves of the shown runs"></canvas>
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
