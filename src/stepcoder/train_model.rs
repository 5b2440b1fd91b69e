//! "Train the model": StepCoder's PPO on a real language model in this tab (seed 002 §4.2, the
//! engine's `ModelPpo`): the model (the small code model of this project, or a model this browser
//! keeps for the in-tab provider), the arm of Table 1, the run's size and PPO's settings; Start and
//! Stop; the curves as it trains; and the trained model, kept in this browser, put to use in the
//! in-tab provider with one click.

use engine::llm::{IN_TAB, ProviderSettings, preset};
use engine::params::{self, Parameters};
use engine::stepcoder::coder_tasks::first_of_each_split;
use engine::stepcoder::learner_params::Arm;
use engine::stepcoder::model_ppo::ModelPpoSpec;
use engine::stepcoder::model_ppo_params::ModelPpoParams;
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::in_tab_llm;
use crate::services::llm_choice::LlmChoice;
use crate::services::model_training::{self, KeptTraining, SMALL_MODEL, TrainingView};
use crate::services::python_pool::Python;
use crate::stepcoder::training_plots::TrainingPlots;
use crate::widgets::param_fields::ParamFields;

/// A whole number from a field of the form, or what is wrong with it.
fn whole(label: &str, text: &str) -> Result<usize, String> {
    text.trim().parse().map_err(|_| format!("{label}: a whole number, got \"{}\"", text.trim()))
}

