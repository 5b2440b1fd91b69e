//! The machinery every search method shares, [`Search`]: it renders the prompt, asks for the LLM
//! call, takes the program out of the reply, has it scored (each program text once), counts the
//! budget in LLM calls, keeps the best program (or the method's answer), and stops at a perfect
//! score (unless the method answers itself). For LATS and Reflexion it also makes the text calls
//! (tests, reflections) and runs programs on the tests a model wrote. Once it ends, the LLM judge
//! reads its answer where the search asks for it (`cheating::llm_judge`, `machine/judging.rs`).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use rand::SeedableRng;

use crate::cheating::give_up;
use crate::cheating::held_out::HeldOutScore;
use crate::cheating::llm_judge::JudgeRecord;
use crate::effects::{ChatCall, ChatOutcome, Effectful, Need, PythonBatch, only_verdict};
use crate::llm::Usage;
use crate::prompts::PromptSet;
use crate::python::{ProgramRequest, ProgramVerdict};
use crate::rng::{RunRng, search_rng};
use crate::search::method::{ActionKind, Answering, Expanded, Expansion, Method, TextAsk, keeps_prefix, program_of};
use crate::search::offline::bank::{BankTask, MUTANTS_LIMIT_MS};
use crate::search::offline::simulated_llm::{SimulatedLlm, SimulatedLlmParams};
use crate::search::scorer::{Score, Scorer, SearchTask};
use crate::search::trace::{BestSoFar, CallRecord, TextRecord};
use crate::search::tree::SearchTreeNode;
use crate::task_import::ImportedTask;

mod asking;
mod judging;

use asking::prefill_call;

#[derive(Clone, Debug, PartialEq)]
enum Pending {
    /// The simulated LLM's bank for an imported task: the harness mutates its reference (the
    /// search's first need, offline).
    Bank(PythonBatch, Box<ImportedTask>, SimulatedLlmParams),
    Chat(ChatCall, Expansion),
    Test(PythonBatch, Expansion, Option<bool>, CallRecord),
    /// The held-out tests' run, on its own once the program's visible verdict is final; its score
    /// so far waits here, and nothing of this run reaches the LLM or the search.
    HeldOut(PythonBatch, Box<ScoredTest>),
    Text(ChatCall, TextAsk),
    /// A run on tests a model wrote, and the key its verdict is kept under.
    Run(PythonBatch, (String, Vec<String>)),
    /// The LLM judge's call on the answer, after the search ended (`cheating::llm_judge`), and the
    /// program as the model wrote it.
    Judge(ChatCall, String),
    Done,
}

