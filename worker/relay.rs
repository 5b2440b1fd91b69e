//! Runs on WebGPU train in a nested worker built with burn's Wgpu backend (`webgpu_worker`), which
//! this worker starts when the first such run (or language model, or model training, on WebGPU)
//! comes and relays to: most visitors never download it.

use std::collections::HashSet;
use std::rc::Rc;

use engine::device::Backend;
use engine::protocol::{Envelope, FromWorker, ToWorker};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, MessageEvent, Worker};

use crate::js_error::describe;

const NESTED_WORKER: &str = "./webgpu_worker_loader.js";

/// The nested worker, with the handlers that must live as long as it.
struct Nested {
    worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

/// What the nested worker's owner does with its messages (JSON text, or `[JSON text, Blob]` for a
/// trained model) and with its crash (why).
pub struct RelayEvents {
    pub on_message: Rc<dyn Fn(JsValue)>,
    pub on_crash: Rc<dyn Fn(String)>,
}

pub struct Relay {
    events: RelayEvents,
    /// The nested worker, once started.
    nested: Option<Nested>,
    ready: bool,
    /// Requests that came before the nested worker was ready, with the model file a load carries.
    queue: Vec<(ToWorker, Option<web_sys::Blob>)>,
    /// The runs the nested worker holds.
    runs: HashSet<u32>,
    /// The language models it holds or is loading, the loads, replies and logits it owes.
    models: HashSet<u32>,
    loading: HashSet<u32>,
    replies: HashSet<u32>,
    logits: HashSet<u32>,
    /// The model trainings it runs.
    trainings: HashSet<u32>,
}

impl Relay {
    pub fn new(events: RelayEvents) -> Self {
        Self {
            events,
            nested: None,
            ready: false,
            queue: Vec::new(),
            runs: HashSet::new(),
            models: HashSet::new(),
            loading: HashSet::new(),
            replies: HashSet::new(),
            logits: HashSet::new(),
            trainings: HashSet::new(),
        }
    }

    /// Whether `request` is the nested worker's: it builds a run on WebGPU, or concerns one, or a
    /// language model loaded there.
    pub fn claims(&mut self, request: &ToWorker) -> bool {
        let run_id = match request {
            ToWorker::Start { run_id, spec, .. } | ToWorker::Restore { run_id, spec, .. } => {
                let on_gpu = spec.backend == Backend::Wgpu;
                if on_gpu {
                    self.runs.insert(*run_id);
                }
                return on_gpu;
            }
            ToWorker::Pause { run_id }
            | ToWorker::Resume { run_id }
            | ToWorker::Step { run_id }
            | ToWorker::Pace { run_id, .. }
            | ToWorker::Stop { run_id }
            | ToWorker::Discard { run_id }
            | ToWorker::Decide { run_id, .. } => run_id,
            // A load comes with its file (`send_model`), never alone; trainings are relayed with
            // theirs (`Trainer::relay_training`).
            ToWorker::LoadModel { .. }
            | ToWorker::TrainModel { .. }
            | ToWorker::ProgramsRan { .. }
            | ToWorker::StopTraining { .. }
            | ToWorker::PauseTraining { .. } => return false,
            ToWorker::Generate(request) => {
                let nested = self.models.contains(&request.model_id);
                if nested {
                    self.replies.insert(request.request_id);
                }
                return nested;
            }
            ToWorker::NextLogits { request_id, model_id, .. } => {
                let nested = self.models.contains(model_id);
                if nested {
                    self.logits.insert(*request_id);
                }
                return nested;
            }
            ToWorker::StopGeneration { request_id } => return self.replies.contains(request_id),
        };
        self.runs.contains(run_id)
    }

    pub fn send(&mut self, request: ToWorker, scope: &DedicatedWorkerGlobalScope) {
        if let ToWorker::Discard { run_id } = &request {
            self.runs.remove(run_id);
        }
        self.send_with(request, None, scope);
    }

    /// Has the nested worker load the model `file` as language model `model_id` on WebGPU.
    pub fn send_model(&mut self, model_id: u32, name: &str, file: web_sys::Blob, scope: &DedicatedWorkerGlobalScope) {
        self.models.insert(model_id);
        self.loading.insert(model_id);
        let request = ToWorker::LoadModel { model_id, name: name.to_owned(), backend: Backend::Wgpu };
        self.send_with(request, Some(file), scope);
    }

    /// Model `model_id` is loaded elsewhere now: its requests stay here.
    pub fn forget_model(&mut self, model_id: u32) {
        self.models.remove(&model_id);
    }

    pub fn send_with(&mut self, request: ToWorker, file: Option<web_sys::Blob>, scope: &DedicatedWorkerGlobalScope) {
        match &self.nested {
            Some(nested) if self.ready => post(&nested.worker, request, file.as_ref(), scope),
            Some(_) => self.queue.push((request, file)),
            None => {
                self.queue.push((request, file));
                if let Err(problem) = self.start() {
                    self.fail_all(&problem, scope);
                }
            }
        }
    }

