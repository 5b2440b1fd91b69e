//! The training worker. The page posts [`ToWorker`] messages; the worker trains off the main thread
//! and streams [`FromWorker`] messages back, batching episode records so that the page receives at
//! most about 30 progress messages a second however fast training goes.

use engine::protocol::{Envelope, FromWorker, ToWorker};
use engine::{Run, RunSpec};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Milliseconds between progress messages.
const PROGRESS_INTERVAL_MS: f64 = 33.0;
/// Fresh episodes on which the greedy policy is evaluated when a run finishes.
const EVALUATION_EPISODES: u32 = 1000;

fn post(scope: &DedicatedWorkerGlobalScope, message: FromWorker) {
    if let Err(error) = scope.post_message(&JsValue::from_str(&Envelope::encode(message))) {
        web_sys::console::error_2(&"the training worker could not post a message".into(), &error);
    }
}

fn train(scope: &DedicatedWorkerGlobalScope, run_id: u32, spec: RunSpec) {
    let mut run = match Run::new(spec) {
        Ok(run) => run,
        Err(message) => return post(scope, FromWorker::Failed { run_id: Some(run_id), message }),
    };
    let mut batch = Vec::new();
    let mut last_post = js_sys::Date::now();
    while let Some(record) = run.train_episode() {
        batch.push(record);
        let now = js_sys::Date::now();
        if now - last_post >= PROGRESS_INTERVAL_MS {
            post(scope, FromWorker::Progress { run_id, records: std::mem::take(&mut batch) });
            last_post = now;
        }
    }
    if !batch.is_empty() {
        post(scope, FromWorker::Progress { run_id, records: batch });
    }
    let greedy = run.evaluate_greedy(EVALUATION_EPISODES);
    post(scope, FromWorker::Finished { run_id, summary: run.summary(), greedy });
}

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let handler_scope = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let request = event
            .data()
            .as_string()
            .ok_or_else(|| "the worker expects JSON text messages".to_owned())
            .and_then(|text| Envelope::<ToWorker>::decode(&text));
        match request {
            Ok(ToWorker::Start { run_id, spec }) => train(&handler_scope, run_id, spec),
            Err(message) => post(&handler_scope, FromWorker::Failed { run_id: None, message }),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&scope, FromWorker::Ready);
}
