//! The one sans-IO vocabulary of every task that needs the outside world: a policy's decision, an
//! LLM call, a batch of Python programs, or a slice of its own work that the host schedules so that
//! a page stays responsive. A task says which [`Need`] it has next; a host (the page, the CLI, a
//! test with recorded outcomes) performs it and resumes the task with the outcome. The task never
//! waits, never reads a clock (the host passes the time) and never draws from an ambient RNG, so
//! with recorded outcomes it is deterministic.
//!
//! Live episodes, validations, program searches (whose bank, for an imported task, is their first
//! need), StepCoder's completion runs and ablations, and the planning evaluation of a world model
//! implement [`Effectful`]; each side has one host loop that drives them all.

pub mod llm_source;

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::llm::{ChatMessage, FailureKind, LlmFailure, ProviderSettings, Usage};
use crate::python::{Author, DEFAULT_TIME_LIMIT_MS, ProgramRequest, ProgramVerdict};
use crate::rng::RunRng;

/// How a host's reason begins when Python could not run a task's programs: the task ended there, and
/// what it reports is not a result (a CLI command exits non-zero; `rlcg sweep merge` refuses it).
pub const PYTHON_COULD_NOT_RUN: &str = "Python could not run the programs";

/// What a task needs next.
#[derive(Debug, PartialEq)]
pub enum Need<'a> {
    /// The trained policy's action in this state.
    Decide(LiveState),
    /// An LLM call.
    Chat(&'a ChatCall),
    /// Programs to run, each against its tests or in the harness mode its request names; the
    /// verdicts go back in the same order.
    Python(&'a PythonBatch),
    /// Work the task does itself (a planning episode played in Rust): the host lets its page draw
    /// first, then calls [`Effectful::compute`].
    Compute,
    /// Nothing more: the task is over.
    Done,
}

/// Programs a task needs run, the time each may take, and who wrote them.
#[derive(Clone, Debug, PartialEq)]
pub struct PythonBatch {
    pub requests: Vec<ProgramRequest>,
    /// The most one program may take, in milliseconds.
    pub limit_ms: u32,
    /// Whether the programs may share an interpreter (the playground's own) or each needs a fresh
    /// one (a person's or an LLM's).
    pub author: Author,
}

impl PythonBatch {
    /// One program of a person or an LLM, with the default time limit.
    pub fn untrusted(request: ProgramRequest) -> Self {
        Self::untrusted_programs(vec![request])
    }

    /// Programs of an LLM, each for a fresh interpreter, with the default time limit.
    pub fn untrusted_programs(requests: Vec<ProgramRequest>) -> Self {
        Self { requests, limit_ms: DEFAULT_TIME_LIMIT_MS, author: Author::Untrusted }
    }

    pub fn with_limit(self, limit_ms: u32) -> Self {
        Self { limit_ms, ..self }
    }

    /// What a host sends to its interpreters for this batch, each with its time limit: a person's
    /// or an LLM's programs one by one, each to a fresh candidate interpreter; the playground's own
    /// in `batch` requests of at most [`CHUNK`] programs that share one, in `parallel` chunks or
    /// more so that a host with several interpreters keeps them all busy. Give each run's verdict
    /// to [`PythonBatch::verdicts`].
    pub fn runs(&self, parallel: usize) -> Vec<PythonRun> {
        if self.author == Author::Untrusted || self.requests.len() <= 1 {
            return self.requests.iter().map(|r| PythonRun { request: r.clone(), limit_ms: self.limit_ms }).collect();
        }
        let size = self.requests.len().div_ceil(parallel.max(1)).min(CHUNK);
        self.requests
            .chunks(size)
            .map(|chunk| PythonRun {
                limit_ms: CHUNK_BASE_MS + CHUNK_MS_PER_PROGRAM * chunk.len() as u32,
                request: ProgramRequest::batch(chunk.to_vec()),
            })
            .collect()
    }

    /// The batch's verdicts, in order, from the verdicts of its [`PythonBatch::runs`], or why there
    /// are none (a chunk that timed out or lost its interpreter has no verdicts to give).
    pub fn verdicts(&self, of_runs: Vec<ProgramVerdict>) -> Result<Vec<ProgramVerdict>, String> {
        if self.author == Author::Untrusted || self.requests.len() <= 1 {
            return Ok(of_runs);
        }
        let mut verdicts = Vec::with_capacity(self.requests.len());
        for chunk in of_runs {
            match chunk.batch {
                Some(batch) => verdicts.extend(batch),
                None => return Err(chunk.error.unwrap_or_else(|| "Python returned no verdicts".into())),
            }
        }
        if verdicts.len() != self.requests.len() {
            return Err(format!("Python returned {} verdicts for {} programs", verdicts.len(), self.requests.len()));
        }
        Ok(verdicts)
    }
}

/// The most programs of the playground's own that one `batch` request holds.
const CHUNK: usize = 400;
/// A chunk's time limit: this, plus [`CHUNK_MS_PER_PROGRAM`] per program (the line banks' programs
/// take well under that each).
const CHUNK_BASE_MS: u32 = 2_000;
const CHUNK_MS_PER_PROGRAM: u32 = 50;

/// One request a host sends to an interpreter, and the most it may take.
#[derive(Clone, Debug, PartialEq)]
pub struct PythonRun {
    pub request: ProgramRequest,
    pub limit_ms: u32,
}

/// The one verdict that a batch of one program gets back, or why there is none.
pub fn only_verdict(verdicts: Vec<ProgramVerdict>) -> Result<ProgramVerdict, String> {
    let count = verdicts.len();
    let mut verdicts = verdicts.into_iter();
    match (verdicts.next(), verdicts.next()) {
        (Some(verdict), None) => Ok(verdict),
        _ => Err(format!("the host returned {count} verdicts for one program")),
    }
}

/// A state as a trained policy reads it: the index, the mask, the texts a neural policy embeds and
/// its environment's own features. It travels to the worker that holds the policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveState {
    pub state: usize,
    pub mask: u8,
    pub texts: Vec<String>,
    pub env_features: Vec<f32>,
}

