//! The StepCoder ablation's form: its arms, seeds and executions per task, and whether training
//! rollouts are sampled at T 1 (the earlier rule) instead of §4.2's T 0.8, top-p 0.9, read back
//! into an `AblationSpec` whose other settings are the link's (or the defaults); a teacher's link
//! may hide or lock any of the first three.

use engine::share::{AblationControl, Teaching};
use engine::stepcoder::ablation::AblationSpec;
use engine::stepcoder::learner_params::{Arm, LearnerParams};
use leptos::prelude::*;

/// What the form holds, as the user edits it.
#[derive(Clone, Copy)]
pub struct AblationForm {
    /// The spec the form edits: the link's, or the defaults.
    template: StoredValue<AblationSpec>,
    arms: RwSignal<Vec<Arm>>,
    seeds: RwSignal<String>,
    budget: RwSignal<String>,
    /// Training rollouts at T 1 from the whole softmax, this project's earlier rule.
    earlier_rollouts: RwSignal<bool>,
}

/// Whether `params` sample their rollouts by the earlier rule.
fn is_earlier(params: &LearnerParams) -> bool {
    (params.rollout_temperature, params.rollout_top_p) == (1.0, 1.0)
}

impl AblationForm {
    pub fn new(template: AblationSpec) -> Self {
        Self {
            arms: RwSignal::new(template.arms.clone()),
            seeds: RwSignal::new(template.seeds.to_string()),
            budget: RwSignal::new(template.params.budget.to_string()),
            earlier_rollouts: RwSignal::new(is_earlier(&template.params)),
            template: StoredValue::new(template),
        }
    }

    /// [`AblationForm::read`], again whenever a field changes.
    pub fn watch(self) -> Result<AblationSpec, String> {
        self.arms.track();
        self.seeds.track();
        self.budget.track();
        self.read()
    }

    /// The spec in the form, or what is wrong with it.
    pub fn read(self) -> Result<AblationSpec, String> {
        let seeds = self.seeds.get_untracked().trim().parse().map_err(|_| "seeds: a whole number".to_owned())?;
        let budget = self
            .budget
            .get_untracked()
            .trim()
            .parse()
            .map_err(|_| "budget: a whole number of executions".to_owned())?;
        // In the arms' own order, whatever the order of the clicks.
        let chosen = self.arms.get_untracked();
        let arms: Vec<Arm> = Arm::ALL.into_iter().filter(|arm| chosen.contains(arm)).collect();
        if arms.is_empty() {
            return Err("arms: choose at least one arm".to_owned());
        }
        let template = self.template.get_value();
        let paper = LearnerParams::default();
        let (rollout_temperature, rollout_top_p) =
            match (self.earlier_rollouts.get_untracked(), is_earlier(&template.params)) {
                (true, _) => (1.0, 1.0),
                (false, true) => (paper.rollout_temperature, paper.rollout_top_p),
                (false, false) => (template.params.rollout_temperature, template.params.rollout_top_p),
            };
        let params = LearnerParams { budget, rollout_temperature, rollout_top_p, ..template.params };
        Ok(AblationSpec { arms, seeds, params, ..template })
    }
}

/// The form's fields, hidden or locked as `teaching` says.
#[component]
pub fn AblationFormFields(form: AblationForm, teaching: Teaching<AblationControl>) -> impl IntoView {
    let AblationForm { arms, seeds, budget, earlier_rollouts, .. } = form;
    let (hides, locks) = (|c| teaching.hides(c), |c| teaching.locks(c));
    let arm_box = move |arm: Arm| {
        view! {
            <label class="inline">
                <input type="checkbox" id=format!("stepcoder-arm-{}", arm.name()) disabled=locks(AblationControl::Arms)
                    prop:checked=move || arms.with(|a| a.contains(&arm))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        arms.update(|a| { a.retain(|x| *x != arm); if on { a.push(arm) } });
                    } />
                {arm.name()}
            </label>
        }
    };
    view! {
        <div class="form-grid">
            <fieldset hidden=hides(AblationControl::Arms)><legend>"Arms"</legend>{Arm::ALL.map(arm_box).to_vec()}</fieldset>
            <label hidden=hides(AblationControl::Seeds)>"Seeds"
                <input id="stepcoder-learn-seeds" disabled=locks(AblationControl::Seeds) prop:value=move || seeds.get() on:input=move |ev| seeds.set(event_target_value(&ev)) />
            </label>
            <label hidden=hides(AblationControl::Executions)>"Executions per task"
                <input id="stepcoder-learn-budget" disabled=locks(AblationControl::Executions) prop:value=move || budget.get() on:input=move |ev| budget.set(event_target_value(&ev)) />
            </label>
            <label class="inline" title="Seed 002 §4.2 samples training rollouts at T 0.8, top-p 0.9; this project's earlier tables sampled them at T 1">
                <input type="checkbox" id="stepcoder-rollouts-t1" prop:checked=move || earlier_rollouts.get()
                    on:change=move |ev| earlier_rollouts.set(event_target_checked(&ev)) />
                "Rollouts at T 1 (earlier rule, not §4.2's)"
            </label>
        </div>
    }
}
