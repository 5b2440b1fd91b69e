//! The training worker's trainer: the runs it holds (a [`RunSlot`] each), the page's requests, and
//! the CPU runs trained in slices of a few milliseconds, handed round the runs in progress, with a
//! yield to the event loop between slices so that pause, step and stop are handled at once. Records
//! are batched (at most about 30 progress messages a second), and a run waits while its batch is
//! full. WebGPU runs train in tasks of their own (`gpu_run.rs`); in the CPU worker they go to the
//! nested WebGPU worker (`relay.rs`). Language models reply in tasks of their own.

use std::cell::RefCell;
use std::rc::Weak;

use engine::agents::Checkpoint;
use engine::device::{Backend, GpuAdapter, completed};
use engine::effects::LiveState;
use engine::live;
use engine::pace::{Pace, PaceClock};
use engine::protocol::{Finished, FromWorker, RunProgress, ToWorker};
use engine::record_rows::RecordRows;
use engine::run::{Restoration, Resume};
use engine::{EpisodeRecord, Run, RunSpec};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessagePort};

use crate::language_models::LanguageModels;
use crate::page_link::{now, post};
#[cfg(not(feature = "wgpu"))]
use crate::relay::Relay;

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

pub(crate) struct RunSlot {
    pub(crate) id: u32,
    /// `None` while a WebGPU run's task holds it.
    pub(crate) run: Option<Run>,
    pub(crate) on_gpu: bool,
    pub(crate) paused: bool,
    /// Stop asked while a WebGPU run's episode was in flight; its task finishes the run.
    pub(crate) stopping: bool,
    /// Episodes a paused WebGPU run still has to train (single steps).
    pub(crate) steps: u32,
    pub(crate) unsent: Vec<EpisodeRecord>,
    pub(crate) train_ms: f64,
    /// Episodes between clock reads, adapted so that a read comes about every millisecond: reading
    /// the clock costs more than a tabular episode.
    pub(crate) stride: u32,
    /// How fast it trains, for people watching.
    pub(crate) pace: PaceClock,
}

