//! Live mode: a trained run's policy, or the fixed pipeline, drives an LLM on one task, and every
//! program it writes is tested by Pyodide. The episode itself is `engine::live::LiveEpisode`; this
//! panel starts it, has `host::drive` perform what it needs (the training worker answers the
//! policy's decisions), and shows the blackboard, the code at each step and the costs.
//! One more action plays seed 003 §5.2's validation: the policy and the pipeline on the five real
//! tasks, with the seed's table (`ValidationView`); every episode's draws of the simulator's odds
//! feed the calibration below (`calibration.rs`). The LLM, its settings and the prompts are
//! `llm_settings`'s, shared with every pane that drives an LLM.

pub mod calibration;
mod views;

use engine::cheating::held_out::HeldOutScore;
use engine::effects::{BlackboardMessage, Effectful, LiveState, Llm};
use engine::env::EnvSpec;
use engine::live::validation::{Validation, ValidationTable};
use engine::live::{Driver, LiveEpisode, LiveStep, LiveSummary, LiveTask, Trial};
use engine::llm::ProviderSettings;
use engine::prompts::PromptSet;
use engine::run::Restoration;
use engine::{AgentId, EnvId, RunSpec};
use leptos::prelude::*;

use crate::live::calibration::{CalibrationPanel, Recalibration};
use crate::live::views::{BlackboardTable, LiveHistory, LiveSteps, ValidationView};
use crate::services::host::{self, HostView};
use crate::services::llm_client::CancelToken;
use crate::services::model::{LIVE_EPISODE_BASE, RunData, Status};
use crate::services::python_pool::Python;
use crate::services::run_book::RunBook;
use crate::services::storage::ImportedTasks;
use crate::services::worker_bridge::WorkerBridge;
use crate::widgets::llm_settings::{EndpointFields, LlmChoice, LlmSelect, PromptEditor};

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
enum Choice {
    Run(u32, EnvId),
    Pipeline(EnvId),
}

impl Choice {
    fn value(self) -> String {
        match self {
            Choice::Run(id, _) => format!("run-{id}"),
            Choice::Pipeline(env) => format!("pipeline-{}", env.name()),
        }
    }

    fn env(self) -> EnvId {
        match self {
            Choice::Run(_, env) | Choice::Pipeline(env) => env,
        }
    }

    fn run(self) -> Option<u32> {
        match self {
            Choice::Run(id, _) => Some(id),
            Choice::Pipeline(_) => None,
        }
    }
}

/// One finished live episode, for the comparison table and the calibration.
#[derive(Clone, Debug, PartialEq)]
struct HistoryRow {
    driver: String,
    task: String,
    llm: String,
    env: EnvId,
    summary: LiveSummary,
    cost: f64,
    trials: Vec<Trial>,
}

/// The panel's state: what it shows of the episode under way, what it keeps of finished ones, and
/// the actions that start episodes.
#[derive(Clone, Copy)]
struct LiveView {
    bridge: WorkerBridge,
    llm_choice: LlmChoice,
    python: StoredValue<Python, LocalStorage>,
    runs: RwSignal<Vec<RunData>>,
    problem: RwSignal<Option<String>>,
    running: RwSignal<bool>,
    summary: RwSignal<Option<(LiveSummary, f64)>>,
    validation: RwSignal<Option<ValidationTable>>,
    recalibration: RwSignal<Option<Recalibration>>,
    /// The last complete validation's run and its policy's success rate: §6.2's "before".
    last_validated: StoredValue<Option<(u32, f64)>>,
    cancel: StoredValue<CancelToken, LocalStorage>,
    /// Seeds the offline LLM of each new action.
    episodes_played: StoredValue<u64>,
    status: RwSignal<String>,
    stream: RwSignal<String>,
    messages: RwSignal<Vec<BlackboardMessage>>,
    steps: RwSignal<Vec<(String, LiveStep)>>,
    // How the policy came back after a reload or an import.
    restoration: RwSignal<Option<String>>,
    history: RwSignal<Vec<HistoryRow>>,
    /// The share of each task's tests held out from the LLM, as typed (empty or 0: none).
    held_out: RwSignal<String>,
}

