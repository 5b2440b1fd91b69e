//! Live mode: a trained policy (or the fixed pipeline) drives real code generation on one task.
//!
//! A [`LiveEpisode`] keeps the state the policy was trained on — seed 000's executive flags or seed
//! 003's orchestrator state — but fills it from real outcomes: each action becomes an LLM call
//! (generate, debug, search; planner, coder, tester's analysis, debugger) or a run of the task's
//! tests. What an action does and what it earns are the environment's own rules
//! ([`crate::env::live::LiveRules`]); this file holds what every environment shares: the prompts,
//! the program, the steps and the blackboard (seed 003 §2.2: sender, receiver, type, content, time).
//!
//! It is sans-IO like the rest of the engine: it is [`Effectful`], and a host performs what it
//! needs. Without an API key the host answers with [`crate::effects::OfflineLlm`], which writes the
//! task's recorded programs with seed 003's calibrated odds, so live mode works offline; the tests
//! still run in real Python.

use serde::{Deserialize, Serialize};

pub use crate::env::live::{LiveTask, OfflineAnswers, Trial};

use crate::cheating::held_out::HeldOutScore;
use crate::effects::{
    Blackboard, BlackboardMessage, ChatCall, ChatOutcome, Effectful, LiveState, MessageKind, Need, PythonBatch,
    only_verdict,
};
use crate::env::live::{Answer, CallSpec, LiveRules, Move, OfflineContext, Reply, Settled};
use crate::env::live_rules::AnyLiveRules;
use crate::env::{ActionMask, EnvId, EnvSpec, Environment, Observation};
use crate::llm::{Usage, extract_code};
use crate::prompts::PromptSet;
use crate::python::{ProgramRequest, ProgramVerdict};
use crate::rng::RunRng;
use crate::run::Run;

#[cfg(test)]
mod tests;
pub mod validation;

/// Who drives the episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Driver {
    /// A trained run's greedy policy (the host asks it at each [`Need::Decide`]).
    Policy,
    /// The environment's fixed pipeline, decided here: seed 003's planner → coder → tester →
    /// debugger → tester on the orchestrator; generate → test → debug → test → stop on the
    /// executive, stopping once a test passes.
    Pipeline,
}

/// One action of the episode and what came of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveStep {
    pub action: usize,
    pub reward: f64,
    /// The program after this step (when there is one).
    pub code: String,
    /// The test run this step made, if any.
    pub verdict: Option<ProgramVerdict>,
    /// Tokens of this step's LLM calls.
    pub usage: Usage,
    /// The action was illegal, redundant (no call made) or its call failed.
    pub note: Option<String>,
    /// What this step observed of the simulator's probabilities, for calibration.
    #[serde(default)]
    pub trials: Vec<Trial>,
    /// How this step's program did on the tests held out from the LLM, when some are (`verdict`
    /// is then the visible tests' alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<HeldOutScore>,
}

impl LiveStep {
    /// The held-out test this step's program failed when it passed every visible one: it may have
    /// answered what it was shown rather than the task ("special-cased?").
    pub fn special_cased(&self) -> Option<&str> {
        self.held_out.as_ref()?.special_cased(self.verdict.as_ref().is_some_and(|v| v.passed))
    }
}

/// How the episode ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveSummary {
    pub success: bool,
    #[serde(rename = "return")]
    pub episode_return: f64,
    /// Agent calls as training counted them: every orchestrator action; the executive's generate,
    /// debug and search.
    pub agent_calls: u32,
    /// Requests actually sent to the LLM (redundant calls are not sent; the orchestrator's tester
    /// sends one only to analyse a failure).
    pub llm_calls: u32,
    pub test_runs: u32,
    pub usage: Usage,
    /// Why it ended, in words.
    pub ended: String,
    /// How the last program tested did on the tests held out from the LLM, when some are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<HeldOutScore>,
}

