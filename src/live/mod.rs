//! Live mode: a trained run's policy, or the fixed pipeline, drives an LLM on one task, and every
//! program it writes is tested by Pyodide. The episode itself is `engine::live::LiveEpisode`; this
//! panel starts it, has `host::drive` perform what it needs (the training worker answers the
//! policy's decisions), and shows the blackboard, the code at each step and the costs.
//! One more action plays seed 003 §5.2's validation: the policy and the pipeline on the five real
//! tasks, with the seed's table (`ValidationView`); every episode's draws of the simulator's odds
//! feed the calibration below (`calibration.rs`). What the actions do is `launch.rs`; the LLM, its
//! settings and the prompts are `services::llm_choice`'s, shared with every pane that drives an LLM.

pub mod calibration;
mod launch;
mod views;

use engine::env::EnvSpec;
use engine::live::LiveTask;
use engine::{AgentId, EnvId, RunSpec};
use leptos::prelude::*;

use crate::live::calibration::{CalibrationPanel, Recalibration};
use crate::live::launch::{Choice, LiveView};
use crate::live::views::{BlackboardTable, LiveHistory, LiveSteps, LiveSummaryLine, ValidationView};
use crate::services::cancel::CancelToken;
use crate::services::model::{RunData, Status};
use crate::services::run_book::RunBook;
use crate::services::storage::ImportedTasks;
use crate::widgets::llm_settings::{EndpointFields, LlmSelect, PromptEditor};

#[component]
pub fn LivePanel() -> impl IntoView {
    let runs = expect_context::<RunBook>().runs;
    let imported = ImportedTasks::from_context();
    let task_id = RwSignal::new(String::new());
    let choice_value = RwSignal::new(String::new());
    let view = LiveView::new(runs);
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
    let answered_by = Signal::derive(move || view.answered_by(chosen().map(|(c, _)| c.env())));
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
            <LiveSummaryLine summary=summary />
            <ValidationView table=view.validation />
            <BlackboardTable messages=view.messages />
            <LiveSteps steps=view.steps />
            <LiveHistory history=view.history />
            <CalibrationPanel trials=trials answered_by=answered_by spec=spec template=template on_retrained=retrained recalibration=view.recalibration />
            <PromptEditor />
        </section>
    }
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
