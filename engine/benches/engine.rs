//! Engine throughput: environment steps per second under a random legal policy; the seed 003
//! headline run (orchestrator Q-learning, 5000 episodes; the seed reports 0.41 s in Python); DQN
//! train steps at batch 64 in both configurations; and the playground executive DQN run until
//! success(last100) reaches 99%; GIF-MCTS's bookkeeping (selection, expansion,
//! backpropagation) over a 1000-node tree, without LLM or Python; one update of StepCoder's
//! line-bank learner (16 rollouts, verdicts cached); and the small code model that StepCoder's PPO
//! trains (`models/rlcg-coder.gguf`): 32 greedy tokens of a reply, and a forward and backward pass
//! through its LoRA adapters on a recorded chat, on each backend this build has.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::agents::{Agent, AgentSpec, Dqn, DqnParams, Experience, random_legal};
use engine::device::Backend;
use engine::env::ActionMask;
use engine::{AgentId, EnvId, Environment, Observation, Run, RunRng, RunSpec};
use rand::{RngCore, SeedableRng};

const STEPS: u64 = 10_000;

fn environment_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("env_steps");
    group.throughput(Throughput::Elements(STEPS));
    for id in EnvId::ALL {
        group.bench_function(id.name(), |b| {
            let mut env = id.make();
            let n_actions = env.info().action_names.len();
            let mut rng = RunRng::seed_from_u64(1);
            b.iter(|| {
                let mut obs = env.reset(rng.next_u64());
                for _ in 0..STEPS {
                    let step = env.step(random_legal(obs.mask, n_actions, &mut rng));
                    obs = if step.done() { env.reset(rng.next_u64()) } else { step.observation };
                }
                black_box(obs)
            });
        });
    }
    group.finish();
}

fn orchestrator_q_learning_5000(c: &mut Criterion) {
    let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 5000);
    c.bench_function("orchestrator_q_learning_5000_episodes", |b| {
        b.iter(|| {
            let mut run = Run::new(spec.clone()).expect("the spec is valid");
            run.by_ref().for_each(drop);
            black_box(run.summary())
        });
    });
}

/// The backends this build can train on (Wgpu with the engine's `wgpu` feature, on a GPU adapter).
fn backends() -> Vec<Backend> {
    Backend::ALL.into_iter().filter(|b| b.device().is_ok()).collect()
}

/// The seed's batch (64), and 8× and 64× it, where a GPU might start to pay.
const BATCHES: [usize; 3] = [64, 512, 4096];

/// One learn step (sample a batch, double-DQN targets, backward, Adam) on a full replay buffer;
/// compare with `bench/dqn_learn_step.py`, the same step in PyTorch.
fn dqn_train_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("dqn_train_step");
    group.sample_size(10);
    let configs =
        [("playground", DqnParams::playground(EnvId::Executive)), ("seed", DqnParams::seed(EnvId::Executive))];
    for backend in backends() {
        for (name, params) in configs.clone() {
            for batch in BATCHES {
                let params = DqnParams {
                    batch_size: batch,
                    replay_capacity: params.replay_capacity.max(batch),
                    ..params.clone()
                };
                let inputs = 3 * params.embedding_dim + 6;
                let mut rng = RunRng::seed_from_u64(1);
                let device = backend.device().unwrap();
                let mut dqn = Dqn::new(params, inputs, 5, device.clone(), &mut rng);
                let features: Vec<f32> = (0..inputs).map(|i| (i % 7) as f32 / 7.0).collect();
                let next = Observation { state: 0, mask: ActionMask::all(5) };
                let transition = |action| Experience {
                    state: 0,
                    action,
                    reward: 1.0,
                    next,
                    done: false,
                    features: &features,
                    next_features: &features,
                };
                for i in 0..1000.max(batch) {
                    dqn.remember(&transition(i % 5));
                }
                let id = format!("{}_{name}_{inputs}_inputs_batch{batch}", backend.name());
                // A GPU runs the step after it is queued: each step is waited for, so that the
                // time is the step's and not its queueing's.
                group.bench_function(id, |b| {
                    b.iter(|| {
                        dqn.observe(&transition(0), &mut rng);
                        device.sync().expect("the device finishes the step")
                    })
                });
            }
        }
    }
    group.finish();
}

