//! The engine of the RL code-generation playground: the seed environments, the agents that learn
//! on them, and runs that tie both to one seed. Pure Rust and sans-IO: no clocks, no web crates, no
//! ambient randomness, so the same run spec gives the same records natively and in the browser.

pub mod agents;
pub mod env;
pub mod episode_tree;
pub mod features;
pub mod hierarchical;
pub mod live;
pub mod llm;
pub mod params;
pub mod policy_view;
pub mod prompts;
pub mod protocol;
pub mod python;
pub mod record_rows;
pub mod run;
pub mod share;
pub mod task_import;
pub mod tasks;

pub use agents::{Agent, AgentId, AgentSpec, AnyAgent};
pub use env::{ActionMask, AnyEnv, EnvId, Environment, Observation, Step};
pub use episode_tree::EpisodeTree;
pub use run::{EpisodeRecord, Evaluation, Run, RunSpec, RunSummary};

/// The one random source of a run: ChaCha8 gives the same stream on every platform.
pub type RunRng = rand_chacha::ChaCha8Rng;

/// The output of an engine future, for callers that cannot wait: every computation on the CPU, and
/// natively on a GPU, completes at once. A browser cannot block on its GPU, so the training worker
/// drives a WebGPU run through the `_async` methods and reads its policy from a CPU copy.
pub fn completed<F: Future>(future: F) -> F::Output {
    burn::tensor::try_read_sync(future)
        .expect("a WebGPU run in the browser is driven through the engine's async methods, which never block")
}

/// [`completed`] for a computation that fails only when its device does.
pub(crate) fn resolved<T>(future: impl Future<Output = Result<T, String>>) -> T {
    completed(future).unwrap_or_else(|problem| panic!("{problem}"))
}
