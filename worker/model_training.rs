//! StepCoder's PPO on a language model in the training worker ([`ModelPpo`]): the worker performs
//! its own work (rollouts, updates, measuring replies; a step at a time, awaiting the device's
//! values, with the event loop let in between) and sends its programs to the page, whose Python
//! runs them (this worker has none) and answers with their verdicts. A training on WebGPU runs here
//! in the nested WebGPU worker, to which the CPU worker relays it (`relayed.rs`). Paused, a training
//! holds before its next step. At the end, cancelled or not, the model trained so far is written as
//! GGUF (F16, its adapters merged) and posted to the page beside the end.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::{Rc, Weak};

use engine::device::Backend;
use engine::effects::{Effectful, Need};
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::lm::quants::TensorType;
use engine::protocol::{Envelope, FromWorker, ToWorker, TrainingEnd};
use engine::python::ProgramVerdict;
use engine::stepcoder::coder_tasks::first_of_each_split;
use engine::stepcoder::model_ppo::{ModelPpo, ModelPpoSpec};
use futures_channel::oneshot;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use crate::page_link::{now, post, yield_to_event_loop};
use crate::trainer::{Trainer, webgpu_up};

/// Milliseconds between two progress messages while the work goes on.
const PROGRESS_MS: f64 = 250.0;

/// What the page asked to train.
struct TrainingRequest {
    train_id: u32,
    name: String,
    spec: ModelPpoSpec,
    training_tasks: usize,
    unseen_tasks: usize,
}

/// The trainings under way, shared with their tasks (which never hold them across an await).
#[derive(Clone)]
pub(crate) struct ModelTrainings {
    scope: DedicatedWorkerGlobalScope,
    held: Rc<RefCell<Held>>,
}

#[derive(Default)]
struct Held {
    /// Each training waiting for the page's verdicts, by id.
    awaiting: HashMap<u32, oneshot::Sender<Result<Vec<ProgramVerdict>, String>>>,
    /// Trainings asked to stop: they end at their next step.
    stopping: HashSet<u32>,
    /// Trainings asked to pause: they hold at their next step until they may go on.
    paused: HashSet<u32>,
    /// Each paused training's wait, ended when it may go on (or must stop).
    holding: HashMap<u32, oneshot::Sender<()>>,
}

impl ModelTrainings {
    pub(crate) fn new(scope: DedicatedWorkerGlobalScope) -> Self {
        Self { scope, held: Rc::default() }
    }

    /// Whether `request` is a training's.
    pub(crate) fn handles(request: &ToWorker) -> bool {
        matches!(
            request,
            ToWorker::TrainModel { .. }
                | ToWorker::ProgramsRan { .. }
                | ToWorker::StopTraining { .. }
                | ToWorker::PauseTraining { .. }
        )
    }

    /// Does what a training's `request` asks (a new training trains `file`); `trainer` says when
    /// this worker's WebGPU is up.
    pub(crate) fn handle(&self, request: ToWorker, file: Option<web_sys::Blob>, trainer: Weak<RefCell<Trainer>>) {
        match request {
            ToWorker::TrainModel { train_id, name, spec, training_tasks, unseen_tasks } => {
                self.start(TrainingRequest { train_id, name, spec, training_tasks, unseen_tasks }, file, trainer)
            }
            ToWorker::ProgramsRan { train_id, result } => self.programs_ran(train_id, result),
            ToWorker::StopTraining { train_id } => self.stop(train_id),
            ToWorker::PauseTraining { train_id, paused } => self.pause(train_id, paused),
            _ => {}
        }
    }

    /// Starts training the GGUF `file` as `request` says, in a task of its own.
    fn start(&self, request: TrainingRequest, file: Option<web_sys::Blob>, trainer: Weak<RefCell<Trainer>>) {
        match file {
            Some(file) => wasm_bindgen_futures::spawn_local(train(self.clone(), request, file, trainer)),
            None => {
                let result = Err(format!("{}: no file came with the request", request.name));
                post(&self.scope, FromWorker::TrainingEnded { train_id: request.train_id, result });
            }
        }
    }

    fn programs_ran(&self, train_id: u32, result: Result<Vec<ProgramVerdict>, String>) {
        if let Some(waiting) = self.held.borrow_mut().awaiting.remove(&train_id) {
            let _ = waiting.send(result);
        }
    }

    fn stop(&self, train_id: u32) {
        let mut held = self.held.borrow_mut();
        held.stopping.insert(train_id);
        // A training waiting for verdicts, or paused, stops now.
        if let Some(waiting) = held.awaiting.remove(&train_id) {
            let _ = waiting.send(Err("cancelled".into()));
        }
        if let Some(holding) = held.holding.remove(&train_id) {
            let _ = holding.send(());
        }
    }

    fn pause(&self, train_id: u32, paused: bool) {
        let mut held = self.held.borrow_mut();
        if paused {
            held.paused.insert(train_id);
        } else if held.paused.remove(&train_id)
            && let Some(holding) = held.holding.remove(&train_id)
        {
            let _ = holding.send(());
        }
    }

    /// Holds a training asked to pause until it may go on or must stop; says whether it held.
    async fn hold_if_paused(&self, train_id: u32) -> bool {
        let rx = {
            let mut held = self.held.borrow_mut();
            if !held.paused.contains(&train_id) || held.stopping.contains(&train_id) {
                return false;
            }
            let (tx, rx) = oneshot::channel();
            held.holding.insert(train_id, tx);
            rx
        };
        let _ = rx.await;
        true
    }

