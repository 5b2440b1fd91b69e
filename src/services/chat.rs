//! One chat call for the page's host: the chosen [`Llm`] decides the client (an endpoint over
//! `fetch`, the model in this tab, or the simulated LLM answering at once), and what the call says
//! while it streams goes to the pane's status line and reply.

use engine::effects::{ChatCall, ChatOutcome, Effectful, Llm};
use engine::llm::{FailureKind, LlmFailure};
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::engine_llm;
use crate::services::in_tab_llm;
use crate::services::llm_client::{self, ClientEvent};
use crate::services::worker_bridge::WorkerBridge;

thread_local! {
    /// Where the model in this tab wrote its last reply ("llama.cpp on the CPU, 2 threads").
    static LAST_DEVICE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Where the model wrote, for a run's record: the model in this tab's device once it has written
/// (`in_tab`); an endpoint's machine is not known here, and the simulated LLM runs no model.
pub fn device(in_tab: bool) -> String {
    if in_tab { LAST_DEVICE.with_borrow(|device| device.clone()) } else { String::new() }
}

/// The outcome of `call`, the call `task` waits for; `status` says who is writing and how fast (or
/// why it retries), and `stream` shows the reply as it comes.
pub async fn chat<T: Effectful>(
    llm: &mut Llm,
    task: &T,
    call: &ChatCall,
    cancel: &CancelToken,
    status: RwSignal<String>,
    stream: RwSignal<String>,
) -> ChatOutcome {
    let (agent, messages) = (&call.agent, &call.messages);
    let name = match &*llm {
        Llm::InTab { settings } if settings.runtime.engine_backend().is_some() => {
            format!("{}, in this tab on the engine", settings.model)
        }
        Llm::InTab { settings } => format!("{}, in this tab", settings.model),
        other => other.label(),
    };
    status.set(format!("The {agent} is writing ({name})…"));
    stream.set(String::new());
    // Only an endpoint retries, and only the model in the tab tells its speed.
    let mut on_event = |event: ClientEvent| match event {
        ClientEvent::Attempt(n) if n > 1 => stream.set(String::new()),
        ClientEvent::Attempt(_) => {}
        ClientEvent::Text(piece) => stream.update(|s| s.push_str(piece)),
        ClientEvent::Retrying { delay_ms, reason } => {
            status.set(format!("{reason} Retrying in {:.1} s…", delay_ms as f64 / 1000.0))
        }
        ClientEvent::Loading { into } => status.set(format!(
            "Loading {name} into {into}: the first reply after a load waits for it, the next ones do not…"
        )),
        ClientEvent::Speed { tokens_per_second } => {
            status.set(format!("The {agent} is writing ({name}: {tokens_per_second:.0} tokens/s)…"))
        }
        // Said under the reply, which stays on screen until the next call's.
        ClientEvent::Wrote { tokens, tokens_per_second, device } => {
            LAST_DEVICE.set(device.to_owned());
            stream.update(|s| {
                s.push_str(&format!("\n\n[{tokens} tokens at {tokens_per_second:.0} tokens/s, by {device}]"))
            })
        }
    };
    let replied = match llm {
        Llm::InTab { settings } if settings.runtime.engine_backend().is_some() => match WorkerBridge::of_page() {
            Some(bridge) => engine_llm::chat(bridge, settings, messages, cancel, &mut on_event).await,
            None => Err(LlmFailure::new(
                FailureKind::BadRequest,
                "the training worker, where the engine runs, is not running",
            )),
        },
        Llm::InTab { settings } => in_tab_llm::chat(settings, messages, cancel, &mut on_event).await,
        Llm::Remote { settings, key } => llm_client::chat(settings, key, messages, cancel, &mut on_event).await,
        local => {
            let outcome = local.local_reply(task).expect("only a model that is called has no local reply");
            if let ChatOutcome::Reply { text, .. } = &outcome {
                stream.set(text.clone());
            }
            return outcome;
        }
    };
    match replied {
        Ok((text, usage)) => ChatOutcome::Reply { text, usage },
        Err(failure) => ChatOutcome::Failed(failure),
    }
}
