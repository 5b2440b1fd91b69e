//! Seed 003 §5.2 and §5.3: the learned policy validated on real tasks and compared with the fixed
//! pipeline. For each task in turn, the trained policy plays one live episode and the fixed
//! pipeline another, with the same LLM and prompts; the table then gives, per task and driver,
//! success, steps and actions, and for each driver the success rate and the total agent calls,
//! with the change from the pipeline's total to the policy's (the seed: 23 → 10, −56.5%).
//!
//! A [`Validation`] is [`Effectful`] like the episodes it plays, so any host drives it.

use std::collections::VecDeque;

use serde::Serialize;

use super::{Driver, LiveEpisode, LiveSummary, LiveTask};
use crate::effects::{ChatOutcome, Effectful, Need};
use crate::env::EnvSpec;
use crate::prompts::PromptSet;
use crate::python::ProgramVerdict;
use crate::rng::RunRng;

/// The policy and the pipeline on every task of a set, one episode after the other.
#[derive(Clone, Debug)]
pub struct Validation {
    /// Episodes still to play, the one under way first.
    queue: VecDeque<LiveEpisode>,
    finished: Vec<LiveEpisode>,
}

/// One finished episode of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidationRow {
    pub task: String,
    pub driver: Driver,
    pub success: bool,
    /// Actions taken (seed 003's "Steps").
    pub steps: usize,
    pub actions: Vec<&'static str>,
    #[serde(flatten)]
    pub summary: LiveSummary,
}

/// One driver's totals over the tasks both drivers finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DriverTotals {
    pub tasks: usize,
    pub successes: usize,
    pub agent_calls: u32,
    /// Successes whose program failed a test held out from the LLM ("special-cased?").
    pub special_cased: usize,
}

impl DriverTotals {
    pub fn success_rate(&self) -> f64 {
        if self.tasks == 0 { 0.0 } else { self.successes as f64 / self.tasks as f64 }
    }
}

/// Seed 003's tables of §5.2 and §5.3.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidationTable {
    pub rows: Vec<ValidationRow>,
    pub policy: DriverTotals,
    pub pipeline: DriverTotals,
    /// (policy's agent calls − pipeline's) / pipeline's, in percent (`None` before a task is
    /// finished by both, or when the pipeline made no call).
    pub change_in_agent_calls: Option<f64>,
}

impl Validation {
    /// Both drivers on every task, under `env` (the trained run's environment and parameters).
    pub fn new(env: &EnvSpec, tasks: Vec<LiveTask>, prompts: &PromptSet) -> Result<Self, String> {
        if tasks.is_empty() {
            return Err("there is no task to validate on".into());
        }
        let mut queue = VecDeque::new();
        for task in tasks {
            for driver in [Driver::Policy, Driver::Pipeline] {
                queue.push_back(LiveEpisode::new(env, driver, task.clone(), prompts.clone())?);
            }
        }
        Ok(Self { queue, finished: Vec::new() })
    }

    /// Has the offline LLM write with odds of its own in every episode ([`LiveEpisode::with_llm_odds`]).
    pub fn with_llm_odds(mut self, settings: &[String]) -> Result<Self, String> {
        self.queue = self.queue.into_iter().map(|e| e.with_llm_odds(settings)).collect::<Result<_, _>>()?;
        Ok(self)
    }

    /// The episode under way, or the last one once all are over.
    pub fn current(&self) -> Option<&LiveEpisode> {
        self.queue.front().or(self.finished.last())
    }

    pub fn finished(&self) -> &[LiveEpisode] {
        &self.finished
    }

    pub fn is_done(&self) -> bool {
        self.queue.is_empty()
    }

    /// Moves finished episodes out of the queue, so the next need is the next episode's. A failure
    /// of the LLM that would end every episode ends the validation.
    fn advance(&mut self) {
        while let Some(episode) = self.queue.pop_front_if(|e| e.is_done()) {
            let fatal = episode.ended_by_fatal_failure();
            self.finished.push(episode);
            if fatal {
                self.queue.clear();
            }
        }
    }

