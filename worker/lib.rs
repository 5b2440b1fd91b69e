//! The training worker. The page posts [`ToWorker`] messages; the worker trains off the main thread
//! and streams [`FromWorker`] messages back. Training runs in slices of a few milliseconds, handed
//! round the runs in progress, with a yield to the event loop between slices so that pause, step
//! and stop requests are handled at once. Episode records are batched so that the page receives at
//! most about 30 progress messages a second however fast training goes, and a run waits while its
//! batch is full: the page, not the worker, limits how fast a tabular run can go.
//!
//! A run on WebGPU cannot block on its GPU: it trains in a task of its own that awaits each
//! episode ([`drive_gpu_run`]), and its policy is read from a CPU copy whenever it is paused,
//! stopped or finished. burn's Wgpu backend adds about 4 MB of gzip wasm, so it lives in a second
//! build of this worker (`webgpu_worker`, the `wgpu` feature) that the page's worker starts, nested,
//! only when a run asks for WebGPU, and relays ([`relay`]).

// Browser failures in words: the app's module, compiled into the worker too.
#[cfg(not(feature = "wgpu"))]
#[path = "../src/services/js_error.rs"]
mod js_error;
#[cfg(not(feature = "wgpu"))]
mod relay;

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use engine::agents::Checkpoint;
use engine::device::{Backend, GpuAdapter, completed};
use engine::effects::LiveState;
use engine::live;
use engine::protocol::{Envelope, Finished, FromWorker, RunProgress, ToWorker};
use engine::record_rows::RecordRows;
use engine::run::{Restoration, Resume};
use engine::{EpisodeRecord, Run, RunSpec};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// Milliseconds between progress messages.
const PROGRESS_INTERVAL_MS: f64 = 33.0;
/// Milliseconds of training between yields to the event loop.
const SLICE_MS: f64 = 10.0;
/// The most episode records a run holds for the next progress message. Tabular runs train millions of
/// episodes a second, more than the page can decode, draw and store without stalling; this caps a
/// message at about a megabyte of JSON, and a run at about 150,000 episodes a second.
const MAX_UNSENT_RECORDS: usize = 5_000;
/// Fresh episodes on which the greedy policy is evaluated when a run finishes.
const EVALUATION_EPISODES: u32 = 1000;

struct Slot {
    id: u32,
    /// `None` while a WebGPU run's task holds it.
    run: Option<Run>,
    on_gpu: bool,
    paused: bool,
    /// Stop asked while a WebGPU run's episode was in flight; its task finishes the run.
    stopping: bool,
    /// Episodes a paused WebGPU run still has to train (single steps).
    steps: u32,
    unsent: Vec<EpisodeRecord>,
    train_ms: f64,
    /// Episodes between clock reads, adapted so that a read comes about every millisecond: reading
    /// the clock costs more than a tabular episode.
    stride: u32,
}

impl Slot {
    fn new(id: u32, run: Run) -> Self {
        let on_gpu = run.spec().backend == Backend::Wgpu;
        Self {
            id,
            run: Some(run),
            on_gpu,
            paused: false,
            stopping: false,
            steps: 0,
            unsent: Vec::new(),
            train_ms: 0.0,
            stride: 1,
        }
    }

    /// A CPU run with episodes left to train.
    fn has_work(&self) -> bool {
        !self.paused && self.run.as_ref().is_some_and(|run| !run.is_finished())
    }

    /// A CPU run that has episodes to train now (its batch has room).
    fn trains_here(&self) -> bool {
        self.has_work() && self.unsent.len() < MAX_UNSENT_RECORDS
    }

    /// Trains a CPU run for about `budget_ms`.
    fn train_for(&mut self, budget_ms: f64, now: &impl Fn() -> f64) {
        let Some(run) = self.run.as_mut() else { return };
        let start = now();
        let mut elapsed = 0.0;
        while elapsed < budget_ms && !self.paused && !run.is_finished() && self.unsent.len() < MAX_UNSENT_RECORDS {
            let before = elapsed;
            let room = (MAX_UNSENT_RECORDS - self.unsent.len()).min(self.stride as usize);
            self.unsent.extend(run.by_ref().take(room));
            elapsed = now() - start;
            let took = elapsed - before;
            if took < 0.5 {
                self.stride = (self.stride * 2).min(4096);
            } else if took > 2.0 {
                self.stride = (self.stride / 2).max(1);
            }
        }
        self.train_ms += elapsed;
    }
}

