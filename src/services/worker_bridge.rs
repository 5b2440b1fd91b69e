//! The page's link to the training worker: it starts the worker, applies what the worker reports
//! to the runs, and answers the requests that wait for a reply (a policy's decision, an agent
//! rebuilt, the engine's language model loaded, its reply streamed, its training's programs and
//! end). Components reach it through leptos context ([`WorkerBridge::provide`], then
//! `expect_context::<WorkerBridge>()`), not through their props.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use engine::device::Backend;
use engine::effects::LiveState;
use engine::protocol::{Envelope, FromWorker, GenerateRequest, ModelReply, ToWorker, TrainingEnd};
use engine::python::{ProgramRequest, ProgramVerdict};
use engine::run::{Restoration, Resume};
use engine::stepcoder::model_ppo::{ModelPpoSpec, PassAt1Point, UpdateRecord};
use futures_channel::{mpsc, oneshot};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::services::js_error;
use crate::services::model::{RunData, Status};

thread_local! {
    static PAGE_BRIDGE: Cell<Option<WorkerBridge>> = const { Cell::new(None) };
}

/// The training worker, shared by every component that talks to it.
#[derive(Clone, Copy)]
pub struct WorkerBridge {
    worker: StoredValue<Option<Worker>, LocalStorage>,
    calls: StoredValue<Rc<WorkerCalls>, LocalStorage>,
    /// Where the bridge reports what went wrong (the page's error line).
    error: RwSignal<Option<String>>,
}

impl WorkerBridge {
    /// Starts the worker and provides the bridge as context. Every message is applied to `runs`
    /// after `on_message` has seen it.
    pub fn provide(
        runs: RwSignal<Vec<RunData>>,
        error: RwSignal<Option<String>>,
        on_message: impl Fn(&FromWorker) + 'static,
    ) -> WorkerBridge {
        let calls = StoredValue::new_local(Rc::new(WorkerCalls::default()));
        let handle = move |message: FromWorker, file: Option<web_sys::Blob>| {
            calls.with_value(|c| c.answer(&message, file));
            on_message(&message);
            // A language model's messages (a piece of text a token) leave the runs untouched.
            if about_runs(&message) {
                runs.update(|runs| apply(runs, message));
            }
        };
        let worker = match spawn_worker(handle, move |problem| error.set(Some(problem))) {
            Ok(worker) => Some(worker),
            Err(problem) => {
                error.set(Some(problem));
                None
            }
        };
        let bridge = WorkerBridge { worker: StoredValue::new_local(worker), calls, error };
        provide_context(bridge);
        PAGE_BRIDGE.set(Some(bridge));
        bridge
    }

    /// The page's bridge, for services that run outside any component (a chat call of the
    /// engine's model, from the host's loop).
    pub fn of_page() -> Option<WorkerBridge> {
        PAGE_BRIDGE.get()
    }

    pub fn send(self, message: ToWorker) {
        if let Err(problem) = self.post(&JsValue::from_str(&Envelope::encode(message))) {
            self.error.set(Some(problem));
        }
    }

    fn post(self, data: &JsValue) -> Result<(), String> {
        self.worker.with_value(|w| {
            w.as_ref().ok_or("the training worker is not running".to_owned()).and_then(|w| {
                w.post_message(data).map_err(|e| {
                    format!("the request could not be sent to the training worker: {}.", js_error::describe(&e))
                })
            })
        })
    }

    /// Loads the GGUF `file` as the engine's language model `model_id` on `backend` in the worker:
    /// what the model is, or why it does not load.
    pub async fn load_model(
        self,
        model_id: u32,
        name: &str,
        backend: Backend,
        file: &web_sys::Blob,
    ) -> Result<String, String> {
        let (tx, rx) = oneshot::channel();
        self.calls.with_value(|c| c.loads.borrow_mut().insert(model_id, tx));
        let request = Envelope::encode(ToWorker::LoadModel { model_id, name: name.to_owned(), backend });
        self.post(&js_sys::Array::of2(&JsValue::from_str(&request), file))?;
        rx.await.unwrap_or_else(|_| Err("the training worker did not answer".into()))
    }

    /// Starts a reply of a loaded model (`request_id` is filled in): its pieces of text, then its
    /// end, come through the receiver. Dropping the receiver does not stop it: [`Self::stop_generation`] does.
    pub fn generate(self, mut request: GenerateRequest) -> (u32, mpsc::UnboundedReceiver<Generating>) {
        let (tx, rx) = mpsc::unbounded();
        let request_id = self.calls.with_value(|c| {
            let id = c.next_id();
            c.generations.borrow_mut().insert(id, tx);
            id
        });
        request.request_id = request_id;
        self.send(ToWorker::Generate(request));
        (request_id, rx)
    }

