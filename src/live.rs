//! Live mode: a trained run's policy, or the fixed pipeline, drives an LLM on one task, and every
//! program it writes is tested by Pyodide. The episode itself is `engine::live::LiveEpisode`; this
//! panel starts it, has `host::drive` perform what it needs (the training worker answers the
//! policy's decisions), and shows the blackboard, the code at each step and the costs.
//! The LLM, its settings and the prompts are `llm_settings`'s, shared with every pane that drives
//! an LLM.

use engine::EnvId;
use engine::effects::{BlackboardMessage, LiveState};
use engine::env::EnvSpec;
use engine::live::{Driver, LiveEpisode, LiveStep, LiveSummary, LiveTask};
use engine::run::Restoration;
use engine::task_import::ImportedTask;
use leptos::prelude::*;

use crate::host::{self, HostView};
use crate::llm_client::CancelToken;
use crate::llm_settings::{EndpointFields, LlmChoice, LlmSelect, PromptEditor};
use crate::model::{RunData, Status};
use crate::python::Python;
use crate::worker_bridge::WorkerBridge;

/// Episode ids of live episodes in a run's tree start here, apart from training's.
pub const LIVE_EPISODE_BASE: u32 = 1_000_000;

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

/// One finished live episode, for the comparison table.
#[derive(Clone, Debug, PartialEq)]
struct HistoryRow {
    driver: String,
    task: String,
    llm: String,
    summary: LiveSummary,
    cost: f64,
}

