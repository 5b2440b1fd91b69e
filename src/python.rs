//! The page's side of the Python worker (`static/python/worker.mjs`): Pyodide is loaded when the first
//! program needs it, programs run one at a time, and the page keeps the clock. At a program's time
//! limit the worker is interrupted through a shared buffer when the page is cross-origin isolated
//! (Pyodide then raises KeyboardInterrupt, and the harness reports a timeout); a program that
//! ignores the interrupt (a loop catching BaseException, a long C call) or a page without isolation
//! gets the worker terminated and a fresh one started. Either way the page stays responsive and the
//! next program runs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use engine::python::{ProgramRequest, ProgramVerdict, parse_reply};
use gloo_timers::callback::Timeout;
use js_sys::{Atomics, Int32Array, Object, Reflect, SharedArrayBuffer};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

/// How long an interrupted program may take to unwind before its worker is terminated.
const INTERRUPT_GRACE_MS: u32 = 500;
/// Pyodide's interrupt buffer value for SIGINT.
const SIGINT: i32 = 2;

/// What the page shows about Python.
#[derive(Clone, Debug, PartialEq)]
pub enum PythonState {
    /// Not needed yet: Pyodide loads when the first program is run.
    Idle,
    Loading,
    Ready {
        load_ms: f64,
    },
    Running,
    Failed(String),
}

type Done = Box<dyn FnOnce(Result<ProgramVerdict, String>)>;

struct Job {
    request: ProgramRequest,
    limit_ms: u32,
    done: Done,
}

struct Running {
    id: u32,
    job: Job,
    interrupted: bool,
}

struct Host {
    worker: Option<Worker>,
    /// The worker's handlers; dropped with the worker they belong to.
    handlers: Vec<Closure<dyn Fn(JsValue)>>,
    ready: bool,
    queue: VecDeque<Job>,
    running: Option<Running>,
    next_id: u32,
    interrupt: Option<Int32Array>,
    /// How long the current worker took to load Pyodide and the harness.
    load_ms: f64,
}

impl Host {
    /// Terminates the worker. Its handlers may be the code running now, so they are dropped on the
    /// next turn of the event loop rather than here.
    fn stop_worker(&mut self) {
        if let Some(worker) = self.worker.take() {
            worker.terminate();
        }
        let retired = std::mem::take(&mut self.handlers);
        Timeout::new(0, move || drop(retired)).forget();
        self.ready = false;
    }
}

/// A handle on the Python worker; clones share it.
#[derive(Clone)]
pub struct Python {
    host: Rc<RefCell<Host>>,
    pub state: RwSignal<PythonState>,
}

impl Python {
    pub fn new() -> Self {
        let host = Host {
            worker: None,
            handlers: Vec::new(),
            ready: false,
            queue: VecDeque::new(),
            running: None,
            next_id: 1,
            interrupt: None,
            load_ms: 0.0,
        };
        Self { host: Rc::new(RefCell::new(host)), state: RwSignal::new(PythonState::Idle) }
    }