/// What a WebGPU run's task does next, decided between episodes.
enum GpuTurn {
    Train,
    /// Paused: hand the run back to its slot with a CPU copy of its policy.
    Park,
    /// Stopped or finished: finish the run.
    Finish,
    /// The page discarded the run.
    Gone,
}

/// Whether this worker has WebGPU: still asking, yes, or no and why.
enum WebGpu {
    Pending,
    Ready,
    Unavailable(String),
}

struct Trainer {
    scope: DedicatedWorkerGlobalScope,
    /// The trainer itself, for the tasks it starts.
    this: Weak<RefCell<Trainer>>,
    /// Posting to one end of this channel schedules a slice: unlike `setTimeout(0)` it is never
    /// clamped to 4 ms.
    wake: MessagePort,
    slots: Vec<Slot>,
    /// Runs whose training ended, kept so live mode can ask their agents for actions.
    trained: Vec<(u32, Run)>,
    slice_scheduled: bool,
    last_progress: f64,
    webgpu: WebGpu,
    /// Requests for WebGPU runs that came before WebGPU was up; handled once it is.
    waiting_for_webgpu: Vec<ToWorker>,
    /// The nested WebGPU worker that trains this worker's WebGPU runs.
    #[cfg(not(feature = "wgpu"))]
    relay: relay::Relay,
}

/// Milliseconds on the worker's high-resolution clock.
fn now(scope: &DedicatedWorkerGlobalScope) -> f64 {
    scope.performance().map_or_else(js_sys::Date::now, |p| p.now())
}

/// The backend a request's run is on, for requests that build a run.
fn requested_backend(request: &ToWorker) -> Option<Backend> {
    match request {
        ToWorker::Start { spec, .. } | ToWorker::Restore { spec, .. } => Some(spec.backend),
        _ => None,
    }
}

impl Trainer {
    fn post(&self, message: FromWorker) {
        if let Err(error) = self.scope.post_message(&JsValue::from_str(&Envelope::encode(message))) {
            web_sys::console::error_2(&"the training worker could not post a message".into(), &error);
        }
    }

