//! The worker's side of its link to the page: posting a message, the clock its timings use, and
//! letting the event loop (the page's messages) in between two steps of long work.

use engine::protocol::{Envelope, FromWorker};
use futures_channel::oneshot;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

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

/// Lets the worker's event loop run (the page's messages, the runs' slices) before long work goes
/// on: a message through a channel of its own, which unlike `setTimeout(0)` is never clamped to 4 ms.
pub(crate) async fn yield_to_event_loop() {
    let Ok(channel) = MessageChannel::new() else {
        return gloo_timers::future::TimeoutFuture::new(0).await;
    };
    let (done, heard) = oneshot::channel::<()>();
    let on_message = Closure::once(move |_: MessageEvent| {
        let _ = done.send(());
    });
    channel.port1().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    if channel.port2().post_message(&JsValue::NULL).is_ok() {
        let _ = heard.await;
    }
}
