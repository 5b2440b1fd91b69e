//! One Python worker as the page sees it (`static/python/worker.mjs`): the messages that start it,
//! hand it its warm start, run a program in it and interrupt it. Which worker runs what, and when
//! the next ones load, is [`crate::services::python_pool`]'s.

use gloo_timers::callback::Timeout;
use js_sys::{Atomics, Int32Array, Object, Reflect, SharedArrayBuffer};
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

/// Pyodide's interrupt buffer value for SIGINT.
const SIGINT: i32 = 2;

/// Whether the page is cross-origin isolated: an interrupt can then stop a runaway program without
/// restarting Python, and the snapshots go to workers as shared memory.
pub fn cross_origin_isolated() -> bool {
    Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).is_ok_and(|v| v.is_truthy())
}

/// A worker and its interpreter, which runs a single program.
pub struct PythonWorker {
    worker: Worker,
    /// The worker's handlers; dropped with the worker they belong to.
    handlers: Vec<Closure<dyn Fn(JsValue)>>,
    /// Tells this worker's messages from those of workers already retired.
    pub serial: u32,
    pub ready: bool,
    /// How long it took to load Pyodide and the harness.
    pub load_ms: f64,
    /// When it was ready, by the page's clock.
    pub ready_at: f64,
    interrupt: Option<Int32Array>,
    /// Started before the first worker's warm start was there, it waits for the page to send it.
    pub awaits_warm_start: bool,
}

impl PythonWorker {
    /// Starts a worker, which loads Pyodide and the harness and then says it is ready: cold, from
    /// `warm_start`, or, with `follows` (Pyodide's module as the first worker compiled it, or
    /// undefined where the browser could not send it), from the warm start that
    /// [`PythonWorker::hand_warm_start`] gives it later. `on_message` gets its messages' data,
    /// `on_error` its uncaught errors.
    pub fn start(
        serial: u32,
        warm_start: Option<&JsValue>,
        follows: Option<&JsValue>,
        on_message: impl Fn(JsValue) + 'static,
        on_error: impl Fn(String) + 'static,
    ) -> Result<Self, String> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options("./python/worker.mjs", &options).map_err(|e| {
            let reason = e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_default();
            format!("Python could not start: the browser refused to start its worker ({reason}).")
        })?;
        let on_message = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
            on_message(event.unchecked_into::<MessageEvent>().data())
        });
        let on_error = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
            on_error(event.unchecked_into::<ErrorEvent>().message())
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let start = Object::new();
        let _ = Reflect::set(&start, &"type".into(), &"start".into());
        if let Some(warm_start) = warm_start {
            let _ = Reflect::set(&start, &"warm_start".into(), warm_start);
        }
        let _ = Reflect::set(&start, &"warm_start_follows".into(), &follows.is_some().into());
        if let Some(compiled) = follows.filter(|compiled| !compiled.is_undefined()) {
            let _ = Reflect::set(&start, &"wasm".into(), compiled);
        }
        let _ = worker.post_message(&start);
        let interrupt = cross_origin_isolated().then(|| {
            let buffer = SharedArrayBuffer::new(4);
            let message = Object::new();
            let _ = Reflect::set(&message, &"type".into(), &"interrupt_buffer".into());
            let _ = Reflect::set(&message, &"buffer".into(), &buffer);
            let _ = worker.post_message(&message);
            Int32Array::new(&buffer)
        });
        Ok(Self {
            worker,
            handlers: vec![on_message, on_error],
            serial,
            ready: false,
            load_ms: 0.0,
            ready_at: 0.0,
            interrupt,
            awaits_warm_start: follows.is_some(),
        })
    }

    /// Gives a worker started with `warm_start_follows` what the first worker sent of its warm
    /// start: a part (the judge's snapshot), or the `whole` of it.
    pub fn hand_warm_start(&mut self, message: &JsValue, whole: bool) {
        self.awaits_warm_start = !whole;
        let _ = self.worker.post_message(message);
    }

    /// Sends it the program `id`: the harness's request as JSON text.
    pub fn run(&self, id: u32, request: String) {
        let message = Object::new();
        let _ = Reflect::set(&message, &"type".into(), &"run".into());
        let _ = Reflect::set(&message, &"id".into(), &id.into());
        let _ = Reflect::set(&message, &"request".into(), &request.into());
        let _ = self.worker.post_message(&message);
    }

    /// Asks the running program to stop (Pyodide raises KeyboardInterrupt in it); false where the
    /// page is not cross-origin isolated and only terminating the worker can stop it.
    pub fn interrupt(&self) -> bool {
        self.interrupt.as_ref().map(|buffer| Atomics::store(buffer, 0, SIGINT)).is_some()
    }

    /// Terminates the worker. Its handlers may be the code running now, so they are dropped on the
    /// next turn of the event loop rather than here.
    pub fn retire(self) {
        self.worker.terminate();
        let handlers = self.handlers;
        Timeout::new(0, move || drop(handlers)).forget();
    }
}
