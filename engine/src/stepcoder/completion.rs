//! CCCS against an LLM whose weights never change (the seed 002 sheet §5 (a)). Per task, M
//! completions at the curriculum's current stage, each prompted with the requirement and the
//! canonical lines before the cut (`stepcoder.complete`), run against the task's tests: eq. 3's
//! reward, the FGO mask of the run, and ρ updated as Algorithm 1 does. The model does not learn,
//! so a stage that advances measures how easy the stage is for this model, not what CCCS does to
//! training. The difficulty profile asks the same model at every stage: pass@1 against the share
//! of the solution given, which tests the premise of eq. 1 (starting near the goal is easier).
//!
//! Chat APIs cannot be made to continue a given start, so the prompt asks for the lines after it;
//! a reply that repeats the start anyway has it cut off, and the completion says so. The program
//! run is the prefix followed by the reply's code.
//!
//! With `held_out_share` above 0, part of each task's tests is held out (EvilGenie's measure, as
//! searches and live mode hold them out: `cheating::held_out`): the prompt shows the visible tests,
//! the reward, the mask and ρ come from them alone (the program runs them as it would without the
//! others), and the held-out ones run in a second request beside it, so that a completion that
//! passes the visible tests and fails a held-out one is marked special-cased?.
//!
//! Sans-IO: [`CompletionRun`] is [`Effectful`]. Offline, its simulated LLM writes the rest of the
//! canonical solution and gets each remaining conditional statement's header wrong with a set
//! chance, so its profile follows eq. 1 by construction.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::completion_params::CompletionParams;
use super::curriculum::Curriculum;
use super::fgo::FgoMask;
use crate::cheating::held_out::{HeldOutScore, split};
use crate::cheating::{TestsInstruction, with_tests_shown};
use crate::effects::{ChatCall, ChatOutcome, Effectful, Need, PythonBatch, only_verdict};
use crate::llm::{Usage, extract_code};
use crate::prompts::{PromptSet, id};
use crate::python::{Outcome, ProgramRequest, ProgramVerdict, Scope, TestCase};
use crate::rng::{RunRng, held_out_rng};
use crate::task_import::ImportedTask;

/// What a completion run asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionMode {
    /// Rounds of M completions per task at its current stage, ρ updated after each round.
    Curriculum,
    /// The same number of completions at every stage of every task, ρ left alone.
    Profile,
}

/// A task the LLM completes: its requirement, canonical solution, tests and (APPS+) scope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompletionTask {
    pub id: String,
    pub requirement: String,
    pub canonical: String,
    pub tests: Vec<TestCase>,
    /// None until the harness has analysed the canonical solution.
    pub scope: Option<Vec<Scope>>,
    /// Tests the LLM never sees, run beside `tests` (`CompletionParams::held_out_share`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out: Vec<TestCase>,
}

impl From<&ImportedTask> for CompletionTask {
    fn from(task: &ImportedTask) -> Self {
        Self {
            id: task.id.clone(),
            requirement: task.prompt.clone(),
            canonical: task.solution.clone(),
            tests: task.tests.clone(),
            scope: task.scope.clone(),
            held_out: Vec::new(),
        }
    }
}

impl CompletionTask {
    /// The task with `share` of its tests held out, drawn from `seed`; the requirement shows the
    /// visible ones.
    fn holding_out(mut self, share: f64, seed: u64) -> Result<Self, String> {
        let (shown, held) =
            split(&self.tests, share, &mut held_out_rng(seed)).map_err(|why| format!("task `{}`: {why}", self.id))?;
        self.requirement = with_tests_shown(&self.requirement, &shown, TestsInstruction::default());
        (self.tests, self.held_out) = (shown, held);
        Ok(self)
    }
}

/// One completion and what came of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub task: usize,
    /// The round (curriculum) or 0 (profile).
    pub round: usize,
    pub stage: usize,
    /// Canonical lines given.
    pub prefix_lines: usize,
    pub reply: String,
    /// The reply repeated the prefix, which was cut off before the program was assembled.
    pub trimmed: bool,
    pub program: String,
    /// None when the LLM call failed (`error` says why).
    pub outcome: Option<Outcome>,
    pub reward: f64,
    pub mask: Option<FgoMask>,
    pub error: Option<String>,
    /// How the program did on the tests held out from the LLM, when some are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<HeldOutScore>,
}

