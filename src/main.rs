//! The playground page. Training happens in the worker (`worker/`); this thread only renders and
//! exchanges protocol messages with it, so the page never waits on a run.

mod controls;
mod download;
mod editor;
mod frame;
mod host;
mod js_error;
mod live;
mod llm_client;
mod model;
mod offline;
mod persist;
mod plot;
mod policy;
mod python;
mod shared_results;
mod tree_view;
mod upload;

use engine::protocol::{Envelope, FromWorker, ToWorker};
use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::run::{Resume, fingerprint};
use engine::share::{Control, ShareLink, SharedResults};
use engine::task_import::ImportedTask;
use engine::tasks::{BundledProgram, MeasuredVerdict, executive_programs};
use engine::{AgentId, EnvId, RunSpec};
use leptos::prelude::*;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::controls::Controls;
use crate::editor::PythonPane;
use crate::live::{LivePanel, WorkerCalls};
use crate::model::{RunData, Status, css_colour, parse_runs_json};
use crate::plot::MetricsPlot;
use crate::policy::{PolicyPanel, percent};
use crate::python::Python;
use crate::shared_results::SharedResultsPanel;
use crate::tree_view::TreeView;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Starts the training worker; messages it sends arrive in `on_message`.
fn spawn_worker(
    on_message: impl Fn(FromWorker) + 'static,
    on_error: impl Fn(String) + Clone + 'static,
) -> Result<Worker, String> {
    let worker = Worker::new("./worker_loader.js").map_err(|e| {
        format!("the training worker could not start: {}. Reload the page to try again.", js_error::describe(&e))
    })?;
    let report = on_error.clone();
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        match Envelope::<FromWorker>::decode(&text) {
            Ok(message) => on_message(message),
            Err(problem) => report(format!("unreadable message from the training worker: {problem}")),
        }
    });
    let crashed = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
        on_error(format!("the training worker failed: {}", event.message()))
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    worker.set_onerror(Some(crashed.as_ref().unchecked_ref()));
    // The handlers live as long as the page.
    handler.forget();
    crashed.forget();
    Ok(worker)
}

/// A share link's fragment holds `key=value` pairs; one without is an in-page anchor (`#seed-000`).
fn is_share_fragment(fragment: &str) -> bool {
    fragment.contains('=')
}

/// Applies a worker message to the runs.
fn apply(runs: &mut [RunData], message: FromWorker) {
    fn find(runs: &mut [RunData], id: u32) -> Option<&mut RunData> {
        runs.iter_mut().find(|r| r.id == id)
    }
    match message {
        FromWorker::Ready
        | FromWorker::WebGpu { .. }
        | FromWorker::Failed { run_id: None, .. }
        | FromWorker::Restored { .. }
        | FromWorker::Decision { .. } => {}
        FromWorker::Progress { runs: batches } => {
            for batch in batches {
                if let Some(run) = find(runs, batch.run_id) {
                    match batch.records.decode() {
                        Ok(records) => run.add(records),
                        Err(problem) => run.status = Status::Failed(format!("the worker sent {problem}")),
                    }
                }
            }
        }
        FromWorker::Paused { run_id, policy, .. } => {
            if let Some(run) = find(runs, run_id) {
                run.status = Status::Paused;
                run.policy = Some(*policy);
            }
        }
        FromWorker::Resumed { run_id } => {
            if let Some(run) = find(runs, run_id) {
                run.status = Status::Training;
            }
        }
        FromWorker::Finished(finished) => {
            if let Some(run) = find(runs, finished.run_id) {
                run.finish(finished);
            }
        }
        FromWorker::Failed { run_id: Some(run_id), message } => {
            if let Some(run) = find(runs, run_id) {
                run.status = Status::Failed(message);
            }
        }
    }
}

