//! The StepCoder pane's learner: Table 1's ablation (vanilla, +CCCS, +FGO, StepCoder) on the
//! line-bank learner, every program run in Pyodide, sampled pass@1 at the full task plotted against
//! executions with its 95% interval over seeds. The bank's programs go to Pyodide in batches, all in
//! one interpreter: they are the playground's own programs, not an LLM's.

use engine::python::{ProgramRequest, ProgramVerdict};
use engine::share::ablation_link::AblationLink;
use engine::stepcoder::ablation::{Ablation, AblationNeed, AblationSpec, ArmSummary};
use engine::stepcoder::learner::{Arm, LearnerParams};
use leptos::prelude::*;

use crate::host::run_python;
use crate::llm_client::CancelToken;
use crate::python::{Author, Python};

/// Programs per Pyodide batch, and the time each may take in it.
const BATCH: usize = 400;
const MS_PER_PROGRAM: u32 = 50;
/// The plot's size, in SVG units, and each arm's colour.
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 220.0;
const COLOURS: [&str; 4] = ["#5f6368", "#1a73e8", "#e37400", "#188038"];

/// Table 1's overall pass@1 (6.7B model, APPS+) for each arm's row, for the table beside ours.
fn table_1(arm: Arm) -> f64 {
    match arm {
        Arm::Vanilla => 31.7,
        Arm::Cccs => 35.5,
        Arm::Fgo => 34.6,
        Arm::StepCoder => 36.1,
    }
}

/// Runs the ablation's programs until it is done, `progress` updated after each batch.
async fn drive(
    ablation: &mut Ablation,
    python: &Python,
    cancel: &CancelToken,
    progress: RwSignal<(u64, u64)>,
) -> Result<(), String> {
    while let AblationNeed::Run(requests) = ablation.need() {
        let mut verdicts: Vec<ProgramVerdict> = Vec::with_capacity(requests.len());
        for chunk in requests.chunks(BATCH).map(<[ProgramRequest]>::to_vec) {
            if cancel.is_cancelled() {
                return Err("cancelled".into());
            }
            let limit = 2_000 + MS_PER_PROGRAM * chunk.len() as u32;
            let verdict = run_python(python, Author::Playground, ProgramRequest::batch(chunk), limit).await?;
            match verdict.batch {
                Some(batch) => verdicts.extend(batch),
                None => return Err(verdict.error.unwrap_or_else(|| "Python returned no verdicts".into())),
            }
        }
        ablation.supply(verdicts)?;
        progress.set(ablation.progress());
    }
    Ok(())
}