impl Completion {
    /// The held-out test a completion that passed every visible test failed ("special-cased?").
    pub fn special_cased(&self) -> Option<&str> {
        self.held_out.as_ref()?.special_cased(self.outcome == Some(Outcome::Pass))
    }
}

/// A curriculum round of one task: where it stood, and where ρ took it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub task: usize,
    pub round: usize,
    pub stage: usize,
    pub passes: usize,
    pub samples: usize,
    pub rho: f64,
    pub advanced: bool,
    /// Passes that failed a held-out test ([`Completion::special_cased`]).
    #[serde(default)]
    pub special_cased: usize,
}

/// A difficulty profile's cell: pass@1 of one task at one stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileCell {
    pub task: String,
    pub stage: usize,
    pub share_given: f64,
    pub samples: usize,
    pub passes: usize,
    pub pass_at_1: f64,
}

/// A batch of completions at one stage of one task.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Unit {
    task: usize,
    round: usize,
    /// None: the task's stage when the unit starts (a curriculum round).
    stage: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
enum Pending {
    /// The harness's analysis of a task's canonical solution (its scope).
    Analyse(usize, PythonBatch),
    Chat(ChatCall),
    Test(PythonBatch),
    /// The held-out tests, in a request of their own once the visible verdict is final (kept here
    /// until then).
    HeldOut(PythonBatch, Box<ProgramVerdict>),
    Done,
}

/// The curriculum (or the profile) of a task set against one LLM.
#[derive(Clone, Debug)]
pub struct CompletionRun {
    pub mode: CompletionMode,
    pub params: CompletionParams,
    pub tasks: Vec<CompletionTask>,
    prompts: PromptSet,
    pub curricula: Vec<Curriculum>,
    units: Vec<Unit>,
    unit: usize,
    stage: usize,
    sample: usize,
    passes: Vec<bool>,
    /// This unit's passes marked special-cased?.
    special_cased: usize,
    /// The reply being tested, with whether it was trimmed.
    reply: Option<(String, bool)>,
    pending: Pending,
    pub completions: Vec<Completion>,
    pub rounds: Vec<Round>,
    pub usage: Usage,
    pub ended: String,
}

impl CompletionRun {
    pub fn new(
        mode: CompletionMode,
        tasks: Vec<CompletionTask>,
        params: CompletionParams,
        prompts: PromptSet,
    ) -> Result<Self, String> {
        crate::params::Parameters::validate(&params)?;
        if tasks.is_empty() {
            return Err("choose at least one task".into());
        }
        if let Some(task) = tasks.iter().find(|t| t.canonical.trim().is_empty()) {
            return Err(format!("task `{}` has no canonical solution for the curriculum to cut", task.id));
        }
        prompts.render(id::STEPCODER_COMPLETE, &[("task", ""), ("prefix", "")])?;
        let tasks = if params.held_out_share > 0.0 {
            let held_out = |t: CompletionTask| t.holding_out(params.held_out_share, params.held_out_seed);
            tasks.into_iter().map(held_out).collect::<Result<_, _>>()?
        } else {
            tasks
        };
        let mut run = Self {
            mode,
            params,
            tasks,
            prompts,
            curricula: Vec::new(),
            units: Vec::new(),
            unit: 0,
            stage: 0,
            sample: 0,
            passes: Vec::new(),
            special_cased: 0,
            reply: None,
            pending: Pending::Done,
            completions: Vec::new(),
            rounds: Vec::new(),
            usage: Usage::default(),
            ended: String::new(),
        };
        run.next_analysis();
        Ok(run)
    }

    pub fn is_done(&self) -> bool {
        self.pending == Pending::Done
    }

    /// Asks for the first task without a scope to be analysed, or starts the completions.
    fn next_analysis(&mut self) {
        match self.tasks.iter().position(|t| t.scope.is_none()) {
            Some(task) => {
                let request = ProgramRequest::new(self.tasks[task].canonical.clone(), Vec::new());
                self.pending = Pending::Analyse(task, PythonBatch::untrusted(request));
            }
            None => self.start(),
        }
    }

