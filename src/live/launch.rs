//! What Live mode's actions do: an episode of one task ([`LiveView::play`]) or seed 003 §5.2's
//! validation ([`LiveView::validate`]), each driven by the page's host ([`LiveView::perform`]), with
//! the panel's state they show and keep. The components are in `mod.rs` and `views.rs`.

use engine::EnvId;
use engine::effects::{BlackboardMessage, Effectful, LiveState, Llm};
use engine::env::EnvSpec;
use engine::live::validation::{Validation, ValidationTable};
use engine::live::{Driver, LiveEpisode, LiveStep, LiveSummary, LiveTask, Trial};
use engine::llm::Usage;
use engine::prompts::PromptSet;
use engine::run::Restoration;
use leptos::prelude::*;

use crate::live::calibration::Recalibration;
use crate::services::cancel::CancelToken;
use crate::services::chat;
use crate::services::host::{self, HostView};
use crate::services::llm_choice::LlmChoice;
use crate::services::model::{LIVE_EPISODE_BASE, RunData};
use crate::services::python_pool::Python;
use crate::services::worker_bridge::WorkerBridge;

fn restoration_note(run_id: u32, how: &Restoration) -> String {
    match how {
        Restoration::Checkpoint => format!("Run #{run_id}'s policy was loaded from its stored checkpoint."),
        Restoration::Replay { episodes, checkpoint_problem: None } => {
            format!("Run #{run_id}'s policy was rebuilt by training its {episodes} recorded episodes again.")
        }
        Restoration::Replay { episodes, checkpoint_problem: Some(problem) } => format!(
            "Run #{run_id}'s stored checkpoint could not be used ({problem}); its policy was rebuilt by training its {episodes} recorded episodes again."
        ),
    }
}

/// Who drives the episode, as the policy select offers it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Choice {
    Run(u32, EnvId),
    Pipeline(EnvId),
}

impl Choice {
    pub(super) fn value(self) -> String {
        match self {
            Choice::Run(id, _) => format!("run-{id}"),
            Choice::Pipeline(env) => format!("pipeline-{}", env.name()),
        }
    }

    pub(super) fn env(self) -> EnvId {
        match self {
            Choice::Run(_, env) | Choice::Pipeline(env) => env,
        }
    }

    pub(super) fn run(self) -> Option<u32> {
        match self {
            Choice::Run(id, _) => Some(id),
            Choice::Pipeline(_) => None,
        }
    }
}

/// One finished live episode, for the comparison table and the calibration.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct HistoryRow {
    pub(super) driver: String,
    pub(super) task: String,
    pub(super) llm: String,
    /// Where the model ran (`chat::device`); empty for an endpoint and the simulated LLM.
    pub(super) device: String,
    pub(super) env: EnvId,
    pub(super) summary: LiveSummary,
    pub(super) cost: f64,
    pub(super) trials: Vec<Trial>,
}

/// The panel's state: what it shows of the episode under way, what it keeps of finished ones, and
/// the actions that start episodes.
#[derive(Clone, Copy)]
pub(super) struct LiveView {
    pub(super) bridge: WorkerBridge,
    pub(super) llm_choice: LlmChoice,
    pub(super) python: StoredValue<Python, LocalStorage>,
    pub(super) runs: RwSignal<Vec<RunData>>,
    pub(super) problem: RwSignal<Option<String>>,
    pub(super) running: RwSignal<bool>,
    pub(super) summary: RwSignal<Option<(LiveSummary, f64, String)>>,
    pub(super) validation: RwSignal<Option<ValidationTable>>,
    pub(super) recalibration: RwSignal<Option<Recalibration>>,
    /// The last complete validation's run and its policy's success rate: §6.2's "before".
    pub(super) last_validated: StoredValue<Option<(u32, f64)>>,
    pub(super) cancel: StoredValue<CancelToken, LocalStorage>,
    /// Seeds the offline LLM of each new action.
    pub(super) episodes_played: StoredValue<u64>,
    pub(super) status: RwSignal<String>,
    pub(super) stream: RwSignal<String>,
    pub(super) messages: RwSignal<Vec<BlackboardMessage>>,
    pub(super) steps: RwSignal<Vec<(String, LiveStep)>>,
    // How the policy came back after a reload or an import.
    pub(super) restoration: RwSignal<Option<String>>,
    pub(super) history: RwSignal<Vec<HistoryRow>>,
    /// The share of each task's tests held out from the LLM, as typed (empty or 0: none).
    pub(super) held_out: RwSignal<String>,
}

