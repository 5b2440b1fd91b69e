//! The worker's side of its link to the page: posting a message, and the clock its timings use.

use engine::protocol::{Envelope, FromWorker};
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

/// Milliseconds on the worker's high-resolution clock.
pub(crate) fn now(scope: &DedicatedWorkerGlobalScope) -> f64 {
    scope.performance().map_or_else(js_sys::Date::now, |p| p.now())
}

/// Posts `message` to the page.
pub(crate) fn post(scope: &DedicatedWorkerGlobalScope, message: FromWorker) {
    if let Err(error) = scope.post_message(&JsValue::from_str(&Envelope::encode(message))) {
        web_sys::console::error_2(&"the training worker could not post a message".into(), &error);
    }
}