    fn start(&mut self) {
        let params = self.params.curriculum;
        self.curricula =
            self.tasks.iter().map(|t| Curriculum::new(t.scope.as_deref().unwrap_or_default(), params)).collect();
        self.units = match self.mode {
            CompletionMode::Curriculum => (0..self.params.rounds)
                .flat_map(|round| (0..self.tasks.len()).map(move |task| Unit { task, round, stage: None }))
                .collect(),
            CompletionMode::Profile => (0..self.tasks.len())
                .flat_map(|task| {
                    (0..self.curricula[task].stages).rev().map(move |stage| Unit { task, round: 0, stage: Some(stage) })
                })
                .collect(),
        };
        self.unit = 0;
        self.begin_unit();
    }

    fn begin_unit(&mut self) {
        let Some(unit) = self.units.get(self.unit).copied() else {
            self.finish("every round is done");
            return;
        };
        self.stage = unit.stage.unwrap_or(self.curricula[unit.task].stage);
        self.sample = 0;
        self.passes.clear();
        self.special_cased = 0;
        self.ask();
    }

    fn prefix(&self) -> &str {
        let unit = self.units[self.unit];
        self.curricula[unit.task].prefix_at(&self.tasks[unit.task].canonical, self.stage)
    }

    fn ask(&mut self) {
        let task = &self.tasks[self.units[self.unit].task];
        let values = [("task", task.requirement.as_str()), ("prefix", self.prefix())];
        match self.prompts.render(id::STEPCODER_COMPLETE, &values) {
            Ok(messages) => {
                let call = ChatCall { prompt_id: id::STEPCODER_COMPLETE.into(), agent: "policy".into(), messages };
                self.pending = Pending::Chat(call);
            }
            Err(message) => self.finish(message),
        }
    }

    fn finish(&mut self, why: impl Into<String>) {
        self.pending = Pending::Done;
        self.ended = why.into();
    }

    /// Records one completion, then asks for the next, closing the unit after M.
    fn record(&mut self, completion: Completion) {
        self.passes.push(completion.outcome == Some(Outcome::Pass));
        self.special_cased += usize::from(completion.special_cased().is_some());
        self.completions.push(completion);
        self.sample += 1;
        if self.sample < self.params.samples {
            self.ask();
            return;
        }
        let unit = self.units[self.unit];
        if unit.stage.is_none() {
            let curriculum = &mut self.curricula[unit.task];
            let advanced = curriculum.record_batch(&self.passes);
            self.rounds.push(Round {
                task: unit.task,
                round: unit.round,
                stage: self.stage,
                passes: self.passes.iter().filter(|&&p| p).count(),
                samples: self.passes.len(),
                rho: curriculum.rho,
                advanced,
                special_cased: self.special_cased,
            });
        }
        self.unit += 1;
        self.begin_unit();
    }

    fn completion(&self, reply: String, trimmed: bool, program: String) -> Completion {
        let unit = self.units[self.unit];
        Completion {
            task: unit.task,
            round: unit.round,
            stage: self.stage,
            prefix_lines: self.curricula[unit.task].prefix_lines_at(self.stage),
            reply,
            trimmed,
            program,
            outcome: None,
            reward: 0.0,
            mask: None,
            error: None,
            held_out: None,
        }
    }

    /// The difficulty profile: pass@1 of each task at each stage (a profile run's result).
    pub fn profile(&self) -> Vec<ProfileCell> {
        let mut cells: Vec<ProfileCell> = Vec::new();
        for c in self.completions.iter().filter(|c| c.outcome.is_some()) {
            let task = &self.tasks[c.task];
            let share = c.prefix_lines as f64 / task.canonical.lines().count().max(1) as f64;
            let cell = match cells.iter_mut().find(|cell| cell.task == task.id && cell.stage == c.stage) {
                Some(cell) => cell,
                None => {
                    let cell = ProfileCell {
                        task: task.id.clone(),
                        stage: c.stage,
                        share_given: share,
                        samples: 0,
                        passes: 0,
                        pass_at_1: 0.0,
                    };
                    cells.push(cell);
                    cells.last_mut().expect("just pushed")
                }
            };
            cell.samples += 1;
            cell.passes += usize::from(c.outcome == Some(Outcome::Pass));
            cell.pass_at_1 = cell.passes as f64 / cell.samples as f64;
        }
        cells
    }

