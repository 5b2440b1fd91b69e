//! The run form: environment, agent, hyperparameters (explained, validated when a run starts),
//! seed, episode budget and backend.

use engine::agents::{Backend, DqnParams};
use engine::{AgentId, AgentSpec, EnvId, RunSpec};
use leptos::prelude::*;

use crate::params_form::{self, Field, Kind};

/// The episode budget a run of `agent` on `env` needs to learn (the seeds' budgets).
fn default_episodes(env: EnvId, agent: AgentId) -> u32 {
    match (env, agent) {
        (EnvId::Orchestrator, _) => 5000,
        (EnvId::Planner, _) => 3000,
        (EnvId::Executive, AgentId::Dqn) => 500,
        (EnvId::Executive, _) => 3000,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DqnConfig {
    Playground,
    Seed,
}

fn template(env: EnvId, agent: AgentId, config: DqnConfig) -> AgentSpec {
    match (agent, config) {
        (AgentId::Dqn, DqnConfig::Seed) => AgentSpec::Dqn(DqnParams::seed(env)),
        _ => agent.default_spec(env),
    }
}

fn parse_whole<T: std::str::FromStr>(field: &str, text: &str, range: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| format!("{field} must be a whole number {range}, got '{text}'"))
}

#[component]
pub fn Controls(
    ready: ReadSignal<bool>,
    on_start: Callback<RunSpec>,
    on_error: Callback<Option<String>>,
) -> impl IntoView {
    let env = RwSignal::new(EnvId::Orchestrator);
    let agent = RwSignal::new(AgentId::QLearning);
    let config = RwSignal::new(DqnConfig::Playground);
    let template = Memo::new(move |_| template(env.get(), agent.get(), config.get()));
    let fields = Memo::new(move |_| params_form::fields(&template.get().params_schema()));
    let texts = RwSignal::new(Vec::<String>::new());
    let episodes = RwSignal::new(default_episodes(EnvId::Orchestrator, AgentId::QLearning).to_string());
    let seed = RwSignal::new("1".to_owned());
    let backend = RwSignal::new(Backend::Ndarray);

    // A new environment, agent or configuration starts from its defaults.
    Effect::new(move |_| {
        let value = serde_json::to_value(template.get()).expect("agent specs serialise");
        texts.set(fields.get().iter().map(|f| f.text(&value)).collect());
    });
    let reset_episodes = move || episodes.set(default_episodes(env.get_untracked(), agent.get_untracked()).to_string());

    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let spec = (|| {
            let episodes = parse_whole::<u32>(
                "episodes",
                &episodes.get_untracked(),
                &format!("between 1 and {}", RunSpec::MAX_EPISODES),
            )?;
            let seed = parse_whole::<u64>("seed", &seed.get_untracked(), &format!("from 0 to {}", u64::MAX))?;
            let agent_spec =
                texts.with_untracked(|t| params_form::build(&template.get_untracked(), &fields.get_untracked(), t))?;
            let spec = RunSpec {
                env: env.get_untracked(),
                agent: agent_spec,
                seed,
                episodes,
                backend: backend.get_untracked(),
            };
            spec.validate()?;
            Ok::<_, String>(spec)
        })();
        match spec {
            Ok(spec) => {
                on_error.run(None);
                on_start.run(spec);
            }
            Err(problem) => on_error.run(Some(problem)),
        }
    };

    let field_view = move |(index, field): (usize, Field)| {
        let id = format!("param-{}", field.name().replace('.', "-"));
        let value = move || texts.with(|t| t.get(index).cloned().unwrap_or_default());
        let set = move |text: String| {
            texts.update(|t| {
                if let Some(slot) = t.get_mut(index) {
                    *slot = text
                }
            })
        };
        let input = if field.kind == Kind::Bool {
            view! {
                <input type="checkbox" id=id.clone() prop:checked=move || value() == "true"
                    on:change=move |ev| set(event_target_checked(&ev).to_string()) />
            }
            .into_any()
        } else {
            let mode = if field.kind == Kind::Number { "decimal" } else { "numeric" };
            view! {
                <input id=id.clone() inputmode=mode autocomplete="off" prop:value=value
                    on:input=move |ev| set(event_target_value(&ev)) />
            }
            .into_any()
        };
        view! {
            <div class="param">
                <label for=id>{field.name()}</label>
                {input}
                <small>{field.description.clone()}</small>
            </div>
        }
    };

    view! {
        <form id="run-form" on:submit=submit>
            <div class="row">
                <label>"Environment "
                    <select id="env" on:change=move |ev| {
                        if let Ok(e) = EnvId::parse(&event_target_value(&ev)) { env.set(e); reset_episodes() }
                    }>
                        {EnvId::ALL.iter().map(|e| view! { <option value=e.name() selected=*e == EnvId::Orchestrator>{e.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Agent "
                    <select id="agent" on:change=move |ev| {
                        if let Ok(a) = AgentId::parse(&event_target_value(&ev)) { agent.set(a); reset_episodes() }
                    }>
                        {AgentId::ALL.iter().map(|a| view! { <option value=a.name()>{a.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label hidden=move || agent.get() != AgentId::Dqn>"Network "
                    <select id="dqn-config" on:change=move |ev| {
                        config.set(if event_target_value(&ev) == "seed" { DqnConfig::Seed } else { DqnConfig::Playground })
                    }>
                        <option value="playground">"playground (small, learns in seconds)"</option>
                        <option value="seed">"seed 000 table 1 ([512, 256], 1158 inputs)"</option>
                    </select>
                </label>
                <label>"Episodes "
                    <input id="episodes" inputmode="numeric" autocomplete="off" prop:value=episodes
                        on:input=move |ev| episodes.set(event_target_value(&ev)) />
                </label>
                <label>"Seed "
                    <input id="seed" inputmode="numeric" autocomplete="off" prop:value=seed
                        on:input=move |ev| seed.set(event_target_value(&ev)) />
                </label>
                <label hidden=move || agent.get() != AgentId::Dqn>"Backend "
                    <select id="backend" on:change=move |ev| {
                        if let Ok(b) = Backend::parse(&event_target_value(&ev)) { backend.set(b) }
                    }>
                        <option value="ndarray">"CPU (burn NdArray)"</option>
                        <option value="wgpu" disabled=true>"WebGPU (not in this build)"</option>
                    </select>
                </label>
            </div>
            <details id="hyperparameters">
                <summary>"Hyperparameters (defaults from the seed)"</summary>
                <div class="params">{move || fields.get().into_iter().enumerate().map(field_view).collect_view()}</div>
            </details>
            <button id="start" type="submit" disabled=move || !ready.get()>
                {move || if ready.get() { "Train" } else { "Loading the training worker…" }}
            </button>
        </form>
    }
}
