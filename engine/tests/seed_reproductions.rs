//! The headline numbers of the seed reports, reproduced with fixed seeds.

use engine::env::ExecutiveEnv;
use engine::env::executive::{DEBUG, GENERATE, SEARCH, STOP, TEST};
use engine::env::orchestrator::{CODER, OrchestratorState, TESTER};
use engine::run::Evaluation;
use engine::{Agent, AgentId, EnvId, Environment, Observation, Run, RunSpec};

fn trained(env: EnvId, agent: AgentId, seed: u64, episodes: u32) -> Run {
    let mut run = Run::new(RunSpec::new(env, agent, seed, episodes)).unwrap();
    run.by_ref().for_each(drop);
    run
}

/// Seed 003's fixed pipeline on the episodes the greedy evaluation of a run of `seed` meets.
fn fixed_pipeline_evaluation(seed: u64, episodes: u32) -> Evaluation {
    let untrained = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, seed, 1)).unwrap();
    untrained.evaluate_baseline(episodes).expect("the orchestrator has a baseline")
}

struct OrchestratorOutcome {
    coder_first: bool,
    learned: Evaluation,
    fixed: Evaluation,
    run: Run,
}

fn orchestrator_outcome(agent: AgentId, seed: u64) -> OrchestratorOutcome {
    let run = trained(EnvId::Orchestrator, agent, seed, 5000);
    let initial =
        Observation { state: OrchestratorState::default().index(), mask: OrchestratorState::default().mask() };
    OrchestratorOutcome {
        coder_first: run.agent().greedy(initial, &[]) == CODER,
        learned: run.evaluate_greedy(1000),
        fixed: fixed_pipeline_evaluation(seed, 1000),
        run,
    }
}

/// Seed 003 §5 with the CLI's example seed: after 5000 episodes the learned policy goes straight to
/// the coder, succeeds as often as the fixed pipeline and needs less than half its agent calls.
#[test]
fn orchestrator_q_learning_skips_planning_and_halves_agent_calls() {
    let OrchestratorOutcome { coder_first, learned, fixed, run } = orchestrator_outcome(AgentId::QLearning, 1);
    let initial = Observation { state: 0, mask: OrchestratorState::default().mask() };
    let q = run.agent().action_values(initial, &[]);
    assert!(coder_first, "Q(s0) = {q:?}");
    // Seed 003 §6.1 reports Q(s0, coder) = 8.0; the true value here is 9.36 (value iteration).
    assert!((7.5..=10.5).contains(&q[CODER]), "Q(s0) = {q:?}");
    assert!(learned.success_rate >= 0.95, "greedy success {}", learned.success_rate);
    assert!(learned.success_rate >= fixed.success_rate - 0.02, "learned {learned:?} vs fixed {fixed:?}");
    assert!(learned.mean_agent_calls <= 0.5 * fixed.mean_agent_calls, "learned {learned:?} vs fixed {fixed:?}");
    assert!(run.summary().success_last100 >= 0.9, "{:?}", run.summary());
    // The episode tree shows the shortcut: most episodes go coder -> tester.
    assert_eq!(run.tree().dominant_path(), [CODER as u8, TESTER as u8]);
}

/// Across seeds, for plain Q-learning and for seed 003's own method (Q-learning with Thompson
/// sampling, `q-thompson`): every run reaches the seed's success, and most find the coder-first
/// shortcut (the rest plan first: see the note on `QLearning` about how close the two openings are).
#[test]
fn orchestrator_agents_are_robust_across_seeds() {
    for agent in [AgentId::QLearning, AgentId::QThompson] {
        let mut shortcut_seeds = 0;
        for seed in 1..=20 {
            let OrchestratorOutcome { coder_first, learned, fixed, .. } = orchestrator_outcome(agent, seed);
            assert!(learned.success_rate >= 0.95, "{agent:?} seed {seed}: greedy success {}", learned.success_rate);
            assert!(
                learned.success_rate >= fixed.success_rate - 0.02,
                "{agent:?} seed {seed}: {learned:?} vs {fixed:?}"
            );
            if coder_first && learned.mean_agent_calls <= 0.5 * fixed.mean_agent_calls {
                shortcut_seeds += 1;
            }
        }
        // Measured: 17 of 20 for Q-learning, 18 of 20 for q-thompson.
        assert!(
            shortcut_seeds >= 16,
            "{agent:?}: only {shortcut_seeds} of 20 seeds learned coder first with half the calls"
        );
    }
}