    /// The simulated LLM's reply: the rest of the canonical solution, each remaining conditional
    /// statement's header wrong with probability `simulated_fault`, sometimes with the prefix
    /// repeated.
    fn simulated_reply(&self, rng: &mut RunRng) -> String {
        let unit = self.units[self.unit];
        let curriculum = &self.curricula[unit.task];
        let given = curriculum.prefix_lines_at(self.stage);
        let headers: Vec<u32> = curriculum.starts.iter().copied().filter(|&line| line as usize > given).collect();
        let mut lines: Vec<String> = self.tasks[unit.task].canonical.lines().map(str::to_owned).collect();
        for &line in &headers {
            if rng.random_bool(self.params.simulated_fault) {
                let text = &mut lines[line as usize - 1];
                *text = if rng.random_bool(0.5) { logic_fault(text) } else { syntax_fault(text) };
            }
        }
        let from = if rng.random_bool(self.params.simulated_repeat) { 0 } else { given };
        format!("Here is the rest of the program.\n```python\n{}\n```\n", lines[from..].join("\n"))
    }
}

/// A header's condition negated (`if`, `elif`), or its loop's first item skipped (`for`); other
/// headers (`while`, which could then loop forever, `def`, `try`) get a syntax break.
fn logic_fault(header: &str) -> String {
    let trimmed = header.trim_end();
    let indent = &header[..header.len() - header.trim_start().len()];
    let body = trimmed.trim_start();
    for keyword in ["if ", "elif "] {
        if let Some(condition) = body.strip_prefix(keyword).and_then(|rest| rest.strip_suffix(':')) {
            return format!("{indent}{keyword}not ({condition}):");
        }
    }
    if let Some((target, iterable)) =
        body.strip_prefix("for ").and_then(|rest| rest.strip_suffix(':')).and_then(|r| r.split_once(" in "))
    {
        return format!("{indent}for {target} in list({iterable})[1:]:");
    }
    syntax_fault(header)
}

/// The header's closing colon dropped, or the line cut short when it has none.
fn syntax_fault(header: &str) -> String {
    let trimmed = header.trim_end();
    match trimmed.strip_suffix(':') {
        Some(without) => without.to_owned(),
        None => format!("{trimmed} +"),
    }
}

