//! Live mode: a trained policy (or the fixed pipeline) drives real code generation on one task.
//!
//! A [`LiveEpisode`] keeps the state the policy was trained on — seed 000's executive flags or seed
//! 003's orchestrator state — but fills it from real outcomes: each action becomes an LLM call
//! (generate, debug, search; planner, coder, tester's analysis, debugger) or a run of the task's
//! tests, and a test verdict sets the flags. It is sans-IO like the rest of the engine: it says
//! which [`Effect`] it needs next (a decision, a chat call, a test run) and the host resumes it with
//! the outcome. Every step is written to a blackboard (seed 003 §2.2: sender, receiver, type,
//! content, time).
//!
//! Without an API key the host answers chat calls with [`SimulatedLlm`], which writes the task's
//! recorded programs with seed 003's calibrated odds, so live mode works offline; the tests still
//! run in real Python.

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::agents::fixed_pipeline;
use crate::env::executive::{self, ExecutiveFlags, ExecutiveRewards};
use crate::env::orchestrator::{self, OrchestratorParams, OrchestratorState};
use crate::env::{ActionMask, EnvId, Environment, Observation, StepCosts};
use crate::llm::{ChatMessage, Usage, extract_code};
use crate::prompts::PromptSet;
use crate::protocol::LiveState;
use crate::python::{ProgramRequest, ProgramVerdict, TestCase};
use crate::task_import::{ImportedTask, TaskFormat};
use crate::tasks::executive_tasks;
use crate::{Run, RunRng};

/// A task live mode can solve: what to ask for, the tests, and what the simulated LLM writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveTask {
    pub id: String,
    pub prompt: String,
    pub tests: Vec<TestCase>,
    pub simulated: SimulatedAnswers,
}

/// The programs the simulated LLM answers with, per call (seed 000's simulated LLM for the bundled
/// tasks; a failing first draft and the reference for imported ones).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulatedAnswers {
    pub generate: String,
    pub debug: String,
    pub debug_after_search: String,
}

impl LiveTask {
    /// Seed 000's three executive tasks.
    pub fn bundled() -> Vec<LiveTask> {
        executive_tasks()
            .iter()
            .map(|task| {
                let llm = &task.simulated_llm;
                LiveTask {
                    id: task.task_id.clone(),
                    prompt: task.prompt.clone(),
                    tests: task.tests.iter().cloned().map(TestCase::Statement).collect(),
                    simulated: SimulatedAnswers {
                        generate: task.code_of(&llm.generate).to_owned(),
                        debug: task.code_of(&llm.debug).to_owned(),
                        debug_after_search: task.code_of(&llm.debug_after_search).to_owned(),
                    },
                }
            })
            .collect()
    }

    /// An imported task; the simulated first draft fails (it raises, or prints nothing).
    pub fn from_imported(task: &ImportedTask) -> LiveTask {
        let stdin_problem = task.tests.iter().any(|t| matches!(t, TestCase::Io { .. }));
        let draft = if stdin_problem || task.format == TaskFormat::Apps && task.starter_code.trim().is_empty() {
            "print()\n".to_owned()
        } else {
            format!("{}\n    raise NotImplementedError\n", task.starter_code.trim_end())
        };
        LiveTask {
            id: task.id.clone(),
            prompt: task.prompt.clone(),
            tests: task.tests.clone(),
            simulated: SimulatedAnswers {
                generate: draft,
                debug: task.solution.clone(),
                debug_after_search: task.solution.clone(),
            },
        }
    }

    /// The program the simulated LLM considers correct.
    fn reference(&self) -> &str {
        &self.simulated.debug_after_search
    }
}

/// Who drives the episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Driver {
    /// A trained run's greedy policy (the host asks it at each [`Effect::Decide`]).
    Policy,
    /// The fixed pipeline, decided here: seed 003's planner → coder → tester → debugger → tester on
    /// the orchestrator; generate → test → debug → test → stop on the executive, stopping once a
    /// test passes.
    Pipeline,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlackboardMessage {
    pub sender: String,
    pub receiver: Option<String>,
    pub kind: MessageKind,
    pub content: String,
    /// Milliseconds since the episode started (the host's clock).
    pub time_ms: f64,
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
}

/// An LLM call the episode needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatCall {
    /// The prompt's id in the [`PromptSet`], e.g. `orchestrator.coder`.
    pub prompt_id: String,
    /// The agent making the call (blackboard sender), e.g. `coder`.
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
    /// The call failed after its retries; `fatal` when retrying the action cannot help (a wrong key
    /// or model), which ends the episode.
    Failed {
        message: String,
        fatal: bool,
    },
}

