use super::*;
use crate::device::completed;

/// The browser must train the same run bit for bit: `e2e/page.spec.mjs` opens this spec as a
/// share link and expects the page (engine in wasm) to show the same fingerprint.
const ORCHESTRATOR_SEED_7_300: &str = "5e91bdbdb8c1afe8";

#[test]
fn fingerprint_of_a_reference_run_is_pinned() {
    let run = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 7, 300)).unwrap();
    let records: Vec<_> = run.collect();
    assert_eq!(fingerprint(&records), ORCHESTRATOR_SEED_7_300);
    assert_ne!(fingerprint(&records[..299]), ORCHESTRATOR_SEED_7_300);
}

fn recorded() -> Vec<crate::env::tasks::MeasuredVerdict> {
    crate::env::tasks::executive_programs().iter().map(|p| p.measured(p.recorded)).collect()
}

fn with_verdicts(spec: &RunSpec, measured: Vec<crate::env::tasks::MeasuredVerdict>) -> RunSpec {
    let mut spec = spec.clone();
    spec.env.set_measured_verdicts(Some(measured)).unwrap();
    spec
}

#[test]
fn measured_verdicts_drive_the_executive_test_action() {
    let spec = RunSpec::new(EnvId::Executive, AgentId::QLearning, 3, 200);
    let plain: Vec<_> = Run::new(spec.clone()).unwrap().collect();
    let same: Vec<_> = Run::new(with_verdicts(&spec, recorded())).unwrap().collect();
    assert_eq!(fingerprint(&plain), fingerprint(&same), "verdicts equal to the recorded ones change nothing");

    // Python saying that every program passes makes the environment a different one.
    let mut all_pass = recorded();
    for m in &mut all_pass {
        m.verdict.passed = true;
        m.verdict.number_passed = m.verdict.total;
    }
    let changed_spec = with_verdicts(&spec, all_pass);
    let changed: Vec<_> = Run::new(changed_spec.clone()).unwrap().collect();
    assert_ne!(fingerprint(&plain), fingerprint(&changed));

    // The verdicts are part of the spec: through JSON (an export, a stored run) the run is the same.
    let json = serde_json::to_string(&changed_spec).unwrap();
    let again: Vec<_> = Run::new(serde_json::from_str(&json).unwrap()).unwrap().collect();
    assert_eq!(fingerprint(&again), fingerprint(&changed));
}

#[test]
fn environment_parameters_change_the_run() {
    let trained = |spec: RunSpec| {
        let mut run = Run::new(spec).unwrap();
        run.by_ref().for_each(drop);
        run.summary()
    };
    let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 3, 300);
    let plain = trained(spec.clone());
    let mut easier = spec.clone();
    easier.env =
        crate::params::apply(&spec.env, &["coder_success_without_plan=1".into(), "reward_success=20".into()]).unwrap();
    let easy = trained(easier);
    assert!(easy.mean_return > plain.mean_return + 5.0, "{} against {}", easy.mean_return, plain.mean_return);
    assert!(easy.success_last100 >= plain.success_last100);
}

/// Exports and stored runs from before environment parameters name the environment alone.
#[test]
fn an_old_spec_with_a_bare_environment_name_still_reads() {
    let old = r#"{"env":"executive","agent":{"kind":"q-learning"},"seed":4,"episodes":50}"#;
    let spec: RunSpec = serde_json::from_str(old).unwrap();
    assert_eq!(spec, RunSpec::new(EnvId::Executive, AgentId::QLearning, 4, 50));
}

#[test]
fn a_resumed_run_goes_on_exactly_as_the_uninterrupted_one() {
    let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 5, 300);
    let whole: Vec<_> = Run::new(spec.clone()).unwrap().collect();
    let resume = Resume { episodes: 120, fingerprint: fingerprint(&whole[..120]) };
    let rest: Vec<_> = completed(Run::new(spec.clone()).unwrap().resume(&resume)).unwrap().collect();
    assert_eq!(fingerprint(&rest), fingerprint(&whole[120..]));

    let other = Resume { episodes: 120, fingerprint: fingerprint(&whole[..119]) };
    let problem = completed(Run::new(spec).unwrap().resume(&other)).err().unwrap();
    assert!(problem.starts_with("training the first 120 episodes again gave other records"), "{problem}");
}

/// A run rebuilt from its checkpoint (through JSON, as the page stores it) has the trained
/// run's policy: the same values and greedy episodes, for every agent.
#[test]
fn a_checkpoint_brings_the_policy_back() {
    for (env, agent, episodes) in [
        (EnvId::Orchestrator, AgentId::QLearning, 400),
        (EnvId::Orchestrator, AgentId::ThompsonSampling, 400),
        (EnvId::Executive, AgentId::QThompson, 400),
        (EnvId::Executive, AgentId::Dqn, 60),
    ] {
        let spec = RunSpec::new(env, agent, 3, episodes);
        let mut trained = Run::new(spec.clone()).unwrap();
        trained.by_ref().for_each(drop);
        let json = serde_json::to_string(&trained.checkpoint().unwrap()).unwrap();
        let restored = Run::from_checkpoint(spec.clone(), &serde_json::from_str(&json).unwrap()).unwrap();
        assert!(restored.is_finished() && restored.episodes_done() == 0);
        let (a, b) = (trained.policy_view(), restored.policy_view());
        assert_eq!(a.traces, b.traces, "{env:?} {agent:?}");
        assert_eq!(trained.evaluate_greedy(50), restored.evaluate_greedy(50), "{env:?} {agent:?}");
        let untrained = Run::new(spec).unwrap();
        assert_ne!(untrained.policy_view().traces, a.traces, "{env:?} {agent:?}: training changed the policy");
    }
}