#[component]
fn App() -> impl IntoView {
    let (ready, set_ready) = signal(false);
    // The worker's WebGPU adapter, or why it has none; `None` while it is being brought up.
    let (webgpu, set_webgpu) = signal(None::<Result<String, String>>);
    let error = RwSignal::new(None::<String>);
    let runs = RwSignal::new(Vec::<RunData>::new());
    let selected = RwSignal::new(None::<u32>);
    let next_id = StoredValue::new(1u32);
    let fragment = window().location().hash().unwrap_or_default();
    let shared = is_share_fragment(&fragment);
    let (link, problems) = if shared { ShareLink::decode(&fragment) } else { (ShareLink::default(), Vec::new()) };
    if !problems.is_empty() {
        error
            .set(Some(format!("This link was not entirely valid, so defaults stand in for: {}.", problems.join("; "))));
    }
    // The form starts from the link, or else from the values of the last run started here.
    let form = RwSignal::new(shared.then(|| link.clone()));
    if !shared {
        leptos::task::spawn_local(async move {
            let stored = persist::load_form().await.map(|fragment| ShareLink::decode(&fragment).0);
            form.set(Some(stored.unwrap_or_default()));
        });
    }
    // A shared run starts as soon as the worker is ready.
    let pending = StoredValue::new(shared.then(|| link.spec.clone()));
    // Reading a link edited in the address bar is a fresh start; an in-page anchor is not a link.
    window_event_listener(leptos::ev::hashchange, |_| {
        if is_share_fragment(&window().location().hash().unwrap_or_default()) {
            drop(window().location().reload())
        }
    });

    let calls = StoredValue::new_local(Rc::new(WorkerCalls::default()));
    let on_message = move |message: FromWorker| {
        calls.with_value(|c| c.answer(&message));
        match &message {
            FromWorker::Ready => set_ready.set(true),
            FromWorker::WebGpu { adapter } => set_webgpu.set(Some(adapter.clone())),
            FromWorker::Failed { run_id, message } => error.set(Some(match run_id {
                Some(id) => format!("run #{id}: {message}"),
                None => message.clone(),
            })),
            _ => {}
        }
        runs.update(|runs| apply(runs, message));
    };
    let worker = match spawn_worker(on_message, move |problem| error.set(Some(problem))) {
        Ok(worker) => Some(worker),
        Err(problem) => {
            error.set(Some(problem));
            None
        }
    };
    let worker = StoredValue::new_local(worker);
    let send = move |message: ToWorker| {
        worker.with_value(|w| {
            let sent = w.as_ref().ok_or("the training worker is not running".to_owned()).and_then(|w| {
                w.post_message(&JsValue::from_str(&Envelope::encode(message))).map_err(|e| {
                    format!("the request could not be sent to the training worker: {}.", js_error::describe(&e))
                })
            });
            if let Err(problem) = sent {
                error.set(Some(problem));
            }
        })
    };

    let update_ready = RwSignal::new(false);
    offline::register(update_ready);
    let python = StoredValue::new_local(Python::new());
    let imported_tasks = RwSignal::new(Vec::<ImportedTask>::new());
    leptos::task::spawn_local(async move {
        match persist::load_tasks().await {
            Ok(tasks) => imported_tasks.set(tasks),
            Err(problem) => error.set(Some(problem)),
        }
    });
    let python_note = RwSignal::new(None::<String>);
    let start_run = move |spec: RunSpec, measured_verdicts: Option<Vec<MeasuredVerdict>>| {
        let id = next_id.get_value();
        next_id.set_value(id + 1);
        runs.update(|runs| runs.push(RunData::new(id, spec.clone())));
        selected.set(Some(id));
        send(ToWorker::Start { run_id: id, spec, measured_verdicts, resume: None });
    };
    let on_start = Callback::new(move |(spec, real_python): (RunSpec, bool)| {
        persist::save_form(ShareLink::of(spec.clone()).encode());
        if real_python {
            python_note.set(Some("Running every program of the executive tasks in Python…".into()));
            let python = python.get_value();
            measure_executive_verdicts(&python, move |measured| match measured {
                Ok((measured, note)) => {
                    python_note.set(Some(note));
                    start_run(spec.clone(), Some(measured));
                }
                Err(problem) => {
                    python_note.set(None);
                    error.set(Some(format!("The run did not start: {problem}")));
                }
            });
        } else {
            start_run(spec, None);
        }
    });
    let on_error = Callback::new(move |problem: Option<String>| error.set(problem));
    // Set once the runs kept in this browser are back, so that a shared run can look for itself.
    let restored = RwSignal::new(false);
    let link_note = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if ready.get()
            && restored.get()
            && let Some(spec) = pending.try_update_value(Option::take).flatten()
        {
            // Runs are deterministic: a reload of the link finds the run it trained (or is still
            // training, or can resume) instead of training a copy.
            match runs.with_untracked(|runs| runs.iter().find(|r| r.spec == spec).map(|r| r.id)) {
                Some(id) => {
                    selected.set(Some(id));
                    link_note
                        .set(Some(format!("This link's run is already here (#{id}), so it was not started again.")));
                }
                None => on_start.run((spec, false)),
            }
        }
    });
    let share_hidden = RwSignal::new(Vec::<Control>::new());
    let share_locked = RwSignal::new(Vec::<Control>::new());
    let share_url = RwSignal::new(None::<String>);
    let share_note = RwSignal::new(None::<String>);
    let on_share = Callback::new(move |id: u32| {
        let Some((spec, results)) = runs.with_untracked(|r| {
            let run = r.iter().find(|r| r.id == id)?;
            let finished = run.finished.as_deref();
            let table = finished.map_or(&[][..], |f| &f.policy.table[..]);
            Some((run.spec.clone(), SharedResults::of(&run.records, finished.map(|f| &f.greedy), table)))
        }) else {
            return;
        };
        let link = ShareLink {
            hidden: share_hidden.get_untracked(),
            locked: share_locked.get_untracked(),
            results,
            ..ShareLink::of(spec)
        };
        let (fragment, left_out) = link.encode_within_budget();
        let location = window().location();
        let base = format!("{}{}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default());
        let url = format!("{base}#{fragment}");
        copy_to_clipboard(&url);
        share_url.set(Some(url));
        share_note.set(left_out);
    });

    // Runs kept in this browser come back as they were; those that were training are interrupted and
    // offer to resume. Saving starts once they are back.
    leptos::task::spawn_local(async move {
        let mut kept = HashMap::new();
        match persist::restore().await {
            Ok((stored, problems)) => {
                runs.update(|runs| {
                    for mut stored in stored {
                        if runs.iter().any(|r| r.id == stored.run.id) {
                            // A run started before this one was read took its id: it is kept anew.
                            stored.run.renumber(next_id.get_value());
                        } else if let Some(state) = stored.kept {
                            kept.insert(stored.run.id, state);
                        }
                        next_id.set_value(next_id.get_value().max(stored.run.id + 1));
                        runs.push(stored.run);
                    }
                });
                if !problems.is_empty() {
                    error.set(Some(problems.join("; ")));
                }
            }
            Err(problem) => error.set(Some(problem)),
        }
        restored.set(true);
        persist::keep_saving(runs, kept, move |problem| error.set(Some(problem)));
    });
    let on_continue = Callback::new(move |id: u32| {
        let Some((spec, resume)) = runs.with_untracked(|runs| {
            let run = runs.iter().find(|r| r.id == id)?;
            let resume = Resume { episodes: run.records.len() as u32, fingerprint: fingerprint(&run.records) };
            Some((run.spec.clone(), resume))
        }) else {
            return;
        };
        runs.update(|runs| {
            if let Some(run) = runs.iter_mut().find(|r| r.id == id) {
                run.status = Status::Training;
            }
        });
        send(ToWorker::Start { run_id: id, spec, measured_verdicts: None, resume: Some(resume) });
    });

    // Runs read back from an exported JSON file join the table, with fresh ids.
    let on_import = Callback::new(move |(name, text): (String, Result<String, String>)| {
        match text.and_then(|text| parse_runs_json(&name, &text)) {
            Ok(imported) => {
                let mut last = None;
                runs.update(|runs| {
                    for run in imported {
                        let id = next_id.get_value();
                        next_id.set_value(id + 1);
                        runs.push(RunData::imported(id, run));
                        last = Some(id);
                    }
                });
                selected.set(last);
                error.set(None);
            }
            Err(problem) => error.set(Some(problem)),
        }
    });

    view! {
        <p id="update" class="banner" role="status" hidden=move || !update_ready.get()>
            "A new version of the playground is ready. "
            <button type="button" id="apply-update" on:click=|_| offline::apply_update()>"Reload to update"</button>
        </p>
        <header>
            <h1>"RL for LLM code generation"</h1>
            <p class="tagline">
                "Train agents that decide how to drive a code-writing LLM: when to generate, test, debug or search, "
                "and which agent to call next. Everything runs in your browser, in a background worker."
            </p>
        </header>
        <main>
            <section aria-labelledby="run-heading" class="panel">
                <h2 id="run-heading">"New run"</h2>
                {move || form.get().map(|initial| view! { <Controls initial=initial ready=ready webgpu=webgpu on_start=on_start on_error=on_error /> })}
                <p id="python-verdicts" role="status" hidden=move || python_note.get().is_none()>{move || python_note.get()}</p>
                <p id="link-note" role="status" hidden=move || link_note.get().is_none()>{move || link_note.get()}</p>
                <TeacherOptions hidden=share_hidden locked=share_locked />
                <p id="error" role="alert" class="error" hidden=move || error.get().is_none()>
                    {move || error.get()}
                    <button type="button" class="dismiss" aria-label="Dismiss the message" on:click=move |_| error.set(None)>"×"</button>
                </p>
            </section>
            <RunsTable runs=runs selected=selected send=send on_share=on_share on_import=on_import on_continue=on_continue />
            <div id="share" class="panel" hidden=move || share_url.get().is_none()>
                <label>"Link to this run (copied to the clipboard): it restores the form, shows the run's results so far and trains the same run again"
                    <input id="share-link" readonly prop:value=move || share_url.get().unwrap_or_default()
                        on:focus=move |ev| { if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { input.select() } } />
                </label>
                <p id="share-note" hidden=move || share_note.get().is_none()>{move || share_note.get()}</p>
            </div>
            {link.results.clone().map(|results| view! { <SharedResultsPanel spec=link.spec.clone() results=results runs=runs /> })}
            <MetricsPlot runs=runs on_error=on_error />
            <div class="columns">
                <TreeView runs=runs selected_run=selected />
                <PolicyPanel runs=runs selected_run=selected />
            </div>
            <PythonPane python=python.get_value() imported=imported_tasks />
            <LivePanel runs=runs imported=imported_tasks python=python.get_value() calls=calls send=send />
            <About />
        </main>
    }
}