/// An LLM call a task needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatCall {
    /// The prompt's id in the [`crate::prompts::PromptSet`], e.g. `orchestrator.coder`.
    pub prompt_id: String,
    /// Who makes the call (the blackboard's sender), e.g. `coder`.
    pub agent: String,
    pub messages: Vec<ChatMessage>,
}

/// A chat call's result as the host got it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ChatOutcome {
    Reply {
        text: String,
        usage: Usage,
    },
    /// The call failed after its retries; [`FailureKind::is_fatal`] says whether the task can go on.
    Failed(LlmFailure),
}

/// A task that is driven by a host, one [`Need`] at a time. A task resumed with an outcome of a
/// need it never states (a host's bug) ends, saying so: the defaults below.
pub trait Effectful {
    fn need(&self) -> Need<'_>;
    /// Resumes after [`Need::Decide`] with the policy's action.
    fn decided(&mut self, _action: usize, now_ms: f64) {
        self.end("this task takes no policy decisions", now_ms);
    }
    /// Resumes after [`Need::Chat`].
    fn chat_done(&mut self, _outcome: ChatOutcome, now_ms: f64) {
        self.end("this task makes no LLM calls", now_ms);
    }
    /// Resumes after [`Need::Python`] with the verdicts, in the batch's order.
    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64);
    /// Does the work that [`Need::Compute`] announced.
    fn compute(&mut self, now_ms: f64) {
        self.end("this task has no work of its own", now_ms);
    }
    /// Ends the task now: the user cancelled, or the host cannot perform a need (`reason` says why).
    fn end(&mut self, reason: &str, now_ms: f64);
    /// What the offline LLM answers to the pending chat call: the task knows its recorded programs
    /// and the odds to write them with; `rng` is the offline LLM's own.
    fn offline_reply(&self, _rng: &mut RunRng) -> String {
        "This task makes no LLM calls.".into()
    }
}

/// Which LLM answers a task's calls; each host performs it in its one loop. No `Debug`: it holds the
/// user's API key.
pub enum Llm {
    /// An OpenAI-compatible endpoint, which the host calls; the key goes to its chat client and
    /// nowhere else.
    Remote { settings: ProviderSettings, key: String },
    /// A model the page runs itself ([`llm_source::LlmSource::InTab`]); the CLI refuses it.
    InTab { settings: ProviderSettings },
    // Boxed: its RNG state is several times the size of the endpoint's settings.
    /// The simulated LLM.
    Offline(Box<OfflineLlm>),
    /// No LLM, for tasks that make no calls (an ablation, a planning evaluation): a call fails.
    Absent,
}

