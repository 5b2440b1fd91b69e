//! The native host for the engine's effectful tasks ([`engine::effects::Effectful`]): it performs
//! each need — a policy's decision, an LLM call (an OpenAI-compatible endpoint, or the offline
//! LLM), a run of Python tests on python3 — and resumes the task with the outcome, as the page's
//! host does with fetch and Pyodide.

use std::time::Instant;

use engine::effects::{ChatOutcome, Effectful, LiveState, Need, OfflineLlm};
use engine::llm::ProviderSettings;
use engine::python::DEFAULT_TIME_LIMIT_MS;

use crate::llm::chat;
use crate::python::NativePython;

/// Which LLM answers the task's calls.
pub enum Llm {
    /// An OpenAI-compatible endpoint; the key goes to [`chat`] and nowhere else.
    Remote {
        settings: ProviderSettings,
        key: String,
    },
    // Boxed: its RNG state is several times the size of the endpoint's settings.
    Offline(Box<OfflineLlm>),
}

/// Performs `task`'s needs until it is done; `decide` answers a policy decision, `on_text` hears
/// each reply as it arrives.
pub fn drive<T: Effectful>(
    task: &mut T,
    llm: &mut Llm,
    python: &mut NativePython,
    mut decide: impl FnMut(LiveState) -> Result<usize, String>,
    on_text: &mut dyn FnMut(&str),
) {
    let start = Instant::now();
    let now = || start.elapsed().as_secs_f64() * 1000.0;
    loop {
        match task.need() {
            Need::Done => return,
            Need::Decide(state) => match decide(state) {
                Ok(action) => task.decided(action, now()),
                Err(message) => task.end(&format!("the policy could not decide: {message}"), now()),
            },
            Need::Chat(call) => {
                let outcome = match llm {
                    Llm::Remote { settings, key } => match chat(settings, key, &call.messages, on_text) {
                        Ok((text, usage)) => ChatOutcome::Reply { text, usage },
                        Err(failure) => ChatOutcome::Failed(failure),
                    },
                    Llm::Offline(offline) => {
                        let outcome = offline.reply(task);
                        if let ChatOutcome::Reply { text, .. } = &outcome {
                            on_text(text);
                        }
                        outcome
                    }
                };
                task.chat_done(outcome, now());
            }
            Need::Test(request) => match python.run(request, DEFAULT_TIME_LIMIT_MS) {
                Ok(verdict) => task.test_done(verdict, now()),
                Err(message) => task.end(&format!("Python could not run the tests: {message}"), now()),
            },
        }
    }
}
