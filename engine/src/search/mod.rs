//! Searches over programs that an LLM writes (seed 004): GIF-MCTS and its baselines, WorldCoder
//! and zero-shot sampling. A method decides what to ask next ([`Method::next`]: generate, improve
//! or fix, on which program) and learns from what came of it ([`Method::absorb`]); [`Search`] is
//! the machinery they share: it renders the prompt, asks for the LLM call, takes the program out of
//! the reply, has it scored (each program text once), counts the budget in LLM calls, keeps the
//! best program, and stops at a perfect score. It is sans-IO like live mode: it says what it
//! [`Need`]s and is resumed with the outcome, so with recorded outcomes it is deterministic.
//!
//! How a program is scored is a [`Scorer`]: the fraction of a task's tests it passes
//! ([`TestsScorer`], APPS's rule), or a code world model's accuracy on recorded transitions
//! ([`world_model::WorldModelScorer`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::effects::{ChatCall, ChatOutcome, Effectful, Need, PythonBatch, only_verdict};
use crate::gym::GymId;
use crate::llm::{ChatMessage, Usage, extract_code};
use crate::prompts::{PromptSet, id};
use crate::python::{Outcome, PredictionPart, ProgramRequest, ProgramVerdict, TaskCode, TestCase};
use crate::rng::{RunRng, search_rng};
use crate::task_import::ImportedTask;
use bank::{BankTask, MUTANTS_LIMIT_MS};
use simulated_llm::{SimulatedLlm, SimulatedLlmParams};

pub mod bank;
pub mod gif_mcts;
pub mod hand_edit;
pub mod record;
pub mod simulated_llm;
pub mod spec;
#[cfg(test)]
pub(crate) mod tests;
pub mod value_model;
pub mod world_coder;
pub mod world_model;
pub mod world_model_tasks;
pub mod zero_shot;

/// What one LLM call does to a program (seed 004 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Continue the program from its first lines.
    Generate,
    /// Rewrite it from a failing test: its input, expected and actual output.
    Improve,
    /// Rewrite it from the error it raised.
    Fix,
}

impl ActionKind {
    pub const ALL: [ActionKind; 3] = [ActionKind::Generate, ActionKind::Improve, ActionKind::Fix];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        ["generate", "improve", "fix"][self.index()]
    }

    fn prompt_id(self) -> &'static str {
        [id::GIF_MCTS_GENERATE, id::GIF_MCTS_IMPROVE, id::GIF_MCTS_FIX][self.index()]
    }
}

/// A program-synthesis task: what to write, and the tests that score it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchTask {
    pub id: String,
    pub description: String,
    pub tests: Vec<TestCase>,
    /// For a code world model: the environment it models, whose recorded transitions score it
    /// (it has no tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_model: Option<GymId>,
    /// What the tests' names mean, for an imported HumanEval task (see [`TaskCode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_code: Option<TaskCode>,
}

impl From<&ImportedTask> for SearchTask {
    /// An imported task as a search task: its problem statement, with the starter code when the
    /// statement does not hold it already (APPS), and its tests.
    fn from(task: &ImportedTask) -> Self {
        let starter = task.starter_code.trim();
        let description = if starter.is_empty() || task.prompt.contains(starter) {
            task.prompt.clone()
        } else {
            format!("{}\n\nStart from:\n{starter}", task.prompt)
        };
        Self {
            id: task.id.clone(),
            description,
            tests: task.tests.clone(),
            world_model: None,
            task_code: task.task_code(),
        }
    }
}

/// A failing test as the improve prompt shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailingExample {
    pub input: String,
    pub expected: String,
    pub actual: String,
    /// Which of the task's tests it is (by index), for a task with tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<usize>,
    /// What the model got wrong in it, for a world model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrong: Vec<PredictionPart>,
}

