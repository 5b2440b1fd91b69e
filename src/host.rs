//! The page's host for the engine's effectful tasks ([`engine::effects::Effectful`]): it performs
//! each need — a policy's decision, an LLM call (streamed from an endpoint, or the offline LLM),
//! a run of Python tests in Pyodide — and resumes the task with the outcome, until the task is
//! done or the user cancels. Live mode drives its episodes through [`drive`], and so will every
//! later LLM-driven loop; no component holds a loop of its own.

use engine::effects::{ChatOutcome, Effectful, LiveState, Need, OfflineLlm};
use engine::llm::ProviderSettings;
use engine::python::{DEFAULT_TIME_LIMIT_MS, ProgramRequest, ProgramVerdict};
use futures_channel::oneshot;
use leptos::prelude::*;

use crate::llm_client::{self, CancelToken, ClientEvent};
use crate::python::{Author, Python};

/// Which LLM answers the task's calls.
pub enum Llm {
    /// An OpenAI-compatible endpoint; the key goes to [`llm_client::chat`] and nowhere else.
    Remote {
        settings: ProviderSettings,
        key: String,
    },
    // Boxed: its RNG state is several times the size of the endpoint's settings.
    Offline(Box<OfflineLlm>),
}

/// What the host shows while it works: a status line, and the reply as it streams in.
#[derive(Clone, Copy)]
pub struct HostView {
    pub status: RwSignal<String>,
    pub stream: RwSignal<String>,
}

/// Performs `task`'s needs until it is done or `cancel` is set; `decide` answers a policy
/// decision, and `show` runs after every resumed step.
pub async fn drive<T: Effectful>(
    task: &mut T,
    llm: &mut Llm,
    python: &Python,
    cancel: &CancelToken,
    mut decide: impl AsyncFnMut(LiveState) -> Result<usize, String>,
    view: HostView,
    mut show: impl FnMut(&T),
) {
    let start = js_sys::Date::now();
    let now = move || js_sys::Date::now() - start;
    loop {
        if cancel.is_cancelled() {
            task.end("cancelled", now());
        }
        match task.need() {
            Need::Done => break,
            Need::Decide(state) => match decide(state).await {
                Ok(action) => task.decided(action, now()),
                Err(message) => task.end(&format!("the policy could not decide: {message}"), now()),
            },
            Need::Chat(call) => {
                let (agent, messages) = (call.agent.clone(), call.messages.clone());
                view.stream.set(String::new());
                let outcome = match llm {
                    Llm::Remote { settings, key } => {
                        view.status.set(format!("The {agent} is writing ({})…", settings.model));
                        let mut on_event = |event: ClientEvent| match event {
                            ClientEvent::Attempt(n) if n > 1 => view.stream.set(String::new()),
                            ClientEvent::Attempt(_) => {}
                            ClientEvent::Text(piece) => view.stream.update(|s| s.push_str(piece)),
                            ClientEvent::Retrying { delay_ms, reason } => {
                                view.status.set(format!("{reason} Retrying in {:.1} s…", delay_ms as f64 / 1000.0))
                            }
                        };
                        match llm_client::chat(settings, key, &messages, cancel, &mut on_event).await {
                            Ok((text, usage)) => ChatOutcome::Reply { text, usage },
                            Err(failure) => ChatOutcome::Failed(failure),
                        }
                    }
                    Llm::Offline(offline) => {
                        view.status.set(format!("The {agent} is writing (simulated LLM)…"));
                        let outcome = offline.reply(task);
                        if let ChatOutcome::Reply { text, .. } = &outcome {
                            view.stream.set(text.clone());
                        }
                        outcome
                    }
                };
                task.chat_done(outcome, now());
            }
            Need::Test(request) => {
                view.status.set("Pyodide is running the tests…".into());
                match run_python(python, Author::Untrusted, request.clone(), DEFAULT_TIME_LIMIT_MS).await {
                    Ok(verdict) => task.test_done(verdict, now()),
                    Err(message) => task.end(&format!("Python could not run the tests: {message}"), now()),
                }
            }
        }
        show(task);
    }
    show(task);
}

/// One program's verdict from Pyodide, awaited.
pub async fn run_python(
    python: &Python,
    author: Author,
    request: ProgramRequest,
    limit_ms: u32,
) -> Result<ProgramVerdict, String> {
    let (tx, rx) = oneshot::channel();
    python.run_as(author, request, limit_ms, move |result| {
        let _ = tx.send(result);
    });
    rx.await.unwrap_or_else(|_| Err("Python stopped before giving a verdict".into()))
}
