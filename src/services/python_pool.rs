//! The page's side of the Python worker (`static/python/worker.mjs`): Pyodide is loaded when the first
//! program needs it, programs run one at a time, and the page keeps the clock.
//!
//! Each worker runs one program and is then thrown away, so that nothing a program does to its
//! interpreter (patching the harness, its files, the builtins) can change the verdict of the next:
//! once a program has run, the next two programs' workers load while the page is idle (each two
//! interpreters of 30 MB of wasm memory, restored from the memory snapshot the page's first worker
//! took, docs/benchmarks.md), so that a program does not share the two cores with an interpreter
//! loading beside it, which made a world model's scoring two to eight times slower. Only the first
//! program's next worker starts earlier, once the first has compiled Pyodide, and restores as soon
//! as that worker's snapshots are there: restoring two interpreters takes about 0.5 s, and started
//! at the first verdict it would keep the second program waiting for it. The playground's own
//! programs ([`Author::Playground`]: the StepCoder learner's line banks, run in batches) are the
//! exception: none of them changes its interpreter, so one interpreter serves them all and Pyodide
//! is not loaded again for every batch. They also run on more than one worker, one per core as the
//! CLI's python3 processes do ([`Python::lanes`]): further workers start from the first worker's
//! warm start when the first batch of them comes.
//! At a program's time limit the worker is interrupted through a shared buffer when the page is
//! cross-origin isolated (Pyodide then raises KeyboardInterrupt, and the harness reports a timeout);
//! a program that ignores the interrupt (a loop catching BaseException, a long C call) or a page
//! without isolation gets its worker terminated. A program that brings its interpreter down gets a
//! runtime-error verdict. Either way the page stays responsive and the next program runs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use engine::python::{Author, Outcome, ProgramRequest, ProgramVerdict, parse_reply};
use gloo_timers::callback::Timeout;
use js_sys::Reflect;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use crate::services::python_worker::PythonWorker;

/// How long an interrupted program may take to unwind before its worker is terminated.
const INTERRUPT_GRACE_MS: u32 = 500;
/// The most workers the playground's own programs run on: each holds two interpreters of about
/// 30 MB, and beyond four the page's own share of the work (the learner, the verdicts' JSON) is
/// what is left.
const MAX_LANES: usize = 4;
/// How many times in a row a worker that failed to load is started again.
const LOAD_RETRIES: u32 = 2;

/// What the page shows about Python.
#[derive(Clone, Debug, PartialEq)]
pub enum PythonState {
    /// Not needed yet: Pyodide loads when the first program is run.
    Idle,
    Loading,
    Ready {
        /// How long this interpreter took to load.
        load_ms: f64,
        /// How long after the last program's verdict it was ready (0 when it had loaded ahead),
        /// none before the first program.
        after_verdict_ms: Option<f64>,
    },
    Running,
    Failed(String),
}

type Done = Box<dyn FnOnce(Result<ProgramVerdict, String>)>;

struct Job {
    request: ProgramRequest,
    limit_ms: u32,
    author: Author,
    done: Done,
}

struct Running {
    id: u32,
    job: Job,
    interrupted: bool,
    started: f64,
}

struct Host {
    /// The interpreter for the next program (loading, idle, or running it).
    current: Option<PythonWorker>,
    /// The one after it, loaded while the page is idle (or beside `current`'s program when more
    /// programs are waiting).
    spare: Option<PythonWorker>,
    queue: VecDeque<Job>,
    running: Option<Running>,
    next_id: u32,
    next_serial: u32,
    /// When the last program's verdict was handed over, by the page's clock.
    verdict_at: Option<f64>,
    /// A `spare` should load once `current` has: the last program was a person's or an LLM's.
    spare_wanted: bool,
    /// Workers that failed to load since the last one that loaded.
    load_failures: u32,
}

impl Host {
    fn retire_all(&mut self) {
        self.current.take().into_iter().chain(self.spare.take()).for_each(PythonWorker::retire);
    }
}

/// A handle on the Python workers; clones share them.
#[derive(Clone)]
pub struct Python {
    host: Rc<RefCell<Host>>,
    pub state: RwSignal<PythonState>,
    /// What later workers start from (the `warm_start` message of the first, cold one: Pyodide's
    /// compiled module and a memory snapshot of each interpreter, 30 MB each), kept for the
    /// session and shared with the helpers.
    warm_start: Rc<RefCell<Option<JsValue>>>,
    /// Further workers of their own for the playground's programs, up to one per core beyond this
    /// one (none in a helper itself).
    helpers: Rc<RefCell<Vec<Python>>>,
}

