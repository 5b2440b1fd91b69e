//! The training worker. The page posts [`ToWorker`] messages; the worker trains off the main thread
//! and streams [`FromWorker`] messages back. Training runs in slices of a few milliseconds, handed
//! round the runs in progress, with a yield to the event loop between slices so that pause, step
//! and stop requests are handled at once. Episode records are batched so that the page receives at
//! most about 30 progress messages a second however fast training goes.

use std::cell::RefCell;
use std::rc::Rc;

use engine::agents::fixed_pipeline;
use engine::live;
use engine::protocol::{Envelope, Finished, FromWorker, RunProgress, ToWorker};
use engine::{EnvId, EpisodeRecord, Run};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// Milliseconds between progress messages.
const PROGRESS_INTERVAL_MS: f64 = 33.0;
/// Milliseconds of training between yields to the event loop.
const SLICE_MS: f64 = 10.0;
/// Fresh episodes on which the greedy policy is evaluated when a run finishes.
const EVALUATION_EPISODES: u32 = 1000;

struct Slot {
    id: u32,
    run: Run,
    paused: bool,
    unsent: Vec<EpisodeRecord>,
    train_ms: f64,
    /// Episodes between clock reads, adapted so that a read comes about every millisecond: reading
    /// the clock costs more than a tabular episode.
    stride: u32,
}

impl Slot {
    /// Trains for about `budget_ms`; returns the time taken.
    fn train_for(&mut self, budget_ms: f64, now: &impl Fn() -> f64) -> f64 {
        let start = now();
        let mut elapsed = 0.0;
        while elapsed < budget_ms && !self.paused && !self.run.is_finished() {
            let before = elapsed;
            self.unsent.extend((0..self.stride).map_while(|_| self.run.train_episode()));
            elapsed = now() - start;
            let took = elapsed - before;
            if took < 0.5 {
                self.stride = (self.stride * 2).min(4096);
            } else if took > 2.0 {
                self.stride = (self.stride / 2).max(1);
            }
        }
        self.train_ms += elapsed;
        elapsed
    }
}

struct Trainer {
    scope: DedicatedWorkerGlobalScope,
    /// Posting to one end of this channel schedules a slice: unlike `setTimeout(0)` it is never
    /// clamped to 4 ms.
    wake: MessagePort,
    slots: Vec<Slot>,
    /// Runs whose training ended, kept so live mode can ask their agents for actions.
    trained: Vec<(u32, Run)>,
    slice_scheduled: bool,
    last_progress: f64,
}

