//! The "New run" panel: the form (from a share link, or the last run started here), the start of
//! a run (measuring verdicts in Python first when asked), the shared run that a link starts, the
//! teacher's share options, and the page's error line.

use engine::device::GpuAdapter;
use engine::env::tasks::{BundledProgram, MeasuredVerdict};
use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::share::ShareLink;
use engine::{EnvId, RunSpec};
use leptos::prelude::*;

use crate::services::python_pool::Python;
use crate::services::run_book::RunBook;
use crate::services::storage;
use crate::train::controls::Controls;
use crate::train::share_panel::Sharing;
use crate::widgets::teacher_options::TeacherOptions;

#[component]
pub fn NewRunPanel(
    /// The share link the page was opened with, if it was.
    link: Option<ShareLink>,
    ready: ReadSignal<bool>,
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let book = expect_context::<RunBook>();
    // The form starts from the link, or else from the values of the last run started here.
    let form = RwSignal::new(link.clone());
    if link.is_none() {
        leptos::task::spawn_local(async move {
            let stored =
                storage::load_setting(storage::setting::FORM).await.map(|fragment| ShareLink::decode(&fragment).0);
            form.set(Some(stored.unwrap_or_default()));
        });
    }
    let python_note = RwSignal::new(None::<String>);
    // Callbacks are `Send`; the Python host is not, so it is held in a local store.
    let python = Python::from_context();
    let on_start = Callback::new(move |(spec, real_python): (RunSpec, bool)| {
        storage::save_setting(storage::setting::FORM, Some(ShareLink::of(spec.clone()).encode()));
        if !real_python {
            book.start(spec);
            return;
        }
        let env = spec.env.id();
        python_note.set(Some(format!("Running every program of the {} tasks in Python…", env.name())));
        measure_verdicts(&python.get_value(), env, move |measured| {
            let mut spec = spec.clone();
            match measured.and_then(|(measured, note)| spec.env.set_measured_verdicts(Some(measured)).map(|()| note)) {
                Ok(note) => {
                    python_note.set(Some(note));
                    book.start(spec);
                }
                Err(problem) => {
                    python_note.set(None);
                    error.set(Some(format!("The run did not start: {problem}")));
                }
            }
        });
    });
    let on_error = Callback::new(move |problem: Option<String>| error.set(problem));
    let teacher = expect_context::<Sharing>().teacher;

    // A shared run starts once the worker is ready and the kept runs are back: runs are
    // deterministic, so a reload of the link finds the run it trained (or is still training, or
    // can resume) instead of training a copy.
    let pending = StoredValue::new(link.map(|l| l.spec));
    let link_note = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if ready.get()
            && book.restored.get()
            && let Some(spec) = pending.try_update_value(Option::take).flatten()
        {
            match book.find(&spec) {
                Some(id) => {
                    book.selected.set(Some(id));
                    link_note
                        .set(Some(format!("This link's run is already here (#{id}), so it was not started again.")));
                }
                None => on_start.run((spec, false)),
            }
        }
    });

    view! {
        <section aria-labelledby="run-heading" class="panel" id="train">
            <h2 id="run-heading">"New run"</h2>
            {move || form.get().map(|initial| view! { <Controls initial=initial ready=ready webgpu=webgpu on_start=on_start on_error=on_error /> })}
            <p id="python-verdicts" role="status" hidden=move || python_note.get().is_none()>{move || python_note.get()}</p>
            <p id="link-note" role="status" hidden=move || link_note.get().is_none()>{move || link_note.get()}</p>
            <TeacherOptions choice=teacher prefix="" applies_to="Links made with a run's Share button" />
            <p id="error" role="alert" class="error" hidden=move || error.get().is_none()>
                {move || error.get()}
                <button type="button" class="dismiss" aria-label="Dismiss the message" on:click=move |_| error.set(None)>"×"</button>
            </p>
        </section>
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