impl Python {
    /// Starts the page's one pool and gives it to every pane (leptos context).
    pub fn provide() {
        provide_context(StoredValue::new_local(Self::new()));
    }

    /// The page's pool, from context.
    pub fn from_context() -> StoredValue<Python, LocalStorage> {
        expect_context()
    }

    pub fn new() -> Self {
        Self::lane(Rc::new(RefCell::new(None)))
    }

    fn lane(warm_start: Rc<RefCell<Option<JsValue>>>) -> Self {
        let host = Host {
            current: None,
            spare: None,
            queue: VecDeque::new(),
            running: None,
            next_id: 1,
            next_serial: 1,
            verdict_at: None,
            spare_wanted: false,
            load_failures: 0,
        };
        Self {
            host: Rc::new(RefCell::new(host)),
            state: RwSignal::new(PythonState::Idle),
            warm_start,
            helpers: Rc::default(),
        }
    }

    /// How many workers the playground's own programs may run on: one per core the browser reports
    /// (at most [`MAX_LANES`]).
    pub fn lanes() -> usize {
        let cores = Reflect::get(&js_sys::global(), &"navigator".into())
            .and_then(|navigator| Reflect::get(&navigator, &"hardwareConcurrency".into()))
            .ok()
            .and_then(|cores| cores.as_f64())
            .unwrap_or(1.0);
        (cores as usize).clamp(1, MAX_LANES)
    }

    /// The worker a program of the playground's goes to: the least busy of this one and its
    /// helpers, a new helper while there are fewer than [`Python::lanes`] and this one's warm start
    /// is there to start it from.
    fn lane_for_playground(&self) -> Python {
        let busy = |python: &Python| {
            let host = python.host.borrow();
            host.queue.len() + usize::from(host.running.is_some())
        };
        let mut helpers = self.helpers.borrow_mut();
        let least = std::iter::once(self).chain(helpers.iter()).min_by_key(|python| busy(python)).unwrap_or(self);
        if busy(least) > 0 && helpers.len() + 1 < Self::lanes() && self.warm_start.borrow().is_some() {
            helpers.push(Self::lane(self.warm_start.clone()));
            return helpers.last().cloned().unwrap_or_else(|| self.clone());
        }
        least.clone()
    }

    /// Queues a program; `done` gets its verdict (a timeout or a crash is a verdict), or why Python
    /// could not run it.
    pub fn run(
        &self,
        request: ProgramRequest,
        limit_ms: u32,
        done: impl FnOnce(Result<ProgramVerdict, String>) + 'static,
    ) {
        self.run_as(Author::Untrusted, request, limit_ms, done);
    }

    /// [`Python::run`] for a program by `author`: the playground's own go to the least busy worker.
    pub fn run_as(
        &self,
        author: Author,
        request: ProgramRequest,
        limit_ms: u32,
        done: impl FnOnce(Result<ProgramVerdict, String>) + 'static,
    ) {
        let lane = if author == Author::Playground { self.lane_for_playground() } else { self.clone() };
        lane.enqueue(Job { request, limit_ms, author, done: Box::new(done) });
    }

    fn enqueue(&self, job: Job) {
        self.host.borrow_mut().queue.push_back(job);
        if self.host.borrow().current.is_none() {
            self.state.set(PythonState::Loading);
            match self.start_interpreter(None) {
                Ok(interpreter) => self.host.borrow_mut().current = Some(interpreter),
                Err(message) => return self.fail_all(message),
            }
        }
        self.pump();
    }

    /// Queues several programs of a person or an LLM; `done` gets their results in request order
    /// once all are in.
    pub fn run_all(
        &self,
        requests: Vec<ProgramRequest>,
        limit_ms: u32,
        done: impl FnOnce(Vec<Result<ProgramVerdict, String>>) + 'static,
    ) {
        let runs = requests.into_iter().map(|request| (request, limit_ms)).collect();
        self.run_all_as(Author::Untrusted, runs, done);
    }

