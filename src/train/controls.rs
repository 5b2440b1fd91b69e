//! The run form: environment and its parameters, agent and its hyperparameters (explained,
//! validated when a run starts), seed, episode budget and backend.

use engine::device::GpuAdapter;
use engine::params::{self, Parameters};
use engine::share::{Control, ShareLink};
use engine::{AgentId, AgentSpec, EnvId, RunSpec};
use leptos::prelude::*;

use crate::train::backend_choice::{BackendChoice, BackendNote};
use crate::train::pace_choice::PaceChoice;
use crate::widgets::param_fields::ParamFields;

/// The agent's preset named `preset` for `env` (its first, the default, when it has no such one).
fn template(env: EnvId, agent: AgentId, preset: &str) -> AgentSpec {
    let presets = agent.presets(env);
    let chosen = presets.iter().position(|p| p.id == preset).unwrap_or(0);
    presets.into_iter().nth(chosen).map(|p| p.spec).unwrap_or_else(|| agent.default_spec(env))
}

fn parse_whole<T: std::str::FromStr>(field: &str, text: &str, range: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| format!("{field} must be a whole number {range}, got '{text}'"))
}

#[component]
pub fn Controls(
    /// The form's first values and the controls a teacher's link hides or locks.
    initial: ShareLink,
    ready: ReadSignal<bool>,
    /// The training worker's WebGPU adapter, or why it has none; `None` until it knows.
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
    /// The run, and whether its test actions run the code in Python.
    on_start: Callback<(RunSpec, bool)>,
    on_error: Callback<Option<String>>,
) -> impl IntoView {
    let first = initial.spec;
    let env = RwSignal::new(first.env.id());
    let agent = RwSignal::new(first.agent.id());
    let preset = RwSignal::new(String::new());
    let template = Memo::new(move |_| preset.with(|p| template(env.get(), agent.get(), p)));
    let presets = Memo::new(move |_| agent.get().presets(env.get()));
    let fields = Memo::new(move |_| params::fields(&template.get().params_schema()));
    let texts = RwSignal::new(params::texts(&first.agent, &fields.get_untracked()));
    let env_template = Memo::new(move |_| env.get().default_spec());
    let env_fields = Memo::new(move |_| params::fields(&env_template.get().params_schema()));
    let env_texts = RwSignal::new(params::texts(&first.env, &env_fields.get_untracked()));
    let episodes = RwSignal::new(first.episodes.to_string());
    let seed = RwSignal::new(first.seed.to_string());
    let backend = RwSignal::new(first.backend);
    let real_python = RwSignal::new(first.env.measured_verdicts().is_some());
    // As bit sets, so the closures are `Copy` and every control can ask.
    let set = |list: &[Control]| list.iter().fold(0u8, |bits, &c| bits | 1 << c as u8);
    let (hidden_bits, locked_bits) = (set(&initial.teaching.hidden), set(&initial.teaching.locked));
    let hidden = move |c: Control| hidden_bits & (1 << c as u8) != 0;
    let locked = move |c: Control| locked_bits & (1 << c as u8) != 0;

    // A new environment, agent or configuration starts from its defaults (not on the first run:
    // the form starts from the link's values).
    Effect::new(move |first_run: Option<()>| {
        let defaults = params::texts(&template.get(), &fields.get());
        if first_run.is_some() {
            texts.set(defaults);
        }
    });
    Effect::new(move |first_run: Option<()>| {
        let defaults = params::texts(&env_template.get(), &env_fields.get());
        if first_run.is_some() {
            env_texts.set(defaults);
        }
    });
    // The learn step the form describes now, for the backend's choice.
    // A memo: the choice and its note both read it, and each computation parses the form and
    // makes the environment.
    let work: Signal<Option<u64>> = Memo::new(move |_| {
        let agent = texts.with(|t| params::build(&template.get(), &fields.get(), t)).ok()?;
        let env = env_texts.with(|t| params::build(&env_template.get(), &env_fields.get(), t)).ok()?;
        agent.learn_step_multiply_adds(&env)
    })
    .into();
    let uses_backend = Signal::derive(move || agent.get().uses_backend());
    let reset_episodes =
        move || episodes.set(RunSpec::default_episodes(env.get_untracked(), agent.get_untracked()).to_string());

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
                texts.with_untracked(|t| params::build(&template.get_untracked(), &fields.get_untracked(), t))?;
            let env_spec = env_texts
                .with_untracked(|t| params::build(&env_template.get_untracked(), &env_fields.get_untracked(), t))?;
            let spec = RunSpec { env: env_spec, agent: agent_spec, seed, episodes, backend: backend.get_untracked() };
            spec.validate()?;
            Ok::<_, String>(spec)
        })();
        match spec {
            Ok(spec) => {
                on_error.run(None);
                let python = real_python.get_untracked() && spec.env.id().measures_verdicts();
                on_start.run((spec, python));
            }
            Err(problem) => on_error.run(Some(problem)),
        }
    };

    view! {
        <form id="run-form" on:submit=submit>
            <div class="row">
                <label hidden=hidden(Control::Env)>"Environment "
                    <select id="env" disabled=locked(Control::Env) on:change=move |ev| {
                        if let Ok(e) = EnvId::parse(&event_target_value(&ev)) { env.set(e); reset_episodes() }
                    }>
                        {EnvId::ALL.iter().map(|e| view! { <option value=e.name() selected=*e == first.env.id()>{e.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label hidden=hidden(Control::Agent)>"Agent "
                    <select id="agent" disabled=locked(Control::Agent) on:change=move |ev| {
                        if let Ok(a) = AgentId::parse(&event_target_value(&ev)) { agent.set(a); reset_episodes() }
                    }>
                        {AgentId::ALL.iter().map(|a| view! { <option value=a.name() selected=*a == first.agent.id()>{a.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label hidden=move || presets.with(|p| p.len() < 2) || hidden(Control::Hyperparameters)>"Configuration "
                    <select id="agent-preset" disabled=locked(Control::Hyperparameters) on:change=move |ev| preset.set(event_target_value(&ev))>
                        {move || presets.get().into_iter().map(|p| view! { <option value=p.id selected=move || preset.get() == p.id>{p.label}</option> }).collect_view()}
                    </select>
                </label>
                <label hidden=hidden(Control::Episodes)>"Episodes "
                    <input id="episodes" disabled=locked(Control::Episodes) inputmode="numeric" autocomplete="off" prop:value=episodes
                        on:input=move |ev| episodes.set(event_target_value(&ev)) />
                </label>
                <label hidden=hidden(Control::Seed)>"Seed "
                    <input id="seed" disabled=locked(Control::Seed) inputmode="numeric" autocomplete="off" prop:value=seed
                        on:input=move |ev| seed.set(event_target_value(&ev)) />
                </label>
                <BackendChoice backend webgpu work shown=uses_backend hidden=hidden(Control::Backend) locked=locked(Control::Backend) />
            </div>
            // What the chosen environment and agent are, where they are chosen (the About section has all).
            <p class="hint choice-notes">
                <span id="env-note" hidden=hidden(Control::Env)>
                    <strong>{move || env.get().name()}</strong>": "{move || env.get().summary()}" "
                    <a href=move || format!("#{}", env.get().source())>"(source)"</a>
                </span>
                " "
                <span id="agent-note" hidden=hidden(Control::Agent)>
                    <strong>{move || agent.get().name()}</strong>": "{move || agent.get().summary()}" "
                    <a href=move || format!("#{}", agent.get().source())>"(source)"</a>
                </span>
            </p>
            <BackendNote webgpu work shown=Signal::derive(move || uses_backend.get() && !hidden(Control::Backend)) />
            <label class="inline" hidden=move || !env.get().measures_verdicts() || hidden(Control::EnvParams)>
                <input type="checkbox" id="real-python" prop:checked=real_python on:change=move |ev| real_python.set(event_target_checked(&ev)) />
                "Test actions run the code in Python (Pyodide) instead of using the recorded verdicts"
            </label>
            <ParamFields id="hyperparameters" title="Hyperparameters" defaults="defaults from the seed" id_prefix="param"
                fields=fields texts=texts hidden=hidden(Control::Hyperparameters) locked=locked(Control::Hyperparameters) />
            <ParamFields id="env-params" title="Environment parameters" defaults="rewards and odds from the seed" id_prefix="env-param"
                fields=env_fields texts=env_texts hidden=hidden(Control::EnvParams) locked=locked(Control::EnvParams) />
            <p class="actions">
                <button id="start" type="submit" disabled=move || !ready.get()>
                    {move || if ready.get() { "Train" } else { "Loading the training worker…" }}
                </button>
                <label class="inline">"at "<PaceChoice /></label>
            </p>
        </form>
    }
}