#[component]
pub fn LivePanel(runs: RwSignal<Vec<RunData>>, imported: RwSignal<Vec<ImportedTask>>, python: Python) -> impl IntoView {
    let bridge = expect_context::<WorkerBridge>();
    let python = StoredValue::new_local(python);
    let llm_choice = expect_context::<LlmChoice>();

    let task_id = RwSignal::new(String::new());
    let choice_value = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());
    let stream = RwSignal::new(String::new());
    let messages = RwSignal::new(Vec::<BlackboardMessage>::new());
    let steps = RwSignal::new(Vec::<(String, LiveStep)>::new());
    let summary = RwSignal::new(None::<(LiveSummary, f64)>);
    // How the policy came back after a reload or an import.
    let restoration = RwSignal::new(None::<String>);
    let history = RwSignal::new(Vec::<HistoryRow>::new());
    let running = RwSignal::new(false);
    let cancel = StoredValue::new_local(CancelToken::default());
    let episodes_played = StoredValue::new(0u64);

    let tasks = move || {
        let mut all = LiveTask::bundled();
        imported.with(|t| all.extend(t.iter().map(LiveTask::from_imported)));
        all
    };
    let choices = Memo::new(move |_| policy_choices(runs));
    let chosen = move || {
        let value = choice_value.get_untracked();
        let all = choices.get_untracked();
        all.iter().find(|(c, _)| c.value() == value).or(all.first()).map(|(c, label)| (*c, label.clone()))
    };

    // The environment's parameters: a trained run's, whose rewards its policy learned (the fixed
    // pipeline compared with it follows them too), or the seed's.
    let env_spec = move |choice: Choice| {
        let of_run = |id| runs.with_untracked(|runs| runs.iter().find(|r| r.id == id).map(|r| r.spec.env.clone()));
        choice.run().and_then(of_run).unwrap_or_else(|| choice.env().default_spec())
    };
    let play = move |choice: Choice, label: String, env: EnvSpec| {
        let all = tasks();
        let wanted = task_id.get_untracked();
        let Some(task) = all.iter().find(|t| t.id == wanted).or(all.first()).cloned() else {
            return problem.set(Some("there is no task to solve".into()));
        };
        let driver = if matches!(choice, Choice::Pipeline(_)) { Driver::Pipeline } else { Driver::Policy };
        let seed = episodes_played.get_value() + 1;
        let (mut llm, llm_label, endpoint) = match llm_choice.llm(seed) {
            Ok(llm) => llm,
            Err(message) => return problem.set(Some(message)),
        };
        let prompts = llm_choice.prompts.get_untracked();
        let mut episode = match LiveEpisode::new(&env, driver, task.clone(), prompts) {
            Ok(episode) => episode,
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        running.set(true);
        summary.set(None);
        stream.set(String::new());
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        episodes_played.set_value(seed);
        let python = python.get_value();
        let action_names = choice.env().action_names();
        let show = move |episode: &LiveEpisode| {
            messages.set(episode.messages().to_vec());
            steps.set(episode.steps().iter().map(|s| (action_names[s.action].to_owned(), s.clone())).collect());
        };
        leptos::task::spawn_local(async move {
            let mut restored = false;
            let decide = async |state: LiveState| {
                let Choice::Run(run_id, _) = choice else { unreachable!("the pipeline decides for itself") };
                status.set("Asking the policy for its next action…".into());
                let decision = bridge.decide(run_id, state.clone()).await;
                if decision.is_ok() || restored {
                    return decision;
                }
                // After a reload the worker no longer holds the agent: rebuild it from the records.
                restored = true;
                let Some(run) = runs.with_untracked(|r| r.iter().find(|r| r.id == run_id).cloned()) else {
                    return decision;
                };
                status.set(format!("Bringing run #{run_id}'s trained agent back…"));
                let how = bridge.restore(&run).await?;
                restoration.set(Some(restoration_note(run_id, &how)));
                bridge.decide(run_id, state).await
            };
            let view = HostView { status, stream };
            host::drive(&mut episode, &mut llm, &python, &token, decide, view, show).await;
            let result = episode.summary().clone();
            let cost = endpoint.as_ref().map_or(0.0, |settings| result.usage.cost(settings));
            status.set(format!("Episode over: {}.", result.ended));
            summary.set(Some((result.clone(), cost)));
            if let Choice::Run(run_id, _) = choice {
                let actions: Vec<u8> = episode.actions().iter().map(|&a| a as u8).collect();
                runs.update(|runs| {
                    if let Some(run) = runs.iter_mut().find(|r| r.id == run_id) {
                        let id = LIVE_EPISODE_BASE + run.live_episodes;
                        run.live_episodes += 1;
                        run.tree.add(id, &actions, result.episode_return, result.success);
                    }
                });
            }
            history.update(|h| {
                h.push(HistoryRow { driver: label, task: task.id.clone(), llm: llm_label, summary: result, cost })
            });
            running.set(false);
        });
    };
    let go = move |_| {
        if let Some((choice, label)) = chosen() {
            play(choice, label, env_spec(choice));
        }
    };
    let compare = move |_| {
        if let Some((choice, _)) = chosen() {
            let pipeline = Choice::Pipeline(choice.env());
            let label =
                choices.get_untracked().into_iter().find(|(c, _)| *c == pipeline).map(|(_, l)| l).unwrap_or_default();
            play(pipeline, label, env_spec(choice));
        }
    };

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
                <LlmSelect />
            </div>
            <EndpointFields problem=problem />
            <p class="actions">
                <button type="button" id="live-go" disabled=move || running.get() on:click=go>"Go"</button>
                <button type="button" id="live-compare" disabled=move || running.get() on:click=compare title="Run the fixed pipeline of the same environment on the same task">"Compare with the fixed pipeline"</button>
                <button type="button" id="live-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="live-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="live-status" role="status">{move || status.get()}</p>
            <p id="live-restored" hidden=move || restoration.get().is_none()>{move || restoration.get()}</p>
            <pre id="live-stream" class="stream" hidden=move || stream.get().is_empty()>{move || stream.get()}</pre>
            <p id="live-summary" hidden=move || summary.get().is_none()>{move || summary.get().map(|(s, cost)| format!(
                "{} · return {:.1} · agent calls {} · LLM calls {} · test runs {} · tokens {} ({} prompt, {} completion) · cost ${cost:.4}",
                if s.success { "success" } else { "no success" }, s.episode_return, s.agent_calls, s.llm_calls, s.test_runs,
                s.usage.total(), s.usage.prompt_tokens, s.usage.completion_tokens))}</p>
            <BlackboardTable messages=messages />
            <LiveSteps steps=steps />
            <LiveHistory history=history />
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

/// The blackboard's messages in time order (seed 003 §2.2: sender, receiver, type, content, time).
#[component]
fn BlackboardTable(messages: RwSignal<Vec<BlackboardMessage>>) -> impl IntoView {
    view! {
        <h3>"Blackboard"</h3>
        <div class="scroll">
            <table id="live-timeline">
                <thead><tr><th scope="col">"Time"</th><th scope="col">"From"</th><th scope="col">"To"</th><th scope="col">"Type"</th><th scope="col">"Content"</th></tr></thead>
                <tbody>{move || messages.get().into_iter().map(|m| view! {
                    <tr class=format!("message {}", kind_name(&m))>
                        <td>{format!("{:.2} s", m.time_ms / 1000.0)}</td><td>{m.sender.clone()}</td>
                        <td>{m.receiver.clone().unwrap_or_else(|| "all".into())}</td><td>{kind_name(&m)}</td>
                        <td><pre>{m.content.clone()}</pre></td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </div>
    }
}

/// The episode's steps: action, reward, why it did nothing, the test verdict and the code.
#[component]
fn LiveSteps(steps: RwSignal<Vec<(String, LiveStep)>>) -> impl IntoView {
    view! {
        <h3>"Steps"</h3>
        <ol id="live-steps">{move || steps.get().into_iter().map(|(name, step)| {
            let verdict = step.verdict.as_ref().map(|v| format!(
                "{}: {}/{} tests passed · {} lines ran", v.outcome.label(), v.number_passed, v.total, v.executed_lines.len()));
            view! {
                <li class="live-step">
                    <strong>{name}</strong>{format!(" · reward {:+.1}", step.reward)}
                    {step.note.clone().map(|n| view! { <span class="note">" · "{n}</span> })}
                    {verdict.map(|v| view! { <p class="verdict">{v}</p> })}
                    {(!step.code.is_empty()).then(|| view! { <details><summary>"code"</summary><pre>{step.code.clone()}</pre></details> })}
                </li>
            }
        }).collect_view()}</ol>
    }
}

/// Every episode played in this pane, to compare drivers, tasks and LLMs.
#[component]
fn LiveHistory(history: RwSignal<Vec<HistoryRow>>) -> impl IntoView {
    view! {
        <h3>"Episodes so far"</h3>
        <table id="live-history" hidden=move || history.with(Vec::is_empty)>
            <thead><tr><th scope="col">"Driver"</th><th scope="col">"Task"</th><th scope="col">"LLM"</th><th scope="col">"Success"</th>
                <th scope="col">"Agent calls"</th><th scope="col">"LLM calls"</th><th scope="col">"Tokens"</th><th scope="col">"Cost"</th></tr></thead>
            <tbody>{move || history.get().into_iter().map(|row| view! {
                <tr><td>{row.driver}</td><td>{row.task}</td><td>{row.llm}</td><td>{if row.summary.success { "yes" } else { "no" }}</td>
                    <td>{row.summary.agent_calls}</td><td>{row.summary.llm_calls}</td><td>{row.summary.usage.total()}</td><td>{format!("${:.4}", row.cost)}</td></tr>
            }).collect_view()}</tbody>
        </table>
    }
}

fn kind_name(message: &BlackboardMessage) -> String {
    serde_json::to_value(message.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}