    fn slot(&mut self, run_id: u32) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.id == run_id)
    }

    fn schedule(&mut self) {
        if self.slice_scheduled {
            return;
        }
        if self.slots.iter().any(Slot::trains_here) {
            self.slice_scheduled = self.wake.post_message(&JsValue::NULL).is_ok();
        } else if self.slots.iter().any(Slot::has_work) {
            // Every batch is full: wake when the next progress message is due.
            let due = PROGRESS_INTERVAL_MS - (now(&self.scope) - self.last_progress);
            let wake = self.wake.clone();
            gloo_timers::callback::Timeout::new(due.ceil().max(1.0) as u32, move || {
                drop(wake.post_message(&JsValue::NULL));
            })
            .forget();
            self.slice_scheduled = true;
        }
    }

    fn handle(&mut self, request: ToWorker) {
        let Some(request) = self.gate(request) else { return };
        match request {
            ToWorker::Start { run_id, spec, resume } => self.start(run_id, spec, resume),
            ToWorker::Pause { run_id } => self.pause(run_id),
            ToWorker::Resume { run_id } => self.resume(run_id),
            ToWorker::Step { run_id } => self.step(run_id),
            ToWorker::Stop { run_id } => self.stop(run_id),
            ToWorker::Discard { run_id } => {
                self.slots.retain(|s| s.id != run_id);
                self.trained.retain(|(id, _)| *id != run_id);
            }
            ToWorker::Restore { run_id, spec, resume, checkpoint } => self.restore(run_id, spec, resume, checkpoint),
            ToWorker::Decide { request_id, run_id, state } => self.decide(request_id, run_id, &state),
        }
        self.schedule();
    }

    /// The request, unless it went elsewhere: to the WebGPU worker, to wait for WebGPU to come up,
    /// or answered here because this browser has no WebGPU.
    fn gate(&mut self, request: ToWorker) -> Option<ToWorker> {
        #[cfg(not(feature = "wgpu"))]
        if matches!(self.webgpu, WebGpu::Ready) && self.relay.claims(&request) {
            self.relay.send(request, &self.scope);
            return None;
        }
        if requested_backend(&request) != Some(Backend::Wgpu) {
            return Some(request);
        }
        match &self.webgpu {
            WebGpu::Pending => self.waiting_for_webgpu.push(request),
            WebGpu::Ready => return Some(request),
            WebGpu::Unavailable(why) => {
                let why = format!("this run is on the WebGPU backend, which this browser cannot offer ({why})");
                match request {
                    // A checkpoint loads on the CPU; only training the records again needs WebGPU.
                    ToWorker::Restore { run_id, spec, checkpoint, .. } => {
                        let result = match checkpoint {
                            Some(checkpoint) => Run::from_checkpoint(spec, &checkpoint)
                                .map(|run| (run, Restoration::Checkpoint))
                                .map_err(|problem| format!("{why}, and its checkpoint does not load: {problem}")),
                            None => Err(format!("{why}, and it has no checkpoint")),
                        };
                        self.restored(run_id, result);
                    }
                    ToWorker::Start { run_id, .. } => {
                        let message = format!("{why}; choose the CPU backend (ndarray) to train it here");
                        self.post(FromWorker::Failed { run_id: Some(run_id), message });
                    }
                    _ => {}
                }
            }
        }
        None
    }

    fn start(&mut self, run_id: u32, spec: RunSpec, resume: Option<Resume>) {
        match Run::new(spec) {
            Ok(run) if run.spec().backend == Backend::Wgpu => {
                let mut slot = Slot::new(run_id, run);
                let run = slot.run.take().expect("a new slot holds its run");
                self.slots.push(slot);
                self.spawn_gpu_task(run_id, run, resume);
            }
            // The replay blocks this worker for as long as those episodes took to train.
            Ok(run) => match resume {
                Some(resume) => match completed(run.resume(&resume)) {
                    Ok(run) => self.slots.push(Slot::new(run_id, run)),
                    Err(message) => self.post(FromWorker::Failed { run_id: Some(run_id), message }),
                },
                None => self.slots.push(Slot::new(run_id, run)),
            },
            Err(message) => self.post(FromWorker::Failed { run_id: Some(run_id), message }),
        }
    }

    fn pause(&mut self, run_id: u32) {
        if let Some(slot) = self.slot(run_id) {
            slot.paused = true;
            // A WebGPU run in flight reports its pause when its episode ends.
            if slot.run.is_some() {
                self.send_progress();
                self.post_paused(run_id);
            }
        }
    }

    fn resume(&mut self, run_id: u32) {
        if let Some(slot) = self.slot(run_id) {
            slot.paused = false;
            self.post(FromWorker::Resumed { run_id });
            self.wake_gpu_run(run_id);
        }
    }

    /// One episode of a paused run.
    fn step(&mut self, run_id: u32) {
        let scope = self.scope.clone();
        match self.slot(run_id).filter(|s| s.paused && s.run.is_some()) {
            Some(slot) if slot.on_gpu => {
                slot.steps += 1;
                self.wake_gpu_run(run_id);
            }
            Some(slot) => {
                let start = now(&scope);
                slot.unsent.extend(slot.run.as_mut().and_then(Iterator::next));
                slot.train_ms += now(&scope) - start;
                self.send_progress();
                self.post_paused(run_id);
                self.finish_done_runs();
            }
            None => {}
        }
    }

    fn stop(&mut self, run_id: u32) {
        match self.slots.iter().position(|s| s.id == run_id) {
            Some(index) if self.slots[index].on_gpu => {
                self.slots[index].stopping = true;
                self.wake_gpu_run(run_id);
            }
            Some(index) => {
                self.send_progress();
                let slot = self.slots.remove(index);
                self.finish(slot);
            }
            None => {}
        }
    }

    /// A run rebuilt from its records or checkpoint, to answer its policy's decisions.
    fn restore(&mut self, run_id: u32, spec: RunSpec, resume: Resume, checkpoint: Option<Checkpoint>) {
        let this = self.this.clone();
        // Training the records again on WebGPU awaits the GPU; on the CPU it completes at once.
        wasm_bindgen_futures::spawn_local(async move {
            let result = Run::rebuild(spec, &resume, checkpoint.as_ref()).await;
            if let Some(trainer) = this.upgrade() {
                trainer.borrow_mut().restored(run_id, result);
            }
        });
    }

    /// A live episode's next action, from the run's greedy policy.
    fn decide(&mut self, request_id: u32, run_id: u32, state: &LiveState) {
        let in_slot = self.slots.iter().find(|s| s.id == run_id).map(|s| s.run.as_ref());
        let trained = || self.trained.iter().find(|(id, _)| *id == run_id).map(|(_, run)| run);
        let result = match in_slot {
            Some(Some(run)) => live::decide(run, state),
            Some(None) => Err(format!("run #{run_id} is training on WebGPU; pause it to ask its policy")),
            None => match trained() {
                Some(run) => live::decide(run, state),
                None => Err(format!("run #{run_id} is not in the training worker")),
            },
        };
        self.post(FromWorker::Decision { request_id, result });
    }

    fn restored(&mut self, run_id: u32, result: Result<(Run, Restoration), String>) {
        let result = result.map(|(run, how)| {
            self.trained.retain(|(id, _)| *id != run_id);
            self.trained.push((run_id, run));
            how
        });
        self.post(FromWorker::Restored { run_id, result });
    }

    fn post_paused(&self, run_id: u32) {
        if let Some(run) = self.slots.iter().find(|s| s.id == run_id).and_then(|s| s.run.as_ref()) {
            let policy = Box::new(run.policy_view());
            self.post(FromWorker::Paused { run_id, episodes_done: run.episodes_done(), policy });
        }
    }

    /// One slice of training shared by the CPU runs in progress.
    fn slice(&mut self) {
        self.slice_scheduled = false;
        let running = self.slots.iter().filter(|s| s.trains_here()).count();
        if running > 0 {
            let scope = self.scope.clone();
            let share = SLICE_MS / running as f64;
            for slot in self.slots.iter_mut().filter(|s| s.trains_here()) {
                slot.train_for(share, &|| now(&scope));
            }
        }
        self.send_progress_due();
        self.finish_done_runs();
        self.schedule();
    }

    /// Sends progress if the last message is old enough or a run has finished.
    fn send_progress_due(&mut self) {
        if now(&self.scope) - self.last_progress >= PROGRESS_INTERVAL_MS
            || self.slots.iter().any(|s| s.run.as_ref().is_some_and(Run::is_finished))
        {
            self.send_progress();
        }
    }

    fn send_progress(&mut self) {
        let runs: Vec<RunProgress> = self
            .slots
            .iter_mut()
            .filter(|s| !s.unsent.is_empty())
            .map(|s| RunProgress { run_id: s.id, records: RecordRows::encode(&std::mem::take(&mut s.unsent)) })
            .collect();
        if !runs.is_empty() {
            self.post(FromWorker::Progress { runs });
        }
        self.last_progress = now(&self.scope);
    }

    /// Finishes the CPU runs whose budget is spent (a WebGPU run's task finishes its own).
    fn finish_done_runs(&mut self) {
        while let Some(index) =
            self.slots.iter().position(|s| !s.on_gpu && s.run.as_ref().is_some_and(Run::is_finished))
        {
            let slot = self.slots.remove(index);
            self.finish(slot);
        }
    }

    /// Evaluates a run whose training ended and reports it. A WebGPU run arrives stopped, with its
    /// policy copied to the CPU.
    fn finish(&mut self, mut slot: Slot) {
        let Some(mut run) = slot.run.take() else { return };
        run.stop();
        let finished = Finished {
            run_id: slot.id,
            summary: run.summary(),
            greedy: run.evaluate_greedy(EVALUATION_EPISODES),
            fixed_pipeline: run.evaluate_baseline(EVALUATION_EPISODES),
            policy: run.policy_view(),
            train_ms: slot.train_ms,
            learn_steps: run.agent().learn_steps(),
            // A run without its checkpoint is still whole: its policy can be trained again.
            checkpoint: run.checkpoint().inspect_err(|problem| web_sys::console::warn_1(&problem.into())).ok(),
        };
        self.post(FromWorker::Finished(Box::new(finished)));
        self.trained.push((slot.id, run));
    }

    fn spawn_gpu_task(&self, run_id: u32, run: Run, resume: Option<Resume>) {
        wasm_bindgen_futures::spawn_local(drive_gpu_run(self.this.clone(), run_id, run, resume));
    }

    /// Starts the task of a parked WebGPU run again (after resume, step or stop).
    fn wake_gpu_run(&mut self, run_id: u32) {
        if let Some(slot) = self.slot(run_id).filter(|s| s.on_gpu)
            && let Some(run) = slot.run.take()
        {
            self.spawn_gpu_task(run_id, run, None);
        }
    }

    fn gpu_turn(&mut self, run_id: u32, run: &Run) -> GpuTurn {
        let Some(slot) = self.slot(run_id) else { return GpuTurn::Gone };
        if slot.stopping || run.is_finished() {
            GpuTurn::Finish
        } else if !slot.paused {
            GpuTurn::Train
        } else if slot.steps > 0 {
            slot.steps -= 1;
            GpuTurn::Train
        } else {
            GpuTurn::Park
        }
    }

    fn gpu_trained(&mut self, run_id: u32, record: Option<EpisodeRecord>, took_ms: f64) {
        if let Some(slot) = self.slot(run_id) {
            slot.unsent.extend(record);
            slot.train_ms += took_ms;
        }
        self.send_progress_due();
    }

    /// Hands a WebGPU run back to its slot after its task: parked, finished, or failed.
    fn gpu_returned(&mut self, run_id: u32, run: Result<Run, String>, turn: GpuTurn) {
        let Some(index) = self.slots.iter().position(|s| s.id == run_id) else { return };
        self.send_progress();
        match (run, turn) {
            (Ok(run), GpuTurn::Park) => {
                self.slots[index].run = Some(run);
                self.post_paused(run_id);
            }
            (Ok(run), _) => {
                let mut slot = self.slots.remove(index);
                slot.run = Some(run);
                self.finish(slot);
            }
            (Err(message), _) => {
                self.slots.remove(index);
                self.post(FromWorker::Failed { run_id: Some(run_id), message });
            }
        }
    }

    /// A message of the nested WebGPU worker, passed on to the page unless it was for this worker.
    #[cfg(not(feature = "wgpu"))]
    fn relayed(&mut self, text: String) {
        if let Some(text) = self.relay.receive(text, &self.scope)
            && let Err(error) = self.scope.post_message(&JsValue::from_str(&text))
        {
            web_sys::console::error_2(&"the training worker could not relay a message".into(), &error);
        }
    }

    fn webgpu_settled(&mut self, adapter: Result<GpuAdapter, String>) {
        self.webgpu = match &adapter {
            Ok(_) => WebGpu::Ready,
            Err(why) => WebGpu::Unavailable(why.clone()),
        };
        self.post(FromWorker::WebGpu { adapter });
        for request in std::mem::take(&mut self.waiting_for_webgpu) {
            self.handle(request);
        }
    }
}