#[component]
fn RunsTable(
    runs: RwSignal<Vec<RunData>>,
    selected: RwSignal<Option<u32>>,
    send: impl Fn(ToWorker) + Copy + Send + Sync + 'static,
    on_share: Callback<u32>,
    /// A chosen runs file: its name, and its text or why it could not be read.
    on_import: Callback<(String, Result<String, String>)>,
    /// Resume an interrupted run.
    on_continue: Callback<u32>,
) -> impl IntoView {
    // Rows are keyed by run and built once; only their texts and visibilities follow the run, so a
    // button is never replaced between a press and its release while progress streams in.
    let row = move |id: u32| {
        let live = Memo::new(move |_| {
            runs.with(|r| {
                r.iter().find(|r| r.id == id).map(|r| (r.status.clone(), r.records.len() as u32, r.success_last100()))
            })
        });
        let status = move || live.get().map(|l| l.0).unwrap_or(Status::Training);
        let done = move || live.get().map_or(0, |l| l.1);
        let (label, colour, total, shown) = runs.with_untracked(|r| {
            let run = r.iter().find(|r| r.id == id).expect("rows are made for existing runs");
            (run.label(), run.colour, run.spec.episodes, run.shown)
        });
        let failure = move || if let Status::Failed(message) = status() { message } else { String::new() };
        view! {
            <tr id=format!("run-{id}") class:selected=move || selected.get() == Some(id)>
                <td><input type="checkbox" class="show" aria-label=format!("Show run #{id} in the plot") prop:checked=shown
                    on:change=move |ev| { let shown = event_target_checked(&ev); runs.update(|r| if let Some(r) = r.iter_mut().find(|r| r.id == id) { r.shown = shown }) } />
                    <span class="swatch" style=format!("background: {}", css_colour(colour))></span></td>
                <td><button type="button" class="link select" on:click=move |_| selected.set(Some(id))>{label}</button></td>
                <td class="status" title=failure>{move || status().label().to_owned()}</td>
                <td><span class="done">{done}</span>" / "{total}<progress max=total value=done></progress></td>
                <td class="success">{move || percent(live.get().map_or(0.0, |l| l.2))}</td>
                <td class="actions">
                    <button type="button" class="pause" hidden=move || status() != Status::Training on:click=move |_| send(ToWorker::Pause { run_id: id })>"Pause"</button>
                    // A paused run is still in the worker; an interrupted one must be started again from its records.
                    <button type="button" class="resume" hidden=move || !matches!(status(), Status::Paused | Status::Interrupted)
                        on:click=move |_| if status() == Status::Interrupted { on_continue.run(id) } else { send(ToWorker::Resume { run_id: id }) }>"Resume"</button>
                    <button type="button" class="step" hidden=move || status() != Status::Paused title="Train one episode" on:click=move |_| send(ToWorker::Step { run_id: id })>"Step"</button>
                    <button type="button" class="stop" hidden=move || !matches!(status(), Status::Training | Status::Paused) title="End training now and evaluate"
                        on:click=move |_| send(ToWorker::Stop { run_id: id })>"Stop"</button>
                    <button type="button" class="share" title="Copy a link that trains this run again" on:click=move |_| on_share.run(id)>"Share"</button>
                    <button type="button" class="remove" aria-label=format!("Remove run #{id}") on:click=move |_| {
                        send(ToWorker::Discard { run_id: id });
                        runs.update(|r| r.retain(|r| r.id != id));
                        if selected.get_untracked() == Some(id) { selected.set(None) }
                    }>"Remove"</button>
                </td>
            </tr>
        }
    };
    let ids = move || runs.with(|r| r.iter().map(|r| r.id).collect::<Vec<_>>());
    view! {
        <section aria-labelledby="runs-heading" class="panel">
            <h2 id="runs-heading">"Runs"</h2>
            <label class="inline">"Import runs exported as JSON "
                <input type="file" id="import-runs" accept=".json,application/json" on:change=move |ev| {
                    if let Some(file) = upload::picked(&ev) {
                        upload::read_text(file, move |name, text| on_import.run((name, text)));
                    }
                } />
            </label>
            <p hidden=move || runs.with(|r| !r.is_empty())>"No runs yet: choose an environment and an agent above and press Train. Runs you start are kept here to compare."</p>
            <div class="scroll">
                <table id="runs" hidden=move || runs.with(|r| r.is_empty())>
                    <thead><tr><th scope="col">"Plot"</th><th scope="col">"Run"</th><th scope="col">"Status"</th><th scope="col">"Episodes"</th>
                        <th scope="col">"Success (last 100)"</th><th scope="col">"Control"</th></tr></thead>
                    <tbody><For each=ids key=|id| *id children=row /></tbody>
                </table>
            </div>
        </section>
    }
}