/// Seed 003's training table (§5.1: final success 97%, average reward 9.70, convergence near
/// episode 500) over seeds 1–20, for both learners. The statistics, read at episode 5000: success
/// and mean return over the last 100 training episodes; convergence is the first episode at which
/// success over the last 100 reaches 90%. Measured: success 95–100% (mean 98.0% Q-learning, 98.2%
/// q-thompson), return 9.32–10.17 (means 9.81 and 9.82), convergence at episode 100, the first
/// full window, in 39 of the 40 runs and at 102 in the other (docs/reproductions.md says why this
/// is earlier than the seed's).
#[test]
fn orchestrator_training_table_over_seeds_1_to_20() {
    for agent in [AgentId::QLearning, AgentId::QThompson] {
        let (mut success_sum, mut return_sum) = (0.0, 0.0);
        for seed in 1..=20 {
            let records: Vec<_> = Run::new(RunSpec::new(EnvId::Orchestrator, agent, seed, 5000)).unwrap().collect();
            let last = records.last().unwrap();
            assert!((0.93..=1.0).contains(&last.success_last100), "{agent:?} seed {seed}: {last:?}");
            assert!((9.0..=10.5).contains(&last.mean_return_last100), "{agent:?} seed {seed}: {last:?}");
            let converged = records.iter().find(|r| r.episode >= 99 && r.success_last100 >= 0.9).map(|r| r.episode + 1);
            assert!(converged.is_some_and(|e| e <= 500), "{agent:?} seed {seed}: converged at {converged:?}");
            (success_sum, return_sum) = (success_sum + last.success_last100, return_sum + last.mean_return_last100);
        }
        let (success, mean_return) = (success_sum / 20.0, return_sum / 20.0);
        assert!((0.96..=0.99).contains(&success), "{agent:?}: mean final success {success} (seed 003: 0.97)");
        assert!((9.5..=10.0).contains(&mean_return), "{agent:?}: mean final return {mean_return} (seed 003: 9.70)");
    }
}

/// The fixed pipeline makes its five calls whatever happens, so its success is worked out by hand
/// from the odds: the code is correct with 0.95·0.85 + 0.05·0.60 = 0.8375; wrong code passes the
/// tests anyway with 0.6, or is caught and then fixed and retested with 0.4·0.7, so success is
/// 0.8375 + 0.1625·(0.6 + 0.28) = 0.9805.
#[test]
fn fixed_pipeline_success_matches_the_odds() {
    let fixed = fixed_pipeline_evaluation(7, 5000);
    // Three standard deviations of a 5000-episode estimate: 3·√(0.98·0.02/5000) = 0.006.
    assert!((fixed.success_rate - 0.9805).abs() <= 0.006, "{fixed:?}");
}

/// Seed 000 §3.2: the agent learns every task's canonical trajectory from the flags alone.
#[test]
fn tabular_agents_solve_all_three_executive_tasks_greedily() {
    let canonical: [(&str, &[usize]); 3] = [
        ("task1_correct", &[GENERATE, TEST, STOP]),
        ("task2_incorrect", &[GENERATE, TEST, DEBUG, TEST, STOP]),
        ("task3_search", &[GENERATE, TEST, DEBUG, TEST, SEARCH, DEBUG, TEST, STOP]),
    ];
    for agent in [AgentId::QLearning, AgentId::QThompson] {
        let run = trained(EnvId::Executive, agent, 1, 2000);
        assert_eq!(run.evaluate_greedy(300).success_rate, 1.0, "{agent:?}");
        for (task, path) in canonical {
            let index = ExecutiveEnv::default().info().tasks.iter().position(|t| t == task).unwrap();
            let episode = run.greedy_episode(index, 0);
            assert!(episode.success, "{agent:?} failed {task} with {:?}", episode.actions);
            assert_eq!(episode.actions, path.iter().map(|&a| a as u8).collect::<Vec<_>>(), "{agent:?} on {task}");
        }
    }
}

/// Seed 000 §7: the planner's one episode, learned by a tabular agent.
#[test]
fn tabular_agent_learns_the_planner_sequence() {
    let run = trained(EnvId::Planner, AgentId::QLearning, 1, 1000);
    assert_eq!(run.evaluate_greedy(10).success_rate, 1.0);
    assert_eq!(run.tree().dominant_path(), vec![0, 1, 2, 3, 4]);
}

/// Thompson sampling alone learns from immediate rewards only; it still finds the orchestrator's
/// rewarding tester call once code exists.
#[test]
fn thompson_sampling_learns_the_orchestrator() {
    let run = trained(EnvId::Orchestrator, AgentId::ThompsonSampling, 1, 5000);
    let greedy = run.evaluate_greedy(1000);
    assert!(greedy.success_rate >= 0.9, "{greedy:?}");
}

/// Runs are values: the same spec gives bit-identical records, another seed different ones.
#[test]
fn same_spec_same_records() {
    for env in EnvId::ALL.into_iter().filter(|e| e.discrete_states()) {
        for agent in [AgentId::QLearning, AgentId::ThompsonSampling, AgentId::QThompson] {
            let spec = RunSpec::new(env, agent, 42, 300);
            let a: Vec<_> = Run::new(spec.clone()).unwrap().collect();
            let b: Vec<_> = Run::new(spec.clone()).unwrap().collect();
            assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap(), "{env:?} {agent:?}");
            let other: Vec<_> = Run::new(RunSpec { seed: 43, ..spec }).unwrap().collect();
            if env != EnvId::Planner {
                assert_ne!(a, other, "{env:?} {agent:?}: the seed changed nothing");
            }
        }
    }
}
