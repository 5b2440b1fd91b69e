//! Engine throughput: environment steps per second under a random legal policy, and the seed 003
//! headline run (orchestrator Q-learning, 5000 episodes; the seed reports 0.41 s in Python).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::agents::random_legal;
use engine::{AgentId, EnvId, Environment, Run, RunRng, RunSpec};
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
            while run.train_episode().is_some() {}
            black_box(run.summary())
        });
    });
}

criterion_group!(benches, environment_steps, orchestrator_q_learning_5000);
criterion_main!(benches);