pub enum Effect<'a> {
    /// Ask the policy for an action in [`LiveEpisode::observation`] (never for the pipeline).
    Decide,
    Chat(&'a ChatCall),
    Test(&'a ProgramRequest),
    Done,
}

#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Decide,
    Chat(ChatCall),
    Test(ProgramRequest),
    Done,
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
}

#[derive(Clone, Debug)]
pub struct LiveEpisode {
    env: EnvId,
    driver: Driver,
    task: LiveTask,
    prompts: PromptSet,
    executive: ExecutiveFlags,
    orchestrator: OrchestratorState,
    plan: String,
    code: String,
    /// `Tests k/n`, the executive's feedback text (what its DQN embedded in training).
    feedback: String,
    /// The failing tests in detail, or the tester's analysis: what the debug prompts get.
    report: String,
    hints: String,
    pending: Pending,
    steps: Vec<LiveStep>,
    messages: Vec<BlackboardMessage>,
    summary: LiveSummary,
}

/// Test-report characters kept for prompts and messages.
const REPORT_LIMIT: usize = 2_000;

impl LiveEpisode {
    /// A live episode of `env` (executive or orchestrator) on `task`.
    pub fn new(env: EnvId, driver: Driver, task: LiveTask, prompts: PromptSet) -> Result<Self, String> {
        if !matches!(env, EnvId::Executive | EnvId::Orchestrator) {
            return Err(format!("live mode drives executive or orchestrator policies, not {}", env.name()));
        }
        if task.tests.is_empty() {
            return Err(format!("task {} has no tests to check the generated code against", task.id));
        }
        prompts.check()?;
        let mut episode = Self {
            env,
            driver,
            prompts,
            executive: ExecutiveFlags::default(),
            orchestrator: OrchestratorState::default(),
            plan: String::new(),
            code: String::new(),
            feedback: String::new(),
            report: String::new(),
            hints: String::new(),
            pending: Pending::Decide,
            steps: Vec::new(),
            messages: Vec::new(),
            summary: LiveSummary::default(),
            task,
        };
        let content = episode.task.prompt.clone();
        episode.post("user", Some("orchestrator"), MessageKind::Task, content, 0.0);
        if driver == Driver::Pipeline {
            episode.decide_pipeline(0.0);
        }
        Ok(episode)
    }

    pub fn env(&self) -> EnvId {
        self.env
    }

    pub fn task(&self) -> &LiveTask {
        &self.task
    }

