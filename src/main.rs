//! The playground page. Training happens in the worker (`worker/`); this thread only renders and
//! exchanges protocol messages with it, so the page never waits on a run.

mod about;
mod controls;
mod download;
mod editor;
mod frame;
mod host;
mod js_error;
mod live;
mod llm_client;
mod llm_settings;
mod model;
mod offline;
mod persist;
mod plot;
mod policy;
mod python;
mod runs_table;
mod shared_results;
mod teacher;
mod tree_view;
mod upload;
mod worker_bridge;

use engine::env::tasks::{BundledProgram, MeasuredVerdict};
use engine::protocol::{FromWorker, ToWorker};
use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::run::Resume;
use engine::share::{Control, ShareLink, SharedResults};
use engine::task_import::ImportedTask;
use engine::{EnvId, RunSpec};
use leptos::prelude::*;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;

use crate::about::About;
use crate::controls::Controls;
use crate::editor::PythonPane;
use crate::live::LivePanel;
use crate::llm_settings::LlmChoice;
use crate::model::{RunData, Status, parse_runs_json};
use crate::plot::MetricsPlot;
use crate::policy::PolicyPanel;
use crate::python::Python;
use crate::runs_table::RunsTable;
use crate::shared_results::SharedResultsPanel;
use crate::teacher::TeacherOptions;
use crate::tree_view::TreeView;
use crate::worker_bridge::WorkerBridge;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// A share link's fragment holds `key=value` pairs; one without is an in-page anchor (`#seed-000`).
fn is_share_fragment(fragment: &str) -> bool {
    fragment.contains('=')
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
            let stored =
                persist::load_setting(persist::setting::FORM).await.map(|fragment| ShareLink::decode(&fragment).0);
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

    let bridge = WorkerBridge::provide(runs, error, move |message| match message {
        FromWorker::Ready => set_ready.set(true),
        FromWorker::WebGpu { adapter } => set_webgpu.set(Some(adapter.clone())),
        FromWorker::Failed { run_id, message } => error.set(Some(match run_id {
            Some(id) => format!("run #{id}: {message}"),
            None => message.clone(),
        })),
        _ => {}
    });
    let send = move |message: ToWorker| bridge.send(message);
    LlmChoice::provide();

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
    let start_run = move |spec: RunSpec| {
        let id = next_id.get_value();
        next_id.set_value(id + 1);
        runs.update(|runs| runs.push(RunData::new(id, spec.clone())));
        selected.set(Some(id));
        send(ToWorker::Start { run_id: id, spec, resume: None });
    };
    let on_start = Callback::new(move |(spec, real_python): (RunSpec, bool)| {
        persist::save_setting(persist::setting::FORM, Some(ShareLink::of(spec.clone()).encode()));
        if real_python {
            let env = spec.env.id();
            python_note.set(Some(format!("Running every program of the {} tasks in Python…", env.name())));
            let python = python.get_value();
            measure_verdicts(&python, env, move |measured| {
                let mut spec = spec.clone();
                match measured
                    .and_then(|(measured, note)| spec.env.set_measured_verdicts(Some(measured)).map(|()| note))
                {
                    Ok(note) => {
                        python_note.set(Some(note));
                        start_run(spec);
                    }
                    Err(problem) => {
                        python_note.set(None);
                        error.set(Some(format!("The run did not start: {problem}")));
                    }
                }
            });
        } else {
            start_run(spec);
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
            let resume = Resume { episodes: run.records.len() as u32, fingerprint: run.digest.value() };
            Some((run.spec.clone(), resume))
        }) else {
            return;
        };
        runs.update(|runs| {
            if let Some(run) = runs.iter_mut().find(|r| r.id == id) {
                run.status = Status::Training;
            }
        });
        send(ToWorker::Start { run_id: id, spec, resume: Some(resume) });
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
            <RunsTable runs=runs selected=selected on_share=on_share on_import=on_import on_continue=on_continue />
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
            <LivePanel runs=runs imported=imported_tasks python=python.get_value() />
            <About />
        </main>
    }
}

/// Runs every program whose recorded verdict `env`'s test actions use in Python; hands back the
/// measured verdicts and a note comparing them with the recorded ones, or why Python could not
/// measure them.
fn measure_verdicts(
    python: &Python,
    env: EnvId,
    done: impl FnOnce(Result<(Vec<MeasuredVerdict>, String), String>) + 'static,
) {
    let programs = env.measured_programs();
    let tasks = format!("the {} tasks", env.name());
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
                format!("Pyodide ran the {total} programs of {tasks}: all {total} verdicts equal the recorded ones.")
            } else {
                format!("Pyodide ran the {total} programs of {tasks}; these differ from the recorded verdicts, and the run uses Python's: {}.", differing.join(", "))
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