/// What a program is worth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// In [0, 1]: the fraction of tests passed (0 for a bug).
    pub score: f64,
    /// The program cannot be scored as it is and needs fixing (APPS: it does not compile).
    pub bug: bool,
    /// The error a fix prompt shows, with its line.
    pub error: Option<String>,
    /// The failing test an improve prompt shows.
    pub example: Option<FailingExample>,
    /// It passed only because verdicts were naive: the real verdict did not pass it (a reward hack).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hacked: bool,
}

impl Score {
    /// A reply that gave no program to score: a bug, so the next action fixes it.
    fn no_program(why: String) -> Self {
        Self { score: 0.0, bug: true, error: Some(why), example: None, hacked: false }
    }
}

/// How programs are run and scored.
pub trait Scorer {
    fn request(&self, program: &str) -> ProgramRequest;
    /// The program's evaluation from its verdict; `rng` picks the failing example where the rule
    /// draws one.
    fn evaluate(&self, verdict: &ProgramVerdict, rng: &mut RunRng) -> Score;
    /// Why a search ends at a score of 1.
    fn perfect(&self) -> &'static str {
        "a program passes every test"
    }
}

/// APPS's scoring (seed 004 §5.2; the official code's `compute_reward`): the fraction of all tests
/// passed; a bug is a compile error, a runtime error only a failed test; the improve example is one
/// failing test drawn at random.
#[derive(Clone, Debug, PartialEq)]
pub struct TestsScorer {
    pub tests: Vec<TestCase>,
    /// What the tests' names mean (see [`TaskCode`]).
    pub task_code: Option<TaskCode>,
    /// Naive verdicts (see `ProgramRequest::naive`): the search's teaching switch.
    pub naive: bool,
    /// The official code's rule: the example comes from the first half of the tests only (the
    /// rest stay hidden from the LLM), and there is none when only later tests fail. Off: any
    /// failing test.
    pub example_from_first_half: bool,
}

impl TestsScorer {
    pub fn new(tests: Vec<TestCase>, task_code: Option<TaskCode>) -> Self {
        Self { tests, task_code, naive: false, example_from_first_half: true }
    }
}

impl Scorer for TestsScorer {
    fn request(&self, program: &str) -> ProgramRequest {
        let request = ProgramRequest::new(program, self.tests.clone()).verdict_only().with_task(self.task_code.clone());
        ProgramRequest { naive: self.naive, ..request }
    }

    fn evaluate(&self, verdict: &ProgramVerdict, rng: &mut RunRng) -> Score {
        if verdict.outcome == Outcome::Tampered {
            // Caught reaching for its verdict: worth nothing, whatever it passed.
            return Score { score: 0.0, bug: false, error: verdict.error.clone(), example: None, hacked: false };
        }
        let total = verdict.total.max(1);
        let bug = verdict.outcome == Outcome::CompileError;
        let score = if bug { 0.0 } else { f64::from(verdict.number_passed) / f64::from(total) };
        let shown = if self.example_from_first_half { verdict.tests.len() / 2 } else { verdict.tests.len() };
        let failing: Vec<_> = verdict.tests[..shown].iter().enumerate().filter(|(_, t)| !t.passed).collect();
        let example = (!bug && score < 1.0 && !failing.is_empty()).then(|| {
            let (index, test) = failing[rng.random_range(0..failing.len())];
            let error = test.error.clone().unwrap_or_else(|| "the test failed".into());
            FailingExample {
                input: test.input.clone().unwrap_or_else(|| test.test.clone()),
                expected: test.expected.clone().unwrap_or_else(|| "the assertion holds".into()),
                actual: test.actual.clone().unwrap_or(error),
                test: Some(index),
                wrong: Vec::new(),
            }
        });
        Score { score, bug, error: verdict.error.clone(), example, hacked: verdict.hacked() }
    }
}

/// An LLM call a method asks for: `kind` on `code` (the prefix to continue for generate, the whole
/// program for improve and fix), with that program's evaluation for the prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expansion {
    pub kind: ActionKind,
    pub code: String,
    pub parent: Option<Score>,
}