impl LiveView {
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

    fn show(self, episode: &LiveEpisode) {
        let names = episode.env().action_names();
        self.messages.set(episode.messages().to_vec());
        self.steps.set(episode.steps().iter().map(|s| (names[s.action].to_owned(), s.clone())).collect());
    }

    /// Keeps a finished episode in the history, and a policy's in its run's episode tree.
    fn record(self, episode: &LiveEpisode, run_id: Option<u32>, driver: String, llm: String, cost: f64) {
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
        let (llm, llm_label, endpoint) = match self.llm_choice.llm(seed) {
            Ok(llm) => llm,
            Err(message) => {
                self.problem.set(Some(message));
                return None;
            }
        };
        self.episodes_played.set_value(seed);
        let token = CancelToken::default();
        self.cancel.set_value(token.clone());
        Some(Launch { llm, llm_label, endpoint, prompts: self.llm_choice.prompts.get_untracked(), token, seed })
    }

    fn begin(self) {
        self.problem.set(None);
        self.running.set(true);
        self.summary.set(None);
        self.stream.set(String::new());
    }

    /// One episode of `task` driven by `choice` (labelled `label`) under `env`.
    fn play(self, choice: Choice, label: String, env: EnvSpec, task: LiveTask) {
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
        let Launch { llm, llm_label, endpoint, token, .. } = launch;
        leptos::task::spawn_local(async move {
            self.perform(&mut episode, llm, &python, &token, choice.run(), |e| self.show(e)).await;
            let cost = cost(endpoint.as_ref(), &episode);
            self.status.set(format!("Episode over: {}.", episode.summary().ended));
            self.summary.set(Some((episode.summary().clone(), cost)));
            self.record(&episode, choice.run(), label, llm_label, cost);
            self.running.set(false);
        });
    }

