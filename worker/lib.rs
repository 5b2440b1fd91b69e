//! The training worker. The page posts [`ToWorker`](engine::protocol::ToWorker) messages; the worker
//! trains off the main thread and streams [`FromWorker`] messages back. By job: the trainer and its
//! CPU slices (`trainer.rs`), a WebGPU run's task (`gpu_run.rs`), asking for WebGPU (`webgpu.rs`),
//! the engine's language models (`language_models.rs`) and their training by StepCoder's PPO
//! (`model_training.rs`), posting to the page (`page_link.rs`) and, in the CPU worker, the relay
//! to the nested WebGPU worker (`relay.rs`). This file starts it.
//!
//! burn's Wgpu backend adds about 4 MB of gzip wasm, so it lives in a second build of this worker
//! (`webgpu_worker`, the `wgpu` feature) that the page's worker starts, nested, only when a run asks
//! for WebGPU, and relays.

// Browser failures in words: the app's module, compiled into the worker too.
mod gpu_run;
#[cfg(not(feature = "wgpu"))]
#[path = "../src/services/js_error.rs"]
mod js_error;
mod language_models;
mod model_training;
mod page_link;
#[cfg(not(feature = "wgpu"))]
mod relay;
#[cfg(not(feature = "wgpu"))]
mod relayed;
mod trainer;
mod webgpu;

use std::cell::RefCell;
use std::rc::Rc;

use engine::protocol::{Envelope, FromWorker, ToWorker};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

use crate::model_training::ModelTrainings;
use crate::trainer::Trainer;

/// Runs the training worker: answers the page's messages until the page ends it.
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let channel = match MessageChannel::new() {
        Ok(channel) => channel,
        Err(error) => {
            // The page shows this in words rather than waiting on a worker that never says Ready.
            let message =
                format!("this browser's workers cannot make a MessageChannel, which training needs ({error:?})");
            drop(
                scope.post_message(&JsValue::from_str(&Envelope::encode(FromWorker::Failed { run_id: None, message }))),
            );
            return;
        }
    };
    let trainer = Rc::new_cyclic(|this| RefCell::new(Trainer::new(scope.clone(), this.clone(), channel.port2())));
    let trainings = ModelTrainings::new(scope.clone());

    trainer.borrow().post(FromWorker::Ready);
    let gpu_trainer = Rc::downgrade(&trainer);
    let gpu_scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let adapter = webgpu::init_webgpu(&gpu_scope).await;
        if let Some(trainer) = gpu_trainer.upgrade() {
            trainer.borrow_mut().webgpu_settled(adapter);
        }
    });
    let slice_trainer = trainer.clone();
    let on_wake = Closure::<dyn Fn(MessageEvent)>::new(move |_: MessageEvent| slice_trainer.borrow_mut().slice());
    channel.port1().set_onmessage(Some(on_wake.as_ref().unchecked_ref()));

    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        // A request is JSON text, or `[JSON text, Blob]` for the file a `LoadModel` loads or a
        // `TrainModel` trains.
        let data = event.data();
        let (text, file) = match data.dyn_ref::<js_sys::Array>() {
            Some(pair) => (pair.get(0).as_string(), pair.get(1).dyn_into::<web_sys::Blob>().ok()),
            None => (data.as_string(), None),
        };
        let request = text
            .ok_or_else(|| "the worker expects JSON text messages".to_owned())
            .and_then(|text| Envelope::<ToWorker>::decode(&text));
        match (request, file) {
            (Ok(ToWorker::LoadModel { model_id, name, backend }), Some(file)) => {
                trainer.borrow_mut().load_model_file(model_id, name, backend, file)
            }
            (Ok(request), file) if ModelTrainings::handles(&request) => {
                #[cfg(not(feature = "wgpu"))]
                let Some((request, file)) = trainer.borrow_mut().relay_training(request, file) else { return };
                trainings.handle(request, file, Rc::downgrade(&trainer));
            }
            (Ok(request), _) => trainer.borrow_mut().handle(request),
            (Err(message), _) => trainer.borrow().post(FromWorker::Failed { run_id: None, message }),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // Both handlers live as long as the worker.
    on_wake.forget();
    on_message.forget();
}
