//! Live mode: a trained run's policy, or the fixed pipeline, drives an LLM on one task, and every
//! program it writes is tested by Pyodide. The episode itself is `engine::live::LiveEpisode`; this
//! panel starts it, has `host::drive` perform what it needs (the training worker answers the
//! policy's decisions), and shows the blackboard, the code at each step and the costs.
//!
//! The API key is held in a signal of this panel (and in local storage only when the user ticks
//! "remember"); it goes to [`crate::llm_client::chat`] and nowhere else: not to the training worker, the
//! Python worker, the runs, the share link or the exports.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use engine::EnvId;
use engine::effects::{BlackboardMessage, LiveState, OfflineLlm};
use engine::live::{Driver, LiveEpisode, LiveStep, LiveSummary, LiveTask};
use engine::llm::{PRESETS, ProviderSettings, preset};
use engine::prompts::{PromptSet, PromptTemplate};
use engine::protocol::{FromWorker, ToWorker};
use engine::run::{Restoration, Resume, fingerprint};
use engine::task_import::ImportedTask;
use futures_channel::oneshot;
use leptos::prelude::*;

use crate::host::{self, HostView, Llm};
use crate::llm_client::CancelToken;
use crate::model::{RunData, Status};
use crate::python::Python;

/// Episode ids of live episodes in a run's tree start here, apart from training's.
pub const LIVE_EPISODE_BASE: u32 = 1_000_000;

const SETTINGS_KEY: &str = "rlcg.llm-settings";
const API_KEY_KEY: &str = "rlcg.llm-api-key";
const PROMPTS_KEY: &str = "rlcg.prompts";
/// The LLM select's value for the offline stand-in.
const SIMULATED: &str = "simulated";

/// Requests to the training worker that wait for an answer: decisions and agent rebuilds.
#[derive(Default)]
pub struct WorkerCalls {
    next_request: Cell<u32>,
    decisions: RefCell<HashMap<u32, oneshot::Sender<Result<usize, String>>>>,
    restores: RefCell<HashMap<u32, oneshot::Sender<Result<Restoration, String>>>>,
}

impl WorkerCalls {
    /// Hands a worker message to whoever waits for it.
    pub fn answer(&self, message: &FromWorker) {
        match message {
            FromWorker::Decision { request_id, result } => {
                if let Some(waiting) = self.decisions.borrow_mut().remove(request_id) {
                    let _ = waiting.send(result.clone());
                }
            }
            FromWorker::Restored { run_id, result } => {
                if let Some(waiting) = self.restores.borrow_mut().remove(run_id) {
                    let _ = waiting.send(result.clone());
                }
            }
            _ => {}
        }
    }

    async fn decide(&self, send: impl Fn(ToWorker), run_id: u32, state: LiveState) -> Result<usize, String> {
        let request_id = self.next_request.get() + 1;
        self.next_request.set(request_id);
        let (tx, rx) = oneshot::channel();
        self.decisions.borrow_mut().insert(request_id, tx);
        send(ToWorker::Decide { request_id, run_id, state });
        rx.await.unwrap_or_else(|_| Err("the training worker did not answer".into()))
    }

    async fn restore(&self, send: impl Fn(ToWorker), run: &RunData) -> Result<Restoration, String> {
        let (tx, rx) = oneshot::channel();
        self.restores.borrow_mut().insert(run.id, tx);
        let resume = Resume { episodes: run.records.len() as u32, fingerprint: fingerprint(&run.records) };
        let checkpoint = run.finished.as_ref().and_then(|f| f.checkpoint.clone());
        send(ToWorker::Restore { run_id: run.id, spec: run.spec.clone(), resume, checkpoint });
        rx.await.unwrap_or_else(|_| Err("the training worker did not answer".into()))
    }
}

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

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

fn stored<T: serde::de::DeserializeOwned>(key: &str) -> Option<T> {
    storage()?.get_item(key).ok().flatten().and_then(|text| serde_json::from_str(&text).ok())
}