impl LiveSummary {
    /// The held-out test the final program failed when the episode succeeded on the visible ones.
    pub fn special_cased(&self) -> Option<&str> {
        self.held_out.as_ref()?.special_cased(self.success)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Decide,
    Chat(ChatCall, Answer),
    Test(PythonBatch),
    /// The held-out tests, in a request of their own once the visible verdict is final (kept here
    /// until then); nothing of their run reaches the LLM, the policy or the reward.
    HeldOut(PythonBatch, Box<ProgramVerdict>),
    Done,
}

#[derive(Clone, Debug)]
pub struct LiveEpisode {
    env: EnvId,
    driver: Driver,
    rules: AnyLiveRules,
    task: LiveTask,
    prompts: PromptSet,
    plan: String,
    code: String,
    /// `Tests k/n`, the executive's feedback text (what its DQN embedded in training).
    feedback: String,
    /// The failing tests in detail, or the tester's analysis: what the debug prompts get.
    report: String,
    hints: String,
    pending: Pending,
    steps: Vec<LiveStep>,
    board: Blackboard,
    summary: LiveSummary,
    /// The LLM refused in a way a retry cannot mend (a key, a model, a URL).
    fatal_failure: bool,
}

/// Test-report characters kept for prompts and messages.
const REPORT_LIMIT: usize = 2_000;

impl LiveEpisode {
    /// A live episode of `env`, under its rules with its parameters (a trained run's), on `task`.
    pub fn new(env: &EnvSpec, driver: Driver, task: LiveTask, prompts: PromptSet) -> Result<Self, String> {
        let rules = env.live_rules().ok_or_else(|| {
            let live: Vec<&str> = EnvId::ALL.iter().filter(|e| e.has_live_mode()).map(|e| e.name()).collect();
            format!("live mode drives {} policies, not {}", live.join(" or "), env.id().name())
        })?;
        if task.tests.is_empty() {
            return Err(format!("task {} has no tests to check the generated code against", task.id));
        }
        prompts.check()?;
        let mut episode = Self {
            env: env.id(),
            driver,
            rules,
            prompts,
            plan: String::new(),
            code: String::new(),
            feedback: String::new(),
            report: String::new(),
            hints: String::new(),
            pending: Pending::Decide,
            steps: Vec::new(),
            board: Blackboard::default(),
            summary: LiveSummary::default(),
            fatal_failure: false,
            task,
        };
        let content = episode.task.prompt.clone();
        episode.board.post("user", Some("orchestrator"), MessageKind::Task, content, 0.0);
        if driver == Driver::Pipeline {
            episode.decide_pipeline(0.0);
        }
        Ok(episode)
    }

    /// Has the offline LLM write with odds of its own, `NAME=VALUE` settings of the environment's
    /// odds, instead of the simulator's: a stand-in for a real LLM whose odds the simulator
    /// mis-guesses (seed 003 §6.2).
    pub fn with_llm_odds(mut self, settings: &[String]) -> Result<Self, String> {
        self.rules.set_llm_odds(settings)?;
        Ok(self)
    }

    pub fn env(&self) -> EnvId {
        self.env
    }

    pub fn driver(&self) -> Driver {
        self.driver
    }

    pub fn task(&self) -> &LiveTask {
        &self.task
    }

    pub fn is_done(&self) -> bool {
        self.pending == Pending::Done
    }

    /// Whether the LLM ended the episode in a way that would end any other (a refused key, an
    /// unknown model, a wrong URL).
    pub fn ended_by_fatal_failure(&self) -> bool {
        self.fatal_failure
    }

    pub fn steps(&self) -> &[LiveStep] {
        &self.steps
    }

    pub fn messages(&self) -> &[BlackboardMessage] {
        self.board.messages()
    }

    pub fn summary(&self) -> &LiveSummary {
        &self.summary
    }

    pub fn actions(&self) -> Vec<usize> {
        self.steps.iter().map(|s| s.action).collect()
    }

    /// Every draw of the simulator's probabilities this episode observed.
    pub fn trials(&self) -> Vec<Trial> {
        self.steps.iter().flat_map(|s| s.trials.iter().cloned()).collect()
    }

    /// The state in the trained environment's encoding.
    pub fn observation(&self) -> Observation {
        self.rules.observation()
    }

    /// The texts a neural policy embeds (the executive's prompt, code and feedback).
    pub fn texts(&self) -> Vec<&str> {
        if self.rules.embeds_texts() { vec![&self.task.prompt, &self.code, &self.feedback] } else { Vec::new() }
    }

    /// The state to send to the worker that holds the trained policy.
    pub fn live_state(&self) -> LiveState {
        let obs = self.observation();
        let env_features = self.rules.features();
        let texts = self.texts().into_iter().map(str::to_owned).collect();
        LiveState { state: obs.state, mask: obs.mask.0, texts, env_features }
    }

    /// Does what the rules asked for next.
    fn follow(&mut self, next: Move, now_ms: f64) {
        match next {
            Move::Call(spec) => self.call(spec),
            Move::Test => {
                let request = ProgramRequest::new(self.code.clone(), self.task.tests.clone())
                    .with_task(self.task.task_code.clone());
                self.pending = Pending::Test(PythonBatch::untrusted(request));
            }
            Move::Settled(settled) => self.settle(settled, now_ms),
        }
    }