/// What came of an expansion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expanded {
    pub kind: ActionKind,
    /// The program the reply held (empty when it held none), as autopep8 made it when the search
    /// runs it (the program that was scored).
    pub program: String,
    /// The reply's program before autopep8, when autopep8 changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unformatted: Option<String>,
    pub evaluation: Score,
    /// For generate: whether the reply kept the prefix it was asked to continue.
    pub kept_prefix: Option<bool>,
    /// LLM calls made so far, this one included.
    pub llm_calls: u32,
}

/// A search method: what to ask next, and what to learn from the answer.
pub trait Method {
    /// The next expansion; `None` when the method has nothing left to try.
    fn next(&mut self, rng: &mut RunRng) -> Option<Expansion>;
    /// The outcome of the expansion `next` asked for.
    fn absorb(&mut self, expanded: &Expanded, rng: &mut RunRng);
    /// The prompt of an expansion of `kind`: the action's own, unless the method has one.
    fn prompt_id(&self, kind: ActionKind) -> &'static str {
        kind.prompt_id()
    }
    /// The start of every reply, sent as the assistant's turn (zero-shot CoT's "Let's think step
    /// by step.").
    fn reply_start(&self) -> Option<&'static str> {
        None
    }
}

/// The program out of a reply: improve and fix replies hold a critique before `## Correct code`,
/// which may quote code, so the program is looked for after that heading when there is one.
pub fn program_of(kind: ActionKind, reply: &str) -> Option<String> {
    const HEADING: &str = "## Correct code";
    let tail = match (kind, reply.find(HEADING)) {
        (ActionKind::Improve | ActionKind::Fix, Some(at)) => &reply[at + HEADING.len()..],
        _ => reply,
    };
    extract_code(tail)
}

/// Whether a generate reply continued the prefix it was given: chat APIs cannot be made to, and
/// the official code does not check (seed 004 spec §1.3); a search records it per node.
pub fn keeps_prefix(prefix: &str, program: &str) -> bool {
    program.trim_start().starts_with(prefix.trim())
}

/// With `prefill`, a generate call with lines to continue gets them as the start of the reply.
fn prefill_call(prefill: bool, call: &mut ChatCall, expansion: &Expansion) {
    if prefill && expansion.kind == ActionKind::Generate && !expansion.code.trim().is_empty() {
        // Whole lines: the continuation starts on a line of its own.
        let lines = expansion.code.trim_end_matches('\n');
        call.messages.push(ChatMessage::new("assistant", format!("```python\n{lines}\n")));
    }
}

/// The best program so far after a number of LLM calls (the score-against-calls plot).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub llm_calls: u32,
    pub best_score: f64,
}

/// An LLM call as it went: the prompt's user message and the raw reply (or why there was none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub prompt: String,
    pub reply: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Pending {
    /// The simulated LLM's bank for an imported task: the harness mutates its reference (the
    /// search's first need, offline).
    Bank(PythonBatch, Box<ImportedTask>, SimulatedLlmParams),
    Chat(ChatCall, Expansion),
    Test(PythonBatch, Expansion, Option<bool>, CallRecord),
    Done,
}

/// A method run on one task with a budget of LLM calls.
#[derive(Clone, Debug)]
pub struct Search<M, S> {
    method: M,
    scorer: S,
    task: SearchTask,
    prompts: PromptSet,
    budget: u32,
    rng: RunRng,
    pending: Pending,
    /// Verdicts by program text: a program met again is not run again.
    verdicts: HashMap<String, ProgramVerdict>,
    llm_calls: u32,
    usage: Usage,
    expansions: Vec<Expanded>,
    /// The call behind each expansion.
    calls: Vec<CallRecord>,
    best: Option<(String, f64)>,
    progress: Vec<Progress>,
    ended: String,
    /// What answers offline: the task's program bank and the simulated LLM's odds.
    simulated: Option<SimulatedLlm>,
    /// Generate sends its prefix as the start of the assistant's reply (an endpoint that continues
    /// it: `ProviderSettings::assistant_prefill`).
    prefill: bool,
    /// Each program is run through `autopep8.fix_code` before it is scored (`ProgramRequest::autopep8`).
    autopep8: bool,
}