fn store(key: &str, value: &impl serde::Serialize) {
    if let (Some(storage), Ok(text)) = (storage(), serde_json::to_string(value)) {
        let _ = storage.set_item(key, &text);
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
pub fn LivePanel(
    runs: RwSignal<Vec<RunData>>,
    imported: RwSignal<Vec<ImportedTask>>,
    python: Python,
    calls: StoredValue<Rc<WorkerCalls>, LocalStorage>,
    send: impl Fn(ToWorker) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let python = StoredValue::new_local(python);
    let settings = RwSignal::new(stored::<ProviderSettings>(SETTINGS_KEY).unwrap_or_default());
    let llm_choice = RwSignal::new(SIMULATED.to_owned());
    let remembered_key = storage().and_then(|s| s.get_item(API_KEY_KEY).ok().flatten());
    let remember = RwSignal::new(remembered_key.is_some());
    let api_key = RwSignal::new(remembered_key.unwrap_or_default());
    let prompts = RwSignal::new(stored::<PromptSet>(PROMPTS_KEY).filter(|p| p.check().is_ok()).unwrap_or_default());

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
    let choices = Memo::new(move |_| {
        let mut choices: Vec<(Choice, String)> = runs.with(|runs| {
            runs.iter()
                .filter(|r| r.spec.env.live_rules().is_some())
                .filter(|r| matches!(r.status, Status::Finished | Status::Paused | Status::Interrupted))
                .map(|r| (Choice::Run(r.id, r.spec.env), format!("{} (trained policy)", r.label())))
                .collect()
        });
        for env in EnvId::ALL {
            if let Some(pipeline) = env.live_pipeline() {
                choices.push((Choice::Pipeline(env), format!("fixed pipeline: {pipeline}")));
            }
        }
        choices
    });
    let chosen = move || {
        let value = choice_value.get_untracked();
        let all = choices.get_untracked();
        all.iter().find(|(c, _)| c.value() == value).or(all.first()).map(|(c, label)| (*c, label.clone()))
    };

    let play = move |choice: Choice, label: String| {
        let all = tasks();
        let wanted = task_id.get_untracked();
        let Some(task) = all.iter().find(|t| t.id == wanted).or(all.first()).cloned() else {
            return problem.set(Some("there is no task to solve".into()));
        };
        let remote = llm_choice.get_untracked() != SIMULATED;
        let settings = settings.get_untracked();
        let key = api_key.get_untracked();
        if remote {
            if let Err(message) = settings.validate() {
                return problem.set(Some(format!("LLM settings: {message}")));
            }
            if key.trim().is_empty() && preset(&settings.preset).is_some_and(|p| p.needs_key) {
                return problem.set(Some(format!(
                    "{} needs an API key: enter it, or choose the simulated LLM",
                    settings.base_url
                )));
            }
        }
        let driver = if matches!(choice, Choice::Pipeline(_)) { Driver::Pipeline } else { Driver::Policy };
        let mut episode = match LiveEpisode::new(choice.env(), driver, task.clone(), prompts.get_untracked()) {
            Ok(episode) => episode,
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        running.set(true);
        summary.set(None);
        stream.set(String::new());
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let seed = episodes_played.get_value() + 1;
        episodes_played.set_value(seed);
        let mut llm = if remote {
            Llm::Remote { settings: settings.clone(), key }
        } else {
            Llm::Offline(Box::new(OfflineLlm::new(seed)))
        };
        let python = python.get_value();
        let calls = calls.get_value();
        let action_names = choice.env().action_names();
        let llm_label = if remote { settings.model.clone() } else { "simulated LLM".to_owned() };
        let show = move |episode: &LiveEpisode| {
            messages.set(episode.messages().to_vec());
            steps.set(episode.steps().iter().map(|s| (action_names[s.action].to_owned(), s.clone())).collect());
        };
        leptos::task::spawn_local(async move {
            let mut restored = false;
            let decide = async |state: LiveState| {
                let Choice::Run(run_id, _) = choice else { unreachable!("the pipeline decides for itself") };
                status.set("Asking the policy for its next action…".into());
                let decision = calls.decide(send, run_id, state.clone()).await;
                if decision.is_ok() || restored {
                    return decision;
                }
                // After a reload the worker no longer holds the agent: rebuild it from the records.
                restored = true;
                let Some(run) = runs.with_untracked(|r| r.iter().find(|r| r.id == run_id).cloned()) else {
                    return decision;
                };
                status.set(format!("Bringing run #{run_id}'s trained agent back…"));
                let how = calls.restore(send, &run).await?;
                restoration.set(Some(restoration_note(run_id, &how)));
                calls.decide(send, run_id, state).await
            };
            let view = HostView { status, stream };
            host::drive(&mut episode, &mut llm, &python, &token, decide, view, show).await;
            let result = episode.summary().clone();
            let cost = if remote { result.usage.cost(&settings) } else { 0.0 };
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
            play(choice, label);
        }
    };
    let compare = move |_| {
        if let Some((choice, _)) = chosen() {
            let pipeline = Choice::Pipeline(choice.env());
            let label =
                choices.get_untracked().into_iter().find(|(c, _)| *c == pipeline).map(|(_, l)| l).unwrap_or_default();
            play(pipeline, label);
        }
    };

    let on_llm = move |value: String| {
        if value != SIMULATED
            && let Some(p) = preset(&value)
        {
            // Keep prices, limits and sampling; take the preset's address and model.
            settings.update(|s| {
                let fresh = ProviderSettings::from_preset(p);
                (s.preset, s.base_url, s.model) = (fresh.preset, fresh.base_url, fresh.model);
            });
            store(SETTINGS_KEY, &settings.get_untracked());
        }
        llm_choice.set(value);
    };
    let number_field = move |id: &'static str,
                             label: &'static str,
                             get: fn(&ProviderSettings) -> f64,
                             put: fn(&mut ProviderSettings, f64)| {
        let on_change = move |ev| match event_target_value(&ev).trim().parse::<f64>() {
            Ok(v) if v.is_finite() => {
                settings.update(|s| put(s, v));
                problem.set(
                    settings.with_untracked(ProviderSettings::validate).err().map(|m| format!("LLM settings: {m}")),
                );
                store(SETTINGS_KEY, &settings.get_untracked());
            }
            _ => problem.set(Some(format!("LLM settings: {label} must be a number"))),
        };
        view! {
            <label>{label}
                <input type="number" id=id step="any" prop:value=move || settings.with(|s| get(s).to_string()) on:change=on_change />
            </label>
        }
    };
    let text_field = move |id: &'static str,
                           label: &'static str,
                           get: fn(&ProviderSettings) -> String,
                           put: fn(&mut ProviderSettings, String)| {
        view! {
            <label>{label}
                <input type="text" id=id prop:value=move || settings.with(get) on:change=move |ev| {
                    settings.update(|s| put(s, event_target_value(&ev)));
                    store(SETTINGS_KEY, &settings.get_untracked());
                } />
            </label>
        }
    };
    let on_key = move |ev| {
        let key = event_target_value(&ev);
        if remember.get_untracked()
            && let Some(s) = storage()
        {
            let _ = s.set_item(API_KEY_KEY, &key);
        }
        api_key.set(key);
    };
    let on_remember = move |ev| {
        let on = event_target_checked(&ev);
        remember.set(on);
        if let Some(s) = storage() {
            let _ = if on { s.set_item(API_KEY_KEY, &api_key.get_untracked()) } else { s.remove_item(API_KEY_KEY) };
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
                <label>"LLM"
                    <select id="llm-provider" on:change=move |ev| on_llm(event_target_value(&ev))>
                        <option value=SIMULATED selected=true>"Simulated LLM (offline)"</option>
                        {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            <fieldset id="llm-settings" hidden=move || llm_choice.get() == SIMULATED>
                <legend>"Endpoint"</legend>
                <div class="form-grid">
                    {text_field("llm-base-url", "Base URL", |s| s.base_url.clone(), |s, v| s.base_url = v)}
                    {text_field("llm-model", "Model", |s| s.model.clone(), |s, v| s.model = v)}
                    <label>"API key"
                        <input type="password" id="llm-key" autocomplete="off" prop:value=move || api_key.get() on:change=on_key />
                    </label>
                    <label class="inline"><input type="checkbox" id="llm-remember" prop:checked=move || remember.get() on:change=on_remember />
                        "remember the key in this browser"</label>
                    {number_field("llm-temperature", "Temperature", |s| s.temperature, |s, v| s.temperature = v)}
                    {number_field("llm-top-p", "Top-p", |s| s.top_p, |s, v| s.top_p = v)}
                    {number_field("llm-max-tokens", "Max tokens", |s| f64::from(s.max_tokens), |s, v| s.max_tokens = v.clamp(0.0, f64::from(u32::MAX)) as u32)}
                    {number_field("llm-timeout", "Timeout (s)", |s| f64::from(s.timeout_s), |s, v| s.timeout_s = v.clamp(0.0, 1e6) as u32)}
                    {number_field("llm-retries", "Retries", |s| f64::from(s.max_retries), |s, v| s.max_retries = v.clamp(0.0, 1e6) as u32)}
                    {number_field("llm-price-in", "$ per 1M prompt tokens", |s| s.price_prompt_per_million, |s, v| s.price_prompt_per_million = v)}
                    {number_field("llm-price-out", "$ per 1M completion tokens", |s| s.price_completion_per_million, |s, v| s.price_completion_per_million = v)}
                </div>
                <p class="hint">"The key is sent only to this base URL. It is kept in memory unless you tick remember; it never goes into links, exports or the Python worker."</p>
            </fieldset>
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
            <h3>"Episodes so far"</h3>
            <table id="live-history" hidden=move || history.with(Vec::is_empty)>
                <thead><tr><th scope="col">"Driver"</th><th scope="col">"Task"</th><th scope="col">"LLM"</th><th scope="col">"Success"</th>
                    <th scope="col">"Agent calls"</th><th scope="col">"LLM calls"</th><th scope="col">"Tokens"</th><th scope="col">"Cost"</th></tr></thead>
                <tbody>{move || history.get().into_iter().map(|row| view! {
                    <tr><td>{row.driver}</td><td>{row.task}</td><td>{row.llm}</td><td>{if row.summary.success { "yes" } else { "no" }}</td>
                        <td>{row.summary.agent_calls}</td><td>{row.summary.llm_calls}</td><td>{row.summary.usage.total()}</td><td>{format!("${:.4}", row.cost)}</td></tr>
                }).collect_view()}</tbody>
            </table>
            <PromptEditor prompts=prompts />
        </section>
    }
}

fn kind_name(message: &BlackboardMessage) -> String {
    serde_json::to_value(message.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// The prompts as data: edit one, save it (after checking its placeholders), restore the defaults.
#[component]
fn PromptEditor(prompts: RwSignal<PromptSet>) -> impl IntoView {
    let first = prompts.with_untracked(|p| p.prompts[0].id.clone());
    let chosen = RwSignal::new(first);
    let template = move || prompts.with(|p| p.get(&chosen.get()).cloned());
    let system = RwSignal::new(String::new());
    let user = RwSignal::new(String::new());
    let message = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(t) = template() {
            system.set(t.system);
            user.set(t.user);
        }
    });
    let save = move |_| {
        let Some(current) = template() else { return };
        let edited = PromptTemplate { system: system.get_untracked(), user: user.get_untracked(), ..current };
        let mut set = prompts.get_untracked();
        match set.set(edited) {
            Ok(()) => {
                store(PROMPTS_KEY, &set);
                prompts.set(set);
                message.set(Some("Saved.".into()));
            }
            Err(problem) => message.set(Some(problem)),
        }
    };
    let restore = move |_| {
        if let Some(s) = storage() {
            let _ = s.remove_item(PROMPTS_KEY);
        }
        prompts.set(PromptSet::default());
        message.set(Some("The default prompts are back.".into()));
    };
    view! {
        <details id="prompts">
            <summary>"Prompts"</summary>
            <label>"Prompt"
                <select id="prompt-id" on:change=move |ev| { chosen.set(event_target_value(&ev)); message.set(None) }>
                    {move || prompts.get().prompts.into_iter().map(|p| view! { <option value=p.id.clone()>{p.label}</option> }).collect_view()}
                </select>
            </label>
            <label>"System"<textarea id="prompt-system" rows="4" prop:value=move || system.get() on:input=move |ev| system.set(event_target_value(&ev))></textarea></label>
            <label>"User"<textarea id="prompt-user" rows="8" prop:value=move || user.get() on:input=move |ev| user.set(event_target_value(&ev))></textarea></label>
            <p class="hint">"Placeholders in braces ({task}, {code}, …) are filled in for each call; write {{ and }} for literal braces."</p>
            <p class="actions">
                <button type="button" id="prompt-save" on:click=save>"Save prompt"</button>
                <button type="button" id="prompt-restore" on:click=restore>"Restore all defaults"</button>
            </p>
            <p id="prompt-message" role="status">{move || message.get()}</p>
        </details>
    }
}