    /// [`Python::run_all`] for programs by `author`, each with its own limit: the playground's own
    /// run side by side on the workers [`Python::run_as`] gives them.
    pub fn run_all_as(
        &self,
        author: Author,
        runs: Vec<(ProgramRequest, u32)>,
        done: impl FnOnce(Vec<Result<ProgramVerdict, String>>) + 'static,
    ) {
        let total = runs.len();
        let results = Rc::new(RefCell::new((0..total).map(|_| None).collect::<Vec<_>>()));
        let done = Rc::new(RefCell::new(Some(done)));
        for (index, (request, limit_ms)) in runs.into_iter().enumerate() {
            let (results, done) = (results.clone(), done.clone());
            self.run_as(author, request, limit_ms, move |result| {
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

    /// Starts a worker (see [`PythonWorker::start`], `follows` as there) whose messages and errors
    /// come here.
    fn start_interpreter(&self, follows: Option<&JsValue>) -> Result<PythonWorker, String> {
        let serial = {
            let mut host = self.host.borrow_mut();
            host.next_serial += 1;
            host.next_serial
        };
        let started = js_sys::Date::now();
        let (python, on_error_python) = (self.clone(), self.clone());
        PythonWorker::start(
            serial,
            self.warm_start.borrow().as_ref(),
            follows,
            move |data| python.on_message(serial, data, started),
            move |message| on_error_python.on_error(serial, message),
        )
    }

    /// Whether `serial` is the interpreter running the program `id` now.
    fn runs(&self, serial: u32, id: Option<u32>) -> bool {
        let host = self.host.borrow();
        host.current.as_ref().is_some_and(|c| c.serial == serial) && host.running.as_ref().map(|r| r.id) == id
    }

    fn on_message(&self, serial: u32, data: JsValue, started: f64) {
        let field = |name: &str| Reflect::get(&data, &name.into()).unwrap_or(JsValue::UNDEFINED);
        let id = field("id").as_f64().map(|id| id as u32);
        match field("type").as_string().as_deref() {
            // A cold worker has compiled Pyodide and now starts its interpreters: its successor
            // starts with the compiled module, before there is a warm start to restore it from. It
            // does all that does not need one (its scripts, Pyodide's files, both interpreters'
            // modules) and restores their memory the moment the page hands it the first worker's
            // snapshots, so that it is ready, or nearly, when the first verdict comes.
            Some("loaded") => {
                let due = {
                    let host = self.host.borrow();
                    host.spare.is_none() && host.current.as_ref().is_some_and(|c| c.serial == serial && !c.ready)
                };
                if due
                    && self.warm_start.borrow().is_none()
                    && let Ok(successor) = self.start_interpreter(Some(&field("wasm")))
                {
                    self.host.borrow_mut().spare = Some(successor);
                }
            }
            // Only a worker still loading sends them, before any program has run in it: the judge's
            // snapshot alone (a part), then the whole warm start.
            Some(kind @ ("warm_start_part" | "warm_start")) => {
                let loading = {
                    let host = self.host.borrow();
                    host.current.iter().chain(host.spare.iter()).any(|i| i.serial == serial && !i.ready)
                };
                if loading && self.warm_start.borrow().is_none() {
                    let whole = kind == "warm_start";
                    if whole {
                        *self.warm_start.borrow_mut() = Some(data.clone());
                    }
                    if let Some(successor) = self.host.borrow_mut().spare.as_mut().filter(|s| s.awaits_warm_start) {
                        successor.hand_warm_start(&data, whole);
                    }
                }
            }
            Some("ready") => {
                let load_ms = field("load_ms").as_f64().unwrap_or(js_sys::Date::now() - started);
                {
                    let mut guard = self.host.borrow_mut();
                    let host = &mut *guard;
                    if let Some(interpreter) =
                        host.current.iter_mut().chain(host.spare.iter_mut()).find(|i| i.serial == serial)
                    {
                        host.load_failures = 0;
                        interpreter.ready = true;
                        interpreter.load_ms = load_ms;
                        interpreter.ready_at = js_sys::Date::now();
                    }
                    // The first worker loaded without a warm start for others (its snapshot
                    // failed): its successor would wait for ever, and later ones start cold.
                    if self.warm_start.borrow().is_none()
                        && let Some(successor) = host.spare.take_if(|s| s.awaits_warm_start)
                    {
                        successor.retire();
                    }
                }
                if let Err(message) = self.start_spare_when_ready() {
                    return self.fail_all(message);
                }
                self.pump();
            }
            Some("verdict") if self.runs(serial, id) => {
                let reply = field("verdict").as_string().unwrap_or_default();
                let verdict = self.host.borrow().running.as_ref().map(|r| parse_reply(&reply, &r.job.request));
                if let Some(verdict) = verdict {
                    self.finish(verdict, true);
                }
            }
            Some("failed") if id.is_some() && self.runs(serial, id) => {
                let message = field("message").as_string().unwrap_or_default();
                self.crashed(&message);
            }
            Some("failed") if id.is_none() => {
                self.load_failed(serial, field("message").as_string().unwrap_or_default())
            }
            _ => {} // a forged or late message, from a program or a retired worker
        }
    }

    /// An uncaught error in a worker: the program it runs crashed it, or Pyodide failed to load.
    fn on_error(&self, serial: u32, message: String) {
        let (running, loading) = {
            let host = self.host.borrow();
            let running = host.current.as_ref().is_some_and(|c| c.serial == serial) && host.running.is_some();
            (running, host.current.iter().chain(host.spare.iter()).any(|i| i.serial == serial && !i.ready))
        };
        if running {
            self.crashed(&message);
        } else if loading {
            self.load_failed(serial, message);
        }
    }

    /// A worker failed to load (in CI, a fetch of Pyodide's module, 34 searches into 180): another
    /// starts in its place, up to [`LOAD_RETRIES`] times in a row, and the programs wait; past that
    /// (no Pyodide, or a browser that cannot run it) every waiting program gets the reason. A
    /// successor waiting for the failed worker's warm start goes with it.
    fn load_failed(&self, serial: u32, message: String) {
        {
            let mut guard = self.host.borrow_mut();
            let host = &mut *guard;
            let is_current = host.current.as_ref().is_some_and(|c| c.serial == serial);
            if !is_current && host.spare.as_ref().is_none_or(|s| s.serial != serial) {
                return; // a worker already retired
            }
            if host.load_failures == LOAD_RETRIES {
                drop(guard);
                return self.fail_all(format!("Python could not start: {message}. Reload the page to try again."));
            }
            host.load_failures += 1;
            let failed = if is_current { host.current.take() } else { host.spare.take() };
            failed.into_iter().for_each(PythonWorker::retire);
            if is_current {
                host.current = host.spare.take();
                if let Some(orphan) = host.current.take_if(|successor| successor.awaits_warm_start) {
                    orphan.retire();
                }
            }
        }
        let warning = format!("a Python worker failed to load ({message}); another starts in its place");
        web_sys::console::warn_1(&warning.into());
        match self.load_missing() {
            Ok(()) => self.pump(),
            Err(message) => self.fail_all(message),
        }
    }

    /// The running program brought its interpreter down: its verdict is a runtime error.
    fn crashed(&self, message: &str) {
        let verdict = self.host.borrow().running.as_ref().map(|running| {
            let error = format!("the program stopped the Python interpreter: {message}");
            let elapsed = js_sys::Date::now() - running.started;
            ProgramVerdict::from_host(&running.job.request, Outcome::RuntimeError, error, elapsed)
        });
        if let Some(verdict) = verdict {
            self.finish(Ok(verdict), false);
        }
    }

    /// Hands the running program its result, retires its interpreter (unless the playground's own
    /// program returned from it normally: `returned`) and starts the next program.
    fn finish(&self, result: Result<ProgramVerdict, String>, returned: bool) {
        let running = {
            let mut host = self.host.borrow_mut();
            let Some(running) = host.running.take() else { return };
            let keep = returned && running.job.author == Author::Playground && !running.interrupted;
            if !keep {
                if let Some(used) = host.current.take() {
                    used.retire();
                }
                host.current = host.spare.take();
            }
            running
        };
        // The verdict first, drawn before the next interpreters start: where the page is not
        // cross-origin isolated, starting one copies the warm start's snapshots to its worker, which
        // takes the main thread a while.
        let author = running.job.author;
        self.host.borrow_mut().verdict_at = Some(js_sys::Date::now());
        (running.job.done)(result);
        let python = self.clone();
        Timeout::new(0, move || match python.load_ahead(author) {
            Ok(()) => python.pump(),
            Err(message) => python.fail_all(message),
        })
        .forget();
    }

    /// After a program, starts loading what the next ones will need: an interpreter for the next
    /// program, and for a person's or an LLM's program (whose interpreter is thrown away) the one
    /// after it too, once the next has loaded. They load now, while the page waits for its next
    /// program, rather than beside that program, where a loading interpreter takes the CPU a
    /// running one needs.
    fn load_ahead(&self, author: Author) -> Result<(), String> {
        self.host.borrow_mut().spare_wanted = author == Author::Untrusted;
        self.load_missing()
    }

    /// Starts an interpreter for the next program if there is none, and the spare if it is due.
    fn load_missing(&self) -> Result<(), String> {
        if self.host.borrow().current.is_none() {
            let interpreter = self.start_interpreter(None)?;
            self.host.borrow_mut().current = Some(interpreter);
        }
        self.start_spare_when_ready()
    }

    /// Starts the wanted `spare` once `current` has loaded, not beside it: two workers restoring at
    /// once each take about twice as long, which kept the next program waiting.
    fn start_spare_when_ready(&self) -> Result<(), String> {
        let host = self.host.borrow();
        let due = host.spare_wanted && host.spare.is_none() && host.current.as_ref().is_some_and(|c| c.ready);
        drop(host);
        if due {
            let interpreter = self.start_interpreter(None)?;
            self.host.borrow_mut().spare = Some(interpreter);
        }
        Ok(())
    }

    /// Sends the next program to a ready interpreter and, when more programs are waiting, starts
    /// loading the one after it.
    fn pump(&self) {
        let mut guard = self.host.borrow_mut();
        let host = &mut *guard;
        if host.running.is_some() {
            return;
        }
        let Some(current) = host.current.as_ref() else {
            return self.state.set(PythonState::Idle);
        };
        if !current.ready {
            return self.state.set(PythonState::Loading);
        }
        let (load_ms, ready_at) = (current.load_ms, current.ready_at);
        let Some(job) = host.queue.pop_front() else {
            let after_verdict_ms = host.verdict_at.map(|verdict_at| (ready_at - verdict_at).max(0.0));
            return self.state.set(PythonState::Ready { load_ms, after_verdict_ms });
        };
        let id = host.next_id;
        host.next_id += 1;
        current.run(id, serde_json::to_string(&job.request).expect("requests serialise"));
        let limit_ms = job.limit_ms;
        // With more programs waiting, the next one's interpreter loads beside this program, which
        // gives the whole queue its verdicts sooner; otherwise `load_ahead` starts it once this
        // program is done. The playground's own program leaves its interpreter to the next one.
        let needs_spare = host.spare.is_none() && job.author == Author::Untrusted && !host.queue.is_empty();
        host.running = Some(Running { id, job, interrupted: false, started: js_sys::Date::now() });
        drop(guard);
        self.state.set(PythonState::Running);
        if needs_spare && let Ok(spare) = self.start_interpreter(None) {
            self.host.borrow_mut().spare = Some(spare);
        }
        let python = self.clone();
        Timeout::new(limit_ms, move || python.on_limit(id)).forget();
    }

    /// The program `id` reached its limit: interrupt it, or stop its worker.
    fn on_limit(&self, id: u32) {
        let mut guard = self.host.borrow_mut();
        let host = &mut *guard;
        let Some(running) = host.running.as_mut().filter(|r| r.id == id) else { return };
        if !running.interrupted && host.current.as_ref().is_some_and(PythonWorker::interrupt) {
            running.interrupted = true;
            drop(guard);
            let python = self.clone();
            Timeout::new(INTERRUPT_GRACE_MS, move || python.on_limit(id)).forget();
            return;
        }
        // How long it ran by the page's clock (from its start to its stop), not the limit it had.
        let verdict = ProgramVerdict {
            duration_ms: js_sys::Date::now() - running.started,
            ..ProgramVerdict::timeout(&running.job.request, running.job.limit_ms)
        };
        drop(guard);
        self.finish(Ok(verdict), false);
    }

    /// Python itself could not run: every waiting program gets the reason.
    fn fail_all(&self, message: String) {
        let jobs: Vec<Job> = {
            let mut host = self.host.borrow_mut();
            host.retire_all();
            let running = host.running.take().map(|r| r.job);
            running.into_iter().chain(host.queue.drain(..)).collect()
        };
        self.state.set(PythonState::Failed(message.clone()));
        for job in jobs {
            (job.done)(Err(message.clone()));
        }
    }
}
