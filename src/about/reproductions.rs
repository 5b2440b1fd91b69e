//! The About section's reproductions: seed 003's orchestrator tables (no Python), the GIF-MCTS
//! search table and CWM accuracy (every program in Pyodide), each re-run in this tab with one
//! click as `rlcg reproduce` makes it, and compared cell by cell with the figures this page was
//! built with: the docs' for seed 003, the quick run's pinned ones for the searches, which take
//! hours at the docs' 100 seeds.

use engine::effects::Llm;
use engine::reproduce::orchestrator::{self, AGENTS};
use engine::reproduce::{DOCS, QUICK, Scale, Table, blocks, search};
use engine::search::measures::bench::{BenchRow, BenchSpec, SequentialBench};
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::host::{self, HostView};
use crate::services::python_pool::Python;

/// What a button re-runs.
#[derive(Clone, Copy, PartialEq)]
enum Rerun {
    Seed003,
    Search,
    WorldModels,
}

impl Rerun {
    const ALL: [Rerun; 3] = [Rerun::Seed003, Rerun::Search, Rerun::WorldModels];

    fn id(self) -> &'static str {
        ["reproduce-seed003", "reproduce-search", "reproduce-world-models"][self as usize]
    }

    /// Its button, with the size of the work counted from what it runs and how long it took on a
    /// 2-core machine (docs/benchmarks.md), said before it starts.
    fn label(self) -> String {
        let searches = |spec: &BenchSpec| spec.methods.len() * spec.tasks.len() * spec.seeds.len();
        let seeds = |spec: &BenchSpec| format!("seeds 1–{}", spec.seeds.len());
        match self {
            Rerun::Seed003 => {
                let seeds = orchestrator::seeds(Scale::Full);
                format!(
                    "Seed 003's tables (Q-learning and q-thompson, seeds 1–{seeds}, {} episodes each: {} runs, under a second)",
                    orchestrator::EPISODES,
                    AGENTS.len() as u64 * seeds
                )
            }
            Rerun::Search => {
                let spec = search::bundled_bench(Scale::Quick);
                format!(
                    "The GIF-MCTS search table (the quick run: {} tasks × {}, {} methods: {} searches, about 4 minutes)",
                    spec.tasks.len(),
                    seeds(&spec),
                    spec.methods.len(),
                    searches(&spec)
                )
            }
            Rerun::WorldModels => {
                let specs: Vec<BenchSpec> = search::world_model_environments()
                    .into_iter()
                    .map(|env| search::world_model_bench(Scale::Quick, env))
                    .collect();
                format!(
                    "CWM accuracy (the quick run: {} environments × {}, {} methods, {} calls: {} searches, about 70 s)",
                    specs.len(),
                    seeds(&specs[0]),
                    specs[0].methods.len(),
                    specs[0].budgets.last().copied().unwrap_or_default(),
                    specs.iter().map(searches).sum::<usize>()
                )
            }
        }
    }

    /// The figures a re-run is compared with, and their name.
    fn against(self) -> (&'static str, &'static str) {
        if self == Rerun::Seed003 { (DOCS, "docs/reproductions.md") } else { (QUICK, "docs/reproductions-quick.md") }
    }
}

/// Seed 003's runs, one at a time, letting the page draw (and Cancel be pressed) between two.
async fn seed003(status: RwSignal<String>, cancel: &CancelToken) -> Result<Vec<Table>, String> {
    let mut columns = Vec::new();
    for agent in AGENTS {
        let mut runs = Vec::new();
        for seed in 1..=orchestrator::seeds(Scale::Full) {
            status.set(format!("Training {} with seed {seed}…", agent.name()));
            TimeoutFuture::new(0).await;
            if cancel.is_cancelled() {
                return Err("cancelled".into());
            }
            runs.push(orchestrator::trained(agent, seed)?);
        }
        columns.push(runs);
    }
    Ok(orchestrator::tables(Scale::Full, &columns))
}