#[test]
fn a_checkpoint_of_another_agent_or_size_is_refused() {
    let orchestrator = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 10);
    let executive = RunSpec::new(EnvId::Executive, AgentId::QLearning, 1, 10);
    let checkpoint = Run::new(orchestrator.clone()).unwrap().checkpoint().unwrap();
    let Checkpoint::QTable { q } = &checkpoint else { panic!("Q-learning keeps a Q-table") };
    let problem = Run::from_checkpoint(executive, &checkpoint).err().unwrap();
    assert!(problem.starts_with(&format!("the checkpoint's Q-table has {} entries; this agent's has", q.len())));
    let thompson = RunSpec::new(EnvId::Orchestrator, AgentId::ThompsonSampling, 1, 10);
    let problem = Run::from_checkpoint(thompson, &checkpoint).err().unwrap();
    assert_eq!(problem, "a Q-table checkpoint does not fit a thompson-sampling agent");
    let mut nan = q.clone();
    nan[3] = f64::NAN;
    let problem = Run::from_checkpoint(orchestrator, &Checkpoint::QTable { q: nan }).err().unwrap();
    assert_eq!(problem, "the checkpoint's Q-table has an invalid entry NaN at index 3");
}

#[test]
fn rebuilding_uses_the_checkpoint_and_falls_back_to_the_records() {
    let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 2, 200);
    let mut trained = Run::new(spec.clone()).unwrap();
    let records: Vec<_> = trained.by_ref().collect();
    let resume = Resume { episodes: 200, fingerprint: fingerprint(&records) };
    let checkpoint = trained.checkpoint().unwrap();
    let traces = trained.policy_view().traces;

    let (run, how) = completed(Run::rebuild(spec.clone(), &resume, Some(&checkpoint))).unwrap();
    assert_eq!((how, run.policy_view().traces), (Restoration::Checkpoint, traces.clone()));
    let (run, how) = completed(Run::rebuild(spec.clone(), &resume, None)).unwrap();
    assert_eq!(how, Restoration::Replay { episodes: 200, checkpoint_problem: None });
    assert_eq!(run.policy_view().traces, traces);
    let wrong = Checkpoint::Beliefs { beliefs: vec![] };
    let (run, how) = completed(Run::rebuild(spec, &resume, Some(&wrong))).unwrap();
    let problem = "a Thompson-sampling checkpoint does not fit a q-learning agent".to_owned();
    assert_eq!(how, Restoration::Replay { episodes: 200, checkpoint_problem: Some(problem) });
    assert_eq!(run.policy_view().traces, traces);
}

#[test]
fn q_learning_finds_cliff_walkings_optimal_path_and_refuses_a_continuous_environment() {
    use crate::gym::GymId;
    let cliff = EnvId::Gym(GymId::CliffWalking);
    let mut run = Run::new(RunSpec::new(cliff, AgentId::QLearning, 1, cliff.default_episodes(false))).unwrap();
    for _ in run.by_ref() {}
    let greedy = run.evaluate_greedy(1);
    assert_eq!((greedy.success_rate, greedy.mean_return), (1.0, -13.0), "{greedy:?}");
    let err = Run::new(RunSpec::new(EnvId::Gym(GymId::CartPole), AgentId::QLearning, 1, 10)).unwrap_err();
    assert!(err.contains("CartPole-v1's states are continuous: train the dqn"), "{err}");
}

#[test]
fn q_learning_inside_a_perfect_cliff_walking_model_solves_the_real_one() {
    use std::sync::Arc;

    use crate::cwm::tabulated::TabulatedModel;
    use crate::cwm::tabulated::tests::perfect_verdict;
    use crate::env::gym::GymParams;
    use crate::gym::GymId;
    let model = TabulatedModel::from_verdict(GymId::CliffWalking, &perfect_verdict(GymId::CliffWalking)).unwrap();
    let mut spec = RunSpec::new(EnvId::Gym(GymId::CliffWalking), AgentId::QLearning, 1, 500);
    spec.env = EnvSpec::Gym(GymParams { model: Some(Arc::new(model)), ..GymParams::new(GymId::CliffWalking) });
    let mut run = Run::new(spec).unwrap();
    for _ in run.by_ref() {}
    let real = run.evaluate_greedy(10);
    assert_eq!((real.success_rate, real.mean_return), (1.0, -13.0), "{real:?}");
    // The greedy trace carries the observations a view draws: from the start (36) along the
    // cliff's edge to the goal (47).
    let trace = &run.policy_view().traces[0];
    let path: Vec<f64> = trace.steps.iter().flat_map(|s| s.observation.clone()).collect();
    assert_eq!(path, [36.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0]);
    assert_eq!(trace.end_observation, [47.0]);
}
