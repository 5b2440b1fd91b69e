//! A run on WebGPU cannot block on its GPU: it trains in a task of its own that awaits each
//! episode ([`drive_gpu_run`]), and its policy is read from a CPU copy whenever it is paused,
//! stopped or finished. The trainer's side of it: starting, waking and taking back such a task.

use std::cell::RefCell;
use std::rc::Weak;

use engine::protocol::FromWorker;
use engine::run::Resume;
use engine::{EpisodeRecord, Run};
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use crate::page_link::now;
use crate::trainer::Trainer;

/// What a WebGPU run's task does next, decided between episodes.
pub(crate) enum GpuTurn {
    Train,
    /// Its pace holds the next episode back this many milliseconds.
    Wait(f64),
    /// Paused: hand the run back to its slot with a CPU copy of its policy.
    Park,
    /// Stopped or finished: finish the run.
    Finish,
    /// The page discarded the run.
    Gone,
}

impl Trainer {
    pub(crate) fn spawn_gpu_task(&self, run_id: u32, run: Run, resume: Option<Resume>) {
        wasm_bindgen_futures::spawn_local(drive_gpu_run(self.this.clone(), run_id, run, resume));
    }

    /// Starts the task of a parked WebGPU run again (after resume, step or stop).
    pub(crate) fn wake_gpu_run(&mut self, run_id: u32) {
        if let Some(slot) = self.slot(run_id).filter(|s| s.on_gpu)
            && let Some(run) = slot.run.take()
        {
            self.spawn_gpu_task(run_id, run, None);
        }
    }

    fn gpu_turn(&mut self, run_id: u32, run: &Run) -> GpuTurn {
        let now_ms = now(&self.scope);
        let Some(slot) = self.slot(run_id) else { return GpuTurn::Gone };
        if slot.stopping || run.is_finished() {
            GpuTurn::Finish
        } else if !slot.paused && slot.pace.due(now_ms) == Some(0) {
            GpuTurn::Wait(slot.pace.wait_ms(now_ms))
        } else if !slot.paused {
            slot.pace.trained(1);
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
            GpuTurn::Wait(ms) => gloo_timers::future::TimeoutFuture::new(ms.ceil().max(1.0) as u32).await,
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
