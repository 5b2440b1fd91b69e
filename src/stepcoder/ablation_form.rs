//! The StepCoder ablation's form: its arms, seeds and executions per task, read back into an
//! `AblationSpec` whose other settings are the link's (or the defaults); a teacher's link may hide
//! or lock any of the three.

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
}

impl AblationForm {
    pub fn new(template: AblationSpec) -> Self {
        Self {
            arms: RwSignal::new(template.arms.clone()),
            seeds: RwSignal::new(template.seeds.to_string()),
            budget: RwSignal::new(template.params.budget.to_string()),
            template: StoredValue::new(template),
        }
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
        Ok(AblationSpec { arms, seeds, params: LearnerParams { budget, ..template.params }, ..template })
    }
}

/// The form's fields, hidden or locked as `teaching` says.
#[component]
pub fn AblationFormFields(form: AblationForm, teaching: Teaching<AblationControl>) -> impl IntoView {
    let AblationForm { arms, seeds, budget, .. } = form;
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
        </div>
    }
}
