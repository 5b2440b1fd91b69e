//! "Train the model": StepCoder's PPO on a real language model in this tab (seed 002 §4.2, the
//! engine's `ModelPpo`): the model (the small code model of this project, or a model this browser
//! keeps for the in-tab provider), the arm of Table 1, the run's size, PPO's settings and the
//! backend, filled from a training's link when the page was opened with one; its controls
//! ([`TrainingControls`]); the curves as it trains; and the trained model, kept in this browser, put
//! to use in the in-tab provider with one click.

use engine::device::{Backend, GpuAdapter};
use engine::llm::{IN_TAB, ProviderSettings, preset};
use engine::params::{self, Parameters};
use engine::share::training_link::{DEFAULT_TASKS, SMALL_MODEL_NAME, TrainingLink};
use engine::stepcoder::coder_tasks::first_of_each_split;
use engine::stepcoder::learner_params::Arm;
use engine::stepcoder::model_ppo::ModelPpoSpec;
use engine::stepcoder::model_ppo_params::ModelPpoParams;
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::in_tab_llm::{self, KeptModel};
use crate::services::llm_choice::LlmChoice;
use crate::services::model_training::{
    self, KeptTraining, SMALL_MODEL, SMALL_MODEL_PARAMETERS, TrainingView, link_model_name,
};
use crate::services::python_pool::Python;
use crate::stepcoder::training_backend::TrainingBackend;
use crate::stepcoder::training_controls::TrainingControls;
use crate::stepcoder::training_plots::TrainingPlots;
use crate::widgets::param_fields::ParamFields;

/// A whole number from a field of the form, or what is wrong with it.
fn whole(label: &str, text: &str) -> Result<usize, String> {
    text.trim().parse().map_err(|_| format!("{label}: a whole number, got \"{}\"", text.trim()))
}

/// A link's kept model `name`, chosen the first time the kept models are read, or named as missing.
fn choose_kept_model(
    name: String,
    kept: LocalResource<Result<Vec<KeptModel>, String>>,
    model: RwSignal<String>,
    view: TrainingView,
) {
    Effect::new(move |chosen: Option<bool>| {
        if chosen == Some(true) {
            return true;
        }
        let Some(models) = kept.get().and_then(Result::ok) else { return false };
        match models.into_iter().find(|m| link_model_name(&m.url) == name) {
            Some(found) => model.set(found.url),
            None => view.problem.set(Some(format!(
                "The link trains the model {name}, which this browser does not keep: keep it in the in-tab provider (Live pane), then reload this link."
            ))),
        }
        true
    });
}

/// `link`: a shared training, whose settings fill the form; `webgpu`: the training worker's adapter.
#[component]
pub fn TrainTheModel(
    link: Option<TrainingLink>,
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
) -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let view = TrainingView::new();
    let model = RwSignal::new(SMALL_MODEL.to_owned());
    let python = Python::from_context();
    let kept = LocalResource::new(in_tab_llm::kept_models);
    // A model just trained can be trained further: read the kept models again when one is added.
    Effect::watch(move || view.trained.get(), move |_, _, _| kept.refetch(), false);
    let (spec, tasks) = link.as_ref().map_or((ModelPpoSpec::default(), DEFAULT_TASKS), |l| (l.spec.clone(), l.tasks));
    if let Some(sent) = &link {
        let compared =
            if sent.fingerprint.is_some() { "; when it ends, its records are compared with the sender's" } else { "" };
        view.doing.set(format!("Opened from a link: Train trains its settings here{compared}."));
    }
    let arm = RwSignal::new(spec.arm.name().to_owned());
    let [updates, measure_every, seed, training_tasks, unseen_tasks] =
        [spec.updates, spec.measure_every, spec.seed as usize, tasks.0, tasks.1].map(|n| RwSignal::new(n.to_string()));
    let fields = Memo::new(|_| params::fields(&ModelPpoParams::default().params_schema()));
    let texts = RwSignal::new(params::texts(&spec.params, &fields.get_untracked()));
    let backend = RwSignal::new(spec.backend);
    // One PPO batch's work, the weights taken as F16 (a quantised file has more: the rule errs to the CPU).
    let work = Signal::derive(move || {
        let built = params::build(&ModelPpoParams::default(), &fields.get(), &texts.get()).ok()?;
        let address = model.get();
        let parameters = match address == SMALL_MODEL {
            true => SMALL_MODEL_PARAMETERS,
            false => (kept.get().and_then(Result::ok)?.into_iter().find(|m| m.url == address)?.size / 2.0) as u64,
        };
        Some(built.batch_multiply_adds(parameters))
    });
    if let Some(name) = link.as_ref().map(|l| l.model.clone()).filter(|name| name != SMALL_MODEL_NAME) {
        choose_kept_model(name, kept, model, view);
    }
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
            backend: backend.get_untracked(),
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
    let start = Callback::new(move |()| match read() {
        Ok((spec, tasks)) => train(KeptTraining { address: model.get_untracked(), spec, tasks, batches: Vec::new() }),
        Err(problem) => view.problem.set(Some(problem)),
    });
    // A training cut by a reload can be resumed.
    leptos::task::spawn_local(async move {
        if let Some(kept) = KeptTraining::load().await.filter(|_| !view.busy.get_untracked()) {
            view.resumable.set(Some(kept));
        }
    });
    let use_trained = Callback::new(move |()| {
        let (Some(address), Some(in_tab)) = (view.trained.get_untracked(), preset(IN_TAB)) else { return };
        llm_choice.settings.update(|s| {
            s.preset = in_tab.id.to_owned();
            s.model = ProviderSettings::model_from_file(&address);
            s.base_url = address;
        });
        llm_choice.choice.set(IN_TAB.to_owned());
    });
    let field = move |id: &'static str, label: &'static str, value: RwSignal<String>| {
        view! { <label>{label}<input id=id prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) /></label> }
    };
    view! {
        <div id="model-train">
            <h3>"Train the model"</h3>
            <p class="hint">"StepCoder's PPO (§4.2) on a real language model, in the training worker, on this machine's CPU or on WebGPU: each update draws rollouts of the chosen training tasks, Python in this tab runs their programs against the tests, and the model's LoRA adapters take the clipped loss with the per-token KL to the model as it started. pass@1 is measured at T 0.2 on the training tasks and on tasks never trained on. Settings the seed does not give are ours, and each says so. Pause holds it, Stop keeps the model as trained so far; a stopped training, or one a reload cut, resumes by training again from the start with its programs' verdicts taken from this browser's record."</p>
            <div class="form-grid">
                <label>"Model"<select id="model-train-model" prop:value=move || model.get() on:change=move |ev| model.set(event_target_value(&ev))>
                    <option value=SMALL_MODEL>{format!("the small code model of this project (rlcg-coder, {:.1} M parameters, F16, 6.9 MB)", SMALL_MODEL_PARAMETERS as f64 / 1e6)}</option>
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
                <TrainingBackend backend=backend webgpu=webgpu work=work from_link=link.as_ref().is_some_and(|l| l.spec.backend != Backend::default()) />
            </div>
            <ParamFields id="model-train-params" title="PPO's settings" defaults="seed 002 §4.2 where it gives a value; ours, labelled, where it does not" id_prefix="model-train-param"
                fields=fields texts=texts hidden=false locked=false />
            <TrainingControls view=view cancel=cancel on_train=start on_resume=Callback::new(train) on_use=use_trained sent=link />
            <TrainingPlots view=view />
        </div>
    }
}