    fn current_mut(&mut self) -> &mut LiveEpisode {
        self.queue.front_mut().expect("a resumed validation has an episode under way")
    }

    pub fn table(&self) -> ValidationTable {
        let rows: Vec<ValidationRow> = self
            .finished
            .iter()
            .map(|episode| {
                let names = episode.env().action_names();
                ValidationRow {
                    task: episode.task().id.clone(),
                    driver: episode.driver(),
                    success: episode.summary().success,
                    steps: episode.steps().len(),
                    actions: episode.actions().into_iter().map(|a| names[a]).collect(),
                    summary: episode.summary().clone(),
                }
            })
            .collect();
        let (mut policy, mut pipeline) = (DriverTotals::default(), DriverTotals::default());
        // Episodes come in pairs, the policy's first: a task counts once both are over.
        for pair in rows.chunks_exact(2) {
            for (totals, row) in [(&mut policy, &pair[0]), (&mut pipeline, &pair[1])] {
                totals.tasks += 1;
                totals.successes += usize::from(row.success);
                totals.agent_calls += row.summary.agent_calls;
                totals.special_cased += usize::from(row.summary.special_cased().is_some());
            }
        }
        let change_in_agent_calls = (pipeline.agent_calls > 0).then(|| {
            (f64::from(policy.agent_calls) - f64::from(pipeline.agent_calls)) / f64::from(pipeline.agent_calls) * 100.0
        });
        ValidationTable { rows, policy, pipeline, change_in_agent_calls }
    }
}