    /// Whether an interrupt can stop a runaway program without restarting Python.
    pub fn cross_origin_isolated() -> bool {
        Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).is_ok_and(|v| v.is_truthy())
    }

    /// Queues a program; `done` gets its verdict (a timeout is a verdict), or why Python failed.
    pub fn run(
        &self,
        request: ProgramRequest,
        limit_ms: u32,
        done: impl FnOnce(Result<ProgramVerdict, String>) + 'static,
    ) {
        self.host.borrow_mut().queue.push_back(Job { request, limit_ms, done: Box::new(done) });
        if self.host.borrow().worker.is_none() {
            self.spawn();
        }
        self.pump();
    }

    /// Queues several programs; `done` gets their results in request order once all are in.
    pub fn run_all(
        &self,
        requests: Vec<ProgramRequest>,
        limit_ms: u32,
        done: impl FnOnce(Vec<Result<ProgramVerdict, String>>) + 'static,
    ) {
        let total = requests.len();
        let results = Rc::new(RefCell::new((0..total).map(|_| None).collect::<Vec<_>>()));
        let done = Rc::new(RefCell::new(Some(done)));
        for (index, request) in requests.into_iter().enumerate() {
            let (results, done) = (results.clone(), done.clone());
            self.run(request, limit_ms, move |result| {
                let mut slots = results.borrow_mut();
                slots[index] = Some(result);
                if slots.iter().all(Option::is_some)
                    && let Some(done) = done.borrow_mut().take()
                {
                    done(slots.drain(..).flatten().collect());
                }
            });
        }
    }

    fn spawn(&self) {
        self.state.set(PythonState::Loading);
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = match Worker::new_with_options("./python/worker.mjs", &options) {
            Ok(worker) => worker,
            Err(e) => return self.fail_all(format!("the Python worker could not start: {e:?}")),
        };
        let started = js_sys::Date::now();
        let on_message = {
            let python = self.clone();
            Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
                python.on_message(event.unchecked_into::<MessageEvent>().data(), started)
            })
        };
        let on_error = {
            let python = self.clone();
            Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
                let message = event.unchecked_into::<ErrorEvent>().message();
                python.fail_all(format!("the Python worker failed: {message}"));
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let interrupt = Self::cross_origin_isolated().then(|| {
            let buffer = SharedArrayBuffer::new(4);
            let message = Object::new();
            let _ = Reflect::set(&message, &"type".into(), &"interrupt_buffer".into());
            let _ = Reflect::set(&message, &"buffer".into(), &buffer);
            let _ = worker.post_message(&message);
            Int32Array::new(&buffer)
        });
        let mut host = self.host.borrow_mut();
        host.stop_worker();
        host.worker = Some(worker);
        host.handlers = vec![on_message, on_error];
        host.ready = false;
        host.interrupt = interrupt;
    }

    fn on_message(&self, data: JsValue, started: f64) {
        let field = |name: &str| Reflect::get(&data, &name.into()).unwrap_or(JsValue::UNDEFINED);
        let id = field("id").as_f64().map(|id| id as u32);
        match field("type").as_string().as_deref() {
            Some("ready") => {
                let load_ms = field("load_ms").as_f64().unwrap_or(js_sys::Date::now() - started);
                let mut host = self.host.borrow_mut();
                host.ready = true;
                host.load_ms = load_ms;
                drop(host);
                self.state.set(PythonState::Ready { load_ms });
                self.pump();
            }
            Some("verdict") => {
                let reply = field("verdict").as_string().unwrap_or_default();
                self.finish(id, parse_reply(&reply));
            }
            Some("failed") => {
                let message = field("message").as_string().unwrap_or_else(|| "the Python worker failed".into());
                if id.is_some() {
                    self.finish(id, Err(message));
                } else {
                    self.fail_all(message);
                }
            }
            _ => {}
        }
    }

    /// Hands a finished program its result and starts the next one.
    fn finish(&self, id: Option<u32>, result: Result<ProgramVerdict, String>) {
        let running = {
            let mut host = self.host.borrow_mut();
            if host.running.as_ref().map(|r| r.id) != id {
                return; // a late reply for a program already settled (timed out)
            }
            host.running.take()
        };
        if let Some(running) = running {
            (running.job.done)(result);
        }
        self.pump();
    }

    fn pump(&self) {
        let mut host = self.host.borrow_mut();
        if !host.ready || host.running.is_some() {
            return;
        }
        let Some(job) = host.queue.pop_front() else {
            self.state.set(PythonState::Ready { load_ms: host.load_ms });
            return;
        };
        let id = host.next_id;
        host.next_id += 1;
        let message = Object::new();
        let request = serde_json::to_string(&job.request).expect("requests serialise");
        let _ = Reflect::set(&message, &"type".into(), &"run".into());
        let _ = Reflect::set(&message, &"id".into(), &id.into());
        let _ = Reflect::set(&message, &"request".into(), &request.into());
        if let Some(worker) = &host.worker {
            let _ = worker.post_message(&message);
        }
        let limit_ms = job.limit_ms;
        host.running = Some(Running { id, job, interrupted: false });
        drop(host);
        self.state.set(PythonState::Running);
        let python = self.clone();
        Timeout::new(limit_ms, move || python.on_limit(id)).forget();
    }

    /// The program `id` reached its limit: interrupt it, or replace the worker.
    fn on_limit(&self, id: u32) {
        let mut host = self.host.borrow_mut();
        let interrupt = host.interrupt.clone();
        let Some(running) = host.running.as_mut().filter(|r| r.id == id) else { return };
        if let Some(buffer) = interrupt.filter(|_| !running.interrupted) {
            running.interrupted = true;
            let _ = Atomics::store(&buffer, 0, SIGINT);
            drop(host);
            let python = self.clone();
            Timeout::new(INTERRUPT_GRACE_MS, move || python.on_limit(id)).forget();
            return;
        }
        drop(host);
        self.restart(id);
    }

    /// Terminates a worker whose program would not stop; the program's verdict is a timeout.
    fn restart(&self, id: u32) {
        let running = {
            let mut host = self.host.borrow_mut();
            host.stop_worker();
            host.running.take().filter(|r| r.id == id)
        };
        if let Some(running) = running {
            let verdict = ProgramVerdict::timeout(&running.job.request, running.job.limit_ms);
            (running.job.done)(Ok(verdict));
        }
        self.spawn();
        self.pump();
    }

    /// Python itself could not run: every waiting program gets the reason.
    fn fail_all(&self, message: String) {
        let jobs: Vec<Job> = {
            let mut host = self.host.borrow_mut();
            host.stop_worker();
            let running = host.running.take().map(|r| r.job);
            running.into_iter().chain(host.queue.drain(..)).collect()
        };
        self.state.set(PythonState::Failed(message.clone()));
        for job in jobs {
            (job.done)(Err(message.clone()));
        }
    }
}