/// Trains a WebGPU run episode by episode, awaiting the GPU; between episodes the run's requests
/// (pause, step, stop, discard) decide the next turn. The trainer is never borrowed across an await.
async fn drive_gpu_run(trainer: Weak<RefCell<Trainer>>, run_id: u32, mut run: Run, resume: Option<Resume>) {
    let clock = js_sys::global().unchecked_into::<DedicatedWorkerGlobalScope>();
    if let Some(resume) = resume {
        run = match run.resume(&resume).await {
            Ok(run) => run,
            Err(message) => return finish_gpu_task(&trainer, run_id, Err(message), GpuTurn::Finish),
        };
    }
    loop {
        let Some(strong) = trainer.upgrade() else { return };
        let turn = strong.borrow_mut().gpu_turn(run_id, &run);
        drop(strong);
        match turn {
            GpuTurn::Gone => return,
            GpuTurn::Train => {
                let start = now(&clock);
                let record = match run.train_episode().await {
                    Ok(record) => record,
                    Err(message) => return finish_gpu_task(&trainer, run_id, Err(message), GpuTurn::Finish),
                };
                let Some(strong) = trainer.upgrade() else { return };
                strong.borrow_mut().gpu_trained(run_id, record, now(&clock) - start);
            }
            GpuTurn::Park | GpuTurn::Finish => {
                if matches!(turn, GpuTurn::Finish) {
                    run.stop();
                }
                let copied = run.copy_policy_to_cpu().await.map(|()| run);
                return finish_gpu_task(&trainer, run_id, copied, turn);
            }
        }
    }
}