/// Runs every code variant of the executive tasks in Python; hands back the measured verdicts and a
/// note comparing them with the recorded ones, or why Python could not measure them.
fn measure_executive_verdicts(
    python: &Python,
    done: impl FnOnce(Result<(Vec<MeasuredVerdict>, String), String>) + 'static,
) {
    let programs = executive_programs();
    let requests = programs.iter().map(BundledProgram::request).collect();
    python.run_all(requests, DEFAULT_TIME_LIMIT_MS, move |results| {
        let verdicts: Result<Vec<_>, String> = results.into_iter().map(|r| r.map(|v| v.verdict())).collect();
        done(verdicts.map(|verdicts| {
            let total = programs.len();
            let differing: Vec<String> = programs
                .iter()
                .zip(&verdicts)
                .filter(|(p, v)| p.recorded != **v)
                .map(|(p, _)| format!("{} / {}", p.task_id, p.variant))
                .collect();
            let note = if differing.is_empty() {
                format!("Pyodide ran the {total} programs of the executive tasks: all {total} verdicts equal the recorded ones.")
            } else {
                format!("Pyodide ran the {total} programs of the executive tasks; these differ from the recorded verdicts, and the run uses Python's: {}.", differing.join(", "))
            };
            (programs.iter().zip(verdicts).map(|(p, v)| p.measured(v)).collect(), note)
        }));
    });
}

