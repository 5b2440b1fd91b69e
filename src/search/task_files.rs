//! Task files: importing HumanEval JSONL and APPS JSON (a file with any bad line imports nothing,
//! and every problem is named), keeping the tasks in this browser, and running every imported
//! reference solution.

use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::task_import::{ImportedTask, parse_task_file};
use leptos::prelude::*;

use crate::services::python_pool::Python;
use crate::services::storage::{self, ImportedTasks};
use crate::widgets::upload;

#[component]
pub fn TaskImport(
    /// The pane's error line.
    problem: RwSignal<Option<String>>,
) -> impl IntoView {
    let (python, imported) = (Python::from_context(), ImportedTasks::from_context());
    let import_message = RwSignal::new(None::<String>);
    let import_errors = RwSignal::new(Vec::<String>::new());
    let check_summary = RwSignal::new(None::<String>);

    let import_file = move |file: web_sys::File| {
        import_message.set(Some(format!("Reading {}…", file.name())));
        import_errors.set(Vec::new());
        upload::read_text(file, move |name, text| {
            let text = match text {
                Ok(text) => text,
                Err(problem) => return import_message.set(Some(problem)),
            };
            match parse_task_file(&name, &text) {
                Ok(tasks) => {
                    let count = tasks.len();
                    let mut all = imported.get_untracked();
                    all.retain(|t| !tasks.iter().any(|n| n.id == t.id));
                    all.extend(tasks);
                    leptos::task::spawn_local(async move {
                        match storage::save_tasks(&all).await {
                            Ok(()) => {
                                imported.set(all);
                                import_message.set(Some(format!(
                                    "Imported {count} tasks from {name}; they are kept in this browser."
                                )));
                            }
                            Err(e) => import_message.set(Some(format!("{name} was read but not imported: {e}"))),
                        }
                    });
                }
                Err(errors) => {
                    import_message.set(Some(format!("Nothing was imported from {name}: {} problem(s).", errors.len())));
                    import_errors.set(errors.iter().take(50).map(|e| format!("{name}: {e}")).collect());
                }
            }
        });
    };
    let on_pick = move |ev: leptos::ev::Event| {
        if let Some(file) = upload::picked(&ev) {
            import_file(file);
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            import_file(file);
        }
    };
    let check_all = move |_| {
        let tasks = imported.get_untracked();
        if tasks.is_empty() {
            return check_summary.set(Some("Import a task file first.".into()));
        }
        let total = tasks.len();
        let started = js_sys::Date::now();
        check_summary.set(Some(format!("Checking {total} reference solutions…")));
        let requests = tasks.iter().map(ImportedTask::reference_request).collect();
        python.with_value(|python| {
            python.run_all(requests, DEFAULT_TIME_LIMIT_MS, move |results| {
                let verdicts: Vec<_> = results.into_iter().flatten().collect();
                let passed = verdicts.iter().filter(|v| v.passed).count();
                let python_ms: f64 = verdicts.iter().map(|v| v.duration_ms).sum();
                let wall = (js_sys::Date::now() - started) / 1000.0;
                check_summary.set(Some(format!(
                    "{passed}/{total} reference solutions pass; {wall:.2} s in all, {python_ms:.1} ms inside Python."
                )));
            })
        });
    };

    view! {
        <details id="import" on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=on_drop>
            <summary>"Import tasks (HumanEval JSONL, APPS JSON)"</summary>
            <p class="hint">"Choose or drop a file. HumanEval lines need task_id, prompt, canonical_solution, test and entry_point; APPS objects need a problem, inputs and outputs (and fn_name for call-based problems). A file with any bad line is not imported."</p>
            <label>"Task file "<input type="file" id="import-tasks" accept=".jsonl,.json,application/json" on:change=on_pick /></label>
            <p id="import-message" role="status">{move || import_message.get()}</p>
            <ul id="import-errors" class="error">{move || import_errors.get().into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
            <p>{move || format!("{} imported tasks kept in this browser.", imported.with(Vec::len))}</p>
            <button type="button" id="check-tasks" on:click=check_all>"Run every imported reference solution"</button>
            <button type="button" id="forget-tasks" on:click=move |_| {
                // The count drops once the browser has forgotten them, so that they never come back on a reload.
                leptos::task::spawn_local(async move {
                    match storage::save_tasks(&[]).await {
                        Ok(()) => imported.set(Vec::new()),
                        Err(e) => problem.set(Some(e)),
                    }
                });
            }>"Forget imported tasks"</button>
            <p id="check-summary" role="status">{move || check_summary.get()}</p>
        </details>
    }
}