impl LiveView {
    pub(super) fn new(runs: RwSignal<Vec<RunData>>) -> Self {
        Self {
            bridge: expect_context::<WorkerBridge>(),
            llm_choice: expect_context::<LlmChoice>(),
            python: Python::from_context(),
            runs,
            problem: RwSignal::new(None),
            running: RwSignal::new(false),
            summary: RwSignal::new(None),
            validation: RwSignal::new(None),
            recalibration: RwSignal::new(None),
            last_validated: StoredValue::new(None),
            cancel: StoredValue::new_local(CancelToken::default()),
            episodes_played: StoredValue::new(0),
            status: RwSignal::new(String::new()),
            stream: RwSignal::new(String::new()),
            messages: RwSignal::new(Vec::new()),
            steps: RwSignal::new(Vec::new()),
            restoration: RwSignal::new(None),
            history: RwSignal::new(Vec::new()),
            held_out: RwSignal::new(String::new()),
        }
    }

    /// `task` with the share of its tests the form holds out (`LiveTask::holding_out`, the split
    /// drawn from `seed`), or why the share is not one.
    fn holding_out(self, task: LiveTask, seed: u64) -> Result<LiveTask, String> {
        let typed = self.held_out.get_untracked();
        let typed = typed.trim();
        if typed.is_empty() || typed == "0" {
            return Ok(task);
        }
        let share: f64 =
            typed.parse().map_err(|_| format!("Held-out tests: '{typed}' is not a share from 0 (none) to below 1"))?;
        task.holding_out(share, seed).map_err(|why| format!("Held-out tests: {why}"))
    }

    /// The LLMs that answered the episodes played on `env` that drew the simulator's odds, each with
    /// how fast it wrote over them and where it ran, for the calibration that rests on them.
    pub(super) fn answered_by(self, env: Option<EnvId>) -> String {
        let mut by_llm: Vec<(String, String, Usage)> = Vec::new();
        self.history.with(|history| {
            for row in history.iter().filter(|r| Some(r.env) == env && !r.trials.is_empty()) {
                match by_llm.iter_mut().find(|(llm, device, _)| *llm == row.llm && *device == row.device) {
                    Some((.., usage)) => usage.add(row.summary.usage),
                    None => by_llm.push((row.llm.clone(), row.device.clone(), row.summary.usage)),
                }
            }
        });
        let named = by_llm.into_iter().map(|(llm, device, usage)| match usage.speed_on(&device) {
            Some(speed) => format!("{llm}, written at {speed}"),
            None => llm,
        });
        named.collect::<Vec<_>>().join("; ")
    }

    fn show(self, episode: &LiveEpisode) {
        let names = episode.env().action_names();
        self.messages.set(episode.messages().to_vec());
        self.steps.set(episode.steps().iter().map(|s| (names[s.action].to_owned(), s.clone())).collect());
    }

    /// Keeps a finished episode in the history, and a policy's in its run's episode tree.
    fn record(
        self,
        episode: &LiveEpisode,
        run_id: Option<u32>,
        driver: String,
        llm: String,
        device: String,
        cost: f64,
    ) {
        let summary = episode.summary().clone();
        if let (Some(run_id), Driver::Policy) = (run_id, episode.driver()) {
            let actions: Vec<u8> = episode.actions().iter().map(|&a| a as u8).collect();
            self.runs.update(|runs| {
                if let Some(run) = runs.iter_mut().find(|r| r.id == run_id) {
                    let id = LIVE_EPISODE_BASE + run.live_episodes;
                    run.live_episodes += 1;
                    run.tree.add(id, &actions, summary.episode_return, summary.success);
                }
            });
        }
        let row = HistoryRow {
            driver,
            task: episode.task().id.clone(),
            llm,
            device,
            env: episode.env(),
            trials: episode.trials(),
            summary,
            cost,
        };
        self.history.update(|h| h.push(row));
    }

    /// The LLM and the prompts for a new action, or `None` once the problem is shown.
    fn launch(self) -> Option<Launch> {
        let seed = self.episodes_played.get_value() + 1;
        let llm = match self.llm_choice.llm(seed) {
            Ok(llm) => llm,
            Err(message) => {
                self.problem.set(Some(message));
                return None;
            }
        };
        self.episodes_played.set_value(seed);
        let token = CancelToken::default();
        self.cancel.set_value(token.clone());
        Some(Launch { llm, prompts: self.llm_choice.prompts.get_untracked(), token, seed })
    }

    fn begin(self) {
        self.problem.set(None);
        self.running.set(true);
        self.summary.set(None);
        self.stream.set(String::new());
    }