    fn asked_to_stop(&self, train_id: u32) -> bool {
        self.held.borrow_mut().stopping.remove(&train_id)
    }

    /// The verdicts of the programs the page's Python ran for `train_id`.
    async fn verdicts(&self, train_id: u32) -> Result<Vec<ProgramVerdict>, String> {
        let (tx, rx) = oneshot::channel();
        self.held.borrow_mut().awaiting.insert(train_id, tx);
        rx.await.unwrap_or_else(|_| Err("the page did not answer".into()))
    }
}

/// Reads the model and trains it until it is done or stopped; then posts the trained model.
async fn train(
    trainings: ModelTrainings,
    request: TrainingRequest,
    file: web_sys::Blob,
    trainer: Weak<RefCell<Trainer>>,
) {
    let scope = trainings.scope.clone();
    let train_id = request.train_id;
    let mut training = match begin(&request, file, &trainer).await {
        Ok(training) => training,
        Err(problem) => {
            let result = Err(format!("{}: {problem}", request.name));
            return post(&scope, FromWorker::TrainingEnded { train_id, result });
        }
    };
    let started = now(&scope);
    let mut last_progress = f64::NEG_INFINITY;
    loop {
        if trainings.held.borrow().paused.contains(&train_id) {
            send_progress(&scope, train_id, &training, Some("paused"));
            if trainings.hold_if_paused(train_id).await {
                last_progress = f64::NEG_INFINITY;
            }
        }
        if trainings.asked_to_stop(train_id) {
            training.end("cancelled", now(&scope) - started);
        }
        if now(&scope) - last_progress >= PROGRESS_MS || training.is_done() {
            send_progress(&scope, train_id, &training, None);
            last_progress = now(&scope);
        }
        match training.need() {
            Need::Done => break,
            Need::Compute => {
                training.compute_async(now(&scope) - started).await;
                yield_to_event_loop().await;
            }
            Need::Python(batch) => {
                let (requests, limit_ms) = (batch.requests.clone(), batch.limit_ms);
                post(&scope, FromWorker::ProgramsToRun { train_id, requests, limit_ms });
                match trainings.verdicts(train_id).await {
                    Ok(verdicts) => training.python_done(verdicts, now(&scope) - started),
                    Err(problem) => training.end(&problem, now(&scope) - started),
                }
            }
            Need::Chat(_) | Need::Decide(_) => training.end("StepCoder's training asked for an LLM or a policy", 0.0),
        }
    }
    trainings.held.borrow_mut().paused.remove(&train_id);
    send_progress(&scope, train_id, &training, None);
    match training.model().to_gguf_async(TensorType::F16).await {
        Ok(file) => {
            let end = TrainingEnd { early: training.error.clone(), bytes: file.len() as u64 };
            post_ended(&scope, train_id, end, &file);
        }
        Err(problem) => {
            let result = Err(format!("the trained model could not be read back from the device: {problem}"));
            post(&scope, FromWorker::TrainingEnded { train_id, result });
        }
    }
}

/// The training of the file's model on the chosen tasks, on its spec's backend, or why it cannot
/// start.
async fn begin(
    request: &TrainingRequest,
    file: web_sys::Blob,
    trainer: &Weak<RefCell<Trainer>>,
) -> Result<ModelPpo, String> {
    let backend = request.spec.backend;
    if backend == Backend::Wgpu {
        webgpu_up(trainer)
            .await
            .map_err(|why| format!("this browser offers no WebGPU ({why}); train it on the CPU"))?;
    }
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|error| format!("the file could not be read in the worker: {error:?}"))?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    let model = LanguageModel::load(&bytes, &backend.device()?, Numerics::F32)?;
    let tasks = first_of_each_split(request.training_tasks, request.unseen_tasks)?;
    ModelPpo::new(model, tasks, request.spec.clone())
}

/// Tells the page how `training` stands; `held` says why it waits, before what it does next.
fn send_progress(scope: &DedicatedWorkerGlobalScope, train_id: u32, training: &ModelPpo, held: Option<&str>) {
    let doing = match held {
        Some(why) => format!("{why}, before {}", training.doing()),
        None => training.doing(),
    };
    post(
        scope,
        FromWorker::TrainingProgress {
            train_id,
            doing,
            history: training.history.clone(),
            measurements: training.measurements.clone(),
        },
    );
}

/// Posts the end with the trained model's `file` beside it, as a Blob (`[JSON text, Blob]`), or
/// why it could not be sent.
fn post_ended(scope: &DedicatedWorkerGlobalScope, train_id: u32, end: TrainingEnd, file: &[u8]) {
    let message = FromWorker::TrainingEnded { train_id, result: Ok(end) };
    let bytes = js_sys::Array::of1(&js_sys::Uint8Array::from(file));
    let sent = web_sys::Blob::new_with_u8_array_sequence(&bytes).and_then(|blob| {
        scope.post_message(&js_sys::Array::of2(&JsValue::from_str(&Envelope::encode(message)), &blob))
    });
    if let Err(error) = sent {
        let result = Err(format!("the trained model could not be sent to the page: {error:?}"));
        post(scope, FromWorker::TrainingEnded { train_id, result });
    }
}