impl Llm {
    /// The simulated LLM, drawing from `seed`.
    pub fn offline(seed: u64) -> Self {
        Llm::Offline(Box::new(OfflineLlm::new(seed)))
    }

    /// The settings of an endpoint or of the model in the tab.
    pub fn settings(&self) -> Option<&ProviderSettings> {
        match self {
            Llm::Remote { settings, .. } | Llm::InTab { settings } => Some(settings),
            Llm::Offline(_) | Llm::Absent => None,
        }
    }

    /// Whether the page runs this model itself, so that it knows the device the model wrote on.
    pub fn runs_in_tab(&self) -> bool {
        matches!(self, Llm::InTab { .. })
    }

    pub fn settings_mut(&mut self) -> Option<&mut ProviderSettings> {
        match self {
            Llm::Remote { settings, .. } | Llm::InTab { settings } => Some(settings),
            Llm::Offline(_) | Llm::Absent => None,
        }
    }

    /// The answer to `task`'s pending call when no model is called: the simulated LLM's reply, or a
    /// failure without an LLM; `None` for an endpoint or the model in the tab, which the host calls.
    pub fn local_reply(&mut self, task: &impl Effectful) -> Option<ChatOutcome> {
        match self {
            Llm::Remote { .. } | Llm::InTab { .. } => None,
            Llm::Offline(offline) => Some(offline.reply(task)),
            Llm::Absent => Some(ChatOutcome::Failed(LlmFailure::new(
                FailureKind::BadRequest,
                "this task was started without an LLM",
            ))),
        }
    }
}

/// The LLM of a host without an endpoint: each reply is the task's own [`Effectful::offline_reply`],
/// with its tokens estimated as a real model would be billed.
#[derive(Clone, Debug)]
pub struct OfflineLlm {
    rng: RunRng,
}

impl OfflineLlm {
    pub fn new(seed: u64) -> Self {
        Self { rng: RunRng::seed_from_u64(seed) }
    }

    /// The reply to the call `task` waits for.
    pub fn reply(&mut self, task: &impl Effectful) -> ChatOutcome {
        let Need::Chat(call) = task.need() else {
            return ChatOutcome::Failed(LlmFailure::new(FailureKind::BadRequest, "no chat call is pending"));
        };
        let text = task.offline_reply(&mut self.rng);
        let usage = Usage::estimate(&call.messages, &text);
        ChatOutcome::Reply { text, usage }
    }
}

/// Seed 003 §2.2's message types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    Task,
    Plan,
    Code,
    TestResult,
    Error,
    Feedback,
}

/// One message of the blackboard (seed 003 §2.2: sender, receiver, type, content, time).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlackboardMessage {
    pub sender: String,
    pub receiver: Option<String>,
    pub kind: MessageKind,
    pub content: String,
    /// Milliseconds since the task started (the host's clock).
    pub time_ms: f64,
}

/// Everything the agents of a task said to each other, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Blackboard(Vec<BlackboardMessage>);

impl Blackboard {
    pub fn post(&mut self, sender: &str, receiver: Option<&str>, kind: MessageKind, content: String, time_ms: f64) {
        let receiver = receiver.map(str::to_owned);
        self.0.push(BlackboardMessage { sender: sender.into(), receiver, kind, content, time_ms });
    }

    pub fn messages(&self) -> &[BlackboardMessage] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::Outcome;

