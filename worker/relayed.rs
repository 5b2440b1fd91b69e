//! The trainer's side of the relay to the nested WebGPU worker (`relay.rs`): the trainings it
//! hands over, and what comes back from it.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use engine::protocol::{FromWorker, ToWorker};
use wasm_bindgen::prelude::*;

use crate::relay::{Relay, RelayEvents};
use crate::trainer::{Trainer, WebGpu};

impl Trainer {
    /// A training's request with its file, unless the nested WebGPU worker takes it (a training
    /// on WebGPU, and the page's answers to it) or it cannot be trained here.
    pub(crate) fn relay_training(
        &mut self,
        request: ToWorker,
        file: Option<web_sys::Blob>,
    ) -> Option<(ToWorker, Option<web_sys::Blob>)> {
        if !self.relay.claims_training(&request) {
            return Some((request, file));
        }
        match (&self.webgpu, request) {
            (WebGpu::Unavailable(why), ToWorker::TrainModel { train_id, name, .. }) => {
                self.relay.forget_training(train_id);
                let problem = format!("{name}: this browser offers no WebGPU ({why}); train it on the CPU");
                self.post(FromWorker::TrainingEnded { train_id, result: Err(problem) });
            }
            // While this worker's WebGPU comes up, the nested worker waits for its own.
            (_, request) => self.relay.send_with(request, file, &self.scope),
        }
        None
    }

    /// A message of the nested WebGPU worker, passed on to the page unless it was for this worker.
    fn relayed(&mut self, data: JsValue) {
        let text = match data.dyn_ref::<js_sys::Array>() {
            Some(pair) => pair.get(0).as_string(),
            None => data.as_string(),
        };
        if self.relay.receive(&text.unwrap_or_default(), &self.scope)
            && let Err(error) = self.scope.post_message(&data)
        {
            web_sys::console::error_2(&"the training worker could not relay a message".into(), &error);
        }
    }

    /// The relay to the nested WebGPU worker, whose messages and crash come to `trainer`.
    pub(crate) fn relay_for(trainer: Weak<RefCell<Trainer>>) -> Relay {
        let crashed = trainer.clone();
        Relay::new(RelayEvents {
            on_message: Rc::new(move |data| {
                if let Some(trainer) = trainer.upgrade() {
                    trainer.borrow_mut().relayed(data);
                }
            }),
            on_crash: Rc::new(move |problem| {
                if let Some(trainer) = crashed.upgrade() {
                    let this = &mut *trainer.borrow_mut();
                    this.relay.crashed(&problem, &this.scope);
                }
            }),
        })
    }
}
