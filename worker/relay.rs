//! Runs on WebGPU train in a nested worker built with burn's Wgpu backend (`webgpu_worker`), which
//! this worker starts when the first such run comes and relays to: most visitors never download it.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Weak;

use engine::device::{Backend, GpuAdapter};
use engine::protocol::{Envelope, FromWorker, ToWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, MessageEvent, Worker};

use crate::js_error::describe;
use crate::{Trainer, navigator_gpu};

const NESTED_WORKER: &str = "./webgpu_worker_loader.js";

/// The nested worker, with the handlers that must live as long as it.
struct Nested {
    worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

pub struct Relay {
    trainer: Weak<RefCell<Trainer>>,
    /// The nested worker, once started.
    nested: Option<Nested>,
    ready: bool,
    /// Requests that came before the nested worker was ready.
    queue: Vec<ToWorker>,
    /// The runs the nested worker holds.
    runs: HashSet<u32>,
}

impl Relay {
    pub fn new(trainer: Weak<RefCell<Trainer>>) -> Self {
        Self { trainer, nested: None, ready: false, queue: Vec::new(), runs: HashSet::new() }
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
            | ToWorker::Stop { run_id }
            | ToWorker::Discard { run_id }
            | ToWorker::Decide { run_id, .. } => run_id,
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
        let trainer = self.trainer.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(trainer) = trainer.upgrade() {
                trainer.borrow_mut().relayed(event.data().as_string().unwrap_or_default());
            }
        });
        let trainer = self.trainer.clone();
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
            if let Some(trainer) = trainer.upgrade() {
                let trainer = &mut *trainer.borrow_mut();
                let problem = format!("the WebGPU training worker failed: {}", event.message());
                trainer.relay.nested = None;
                trainer.relay.fail_all(&problem, &trainer.scope);
            }
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

/// Asks the browser for a WebGPU adapter; the adapter, or why there is none.
pub async fn find_adapter(scope: &DedicatedWorkerGlobalScope) -> Result<GpuAdapter, String> {
    let gpu = navigator_gpu(scope)?;
    let request_adapter: js_sys::Function = js_sys::Reflect::get(&gpu, &"requestAdapter".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("navigator.gpu has no requestAdapter")?;
    let promise = request_adapter.call0(&gpu).map_err(|e| format!("requestAdapter failed: {}", describe(&e)))?;
    let adapter = JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| format!("requestAdapter failed: {}", describe(&e)))?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err("the browser offers WebGPU but no adapter (no usable GPU, or it is blocklisted)".into());
    }
    let info = js_sys::Reflect::get(&adapter, &"info".into()).unwrap_or(JsValue::UNDEFINED);
    let field =
        |name: &str| js_sys::Reflect::get(&info, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    let names: Vec<String> =
        ["vendor", "architecture", "description"].into_iter().map(field).filter(|n| !n.is_empty()).collect();
    let description = match names.is_empty() {
        true => "an unnamed adapter".into(),
        false => names.join(" "),
    };
    let software = js_sys::Reflect::get(&info, &"isFallbackAdapter".into()).is_ok_and(|v| v.is_truthy());
    Ok(GpuAdapter { description, software })
}