    #[test]
    fn the_blackboard_keeps_messages_in_order_with_their_receivers() {
        let mut board = Blackboard::default();
        board.post("user", Some("orchestrator"), MessageKind::Task, "solve it".into(), 0.0);
        board.post("coder", None, MessageKind::Error, "no code".into(), 12.5);
        let messages = board.messages();
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].receiver.as_deref(), Some("orchestrator"));
        assert_eq!((messages[1].receiver.as_deref(), messages[1].time_ms), (None, 12.5));
    }

    fn programs(count: usize, author: Author) -> PythonBatch {
        let requests = (0..count).map(|i| ProgramRequest::new(format!("x = {i}"), Vec::new())).collect();
        PythonBatch { requests, limit_ms: 300, author }
    }

    #[test]
    fn untrusted_programs_run_one_by_one_and_the_playgrounds_in_chunks_of_at_most_400() {
        let untrusted = programs(5, Author::Untrusted);
        let runs = untrusted.runs(2);
        assert_eq!(
            runs.iter().map(|r| (r.request.batch.is_none(), r.limit_ms)).collect::<Vec<_>>(),
            vec![(true, 300); 5]
        );

        // 1000 programs on 2 interpreters: 400 + 400 + 200, each on 2 s + 50 ms a program.
        let sizes = |runs: Vec<PythonRun>| {
            runs.iter().map(|r| (r.request.batch.as_ref().unwrap().len(), r.limit_ms)).collect::<Vec<_>>()
        };
        assert_eq!(
            sizes(programs(1000, Author::Playground).runs(2)),
            vec![(400, 22_000), (400, 22_000), (200, 12_000)]
        );
        // 90 programs: one chunk for one interpreter, two halves for two, three thirds for three.
        assert_eq!(sizes(programs(90, Author::Playground).runs(1)), vec![(90, 6_500)]);
        assert_eq!(sizes(programs(90, Author::Playground).runs(2)), vec![(45, 4_250); 2]);
        assert_eq!(sizes(programs(90, Author::Playground).runs(3)), vec![(30, 3_500); 3]);
        // One program of the playground's is a request of its own.
        assert!(programs(1, Author::Playground).runs(2)[0].request.batch.is_none());
    }

    #[test]
    fn chunk_verdicts_unpack_in_order_and_a_chunk_without_verdicts_is_an_error() {
        let batch = programs(3, Author::Playground);
        let runs = batch.runs(2);
        let verdict = |request: &ProgramRequest, error: &str| {
            ProgramVerdict::from_host(request, Outcome::Pass, error.into(), 1.0)
        };
        let answered = |run: &PythonRun| {
            let inner = run.request.batch.as_ref().unwrap().iter().map(|r| verdict(r, &r.code)).collect();
            ProgramVerdict { batch: Some(inner), ..verdict(&run.request, "") }
        };
        let verdicts = batch.verdicts(runs.iter().map(answered).collect()).unwrap();
        assert_eq!(verdicts.iter().map(|v| v.error.clone().unwrap()).collect::<Vec<_>>(), ["x = 0", "x = 1", "x = 2"]);

        let timed_out = ProgramVerdict::timeout(&runs[1].request, runs[1].limit_ms);
        let why = timed_out.error.clone().unwrap();
        assert_eq!(batch.verdicts(vec![answered(&runs[0]), timed_out]).unwrap_err(), why);
        assert_eq!(batch.verdicts(vec![answered(&runs[0])]).unwrap_err(), "Python returned 2 verdicts for 3 programs");
    }

    /// A task whose one need is a chat call.
    struct Asking(ChatCall);

    impl Effectful for Asking {
        fn need(&self) -> Need<'_> {
            Need::Chat(&self.0)
        }
        fn decided(&mut self, _: usize, _: f64) {}
        fn chat_done(&mut self, _: ChatOutcome, _: f64) {}
        fn python_done(&mut self, _: Vec<ProgramVerdict>, _: f64) {}
        fn end(&mut self, _: &str, _: f64) {}
        fn offline_reply(&self, rng: &mut RunRng) -> String {
            format!("draw {}", rand::Rng::random_range(rng, 0..1000))
        }
    }

    #[test]
    fn the_simulated_llm_answers_from_its_seed_no_llm_fails_and_an_endpoint_is_the_hosts() {
        let task = Asking(ChatCall { prompt_id: "p".into(), agent: "coder".into(), messages: Vec::new() });
        let reply = |llm: &mut Llm| match llm.local_reply(&task) {
            Some(ChatOutcome::Reply { text, .. }) => Ok(text),
            Some(ChatOutcome::Failed(failure)) => Err(failure.message),
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(reply(&mut Llm::offline(4)), reply(&mut Llm::offline(4)));
        assert_eq!(reply(&mut Llm::Absent).unwrap_err(), "this task was started without an LLM");
        let mut endpoint = Llm::Remote { settings: ProviderSettings::default(), key: "k".into() };
        assert!(endpoint.local_reply(&task).is_none());
    }
}