    fn call(&mut self, spec: CallSpec) {
        let values = [
            ("task", self.task.prompt.as_str()),
            ("plan", &self.plan),
            ("code", &self.code),
            ("hints", &self.hints),
            ("feedback", &self.report),
        ];
        match self.prompts.render(spec.prompt_id, &values) {
            Ok(messages) => {
                let call = ChatCall { prompt_id: spec.prompt_id.into(), agent: spec.agent.into(), messages };
                self.pending = Pending::Chat(call, spec.answer);
            }
            // `new` checked the prompts, so this is a broken invariant; end the episode with it.
            Err(message) => self.finish(message),
        }
    }

    /// A reply that should hold a program; whether it did.
    fn take_code(&mut self, agent: &str, reply: &str, now_ms: f64) -> bool {
        let Some(code) = extract_code(reply) else {
            let message =
                format!("the {agent}'s reply has no Python code: {}", reply.chars().take(200).collect::<String>());
            self.board.post(agent, None, MessageKind::Error, message.clone(), now_ms);
            self.note(message);
            return false;
        };
        self.board.post(agent, Some("tester"), MessageKind::Code, code.clone(), now_ms);
        self.code = code;
        if let Some(step) = self.steps.last_mut() {
            step.code = self.code.clone();
        }
        true
    }

    fn settle(&mut self, settled: Settled, now_ms: f64) {
        self.summary.episode_return += settled.reward;
        if let Some(step) = self.steps.last_mut() {
            step.reward += settled.reward;
            step.trials.extend(settled.trials);
        }
        if let Some(note) = settled.note {
            self.note(note);
        }
        match settled.end {
            Some((success, why)) => {
                self.summary.success = success;
                self.finish(why);
            }
            None => self.next(now_ms),
        }
    }

    fn note(&mut self, note: String) {
        if let Some(step) = self.steps.last_mut() {
            step.note = Some(note);
        }
    }

    /// After a settled step: the pipeline decides at once, a policy is asked.
    fn next(&mut self, now_ms: f64) {
        if self.pending == Pending::Done {
            return;
        }
        self.pending = Pending::Decide;
        if self.driver == Driver::Pipeline {
            self.decide_pipeline(now_ms);
        }
    }

    fn decide_pipeline(&mut self, now_ms: f64) {
        let action = self.rules.pipeline_action(self.steps.len());
        self.decided(action, now_ms);
    }

    fn finish(&mut self, why: String) {
        self.pending = Pending::Done;
        self.summary.ended = why;
    }
}

impl Effectful for LiveEpisode {
    fn need(&self) -> Need<'_> {
        match &self.pending {
            Pending::Decide => Need::Decide(self.live_state()),
            Pending::Chat(call, _) => Need::Chat(call),
            Pending::Test(batch) | Pending::HeldOut(batch, _) => Need::Python(batch),
            Pending::Done => Need::Done,
        }
    }

    /// Takes the policy's action. Illegal or redundant actions are charged as in training and make
    /// no call.
    fn decided(&mut self, action: usize, now_ms: f64) {
        assert!(self.pending == Pending::Decide, "decided() while the episode waits for {:?}", self.pending);
        if action >= self.env.action_names().len() {
            // A policy of another environment: end cleanly rather than panic.
            return self.finish(format!("the policy chose action {action}, which {} does not have", self.env.name()));
        }
        self.steps.push(LiveStep { action, code: self.code.clone(), ..LiveStep::default() });
        if self.rules.is_agent_call(action) {
            self.summary.agent_calls += 1;
        }
        let next = self.rules.begin(action);
        self.follow(next, now_ms);
    }

