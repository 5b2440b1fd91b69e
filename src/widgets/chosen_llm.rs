//! The LLM a pane's work will call, named beside the button that starts it: the choice is made in
//! Live mode, which is on another route, so a search or a measure never calls a model the person
//! did not see named.

use engine::effects::llm_source::LlmSource;
use leptos::prelude::*;

use crate::services::llm_choice::LlmChoice;

#[component]
pub fn ChosenLlm(
    /// The line's id, one per pane.
    id: &'static str,
) -> impl IntoView {
    let llm = expect_context::<LlmChoice>();
    let named = move || match LlmSource::of(&llm.choice.get(), llm.settings.get()) {
        Ok(LlmSource::Simulated) => {
            "the simulated LLM, offline: its results are the simulated LLM's, not a real model's".to_owned()
        }
        Ok(source) => source.label(),
        Err(message) => message,
    };
    view! {
        <p class="hint chosen-llm" id=id>"LLM: "<strong>{named}</strong>". "<a href="#llm-provider">"Choose another in Live mode"</a></p>
    }
}