    /// Seed 003 §5.2: run `run_id`'s policy (labelled `label`) and the pipeline (`pipeline_label`)
    /// on each of the five tasks, one after the other, under `env`.
    fn validate(self, run_id: u32, label: String, pipeline_label: String, env: EnvSpec) {
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
        let Launch { llm, llm_label, endpoint, token, .. } = launch;
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
                self.record(episode, Some(run_id), driver, llm_label.clone(), cost(endpoint.as_ref(), episode));
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

/// What a live action starts with: the LLM, its label and endpoint, the prompts, and its cancel
/// token.
struct Launch {
    llm: Llm,
    llm_label: String,
    endpoint: Option<ProviderSettings>,
    prompts: PromptSet,
    token: CancelToken,
    /// Seeds the offline LLM and the held-out split.
    seed: u64,
}

/// What `episode` cost at `endpoint`'s prices (nothing on the simulated LLM).
fn cost(endpoint: Option<&ProviderSettings>, episode: &LiveEpisode) -> f64 {
    endpoint.map_or(0.0, |settings| episode.summary().usage.cost(settings))
}

#[component]
pub fn LivePanel() -> impl IntoView {
    let runs = expect_context::<RunBook>().runs;
    let imported = ImportedTasks::from_context();
    let task_id = RwSignal::new(String::new());
    let choice_value = RwSignal::new(String::new());
    let view = LiveView {
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
    };
    let (problem, running, summary) = (view.problem, view.running, view.summary);

    let tasks = move || {
        let mut all = LiveTask::bundled();
        all.extend(LiveTask::seed003());
        imported.with(|t| all.extend(t.iter().map(LiveTask::from_imported)));
        all
    };
    let choices = Memo::new(move |_| policy_choices(runs));
    let chosen = move || {
        let value = choice_value.get();
        let all = choices.get();
        all.iter().find(|(c, _)| c.value() == value).or(all.first()).map(|(c, label)| (*c, label.clone()))
    };
    let label_of = move |wanted: Choice| {
        choices.get_untracked().into_iter().find(|(c, _)| *c == wanted).map(|(_, l)| l).unwrap_or_default()
    };
    // The environment's parameters: a trained run's, whose rewards its policy learned (the fixed
    // pipeline compared with it follows them too), or the seed's.
    let env_spec = move |choice: Choice| {
        let of_run = |id| runs.with(|runs| runs.iter().find(|r| r.id == id).map(|r| r.spec.env.clone()));
        choice.run().and_then(of_run).unwrap_or_else(|| choice.env().default_spec())
    };
    let play = move |choice: Choice, label: String, env: EnvSpec| {
        let (all, wanted) = (tasks(), task_id.get_untracked());
        match all.iter().find(|t| t.id == wanted).or(all.first()).cloned() {
            Some(task) => view.play(choice, label, env, task),
            None => problem.set(Some("there is no task to solve".into())),
        }
    };
    let go = move |_| {
        if let Some((choice, label)) = chosen() {
            play(choice, label, env_spec(choice));
        }
    };
    let compare = move |_| {
        if let Some((choice, _)) = chosen() {
            let pipeline = Choice::Pipeline(choice.env());
            play(pipeline, label_of(pipeline), env_spec(choice));
        }
    };
    let validate = move |_: ()| match chosen() {
        Some((choice @ Choice::Run(run_id, env), label)) => {
            view.validate(run_id, label, label_of(Choice::Pipeline(env)), env_spec(choice))
        }
        _ => problem.set(Some(
            "choose a trained policy to validate: the validation compares it with the fixed pipeline".into(),
        )),
    };
    // §6.2, as `rlcg live --recalibrate`: the run retrained on the calibrated odds is validated
    // again, after the policy validated last.
    let retrained = Callback::new(move |id: u32| {
        if running.get_untracked() {
            return problem.set(Some(format!("run #{id} is trained: validate it once this episode is over")));
        }
        view.recalibration.set(Some(Recalibration {
            before: view.last_validated.get_value(),
            retrained: id,
            after: None,
        }));
        if let Some((choice, _)) = choices.get_untracked().into_iter().find(|(c, _)| c.run() == Some(id)) {
            choice_value.set(choice.value());
        }
        validate(());
    });
    let trials = Signal::derive(move || {
        let env = chosen().map(|(c, _)| c.env());
        view.history.with(|h| h.iter().filter(|r| Some(r.env) == env).flat_map(|r| r.trials.clone()).collect())
    });
    let spec = Signal::derive(move || chosen().map(|(c, _)| env_spec(c)));
    let template = Signal::derive(move || {
        chosen().map(|(choice, _)| {
            let of_run = |id| runs.with(|runs| runs.iter().find(|r| r.id == id).map(|r| r.spec.clone()));
            choice.run().and_then(of_run).unwrap_or_else(|| {
                let agent = AgentId::QLearning;
                RunSpec::new(choice.env(), agent, 1, RunSpec::default_episodes(choice.env(), agent))
            })
        })
    });

    view! {
        <section aria-labelledby="live-heading" class="panel" id="live">
            <h2 id="live-heading">"Live mode: a policy drives an LLM"</h2>
            <p class="hint">"Pick a trained policy (or the fixed pipeline) and a task, and press Go. Each action becomes an LLM call or a test run in Pyodide, and the verdict feeds the policy's next decision. Without an API key the simulated LLM answers, so this works offline."</p>
            <div class="form-grid">
                <label>"Policy"
                    <select id="live-policy" on:change=move |ev| choice_value.set(event_target_value(&ev))>
                        {move || choices.get().into_iter().map(|(c, label)| view! { <option value=c.value() selected=move || choice_value.get() == c.value()>{label}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Task"
                    <select id="live-task" on:change=move |ev| task_id.set(event_target_value(&ev))>
                        {move || tasks().into_iter().map(|t| view! { <option value=t.id.clone()>{t.id.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Held-out tests"
                    <input id="live-held-out" type="text" inputmode="decimal" placeholder="0" prop:value=move || view.held_out.get()
                        on:change=move |ev| view.held_out.set(event_target_value(&ev))
                        title="The share of each task's tests the LLM never sees (0: none). The prompt then shows the visible tests, and only they are fed back and rewarded; a program that passes them and fails a held-out one is marked special-cased? (EvilGenie's measure)" />
                </label>
                <LlmSelect />
            </div>
            <EndpointFields problem=problem />
            <p class="actions">
                <button type="button" id="live-go" disabled=move || running.get() on:click=go>"Go"</button>
                <button type="button" id="live-compare" disabled=move || running.get() on:click=compare title="Run the fixed pipeline of the same environment on the same task">"Compare with the fixed pipeline"</button>
                <button type="button" id="live-validate" disabled=move || running.get() on:click=move |_| validate(()) title="Seed 003 §5.2: the trained policy and the fixed pipeline, each on the five real tasks">"Validate on seed 003's five tasks"</button>
                <button type="button" id="live-cancel" hidden=move || !running.get() on:click=move |_| view.cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="live-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="live-status" role="status">{move || view.status.get()}</p>
            <p id="live-restored" hidden=move || view.restoration.get().is_none()>{move || view.restoration.get()}</p>
            <pre id="live-stream" class="stream" hidden=move || view.stream.get().is_empty()>{move || view.stream.get()}</pre>
            <p id="live-summary" hidden=move || summary.get().is_none()>{move || summary.get().map(|(s, cost)| format!(
                "{}{} · return {:.1} · agent calls {} · LLM calls {} · test runs {} · tokens {} ({} prompt, {} completion) · cost ${cost:.4}",
                if s.success { "success" } else { "no success" }, held_out_words(s.held_out.as_ref()), s.episode_return, s.agent_calls,
                s.llm_calls, s.test_runs, s.usage.total(), s.usage.prompt_tokens, s.usage.completion_tokens))}</p>
            {move || summary.get().and_then(|(s, _)| s.special_cased().map(|test| view! {
                <p id="live-special-cased" class="special-cased">"special-cased? The final program passes every visible test and fails the held-out "<code>{test.to_owned()}</code></p>
            }))}
            <ValidationView table=view.validation />
            <BlackboardTable messages=view.messages />
            <LiveSteps steps=view.steps />
            <LiveHistory history=view.history />
            <CalibrationPanel trials=trials spec=spec template=template on_retrained=retrained recalibration=view.recalibration />
            <PromptEditor />
        </section>
    }
}

/// How a program did on the tests held out from the LLM, for a summary (empty when none were).
fn held_out_words(held_out: Option<&HeldOutScore>) -> String {
    held_out.map(|h| format!(" · {h}")).unwrap_or_default()
}

/// What can drive an episode: every finished, paused or interrupted run of an environment with a
/// live mode, then each such environment's fixed pipeline.
fn policy_choices(runs: RwSignal<Vec<RunData>>) -> Vec<(Choice, String)> {
    let mut choices: Vec<(Choice, String)> = runs.with(|runs| {
        runs.iter()
            .filter(|r| r.spec.env.id().has_live_mode())
            .filter(|r| matches!(r.status, Status::Finished | Status::Paused | Status::Interrupted))
            .map(|r| (Choice::Run(r.id, r.spec.env.id()), format!("{} (trained policy)", r.label())))
            .collect()
    });
    for env in EnvId::ALL {
        if let Some(pipeline) = env.live_pipeline() {
            choices.push((Choice::Pipeline(env), format!("fixed pipeline: {pipeline}")));
        }
    }
    choices
}
