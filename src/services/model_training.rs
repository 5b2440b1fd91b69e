//! StepCoder's PPO on a language model, from the page: the model's file (the small code model
//! that ships with the page, or a model this browser keeps for the in-tab provider) goes to the
//! training worker, which trains it (`worker/model_training.rs`); the page's Python runs the
//! programs the worker sends, each in an interpreter of its own, as the host does every batch of
//! a model's programs; the trained model is kept in this browser beside the in-tab provider's
//! other models, so live mode and the searches can use it.
//!
//! While it trains, this browser keeps the training's spec and the verdicts of each batch of its
//! programs ([`KeptTraining`]). A training stopped, or cut by a reload, resumes by training again
//! from the start, which the same build does exactly from the same seed, with each batch that is
//! the one recorded answered from the record instead of by Python: the model's own work is done
//! again, its programs are not run again. A training that ended in full can be shared by a link
//! with its spec and its records' fingerprint ([`TrainingLink`]), which the same build reproduces.

use engine::effects::PythonBatch;
use engine::llm::ProviderSettings;
use engine::protocol::TrainingEnd;
use engine::python::{ProgramRequest, ProgramVerdict};
use engine::share::training_link::{SMALL_MODEL_NAME, TrainingLink, fingerprint};
use engine::stepcoder::model_ppo::{ModelPpoSpec, PassAt1Point, UpdateRecord};
use futures_util::StreamExt;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::services::cancel::CancelToken;
use crate::services::host;
use crate::services::in_tab_llm;
use crate::services::js_error::describe;
use crate::services::python_pool::Python;
use crate::services::storage::{self, setting};
use crate::services::worker_bridge::{TrainingReport, WorkerBridge};

/// Where the page serves the small code model (`models/rlcg-coder.gguf`, made by
/// `scripts/code-model/make.py`).
pub const SMALL_MODEL: &str = "./models/rlcg-coder.gguf";
/// Its weights (F16, 6.9 MB): the crossover rule's measure of it.
pub const SMALL_MODEL_PARAMETERS: u64 = 3_400_000;

/// A training in the page: what it reports as it goes, and the model it left.
#[derive(Clone, Copy)]
pub struct TrainingView {
    pub doing: RwSignal<String>,
    pub history: RwSignal<Vec<UpdateRecord>>,
    pub measurements: RwSignal<Vec<PassAt1Point>>,
    /// A training is under way (its file being read, or training in the worker).
    pub busy: RwSignal<bool>,
    /// The training under way holds at its next step.
    pub paused: RwSignal<bool>,
    /// The last training that ended in full, as a link: its spec and its records' fingerprint.
    pub ended: RwSignal<Option<TrainingLink>>,
    /// The training under way, by its id in the worker.
    train_id: RwSignal<Option<u32>>,
    /// The in-tab address of the trained model once it is kept.
    pub trained: RwSignal<Option<String>>,
    pub problem: RwSignal<Option<String>>,
    /// Batches of programs answered from this browser's record of the training.
    pub replayed: RwSignal<usize>,
    /// A training this browser kept that can be resumed.
    pub resumable: RwSignal<Option<KeptTraining>>,
}

/// A training as this browser keeps it: what it trains, and each batch of programs it ran with
/// their verdicts, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptTraining {
    pub address: String,
    pub spec: ModelPpoSpec,
    /// The first tasks of each split that it trains and measures on (training, unseen).
    pub tasks: (usize, usize),
    pub batches: Vec<RanBatch>,
}

/// A batch of a training's programs and their verdicts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RanBatch {
    pub requests: Vec<ProgramRequest>,
    pub verdicts: Vec<ProgramVerdict>,
}

impl KeptTraining {
    /// The training this browser keeps, if any.
    pub async fn load() -> Option<KeptTraining> {
        serde_json::from_str(&storage::load_setting(setting::MODEL_TRAINING).await?).ok()
    }

    fn keep(&self) {
        storage::save_setting(setting::MODEL_TRAINING, serde_json::to_string(self).ok());
    }
}

/// The recorded verdicts of `requests`, when `record` has them as its next batch; after the first
/// batch that differs, none (the training has parted from the one recorded).
fn replay(
    record: &mut Option<std::vec::IntoIter<RanBatch>>,
    requests: &[ProgramRequest],
) -> Option<Vec<ProgramVerdict>> {
    let next = record.as_mut()?.next().filter(|batch| batch.requests == requests);
    if next.is_none() {
        *record = None;
    }
    next.map(|batch| batch.verdicts)
}

