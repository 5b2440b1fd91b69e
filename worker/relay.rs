//! Runs on WebGPU train in a nested worker built with burn's Wgpu backend (`webgpu_worker`), which
//! this worker starts when the first such run comes and relays to: most visitors never download it.

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

/// What the nested worker's owner does with its messages (their text) and with its crash (why).
pub struct RelayEvents {
    pub on_message: Rc<dyn Fn(String)>,
    pub on_crash: Rc<dyn Fn(String)>,
}

pub struct Relay {
    events: RelayEvents,
    /// The nested worker, once started.
    nested: Option<Nested>,
    ready: bool,
    /// Requests that came before the nested worker was ready.
    queue: Vec<ToWorker>,
    /// The runs the nested worker holds.
    runs: HashSet<u32>,
}

impl Relay {
    pub fn new(events: RelayEvents) -> Self {
        Self { events, nested: None, ready: false, queue: Vec::new(), runs: HashSet::new() }
    }

    /// Whether `request` is the nested worker's: it builds a run on WebGPU, or concerns one.
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
            // The language models are the CPU worker's.
            ToWorker::LoadModel { .. }
            | ToWorker::Generate { .. }
            | ToWorker::StopGeneration { .. }
            | ToWorker::NextLogits { .. } => return false,
        };
        self.runs.contains(run_id)
    }

    pub fn send(&mut self, request: ToWorker, scope: &DedicatedWorkerGlobalScope) {
        if let ToWorker::Discard { run_id } = &request {
            self.runs.remove(run_id);
        }
        match &self.nested {
            Some(nested) if self.ready => post(&nested.worker, request, scope),
            Some(_) => self.queue.push(request),
            None => {
                self.queue.push(request);
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
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            on_text(event.data().as_string().unwrap_or_default());
        });
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

    /// A message of the nested worker: `None` once handled here, else the text for the page.
    pub fn receive(&mut self, text: String, scope: &DedicatedWorkerGlobalScope) -> Option<String> {
        match Envelope::<FromWorker>::decode(&text) {
            Ok(FromWorker::Ready) => {
                self.ready = true;
                if let Some(nested) = &self.nested {
                    for request in std::mem::take(&mut self.queue) {
                        post(&nested.worker, request, scope);
                    }
                }
                None
            }
            // This worker reported the adapter already; only a failure to bring burn up on it is news.
            Ok(FromWorker::WebGpu { adapter: Ok(_) }) => None,
            _ => Some(text),
        }
    }

    /// The nested worker crashed (`problem` says how): it is gone, and every run it held failed.
    pub fn crashed(&mut self, problem: &str, scope: &DedicatedWorkerGlobalScope) {
        self.nested = None;
        self.fail_all(problem, scope);
    }

    /// Every run of the nested worker failed (it could not start, or crashed).
    fn fail_all(&mut self, problem: &str, scope: &DedicatedWorkerGlobalScope) {
        self.queue.clear();
        for run_id in self.runs.drain() {
            let message = FromWorker::Failed { run_id: Some(run_id), message: problem.to_owned() };
            drop(scope.post_message(&JsValue::from_str(&Envelope::encode(message))));
        }
    }
}

fn post(worker: &Worker, request: ToWorker, scope: &DedicatedWorkerGlobalScope) {
    if let Err(error) = worker.post_message(&JsValue::from_str(&Envelope::encode(request))) {
        let message = format!("a request could not be sent to the WebGPU training worker: {}", describe(&error));
        drop(scope.post_message(&JsValue::from_str(&Envelope::encode(FromWorker::Failed { run_id: None, message }))));
    }
}