    fn chat_done(&mut self, outcome: ChatOutcome, now_ms: f64) {
        let Pending::Chat(call, answer) = std::mem::replace(&mut self.pending, Pending::Decide) else {
            panic!("chat_done() while the episode waits for {:?}", self.pending);
        };
        let agent = call.agent.as_str();
        self.summary.llm_calls += 1;
        let text = match outcome {
            ChatOutcome::Reply { text, usage } => {
                self.summary.usage.add(usage);
                if let Some(step) = self.steps.last_mut() {
                    step.usage.add(usage);
                }
                text
            }
            ChatOutcome::Failed(failure) => {
                self.board.post(agent, None, MessageKind::Error, failure.message.clone(), now_ms);
                self.note(format!("the call failed: {}", failure.message));
                if failure.kind.is_fatal() {
                    self.fatal_failure = true;
                    return self.finish(failure.message);
                }
                let next = self.rules.replied(None);
                return self.follow(next, now_ms);
            }
        };
        let got_code = match answer {
            Answer::Code => self.take_code(agent, &text, now_ms),
            Answer::Plan => {
                self.plan = text.clone();
                self.board.post(agent, Some("coder"), MessageKind::Plan, text.clone(), now_ms);
                false
            }
            Answer::Hints | Answer::Analysis => {
                if answer == Answer::Hints {
                    self.hints = text.clone();
                } else {
                    self.report = text.clone();
                }
                self.board.post(agent, Some("debugger"), MessageKind::Feedback, text.clone(), now_ms);
                false
            }
        };
        let next = self.rules.replied(Some(Reply { text: &text, code: got_code.then_some(self.code.as_str()) }));
        self.follow(next, now_ms);
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        let verdict = match only_verdict(verdicts) {
            Ok(verdict) => verdict,
            Err(why) => return self.end(&why, now_ms),
        };
        let (verdict, held_out) = match std::mem::replace(&mut self.pending, Pending::Decide) {
            // The visible verdict is final: the held-out tests run next, on their own.
            Pending::Test(_) if !self.task.held_out.is_empty() => {
                let request = ProgramRequest::new(self.code.clone(), self.task.held_out.clone())
                    .verdict_only()
                    .with_task(self.task.task_code.clone());
                self.pending = Pending::HeldOut(PythonBatch::untrusted(request), Box::new(verdict));
                return;
            }
            Pending::Test(_) => (verdict, None),
            Pending::HeldOut(_, visible) => (*visible, Some(HeldOutScore::of(&verdict, &self.task.held_out))),
            // Not waiting for Python: nothing to resume.
            other => return self.pending = other,
        };
        self.summary.held_out = held_out.clone();
        self.pending = Pending::Decide;
        self.summary.test_runs += 1;
        self.feedback = format!("Tests {}/{}", verdict.number_passed, verdict.total);
        self.report = test_report(&verdict);
        let receiver = if verdict.passed { "orchestrator" } else { "debugger" };
        self.board.post("tester", Some(receiver), MessageKind::TestResult, self.report.clone(), now_ms);
        let passed = verdict.passed;
        if let Some(step) = self.steps.last_mut() {
            step.verdict = Some(verdict);
            step.held_out = held_out;
        }
        let next = self.rules.tested(passed);
        self.follow(next, now_ms);
    }

    fn end(&mut self, reason: &str, now_ms: f64) {
        if !self.is_done() {
            self.board.post("host", None, MessageKind::Error, reason.to_owned(), now_ms);
            self.finish(reason.to_owned());
        }
    }

    fn offline_reply(&self, rng: &mut RunRng) -> String {
        let context = OfflineContext { task: &self.task, code: &self.code, report: &self.report };
        self.rules.offline_reply(context, rng)
    }
}

/// `run`'s greedy action in a live state; the error says why the state does not fit the run.
pub fn decide(run: &Run, state: &LiveState) -> Result<usize, String> {
    let info = run.env().info();
    let fits = state.state < info.n_states
        && state.env_features.len() == info.feature_dim
        && state.texts.len() == info.text_names.len();
    if !fits {
        return Err(format!("this state is not one of {}'s, which the run was trained on", info.id.name()));
    }
    let texts: Vec<&str> = state.texts.iter().map(String::as_str).collect();
    let observation = Observation { state: state.state, mask: ActionMask(state.mask) };
    Ok(run.greedy_action_on(observation, &texts, |out| out.copy_from_slice(&state.env_features)))
}

/// What the tests said, for the blackboard and the debug prompts: the count and each failure.
fn test_report(verdict: &ProgramVerdict) -> String {
    let mut report = format!("{}: {}/{} tests passed", verdict.outcome.label(), verdict.number_passed, verdict.total);
    if let Some(error) = &verdict.error {
        report.push_str(&format!("\n{error}"));
    }
    for test in verdict.tests.iter().filter(|t| !t.passed) {
        report.push_str(&format!("\nFAILED {}", test.test));
        if let Some(error) = &test.error {
            report.push_str(&format!(": {error}"));
        }
    }
    if report.len() > REPORT_LIMIT {
        let cut = (0..=REPORT_LIMIT).rev().find(|&i| report.is_char_boundary(i)).unwrap_or(0);
        report.truncate(cut);
        report.push('…');
    }
    report
}