/// `spec`'s searches in Pyodide, one after another.
async fn bench(
    spec: BenchSpec,
    python: &Python,
    cancel: &CancelToken,
    status: RwSignal<String>,
    what: &str,
) -> Result<Vec<BenchRow>, String> {
    let mut bench = SequentialBench::new(spec)?;
    let view = HostView { status, stream: RwSignal::new(String::new()) };
    let decide = async |_| Err("a bench takes no policy decisions".to_owned());
    let show = |b: &SequentialBench| {
        let (done, all) = b.progress();
        status.set(format!("{what}: {done} of {all} searches…"));
    };
    host::drive(&mut bench, &mut Llm::Absent, python, cancel, decide, view, show).await?;
    bench.error.map_or(Ok(()), Err)?;
    Ok(bench.spec.rows(&bench.outcomes))
}

async fn rerun(
    which: Rerun,
    python: Python,
    cancel: &CancelToken,
    status: RwSignal<String>,
) -> Result<Vec<Table>, String> {
    let scale = Scale::Quick;
    match which {
        Rerun::Seed003 => seed003(status, cancel).await,
        Rerun::Search => {
            let rows = bench(search::bundled_bench(scale), &python, cancel, status, "The bundled tasks").await?;
            Ok(vec![search::bundled_table(scale, &rows)])
        }
        Rerun::WorldModels => {
            let mut rows = Vec::new();
            for env in search::world_model_environments() {
                let spec = search::world_model_bench(scale, env);
                rows.push((env, bench(spec, &python, cancel, status, env.name()).await?));
            }
            Ok(vec![search::world_model_table(scale, &rows)])
        }
    }
}

/// What a re-run says of the figures it is compared with.
fn compared(which: Rerun, tables: &[Table], seconds: f64) -> String {
    let (text, name) = which.against();
    let differences = blocks::differences(text, tables);
    match differences.len() {
        0 => format!("Done in {seconds:.1} s: the same as {name}, cell for cell."),
        n => format!("Done in {seconds:.1} s; {n} difference(s) from {name}: {}", differences.join("; ")),
    }
}

#[component]
fn TableView(table: Table) -> impl IntoView {
    view! {
        <table class="reproduction" id=format!("reproduction-{}", table.id)>
            <caption>{table.made_by.replace('`', "")}</caption>
            <thead><tr>{table.header.into_iter().map(|h| view! { <th>{h}</th> }).collect_view()}</tr></thead>
            <tbody>{table.rows.into_iter().map(|row| view! {
                <tr>{row.into_iter().map(|cell| view! { <td>{cell}</td> }).collect_view()}</tr>
            }).collect_view()}</tbody>
        </table>
    }
}

#[component]
pub fn Reproductions() -> impl IntoView {
    let python = Python::from_context();
    let tables = RwSignal::new(Vec::<Table>::new());
    let status = RwSignal::new(String::new());
    let running = RwSignal::new(false);
    let cancel = StoredValue::new_local(CancelToken::default());
    let start = move |which: Rerun| {
        running.set(true);
        tables.set(Vec::new());
        let python = python.get_value();
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        leptos::task::spawn_local(async move {
            let started = js_sys::Date::now();
            match rerun(which, python, &token, status).await {
                Ok(made) => {
                    status.set(compared(which, &made, (js_sys::Date::now() - started) / 1000.0));
                    tables.set(made);
                }
                Err(_) if token.is_cancelled() => status.set("Cancelled: no table to compare.".into()),
                Err(message) => status.set(format!("The re-run stopped: {message}")),
            }
            running.set(false);
        });
    };
    view! {
        <h2 id="reproductions">"Reproductions"</h2>
        <p>"docs/reproductions.md puts each report's headline tables beside this engine's, and `rlcg reproduce --check docs/reproductions.md` regenerates every one of them and lists each cell that differs. These re-run here, in this tab and offline, as `rlcg reproduce` runs them, and are compared cell by cell: seed 003's with the docs, the searches (every program in Pyodide) at the quick run's scale with its pinned figures."</p>
        <p class="actions">
            {Rerun::ALL.map(|which| view! {
                <button type="button" id=which.id() disabled=move || running.get() on:click=move |_| start(which)>{which.label()}</button>
            }).to_vec()}
            <button type="button" id="reproduce-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
        </p>
        <p id="reproduce-status" role="status">{move || status.get()}</p>
        {move || tables.get().into_iter().map(|table| view! { <TableView table /> }).collect_view()}
    }
}