fn finish_gpu_task(trainer: &Weak<RefCell<Trainer>>, run_id: u32, run: Result<Run, String>, turn: GpuTurn) {
    if let Some(trainer) = trainer.upgrade() {
        trainer.borrow_mut().gpu_returned(run_id, run, turn);
    }
}

/// Brings up WebGPU in this worker, asynchronously as browsers require: the adapter's description,
/// or why there is none.
#[cfg(feature = "wgpu")]
async fn init_webgpu(scope: &DedicatedWorkerGlobalScope) -> Result<GpuAdapter, String> {
    navigator_gpu(scope)?;
    engine::device::init_webgpu().await
}

/// This worker's `navigator.gpu`, or why there is none.
fn navigator_gpu(scope: &DedicatedWorkerGlobalScope) -> Result<JsValue, String> {
    let gpu = js_sys::Reflect::get(&scope.navigator(), &"gpu".into()).unwrap_or(JsValue::UNDEFINED);
    match gpu.is_undefined() {
        true => Err("navigator.gpu is missing in workers (WebGPU is off or unsupported in this browser)".into()),
        false => Ok(gpu),
    }
}

/// Asks the browser for a WebGPU adapter (the nested worker brings burn up on it when first needed).
#[cfg(not(feature = "wgpu"))]
async fn init_webgpu(scope: &DedicatedWorkerGlobalScope) -> Result<GpuAdapter, String> {
    relay::find_adapter(scope).await
}

