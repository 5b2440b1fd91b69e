//! The one random source of a run, its streams, and the layers drawn from it.

use burn::module::Param;
use burn::nn::Linear;
use burn::tensor::{Device, TensorData};
use rand::{Rng, SeedableRng};

/// The one random source of a run: ChaCha8 gives the same stream on every platform.
pub type RunRng = rand_chacha::ChaCha8Rng;

/// The random stream of a program search's own draws (UCT's ties, Thompson sampling, the improve
/// example): the seed on ChaCha stream 2, apart from the simulated LLM that answers it.
pub fn search_rng(seed: u64) -> RunRng {
    let mut rng = RunRng::seed_from_u64(seed);
    rng.set_stream(2);
    rng
}

/// The random stream that picks the test an impossible task changes (`cheating::impossible`): the
/// search's seed on ChaCha stream 4, apart from the search and its LLM.
pub fn impossible_rng(seed: u64) -> RunRng {
    let mut rng = RunRng::seed_from_u64(seed);
    rng.set_stream(4);
    rng
}

/// The random stream that splits a task's tests into visible and held-out ones
/// (`cheating::held_out`): the search's seed on ChaCha stream 5.
pub fn held_out_rng(seed: u64) -> RunRng {
    let mut rng = RunRng::seed_from_u64(seed);
    rng.set_stream(5);
    rng
}

/// The random stream for evaluation episodes: the run's seed on ChaCha stream 1 (training uses 0).
pub fn evaluation_rng(seed: u64) -> RunRng {
    let mut rng = RunRng::seed_from_u64(seed);
    rng.set_stream(1);
    rng
}

/// The random stream of seed 004's Gymnasium environments (resets, Blackjack's cards) and of the
/// random actions their benchmarks and datasets take: the seed on ChaCha stream 3.
pub fn gym_rng(seed: u64) -> RunRng {
    let mut rng = RunRng::seed_from_u64(seed);
    rng.set_stream(3);
    rng
}

/// The streams of seed 002's line-bank learner on task `task`: its training rollouts' draws, and
/// the measuring samples' apart from them, so that measuring never changes what a learner learns.
/// Streams from 2⁴⁰ on, clear of the planning episodes'.
pub fn stepcoder_rngs(seed: u64, task: usize) -> (RunRng, RunRng) {
    let (mut training, mut measuring) = (RunRng::seed_from_u64(seed), RunRng::seed_from_u64(seed));
    training.set_stream((1 << 40) + 2 * task as u64);
    measuring.set_stream((1 << 40) + 2 * task as u64 + 1);
    (training, measuring)
}

/// The streams of planning episode `episode` (seed 004 §5.3): the environment's (its start and
/// Blackjack's cards) on stream 16 + 2·episode, the same whichever policy plays it, and the
/// policy's own draws on the stream after.
pub fn planning_rngs(seed: u64, episode: u32) -> (RunRng, RunRng) {
    let (mut env, mut policy) = (RunRng::seed_from_u64(seed), RunRng::seed_from_u64(seed));
    env.set_stream(16 + 2 * u64::from(episode));
    policy.set_stream(17 + 2 * u64::from(episode));
    (env, policy)
}

/// A linear layer initialised as PyTorch's (and burn's) default, U(−1/√inputs, 1/√inputs) for the
/// weight and the bias, drawn from the run's RNG: burn's own initialiser draws from the process's
/// entropy, so a run would start from other weights in every process.
pub fn seeded_linear(inputs: usize, outputs: usize, device: &Device, rng: &mut RunRng) -> Linear {
    let bound = 1.0 / (inputs as f32).sqrt();
    let mut uniform = |n: usize| (0..n).map(|_| rng.random_range(-bound..bound)).collect::<Vec<f32>>();
    let weight = TensorData::new(uniform(inputs * outputs), [inputs, outputs]);
    let bias = TensorData::new(uniform(outputs), [outputs]);
    Linear { weight: Param::from_data(weight, device), bias: Some(Param::from_data(bias, device)) }
}
