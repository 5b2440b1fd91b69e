//! The playground page. Training happens in the worker (`worker/`); this thread only renders and
//! exchanges protocol messages with it, so the page never waits on a run.

use engine::protocol::{Envelope, FromWorker, ToWorker};
use engine::run::Evaluation;
use engine::{AgentId, EnvId, RunSpec, RunSummary};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Where the current run stands.
#[derive(Clone, Debug, PartialEq)]
enum RunState {
    Idle,
    Training { done: u32, total: u32, success_last100: f64 },
    Finished { summary: RunSummary, greedy: Evaluation },
}

/// Starts the training worker; messages it sends arrive in `on_message`.
fn spawn_worker(
    on_message: impl Fn(FromWorker) + 'static,
    on_error: impl Fn(String) + 'static,
) -> Result<Worker, String> {
    let worker =
        Worker::new("./worker_loader.js").map_err(|e| format!("the training worker could not start: {e:?}"))?;
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        match Envelope::<FromWorker>::decode(&text) {
            Ok(message) => on_message(message),
            Err(problem) => on_error(format!("unreadable message from the training worker: {problem}")),
        }
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the page.
    handler.forget();
    Ok(worker)
}

#[component]
fn App() -> impl IntoView {
    let (ready, set_ready) = signal(false);
    let (state, set_state) = signal(RunState::Idle);
    let (error, set_error) = signal(None::<String>);
    let (run_id, set_run_id) = signal(0u32);

    let on_message = move |message: FromWorker| match message {
        FromWorker::Ready => set_ready.set(true),
        FromWorker::Progress { run_id: id, records } if id == run_id.get_untracked() => {
            if let Some(last) = records.last() {
                set_state.update(|s| {
                    if let RunState::Training { done, success_last100, .. } = s {
                        *done = last.episode + 1;
                        *success_last100 = last.success_last100;
                    }
                });
            }
        }
        FromWorker::Finished { run_id: id, summary, greedy } if id == run_id.get_untracked() => {
            set_state.set(RunState::Finished { summary, greedy })
        }
        FromWorker::Failed { message, .. } => {
            set_error.set(Some(message));
            set_state.set(RunState::Idle);
        }
        // Messages of an earlier run.
        FromWorker::Progress { .. } | FromWorker::Finished { .. } => {}
    };
    let worker = match spawn_worker(on_message, move |problem| set_error.set(Some(problem))) {
        Ok(worker) => Some(worker),
        Err(problem) => {
            set_error.set(Some(problem));
            None
        }
    };
    let worker = StoredValue::new_local(worker);

    let (env, set_env) = signal(EnvId::Orchestrator);
    let (agent, set_agent) = signal(AgentId::QLearning);
    let (episodes, set_episodes) = signal("5000".to_owned());
    let (seed, set_seed) = signal("1".to_owned());

    let start = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let spec = parse_form(env.get(), agent.get(), &episodes.get(), &seed.get());
        let spec = match spec.and_then(|spec| spec.validate().map(|()| spec)) {
            Ok(spec) => spec,
            Err(problem) => return set_error.set(Some(problem)),
        };
        set_error.set(None);
        let id = run_id.get_untracked() + 1;
        set_run_id.set(id);
        set_state.set(RunState::Training { done: 0, total: spec.episodes, success_last100: 0.0 });
        worker.with_value(|w| {
            if let Some(w) = w
                && let Err(e) =
                    w.post_message(&JsValue::from_str(&Envelope::encode(ToWorker::Start { run_id: id, spec })))
            {
                set_error.set(Some(format!("the run could not be sent to the training worker: {e:?}")));
            }
        });
    };
    let training = move || matches!(state.get(), RunState::Training { .. });

    view! {
        <header>
            <h1>"RL for LLM code generation"</h1>
            <p class="tagline">
                "Train agents that decide how to drive a code-writing LLM: when to generate, test, debug or search, "
                "and which agent to call next. Everything runs in your browser."
            </p>
        </header>
        <main>
            <section aria-labelledby="envs-heading">
                <h2 id="envs-heading">"Environments"</h2>
                <ul class="cards">
                    {EnvId::ALL.iter().map(|e| view! { <li><strong>{e.name()}</strong>" — "{e.summary()}</li> }).collect_view()}
                </ul>
                <h2>"Agents"</h2>
                <ul class="cards">
                    {AgentId::ALL.iter().map(|a| view! { <li><strong>{a.name()}</strong>" — "{a.summary()}</li> }).collect_view()}
                </ul>
            </section>
            <section aria-labelledby="run-heading">
                <h2 id="run-heading">"Quick run"</h2>
                <form on:submit=start>
                    <label>"Environment "
                        <select id="env" on:change=move |ev| { if let Ok(e) = EnvId::parse(&event_target_value(&ev)) { set_env.set(e) } }>
                            {EnvId::ALL.iter().map(|e| view! { <option value=e.name() selected=*e == EnvId::Orchestrator>{e.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Agent "
                        <select id="agent" on:change=move |ev| { if let Ok(a) = AgentId::parse(&event_target_value(&ev)) { set_agent.set(a) } }>
                            {AgentId::ALL.iter().map(|a| view! { <option value=a.name()>{a.name()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Episodes "
                        <input id="episodes" inputmode="numeric" prop:value=episodes on:input=move |ev| set_episodes.set(event_target_value(&ev)) />
                    </label>
                    <label>"Seed "
                        <input id="seed" inputmode="numeric" prop:value=seed on:input=move |ev| set_seed.set(event_target_value(&ev)) />
                    </label>
                    <button id="start" type="submit" disabled=move || !ready.get() || training()>
                        {move || if ready.get() { "Train" } else { "Loading the training worker…" }}
                    </button>
                </form>
                <p id="error" role="alert" class="error" hidden=move || error.get().is_none()>{move || error.get()}</p>
                <div id="status" aria-live="polite">{move || status_view(state.get())}</div>
            </section>
        </main>
    }
}

fn parse_form(env: EnvId, agent: AgentId, episodes: &str, seed: &str) -> Result<RunSpec, String> {
    let episodes = episodes.trim().parse().map_err(|_| {
        format!("episodes must be a whole number between 1 and {}, got '{episodes}'", RunSpec::MAX_EPISODES)
    })?;
    let seed =
        seed.trim().parse().map_err(|_| format!("seed must be a whole number from 0 to {}, got '{seed}'", u64::MAX))?;
    Ok(RunSpec::new(env, agent, seed, episodes))
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn status_view(state: RunState) -> AnyView {
    match state {
        RunState::Idle => view! { <p>"Choose an environment and an agent, then press Train."</p> }.into_any(),
        RunState::Training { done, total, success_last100 } => view! {
            <p>"Training: " <span id="done">{done}</span> " / " {total} " episodes, success over the last 100: "
                <span id="success-last100">{percent(success_last100)}</span></p>
            <progress max=total value=done></progress>
        }
        .into_any(),
        RunState::Finished { summary, greedy } => view! {
            <table id="summary">
                <caption>"Finished " {summary.episodes} " episodes"</caption>
                <tr><th scope="row">"Success over the last 100 training episodes"</th><td id="final-success-last100">{percent(summary.success_last100)}</td></tr>
                <tr><th scope="row">"Greedy policy success (" {greedy.episodes} " fresh episodes)"</th><td id="greedy-success">{percent(greedy.success_rate)}</td></tr>
                <tr><th scope="row">"Greedy mean return"</th><td>{format!("{:.2}", greedy.mean_return)}</td></tr>
                <tr><th scope="row">"Greedy mean agent calls"</th><td>{format!("{:.2}", greedy.mean_agent_calls)}</td></tr>
            </table>
        }
        .into_any(),
    }
}
