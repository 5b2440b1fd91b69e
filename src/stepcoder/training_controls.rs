//! The controls and the state of "Train the model": Train, Pause and go on, Stop, the trained
//! model put to use, a training to resume after a reload, what it is doing, and the link to a
//! training that ended, with whether it came out as the training of the link it was opened from.

use engine::share::training_link::TrainingLink;
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::links::address_of;
use crate::services::model_training::{self, KeptTraining, TrainingView};

/// Whether the training that ended has the records of the one `sent` (the link's), in words.
fn compared(ended: &TrainingLink, sent: &Option<TrainingLink>) -> String {
    let Some(sent) = sent.as_ref().filter(|s| (&s.model, &s.spec, s.tasks) == (&ended.model, &ended.spec, ended.tasks))
    else {
        return String::new();
    };
    match (&sent.fingerprint, &ended.fingerprint) {
        (Some(theirs), Some(ours)) if theirs == ours => {
            format!("The same records as the training of the link this page was opened from (fingerprint {ours}).")
        }
        (Some(theirs), Some(ours)) => format!(
            "Not the same records as the training of the link this page was opened from: its fingerprint is {theirs}, this one's {ours}."
        ),
        _ => String::new(),
    }
}

#[component]
pub fn TrainingControls(
    view: TrainingView,
    cancel: StoredValue<CancelToken, LocalStorage>,
    /// Trains what the form says.
    on_train: Callback<()>,
    /// Trains a kept training again.
    on_resume: Callback<KeptTraining>,
    /// Puts the trained model in the in-tab provider.
    on_use: Callback<()>,
    /// The link the page was opened with.
    sent: Option<TrainingLink>,
) -> impl IntoView {
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
    let link = move || view.ended.with(|ended| ended.as_ref().map(address_of).unwrap_or_default());
    let comparison =
        Memo::new(move |_| view.ended.with(|ended| ended.as_ref().map(|e| compared(e, &sent)).unwrap_or_default()));
    view! {
        <p class="actions">
            <button type="button" id="model-train-start" disabled=move || view.busy.get() on:click=move |_| on_train.run(())>"Train"</button>
            <button type="button" id="model-train-pause" hidden=move || !view.busy.get()
                on:click=move |_| model_training::pause(view, !view.paused.get_untracked())>
                {move || if view.paused.get() { "Go on" } else { "Pause" }}
            </button>
            <button type="button" id="model-train-stop" hidden=move || !view.busy.get() on:click=move |_| cancel.with_value(|c| model_training::stop(view, c))>"Stop"</button>
            <button type="button" id="model-train-use" hidden=move || view.trained.with(Option::is_none) on:click=move |_| on_use.run(())>"Use the trained model in the tab"</button>
        </p>
        <p id="model-train-resumable" hidden=move || view.resumable.with(Option::is_none)>{resumable}" "
            <button type="button" id="model-train-resume" disabled=move || view.busy.get()
                on:click=move |_| { if let Some(kept) = view.resumable.get_untracked() { on_resume.run(kept) } }>"Resume it"</button>
        </p>
        <p id="model-train-error" role="alert" class="error" hidden=move || view.problem.with(Option::is_none)>{move || view.problem.get()}</p>
        <p id="model-train-status" role="status">{move || view.doing.get()}</p>
        <p id="model-train-replayed" class="hint" hidden=move || view.replayed.get() == 0>{move || format!("{} batches of programs answered from this browser's record", view.replayed.get())}</p>
        <p hidden=move || view.ended.with(Option::is_none)>
            <label>"Link to this training (its settings and its records' fingerprint, not the model) "
                <input id="model-train-link" readonly prop:value=link /></label>
        </p>
        <p id="model-train-compared" role="status" hidden=move || comparison.with(String::is_empty)>{comparison}</p>
    }
}

#[cfg(test)]
mod tests {
    use engine::stepcoder::model_ppo::ModelPpoSpec;

    use super::*;

    #[test]
    fn a_training_is_compared_with_the_link_of_the_same_spec_only() {
        let link = |seed: u64, fingerprint: &str| TrainingLink {
            model: "small".into(),
            spec: ModelPpoSpec { seed, ..ModelPpoSpec::default() },
            tasks: (2, 1),
            fingerprint: Some(fingerprint.into()),
        };
        assert!(compared(&link(1, "aa"), &Some(link(1, "aa"))).starts_with("The same records"));
        assert!(compared(&link(1, "aa"), &Some(link(1, "bb"))).contains("its fingerprint is bb, this one's aa"));
        assert_eq!(compared(&link(2, "aa"), &Some(link(1, "aa"))), "");
        assert_eq!(compared(&link(1, "aa"), &None), "");
    }
}
