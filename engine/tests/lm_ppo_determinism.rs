//! StepCoder's PPO on the small code model is a value of its seed: two trainings of the same spec
//! give the same records, losses included. Its critic was drawn from burn's own initialiser, which
//! draws from the process's entropy, and two processes (or two runs in one) parted at the first
//! update, with the same rollouts (docs/reproductions.md, "Determinism"). No Python runs here: a
//! program passes when its text has an even length, which is all the training needs of a verdict.

use engine::device::Backend;
use engine::effects::{Effectful, Need};
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::python::{Outcome, ProgramVerdict};
use engine::stepcoder::coder_tasks::{Split, coder_tasks};
use engine::stepcoder::learner_params::Arm;
use engine::stepcoder::model_ppo::{ModelPpo, ModelPpoSpec};
use engine::stepcoder::model_ppo_params::ModelPpoParams;
use serde_json::{Value, json};

/// Two updates of vanilla PPO on two training tasks, small, with made-up verdicts; the records.
fn trained(seed: u64) -> Value {
    trained_on(Backend::Ndarray, seed)
}

/// [`trained`] on `backend`.
fn trained_on(backend: Backend, seed: u64) -> Value {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../models/rlcg-coder.gguf")).unwrap();
    let device = backend.device().unwrap();
    let model = LanguageModel::load(&bytes, &device, Numerics::F32).unwrap();
    let tasks = coder_tasks().into_iter().filter(|t| t.split == Split::Training).take(2).collect();
    let params = ModelPpoParams {
        rollouts: 4,
        measure_samples: 1,
        max_tokens: 24,
        tasks_per_update: 1,
        ..ModelPpoParams::default()
    };
    let spec =
        ModelPpoSpec { arm: Arm::Vanilla, updates: 2, measure_every: 2, seed, params, ..ModelPpoSpec::default() };
    let mut training = ModelPpo::new(model, tasks, spec).unwrap();
    let mut clock = 0.0;
    let mut doing: Vec<String> = Vec::new();
    loop {
        clock += 1.0;
        if doing.last() != Some(&training.doing()) {
            doing.push(training.doing());
        }
        match training.need() {
            Need::Python(batch) => {
                let verdicts = batch
                    .requests
                    .iter()
                    .map(|request| {
                        let passes = request.code.len() % 2 == 0;
                        let outcome = if passes { Outcome::Pass } else { Outcome::FailedTest };
                        let verdict = ProgramVerdict::from_host(request, outcome, String::new(), 1.0);
                        ProgramVerdict {
                            passed: passes,
                            number_passed: if passes { verdict.total } else { 0 },
                            ..verdict
                        }
                    })
                    .collect();
                training.python_done(verdicts, clock);
            }
            Need::Compute => training.compute(clock),
            Need::Done => break,
            other => panic!("training needs no {other:?}"),
        }
    }
    assert_eq!(training.error, None);
    json!({ "history": training.history, "measurements": training.measurements, "doing": doing })
}

#[test]
fn the_same_seed_trains_the_same_records_losses_included() {
    let first = trained(1);
    assert_eq!(first["history"].as_array().unwrap().len(), 2, "{first}");
    // What the page shows it doing, step by step: measure, draw, run, update, twice, measure.
    let doing: Vec<&str> = first["doing"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(
        doing[..3],
        [
            "measuring pass@1 after 0 updates",
            "drawing update 1's rollouts",
            "running update 1's programs on their tests"
        ]
    );
    assert!(doing.contains(&"update 2: PPO on the rollouts"), "{doing:?}");
    assert_eq!(doing[doing.len() - 2..], ["measuring pass@1 after 2 updates", "done"]);
    assert_eq!(trained(1), first);
    assert_ne!(trained(2)["history"], first["history"], "another seed trains otherwise");
}

/// The same training on burn's Wgpu backend (Vulkan, Metal or DX12 natively), on machines with a GPU
/// adapter: `cargo test -p engine --features wgpu --test lm_ppo_determinism wgpu`. The first
/// update's rollouts are drawn from the same weights with the same draws, so its rewards are the
/// CPU's; the GPU sums in another order, so its KL agrees to a few digits, not every bit.
#[cfg(feature = "wgpu")]
#[test]
fn wgpu_trains_what_the_cpu_trains() {
    let (cpu, gpu) = (trained_on(Backend::Ndarray, 1), trained_on(Backend::Wgpu, 1));
    assert_eq!(gpu["history"].as_array().unwrap().len(), 2, "{gpu}");
    assert_eq!(gpu["doing"], cpu["doing"]);
    let first = |records: &Value, field: &str| records["history"][0][field].as_f64().unwrap();
    assert_eq!(first(&gpu, "mean_reward"), first(&cpu, "mean_reward"));
    assert!((first(&gpu, "kl") - first(&cpu, "kl")).abs() < 1e-3, "{gpu} against {cpu}");
    assert_eq!(gpu["measurements"][0], cpu["measurements"][0], "pass@1 before training");
}