impl Effectful for Validation {
    fn need(&self) -> Need<'_> {
        self.queue.front().map_or(Need::Done, Effectful::need)
    }

    fn decided(&mut self, action: usize, now_ms: f64) {
        self.current_mut().decided(action, now_ms);
        self.advance();
    }

    fn chat_done(&mut self, outcome: ChatOutcome, now_ms: f64) {
        self.current_mut().chat_done(outcome, now_ms);
        self.advance();
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        self.current_mut().python_done(verdicts, now_ms);
        self.advance();
    }

    /// Ends the episode under way and drops the ones not started: the table keeps what was played.
    fn end(&mut self, reason: &str, now_ms: f64) {
        if let Some(episode) = self.queue.front_mut() {
            episode.end(reason, now_ms);
        }
        self.advance();
        self.queue.clear();
    }

    fn offline_reply(&self, rng: &mut RunRng) -> String {
        self.queue.front().map(|episode| episode.offline_reply(rng)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EnvId;
    use crate::calibration::Calibration;
    use crate::effects::OfflineLlm;
    use crate::env::orchestrator::{self, OrchestratorParams, OrchestratorState};
    use crate::llm::{FailureKind, LlmFailure, Usage};
    use crate::python::{Outcome, ProgramRequest};

    /// The verdict real Python gives the bundled programs: the reference passes, anything else fails.
    fn verdict(request: &ProgramRequest, task: &LiveTask) -> ProgramVerdict {
        let passed = request.code.trim() == task.reference().trim();
        let outcome = if passed { Outcome::Pass } else { Outcome::FailedTest };
        let mut verdict = ProgramVerdict::from_host(request, outcome, String::new(), 1.0);
        verdict.passed = passed;
        verdict
    }

    /// What seed 003's learned policy does: code, test, debug what the tests found.
    fn code_then_test(state: usize) -> usize {
        let state = OrchestratorState::from_index(state);
        match (state.has_code, state.has_error) {
            (false, _) => orchestrator::CODER,
            (true, false) => orchestrator::TESTER,
            (true, true) => orchestrator::DEBUGGER,
        }
    }

    /// Drives `validation`; `reply` answers each call given the task under way and the agent.
    fn drive(validation: &mut Validation, reply: &mut dyn FnMut(&LiveTask, &str) -> String) {
        for t in 0..500 {
            let now = f64::from(t);
            let task = validation.current().unwrap().task().clone();
            match validation.need() {
                Need::Compute => unreachable!("no work of its own"),
                Need::Done => return,
                Need::Decide(state) => validation.decided(code_then_test(state.state), now),
                Need::Chat(call) => {
                    let text = reply(&task, &call.agent);
                    validation.chat_done(ChatOutcome::Reply { text, usage: Usage::default() }, now);
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    let verdict = verdict(request, &task);
                    validation.python_done(vec![verdict], now);
                }
            }
        }
        panic!("the validation did not end");
    }

    fn fenced(code: &str) -> String {
        format!("```python\n{code}```")
    }

    #[test]
    fn an_llm_that_always_writes_correct_code_gives_the_seeds_table_for_its_policy() {
        let spec = EnvId::Orchestrator.default_spec();
        let mut validation = Validation::new(&spec, LiveTask::seed003(), &PromptSet::default()).unwrap();
        drive(&mut validation, &mut |task, agent| {
            if agent == "planner" { "1. Add them.".into() } else { fenced(task.reference()) }
        });
        let table = validation.table();
        assert_eq!(table.rows.len(), 10);
        for pair in table.rows.chunks(2) {
            assert_eq!(pair[0].task, pair[1].task);
            assert_eq!((pair[0].driver, pair[0].success, pair[0].steps), (Driver::Policy, true, 2));
            assert_eq!(pair[0].actions, ["coder", "tester"]);
            assert_eq!((pair[1].driver, pair[1].success, pair[1].steps), (Driver::Pipeline, true, 3));
            assert_eq!(pair[1].actions, ["planner", "coder", "tester"]);
        }
        assert_eq!(table.policy, DriverTotals { tasks: 5, successes: 5, agent_calls: 10, special_cased: 0 });
        assert_eq!(table.pipeline, DriverTotals { tasks: 5, successes: 5, agent_calls: 15, special_cased: 0 });
        // (10 − 15) / 15.
        assert!((table.change_in_agent_calls.unwrap() + 100.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_coder_wrong_on_every_other_call_is_counted_exactly_and_calibrates_the_odds() {
        // The coder's 1st, 3rd, … programs are the faulty drafts: each policy episode's (it codes
        // first, without a plan), never the pipeline's (it plans first). The debugger always fixes.
        let spec = EnvId::Orchestrator.default_spec();
        let mut validation = Validation::new(&spec, LiveTask::seed003(), &PromptSet::default()).unwrap();
        let mut coder_calls = 0;
        drive(&mut validation, &mut |task, agent| match agent {
            "planner" => "1. Do it.".into(),
            "tester" => "The tests fail.".into(),
            "coder" => {
                coder_calls += 1;
                fenced(if coder_calls % 2 == 1 { &task.offline.generate } else { task.reference() })
            }
            _ => fenced(task.reference()),
        });
        let table = validation.table();
        for row in table.rows.iter().filter(|r| r.driver == Driver::Policy) {
            assert_eq!(row.actions, ["coder", "tester", "debugger", "tester"], "{}", row.task);
        }
        assert_eq!((table.policy.successes, table.policy.agent_calls), (5, 20));
        assert_eq!((table.pipeline.successes, table.pipeline.agent_calls), (5, 15));

        let trials: Vec<_> = validation.finished().iter().flat_map(LiveEpisode::trials).collect();
        let calibration = Calibration::new(&spec, &trials).unwrap();
        let counts: Vec<_> = calibration.estimates.iter().map(|e| (e.odds, e.happened, e.trials, e.mean)).collect();
        assert_eq!(
            counts,
            [
                ("planner_success", 5, 5, Some(0.857)),
                ("coder_success_with_plan", 5, 5, Some(0.857)),
                ("coder_success_without_plan", 0, 5, Some(0.143)),
                ("tester_finds_error", 5, 5, Some(0.857)),
                ("debugger_fixes_error", 5, 5, Some(0.857)),
            ]
        );
        let EnvSpec::Orchestrator(calibrated) = calibration.calibrated(&spec).unwrap() else { unreachable!() };
        assert_eq!(calibrated.coder_success_without_plan, 0.143);
        assert_eq!(calibrated.reward_success, OrchestratorParams::default().reward_success);
    }

    #[test]
    fn calibrating_from_the_simulated_llm_recovers_its_odds_except_the_testers() {
        // The offline LLM plans, codes and debugs with the spec's odds, so live episodes calibrate
        // back to them; the tester runs the real tests, so every bug is caught.
        let odds = OrchestratorParams {
            planner_success: 0.7,
            coder_success_with_plan: 0.8,
            coder_success_without_plan: 0.5,
            debugger_fixes_error: 0.6,
            ..OrchestratorParams::default()
        };
        let spec = EnvSpec::Orchestrator(odds);
        let tasks: Vec<LiveTask> = (0..60).flat_map(|_| LiveTask::seed003()).collect();
        let mut validation = Validation::new(&spec, tasks, &PromptSet::default()).unwrap();
        let mut llm = OfflineLlm::new(7);
        for t in 0..100_000 {
            let now = f64::from(t);
            match validation.need() {
                Need::Compute => unreachable!("no work of its own"),
                Need::Done => break,
                Need::Decide(state) => validation.decided(code_then_test(state.state), now),
                Need::Chat(_) => {
                    let outcome = llm.reply(&validation);
                    validation.chat_done(outcome, now);
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    let verdict = verdict(request, validation.current().unwrap().task());
                    validation.python_done(vec![verdict], now);
                }
            }
        }
        assert!(validation.is_done());
        let trials: Vec<_> = validation.finished().iter().flat_map(LiveEpisode::trials).collect();
        let calibration = Calibration::new(&spec, &trials).unwrap();
        for estimate in &calibration.estimates {
            let mean = estimate.mean.unwrap();
            assert!(estimate.trials >= 100, "{estimate:?}");
            if estimate.odds == orchestrator::TESTER_FINDS_ERROR {
                assert_eq!(estimate.happened, estimate.trials);
            } else {
                assert!((mean - estimate.current).abs() < 0.06, "{estimate:?}");
                let (low, high) = estimate.interval.unwrap();
                assert!(low < mean && mean < high && high - low < 0.25, "{estimate:?}");
            }
        }
    }

    #[test]
    fn ending_keeps_what_was_played_and_drops_the_rest() {
        let spec = EnvId::Orchestrator.default_spec();
        let mut validation = Validation::new(&spec, LiveTask::seed003(), &PromptSet::default()).unwrap();
        validation.decided(orchestrator::CODER, 0.0);
        validation.end("cancelled", 1.0);
        assert!(validation.is_done() && matches!(validation.need(), Need::Done));
        let table = validation.table();
        assert_eq!(table.rows.len(), 1);
        assert_eq!(table.rows[0].summary.ended, "cancelled");
        assert_eq!((table.policy.tasks, table.change_in_agent_calls), (0, None));
        assert!(Validation::new(&spec, Vec::new(), &PromptSet::default()).is_err());
    }

    #[test]
    fn a_refused_key_ends_the_validation_after_one_episode() {
        let spec = EnvId::Orchestrator.default_spec();
        let mut validation = Validation::new(&spec, LiveTask::seed003(), &PromptSet::default()).unwrap();
        validation.decided(orchestrator::CODER, 0.0);
        let refused = LlmFailure::new(FailureKind::Auth, "HTTP 401: the key was refused");
        validation.chat_done(ChatOutcome::Failed(refused), 1.0);
        assert!(validation.is_done());
        assert_eq!(validation.table().rows.len(), 1);
        assert_eq!(validation.table().rows[0].summary.ended, "HTTP 401: the key was refused");
    }
}