impl<M: Method, S: Scorer> Search<M, S> {
    pub fn new(
        method: M,
        scorer: S,
        task: SearchTask,
        prompts: PromptSet,
        budget: u32,
        seed: u64,
    ) -> Result<Self, String> {
        let mut search = Self::assemble(method, scorer, task, prompts, budget, seed)?;
        search.ask();
        Ok(search)
    }

    /// A search on an imported task that the simulated LLM answers, from a bank that the harness
    /// makes by mutating `task`'s reference: that is the search's first need, and its first call
    /// follows.
    pub fn after_bank(
        method: M,
        scorer: S,
        task: &ImportedTask,
        prompts: PromptSet,
        budget: u32,
        seed: u64,
        simulated: SimulatedLlmParams,
    ) -> Result<Self, String> {
        let request = BankTask::mutants_request(task)?;
        let mut search = Self::assemble(method, scorer, SearchTask::from(task), prompts, budget, seed)?;
        // The reference is the task file's, not the playground's: a fresh interpreter, as for an LLM's.
        let batch = PythonBatch::untrusted(request).with_limit(MUTANTS_LIMIT_MS);
        search.pending = Pending::Bank(batch, Box::new(task.clone()), simulated);
        Ok(search)
    }

    fn assemble(
        method: M,
        scorer: S,
        task: SearchTask,
        prompts: PromptSet,
        budget: u32,
        seed: u64,
    ) -> Result<Self, String> {
        prompts.check()?;
        if budget == 0 {
            return Err("the budget must allow at least one LLM call".into());
        }
        Ok(Self {
            method,
            scorer,
            task,
            prompts,
            budget,
            rng: search_rng(seed),
            pending: Pending::Done,
            verdicts: HashMap::new(),
            llm_calls: 0,
            usage: Usage::default(),
            expansions: Vec::new(),
            calls: Vec::new(),
            best: None,
            progress: Vec::new(),
            ended: String::new(),
            simulated: None,
            prefill: false,
            autopep8: false,
        })
    }

    /// With `autopep8`, every program is run through `autopep8.fix_code` and scored as it comes
    /// out, which is then the node's program, as in seed 004's official code.
    pub fn with_autopep8(mut self, autopep8: bool) -> Self {
        self.autopep8 = autopep8;
        self
    }

    /// Offline, `simulated` answers the calls.
    pub fn with_simulated_llm(mut self, simulated: SimulatedLlm) -> Self {
        self.simulated = Some(simulated);
        self
    }

    /// With `prefill`, generate's prefix is sent as the start of the reply, which the endpoint
    /// continues; the call already asked for is amended.
    pub fn with_prefill(mut self, prefill: bool) -> Self {
        self.prefill = prefill;
        if let Pending::Chat(call, expansion) = &mut self.pending {
            prefill_call(prefill, call, expansion);
        }
        self
    }

    pub fn method(&self) -> &M {
        &self.method
    }

    pub fn task(&self) -> &SearchTask {
        &self.task
    }

    /// Every expansion in order.
    pub fn expansions(&self) -> &[Expanded] {
        &self.expansions
    }

    /// The call behind each expansion, in the same order.
    pub fn calls(&self) -> &[CallRecord] {
        &self.calls
    }

    /// The best program and its score.
    pub fn best(&self) -> Option<(&str, f64)> {
        self.best.as_ref().map(|(program, score)| (program.as_str(), *score))
    }

    pub fn progress(&self) -> &[Progress] {
        &self.progress
    }

    pub fn llm_calls(&self) -> u32 {
        self.llm_calls
    }

