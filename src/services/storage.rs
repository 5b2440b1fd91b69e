//! Keeping runs, program searches, imported tasks and settings (the run form's values, the LLM's endpoint, the
//! prompts, StepCoder's ablation reports) across reloads, all in one IndexedDB (`static/store.js`). The one exception is the API
//! key a user asks to remember (`llm_settings.rs`): it stays in `localStorage`, which no worker can
//! read, while IndexedDB is open to every worker of the origin, the Python ones included. A run is a small JSON description (spec, results, the trained agent's
//! checkpoint) and its episode records, appended as it trains in chunks of a thousand (`RecordRows`), so
//! that keeping a run costs what it adds, not what it holds. Both are read back when the page
//! opens, and the episode tree is rebuilt from the records. A run that was still training comes
//! back interrupted: it resumes by training its recorded episodes again (see `Run::resume`).

use std::collections::{HashMap, HashSet};

use engine::protocol::Finished;
use engine::record_rows::RecordRows;
use engine::search::record::SearchRecord;
use engine::task_import::ImportedTask;
use engine::{EpisodeRecord, RunSpec};
use gloo_timers::callback::Interval;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::services::js_error::describe;
use crate::services::model::{RunData, Status};

#[wasm_bindgen(module = "/static/store.js")]
extern "C" {
    #[wasm_bindgen(js_name = putRun)]
    fn put_run(id: u32, json: String, first: u32, chunks: js_sys::Array, fresh: bool) -> js_sys::Promise;
    #[wasm_bindgen(js_name = deleteRun)]
    fn delete_run(id: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = allRuns)]
    fn all_runs() -> js_sys::Promise;
    #[wasm_bindgen(js_name = runChunks)]
    fn run_chunks(id: u32, first: u32, count: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = putTasks)]
    fn put_tasks(json: String) -> js_sys::Promise;
    #[wasm_bindgen(js_name = getTasks)]
    fn get_tasks() -> js_sys::Promise;
    #[wasm_bindgen(js_name = putSetting)]
    fn put_setting(name: &str, value: String) -> js_sys::Promise;
    #[wasm_bindgen(js_name = getSetting)]
    fn get_setting(name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = deleteSetting)]
    fn delete_setting(name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = putSearch)]
    fn put_search(id: u32, json: String) -> js_sys::Promise;
    #[wasm_bindgen(js_name = deleteSearch)]
    fn delete_search(id: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = allSearches)]
    fn all_searches() -> js_sys::Promise;
}

/// The settings kept by name.
pub mod setting {
    /// The run form's last values, as a share-link fragment.
    pub const FORM: &str = "form";
    /// The LLM endpoint's settings (JSON).
    pub const LLM: &str = "llm-settings";
    /// The prompts, when edited (JSON).
    pub const PROMPTS: &str = "prompts";
    /// The StepCoder learner's finished ablations, newest first (JSON reports).
    pub const STEPCODER_ABLATIONS: &str = "stepcoder-ablations";
    /// The run selected in the runs table (its id), so that a reload shows the same run.
    pub const SELECTED_RUN: &str = "selected-run";
    /// The search shown in the Search pane (its number), so that a reload shows it again.
    pub const SHOWN_SEARCH: &str = "shown-search";
    /// The Cheating view's last measure: its line, link and cheats (JSON).
    pub const CHEAT_MEASURE: &str = "cheat-measure";
    /// The model training in the StepCoder pane: its spec and its programs' verdicts so far (JSON).
    pub const MODEL_TRAINING: &str = "model-training";
}

/// The setting `name` (none before it was first kept). A setting that an older page kept in
/// `localStorage` under `rlcg.<name>` is moved here, so that no setting is lost.
pub async fn load_setting(name: &'static str) -> Option<String> {
    let local = window().local_storage().ok().flatten();
    let legacy = format!("rlcg.{name}");
    if let Some(text) = JsFuture::from(get_setting(name)).await.ok().and_then(|v| v.as_string()) {
        // Moved already (a page that stopped between keeping it here and forgetting it there).
        if let Some(local) = &local {
            let _ = local.remove_item(&legacy);
        }
        return Some(text);
    }
    let local = local?;
    let text = local.get_item(&legacy).ok().flatten()?;
    if JsFuture::from(put_setting(name, text.clone())).await.is_ok() {
        let _ = local.remove_item(&legacy);
    }
    Some(text)
}