    pub fn effect(&self) -> Effect<'_> {
        match &self.pending {
            Pending::Decide => Effect::Decide,
            Pending::Chat(call) => Effect::Chat(call),
            Pending::Test(request) => Effect::Test(request),
            Pending::Done => Effect::Done,
        }
    }

    pub fn is_done(&self) -> bool {
        self.pending == Pending::Done
    }

    pub fn steps(&self) -> &[LiveStep] {
        &self.steps
    }

    pub fn messages(&self) -> &[BlackboardMessage] {
        &self.messages
    }

    pub fn summary(&self) -> &LiveSummary {
        &self.summary
    }

    pub fn actions(&self) -> Vec<usize> {
        self.steps.iter().map(|s| s.action).collect()
    }

    /// The state in the trained environment's encoding.
    pub fn observation(&self) -> Observation {
        match self.env {
            EnvId::Executive => Observation { state: self.executive.index(), mask: self.executive.mask() },
            _ => Observation { state: self.orchestrator.index(), mask: self.orchestrator.mask() },
        }
    }

    /// The texts a neural policy embeds (the executive's prompt, code and feedback).
    pub fn texts(&self) -> Vec<&str> {
        match self.env {
            EnvId::Executive => vec![&self.task.prompt, &self.code, &self.feedback],
            _ => Vec::new(),
        }
    }

    /// The trained environment's own features of the current state.
    pub fn write_features(&self, out: &mut [f32]) {
        match self.env {
            EnvId::Executive => out.copy_from_slice(&self.executive.as_features()),
            _ => self.orchestrator.write_features(out),
        }
    }

    /// The state to send to the worker that holds the trained policy.
    pub fn live_state(&self) -> LiveState {
        let obs = self.observation();
        let mut env_features = vec![0.0; self.env.make().info().feature_dim];
        self.write_features(&mut env_features);
        let texts = self.texts().into_iter().map(str::to_owned).collect();
        LiveState { state: obs.state, mask: obs.mask.0, texts, env_features }
    }

    /// Takes the policy's action. Illegal or redundant actions are charged as in training and make
    /// no call.
    pub fn act(&mut self, action: usize, now_ms: f64) {
        assert!(self.pending == Pending::Decide, "act() while the episode waits for {:?}", self.pending);
        let names = self.env.action_names();
        if action >= names.len() {
            // A policy of another environment: end cleanly rather than panic.
            return self.finish(format!("the policy chose action {action}, which {} does not have", self.env.name()));
        }
        self.steps.push(LiveStep { action, code: self.code.clone(), ..LiveStep::default() });
        let executive_call = [executive::GENERATE, executive::DEBUG, executive::SEARCH].contains(&action)
            && self.executive.mask().allows(action);
        if self.env == EnvId::Orchestrator || executive_call {
            self.summary.agent_calls += 1;
        }
        match self.env {
            EnvId::Executive => self.act_executive(action, now_ms),
            _ => self.act_orchestrator(action, now_ms),
        }
    }

    fn act_executive(&mut self, action: usize, now_ms: f64) {
        let flags = self.executive;
        if !flags.mask().allows(action) {
            self.executive.invalid_action = true;
            self.note(format!("{} is not allowed now", executive::ACTION_NAMES[action]));
            return self.settle_executive(None, now_ms);
        }
        match action {
            executive::GENERATE => self.call("executive.generate", "generator", &[]),
            executive::TEST => self.run_tests(),
            executive::DEBUG => self.call("executive.debug", "debugger", &[]),
            executive::SEARCH => self.call("executive.search", "searcher", &[]),
            _ => {
                let success = flags.last_test_passed && !flags.invalid_action;
                let r = ExecutiveRewards::default();
                self.summary.success = success;
                self.finish(
                    if success { "stopped after passing tests" } else { "stopped without passing tests" }.into(),
                );
                self.settle_executive(Some(if success { r.stop_success } else { r.stop_failure }), now_ms);
            }
        }
    }

    fn act_orchestrator(&mut self, action: usize, now_ms: f64) {
        let s = self.orchestrator;
        let useful = match action {
            orchestrator::PLANNER => !s.has_plan && (!s.has_code || s.has_error),
            orchestrator::CODER => !s.has_code || s.has_error,
            orchestrator::TESTER => s.has_code && !s.has_error,
            _ => s.has_error,
        };
        if !useful {
            self.note(format!(
                "{} has nothing to do now (redundant call, not made)",
                orchestrator::ACTION_NAMES[action]
            ));
            return self.settle_orchestrator(None, now_ms);
        }
        match action {
            orchestrator::PLANNER => self.call("orchestrator.planner", "planner", &[]),
            orchestrator::CODER => self.call("orchestrator.coder", "coder", &[]),
            orchestrator::TESTER => self.run_tests(),
            _ => self.call("orchestrator.debugger", "debugger", &[]),
        }
    }

    fn call(&mut self, prompt_id: &str, agent: &str, extra: &[(&str, &str)]) {
        let mut values = vec![
            ("task", self.task.prompt.as_str()),
            ("plan", &self.plan),
            ("code", &self.code),
            ("hints", &self.hints),
        ];
        values.push(("feedback", &self.report));
        values.extend_from_slice(extra);
        match self.prompts.render(prompt_id, &values) {
            Ok(messages) => {
                self.pending = Pending::Chat(ChatCall { prompt_id: prompt_id.into(), agent: agent.into(), messages })
            }
            // `new` checked the prompts, so this is a broken invariant; end the episode with it.
            Err(message) => self.finish(message),
        }
    }

    fn run_tests(&mut self) {
        self.pending = Pending::Test(ProgramRequest::new(self.code.clone(), self.task.tests.clone()));
    }

    /// Resumes the episode with the outcome of the chat call it asked for.
    pub fn chat_done(&mut self, outcome: ChatOutcome, now_ms: f64) {
        let Pending::Chat(call) = std::mem::replace(&mut self.pending, Pending::Decide) else {
            panic!("chat_done() while the episode waits for {:?}", self.pending);
        };
        let agent = call.agent.as_str();
        let (text, usage) = match outcome {
            ChatOutcome::Reply { text, usage } => (text, usage),
            ChatOutcome::Failed { message, fatal } => {
                self.post(agent, None, MessageKind::Error, message.clone(), now_ms);
                self.note(format!("the call failed: {message}"));
                self.summary.llm_calls += 1;
                if fatal {
                    return self.finish(message);
                }
                return self.settle_failed_call(now_ms);
            }
        };
        self.summary.llm_calls += 1;
        self.summary.usage.add(usage);
        if let Some(step) = self.steps.last_mut() {
            step.usage.add(usage);
        }
        match call.prompt_id.as_str() {
            "executive.search" => {
                self.hints = text.clone();
                self.executive.has_searched = true;
                self.post(agent, Some("debugger"), MessageKind::Feedback, text, now_ms);
                self.settle_executive(Some(ExecutiveRewards::default().search), now_ms);
            }
            "orchestrator.planner" => {
                self.plan = text.clone();
                self.orchestrator.has_plan = !text.trim().is_empty();
                self.post(agent, Some("coder"), MessageKind::Plan, text, now_ms);
                let reward = if self.orchestrator.has_plan { OrchestratorParams::default().reward_plan } else { 0.0 };
                self.settle_orchestrator(Some(reward), now_ms);
            }
            "orchestrator.tester" => {
                self.report = text.clone();
                self.post(agent, Some("debugger"), MessageKind::Feedback, text, now_ms);
                self.settle_orchestrator(Some(0.0), now_ms);
            }
            _ => self.take_code(agent, &call.prompt_id, &text, now_ms),
        }
    }

    /// A reply that should hold a program (generate, debug, coder, debugger).
    fn take_code(&mut self, agent: &str, prompt_id: &str, reply: &str, now_ms: f64) {
        let code = extract_code(reply);
        match &code {
            Some(code) => self.post(agent, Some("tester"), MessageKind::Code, code.clone(), now_ms),
            None => {
                let message =
                    format!("the {agent}'s reply has no Python code: {}", reply.chars().take(200).collect::<String>());
                self.post(agent, None, MessageKind::Error, message.clone(), now_ms);
                self.note(message);
            }
        }
        let got_code = code.is_some();
        if let Some(code) = code {
            self.code = code;
        }
        if let Some(step) = self.steps.last_mut() {
            step.code = self.code.clone();
        }
        let executive = ExecutiveRewards::default();
        let params = OrchestratorParams::default();
        match prompt_id {
            "executive.generate" => {
                self.executive.has_generated = true;
                self.settle_executive(Some(executive.generate), now_ms);
            }
            "executive.debug" => {
                self.executive.debug_count += 1;
                self.settle_executive(Some(executive.debug), now_ms);
            }
            "orchestrator.coder" => {
                let first = !self.orchestrator.has_code;
                if got_code {
                    self.orchestrator.has_code = true;
                    self.orchestrator.has_error = false;
                }
                self.settle_orchestrator(Some(if got_code && first { params.reward_code } else { 0.0 }), now_ms);
            }
            _ => {
                if got_code {
                    self.orchestrator.has_error = false;
                }
                self.settle_orchestrator(Some(if got_code { params.reward_fix } else { 0.0 }), now_ms);
            }
        }
    }

    /// Resumes the episode with the verdict of the test run it asked for.
    pub fn test_done(&mut self, verdict: ProgramVerdict, now_ms: f64) {
        assert!(matches!(self.pending, Pending::Test(_)), "test_done() while the episode waits for {:?}", self.pending);
        self.pending = Pending::Decide;
        self.summary.test_runs += 1;
        self.feedback = format!("Tests {}/{}", verdict.number_passed, verdict.total);
        self.report = test_report(&verdict);
        let receiver = if verdict.passed { "orchestrator" } else { "debugger" };
        self.post("tester", Some(receiver), MessageKind::TestResult, self.report.clone(), now_ms);
        let passed = verdict.passed;
        if let Some(step) = self.steps.last_mut() {
            step.verdict = Some(verdict);
        }
        match self.env {
            EnvId::Executive => {
                self.executive.test_count += 1;
                self.executive.last_test_passed = passed;
                let r = ExecutiveRewards::default();
                self.settle_executive(Some(if passed { r.test_pass } else { r.test_fail }), now_ms);
            }
            _ => {
                let params = OrchestratorParams::default();
                if passed {
                    self.orchestrator.tests_pass = true;
                    self.summary.success = true;
                    self.settle_orchestrator(Some(params.reward_success), now_ms);
                } else {
                    self.orchestrator.has_error = true;
                    // The tester agent's analysis of the failure goes to the debugger (seed 003 §2.1).
                    self.call("orchestrator.tester", "tester", &[]);
                }
            }
        }
    }

    /// Step accounting of seed 000's executive (`None`: illegal action).
    fn settle_executive(&mut self, action_reward: Option<f64>, now_ms: f64) {
        let r = ExecutiveRewards::default();
        let costs = StepCosts { step: r.step, invalid: r.invalid, step_limit: r.step_limit, max_steps: r.max_steps };
        let terminated = self.pending == Pending::Done;
        let (reward, truncated, _) = costs.settle(action_reward, false, self.steps.len() as u32, terminated);
        self.add_reward(reward);
        if truncated {
            self.finish(format!("reached the step limit of {}", r.max_steps));
        } else {
            self.next(now_ms);
        }
    }

    /// Step accounting of seed 003's orchestrator (`None`: redundant call). A tester step settles
    /// only after its analysis call, so it counts as one call.
    fn settle_orchestrator(&mut self, action_reward: Option<f64>, now_ms: f64) {
        let p = OrchestratorParams::default();
        self.orchestrator.iteration += 1;
        let mut reward = p.reward_step + action_reward.unwrap_or(p.reward_redundant);
        if self.orchestrator.tests_pass {
            self.add_reward(reward);
            return self.finish("tests pass".into());
        }
        if self.orchestrator.iteration >= p.max_iterations {
            reward += p.reward_timeout;
            self.add_reward(reward);
            return self.finish(format!("{} agent calls without passing tests", p.max_iterations));
        }
        self.add_reward(reward);
        self.next(now_ms);
    }

    fn settle_failed_call(&mut self, now_ms: f64) {
        match self.env {
            EnvId::Executive => self.settle_executive(Some(0.0), now_ms),
            _ => self.settle_orchestrator(Some(0.0), now_ms),
        }
    }

    fn add_reward(&mut self, reward: f64) {
        self.summary.episode_return += reward;
        if let Some(step) = self.steps.last_mut() {
            step.reward += reward;
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
        let action = match self.env {
            EnvId::Executive => {
                let flags = self.executive;
                const CHAIN: [usize; 4] = [executive::GENERATE, executive::TEST, executive::DEBUG, executive::TEST];
                if flags.last_test_passed {
                    executive::STOP
                } else {
                    CHAIN.get(self.steps.len()).copied().unwrap_or(executive::STOP)
                }
            }
            _ => fixed_pipeline::STAGES[self.steps.len().min(fixed_pipeline::STAGES.len() - 1)],
        };
        self.act(action, now_ms);
    }

    fn finish(&mut self, why: String) {
        self.pending = Pending::Done;
        self.summary.ended = why;
    }

    /// Ends the episode now: the user cancelled, or the host cannot go on (`reason` says why).
    pub fn end(&mut self, reason: &str, now_ms: f64) {
        if !self.is_done() {
            self.post("host", None, MessageKind::Error, reason.to_owned(), now_ms);
            self.finish(reason.to_owned());
        }
    }

    fn post(&mut self, sender: &str, receiver: Option<&str>, kind: MessageKind, content: String, time_ms: f64) {
        let receiver = receiver.map(str::to_owned);
        self.messages.push(BlackboardMessage { sender: sender.into(), receiver, kind, content, time_ms });
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

/// The offline stand-in for an LLM: the task's recorded programs, with seed 003's calibrated odds
/// for the orchestrator's coder and debugger, written as a model would (prose and a fenced block).
#[derive(Clone, Debug)]
pub struct SimulatedLlm {
    rng: RunRng,
    params: OrchestratorParams,
}

impl SimulatedLlm {
    pub fn new(seed: u64) -> Self {
        Self { rng: RunRng::seed_from_u64(seed), params: OrchestratorParams::default() }
    }

    /// The reply to `call` in `episode`, with its estimated token usage.
    pub fn reply(&mut self, episode: &LiveEpisode, call: &ChatCall) -> (String, Usage) {
        let task = &episode.task;
        let answers = &task.simulated;
        let p = self.params;
        let text = match call.prompt_id.as_str() {
            "executive.generate" => fenced(&answers.generate),
            "executive.debug" if episode.executive.has_searched => fenced(&answers.debug_after_search),
            "executive.debug" => fenced(&answers.debug),
            "executive.search" => "- Re-read the docstring: the failing tests show the edge cases it implies.\n- Prefer the standard library function for this operation over a hand-written loop.".to_owned(),
            "orchestrator.planner" => format!(
                "1. Read the signature and the docstring of `{}`.\n2. Handle the edge cases first.\n3. Implement the main computation.\n4. Return the result in the documented type.",
                task.id
            ),
            "orchestrator.coder" => {
                let odds = if episode.orchestrator.has_plan { p.coder_success_with_plan } else { p.coder_success_without_plan };
                fenced(if self.rng.random_bool(odds) { task.reference() } else { &answers.generate })
            }
            "orchestrator.tester" => format!("Analysis: the code does not meet the specification.\n{}", episode.report),
            _ => fenced(if self.rng.random_bool(p.debugger_fixes_error) { task.reference() } else { &episode.code }),
        };
        let usage = Usage::estimate(&call.messages, &text);
        (text, usage)
    }
}

fn fenced(code: &str) -> String {
    format!("Here is the code:\n\n```python\n{}\n```\n", code.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::{Outcome, TestResult};

    fn verdict(passed: bool, total: u32) -> ProgramVerdict {
        let request = ProgramRequest::with_statements("", &vec![String::new(); total as usize]);
        let outcome = if passed { Outcome::Pass } else { Outcome::FailedTest };
        let mut verdict = ProgramVerdict::from_host(&request, outcome, String::new(), 1.0);
        verdict.error = None;
        verdict.passed = passed;
        verdict.number_passed = if passed { total } else { total - 1 };
        let error = (!passed).then(|| "AssertionError".into());
        verdict.tests = vec![TestResult { test: "assert f(1) == 2".into(), passed, kind: None, error }];
        verdict
    }

    fn task() -> LiveTask {
        LiveTask::bundled().into_iter().find(|t| t.id == "task2_incorrect").unwrap()
    }

    fn reply(text: &str) -> ChatOutcome {
        ChatOutcome::Reply { text: text.into(), usage: Usage { prompt_tokens: 10, completion_tokens: 5 } }
    }

    /// Plays the episode with `decide` as the policy and `tests` as the verdicts, in order.
    fn play(
        episode: &mut LiveEpisode,
        decide: &mut dyn FnMut(&LiveEpisode) -> usize,
        mut tests: Vec<bool>,
        replies: &mut dyn FnMut(&ChatCall) -> ChatOutcome,
    ) {
        tests.reverse();
        for t in 0..50 {
            let now = f64::from(t);
            match episode.effect() {
                Effect::Decide => {
                    let action = decide(episode);
                    episode.act(action, now);
                }
                Effect::Chat(call) => {
                    let outcome = replies(&call.clone());
                    episode.chat_done(outcome, now);
                }
                Effect::Test(_) => episode.test_done(verdict(tests.pop().expect("a verdict"), 5), now),
                Effect::Done => return,
            }
        }
        panic!("the episode did not end");
    }

    #[test]
    fn an_executive_policy_generates_tests_debugs_and_stops_on_real_verdicts() {
        let mut episode = LiveEpisode::new(EnvId::Executive, Driver::Policy, task(), PromptSet::default()).unwrap();
        let mut script =
            vec![executive::GENERATE, executive::TEST, executive::DEBUG, executive::TEST, executive::STOP].into_iter();
        let mut prompts_seen = Vec::new();
        play(&mut episode, &mut |_| script.next().unwrap(), vec![false, true], &mut |call| {
            prompts_seen.push(call.prompt_id.clone());
            reply("```python\ndef find_max(nums):\n    return max(nums)\n```")
        });
        assert_eq!(prompts_seen, ["executive.generate", "executive.debug"]);
        let summary = episode.summary();
        assert!(summary.success, "{summary:?}");
        assert_eq!((summary.agent_calls, summary.llm_calls, summary.test_runs), (2, 2, 2));
        assert_eq!(summary.usage.total(), 30);
        // Seed 000's rewards: 5 steps at −0.1, generate +1, fail −1, debug +2, pass +1, stop +30.
        assert!((summary.episode_return - 32.5).abs() < 1e-9, "{}", summary.episode_return);
        let kinds: Vec<MessageKind> = episode.messages().iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [MessageKind::Task, MessageKind::Code, MessageKind::TestResult, MessageKind::Code, MessageKind::TestResult]
        );
        assert!(episode.messages()[2].content.contains("FAILED assert f(1) == 2: AssertionError"));
        assert_eq!(episode.steps()[1].verdict.as_ref().map(|v| v.passed), Some(false));
    }

    #[test]
    fn the_debug_prompt_carries_the_failing_code_and_report() {
        let mut episode = LiveEpisode::new(EnvId::Executive, Driver::Pipeline, task(), PromptSet::default()).unwrap();
        let mut debug_prompt = String::new();
        play(&mut episode, &mut |_| unreachable!("the pipeline decides"), vec![false, true], &mut |call| {
            if call.prompt_id == "executive.debug" {
                debug_prompt = call.messages[1].content.clone();
            }
            reply("```python\ndef find_max(nums):\n    return nums[0]\n```")
        });
        assert!(debug_prompt.contains("return nums[0]") && debug_prompt.contains("FAILED"), "{debug_prompt}");
        assert_eq!(
            episode.actions(),
            [executive::GENERATE, executive::TEST, executive::DEBUG, executive::TEST, executive::STOP]
        );
        assert!(episode.summary().success);
    }

    #[test]
    fn the_orchestrator_pipeline_and_a_learned_coder_first_policy_differ_in_calls() {
        let mut pipeline =
            LiveEpisode::new(EnvId::Orchestrator, Driver::Pipeline, task(), PromptSet::default()).unwrap();
        play(&mut pipeline, &mut |_| unreachable!(), vec![false, true], &mut |call| match call.agent.as_str() {
            "planner" => reply("1. use max"),
            "tester" => reply("nums[0] is not the maximum"),
            _ => reply("```python\ndef find_max(nums):\n    return max(nums)\n```"),
        });
        assert_eq!(pipeline.actions(), fixed_pipeline::STAGES);
        assert!(pipeline.summary().success);
        let summary = pipeline.summary();
        assert_eq!(summary.agent_calls, 5, "every stage is an agent call, as in training");
        assert_eq!(summary.llm_calls, 4, "planner, coder, tester's analysis, debugger; the retest needs no LLM");
        let senders: Vec<&str> = pipeline.messages().iter().map(|m| m.sender.as_str()).collect();
        assert_eq!(senders, ["user", "planner", "coder", "tester", "tester", "debugger", "tester"]);

        let mut learned = LiveEpisode::new(EnvId::Orchestrator, Driver::Policy, task(), PromptSet::default()).unwrap();
        let coder_then_tester =
            |e: &LiveEpisode| if e.orchestrator.has_code { orchestrator::TESTER } else { orchestrator::CODER };
        play(&mut learned, &mut { coder_then_tester }, vec![true], &mut |_| {
            reply("```python\ndef find_max(nums):\n    return max(nums)\n```")
        });
        assert_eq!(learned.actions(), [orchestrator::CODER, orchestrator::TESTER]);
        let summary = learned.summary();
        assert!(summary.success);
        assert_eq!((summary.agent_calls, summary.llm_calls), (2, 1));
        // −0.1 + 0.3 for the code, −0.1 + 10 for passing tests (seed 003's reward table).
        assert!((summary.episode_return - 10.1).abs() < 1e-9);
    }

    #[test]
    fn redundant_calls_time_out_and_failed_calls_keep_the_episode_going() {
        let mut episode = LiveEpisode::new(EnvId::Orchestrator, Driver::Policy, task(), PromptSet::default()).unwrap();
        let mut calls = 0;
        play(&mut episode, &mut |_| orchestrator::DEBUGGER, vec![], &mut |_| {
            calls += 1;
            reply("")
        });
        assert_eq!(calls, 0, "a debugger with no error to fix makes no call");
        assert!(!episode.summary().success);
        assert_eq!(episode.summary().ended, "5 agent calls without passing tests");

        let mut episode = LiveEpisode::new(EnvId::Orchestrator, Driver::Policy, task(), PromptSet::default()).unwrap();
        let mut first = true;
        play(
            &mut episode,
            &mut |e| if e.orchestrator.has_code { orchestrator::TESTER } else { orchestrator::CODER },
            vec![true],
            &mut |_| {
                if std::mem::take(&mut first) {
                    ChatOutcome::Failed { message: "HTTP 503: the server failed.".into(), fatal: false }
                } else {
                    reply("def find_max(nums):\n    return max(nums)")
                }
            },
        );
        assert!(episode.summary().success, "the run goes on after a failed call");
        assert_eq!(episode.actions(), [orchestrator::CODER, orchestrator::CODER, orchestrator::TESTER]);
        assert_eq!(episode.messages()[1].kind, MessageKind::Error);

        let mut episode = LiveEpisode::new(EnvId::Executive, Driver::Pipeline, task(), PromptSet::default()).unwrap();
        play(&mut episode, &mut |_| unreachable!(), vec![], &mut |_| ChatOutcome::Failed {
            message: "HTTP 401".into(),
            fatal: true,
        });
        assert_eq!(episode.summary().ended, "HTTP 401");
        assert_eq!(episode.steps().len(), 1);
    }

    #[test]
    fn a_reply_without_code_is_an_error_on_the_blackboard() {
        let mut episode = LiveEpisode::new(EnvId::Executive, Driver::Pipeline, task(), PromptSet::default()).unwrap();
        play(&mut episode, &mut |_| unreachable!(), vec![false, false], &mut |_| reply("Sorry, I can't."));
        let error = episode.messages().iter().find(|m| m.kind == MessageKind::Error).unwrap();
        assert!(error.content.starts_with("the generator's reply has no Python code: Sorry"), "{}", error.content);
        assert!(!episode.summary().success);
    }

    #[test]
    fn illegal_actions_are_charged_and_the_step_limit_ends_the_episode() {
        let mut episode = LiveEpisode::new(EnvId::Executive, Driver::Policy, task(), PromptSet::default()).unwrap();
        // Stop is masked until a test passed: each one is charged as illegal, up to the step limit.
        play(&mut episode, &mut |_| executive::STOP, vec![], &mut |_| unreachable!());
        let summary = episode.summary();
        assert!(!summary.success);
        assert_eq!(summary.ended, "reached the step limit of 10");
        assert!(episode.steps().iter().all(|s| s.note.is_some()));
    }

    #[test]
    fn the_simulated_llm_answers_with_the_recorded_programs() {
        for task in LiveTask::bundled() {
            let mut episode =
                LiveEpisode::new(EnvId::Executive, Driver::Pipeline, task.clone(), PromptSet::default()).unwrap();
            let mut llm = SimulatedLlm::new(1);
            for t in 0..30 {
                match episode.effect() {
                    Effect::Chat(call) => {
                        let call = call.clone();
                        let (text, usage) = llm.reply(&episode, &call);
                        episode.chat_done(ChatOutcome::Reply { text, usage }, f64::from(t));
                    }
                    Effect::Test(request) => {
                        // The recorded verdict of whichever recorded program was written.
                        let passed = request.code.trim() == task.reference().trim();
                        episode.test_done(verdict(passed, 5), f64::from(t));
                    }
                    Effect::Decide => unreachable!(),
                    Effect::Done => break,
                }
            }
            assert!(episode.is_done());
            assert!(episode.summary().usage.total() > 0);
            assert_eq!(episode.steps()[0].code.trim(), task.simulated.generate.trim(), "{}", task.id);
        }
    }

    #[test]
    fn a_trained_orchestrator_policy_decides_live_states_and_refuses_foreign_ones() {
        use crate::{AgentId, RunSpec};
        let mut run = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 5000)).unwrap();
        while run.train_episode().is_some() {}
        run.stop();
        let mut episode = LiveEpisode::new(EnvId::Orchestrator, Driver::Policy, task(), PromptSet::default()).unwrap();
        // Seed 003's headline: the learned policy calls the coder first, then the tester.
        assert_eq!(decide(&run, &episode.live_state()), Ok(orchestrator::CODER));
        episode.act(orchestrator::CODER, 0.0);
        episode.chat_done(reply("```python\ndef find_max(nums):\n    return max(nums)\n```"), 1.0);
        assert_eq!(decide(&run, &episode.live_state()), Ok(orchestrator::TESTER));
        let executive = LiveEpisode::new(EnvId::Executive, Driver::Policy, task(), PromptSet::default()).unwrap();
        assert!(decide(&run, &executive.live_state()).unwrap_err().contains("orchestrator"));
    }

    #[test]
    fn episodes_refuse_other_environments_and_tasks_without_tests() {
        assert!(
            LiveEpisode::new(EnvId::Planner, Driver::Policy, task(), PromptSet::default())
                .unwrap_err()
                .contains("planner")
        );
        let mut untested = task();
        untested.tests.clear();
        assert!(
            LiveEpisode::new(EnvId::Executive, Driver::Policy, untested, PromptSet::default())
                .unwrap_err()
                .contains("no tests")
        );
    }
}