impl RunSlot {
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
            pace: PaceClock::default(),
        }
    }

    /// A CPU run with episodes left to train.
    fn has_work(&self) -> bool {
        !self.paused && self.run.as_ref().is_some_and(|run| !run.is_finished())
    }

    /// A CPU run that has episodes to train now (its batch has room, and its pace allows one).
    fn trains_here(&self, now_ms: f64) -> bool {
        self.has_work() && self.unsent.len() < MAX_UNSENT_RECORDS && self.pace.due(now_ms) != Some(0)
    }

    /// Trains a CPU run for about `budget_ms`.
    fn train_for(&mut self, budget_ms: f64, now: &impl Fn() -> f64) {
        let Some(run) = self.run.as_mut() else { return };
        let start = now();
        let mut elapsed = 0.0;
        while elapsed < budget_ms && !self.paused && !run.is_finished() && self.unsent.len() < MAX_UNSENT_RECORDS {
            let before = elapsed;
            let due = self.pace.due(start + elapsed).map_or(usize::MAX, |due| due as usize);
            if due == 0 {
                break;
            }
            let room = (MAX_UNSENT_RECORDS - self.unsent.len()).min(self.stride as usize).min(due);
            let trained = self.unsent.len();
            self.unsent.extend(run.by_ref().take(room));
            self.pace.trained((self.unsent.len() - trained) as u64);
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

/// Whether this worker has WebGPU: still asking, yes, or no and why.
pub(crate) enum WebGpu {
    Pending,
    Ready,
    Unavailable(String),
}

pub(crate) struct Trainer {
    pub(crate) scope: DedicatedWorkerGlobalScope,
    /// The trainer itself, for the tasks it starts.
    pub(crate) this: Weak<RefCell<Trainer>>,
    /// Posting to one end of this channel schedules a slice: unlike `setTimeout(0)` it is never
    /// clamped to 4 ms.
    pub(crate) wake: MessagePort,
    pub(crate) slots: Vec<RunSlot>,
    /// Runs whose training ended, kept so live mode can ask their agents for actions.
    pub(crate) trained: Vec<(u32, Run)>,
    pub(crate) slice_scheduled: bool,
    pub(crate) last_progress: f64,
    pub(crate) webgpu: WebGpu,
    /// Requests for WebGPU runs that came before WebGPU was up; handled once it is.
    pub(crate) waiting_for_webgpu: Vec<ToWorker>,
    /// The engine's language models and the replies they are writing.
    pub(crate) models: LanguageModels,
    /// The nested WebGPU worker that trains this worker's WebGPU runs.
    #[cfg(not(feature = "wgpu"))]
    pub(crate) relay: Relay,
}

/// The backend a request's run is on, for requests that build a run.
fn requested_backend(request: &ToWorker) -> Option<Backend> {
    match request {
        ToWorker::Start { spec, .. } | ToWorker::Restore { spec, .. } => Some(spec.backend),
        _ => None,
    }
}

impl Trainer {
    /// The trainer of the worker whose global scope is `scope`; posting to `wake` schedules a
    /// slice (the other end of its channel calls [`Trainer::slice`]).
    pub(crate) fn new(scope: DedicatedWorkerGlobalScope, this: Weak<RefCell<Trainer>>, wake: MessagePort) -> Self {
        Self {
            models: LanguageModels::new(scope.clone()),
            scope,
            #[cfg(not(feature = "wgpu"))]
            relay: Self::relay_for(this.clone()),
            this,
            wake,
            slots: Vec::new(),
            trained: Vec::new(),
            slice_scheduled: false,
            last_progress: 0.0,
            webgpu: WebGpu::Pending,
            waiting_for_webgpu: Vec::new(),
        }
    }

    pub(crate) fn post(&self, message: FromWorker) {
        post(&self.scope, message);
    }

    pub(crate) fn slot(&mut self, run_id: u32) -> Option<&mut RunSlot> {
        self.slots.iter_mut().find(|s| s.id == run_id)
    }

    fn schedule(&mut self) {
        if self.slice_scheduled {
            return;
        }
        let now_ms = now(&self.scope);
        if self.slots.iter().any(|s| s.trains_here(now_ms)) {
            self.slice_scheduled = self.wake.post_message(&JsValue::NULL).is_ok();
        } else if self.slots.iter().any(RunSlot::has_work) {
            // Every batch is full or waits for its pace: wake when the next progress message or
            // the next paced episode is due, whichever comes first.
            let paced = self.slots.iter().filter(|s| s.has_work()).map(|s| s.pace.wait_ms(now_ms)).filter(|&w| w > 0.0);
            let due = paced.fold(PROGRESS_INTERVAL_MS - (now_ms - self.last_progress), f64::min);
            let wake = self.wake.clone();
            gloo_timers::callback::Timeout::new(due.ceil().max(1.0) as u32, move || {
                drop(wake.post_message(&JsValue::NULL));
            })
            .forget();
            self.slice_scheduled = true;
        }
    }

    pub(crate) fn handle(&mut self, request: ToWorker) {
        let Some(request) = self.gate(request) else { return };
        match request {
            ToWorker::Start { run_id, spec, resume, pace } => self.start(run_id, spec, resume, pace),
            ToWorker::Pause { run_id } => self.pause(run_id),
            ToWorker::Resume { run_id } => self.resume(run_id),
            ToWorker::Step { run_id } => self.step(run_id),
            ToWorker::Pace { run_id, pace } => {
                let now_ms = now(&self.scope);
                if let Some(slot) = self.slot(run_id) {
                    slot.pace = PaceClock::new(pace, now_ms);
                }
            }
            ToWorker::Stop { run_id } => self.stop(run_id),
            ToWorker::Discard { run_id } => {
                self.slots.retain(|s| s.id != run_id);
                self.trained.retain(|(id, _)| *id != run_id);
            }
            ToWorker::Restore { run_id, spec, resume, checkpoint } => self.restore(run_id, spec, resume, checkpoint),
            ToWorker::Decide { request_id, run_id, state } => self.decide(request_id, run_id, &state),
            ToWorker::LoadModel { model_id, name, .. } => {
                let result = Err(format!("{name}: no file came with the request"));
                self.post(FromWorker::ModelLoaded { model_id, result });
            }
            ToWorker::Generate(request) => self.models.generate(request),
            ToWorker::StopGeneration { request_id } => self.models.stop(request_id),
            ToWorker::NextLogits { request_id, model_id, messages } => {
                self.models.next_logits(request_id, model_id, messages)
            }
            // lib.rs hands these to the model trainings (`model_training.rs`).
            ToWorker::TrainModel { .. }
            | ToWorker::ProgramsRan { .. }
            | ToWorker::StopTraining { .. }
            | ToWorker::PauseTraining { .. } => {}
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

    fn start(&mut self, run_id: u32, spec: RunSpec, resume: Option<Resume>, pace: Pace) {
        let clock = PaceClock::new(pace, now(&self.scope));
        match Run::new(spec) {
            Ok(run) if run.spec().backend == Backend::Wgpu => {
                // The slot is made without its run: the WebGPU task holds it.
                let mut slot = RunSlot::new(run_id, run);
                if let Some(run) = slot.run.take() {
                    self.slots.push(slot);
                    self.spawn_gpu_task(run_id, run, resume);
                }
            }
            // The replay blocks this worker for as long as those episodes took to train.
            Ok(run) => match resume {
                Some(resume) => match completed(run.resume(&resume)) {
                    Ok(run) => self.slots.push(RunSlot::new(run_id, run)),
                    Err(message) => self.post(FromWorker::Failed { run_id: Some(run_id), message }),
                },
                None => self.slots.push(RunSlot::new(run_id, run)),
            },
            Err(message) => self.post(FromWorker::Failed { run_id: Some(run_id), message }),
        }
        self.slot(run_id).into_iter().for_each(|slot| slot.pace = clock);
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
        let now_ms = now(&self.scope);
        if let Some(slot) = self.slot(run_id) {
            slot.paused = false;
            // A slow pace goes on from now rather than making up the paused time in a burst.
            slot.pace = PaceClock::new(slot.pace.pace(), now_ms);
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

    pub(crate) fn post_paused(&self, run_id: u32) {
        if let Some(run) = self.slots.iter().find(|s| s.id == run_id).and_then(|s| s.run.as_ref()) {
            let policy = Box::new(run.policy_view());
            self.post(FromWorker::Paused { run_id, episodes_done: run.episodes_done(), policy });
        }
    }

    /// One slice of training shared by the CPU runs in progress.
    pub(crate) fn slice(&mut self) {
        self.slice_scheduled = false;
        let now_ms = now(&self.scope);
        let running = self.slots.iter().filter(|s| s.trains_here(now_ms)).count();
        if running > 0 {
            let scope = self.scope.clone();
            let share = SLICE_MS / running as f64;
            for slot in self.slots.iter_mut().filter(|s| s.trains_here(now_ms)) {
                slot.train_for(share, &|| now(&scope));
            }
        }
        self.send_progress_due();
        self.finish_done_runs();
        self.schedule();
    }

    /// Sends progress if the last message is old enough or a run has finished.
    pub(crate) fn send_progress_due(&mut self) {
        if now(&self.scope) - self.last_progress >= PROGRESS_INTERVAL_MS
            || self.slots.iter().any(|s| s.run.as_ref().is_some_and(Run::is_finished))
        {
            self.send_progress();
        }
    }

    pub(crate) fn send_progress(&mut self) {
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
    pub(crate) fn finish(&mut self, mut slot: RunSlot) {
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

    /// Loads a model file the page posted: read and loaded here on the CPU; on WebGPU, in the
    /// nested worker (the CPU worker relays it there) once WebGPU is up.
    pub(crate) fn load_model_file(&mut self, model_id: u32, name: String, backend: Backend, file: web_sys::Blob) {
        let (trainer, models) = (self.this.clone(), self.models.clone());
        wasm_bindgen_futures::spawn_local(async move {
            if backend == Backend::Wgpu
                && let Err(why) = webgpu_up(&trainer).await
            {
                let problem = format!("this browser offers no WebGPU ({why}); choose the engine on the CPU");
                return models.refuse(model_id, &name, &problem);
            }
            #[cfg(not(feature = "wgpu"))]
            if let Some(trainer) = trainer.upgrade() {
                let this = &mut *trainer.borrow_mut();
                if backend == Backend::Wgpu {
                    return this.relay.send_model(model_id, &name, file, &this.scope);
                }
                this.relay.forget_model(model_id);
            }
            models.load_file(model_id, &name, backend, file).await;
        });
    }

    pub(crate) fn webgpu_settled(&mut self, adapter: Result<GpuAdapter, String>) {
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

/// Waits for this worker's WebGPU to come up, or says why it did not.
pub(crate) async fn webgpu_up(trainer: &Weak<RefCell<Trainer>>) -> Result<(), String> {
    loop {
        let Some(strong) = trainer.upgrade() else { return Err("the worker ended".into()) };
        match &strong.borrow().webgpu {
            WebGpu::Ready => return Ok(()),
            WebGpu::Unavailable(why) => return Err(why.clone()),
            WebGpu::Pending => {}
        }
        drop(strong);
        gloo_timers::future::TimeoutFuture::new(50).await;
    }
}