/// Keeps setting `name` (`None` forgets it) and resolves once the browser has committed it, so that
/// a page can say "saved" truthfully: a reload before the commit would lose the write.
pub async fn keep_setting(name: &'static str, text: Option<String>) -> Result<(), String> {
    let written = match text {
        Some(text) => JsFuture::from(put_setting(name, text)).await,
        None => JsFuture::from(delete_setting(name)).await,
    };
    written.map(drop).map_err(|e| format!("this browser refused to keep the {name}: {}", refusal(&e)))
}

/// [`keep_setting`] without waiting; losing such a setting costs nothing but convenience, so
/// failures are ignored.
pub fn save_setting(name: &'static str, text: Option<String>) {
    leptos::task::spawn_local(async move {
        let _ = keep_setting(name, text).await;
    });
}

/// The number kept under setting `name` (the selected run, the search shown), if any.
pub async fn load_number(name: &'static str) -> Option<u32> {
    load_setting(name).await.and_then(|text| text.parse().ok())
}

/// Keeps `chosen` under setting `name` each time it changes once `restored` is true: before that, its
/// first value would overwrite the one a reload must find.
pub fn keep_number(name: &'static str, chosen: RwSignal<Option<u32>>, restored: RwSignal<bool>) {
    Effect::new(move |_| {
        let chosen = chosen.get();
        if restored.get() {
            save_setting(name, chosen.map(|id| id.to_string()));
        }
    });
}

/// The tasks imported into this browser, for every pane (leptos context).
#[derive(Clone, Copy)]
pub struct ImportedTasks(pub RwSignal<Vec<ImportedTask>>);

impl ImportedTasks {
    /// Reads the kept tasks back and gives them to every pane; a refusal goes to `error`.
    pub fn provide(error: RwSignal<Option<String>>) {
        let imported = RwSignal::new(Vec::new());
        leptos::task::spawn_local(async move {
            match load_tasks().await {
                Ok(tasks) => imported.set(tasks),
                Err(problem) => error.set(Some(problem)),
            }
        });
        provide_context(Self(imported));
    }

    /// The imported tasks, from context.
    pub fn from_context() -> RwSignal<Vec<ImportedTask>> {
        expect_context::<Self>().0
    }
}

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
    let json = serde_json::to_string(tasks).map_err(|e| format!("the imported tasks could not be written: {e}"))?;
    let kib = json.len() / 1024;
    JsFuture::from(put_tasks(json)).await.map(drop).map_err(|e| {
        format!(
            "the browser refused to keep {kib} KiB of tasks ({}); they stay on this page until you close it.",
            describe(&e)
        )
    })
}

/// The program searches kept in this browser, by number; one that cannot be read is named in the
/// problems and left out.
pub async fn load_searches() -> (Vec<(u32, SearchRecord)>, Vec<String>) {
    let pairs = match JsFuture::from(all_searches()).await {
        Ok(pairs) => js_sys::Array::from(&pairs),
        Err(e) => return (Vec::new(), vec![format!("the kept searches could not be read: {}", describe(&e))]),
    };
    let mut problems = Vec::new();
    let searches = pairs
        .iter()
        .filter_map(|pair| {
            let pair = js_sys::Array::from(&pair);
            let id = pair.get(0).as_f64()? as u32;
            let record = serde_json::from_str(&pair.get(1).as_string()?);
            record
                .map_err(|e| problems.push(format!("kept search #{id} could not be read ({e})")))
                .ok()
                .map(|r| (id, r))
        })
        .collect();
    (searches, problems)
}

