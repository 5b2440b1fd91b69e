//! Seed 000's DQN results (§5.7, §7, §9), reproduced with fixed seeds in both configurations.

use engine::agents::{AgentSpec, DqnParams};
use engine::device::Backend;
use engine::env::executive::{DEBUG, GENERATE, SEARCH, STOP, TEST};
use engine::env::hierarchical::{HierarchicalTrace, SolvedSubtasks, hierarchical_inference, solve_subtasks};
use engine::python::{Outcome, ProgramRequest, ProgramVerdict};
use engine::{AgentId, EnvId, Environment, Run, RunSpec};

fn dqn_spec(env: EnvId, params: DqnParams, seed: u64, episodes: u32) -> RunSpec {
    RunSpec { agent: AgentSpec::Dqn(params), ..RunSpec::new(env, AgentId::Dqn, seed, episodes) }
}

fn on(backend: Backend, spec: RunSpec) -> RunSpec {
    RunSpec { backend, ..spec }
}

/// Trains; returns the run and the first episode at which success(last100) reached `target`.
fn train_until(spec: RunSpec, target: f64) -> (Run, Option<u32>) {
    let mut run = Run::new(spec).unwrap();
    let mut reached = None;
    for record in run.by_ref() {
        if reached.is_none() && record.episode >= 99 && record.success_last100 >= target {
            reached = Some(record.episode + 1);
        }
    }
    (run, reached)
}

/// §5.7: success(last100) ≥ 99% within 500 episodes, and each task's greedy rollout is canonical.
fn executive_reproduces(params: DqnParams, backend: Backend) {
    let (run, reached) = train_until(on(backend, dqn_spec(EnvId::Executive, params, 1, 500)), 0.99);
    assert!(reached.is_some(), "success(last100) stayed below 99%: {:?}", run.summary());
    let canonical: [&[usize]; 3] = [
        &[GENERATE, TEST, STOP],
        &[GENERATE, TEST, DEBUG, TEST, STOP],
        &[GENERATE, TEST, DEBUG, TEST, SEARCH, DEBUG, TEST, STOP],
    ];
    for (task, path) in canonical.iter().enumerate() {
        let episode = run.greedy_episode(task, 7);
        let expected: Vec<u8> = path.iter().map(|&a| a as u8).collect();
        assert_eq!(episode.actions, expected, "task {task}");
        assert!(episode.success);
    }
    assert_eq!(run.evaluate_greedy(100).success_rate, 1.0);
}

/// §7 with the seed's configuration: success(last100) reaches 90% (the seed reports 91%) within
/// 3000 episodes; the greedy rollout is the planning episode.
fn planner_reproduces(params: DqnParams, backend: Backend) {
    let (run, reached) = train_until(on(backend, dqn_spec(EnvId::Planner, params, 1, 3000)), 0.90);
    assert!(reached.is_some(), "success(last100) stayed below 90%: {:?}", run.summary());
    let episode = run.greedy_episode(0, 0);
    assert_eq!(episode.actions, [0, 1, 2, 3, 4], "planning, execution, integration, evaluation, stop");
    assert!(episode.success);
}

#[test]
fn executive_dqn_playground() {
    executive_reproduces(DqnParams::playground(EnvId::Executive), Backend::Ndarray);
}

#[test]
fn executive_dqn_seed_configuration() {
    executive_reproduces(DqnParams::seed(EnvId::Executive), Backend::Ndarray);
}

/// The playground's planner (8 expert episodes, ε floor 0.01, unmasked exploration as the seed's)
/// over seeds 1–10, at a named episode: after 500 episodes every seed's greedy policy succeeds and
/// success over the last 100 training episodes is at least 90% (exploration caps it near
/// (1 − 0.01·4/5)^5 = 96%). Measured: 93–99%, mean 95.9%; greedy 100% on every seed.
#[test]
fn planner_dqn_playground_over_seeds_1_to_10() {
    for seed in 1..=10 {
        let mut run = Run::new(dqn_spec(EnvId::Planner, DqnParams::playground(EnvId::Planner), seed, 500)).unwrap();
        let last = run.by_ref().last().unwrap();
        let greedy = run.evaluate_greedy(10);
        assert_eq!(greedy.success_rate, 1.0, "seed {seed}");
        assert!(last.success_last100 >= 0.90, "seed {seed}: {}", last.success_last100);
        assert_eq!(run.greedy_episode(0, 0).actions, [0, 1, 2, 3, 4], "seed {seed}");
    }
}