/// The playground executive DQN from scratch until success(last100) ≥ 99% (seed 1), on NdArray,
/// the page's backend (on Wgpu one run takes about a minute: see docs/benchmarks.md).
fn executive_dqn_to_99(c: &mut Criterion) {
    let mut group = c.benchmark_group("executive_dqn_playground");
    group.sample_size(10);
    let spec = RunSpec::new(EnvId::Executive, AgentId::Dqn, 1, 500);
    assert!(matches!(spec.agent, AgentSpec::Dqn(_)));
    group.bench_function("to_99pct_success_last100", |b| {
        b.iter(|| {
            let mut run = Run::new(spec.clone()).expect("the spec is valid");
            for record in run.by_ref() {
                if record.episode >= 99 && record.success_last100 >= 0.99 {
                    return record.episode;
                }
            }
            panic!("the run never reached 99%")
        });
    });
    group.finish();
}

/// 1000 GIF-MCTS iterations on outcomes drawn at random: a score, one bug in five, programs of
/// 3 to 40 lines (short ones are terminal).
fn gif_mcts_1000_nodes(c: &mut Criterion) {
    use engine::search::method::{Ask, Expanded, Method};
    use engine::search::methods::gif_mcts::{GifMcts, GifMctsParams};
    use engine::search::scorer::Score;
    use rand::Rng;
    let programs: Vec<String> = (3..=40).map(|n| (0..n).map(|i| format!("x{i} = {i}\n")).collect()).collect();
    let mut group = c.benchmark_group("gif_mcts");
    group.throughput(Throughput::Elements(1000));
    group.bench_function("1000_nodes", |b| {
        b.iter(|| {
            let mut rng = RunRng::seed_from_u64(1);
            let mut search = GifMcts::new(GifMctsParams::default());
            for _ in 0..1000 {
                let expansion =
                    search.next(&mut rng).and_then(Ask::program).expect("GIF-MCTS always has an action left");
                let bug = rng.random_bool(0.2);
                let score = if bug { 0.0 } else { rng.random_range(0.0..0.99) };
                let program = programs[rng.random_range(0..programs.len())].clone();
                let score = Score { score, bug, ..Score::default() };
                search.absorb(
                    &Expanded {
                        kind: expansion.kind,
                        program,
                        unformatted: None,
                        score,
                        kept_prefix: None,
                        llm_calls: 0,
                    },
                    &mut rng,
                );
            }
            black_box(search.nodes().len())
        });
    });
    group.finish();
}

/// One update of the StepCoder arm on clamp_sum: 16 rollouts sampled and assembled, their (cached)
/// verdicts read, the FGO mask of each, the gradient step, the curriculum's ρ, and the next batch's
/// sampling; every program failing its tests with every line run.
fn stepcoder_learner_update(c: &mut Criterion) {
    use engine::python::{LogicalLine, Outcome, ProgramRequest, ProgramVerdict, Scope, ScopeKind};
    use engine::stepcoder::learner_params::{Arm, LearnerParams};
    use engine::stepcoder::line_bank::line_bank_tasks;
    use engine::stepcoder::policy_gradient::Learner;
    use engine::stepcoder::verdict_cache::VerdictCache;
    let task = line_bank_tasks().remove(0);
    let program = task.canonical();
    let lines = program.lines().count() as u32;
    let verdict = |outcome: Outcome| {
        let mut verdict =
            ProgramVerdict::from_host(&ProgramRequest::new(&program, vec![]), outcome, String::new(), 0.0);
        verdict.executed_lines = (1..=lines).collect();
        verdict.statements = (1..=lines).map(|l| LogicalLine { start: l, end: l, clause: false }).collect();
        verdict.scope = vec![
            Scope { kind: ScopeKind::Function, start: 1, end: lines },
            Scope { kind: ScopeKind::For, start: 3, end: 10 },
        ];
        verdict
    };
    let canonical = verdict(Outcome::Pass);
    let failed = verdict(Outcome::FailedTest);
    let mut learner = Learner::new(&task, 0, &canonical, Arm::StepCoder, 1, LearnerParams::default());
    let mut cache = VerdictCache::default();
    for (set, program) in learner.wanted().into_iter().map(|(s, p)| (s, p.to_owned())).collect::<Vec<_>>() {
        cache.insert(set, program, &failed);
    }
    c.bench_function("stepcoder/learner_update_16_rollouts", |b| {
        b.iter_batched(
            // The clone holds the batch already sampled, whose verdicts the cache has.
            || learner.clone(),
            |mut learner| {
                learner.update(&cache);
                black_box(learner.wanted().len())
            },
            criterion::BatchSize::SmallInput,
        );
    });
}