    /// One episode of `task` driven by `choice` (labelled `label`) under `env`.
    pub(super) fn play(self, choice: Choice, label: String, env: EnvSpec, task: LiveTask) {
        let driver = if matches!(choice, Choice::Pipeline(_)) { Driver::Pipeline } else { Driver::Policy };
        let Some(launch) = self.launch() else { return };
        let task = match self.holding_out(task, launch.seed) {
            Ok(task) => task,
            Err(message) => return self.problem.set(Some(message)),
        };
        let mut episode = match LiveEpisode::new(&env, driver, task, launch.prompts.clone()) {
            Ok(episode) => episode,
            Err(message) => return self.problem.set(Some(message)),
        };
        self.begin();
        let python = self.python.get_value();
        let Launch { llm, token, .. } = launch;
        let (llm_label, prices, in_tab) = (llm.label(), llm.prices(), llm.runs_in_tab());
        leptos::task::spawn_local(async move {
            self.perform(&mut episode, llm, &python, &token, choice.run(), |e| self.show(e)).await;
            let cost = episode.summary().usage.cost(prices);
            let device = chat::device(in_tab);
            self.status.set(format!("Episode over: {}.", episode.summary().ended));
            self.summary.set(Some((episode.summary().clone(), cost, device.clone())));
            self.record(&episode, choice.run(), label, llm_label, device, cost);
            self.running.set(false);
        });
    }

    /// Seed 003 §5.2: run `run_id`'s policy (labelled `label`) and the pipeline (`pipeline_label`)
    /// on each of the five tasks, one after the other, under `env`.
    pub(super) fn validate(self, run_id: u32, label: String, pipeline_label: String, env: EnvSpec) {
        let Some(launch) = self.launch() else { return };
        let tasks: Result<Vec<_>, _> =
            LiveTask::seed003().into_iter().map(|task| self.holding_out(task, launch.seed)).collect();
        let mut run = match tasks.and_then(|tasks| Validation::new(&env, tasks, &launch.prompts)) {
            Ok(run) => run,
            Err(message) => return self.problem.set(Some(message)),
        };
        self.begin();
        self.validation.set(Some(run.table()));
        let python = self.python.get_value();
        let Launch { llm, token, .. } = launch;
        let (llm_label, prices, in_tab) = (llm.label(), llm.prices(), llm.runs_in_tab());
        leptos::task::spawn_local(async move {
            let show = |v: &Validation| {
                if let Some(episode) = v.current() {
                    self.show(episode);
                }
                self.validation.set(Some(v.table()));
            };
            self.perform(&mut run, llm, &python, &token, Some(run_id), show).await;
            for episode in run.finished() {
                let driver = if episode.driver() == Driver::Policy { label.clone() } else { pipeline_label.clone() };
                let cost = episode.summary().usage.cost(prices);
                self.record(episode, Some(run_id), driver, llm_label.clone(), chat::device(in_tab), cost);
            }
            self.status.set(format!("Validation over: {} of 10 episodes played.", run.finished().len()));
            self.validation.set(Some(run.table()));
            if run.is_done() {
                let rate = run.table().policy.success_rate();
                self.recalibration
                    .update(|r| r.iter_mut().filter(|r| r.retrained == run_id).for_each(|r| r.after = Some(rate)));
                self.last_validated.set_value(Some((run_id, rate)));
            }
            self.running.set(false);
        });
    }

    /// Performs `task`'s needs: run `run_id`'s trained policy answers its decisions, brought back
    /// from its records first when the worker no longer holds it (after a reload).
    async fn perform<T: Effectful>(
        self,
        task: &mut T,
        mut llm: Llm,
        python: &Python,
        token: &CancelToken,
        run_id: Option<u32>,
        show: impl FnMut(&T),
    ) {
        let (bridge, status, runs, restoration) = (self.bridge, self.status, self.runs, self.restoration);
        let mut restored = false;
        let decide = async |state: LiveState| {
            let Some(run_id) = run_id else { return Err("the fixed pipeline decides for itself".to_owned()) };
            status.set("Asking the policy for its next action…".into());
            let decision = bridge.decide(run_id, state.clone()).await;
            if decision.is_ok() || restored {
                return decision;
            }
            restored = true;
            let Some(run) = runs.with_untracked(|r| r.iter().find(|r| r.id == run_id).cloned()) else {
                return decision;
            };
            status.set(format!("Bringing run #{run_id}'s trained agent back…"));
            let how = bridge.restore(&run).await?;
            restoration.set(Some(restoration_note(run_id, &how)));
            bridge.decide(run_id, state).await
        };
        let view = HostView { status: self.status, stream: self.stream };
        // An episode Python failed ends with the reason, which its summary shows.
        let _ = host::drive(task, &mut llm, python, token, decide, view, show).await;
    }
}

/// What a live action starts with: the LLM, the prompts, and its cancel token.
struct Launch {
    llm: Llm,
    prompts: PromptSet,
    token: CancelToken,
    /// Seeds the offline LLM and the held-out split.
    seed: u64,
}