    pub fn stop_generation(self, request_id: u32) {
        self.send(ToWorker::StopGeneration { request_id });
    }

    /// Starts StepCoder's PPO on the GGUF `file` in the worker, on the first `tasks` (training,
    /// unseen) of the small code model's: what it reports, the programs it needs run and its end
    /// come through the receiver.
    pub fn train_model(
        self,
        name: &str,
        spec: ModelPpoSpec,
        (training_tasks, unseen_tasks): (usize, usize),
        file: &web_sys::Blob,
    ) -> Result<(u32, mpsc::UnboundedReceiver<TrainingReport>), String> {
        let (tx, rx) = mpsc::unbounded();
        let train_id = self.calls.with_value(|c| {
            let id = c.next_id();
            c.trainings.borrow_mut().insert(id, tx);
            id
        });
        let request = ToWorker::TrainModel { train_id, name: name.to_owned(), spec, training_tasks, unseen_tasks };
        self.post(&js_sys::Array::of2(&JsValue::from_str(&Envelope::encode(request)), file))?;
        Ok((train_id, rx))
    }

    /// The verdicts of the programs training `train_id` asked for.
    pub fn programs_ran(self, train_id: u32, result: Result<Vec<ProgramVerdict>, String>) {
        self.send(ToWorker::ProgramsRan { train_id, result });
    }

    pub fn stop_training(self, train_id: u32) {
        self.send(ToWorker::StopTraining { train_id });
    }

    pub fn pause_training(self, train_id: u32, paused: bool) {
        self.send(ToWorker::PauseTraining { train_id, paused });
    }

    /// The greedy action of run `run_id`'s policy in `state`.
    pub async fn decide(self, run_id: u32, state: LiveState) -> Result<usize, String> {
        let calls = self.calls.get_value();
        calls.decide(move |m| self.send(m), run_id, state).await
    }

    /// Rebuilds `run`'s agent in the worker (after a reload the worker no longer holds it).
    pub async fn restore(self, run: &RunData) -> Result<Restoration, String> {
        let calls = self.calls.get_value();
        calls.restore(move |m| self.send(m), run).await
    }
}