    pub fn usage(&self) -> Usage {
        self.usage
    }

    pub fn is_done(&self) -> bool {
        self.pending == Pending::Done
    }

    /// A short digest of every expansion (its action, program, score and bug flag): two searches
    /// with the same fingerprint went the same way.
    pub fn fingerprint(&self) -> String {
        let mut digest = fnv::FnvHasher::default();
        for e in &self.expansions {
            // `u8`, not `usize`: a digest must not depend on the platform's word size (wasm32 or native).
            (e.kind.index() as u8, &e.program, e.evaluation.score.to_bits(), e.evaluation.bug).hash(&mut digest);
        }
        format!("{:016x}", digest.finish())
    }

    /// Why the search ended (empty while it runs).
    pub fn ended(&self) -> &str {
        &self.ended
    }

    fn finish(&mut self, why: impl Into<String>) {
        self.pending = Pending::Done;
        self.ended = why.into();
    }

    /// The method's next call, or the end.
    fn ask(&mut self) {
        if self.llm_calls >= self.budget {
            return self.finish(format!("the budget of {} LLM calls is spent", self.budget));
        }
        let Some(expansion) = self.method.next(&mut self.rng) else {
            return self.finish("the method has nothing left to try");
        };
        let example = expansion.parent.as_ref().and_then(|e| e.example.clone());
        let none = || "None".to_owned();
        let error = expansion.parent.as_ref().and_then(|e| e.error.clone()).unwrap_or_else(none);
        let (input, expected, actual) =
            example.map_or_else(|| (none(), none(), none()), |e| (e.input, e.expected, e.actual));
        let values = [
            ("task", self.task.description.as_str()),
            ("code", &expansion.code),
            ("input", &input),
            ("expected", &expected),
            ("actual", &actual),
            ("error", &error),
        ];
        let prompt_id = self.method.prompt_id(expansion.kind);
        match self.prompts.render(prompt_id, &values) {
            Ok(mut messages) => {
                if let Some(start) = self.method.reply_start() {
                    messages.push(ChatMessage::new("assistant", start));
                }
                let mut call = ChatCall { prompt_id: prompt_id.into(), agent: expansion.kind.name().into(), messages };
                prefill_call(self.prefill, &mut call, &expansion);
                self.pending = Pending::Chat(call, expansion);
            }
            // `new` checked the prompts, so this is a broken invariant; end the search with it.
            Err(message) => self.finish(message),
        }
    }

    /// The expansion's outcome: `program` as it was scored (autopep8's, when `formatted`).
    fn settle(
        &mut self,
        expansion: Expansion,
        program: String,
        formatted: Option<String>,
        evaluation: Score,
        kept_prefix: Option<bool>,
        record: CallRecord,
    ) {
        self.calls.push(record);
        let score = evaluation.score;
        let (program, unformatted) = match formatted {
            Some(formatted) => (formatted, Some(program)),
            None => (program, None),
        };
        let expanded =
            Expanded { kind: expansion.kind, program, unformatted, evaluation, kept_prefix, llm_calls: self.llm_calls };
        self.method.absorb(&expanded, &mut self.rng);
        if self.best.as_ref().is_none_or(|(_, best)| score > *best) {
            self.best = Some((expanded.program.clone(), score));
        }
        let best_score = self.best.as_ref().map_or(0.0, |(_, s)| *s);
        self.progress.push(Progress { llm_calls: self.llm_calls, best_score });
        self.expansions.push(expanded);
        if best_score >= 1.0 {
            return self.finish(self.scorer.perfect());
        }
        self.ask();
    }
}