/// Copies `text`; a refusal (no permission, no secure context) leaves the link on screen to copy.
fn copy_to_clipboard(text: &str) {
    let ignore_refusal = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| {});
    let _ = window().navigator().clipboard().write_text(text).catch(&ignore_refusal);
    // The promise settles later; the (empty) handler must outlive this call.
    ignore_refusal.forget();
}

/// What a shared link hides or locks: for handing out a reduced demo.
#[component]
fn TeacherOptions(hidden: RwSignal<Vec<Control>>, locked: RwSignal<Vec<Control>>) -> impl IntoView {
    let toggles = move |list: RwSignal<Vec<Control>>, kind: &'static str| {
        Control::ALL
            .iter()
            .map(|&c| {
                view! {
                    <label class="inline">
                        <input type="checkbox" id=format!("{kind}-{}", c.name()) on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            list.update(|l| { l.retain(|x| *x != c); if on { l.push(c) } });
                        } />
                        {c.name()}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <details id="teacher">
            <summary>"Share options for teachers"</summary>
            <p class="hint">"Links made with the Share button of a run will hide or lock these controls, for a reduced demo."</p>
            <fieldset><legend>"Hide"</legend>{toggles(hidden, "hide")}</fieldset>
            <fieldset><legend>"Lock"</legend>{toggles(locked, "lock")}</fieldset>
        </details>
    }
}

/// Where each environment and agent comes from.
const SEEDS: [(&str, &str, &str); 4] = [
    (
        "seed-000",
        "Reinforcement-Learning-based Executive & Hierarchical Models for LLM Code Generation",
        "A. Hosseinpour, M. Vafapour, final project report, 2026: the executive and planner environments, the dueling double DQN with action masking, hierarchical inference.",
    ),
    (
        "seed-002",
        "StepCoder: Improve Code Generation with Reinforcement Learning from Compiler Feedback",
        "Dou et al., 2024 (arXiv:2402.01391): the reward classes of unit-test outcomes used by the Python harness.",
    ),
    (
        "seed-003",
        "Reinforcement Learning for Agentic Workflow Systems: Multi-Agent Code Generation Orchestration Using Q-Learning and Thompson Sampling",
        "N. Shetty, INFO 7375 project, 2025: the orchestrator environment, tabular Q-learning, Thompson sampling and the fixed-pipeline baseline.",
    ),
    (
        "seed-004",
        "Generating Code World Models with Large Language Models Guided by Monte Carlo Tree Search",
        "Dainese, Merler, Alakuijala, Marttinen, NeurIPS 2024 (arXiv:2405.15383): GIF-MCTS.",
    ),
];

/// The build's name, for bug reports: the commit and the content hash that the build wrote into the
/// page (`scripts/precache-list.mjs`; the content hash is also the offline cache's version).
fn build_version() -> String {
    let meta = |name: &str| {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(&format!("meta[name={name}]")).ok().flatten())
            .and_then(|m| m.get_attribute("content"))
    };
    match (meta("rlcg-commit"), meta("rlcg-content")) {
        (Some(commit), Some(content)) => format!("commit {commit}, content {content}"),
        _ => "not named: this page was built without the build hook".to_string(),
    }
}

#[component]
fn About() -> impl IntoView {
    view! {
        <section aria-labelledby="about-heading" class="panel about">
            <h2 id="about-heading">"Environments"</h2>
            <ul class="cards">
                {EnvId::ALL.iter().map(|e| view! {
                    <li><strong>{e.name()}</strong>" — "{e.summary()}" "<a href=format!("#{}", e.source())>"(source)"</a></li>
                }).collect_view()}
            </ul>
            <h2>"Agents"</h2>
            <ul class="cards">
                {AgentId::ALL.iter().map(|a| view! {
                    <li><strong>{a.name()}</strong>" — "{a.summary()}" "<a href=format!("#{}", a.source())>"(source)"</a></li>
                }).collect_view()}
            </ul>
            <h2>"Sources"</h2>
            <ol class="sources">
                {SEEDS.iter().map(|(id, title, note)| view! { <li id=*id><cite>{*title}</cite>". "{*note}</li> }).collect_view()}
            </ol>
            <h2>"This build"</h2>
            <p id="build-version">{build_version()}</p>
        </section>
    }
}