impl Effectful for CompletionRun {
    fn need(&self) -> Need<'_> {
        match &self.pending {
            Pending::Analyse(_, batch) | Pending::Test(batch) | Pending::HeldOut(batch, _) => Need::Python(batch),
            Pending::Chat(call) => Need::Chat(call),
            Pending::Done => Need::Done,
        }
    }

    fn chat_done(&mut self, outcome: ChatOutcome, _now_ms: f64) {
        if !matches!(self.pending, Pending::Chat(_)) {
            return;
        }
        match outcome {
            ChatOutcome::Reply { text, usage } => {
                self.usage.add(usage);
                let prefix = self.prefix().to_owned();
                let code = extract_code(&text).unwrap_or_default();
                // A reply that starts with the whole prefix repeated it: the rest is the completion.
                let (continuation, trimmed) = match code.strip_prefix(&prefix) {
                    Some(rest) if !prefix.is_empty() => (rest.to_owned(), true),
                    _ => (code, false),
                };
                let program = format!("{prefix}{continuation}");
                let task = &self.tasks[self.units[self.unit].task];
                self.pending = Pending::Test(PythonBatch::untrusted(ProgramRequest::new(program, task.tests.clone())));
                self.reply = Some((text, trimmed));
            }
            ChatOutcome::Failed(failure) if failure.kind.is_fatal() => {
                self.finish(format!("the LLM call failed: {}", failure.message));
            }
            ChatOutcome::Failed(failure) => {
                let mut completion = self.completion(String::new(), false, String::new());
                completion.error = Some(failure.message);
                self.record(completion);
            }
        }
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        let verdict = match only_verdict(verdicts) {
            Ok(verdict) => verdict,
            Err(why) => return self.end(&why, now_ms),
        };
        let (visible, held_out, program) = match std::mem::replace(&mut self.pending, Pending::Done) {
            Pending::Analyse(task, _) => {
                self.tasks[task].scope = Some(verdict.scope);
                return self.next_analysis();
            }
            Pending::Test(mut batch) => {
                let program = batch.requests.remove(0).code;
                let task = &self.tasks[self.units[self.unit].task];
                if !task.held_out.is_empty() {
                    // The visible verdict is final: the held-out tests run next, on their own.
                    let held_out = ProgramRequest::new(program, task.held_out.clone()).verdict_only();
                    self.pending = Pending::HeldOut(PythonBatch::untrusted(held_out), Box::new(verdict));
                    return;
                }
                (verdict, None, program)
            }
            Pending::HeldOut(mut batch, visible) => (*visible, Some(verdict), batch.requests.remove(0).code),
            other => return self.pending = other,
        };
        let (reply, trimmed) = self.reply.take().unwrap_or_default();
        let mut completion = self.completion(reply, trimmed, program);
        let mask =
            FgoMask::new(&completion.program, completion.prefix_lines, (&visible).into(), self.params.compile_errors);
        completion.outcome = Some(visible.outcome);
        completion.reward = visible.outcome.reward();
        completion.mask = Some(mask);
        let held_out_tests = &self.tasks[completion.task].held_out;
        completion.held_out = held_out.map(|v| HeldOutScore::of(&v, held_out_tests));
        self.record(completion);
    }

    fn end(&mut self, reason: &str, _now_ms: f64) {
        if !self.is_done() {
            self.finish(reason);
        }
    }

    fn offline_reply(&self, rng: &mut RunRng) -> String {
        match &self.pending {
            Pending::Chat(_) => self.simulated_reply(rng),
            _ => "The simulated LLM has no call to answer.".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::OfflineLlm;
    use crate::python::ScopeKind;

    const CANONICAL: &str =
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 0:\n            total += x\n    return total\n";

    fn task() -> CompletionTask {
        let scope = [(ScopeKind::Function, 1, 6), (ScopeKind::For, 3, 5), (ScopeKind::If, 4, 5)];
        CompletionTask {
            id: "pos".into(),
            requirement: "Sum the positive numbers.".into(),
            canonical: CANONICAL.into(),
            tests: vec![TestCase::Statement("assert f([1, -2, 3]) == 4".into())],
            scope: Some(scope.into_iter().map(Scope::from).collect()),
            held_out: Vec::new(),
        }
    }

    /// A stand-in for python3: the program passes when it is the canonical one.
    fn verdict_of(request: &ProgramRequest) -> ProgramVerdict {
        let outcome = if request.code == CANONICAL { Outcome::Pass } else { Outcome::FailedTest };
        let mut verdict = ProgramVerdict::from_host(request, outcome, String::new(), 0.0);
        verdict.passed = outcome == Outcome::Pass;
        verdict
    }

    fn drive(run: &mut CompletionRun, mut reply: impl FnMut(&CompletionRun) -> String) {
        while !run.is_done() {
            match run.need() {
                Need::Chat(_) => {
                    let text = reply(run);
                    run.chat_done(ChatOutcome::Reply { text, usage: Usage::default() }, 0.0);
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    let verdict = verdict_of(request);
                    run.python_done(vec![verdict], 0.0);
                }
                Need::Decide(_) | Need::Compute | Need::Done => unreachable!(),
            }
        }
    }

    #[test]
    fn held_out_tests_run_after_the_visible_verdict_give_no_reward_and_mark_a_completion_that_answers_the_visible_ones_only()
     {
        let tests: Vec<TestCase> =
            (1..=5).map(|i| TestCase::Statement(format!("assert f([{i}, -1]) == {i}"))).collect();
        let five = CompletionTask { tests, ..task() };
        let params = CompletionParams { rounds: 1, samples: 2, held_out_share: 0.4, ..CompletionParams::default() };
        let mut run = CompletionRun::new(CompletionMode::Curriculum, vec![five], params, PromptSet::default()).unwrap();
        let (visible, held) = (run.tasks[0].tests.clone(), run.tasks[0].held_out.clone());
        assert_eq!((visible.len(), held.len()), (3, 2));
        let text = |t: &TestCase| match t {
            TestCase::Statement(s) => s.clone(),
            TestCase::Io { stdin, .. } => stdin.clone(),
        };
        // The first completion is right; the second answers the three tests it was shown.
        let mut replies = [CANONICAL.to_owned(), "def f(xs):\n    return xs[0]\n".to_owned()].into_iter();
        let mut rewards = Vec::new();
        while !run.is_done() {
            match run.need() {
                Need::Chat(call) => {
                    let prompt = &call.messages.last().unwrap().content;
                    assert!(visible.iter().all(|t| prompt.contains(&text(t))), "the prompt shows the visible tests");
                    assert!(held.iter().all(|t| !prompt.contains(&text(t))), "and no held-out one");
                    let text = format!("```python\n{}```", replies.next().unwrap());
                    run.chat_done(ChatOutcome::Reply { text, usage: Usage::default() }, 0.0);
                }
                Need::Python(batch) => {
                    // The visible tests; once their verdict is in, the held-out ones on their own.
                    let request = batch.requests[0].clone();
                    let held_run = request.tests == held;
                    let expected = if held_run { (held.clone(), false) } else { (visible.clone(), true) };
                    assert_eq!(
                        (batch.requests.len(), request.tests.clone(), request.coverage),
                        (1, expected.0, expected.1)
                    );
                    let lookup = request.code.contains("xs[0]");
                    // The lookup passes the visible tests and fails the held-out ones.
                    let passed = !lookup || !held_run;
                    let outcome = if passed { Outcome::Pass } else { Outcome::FailedTest };
                    let mut verdict = ProgramVerdict::from_host(&request, outcome, String::new(), 0.0);
                    verdict.passed = passed;
                    verdict.tests = request
                        .tests
                        .iter()
                        .map(|t| crate::python::TestResult { test: text(t), passed, ..Default::default() })
                        .collect();
                    let before = run.completions.len();
                    run.python_done(vec![verdict], 0.0);
                    assert_eq!(
                        run.completions.len() > before,
                        held_run,
                        "a completion is recorded after its held-out run"
                    );
                    if held_run {
                        rewards.push(run.completions.last().unwrap().reward);
                    }
                }
                _ => unreachable!(),
            }
        }
        assert_eq!(rewards, [1.0, 1.0], "both pass the visible tests, which alone give the reward");
        assert_eq!(run.completions[0].special_cased(), None);
        assert_eq!(run.completions[0].held_out.as_ref().map(|h| (h.passed, h.total)), Some((2, 2)));
        assert_eq!(run.completions[1].special_cased(), Some(text(&held[0]).as_str()));
        assert_eq!((run.rounds[0].passes, run.rounds[0].special_cased), (2, 1));
        let bad = CompletionParams { held_out_share: 0.4, ..CompletionParams::default() };
        let one_test = CompletionRun::new(CompletionMode::Curriculum, vec![task()], bad, PromptSet::default());
        assert!(one_test.unwrap_err().contains("task `pos`: 1 test(s)"));
    }

    #[test]
    fn a_right_model_moves_the_curriculum_to_the_full_task() {
        // E = 3: k = 2, s = 2; stage 1 starts at statement 2 (line 4), given lines 1-3.
        let params = CompletionParams { rounds: 6, ..CompletionParams::default() };
        let mut run =
            CompletionRun::new(CompletionMode::Curriculum, vec![task()], params, PromptSet::default()).unwrap();
        let Need::Chat(call) = run.need() else { panic!("a chat first") };
        assert!(
            call.messages
                .last()
                .unwrap()
                .content
                .contains("```python\ndef f(xs):\n    total = 0\n    for x in xs:\n```")
        );
        // The model answers the rest, repeating the prefix every other time.
        let mut count = 0;
        drive(&mut run, |run| {
            count += 1;
            let given = run.prefix().to_owned();
            let rest = &CANONICAL[given.len()..];
            if count % 2 == 0 { format!("```python\n{given}{rest}```") } else { format!("```python\n{rest}```") }
        });
        assert!(run.completions.iter().all(|c| c.outcome == Some(Outcome::Pass)), "{:?}", run.completions[0]);
        assert!(run.completions.iter().filter(|c| c.stage == 1).any(|c| c.trimmed));
        // Four passes per round: ρ = 1 − 0.9⁴ = 0.344, then 0.570, 0.718, 0.815 > 0.8 in round 4.
        let stages: Vec<usize> = run.rounds.iter().map(|r| r.stage).collect();
        assert_eq!(stages, [1, 1, 1, 1, 0, 0]);
        assert!(run.rounds[3].advanced);
        assert_eq!(run.ended, "every round is done");
    }

    #[test]
    fn the_profile_asks_at_every_stage_and_the_simulated_model_follows_eq_1() {
        let params = CompletionParams {
            samples: 40,
            simulated_fault: 0.5,
            simulated_repeat: 0.5,
            ..CompletionParams::default()
        };
        let mut run = CompletionRun::new(CompletionMode::Profile, vec![task()], params, PromptSet::default()).unwrap();
        let mut llm = OfflineLlm::new(3);
        while !run.is_done() {
            match run.need() {
                Need::Chat(_) => {
                    let outcome = llm.reply(&run);
                    run.chat_done(outcome, 0.0);
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    let verdict = verdict_of(request);
                    run.python_done(vec![verdict], 0.0);
                }
                Need::Decide(_) | Need::Compute | Need::Done => unreachable!(),
            }
        }
        let profile = run.profile();
        assert_eq!(profile.len(), 2);
        assert_eq!((profile[0].stage, profile[0].samples, profile[1].stage), (1, 40, 0));
        assert!((profile[0].share_given - 0.5).abs() < 1e-12, "3 of 6 lines");
        // One header left at stage 1 (P(pass) = 0.5), three at stage 0 (0.125).
        assert!(profile[0].pass_at_1 > profile[1].pass_at_1, "{profile:?}");
        assert!(run.rounds.is_empty(), "a profile leaves ρ alone");
        assert!(run.completions.iter().any(|c| c.trimmed), "repeated prefixes are cut off");
    }

    #[test]
    fn faults_change_the_header_and_bad_settings_are_named() {
        assert_eq!(logic_fault("        if x > 0:"), "        if not (x > 0):");
        assert_eq!(logic_fault("    for x in xs:"), "    for x in list(xs)[1:]:");
        assert_eq!(logic_fault("    while n:"), "    while n");
        assert_eq!(syntax_fault("def f(xs):"), "def f(xs)");
        let bad = CompletionParams { samples: 0, ..CompletionParams::default() };
        assert!(
            CompletionRun::new(CompletionMode::Profile, vec![task()], bad, PromptSet::default())
                .unwrap_err()
                .starts_with("samples")
        );
        let empty =
            CompletionRun::new(CompletionMode::Profile, Vec::new(), CompletionParams::default(), PromptSet::default());
        assert_eq!(empty.unwrap_err(), "choose at least one task");
    }

    #[test]
    fn a_task_without_scope_is_analysed_first() {
        let mut unscoped = task();
        unscoped.scope = None;
        let mut run = CompletionRun::new(
            CompletionMode::Profile,
            vec![unscoped],
            CompletionParams::default(),
            PromptSet::default(),
        )
        .unwrap();
        let Need::Python(batch) = run.need() else { panic!("an analysis first") };
        let request = &batch.requests[0];
        assert!(request.analysis && request.code == CANONICAL);
        let mut verdict = verdict_of(request);
        verdict.scope = task().scope.unwrap();
        run.python_done(vec![verdict], 0.0);
        assert!(matches!(run.need(), Need::Chat(_)));
        assert_eq!(run.curricula[0].stages, 2);
    }
}