    fn start(&mut self) -> Result<(), String> {
        let worker = Worker::new(NESTED_WORKER)
            .map_err(|e| format!("the WebGPU training worker could not start: {}", describe(&e)))?;
        let on_text = self.events.on_message.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| on_text(event.data()));
        let on_crash = self.events.on_crash.clone();
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
            on_crash(format!("the WebGPU training worker failed: {}", event.message()));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.nested = Some(Nested { worker, _on_message: on_message, _on_error: on_error });
        self.ready = false;
        Ok(())
    }

    /// Whether a training's request is the nested worker's: a training on WebGPU, and the page's
    /// answers to it.
    pub fn claims_training(&mut self, request: &ToWorker) -> bool {
        match request {
            ToWorker::TrainModel { train_id, spec, .. } if spec.backend == Backend::Wgpu => {
                self.trainings.insert(*train_id);
                true
            }
            ToWorker::ProgramsRan { train_id, .. }
            | ToWorker::StopTraining { train_id }
            | ToWorker::PauseTraining { train_id, .. } => self.trainings.contains(train_id),
            _ => false,
        }
    }

    /// Training `train_id` stays in this worker after all.
    pub fn forget_training(&mut self, train_id: u32) {
        self.trainings.remove(&train_id);
    }

    /// A message of the nested worker (its JSON text): whether it goes on to the page.
    pub fn receive(&mut self, text: &str, scope: &DedicatedWorkerGlobalScope) -> bool {
        match Envelope::<FromWorker>::decode(text) {
            Ok(FromWorker::Ready) => {
                self.ready = true;
                if let Some(nested) = &self.nested {
                    for (request, file) in std::mem::take(&mut self.queue) {
                        post(&nested.worker, request, file.as_ref(), scope);
                    }
                }
                false
            }
            // This worker reported the adapter already; only a failure to bring burn up on it is news.
            Ok(FromWorker::WebGpu { adapter: Ok(_) }) => false,
            // What the nested worker owed, it has given.
            Ok(FromWorker::GenerationEnded { request_id, .. }) => {
                self.replies.remove(&request_id);
                true
            }
            Ok(FromWorker::Logits { request_id, .. }) => {
                self.logits.remove(&request_id);
                true
            }
            Ok(FromWorker::ModelLoaded { model_id, .. }) => {
                self.loading.remove(&model_id);
                true
            }
            Ok(FromWorker::TrainingEnded { train_id, .. }) => {
                self.trainings.remove(&train_id);
                true
            }
            _ => true,
        }
    }

    /// The nested worker crashed (`problem` says how): it is gone, and every run it held failed.
    pub fn crashed(&mut self, problem: &str, scope: &DedicatedWorkerGlobalScope) {
        self.nested = None;
        self.fail_all(problem, scope);
    }

    /// Every run of the nested worker failed (it could not start, or crashed), and so did every
    /// load, reply and logits it owed; its models are gone.
    fn fail_all(&mut self, problem: &str, scope: &DedicatedWorkerGlobalScope) {
        self.queue.clear();
        let failed = |message: FromWorker| drop(scope.post_message(&JsValue::from_str(&Envelope::encode(message))));
        let result = Err(problem.to_owned());
        self.runs
            .drain()
            .for_each(|run_id| failed(FromWorker::Failed { run_id: Some(run_id), message: problem.to_owned() }));
        self.loading.drain().for_each(|model_id| failed(FromWorker::ModelLoaded { model_id, result: result.clone() }));
        self.replies
            .drain()
            .for_each(|request_id| failed(FromWorker::GenerationEnded { request_id, result: Err(problem.to_owned()) }));
        self.logits
            .drain()
            .for_each(|request_id| failed(FromWorker::Logits { request_id, result: Err(problem.to_owned()) }));
        self.trainings
            .drain()
            .for_each(|train_id| failed(FromWorker::TrainingEnded { train_id, result: Err(problem.to_owned()) }));
        self.models.clear();
    }
}

/// Posts `request` to the nested worker, as `[request, file]` when it carries a model file.
fn post(worker: &Worker, request: ToWorker, file: Option<&web_sys::Blob>, scope: &DedicatedWorkerGlobalScope) {
    let text = JsValue::from_str(&Envelope::encode(request));
    let data = match file {
        Some(file) => js_sys::Array::of2(&text, file).into(),
        None => text,
    };
    if let Err(error) = worker.post_message(&data) {
        let message = format!("a request could not be sent to the WebGPU training worker: {}", describe(&error));
        drop(scope.post_message(&JsValue::from_str(&Envelope::encode(FromWorker::Failed { run_id: None, message }))));
    }
}