#[test]
fn planner_dqn_seed_configuration() {
    planner_reproduces(DqnParams::seed(EnvId::Planner), Backend::Ndarray);
}

/// §9: the planner drives compute(a, b) and the executive solves each subtask. Python is not here,
/// so the composed program's run is stood in for by a verdict, which the planner's evaluation must
/// read (the real run in python3 is in cli/tests: `hierarchical_json_has_passed_subtasks_and_final_code`).
#[test]
fn hierarchical_inference_delivers_passing_code() {
    let executive = train_until(RunSpec::new(EnvId::Executive, AgentId::Dqn, 1, 500), 1.0).0;
    let planner = train_until(RunSpec::new(EnvId::Planner, AgentId::Dqn, 1, 500), 1.0).0;
    let verdict = |passed: u32| {
        let mut verdict =
            ProgramVerdict::from_host(&ProgramRequest::new("", vec![]), Outcome::Pass, String::new(), 0.0);
        (verdict.passed, verdict.number_passed, verdict.total) = (passed == 4, passed, 4);
        verdict
    };
    let solved = solve_subtasks(&executive.spec().env, |env: &_, obs| executive.greedy_action(env, obs)).unwrap();
    let infer = |solved: SolvedSubtasks, passed: u32| -> Result<HierarchicalTrace, String> {
        hierarchical_inference(
            (&planner.spec().env, |env: &_, obs| planner.greedy_action(env, obs)),
            solved,
            &verdict(passed),
        )
    };
    let trace = infer(solved.clone(), 4).unwrap();
    assert!(trace.passed, "{trace:#?}");
    assert_eq!((trace.evaluation.as_str(), trace.final_tests), ("Tests 4/4", Some((4, 4))));
    assert_eq!(trace.subtasks.len(), 3);
    for subtask in &trace.subtasks {
        let actions: Vec<_> = subtask.steps.iter().map(|s| s.action.as_str()).collect();
        assert_eq!(actions, ["generate", "test", "stop"], "{}", subtask.name);
    }
    assert!(solve_subtasks(&planner.spec().env, |_: &_, _| 0).is_err(), "runs in the wrong roles are refused");
    assert!(
        hierarchical_inference((&executive.spec().env, |_: &_, _| 0), solved.clone(), &verdict(4)).is_err(),
        "runs in the wrong roles are refused"
    );
    // The delivered program is the subtasks' code, as the executive left it, then the glue.
    let task = engine::env::tasks::planner_task();
    assert_eq!(trace.final_code, task.compose(&trace.subtasks.iter().map(|s| s.code.as_str()).collect::<Vec<_>>()));
    assert!(trace.final_code.contains("def compute(a, b)") && trace.final_code.contains("def cbrt("));
    // The planner's evaluation reads the delivered program's verdict: one test failing fails the
    // episode, with the same steps up to it.
    let failing = infer(solved, 3).unwrap();
    assert!(!failing.passed && failing.evaluation == "Tests 3/4", "{failing:#?}");
    let evaluation = failing.planner_steps.iter().find(|s| s.action == "evaluation").unwrap();
    assert!(evaluation.reward < trace.planner_steps.iter().find(|s| s.action == "evaluation").unwrap().reward);
    // An executive that stops at once leaves no code: the subtasks fail, and so does the hierarchy.
    let stop = EnvId::Executive.action_names().iter().position(|&a| a == "stop").unwrap();
    let quitter = solve_subtasks(&executive.spec().env, |_: &_, _| stop).unwrap();
    assert!(quitter.subtasks.iter().all(|s| !s.success && s.code.is_empty()));
    assert!(!quitter.program.contains("def add("), "{}", quitter.program);
    assert!(!infer(quitter, 4).unwrap().passed, "failed subtasks fail it whatever the verdict");
}