/// `link` is a shared ablation: its spec fills the form and runs at once, and its fingerprint is
/// compared with the one the page gets.
#[component]
pub fn LearnerPanel(python: StoredValue<Python, LocalStorage>, link: Option<AblationLink>) -> impl IntoView {
    // The spec the form edits: seeds and executions here, the rest as the link (or the defaults) set it.
    let template = StoredValue::new(link.as_ref().map_or_else(AblationSpec::default, |l| l.spec.clone()));
    let sent = link.as_ref().and_then(|l| l.fingerprint.clone());
    let seeds = RwSignal::new(template.with_value(|t| t.seeds.to_string()));
    let budget = RwSignal::new(template.with_value(|t| t.params.budget.to_string()));
    let shared = RwSignal::new(None::<String>);
    let running = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let progress = RwSignal::new((0u64, 0u64));
    let status = RwSignal::new(String::new());
    let rows = RwSignal::new(Vec::<ArmSummary>::new());
    let cancel = StoredValue::new_local(CancelToken::default());

    let start = move |sent: Option<String>| {
        let seeds = seeds.get_untracked().trim().parse().map_err(|_| "seeds: a whole number".to_owned());
        let budget =
            budget.get_untracked().trim().parse().map_err(|_| "budget: a whole number of executions".to_owned());
        let spec = seeds.and_then(|seeds| {
            let template = template.get_value();
            Ok(AblationSpec { seeds, params: LearnerParams { budget: budget?, ..template.params }, ..template })
        });
        let mut ablation = match spec.and_then(Ablation::new) {
            Ok(ablation) => ablation,
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        rows.set(Vec::new());
        shared.set(None);
        running.set(true);
        progress.set(ablation.progress());
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        let started = js_sys::Date::now();
        leptos::task::spawn_local(async move {
            match drive(&mut ablation, &python, &token, progress).await {
                Ok(()) => {
                    rows.set(ablation.summary());
                    let seconds = (js_sys::Date::now() - started) / 1000.0;
                    let fingerprint = ablation.fingerprint();
                    let compared = match sent {
                        Some(sent) if sent == fingerprint => " Identical to the shared ablation.".to_owned(),
                        Some(sent) => format!(" Not the same as the shared ablation, whose fingerprint is {sent}."),
                        None => String::new(),
                    };
                    status.set(format!(
                        "Done in {seconds:.1} s: {} distinct programs ran (the rest were the same programs again); fingerprint {fingerprint}.{compared}",
                        ablation.distinct_programs(),
                    ));
                    let link = AblationLink { spec: ablation.spec.clone(), fingerprint: Some(fingerprint) };
                    let location = window().location();
                    let base =
                        format!("{}{}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default());
                    shared.set(Some(format!("{base}#{}", link.encode())));
                }
                Err(message) => problem.set(Some(message)),
            }
            running.set(false);
        });
    };

    if link.is_some() {
        // A shared ablation runs as soon as the pane is there.
        leptos::task::spawn_local(async move { start(sent) });
    }
    let overall = move || rows.with(|rows| rows.iter().filter(|r| r.task.is_none()).cloned().collect::<Vec<_>>());
    view! {
        <h3>"What CCCS and FGO do to a learner that learns"</h3>
        <p class="hint">"A softmax per line over the bundled line banks (four small functions; each free line offers the canonical line and three mutants, each of which alone fails a test), trained by REINFORCE on 16 rollouts per update. The four arms differ only by CCCS and FGO, with the same seeds, random streams and budget of executions; pass@1 is sampled at the full task on visible and hidden tests. These are a different quantity on a toy, not a reproduction of Table 1."</p>
        <div class="form-grid">
            <label>"Seeds"<input id="stepcoder-learn-seeds" prop:value=move || seeds.get() on:input=move |ev| seeds.set(event_target_value(&ev)) /></label>
            <label>"Executions per task"<input id="stepcoder-learn-budget" prop:value=move || budget.get() on:input=move |ev| budget.set(event_target_value(&ev)) /></label>
        </div>
        <p class="actions">
            <button type="button" id="stepcoder-learn" disabled=move || running.get() on:click=move |_| start(None)>"Run the four arms"</button>
            <button type="button" id="stepcoder-learn-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
        </p>
        <p id="stepcoder-learn-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
        <p id="stepcoder-learn-status" role="status">{move || {
            let (spent, total) = progress.get();
            if running.get() { format!("{spent} of {total} executions…") } else { status.get() }
        }}</p>
        <p hidden=move || shared.get().is_none()>
            <label>"Link to this ablation "<input id="stepcoder-learn-link" readonly size="60" prop:value=move || shared.get().unwrap_or_default() /></label>
        </p>
        <div hidden=move || rows.with(Vec::is_empty)>
            <CurvePlot rows=Signal::derive(overall) />
            <table id="stepcoder-learn-table">
                <thead><tr><th>"Arm"</th><th>"pass@1 at the end (95% interval), all tasks"</th><th>"Curriculum reached the full task"</th><th>"Gradient terms FGO removed"</th><th>"Table 1, overall"</th></tr></thead>
                <tbody>{move || overall().into_iter().map(|row| {
                    let last = row.curve.last().copied();
                    let pass = last.map_or("-".into(), |p| format!("{:.3} [{:.3}, {:.3}]", p.mean, p.low, p.high));
                    let reached = row.full_task_reached.map_or("-".into(), |n| format!("{n} of {}", row.runs));
                    let masked = row.masked_share.map_or("-".into(), |m| format!("{:.1}%", 100.0 * m));
                    view! { <tr><td>{row.arm.name()}</td><td>{pass}</td><td>{reached}</td><td>{masked}</td><td>{format!("{:.1}", table_1(row.arm))}</td></tr> }
                }).collect_view()}</tbody>
            </table>
        </div>
    }
}

/// Each arm's mean pass@1 against executions, with its 95% interval as a band.
#[component]
fn CurvePlot(rows: Signal<Vec<ArmSummary>>) -> impl IntoView {
    let paths = move || {
        let rows = rows.get();
        let last = rows.iter().flat_map(|r| r.curve.last()).map(|p| p.executions).max().unwrap_or(1).max(1) as f64;
        let x = move |e: u32| 40.0 + (WIDTH - 50.0) * f64::from(e) / last;
        let y = |v: f64| HEIGHT - 20.0 - (HEIGHT - 30.0) * v.clamp(0.0, 1.0);
        rows.iter()
            .enumerate()
            .map(|(i, row)| {
                let colour = COLOURS[i % COLOURS.len()];
                let line: Vec<String> =
                    row.curve.iter().map(|p| format!("{:.1},{:.1}", x(p.executions), y(p.mean))).collect();
                let upper = row.curve.iter().map(|p| format!("{:.1},{:.1}", x(p.executions), y(p.high)));
                let lower = row.curve.iter().rev().map(|p| format!("{:.1},{:.1}", x(p.executions), y(p.low)));
                let band: Vec<String> = upper.chain(lower).collect();
                view! {
                    <g class="arm" data-arm=row.arm.name()>
                        <polygon class="interval" points=band.join(" ") fill=colour fill-opacity="0.15" />
                        <polyline class="mean" points=line.join(" ") fill="none" stroke=colour stroke-width="2" />
                        <text x="46" y=14.0 + 14.0 * i as f64 fill=colour font-size="12">{row.arm.name()}</text>
                    </g>
                }
            })
            .collect_view()
    };
    view! {
        <svg id="stepcoder-learn-plot" viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label="Sampled pass@1 against executions, per arm, with 95% intervals">
            <line x1="40" y1=HEIGHT - 20.0 x2=WIDTH - 10.0 y2=HEIGHT - 20.0 stroke="#888" />
            <line x1="40" y1="10" x2="40" y2=HEIGHT - 20.0 stroke="#888" />
            <text x="4" y="14" font-size="11">"1.0"</text>
            <text x="4" y=HEIGHT - 20.0 font-size="11">"0"</text>
            <text x=WIDTH - 160.0 y=HEIGHT - 4.0 font-size="11">"executions per task →"</text>
            {paths}
        </svg>
    }
}