/// Milliseconds on the worker's high-resolution clock.
fn now(scope: &DedicatedWorkerGlobalScope) -> f64 {
    scope.performance().map_or_else(js_sys::Date::now, |p| p.now())
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
        if !self.slice_scheduled && self.slots.iter().any(|s| !s.paused) {
            self.slice_scheduled = self.wake.post_message(&JsValue::NULL).is_ok();
        }
    }

    fn handle(&mut self, request: ToWorker) {
        match request {
            ToWorker::Start { run_id, spec, measured_verdicts, resume } => {
                let run = match measured_verdicts {
                    Some(measured) => Run::with_measured_verdicts(spec, &measured),
                    None => Run::new(spec),
                };
                // The replay blocks this worker for as long as those episodes took to train.
                let run = match resume {
                    Some(resume) => run.and_then(|run| run.resume(&resume)),
                    None => run,
                };
                match run {
                    Ok(run) => {
                        let slot =
                            Slot { id: run_id, run, paused: false, unsent: Vec::new(), train_ms: 0.0, stride: 1 };
                        self.slots.push(slot);
                    }
                    Err(message) => self.post(FromWorker::Failed { run_id: Some(run_id), message }),
                }
            }
            ToWorker::Pause { run_id } => {
                if let Some(slot) = self.slot(run_id) {
                    slot.paused = true;
                    self.send_progress();
                    self.post_paused(run_id);
                }
            }
            ToWorker::Resume { run_id } => {
                if let Some(slot) = self.slot(run_id) {
                    slot.paused = false;
                    self.post(FromWorker::Resumed { run_id });
                }
            }
            ToWorker::Step { run_id } => {
                let scope = self.scope.clone();
                if let Some(slot) = self.slot(run_id).filter(|s| s.paused) {
                    let start = now(&scope);
                    slot.unsent.extend(slot.run.train_episode());
                    slot.train_ms += now(&scope) - start;
                    self.send_progress();
                    self.post_paused(run_id);
                    self.finish_done_runs();
                }
            }
            ToWorker::Stop { run_id } => {
                if let Some(index) = self.slots.iter().position(|s| s.id == run_id) {
                    self.send_progress();
                    let slot = self.slots.remove(index);
                    self.finish(slot);
                }
            }
            ToWorker::Discard { run_id } => {
                self.slots.retain(|s| s.id != run_id);
                self.trained.retain(|(id, _)| *id != run_id);
            }
            ToWorker::Restore { run_id, spec, resume, checkpoint } => {
                let result = Run::rebuild(spec, &resume, checkpoint.as_ref()).map(|(run, how)| {
                    self.trained.retain(|(id, _)| *id != run_id);
                    self.trained.push((run_id, run));
                    how
                });
                self.post(FromWorker::Restored { run_id, result });
            }
            ToWorker::Decide { request_id, run_id, state } => {
                let run = self
                    .slots
                    .iter()
                    .find(|s| s.id == run_id)
                    .map(|s| &s.run)
                    .or_else(|| self.trained.iter().find(|(id, _)| *id == run_id).map(|(_, run)| run));
                let result = match run {
                    Some(run) => live::decide(run, &state),
                    None => Err(format!("run #{run_id} is not in the training worker")),
                };
                self.post(FromWorker::Decision { request_id, result });
            }
        }
        self.schedule();
    }

    fn post_paused(&self, run_id: u32) {
        if let Some(slot) = self.slots.iter().find(|s| s.id == run_id) {
            let policy = Box::new(slot.run.policy_view());
            self.post(FromWorker::Paused { run_id, episodes_done: slot.run.episodes_done(), policy });
        }
    }

    /// One slice of training shared by the runs in progress.
    fn slice(&mut self) {
        self.slice_scheduled = false;
        let running = self.slots.iter().filter(|s| !s.paused && !s.run.is_finished()).count();
        if running > 0 {
            let scope = self.scope.clone();
            let share = SLICE_MS / running as f64;
            for slot in self.slots.iter_mut().filter(|s| !s.paused) {
                slot.train_for(share, &|| now(&scope));
            }
        }
        if now(&self.scope) - self.last_progress >= PROGRESS_INTERVAL_MS
            || self.slots.iter().any(|s| s.run.is_finished())
        {
            self.send_progress();
        }
        self.finish_done_runs();
        self.schedule();
    }

    fn send_progress(&mut self) {
        let runs: Vec<RunProgress> = self
            .slots
            .iter_mut()
            .filter(|s| !s.unsent.is_empty())
            .map(|s| RunProgress { run_id: s.id, records: std::mem::take(&mut s.unsent) })
            .collect();
        if !runs.is_empty() {
            self.post(FromWorker::Progress { runs });
        }
        self.last_progress = now(&self.scope);
    }

    fn finish_done_runs(&mut self) {
        while let Some(index) = self.slots.iter().position(|s| s.run.is_finished()) {
            let slot = self.slots.remove(index);
            self.finish(slot);
        }
    }

    /// Evaluates a run whose training ended and reports it.
    fn finish(&mut self, mut slot: Slot) {
        slot.run.stop();
        let spec = slot.run.spec();
        let finished = Finished {
            run_id: slot.id,
            summary: slot.run.summary(),
            greedy: slot.run.evaluate_greedy(EVALUATION_EPISODES),
            fixed_pipeline: (spec.env == EnvId::Orchestrator)
                .then(|| fixed_pipeline::evaluate(spec.seed, EVALUATION_EPISODES)),
            policy: slot.run.policy_view(),
            train_ms: slot.train_ms,
            learn_steps: slot.run.agent().learn_steps(),
            // A run without its checkpoint is still whole: its policy can be trained again.
            checkpoint: slot.run.checkpoint().inspect_err(|problem| web_sys::console::warn_1(&problem.into())).ok(),
        };
        self.post(FromWorker::Finished(Box::new(finished)));
        self.trained.push((slot.id, slot.run));
    }
}

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let channel = MessageChannel::new().expect("workers have MessageChannel");
    let trainer = Rc::new(RefCell::new(Trainer {
        scope: scope.clone(),
        wake: channel.port2(),
        slots: Vec::new(),
        trained: Vec::new(),
        slice_scheduled: false,
        last_progress: 0.0,
    }));

    trainer.borrow().post(FromWorker::Ready);
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
