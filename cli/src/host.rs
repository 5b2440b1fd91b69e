//! The native host for the engine's effectful tasks ([`engine::effects::Effectful`]), the CLI's one
//! loop: it performs each need — a policy's decision, an LLM call (an OpenAI-compatible endpoint,
//! or the offline LLM), a batch of programs on python3 (side by side in `jobs` processes), a slice
//! of the task's own work — and resumes the task with the outcome, as the page's host does with
//! fetch and Pyodide. Searches, live episodes, validations, StepCoder's completion runs and
//! ablations, and world models' planning runs all go through [`Host::drive`].

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use engine::effects::{ChatOutcome, Effectful, LiveState, Llm, Need, PYTHON_COULD_NOT_RUN, PythonBatch};
use engine::llm::{ChatMessage, FailureKind, LlmFailure};
use engine::python::ProgramVerdict;

use crate::llm::chat;
use crate::python::{NativePython, Runners};

/// Verdicts by request, shared by hosts on several threads: the harness gives a program the same
/// verdict every time, so a program met again by any of them is not run again.
pub type VerdictMemo = Mutex<HashMap<String, ProgramVerdict>>;

type Decide<'a> = Box<dyn FnMut(LiveState) -> Result<usize, String> + 'a>;

/// What performs the needs: an LLM, python3, and how to answer a policy decision.
pub struct Host<'a> {
    llm: Llm,
    python: &'a mut NativePython,
    /// python3 processes that run a batch's programs side by side, kept from batch to batch.
    runners: Runners,
    memo: Option<&'a VerdictMemo>,
    decide: Decide<'a>,
    /// Shows each reply on stderr as it arrives.
    stream: bool,
}

impl<'a> Host<'a> {
    /// A host that runs one program at a time, shows no reply and answers no policy decision.
    pub fn new(llm: Llm, python: &'a mut NativePython) -> Self {
        let decide: Decide<'a> = Box::new(|_| Err("this task takes no policy decisions".to_owned()));
        Self { llm, python, runners: Runners::new(1), memo: None, decide, stream: false }
    }

    /// A host without an LLM, for tasks that make no calls.
    pub fn without_llm(python: &'a mut NativePython) -> Self {
        Self::new(Llm::Absent, python)
    }

    /// Runs a batch's programs in `jobs` python3 processes side by side.
    pub fn with_jobs(self, jobs: usize) -> Self {
        Self { runners: Runners::new(jobs), ..self }
    }

    /// Shares verdicts with the other hosts that hold `memo`.
    pub fn with_memo(self, memo: &'a VerdictMemo) -> Self {
        Self { memo: Some(memo), ..self }
    }

    /// Answers policy decisions with `decide`.
    pub fn with_decide(self, decide: impl FnMut(LiveState) -> Result<usize, String> + 'a) -> Self {
        Self { decide: Box::new(decide), ..self }
    }

    /// Shows each reply on stderr as it arrives, unless `quiet` (a report on stdout is JSON).
    pub fn streaming(self, quiet: bool) -> Self {
        Self { stream: !quiet, ..self }
    }

    /// Performs `task`'s needs until it is done; `after` sees the task after each step (a
    /// progress bar). The error is why the host ended the task early: python3 could not run a
    /// batch (the task keeps the same reason).
    pub fn drive<T: Effectful>(&mut self, task: &mut T, mut after: impl FnMut(&T)) -> Result<(), String> {
        let start = Instant::now();
        let now = || start.elapsed().as_secs_f64() * 1000.0;
        loop {
            match task.need() {
                Need::Done => return Ok(()),
                Need::Decide(state) => match (self.decide)(state) {
                    Ok(action) => task.decided(action, now()),
                    Err(message) => task.end(&format!("the policy could not decide: {message}"), now()),
                },
                Need::Chat(call) => {
                    let outcome = self.chat(task, &call.messages);
                    task.chat_done(outcome, now());
                }
                Need::Python(batch) => match self.run(batch) {
                    Ok(verdicts) => task.python_done(verdicts, now()),
                    Err(message) => {
                        let why = format!("{PYTHON_COULD_NOT_RUN}: {message}");
                        task.end(&why, now());
                        return Err(why);
                    }
                },
                Need::Compute => task.compute(now()),
            }
            after(task);
        }
    }

    /// The reply to `messages`, the call `task` waits for.
    fn chat<T: Effectful>(&mut self, task: &T, messages: &[ChatMessage]) -> ChatOutcome {
        let stream = self.stream;
        let mut on_text = |piece: &str| {
            if stream {
                eprint!("{piece}");
                let _ = std::io::stderr().flush();
            }
        };
        match &mut self.llm {
            Llm::Remote { settings, key } => match chat(settings, key, messages, &mut on_text) {
                Ok((text, usage)) => ChatOutcome::Reply { text, usage },
                Err(failure) => ChatOutcome::Failed(failure),
            },
            // `LlmArgs::choose` refuses it: only the page runs a model itself.
            Llm::InTab { .. } => {
                ChatOutcome::Failed(LlmFailure::new(FailureKind::BadRequest, "the in-tab model runs only in the page"))
            }
            local => {
                let outcome = local.local_reply(task).expect("only an endpoint has no local reply");
                if let ChatOutcome::Reply { text, .. } = &outcome {
                    on_text(text);
                }
                outcome
            }
        }
    }

    /// The batch's verdicts, in order: from the memo where it has them, the rest run on python3.
    fn run(&mut self, batch: &PythonBatch) -> Result<Vec<ProgramVerdict>, String> {
        let keys: Vec<String> = match self.memo {
            Some(_) => batch.requests.iter().map(|r| serde_json::to_string(r).expect("requests serialise")).collect(),
            None => Vec::new(),
        };
        let remembered = |index: usize| -> Option<ProgramVerdict> {
            let memo = self.memo?.lock().expect("no host panics holding the memo");
            memo.get(&keys[index]).cloned()
        };
        let mut verdicts: Vec<Option<ProgramVerdict>> = (0..batch.requests.len()).map(remembered).collect();
        let missing: Vec<usize> = (0..verdicts.len()).filter(|&i| verdicts[i].is_none()).collect();
        let unknown =
            PythonBatch { requests: missing.iter().map(|&i| batch.requests[i].clone()).collect(), ..batch.clone() };
        let runs = unknown.runs(self.runners.count());
        let of_runs: Vec<ProgramVerdict> = if self.runners.count() == 1 || runs.len() == 1 {
            runs.iter().map(|r| self.python.run(&r.request, r.limit_ms)).collect::<Result<_, _>>()?
        } else {
            self.runners.run_all(&runs, |_| {}).into_iter().collect::<Result<_, _>>()?
        };
        let ran = unknown.verdicts(of_runs)?;
        for (index, verdict) in missing.into_iter().zip(ran) {
            if let Some(memo) = self.memo {
                memo.lock().expect("no host panics holding the memo").insert(keys[index].clone(), verdict.clone());
            }
            verdicts[index] = Some(verdict);
        }
        Ok(verdicts.into_iter().map(|v| v.expect("every request has its verdict")).collect())
    }
}