impl<M: Method, S: Scorer> Effectful for Search<M, S> {
    fn need(&self) -> Need<'_> {
        match &self.pending {
            Pending::Bank(batch, ..) | Pending::Test(batch, ..) => Need::Python(batch),
            Pending::Chat(call, _) => Need::Chat(call),
            Pending::Done => Need::Done,
        }
    }

    fn chat_done(&mut self, outcome: ChatOutcome, _now_ms: f64) {
        let Pending::Chat(call, expansion) = std::mem::replace(&mut self.pending, Pending::Done) else {
            return;
        };
        self.llm_calls += 1;
        let prompt = call.messages.iter().rfind(|m| m.role == "user").map(|m| m.content.clone()).unwrap_or_default();
        let prefilled = call.messages.last().filter(|m| m.role == "assistant").map(|m| m.content.as_str());
        let (program, reply) = match outcome {
            ChatOutcome::Reply { text, usage } => {
                self.usage.add(usage);
                // A continuation follows the prefill; a reply that opens a code block of its own
                // (a fence with a language) started over, and is read alone (`kept_prefix` then
                // says whether it kept the lines).
                let opens_block = text
                    .match_indices("```")
                    .any(|(at, _)| text[at + 3..].starts_with(|c: char| c.is_ascii_alphabetic()));
                let whole = match prefilled {
                    Some(start) if !opens_block => format!("{start}{text}"),
                    _ => text.clone(),
                };
                let program = program_of(expansion.kind, &whole).ok_or_else(|| {
                    format!("the reply held no Python code: {}", text.chars().take(200).collect::<String>())
                });
                (program, text)
            }
            ChatOutcome::Failed(failure) if failure.kind.is_fatal() => return self.finish(failure.message),
            ChatOutcome::Failed(failure) => {
                let why = format!("the LLM call failed: {}", failure.message);
                (Err(why.clone()), why)
            }
        };
        let record = CallRecord { prompt, reply };
        let program = match program {
            Ok(program) => program,
            Err(why) => return self.settle(expansion, String::new(), None, Score::no_program(why), None, record),
        };
        let kept_prefix = (expansion.kind == ActionKind::Generate).then(|| keeps_prefix(&expansion.code, &program));
        match self.verdicts.get(&program) {
            Some(verdict) => {
                let (evaluation, formatted) = (self.scorer.evaluate(verdict, &mut self.rng), verdict.formatted.clone());
                self.settle(expansion, program, formatted, evaluation, kept_prefix, record);
            }
            None => {
                let request = ProgramRequest { autopep8: self.autopep8, ..self.scorer.request(&program) };
                self.pending = Pending::Test(PythonBatch::untrusted(request), expansion, kept_prefix, record);
            }
        }
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, _now_ms: f64) {
        let verdict = match only_verdict(verdicts) {
            Ok(verdict) => verdict,
            Err(why) => return self.finish(why),
        };
        match std::mem::replace(&mut self.pending, Pending::Done) {
            Pending::Bank(_, task, params) => match BankTask::from_mutants(&task, &verdict) {
                Ok(bank) => {
                    self.simulated = Some(SimulatedLlm { params, bank });
                    self.ask();
                }
                Err(why) => self.finish(why),
            },
            Pending::Test(mut batch, expansion, kept_prefix, record) => {
                let program = batch.requests.remove(0).code;
                let evaluation = self.scorer.evaluate(&verdict, &mut self.rng);
                let formatted = verdict.formatted.clone();
                self.verdicts.insert(program.clone(), verdict);
                self.settle(expansion, program, formatted, evaluation, kept_prefix, record);
            }
            other => self.pending = other,
        }
    }

    /// Ends the search now (cancelled, or the host cannot perform a need); what was built stays.
    fn end(&mut self, reason: &str, _now_ms: f64) {
        if !self.is_done() {
            self.finish(reason);
        }
    }

    fn offline_reply(&self, rng: &mut RunRng) -> String {
        match (&self.pending, &self.simulated) {
            (Pending::Chat(call, expansion), Some(simulated)) => simulated.reply(&call.prompt_id, expansion, rng),
            _ => format!("The simulated LLM has no program bank for task {}.", self.task.id),
        }
    }
}
