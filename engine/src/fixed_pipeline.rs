//! The baseline of seed 003 §5.3: a fixed pipeline that calls planner → coder → tester → debugger →
//! tester on every task, whatever the results, against which the learned policy's agent calls are
//! compared.
//!
//! A fixed pipeline does not look at results, so it always makes all five calls. The environment
//! ends the episode as soon as tests pass; the pipeline's remaining calls then change nothing, and
//! each is counted as an agent call and charged as a redundant call (step cost + redundant
//! penalty). The seed reports 23 calls on 5 real tasks (4.6 per task): between this pipeline's 5
//! and the 4 of a pipeline that would skip the retest when the first test passed.

use crate::env::orchestrator::{OrchestratorEnv, PIPELINE};
use crate::env::{EnvId, Environment};
use crate::rng::evaluation_rng;
use crate::run::{EpisodeOutcome, Evaluation};

/// Runs the pipeline for one episode of `env` started with `seed`.
pub fn run_episode(env: &mut OrchestratorEnv, seed: u64) -> EpisodeOutcome {
    env.reset(seed);
    let params = *env.params();
    let mut outcome = EpisodeOutcome::default();
    let mut ended = false;
    for action in PIPELINE {
        let reward = if ended {
            params.reward_step + params.reward_redundant
        } else {
            let step = env.step(action);
            ended = step.done();
            outcome.success |= step.info.success;
            step.reward
        };
        outcome.record(action, reward, true, false);
    }
    outcome
}

/// The environment this pipeline is the baseline of.
pub const ENV: EnvId = EnvId::Orchestrator;

/// The pipeline on `episodes` fresh episodes of the default orchestrator, drawn from the same
/// evaluation stream as [`Run::evaluate_greedy`](crate::Run::evaluate_greedy) with `seed`, so both
/// policies meet the same episodes.
pub fn evaluate(seed: u64, episodes: u32) -> Evaluation {
    let mut env = OrchestratorEnv::default();
    let mut rng = evaluation_rng(seed);
    Evaluation::of((0..episodes).map(|_| run_episode(&mut env, rand::RngCore::next_u64(&mut rng))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::orchestrator::OrchestratorParams;

    #[test]
    fn always_five_calls_and_charges_calls_after_success() {
        let certain =
            OrchestratorParams { planner_success: 1.0, coder_success_with_plan: 1.0, ..OrchestratorParams::default() };
        let outcome = run_episode(&mut OrchestratorEnv::new(certain), 0);
        assert!(outcome.success);
        assert_eq!(outcome.agent_calls, 5);
        assert_eq!(outcome.actions, PIPELINE.map(|a| a as u8));
        // plan 0.1, code 0.2, tests pass 9.9, then two redundant calls of -0.3.
        assert!((outcome.episode_return - (0.1 + 0.2 + 9.9 - 0.6)).abs() < 1e-9, "{}", outcome.episode_return);
    }
}