#[component]
pub fn TrainTheModel() -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let view = TrainingView::new();
    let model = RwSignal::new(SMALL_MODEL.to_owned());
    let python = Python::from_context();
    let kept = LocalResource::new(in_tab_llm::kept_models);
    // A model just trained can be trained further.
    Effect::new(move |_| {
        view.trained.track();
        kept.refetch();
    });
    let arm = RwSignal::new(Arm::StepCoder.name().to_owned());
    let defaults = ModelPpoSpec::default();
    let [updates, measure_every, seed, training_tasks, unseen_tasks] =
        [defaults.updates, defaults.measure_every, defaults.seed as usize, 8, 4].map(|n| RwSignal::new(n.to_string()));
    let fields = Memo::new(|_| params::fields(&ModelPpoParams::default().params_schema()));
    let texts = RwSignal::new(params::texts(&ModelPpoParams::default(), &fields.get_untracked()));
    let cancel = StoredValue::new_local(CancelToken::default());

    let read = move || -> Result<(ModelPpoSpec, (usize, usize)), String> {
        let params = params::build(&ModelPpoParams::default(), &fields.get_untracked(), &texts.get_untracked())?;
        let arm = Arm::parse(&arm.get_untracked())?;
        let spec = ModelPpoSpec {
            arm,
            updates: whole("updates", &updates.get_untracked())?,
            measure_every: whole("measure every", &measure_every.get_untracked())?,
            seed: whole("seed", &seed.get_untracked())? as u64,
            params,
        };
        let tasks = (
            whole("training tasks", &training_tasks.get_untracked())?,
            whole("unseen tasks", &unseen_tasks.get_untracked())?,
        );
        first_of_each_split(tasks.0, tasks.1)?;
        Ok((spec, tasks))
    };
    let train = move |training: KeptTraining| {
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        leptos::task::spawn_local(model_training::train(view, python.get_value(), training, token));
    };
    let start = move |_| match read() {
        Ok((spec, tasks)) => train(KeptTraining { address: model.get_untracked(), spec, tasks, batches: Vec::new() }),
        Err(problem) => view.problem.set(Some(problem)),
    };
    // A training cut by a reload can be resumed.
    leptos::task::spawn_local(async move {
        if let Some(kept) = KeptTraining::load().await.filter(|_| !view.busy.get_untracked()) {
            view.resumable.set(Some(kept));
        }
    });
    let resumable = move || {
        view.resumable.with(|kept| {
            kept.as_ref().map(|k| {
                format!(
                    "A training of {} ({}, {} updates, seed {}) stopped after {} batches of programs. Resuming trains it again from the start, its programs' verdicts taken from this browser's record.",
                    k.address, k.spec.arm.label(), k.spec.updates, k.spec.seed, k.batches.len()
                )
            })
        })
    };
    let use_trained = move |_| {
        let (Some(address), Some(in_tab)) = (view.trained.get_untracked(), preset(IN_TAB)) else { return };
        llm_choice.settings.update(|s| {
            s.preset = in_tab.id.to_owned();
            s.model = ProviderSettings::model_from_file(&address);
            s.base_url = address;
        });
        llm_choice.choice.set(IN_TAB.to_owned());
    };
    let field = move |id: &'static str, label: &'static str, value: RwSignal<String>| {
        view! { <label>{label}<input id=id prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) /></label> }
    };
    view! {
        <div id="model-train">
            <h3>"Train the model"</h3>
            <p class="hint">"StepCoder's PPO (§4.2) on a real language model, in the training worker on this machine's CPU: each update draws rollouts of the chosen training tasks, Python in this tab runs their programs against the tests, and the model's LoRA adapters take the clipped loss with the per-token KL to the model as it started. pass@1 is measured at T 0.2 on the training tasks and on tasks never trained on. Settings the seed does not give are ours, and each says so. Stop keeps the model as trained so far; a stopped training, or one a reload cut, resumes by training again from the start with its programs' verdicts taken from this browser's record. WebGPU does not train it yet."</p>
            <div class="form-grid">
                <label>"Model"<select id="model-train-model" prop:value=move || model.get() on:change=move |ev| model.set(event_target_value(&ev))>
                    <option value=SMALL_MODEL>"the small code model of this project (rlcg-coder, 3.4 M parameters, F16, 6.9 MB)"</option>
                    {move || kept.get().and_then(Result::ok).unwrap_or_default().into_iter().map(|m| view! { <option value=m.url.clone()>{m.url.clone()}</option> }).collect_view()}
                </select></label>
                <label>"Arm (Table 1)"<select id="model-train-arm" prop:value=move || arm.get() on:change=move |ev| arm.set(event_target_value(&ev))>
                    {Arm::ALL.map(|a| view! { <option value=a.name()>{a.label()}</option> }).to_vec()}
                </select></label>
                {field("model-train-updates", "Updates", updates)}
                {field("model-train-measure-every", "Measure pass@1 every (updates)", measure_every)}
                {field("model-train-seed", "Seed", seed)}
                {field("model-train-training-tasks", "Training tasks (of 32)", training_tasks)}
                {field("model-train-unseen-tasks", "Unseen tasks (of 16)", unseen_tasks)}
            </div>
            <ParamFields id="model-train-params" title="PPO's settings" defaults="seed 002 §4.2 where it gives a value; ours, labelled, where it does not" id_prefix="model-train-param"
                fields=fields texts=texts hidden=false locked=false />
            <p class="actions">
                <button type="button" id="model-train-start" disabled=move || view.busy.get() on:click=start>"Train"</button>
                <button type="button" id="model-train-stop" hidden=move || !view.busy.get() on:click=move |_| cancel.with_value(|c| model_training::stop(view, c))>"Stop"</button>
                <button type="button" id="model-train-use" hidden=move || view.trained.with(Option::is_none) on:click=use_trained>"Use the trained model in the tab"</button>
            </p>
            <p id="model-train-resumable" hidden=move || view.resumable.with(Option::is_none)>{resumable}" "
                <button type="button" id="model-train-resume" disabled=move || view.busy.get()
                    on:click=move |_| { if let Some(kept) = view.resumable.get_untracked() { train(kept) } }>"Resume it"</button>
            </p>
            <p id="model-train-error" role="alert" class="error" hidden=move || view.problem.with(Option::is_none)>{move || view.problem.get()}</p>
            <p id="model-train-status" role="status">{move || view.doing.get()}</p>
            <p id="model-train-replayed" class="hint" hidden=move || view.replayed.get() == 0>{move || format!("{} batches of programs answered from this browser's record", view.replayed.get())}</p>
            <TrainingPlots view=view />
        </div>
    }
}