/// Runs the training worker: answers the page's messages until the page ends it.
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let channel = MessageChannel::new().expect("workers have MessageChannel");
    let trainer = Rc::new_cyclic(|this| {
        RefCell::new(Trainer {
            scope: scope.clone(),
            this: this.clone(),
            wake: channel.port2(),
            slots: Vec::new(),
            trained: Vec::new(),
            slice_scheduled: false,
            last_progress: 0.0,
            webgpu: WebGpu::Pending,
            waiting_for_webgpu: Vec::new(),
            #[cfg(not(feature = "wgpu"))]
            relay: relay::Relay::new(this.clone()),
        })
    });

    trainer.borrow().post(FromWorker::Ready);
    let gpu_trainer = Rc::downgrade(&trainer);
    let gpu_scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let adapter = init_webgpu(&gpu_scope).await;
        if let Some(trainer) = gpu_trainer.upgrade() {
            trainer.borrow_mut().webgpu_settled(adapter);
        }
    });
    let slice_trainer = trainer.clone();
    let on_wake = Closure::<dyn Fn(MessageEvent)>::new(move |_: MessageEvent| slice_trainer.borrow_mut().slice());
    channel.port1().set_onmessage(Some(on_wake.as_ref().unchecked_ref()));

    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let request = event
            .data()
            .as_string()
            .ok_or_else(|| "the worker expects JSON text messages".to_owned())
            .and_then(|text| Envelope::<ToWorker>::decode(&text));
        let mut trainer = trainer.borrow_mut();
        match request {
            Ok(request) => trainer.handle(request),
            Err(message) => trainer.post(FromWorker::Failed { run_id: None, message }),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // Both handlers live as long as the worker.
    on_wake.forget();
    on_message.forget();
}