impl TrainingView {
    pub fn new() -> Self {
        Self {
            doing: RwSignal::new(String::new()),
            history: RwSignal::new(Vec::new()),
            measurements: RwSignal::new(Vec::new()),
            busy: RwSignal::new(false),
            paused: RwSignal::new(false),
            ended: RwSignal::new(None),
            train_id: RwSignal::new(None),
            trained: RwSignal::new(None),
            problem: RwSignal::new(None),
            replayed: RwSignal::new(0),
            resumable: RwSignal::new(None),
        }
    }
}

/// The model file at `address`: the small code model, or a kept in-tab model.
pub async fn model_file(address: &str) -> Result<web_sys::Blob, String> {
    if address != SMALL_MODEL {
        return in_tab_llm::kept_file(address).await?.ok_or_else(|| format!("{address} is not kept in this browser"));
    }
    let failed = |e: JsValue| format!("{SMALL_MODEL} could not be fetched: {}", describe(&e));
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(SMALL_MODEL)).await.map_err(failed)?.unchecked_into();
    if !response.ok() {
        return Err(format!("{SMALL_MODEL}: HTTP {}", response.status()));
    }
    let blob = JsFuture::from(response.blob().map_err(failed)?).await.map_err(failed)?;
    Ok(blob.unchecked_into())
}

/// Trains `training` (its model at its address, on its tasks) in the worker, runs its programs
/// (answering each recorded batch from the record), and keeps what it trained; `view` shows it
/// all. [`stop`] ends it early, its model as trained so far still kept and the training resumable.
pub async fn train(view: TrainingView, python: Python, training: KeptTraining, cancel: CancelToken) {
    view.busy.set(true);
    view.paused.set(false);
    view.ended.set(None);
    view.problem.set(None);
    view.trained.set(None);
    view.resumable.set(None);
    view.replayed.set(0);
    view.history.set(Vec::new());
    view.measurements.set(Vec::new());
    if let Err(problem) = trained(view, &python, training, &cancel).await {
        view.problem.set(Some(problem));
    }
    view.busy.set(false);
    view.paused.set(false);
    view.train_id.set(None);
}

async fn trained(
    view: TrainingView,
    python: &Python,
    training: KeptTraining,
    cancel: &CancelToken,
) -> Result<(), String> {
    let bridge = WorkerBridge::of_page().ok_or("the training worker is not running")?;
    let address = training.address.clone();
    view.doing.set(format!("reading {address}"));
    let file = model_file(&address).await?;
    let kept_name = trained_name(&address, &training.spec);
    let (train_id, mut reports) = bridge.train_model(&address, training.spec.clone(), training.tasks, &file)?;
    view.train_id.set(Some(train_id));
    // The record is kept whole while it is replayed, so that a reload then loses nothing.
    let mut record = Some(training.batches.clone().into_iter());
    let mut kept = training;
    let mut answered = 0;
    kept.keep();
    while let Some(report) = reports.next().await {
        match report {
            TrainingReport::Progress { doing, history, measurements } => {
                view.doing.set(doing);
                view.history.set(history);
                view.measurements.set(measurements);
            }
            TrainingReport::Programs { requests, limit_ms } => {
                let verdicts = match replay(&mut record, &requests) {
                    Some(verdicts) => {
                        view.replayed.update(|n| *n += 1);
                        Ok(verdicts)
                    }
                    None => {
                        let batch = PythonBatch::untrusted_programs(requests.clone()).with_limit(limit_ms);
                        host::run_batch(python, batch, cancel).await
                    }
                };
                if record.is_none()
                    && let Ok(verdicts) = &verdicts
                {
                    kept.batches.truncate(answered);
                    kept.batches.push(RanBatch { requests, verdicts: verdicts.clone() });
                    kept.keep();
                }
                answered += 1;
                bridge.programs_ran(train_id, verdicts);
            }
            TrainingReport::Ended(ended) => return keep(view, &kept_name, ended, kept).await,
        }
    }
    Err("the training worker stopped before the training ended".into())
}

/// Stops the training under way: the worker ends it at its next step, and `cancel` the programs
/// in flight.
pub fn stop(view: TrainingView, cancel: &CancelToken) {
    cancel.cancel();
    if let (Some(train_id), Some(bridge)) = (view.train_id.get_untracked(), WorkerBridge::of_page()) {
        bridge.stop_training(train_id);
    }
}

