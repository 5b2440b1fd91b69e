//! Keeping runs, imported tasks and the run form's values across reloads, in IndexedDB
//! (`static/store.js`). Every run (spec, status, results, episode records) is written about once a
//! second while it changes, and read back when the page opens. The episode tree is rebuilt from the
//! records. The agent is not stored, because a run is deterministic: resuming trains the recorded
//! episodes again (see `Run::resume`).

use std::collections::{HashMap, HashSet};

use engine::task_import::ImportedTask;
use gloo_timers::callback::Interval;
use leptos::prelude::*;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::js_error::describe;
use crate::model::{ImportedRun, RunData, run_json};

#[wasm_bindgen(module = "/static/store.js")]
extern "C" {
    #[wasm_bindgen(js_name = putRun)]
    fn put_run(id: u32, json: String) -> js_sys::Promise;
    #[wasm_bindgen(js_name = deleteRun)]
    fn delete_run(id: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = allRuns)]
    fn all_runs() -> js_sys::Promise;
    #[wasm_bindgen(js_name = putTasks)]
    fn put_tasks(json: String) -> js_sys::Promise;
    #[wasm_bindgen(js_name = getTasks)]
    fn get_tasks() -> js_sys::Promise;
    #[wasm_bindgen(js_name = putSetting)]
    fn put_setting(name: &str, value: String) -> js_sys::Promise;
    #[wasm_bindgen(js_name = getSetting)]
    fn get_setting(name: &str) -> js_sys::Promise;
}

/// The run form's last values, as a share-link fragment (none before the first run).
pub async fn load_form() -> Option<String> {
    JsFuture::from(get_setting(FORM)).await.ok()?.as_string()
}

/// Keeps the run form's values; losing them costs nothing but convenience, so failures are ignored.
pub fn save_form(fragment: String) {
    leptos::task::spawn_local(async move {
        let _ = JsFuture::from(put_setting(FORM, fragment)).await;
    });
}

const FORM: &str = "form";

/// The imported tasks kept in this browser (none before the first import).
pub async fn load_tasks() -> Result<Vec<ImportedTask>, String> {
    let stored = JsFuture::from(get_tasks())
        .await
        .map_err(|e| format!("the imported tasks could not be read from this browser's storage: {}.", describe(&e)))?;
    match stored.as_string() {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| format!("the imported tasks kept in this browser could not be read ({e}); import them again")),
    }
}

pub async fn save_tasks(tasks: &[ImportedTask]) -> Result<(), String> {
    let json = serde_json::to_string(tasks).expect("tasks serialise");
    let kib = json.len() / 1024;
    JsFuture::from(put_tasks(json)).await.map(drop).map_err(|e| {
        format!(
            "the browser refused to keep {kib} KiB of tasks ({}); they stay on this page until you close it.",
            describe(&e)
        )
    })
}

/// A stored run: an export of one run, with its id. (Its status comes back from what it holds: with
/// results it finished, without it was interrupted.)
#[derive(Deserialize)]
pub struct StoredRun {
    pub id: u32,
    #[serde(flatten)]
    pub run: ImportedRun,
}

/// Reads the stored runs; unreadable ones are reported, not fatal.
pub async fn restore() -> Result<(Vec<StoredRun>, Vec<String>), String> {
    let stored = JsFuture::from(all_runs())
        .await
        .map_err(|e| format!("the runs kept in this browser could not be read: {}.", describe(&e)))?;
    let mut runs = Vec::new();
    let mut problems = Vec::new();
    for value in js_sys::Array::from(&stored).iter() {
        let text = value.as_string().unwrap_or_default();
        match serde_json::from_str::<StoredRun>(&text) {
            Ok(run) => runs.push(run),
            Err(e) => problems.push(format!("a stored run could not be read ({e})")),
        }
    }
    runs.sort_by_key(|r| r.id);
    Ok((runs, problems))
}

/// Writes changed runs about once a second and forgets removed ones. A run the browser refuses to
/// keep (its storage is full, or private browsing allows none) is reported once through `on_error`
/// and not written again, so that the page does not spend itself retrying.
pub fn keep_saving(runs: RwSignal<Vec<RunData>>, on_error: impl Fn(String) + Clone + 'static) {
    // What was last written for each run: its number of records and its status.
    let saved = StoredValue::new_local(HashMap::<u32, (usize, String)>::new());
    let refused = StoredValue::new_local(HashSet::<u32>::new());
    Interval::new(1_000, move || {
        let mut writes = Vec::new();
        let mut deletes = Vec::new();
        runs.with_untracked(|runs| {
            saved.update_value(|saved| {
                for run in runs.iter().filter(|r| !refused.with_value(|refused| refused.contains(&r.id))) {
                    let state = (run.records.len(), run.status.label().to_owned());
                    if saved.get(&run.id) != Some(&state) {
                        writes.push((run.id, run_json(run)));
                        saved.insert(run.id, state);
                    }
                }
                saved.retain(|id, _| {
                    let kept = runs.iter().any(|r| r.id == *id);
                    if !kept {
                        deletes.push(*id);
                    }
                    kept
                });
            })
        });
        for (id, json) in writes {
            let on_error = on_error.clone();
            leptos::task::spawn_local(async move {
                if let Err(e) = JsFuture::from(put_run(id, json)).await {
                    refused.update_value(|refused| {
                        refused.insert(id);
                    });
                    on_error(format!(
                        "This browser refused to keep run #{id} ({}): it stays on this page until you close \
                         or reload it, and the runs kept before it are still kept.",
                        describe(&e)
                    ));
                }
            });
        }
        for id in deletes {
            leptos::task::spawn_local(async move {
                let _ = JsFuture::from(delete_run(id)).await;
            });
        }
    })
    .forget();
}