/// The small code model on `backend`, as generation (`autodiff`: false) or LoRA training loads it.
fn small_code_model(backend: Backend, autodiff: bool) -> engine::lm::language_model::LanguageModel {
    use engine::lm::model::Numerics;
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../models/rlcg-coder.gguf")).unwrap();
    let (device, numerics) = if autodiff {
        (backend.device().unwrap(), Numerics::F32)
    } else {
        (backend.inference_device().unwrap(), Numerics::LlamaCpp)
    };
    engine::lm::language_model::LanguageModel::load(&bytes, &device, numerics).unwrap()
}

/// A chat recorded with llama.cpp on the small model, and its greedy reply.
fn recorded_chat() -> (Vec<engine::lm::chat_template::Message>, String) {
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/fixtures/llama-cpp-reference.json"))
            .unwrap(),
    )
    .unwrap();
    let file = reference["files"].as_array().unwrap().iter().find(|f| f["file"] == "rlcg-coder.gguf").unwrap();
    let case = &file["cases"][0];
    let messages = serde_json::from_value(case["messages"].clone()).unwrap();
    let model = small_code_model(Backend::Ndarray, false);
    let greedy: Vec<u32> = serde_json::from_value(case["greedy"].clone()).unwrap();
    (messages, model.tokenizer.decode(&greedy))
}

fn small_code_model_lm(c: &mut Criterion) {
    use engine::lm::chat_template::Message;
    use engine::lm::fine_tune::{Example, reply_loss};
    use engine::lm::generation::Sampling;
    use engine::lm::lora::LoraParams;
    let (messages, reply) = recorded_chat();
    let mut group = c.benchmark_group("lm_rlcg_coder");
    group.sample_size(10);
    for backend in backends() {
        let model = small_code_model(backend, false);
        group.throughput(Throughput::Elements(32));
        group.bench_function(format!("generate_32_tokens/{}", backend.name()), |b| {
            b.iter(|| {
                let mut generation = engine::lm::generation::Generation::new(
                    model.prompt(&messages).unwrap(),
                    Sampling::GREEDY,
                    32,
                    Vec::new(),
                );
                let mut rng = RunRng::seed_from_u64(0);
                while generation.step(&model.transformer, &mut rng).is_some() {}
                black_box(generation.reply.len())
            })
        });
        let mut rng = RunRng::seed_from_u64(0);
        let tuned = small_code_model(backend, true).with_lora(&LoraParams::default(), &mut rng);
        let chat: Vec<Message> =
            messages.iter().cloned().chain([Message { role: "assistant".into(), content: reply.clone() }]).collect();
        let example = Example::of(&tuned, &chat).unwrap();
        group.throughput(Throughput::Elements((example.prompt.len() + example.reply.len()) as u64));
        group.bench_function(format!("lora_forward_backward/{}", backend.name()), |b| {
            b.iter(|| black_box(reply_loss(&tuned.transformer, &example).backward()))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    environment_steps,
    orchestrator_q_learning_5000,
    dqn_train_step,
    executive_dqn_to_99,
    gif_mcts_1000_nodes,
    stepcoder_learner_update,
    small_code_model_lm
);
criterion_main!(benches);