/// A program scored on the visible tests, whose held-out tests run next.
#[derive(Clone, Debug, PartialEq)]
struct ScoredTest {
    expansion: Expansion,
    program: String,
    verdict: ProgramVerdict,
    score: Score,
    kept_prefix: Option<bool>,
    record: CallRecord,
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
    /// Each program's verdict on the visible tests and its score on the held-out ones.
    verdicts: HashMap<String, (ProgramVerdict, Option<HeldOutScore>)>,
    /// Verdicts of runs on tests a model wrote, by program and tests.
    runs: HashMap<(String, Vec<String>), ProgramVerdict>,
    /// The text calls, in order.
    texts: Vec<TextRecord>,
    llm_calls: u32,
    usage: Usage,
    expansions: Vec<Expanded>,
    /// The call behind each expansion.
    calls: Vec<CallRecord>,
    best: Option<(String, f64)>,
    progress: Vec<BestSoFar>,
    ended: String,
    /// Why the model gave up, when it did (`cheating::give_up`).
    gave_up: Option<String>,
    /// What answers offline: the task's program bank and the simulated LLM's odds.
    simulated: Option<SimulatedLlm>,
    /// Generate sends its prefix as the start of the assistant's reply (an endpoint that continues
    /// it: `ProviderSettings::assistant_prefill`).
    prefill: bool,
    /// Each program is run through `autopep8.fix_code` before it is scored (`ProgramRequest::autopep8`).
    autopep8: bool,
    /// Once it ends, the LLM judge reads an answer that passed every test it was scored on.
    judge: bool,
    judged: Option<JudgeRecord>,
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
            runs: HashMap::new(),
            texts: Vec::new(),
            llm_calls: 0,
            usage: Usage::default(),
            expansions: Vec::new(),
            calls: Vec::new(),
            best: None,
            progress: Vec::new(),
            ended: String::new(),
            gave_up: None,
            simulated: None,
            prefill: false,
            autopep8: false,
            judge: false,
            judged: None,
        })
    }

    /// With `autopep8`, every program is run through `autopep8.fix_code` and scored as it comes
    /// out, which is then the node's program, as in seed 004's official code.
    pub fn with_autopep8(mut self, autopep8: bool) -> Self {
        self.autopep8 = autopep8;
        self
    }

    /// The task as the search shows and scores it, in place of the one it was made with (an
    /// impossible variant of the imported task whose reference makes the bank, `SearchSpec::start`).
    pub fn with_task(mut self, task: SearchTask) -> Self {
        self.task = task;
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

    /// The text calls in order (LATS's and Reflexion's tests and reflections).
    pub fn texts(&self) -> &[TextRecord] {
        &self.texts
    }

    /// The best program and its score; for a method that answers itself, its answer.
    pub fn best(&self) -> Option<(&str, f64)> {
        self.best.as_ref().map(|(program, score)| (program.as_str(), *score))
    }

    pub fn progress(&self) -> &[BestSoFar] {
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
            (e.kind.index() as u8, &e.program, e.score.score.to_bits(), e.score.bug).hash(&mut digest);
        }
        for text in &self.texts {
            (text.act as u8, &text.call.reply).hash(&mut digest);
        }
        format!("{:016x}", digest.finish())
    }

    /// Why the search ended (empty while it runs).
    pub fn ended(&self) -> &str {
        &self.ended
    }

    /// Why the model gave up instead of writing a program, when the task let it and it did.
    pub fn gave_up(&self) -> Option<&str> {
        self.gave_up.as_deref()
    }

    /// The search ends: the LLM judge reads its answer next, where it is asked to and there is one
    /// to read.
    fn finish(&mut self, why: impl Into<String>) {
        self.halt(why);
        if let Some((call, program)) = self.judge_call() {
            self.pending = Pending::Judge(call, program);
        }
    }

    /// The search ends, and nothing follows (a fatal failure, or the host's end).
    fn halt(&mut self, why: impl Into<String>) {
        self.pending = Pending::Done;
        self.ended = why.into();
    }

    /// A program's score on the task's tests. For a method that answers itself the score is the
    /// record's, not the method's reward, so the failing example it draws comes from a generator of
    /// its own: the search's draws then never depend on the task's tests.
    fn score(&mut self, verdict: &ProgramVerdict) -> Score {
        match self.method.answer() {
            Answering::BestScore => self.scorer.evaluate(verdict, &mut self.rng),
            Answering::Chosen(_) => self.scorer.evaluate(verdict, &mut RunRng::seed_from_u64(0)),
        }
    }

    /// After each LLM call: the best program so far (or the method's answer) and the progress.
    fn note_progress(&mut self) {
        self.progress.push(BestSoFar { llm_calls: self.llm_calls, best_score: 0.0 });
        self.refresh_answer();
    }

    /// The method's answer, after what it learnt (a run on its own tests may change it between
    /// LLM calls: the progress after the last call then holds the new answer's score).
    fn refresh_answer(&mut self) {
        if let Answering::Chosen(chosen) = self.method.answer() {
            self.best = chosen.and_then(|i| self.expansions.get(i)).map(|e| (e.program.clone(), e.score.score));
        }
        let best_score = self.best.as_ref().map_or(0.0, |(_, s)| *s);
        if let Some(last) = self.progress.last_mut() {
            last.best_score = best_score;
        }
    }

    /// The expansion's outcome: `program` as it was scored (autopep8's, when `formatted`).
    fn settle(
        &mut self,
        expansion: Expansion,
        program: String,
        formatted: Option<String>,
        score: Score,
        kept_prefix: Option<bool>,
        record: CallRecord,
    ) {
        self.calls.push(record);
        let value = score.score;
        let (program, unformatted) = match formatted {
            Some(formatted) => (formatted, Some(program)),
            None => (program, None),
        };
        let expanded =
            Expanded { kind: expansion.kind, program, unformatted, score, kept_prefix, llm_calls: self.llm_calls };
        self.method.absorb(&expanded, &mut self.rng);
        let best_scoring = self.method.answer() == Answering::BestScore;
        if best_scoring && self.best.as_ref().is_none_or(|(_, best)| value > *best) {
            self.best = Some((expanded.program.clone(), value));
        }
        self.expansions.push(expanded);
        self.note_progress();
        if best_scoring && self.best.as_ref().is_some_and(|(_, best)| *best >= 1.0) {
            return self.finish(self.scorer.perfect());
        }
        self.ask();
    }

    /// A program's verdicts are in: it is kept for the program's next appearance, and settled.
    fn scored(&mut self, scored: ScoredTest, held_out: Option<HeldOutScore>) {
        let ScoredTest { expansion, program, verdict, score, kept_prefix, record } = scored;
        let formatted = verdict.formatted.clone();
        self.verdicts.insert(program.clone(), (verdict, held_out.clone()));
        self.settle(expansion, program, formatted, Score { held_out, ..score }, kept_prefix, record);
    }

    /// A text call's reply goes to the method as it came; a failed call gives it none.
    fn text_done(&mut self, call: ChatCall, text: TextAsk, outcome: ChatOutcome) {
        self.llm_calls += 1;
        let prompt = call.messages.iter().rfind(|m| m.role == "user").map(|m| m.content.clone()).unwrap_or_default();
        let reply = match outcome {
            ChatOutcome::Reply { text, usage } => {
                self.usage.add(usage);
                Ok(text)
            }
            ChatOutcome::Failed(failure) if failure.kind.is_fatal() => return self.halt(failure.message),
            ChatOutcome::Failed(failure) => Err(format!("the LLM call failed: {}", failure.message)),
        };
        self.method.absorb_text(reply.as_deref().ok(), &mut self.rng);
        let reply = reply.unwrap_or_else(|why| why);
        self.texts.push(TextRecord { act: text.act, call: CallRecord { prompt, reply }, llm_calls: self.llm_calls });
        self.note_progress();
        self.ask();
    }
}