/// Keeps search `id`; a refusal is reported, and the search stays on the page.
pub async fn save_search(id: u32, record: &SearchRecord) -> Result<(), String> {
    let json = serde_json::to_string(record).map_err(|e| format!("search #{id} could not be written: {e}"))?;
    JsFuture::from(put_search(id, json)).await.map(drop).map_err(|e| {
        format!(
            "the browser refused to keep search #{id} ({}); it stays on this page until you close it.",
            describe(&e)
        )
    })
}

/// Forgets search `id`. It resolves once the browser has committed the deletion: a page closed or
/// reloaded before then would find the search kept again.
pub async fn forget_search(id: u32) -> Result<(), String> {
    JsFuture::from(delete_search(id))
        .await
        .map(drop)
        .map_err(|e| format!("the browser could not forget search #{id} ({}); it is still kept.", describe(&e)))
}

/// Episode records per stored chunk: a running run rewrites at most its last chunk, never the run.
const CHUNK: usize = 1000;
/// Chunks read and decoded between yields to the event loop when the page opens, so that reading
/// back a million-episode run never holds the main thread for long.
const CHUNKS_PER_SLICE: usize = 25;

/// A run as `runs` keeps it: everything but its records, which are in `records`, `episodes` of them.
#[derive(Serialize)]
struct Description<'a> {
    id: u32,
    spec: &'a RunSpec,
    finished: Option<&'a Finished>,
    episodes: usize,
}

/// A description read back.
#[derive(Deserialize)]
struct StoredDescription {
    id: u32,
    spec: RunSpec,
    #[serde(default)]
    finished: Option<Box<Finished>>,
    #[serde(default)]
    episodes: usize,
    /// Runs kept before records went into chunks held every record here.
    #[serde(default)]
    records: Vec<EpisodeRecord>,
}

/// What is kept of a run: its number of records, and whether its results are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kept {
    records: usize,
    finished: bool,
}

impl Kept {
    fn of(run: &RunData) -> Self {
        Self { records: run.records.len(), finished: run.finished.is_some() }
    }
}

/// A run read back, and what of it is kept (`None` when it must be written anew).
pub struct StoredRun {
    pub run: RunData,
    pub kept: Option<Kept>,
}

/// Reads the stored runs, a slice of chunks at a time; unreadable ones are reported, not fatal.
pub async fn restore() -> Result<(Vec<StoredRun>, Vec<String>), String> {
    let unreadable = |e: JsValue| format!("the runs kept in this browser could not be read: {}.", describe(&e));
    let stored = JsFuture::from(all_runs()).await.map_err(unreadable)?;
    let mut runs = Vec::new();
    let mut problems = Vec::new();
    for value in js_sys::Array::from(&stored).iter() {
        let text = value.as_string().unwrap_or_default();
        let description = match serde_json::from_str::<StoredDescription>(&text) {
            Ok(description) => description,
            Err(e) => {
                problems.push(format!("a stored run could not be read ({e}), so it was left out"));
                continue;
            }
        };
        let id = description.id;
        let mut run = RunData::new(id, description.spec);
        run.status = Status::Interrupted;
        let kept = if description.records.is_empty() {
            read_chunks(id, description.episodes, &mut run).await.map_err(unreadable)?;
            let whole = run.records.len() == description.episodes;
            if !whole {
                problems.push(format!(
                    "run #{id} kept {} of its {} episode records, so it comes back with those",
                    run.records.len(),
                    description.episodes
                ));
            }
            whole.then_some(Kept { records: run.records.len(), finished: description.finished.is_some() })
        } else {
            run.add(description.records);
            None
        };
        if let Some(finished) = description.finished {
            run.finish(finished);
        }
        runs.push(StoredRun { run, kept });
    }
    runs.sort_by_key(|r| r.run.id);
    Ok((runs, problems))
}