/// Runs are values for the DQN too: same spec, bit-identical records and Q-values.
#[test]
fn dqn_runs_are_reproducible() {
    let spec = RunSpec::new(EnvId::Executive, AgentId::Dqn, 5, 40);
    let a: Vec<_> = Run::new(spec.clone()).unwrap().collect();
    let b: Vec<_> = Run::new(spec).unwrap().collect();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert!(a.iter().any(|r| r.loss.is_some()), "the agent learned");
}

/// The same results on burn's Wgpu backend (Vulkan, Metal or DX12 natively), on machines with a GPU
/// adapter: `cargo test -p engine --features wgpu --test dqn_reproductions wgpu`. Floating-point
/// sums run in another order there, so the runs are not bit-identical to NdArray's; the headline
/// results must hold all the same.
#[cfg(feature = "wgpu")]
mod wgpu {
    use super::*;

    #[test]
    fn wgpu_executive_dqn_playground() {
        executive_reproduces(DqnParams::playground(EnvId::Executive), Backend::Wgpu);
    }

    #[test]
    fn wgpu_executive_dqn_seed_configuration() {
        executive_reproduces(DqnParams::seed(EnvId::Executive), Backend::Wgpu);
    }

    #[test]
    fn wgpu_planner_dqn_playground() {
        planner_reproduces(DqnParams::playground(EnvId::Planner), Backend::Wgpu);
    }

    /// The same weights (drawn from the run's RNG) give the same Q-values on both backends, and
    /// so do they after the first episode's learn steps.
    #[test]
    fn wgpu_and_ndarray_agree() {
        let spec = dqn_spec(EnvId::Executive, DqnParams::seed(EnvId::Executive), 3, 4);
        let mut cpu = Run::new(spec.clone()).unwrap();
        let mut gpu = Run::new(on(Backend::Wgpu, spec)).unwrap();
        let start_values = |run: &Run| run.greedy_trace(0, 7).steps[0].values.clone();
        // Adam's first steps move a weight by about the learning rate whatever the gradient's size,
        // so a gradient near zero rounded to the other sign on one backend moves it the other way.
        let assert_close = |cpu: &Run, gpu: &Run, tolerance: f64| {
            let (a, b) = (start_values(cpu), start_values(gpu));
            assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= tolerance * (1.0 + x.abs())), "{a:?} vs {b:?}");
        };
        assert_close(&cpu, &gpu, 1e-5);
        let (cpu_first, gpu_first) = (cpu.next().unwrap(), gpu.next().unwrap());
        assert_eq!(cpu_first.outcome.actions, gpu_first.outcome.actions, "the first episode's actions");
        assert!(cpu_first.loss.is_some(), "the agents learned");
        assert_close(&cpu, &gpu, 1e-2);
    }

    /// The browser's path: training awaits the GPU, and the trained policy, copied to the CPU,
    /// answers as it did on the GPU.
    #[test]
    fn wgpu_async_training_and_its_cpu_copy() {
        let params = DqnParams::playground(EnvId::Executive);
        let mut run = Run::new(on(Backend::Wgpu, dqn_spec(EnvId::Executive, params, 2, 60))).unwrap();
        while engine::device::completed(run.train_episode()).unwrap().is_some() {}
        let on_gpu = run.greedy_trace(1, 7);
        engine::device::completed(run.copy_policy_to_cpu()).unwrap();
        let on_cpu = run.greedy_trace(1, 7);
        assert_eq!(on_gpu.steps.len(), on_cpu.steps.len());
        for (g, c) in on_gpu.steps.iter().zip(&on_cpu.steps) {
            assert_eq!(g.action, c.action);
            assert!(
                g.values.iter().zip(&c.values).all(|(x, y)| (x - y).abs() <= 1e-4 * (1.0 + x.abs())),
                "{g:?} vs {c:?}"
            );
        }
    }
}

#[test]
fn unknown_backend_and_bad_hyperparameters_are_refused() {
    let mut params = DqnParams::playground(EnvId::Executive);
    params.batch_size = 0;
    let err = Run::new(dqn_spec(EnvId::Executive, params, 1, 10)).unwrap_err();
    assert!(err.starts_with("batch_size must be between 1 and 1024"), "{err}");
    assert_eq!(engine::device::Backend::parse("cuda").unwrap_err(), "unknown backend 'cuda'; valid: ndarray, wgpu");
    let env = EnvId::Executive.make();
    assert_eq!(env.info().text_names.len(), 3);
}