/// Holds the training under way at its next step (`paused`), or lets it go on.
pub fn pause(view: TrainingView, paused: bool) {
    if let (Some(train_id), Some(bridge)) = (view.train_id.get_untracked(), WorkerBridge::of_page()) {
        bridge.pause_training(train_id, paused);
        view.paused.set(paused);
    }
}

/// A model's name in a training's link: [`SMALL_MODEL_NAME`] for the small code model, else the
/// kept model's file name.
pub fn link_model_name(address: &str) -> String {
    if address == SMALL_MODEL {
        return SMALL_MODEL_NAME.to_owned();
    }
    address.split(['?', '#']).next().unwrap_or_default().rsplit('/').next().unwrap_or_default().to_owned()
}

/// Keeps the trained model in this browser as an in-tab model named `name`; a training that
/// ended early stays resumable, one that ended is forgotten.
async fn keep(
    view: TrainingView,
    name: &str,
    ended: Result<(TrainingEnd, web_sys::Blob), String>,
    training: KeptTraining,
) -> Result<(), String> {
    let (end, blob) = ended?;
    match end.early {
        Some(_) => view.resumable.set(Some(training)),
        None => {
            storage::save_setting(setting::MODEL_TRAINING, None);
            let records = fingerprint(&view.history.get_untracked(), &view.measurements.get_untracked());
            view.ended.set(Some(TrainingLink {
                model: link_model_name(&training.address),
                spec: training.spec,
                tasks: training.tasks,
                fingerprint: Some(records),
            }));
        }
    }
    let file = web_sys::File::new_with_blob_sequence(&js_sys::Array::of1(&blob), name).map_err(|e| describe(&e))?;
    let address = ProviderSettings::local_model_address(name);
    view.doing.set(format!("keeping the trained model ({:.1} MB) in this browser", end.bytes as f64 / 1e6));
    in_tab_llm::keep_local(&address, &file, &CancelToken::default(), |_, _| {}).await?;
    view.doing.set(match end.early {
        Some(why) => format!("ended early ({why}); the model as trained so far is kept as {address}"),
        None => format!("done; the trained model is kept as {address}"),
    });
    view.trained.set(Some(address));
    Ok(())
}

/// The trained model's file name: the model's, with the arm and the seed.
fn trained_name(address: &str, spec: &ModelPpoSpec) -> String {
    let model = ProviderSettings::model_from_file(address);
    format!("{model}-{}-seed{}.gguf", spec.arm.name(), spec.seed)
}

#[cfg(test)]
mod tests {
    use engine::stepcoder::learner_params::Arm;

    use super::*;

    #[test]
    fn recorded_batches_answer_until_the_training_parts_from_the_record() {
        use engine::python::Outcome;
        let batch = |code: &str| {
            let requests = vec![ProgramRequest::with_statements(code, &["assert f() == 1".to_owned()])];
            let verdicts = vec![ProgramVerdict::from_host(&requests[0], Outcome::Pass, String::new(), 1.0)];
            RanBatch { requests, verdicts }
        };
        let (first, second) = (batch("def f(): return 1"), batch("def f(): return 2"));
        let mut record = Some(vec![first.clone(), second.clone()].into_iter());
        assert_eq!(replay(&mut record, &first.requests), Some(first.verdicts));
        // A batch other than the recorded one ends the replay, for it and every batch after.
        assert_eq!(replay(&mut record, &batch("def f(): return 3").requests), None);
        assert!(record.is_none());
        assert_eq!(replay(&mut record, &second.requests), None);
        // A record used up ends it too.
        let mut record = Some(vec![second.clone()].into_iter());
        assert_eq!(replay(&mut record, &second.requests), Some(second.verdicts));
        assert_eq!(replay(&mut record, &second.requests), None);
    }

    #[test]
    fn a_link_names_the_small_model_small_and_a_kept_model_by_its_file() {
        assert_eq!(link_model_name(SMALL_MODEL), "small");
        assert_eq!(link_model_name("file:///my model.gguf"), "my model.gguf");
        assert_eq!(link_model_name("https://example.org/models/coder.gguf?download=1"), "coder.gguf");
    }

    #[test]
    fn the_trained_model_is_named_after_the_model_the_arm_and_the_seed() {
        let spec = ModelPpoSpec { arm: Arm::Vanilla, seed: 3, ..ModelPpoSpec::default() };
        assert_eq!(trained_name(SMALL_MODEL, &spec), "rlcg-coder-vanilla-seed3.gguf");
        assert_eq!(trained_name("file:///my model.gguf", &spec), "my model-vanilla-seed3.gguf");
    }
}