/// What it did, as its record and views read it: its answer, its looks at the task's tests, its tree.
impl<M: Method, S: Scorer> Search<M, S> {
    /// The program the search answers with, by expansion: the method's choice, else its first
    /// program to pass every test (where a perfect score ended it), else its best.
    pub fn answer(&self) -> Option<usize> {
        let expansions = self.expansions();
        match self.method().answer() {
            Answering::Chosen(chosen) => chosen,
            Answering::BestScore => expansions.iter().position(|e| e.score.score >= 1.0).or_else(|| {
                (0..expansions.len())
                    .reduce(|best, i| if expansions[i].score.score > expansions[best].score.score { i } else { best })
            }),
        }
    }

    /// How many times the method looked at the task's own tests ([`Method::hidden_test_looks`]).
    pub fn hidden_checks(&self) -> u32 {
        self.method().hidden_test_looks(self.expansions().len(), self.answer().is_some())
    }

    /// The tree of programs, as the method draws it ([`Method::tree`]).
    pub fn tree(&self) -> Vec<SearchTreeNode> {
        self.method().tree(self.expansions())
    }
}

impl<M: Method, S: Scorer> Effectful for Search<M, S> {
    fn need(&self) -> Need<'_> {
        match &self.pending {
            Pending::Bank(batch, ..)
            | Pending::Test(batch, ..)
            | Pending::HeldOut(batch, _)
            | Pending::Run(batch, _) => Need::Python(batch),
            Pending::Chat(call, _) | Pending::Text(call, _) | Pending::Judge(call, _) => Need::Chat(call),
            Pending::Done => Need::Done,
        }
    }

    fn chat_done(&mut self, outcome: ChatOutcome, _now_ms: f64) {
        let (call, expansion) = match std::mem::replace(&mut self.pending, Pending::Done) {
            Pending::Chat(call, expansion) => (call, expansion),
            Pending::Text(call, text) => return self.text_done(call, text, outcome),
            Pending::Judge(call, _) => return self.judge_done(call, outcome),
            other => return self.pending = other,
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
                self.gave_up = self.task.may_give_up.then(|| give_up::reason(&text)).flatten();
                let program = match &self.gave_up {
                    Some(why) => Err(format!("the LLM gave up: {why}")),
                    None => program_of(expansion.kind, &whole).ok_or_else(|| {
                        format!("the reply held no Python code: {}", text.chars().take(200).collect::<String>())
                    }),
                };
                (program, text)
            }
            ChatOutcome::Failed(failure) if failure.kind.is_fatal() => return self.halt(failure.message),
            ChatOutcome::Failed(failure) => {
                let why = format!("the LLM call failed: {}", failure.message);
                (Err(why.clone()), why)
            }
        };
        let record = CallRecord { prompt, reply };
        let program = match program {
            Ok(program) => program,
            Err(why) => {
                self.settle(expansion, String::new(), None, Score::no_program(why.clone()), None, record);
                if let Some(reason) = self.gave_up.clone() {
                    // Honest, not a bug to fix: the search ends there.
                    self.finish(format!("the LLM gave up, saying the task is impossible: {reason}"));
                }
                return;
            }
        };
        let kept_prefix = (expansion.kind == ActionKind::Generate).then(|| keeps_prefix(&expansion.code, &program));
        match self.verdicts.get(&program).cloned() {
            Some((verdict, held_out)) => {
                let score = Score { held_out, ..self.score(&verdict) };
                self.settle(expansion, program, verdict.formatted.clone(), score, kept_prefix, record);
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
            Err(why) => return self.halt(why),
        };
        match std::mem::replace(&mut self.pending, Pending::Done) {
            Pending::Bank(_, task, params) => match BankTask::from_mutants(&task, &verdict) {
                Ok(bank) => {
                    self.simulated = Some(SimulatedLlm::new(params, bank, &self.task));
                    self.ask();
                }
                Err(why) => self.halt(why),
            },
            Pending::Run(_, key) => {
                self.method.absorb_run(&verdict, &mut self.rng);
                self.runs.insert(key, verdict);
                self.refresh_answer();
                self.ask();
            }
            Pending::Test(mut batch, expansion, kept_prefix, record) => {
                let program = batch.requests.remove(0).code;
                let score = self.score(&verdict);
                let scored = ScoredTest { expansion, program, verdict, score, kept_prefix, record };
                // The program as it was scored (autopep8's) meets the held-out tests.
                let scored_program = scored.verdict.formatted.as_deref().unwrap_or(&scored.program);
                match self.scorer.held_out_request(scored_program) {
                    Some(request) => self.pending = Pending::HeldOut(PythonBatch::untrusted(request), Box::new(scored)),
                    None => self.scored(scored, None),
                }
            }
            Pending::HeldOut(_, scored) => {
                let held_out = self.scorer.held_out_score(&verdict);
                self.scored(*scored, held_out);
            }
            other => self.pending = other,
        }
    }

    /// Ends the search now (cancelled, or the host cannot perform a need); what was built stays.
    fn end(&mut self, reason: &str, _now_ms: f64) {
        if !self.is_done() {
            self.halt(reason);
        }
    }

    fn offline_reply(&self, rng: &mut RunRng) -> String {
        match (&self.pending, &self.simulated) {
            (Pending::Chat(call, expansion), Some(simulated)) => simulated.reply(&call.prompt_id, expansion, rng),
            (Pending::Text(_, text), Some(simulated)) => simulated.text_reply(text, rng),
            (Pending::Judge(_, program), Some(simulated)) => simulated.judge_reply(program, rng),
            _ => format!("The simulated LLM has no program bank for task {}.", self.task.id),
        }
    }
}
