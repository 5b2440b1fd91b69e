//! The page's host for the engine's effectful tasks ([`engine::effects::Effectful`]), the page's
//! one loop: it performs each need — a policy's decision, an LLM call ([`crate::services::chat`]: an
//! endpoint, the model in this tab or the offline LLM), a batch of programs in Pyodide, a slice of the task's own work after the
//! page has drawn — and resumes the task with the outcome, until the task is done or the user
//! cancels. Live episodes, searches, StepCoder's completion runs and ablations, and world models'
//! planning runs all go through [`drive`]; no component holds a loop of its own.

use engine::effects::{Effectful, LiveState, Llm, Need, PYTHON_COULD_NOT_RUN, PythonBatch};
use engine::python::{Author, ProgramRequest, ProgramVerdict};
use futures_channel::oneshot;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::chat;
use crate::services::python_pool::Python;

/// What the host shows while it works: a status line, and the reply as it streams in.
#[derive(Clone, Copy)]
pub struct HostView {
    pub status: RwSignal<String>,
    pub stream: RwSignal<String>,
}

/// Performs `task`'s needs until it is done or `cancel` is set; `decide` answers a policy
/// decision, and `show` runs after every resumed step. The error is why the host ended the task
/// early: Pyodide could not run a batch (the task keeps the same reason).
pub async fn drive<T: Effectful>(
    task: &mut T,
    llm: &mut Llm,
    python: &Python,
    cancel: &CancelToken,
    mut decide: impl AsyncFnMut(LiveState) -> Result<usize, String>,
    view: HostView,
    mut show: impl FnMut(&T),
) -> Result<(), String> {
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
                let call = call.clone();
                let outcome = chat::chat(llm, task, &call, cancel, view.status, view.stream).await;
                task.chat_done(outcome, now());
            }
            Need::Python(batch) => {
                let batch = batch.clone();
                if batch.requests.len() == 1 {
                    view.status.set("Pyodide is running the program…".into());
                } else {
                    view.status.set(format!("Pyodide is running {} programs…", batch.requests.len()));
                }
                match run_batch(python, batch, cancel).await {
                    Ok(verdicts) => task.python_done(verdicts, now()),
                    Err(message) => {
                        let why = format!("{PYTHON_COULD_NOT_RUN}: {message}");
                        task.end(&why, now());
                        show(task);
                        return Err(why);
                    }
                }
            }
            Need::Compute => {
                // The page draws what the last slice changed before the next one runs.
                TimeoutFuture::new(0).await;
                task.compute(now());
            }
        }
        show(task);
    }
    show(task);
    Ok(())
}

/// The verdicts of `batch`, in order, from its runs ([`PythonBatch::runs`]): a person's or an
/// LLM's programs one after another, with a cancel between two; the playground's own in one chunk
/// per worker, side by side ([`Python::lanes`]).
pub async fn run_batch(
    python: &Python,
    batch: PythonBatch,
    cancel: &CancelToken,
) -> Result<Vec<ProgramVerdict>, String> {
    if batch.author == Author::Playground {
        let runs = batch.runs(Python::lanes()).into_iter().map(|run| (run.request, run.limit_ms)).collect();
        let (tx, rx) = oneshot::channel();
        python.run_all_as(Author::Playground, runs, move |results| {
            let _ = tx.send(results);
        });
        let results = rx.await.map_err(|_| "Python stopped before giving a verdict".to_string())?;
        return batch.verdicts(results.into_iter().collect::<Result<_, _>>()?);
    }
    let mut of_runs = Vec::new();
    for run in batch.runs(1) {
        if cancel.is_cancelled() {
            return Err("cancelled".into());
        }
        of_runs.push(run_python(python, batch.author, run.request, run.limit_ms).await?);
    }
    batch.verdicts(of_runs)
}

/// One program's verdict from Pyodide, awaited.
async fn run_python(
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