/// Adds to `run` the first `episodes` records of run `id`'s chunks, or the whole ones before the
/// first that is missing, unreadable or out of order. Chunks are read and decoded a slice at a time,
/// with a yield to the event loop between slices: handing the page a million-episode run's 41 MB
/// at once held its main thread for up to 150 ms.
async fn read_chunks(id: u32, episodes: usize, run: &mut RunData) -> Result<(), JsValue> {
    // Growing a vector of a million records copies it, all in one task.
    run.records.reserve_exact(episodes);
    let mut first = 0;
    while run.records.len() < episodes {
        let slice = js_sys::Array::from(&JsFuture::from(run_chunks(id, first, CHUNKS_PER_SLICE as u32)).await?);
        for chunk in slice.iter() {
            let rows = RecordRows::from_bytes(js_sys::Uint8Array::new(&chunk).to_vec());
            match rows.decode() {
                Ok(mut records) if records.first().is_some_and(|r| r.episode as usize == run.records.len()) => {
                    records.truncate(episodes - run.records.len());
                    run.add(records);
                }
                _ => return Ok(()),
            }
        }
        if slice.length() < CHUNKS_PER_SLICE as u32 {
            return Ok(());
        }
        first += CHUNKS_PER_SLICE as u32;
        TimeoutFuture::new(0).await;
    }
    Ok(())
}

/// Writes what changed of each run about once a second and forgets removed runs. Records are
/// appended: a tick writes the run's new chunks, and the last one again while it fills. `kept` is
/// what is already stored (from `restore`). A run the browser refuses to keep (its storage is full,
/// or private browsing allows none) is reported once through `on_error` and not written again, so
/// that the page does not spend itself retrying.
pub fn keep_saving(
    runs: RwSignal<Vec<RunData>>,
    kept: HashMap<u32, Kept>,
    on_error: impl Fn(String) + Clone + 'static,
) {
    let kept = StoredValue::new_local(kept);
    let refused = StoredValue::new_local(HashSet::<u32>::new());
    Interval::new(1_000, move || {
        let mut writes = Vec::new();
        let mut deletes = Vec::new();
        runs.with_untracked(|runs| {
            kept.update_value(|kept| {
                for run in runs.iter().filter(|r| !refused.with_value(|refused| refused.contains(&r.id))) {
                    let now = Kept::of(run);
                    let before = kept.get(&run.id).copied();
                    if before == Some(now) {
                        continue;
                    }
                    let first = before.map_or(0, |k| k.records / CHUNK);
                    let chunks = js_sys::Array::new();
                    for chunk in run.records[first * CHUNK..].chunks(CHUNK) {
                        chunks.push(&js_sys::Uint8Array::from(RecordRows::encode(chunk).bytes()));
                    }
                    let description = Description {
                        id: run.id,
                        spec: &run.spec,
                        finished: run.finished.as_deref(),
                        episodes: now.records,
                    };
                    let json = match serde_json::to_string(&description) {
                        Ok(json) => json,
                        Err(e) => {
                            // Reported once, like a refusal: the run stays on the page, unsaved.
                            refused.update_value(|refused| {
                                refused.insert(run.id);
                            });
                            on_error(format!("run #{} could not be kept in this browser: {e}", run.id));
                            continue;
                        }
                    };
                    writes.push((run.id, json, first as u32, chunks, before.is_none()));
                    kept.insert(run.id, now);
                }
                kept.retain(|id, _| {
                    let present = runs.iter().any(|r| r.id == *id);
                    if !present {
                        deletes.push(*id);
                    }
                    present
                });
            })
        });
        for (id, json, first, chunks, fresh) in writes {
            let on_error = on_error.clone();
            leptos::task::spawn_local(async move {
                if let Err(e) = JsFuture::from(put_run(id, json, first, chunks, fresh)).await {
                    refused.update_value(|refused| {
                        refused.insert(id);
                    });
                    on_error(format!(
                        "This browser refused to keep run #{id}: {}. The run stays on this page until you close or \
                         reload it (export it as JSON to keep it); the runs kept before it are still kept.",
                        refusal(&e)
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

/// Why the browser refused a write, in words: a full storage is the usual reason, and its
/// `QuotaExceededError` says nothing a user can act on.
fn refusal(error: &JsValue) -> String {
    if js_sys::Reflect::get(error, &"name".into()).ok().and_then(|n| n.as_string()).as_deref()
        == Some("QuotaExceededError")
    {
        "its storage for this site is full".to_owned()
    } else {
        describe(error)
    }
}