/// Starts the training worker; messages it sends arrive in `on_message`.
fn spawn_worker(
    on_message: impl Fn(FromWorker, Option<web_sys::Blob>) + 'static,
    on_error: impl Fn(String) + Clone + 'static,
) -> Result<Worker, String> {
    let worker = Worker::new("./worker_loader.js").map_err(|e| {
        format!("the training worker could not start: {}. Reload the page to try again.", js_error::describe(&e))
    })?;
    let report = on_error.clone();
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        // JSON text, or `[JSON text, Blob]` for a trained model.
        let data = event.data();
        let (text, file) = match data.dyn_ref::<js_sys::Array>() {
            Some(pair) => (pair.get(0).as_string(), pair.get(1).dyn_into::<web_sys::Blob>().ok()),
            None => (data.as_string(), None),
        };
        match Envelope::<FromWorker>::decode(&text.unwrap_or_default()) {
            Ok(message) => on_message(message, file),
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

/// What a language model's reply sends while it is written.
pub enum Generating {
    /// The next piece, and the tokens written so far.
    Text {
        text: String,
        tokens: u32,
    },
    Ended(Result<ModelReply, String>),
}

/// What a model's training sends while it goes on.
pub enum TrainingReport {
    Progress {
        doing: String,
        history: Vec<UpdateRecord>,
        measurements: Vec<PassAt1Point>,
    },
    /// Programs to run, each in an interpreter of its own, within `limit_ms` each.
    Programs {
        requests: Vec<ProgramRequest>,
        limit_ms: u32,
    },
    /// How it ended and the trained model's GGUF file, or why there is none.
    Ended(Result<(TrainingEnd, web_sys::Blob), String>),
}

/// The message changes the runs.
fn about_runs(message: &FromWorker) -> bool {
    matches!(
        message,
        FromWorker::Progress { .. }
            | FromWorker::Paused { .. }
            | FromWorker::Resumed { .. }
            | FromWorker::Finished(_)
            | FromWorker::Failed { run_id: Some(_), .. }
    )
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
        | FromWorker::Decision { .. }
        | FromWorker::ModelLoaded { .. }
        | FromWorker::Generated { .. }
        | FromWorker::GenerationEnded { .. }
        | FromWorker::Logits { .. }
        | FromWorker::TrainingProgress { .. }
        | FromWorker::ProgramsToRun { .. }
        | FromWorker::TrainingEnded { .. } => {}
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

/// Requests to the training worker that wait for an answer: decisions, agent rebuilds, and the
/// language models' loads and replies.
#[derive(Default)]
struct WorkerCalls {
    next_request: Cell<u32>,
    decisions: RefCell<HashMap<u32, oneshot::Sender<Result<usize, String>>>>,
    restores: RefCell<HashMap<u32, oneshot::Sender<Result<Restoration, String>>>>,
    loads: RefCell<HashMap<u32, oneshot::Sender<Result<String, String>>>>,
    generations: RefCell<HashMap<u32, mpsc::UnboundedSender<Generating>>>,
    trainings: RefCell<HashMap<u32, mpsc::UnboundedSender<TrainingReport>>>,
}

impl WorkerCalls {
    fn next_id(&self) -> u32 {
        let id = self.next_request.get() + 1;
        self.next_request.set(id);
        id
    }

    /// Hands a worker message (and the file beside it) to whoever waits for it.
    fn answer(&self, message: &FromWorker, file: Option<web_sys::Blob>) {
        match message {
            FromWorker::Decision { request_id, result } => {
                if let Some(waiting) = self.decisions.borrow_mut().remove(request_id) {
                    let _ = waiting.send(result.clone());
                }
            }
            FromWorker::Restored { run_id, result } => {
                if let Some(waiting) = self.restores.borrow_mut().remove(run_id) {
                    let _ = waiting.send(result.clone());
                }
            }
            FromWorker::ModelLoaded { model_id, result } => {
                if let Some(waiting) = self.loads.borrow_mut().remove(model_id) {
                    let _ = waiting.send(result.clone());
                }
            }
            FromWorker::Generated { request_id, text, tokens } => {
                if let Some(waiting) = self.generations.borrow().get(request_id) {
                    let _ = waiting.unbounded_send(Generating::Text { text: text.clone(), tokens: *tokens });
                }
            }
            FromWorker::GenerationEnded { request_id, result } => {
                if let Some(waiting) = self.generations.borrow_mut().remove(request_id) {
                    let _ = waiting.unbounded_send(Generating::Ended(result.clone()));
                }
            }
            FromWorker::TrainingProgress { train_id, doing, history, measurements } => {
                if let Some(waiting) = self.trainings.borrow().get(train_id) {
                    let (doing, history, measurements) = (doing.clone(), history.clone(), measurements.clone());
                    let _ = waiting.unbounded_send(TrainingReport::Progress { doing, history, measurements });
                }
            }
            FromWorker::ProgramsToRun { train_id, requests, limit_ms } => {
                if let Some(waiting) = self.trainings.borrow().get(train_id) {
                    let _ = waiting
                        .unbounded_send(TrainingReport::Programs { requests: requests.clone(), limit_ms: *limit_ms });
                }
            }
            FromWorker::TrainingEnded { train_id, result } => {
                if let Some(waiting) = self.trainings.borrow_mut().remove(train_id) {
                    let ended = result.clone().and_then(|end| {
                        file.map(|file| (end, file)).ok_or_else(|| "the trained model did not come".to_owned())
                    });
                    let _ = waiting.unbounded_send(TrainingReport::Ended(ended));
                }
            }
            _ => {}
        }
    }

    async fn decide(&self, send: impl Fn(ToWorker), run_id: u32, state: LiveState) -> Result<usize, String> {
        let request_id = self.next_id();
        let (tx, rx) = oneshot::channel();
        self.decisions.borrow_mut().insert(request_id, tx);
        send(ToWorker::Decide { request_id, run_id, state });
        rx.await.unwrap_or_else(|_| Err("the training worker did not answer".into()))
    }

    async fn restore(&self, send: impl Fn(ToWorker), run: &RunData) -> Result<Restoration, String> {
        let (tx, rx) = oneshot::channel();
        self.restores.borrow_mut().insert(run.id, tx);
        let resume = Resume { episodes: run.records.len() as u32, fingerprint: run.digest.value() };
        let checkpoint = run.finished.as_ref().and_then(|f| f.checkpoint.clone());
        send(ToWorker::Restore { run_id: run.id, spec: run.spec.clone(), resume, checkpoint });
        rx.await.unwrap_or_else(|_| Err("the training worker did not answer".into()))
    }
}
