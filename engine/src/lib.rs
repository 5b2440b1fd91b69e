//! The engine of the RL code-generation playground: the seed environments, the agents that learn
//! on them, and runs that tie both to one seed. Pure Rust and sans-IO: no clocks, no web crates, no
//! ambient randomness, so the same run spec gives the same records natively and in the browser.

pub mod agents;
pub mod calibration;
pub mod cheating;
pub mod cwm;
pub mod device;
pub mod effects;
pub mod env;
pub mod episode_tree;
pub mod features;
pub mod gym;
pub mod live;
pub mod llm;
pub mod lm;
pub mod pace;
pub mod params;
pub mod policy_view;
pub mod prompts;
pub mod protocol;
pub mod python;
pub mod record_rows;
pub mod reproduce;
pub mod rng;
pub mod run;
pub mod search;
pub mod share;
pub mod stepcoder;
pub mod task_import;

pub use agents::{Agent, AgentId, AgentSpec, AnyAgent};
pub use env::{ActionMask, AnyEnv, EnvId, Environment, Observation, Step};
pub use episode_tree::EpisodeTree;
pub use rng::RunRng;
pub use run::{EpisodeRecord, Evaluation, Run, RunSpec, RunSummary};
