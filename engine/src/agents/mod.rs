//! Agents that learn which action to take. Tabular agents index their tables by the environment's
//! discrete state; every agent chooses only among the legal actions of the observation's mask.

pub mod dqn;
pub mod q_learning;
pub mod q_thompson;
pub mod thompson_sampling;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::device::Backend;
use crate::env::{ActionMask, EnvId, EnvSpec, Environment, Observation};
use crate::features::Featurizer;
use crate::params::Parameters;
use crate::rng::RunRng;

pub use dqn::{Dqn, DqnParams};
pub use q_learning::{QLearning, QLearningParams};
pub use q_thompson::{QThompson, QThompsonParams};
pub use thompson_sampling::{ThompsonParams, ThompsonSampling};

/// One step of experience.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experience<'a> {
    pub state: usize,
    pub action: usize,
    pub reward: f64,
    pub next: Observation,
    /// The episode ended here (terminated or truncated). Agents do not bootstrap past it: the
    /// states do not hold the step count, so the step limit is part of the task.
    pub done: bool,
    /// Dense features of the state and of the next state (empty for agents without features).
    pub features: &'a [f32],
    pub next_features: &'a [f32],
}

/// The run's rolling metrics when an episode ends, for agents that keep their best checkpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollingMetrics {
    pub success_last100: f64,
    /// Mean return of the last 50 episodes: seed 000's tie-break between equally successful
    /// checkpoints (`np.mean(episode_rewards[-log_every:])` with `log_every = 50`).
    pub mean_return_last50: f64,
    /// The window holds 100 episodes (before that, one lucky episode would read as 100%).
    pub window_full: bool,
}

/// What a trained agent learned, as a value: stored with a run so that its policy comes back after
/// a reload or an import without training again. Training state (exploration rate, replay memory,
/// optimiser moments) is left out: a run goes on by training its recorded episodes again, which
/// also proves it is the same run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Checkpoint {
    /// Q-learning's table, row-major states × actions.
    QTable { q: Vec<f64> },
    /// Thompson sampling's Beta posteriors (α, β), row-major states × actions.
    Beliefs { beliefs: Vec<(f64, f64)> },
    /// Q-learning with Thompson exploration: both tables.
    QThompson { q: Vec<f64>, beliefs: Vec<(f64, f64)> },
    /// The DQN's greedy network as burn record bytes (burnpack), in base64.
    Network { burnpack: String },
}

impl Checkpoint {
    fn kind(&self) -> &'static str {
        match self {
            Checkpoint::QTable { .. } => "Q-table",
            Checkpoint::Beliefs { .. } => "Thompson-sampling",
            Checkpoint::QThompson { .. } => "Q-Thompson",
            Checkpoint::Network { .. } => "network",
        }
    }

    /// The error for a checkpoint loaded into another kind of agent.
    pub(crate) fn mismatch(&self, agent: AgentId) -> String {
        format!("a {} checkpoint does not fit a {} agent", self.kind(), agent.name())
    }
}

/// Copies a stored table over `table` when it has the same size and every entry passes `valid`.
pub(crate) fn load_table<T: Copy + std::fmt::Debug>(
    name: &str,
    stored: &[T],
    table: &mut [T],
    valid: impl Fn(&T) -> bool,
) -> Result<(), String> {
    if stored.len() != table.len() {
        return Err(format!("the checkpoint's {name} has {} entries; this agent's has {}", stored.len(), table.len()));
    }
    if let Some(i) = stored.iter().position(|v| !valid(v)) {
        return Err(format!("the checkpoint's {name} has an invalid entry {:?} at index {i}", stored[i]));
    }
    table.copy_from_slice(stored);
    Ok(())
}

/// A learning agent. Acting and closing an episode are asynchronous because a network on a GPU
/// awaits its values (a browser cannot block on its GPU); the tabular agents answer at once. Hosts
/// that can wait resolve them with [`crate::device::completed`].
// The futures run on one thread (the worker's, or the CLI's): no `Send` bound is needed.
#[allow(async_fn_in_trait)]
pub trait Agent {
    /// The action to take while training (may explore). `features` is empty unless
    /// [`embedding_dim`](Self::embedding_dim) asks for them; an error means the device failed.
    async fn act(&mut self, obs: Observation, features: &[f32], rng: &mut RunRng) -> Result<usize, String>;
    /// The action the learned policy prefers, without exploring.
    fn greedy(&self, obs: Observation, features: &[f32]) -> usize;
    fn observe(&mut self, transition: &Experience, rng: &mut RunRng);
    /// Stores an expert transition without learning from it yet (replay seeding).
    fn remember(&mut self, _transition: &Experience) {}
    /// Expert episodes per task to store before training.
    fn expert_episodes_per_task(&self) -> u32 {
        0
    }
    /// Closes an episode (decays exploration); returns the episode's loss where the agent has one.
    async fn end_episode(&mut self, progress: &RollingMetrics) -> Result<Option<f64>, String>;
    /// Training is over: agents that keep a best checkpoint switch to it.
    fn finish(&mut self) {}
    /// The current exploration rate, for agents that explore ε-greedily.
    fn epsilon(&self) -> Option<f64>;
    /// The agent's value of each action (Q-values or posterior means), for policy views.
    fn action_values(&self, obs: Observation, features: &[f32]) -> Vec<f64>;
    /// The per-text embedding size of the features this agent needs, if it needs features.
    fn embedding_dim(&self) -> Option<usize> {
        None
    }
    /// What the agent learned (its greedy policy), to store with the run.
    fn checkpoint(&self) -> Result<Checkpoint, String>;
    /// Takes on the policy in a checkpoint of an agent of the same kind and shape.
    fn load_checkpoint(&mut self, checkpoint: &Checkpoint) -> Result<(), String>;
}

/// The legal actions, or every action when the mask allows none (an environment may forbid all
/// actions after an illegal one; the agent must still act). Seed 000's agent picks a random action
/// there; here greedy choice takes the best of all actions instead, so that greedy evaluations and
/// policy views stay deterministic (exploration still draws at random).
pub fn effective_mask(mask: ActionMask, n_actions: usize) -> ActionMask {
    if mask.count() == 0 { ActionMask::all(n_actions) } else { mask }
}

/// The legal action with the highest value; ties go to the lowest index so runs are reproducible.
pub fn masked_argmax(values: &[f64], mask: ActionMask) -> usize {
    let mask = effective_mask(mask, values.len());
    mask.legal()
        .filter(|&a| a < values.len())
        .fold(None, |best: Option<usize>, a| match best {
            Some(b) if values[b] >= values[a] => Some(b),
            _ => Some(a),
        })
        .expect("an effective mask allows at least one action")
}

/// A legal action drawn uniformly.
pub fn random_legal(mask: ActionMask, n_actions: usize, rng: &mut RunRng) -> usize {
    let mask = effective_mask(mask, n_actions);
    let k = rng.random_range(0..mask.count());
    mask.legal().nth(k).expect("k is below the number of legal actions")
}

/// The agents a run can train; the default is the page's first choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentId {
    #[default]
    QLearning,
    ThompsonSampling,
    QThompson,
    Dqn,
}

impl AgentId {
    pub const ALL: [AgentId; 4] = [AgentId::QLearning, AgentId::ThompsonSampling, AgentId::QThompson, AgentId::Dqn];

    pub fn name(self) -> &'static str {
        match self {
            AgentId::QLearning => "q-learning",
            AgentId::ThompsonSampling => "thompson-sampling",
            AgentId::QThompson => "q-thompson",
            AgentId::Dqn => "dqn",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            AgentId::QLearning => "Seed 003 §3.4: tabular Q-learning, epsilon-greedy, optimistic initial values",
            AgentId::ThompsonSampling => "Seed 003 §3.5: a Beta posterior per state-action, act on a sample",
            AgentId::QThompson => "Seed 003 §3.5: Q-learning whose exploratory choices come from Thompson sampling",
            AgentId::Dqn => "Seed 000 §4: dueling double DQN with action masking over text embeddings and flags (burn)",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|id| id.name() == name).ok_or_else(|| {
            let valid: Vec<_> = Self::ALL.iter().map(|id| id.name()).collect();
            format!("unknown agent '{name}'; valid: {}", valid.join(", "))
        })
    }

    /// This agent with the seed's hyperparameters (the playground configuration for the DQN).
    pub fn default_spec(self, env: EnvId) -> AgentSpec {
        match self {
            AgentId::QLearning => AgentSpec::QLearning(QLearningParams::default()),
            AgentId::ThompsonSampling => AgentSpec::ThompsonSampling(ThompsonParams::default()),
            AgentId::QThompson => AgentSpec::QThompson(QThompsonParams::default()),
            AgentId::Dqn => AgentSpec::Dqn(DqnParams::playground(env)),
        }
    }

    /// The named hyperparameter configurations offered for `env`, the default first.
    pub fn presets(self, env: EnvId) -> Vec<AgentPreset> {
        let default = AgentPreset { id: "default", label: "the seed's defaults", spec: self.default_spec(env) };
        match self {
            AgentId::Dqn => vec![
                AgentPreset { id: "playground", label: "playground (small, learns in seconds)", ..default },
                AgentPreset {
                    id: "seed",
                    label: "seed 000 table 1 ([512, 256], 1158 inputs)",
                    spec: AgentSpec::Dqn(DqnParams::seed(env)),
                },
            ],
            _ => vec![default],
        }
    }

    /// Whether the agent learns a table of values per state and action (which links can carry).
    pub fn has_value_table(self) -> bool {
        !self.uses_backend()
    }

    /// Whether the agent learns a network on a compute backend the user picks (CPU or WebGPU).
    pub fn uses_backend(self) -> bool {
        matches!(self, AgentId::Dqn)
    }

    /// What the agent's values of an action are, as the policy views name them.
    pub fn value_label(self) -> &'static str {
        match self {
            AgentId::ThompsonSampling => "posterior mean of success",
            _ => "Q-value",
        }
    }

    /// The report that specifies the agent, as the page's anchor (`seed-000`).
    pub fn source(self) -> &'static str {
        match self {
            AgentId::Dqn => "seed-000",
            AgentId::QLearning | AgentId::ThompsonSampling | AgentId::QThompson => "seed-003",
        }
    }
}

/// A named configuration of an agent's hyperparameters (the form's choices, the CLI's `--config`).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentPreset {
    pub id: &'static str,
    pub label: &'static str,
    pub spec: AgentSpec,
}

/// An agent and its hyperparameters: the serialisable half of a run spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum AgentSpec {
    QLearning(QLearningParams),
    ThompsonSampling(ThompsonParams),
    QThompson(QThompsonParams),
    Dqn(DqnParams),
}

impl AgentSpec {
    pub fn id(&self) -> AgentId {
        match self {
            AgentSpec::QLearning(_) => AgentId::QLearning,
            AgentSpec::ThompsonSampling(_) => AgentId::ThompsonSampling,
            AgentSpec::QThompson(_) => AgentId::QThompson,
            AgentSpec::Dqn(_) => AgentId::Dqn,
        }
    }

    /// A fresh agent for `env`; a neural agent's weights are drawn from `rng` on `backend`.
    pub fn build(&self, env: &impl Environment, backend: Backend, rng: &mut RunRng) -> Result<AnyAgent, String> {
        let info = env.info();
        let (states, actions) = (info.n_states, info.action_names.len());
        Ok(match self {
            AgentSpec::QLearning(p) => AnyAgent::QLearning(QLearning::new(*p, states, actions)),
            AgentSpec::ThompsonSampling(p) => AnyAgent::ThompsonSampling(ThompsonSampling::new(*p, states, actions)),
            AgentSpec::QThompson(p) => AnyAgent::QThompson(QThompson::new(*p, states, actions)),
            AgentSpec::Dqn(p) => {
                let inputs = Featurizer::new(env, p.embedding_dim).dim();
                AnyAgent::Dqn(Box::new(Dqn::new(p.clone(), inputs, actions, backend.device()?, rng)))
            }
        })
    }
}

impl AgentSpec {
    /// The discount its values bootstrap with, for agents that learn action values.
    pub fn discount(&self) -> Option<f64> {
        match self {
            AgentSpec::QLearning(p) => Some(p.gamma),
            AgentSpec::QThompson(p) => Some(p.q_learning.gamma),
            AgentSpec::Dqn(p) => Some(p.gamma),
            AgentSpec::ThompsonSampling(_) => None,
        }
    }

    /// A neural agent's learn step on `env`, in multiply-adds through its trunk
    /// ([`DqnParams::trunk_multiply_adds`]); `None` for a tabular agent, or an environment that
    /// cannot be made.
    pub fn learn_step_multiply_adds(&self, env: &EnvSpec) -> Option<u64> {
        let AgentSpec::Dqn(p) = self else { return None };
        let env = env.make().ok()?;
        Some(p.trunk_multiply_adds(Featurizer::new(&env, p.embedding_dim).dim()))
    }
}

impl Parameters for AgentSpec {
    fn params_schema(&self) -> serde_json::Value {
        let schema = match self {
            AgentSpec::QLearning(_) => schemars::schema_for!(QLearningParams),
            AgentSpec::ThompsonSampling(_) => schemars::schema_for!(ThompsonParams),
            AgentSpec::QThompson(_) => schemars::schema_for!(QThompsonParams),
            AgentSpec::Dqn(_) => schemars::schema_for!(DqnParams),
        };
        schema.to_value()
    }

    fn validate(&self) -> Result<(), String> {
        match self {
            AgentSpec::QLearning(p) => p.validate(),
            AgentSpec::ThompsonSampling(p) => p.validate(),
            AgentSpec::QThompson(p) => p.validate(),
            AgentSpec::Dqn(p) => p.validate(),
        }
    }
}

/// Any agent, chosen at run time without boxing.
#[derive(Clone, Debug)]
pub enum AnyAgent {
    QLearning(QLearning),
    ThompsonSampling(ThompsonSampling),
    QThompson(QThompson),
    Dqn(Box<Dqn>),
}

impl AnyAgent {
    /// Gradient steps taken so far, for agents that learn by gradient descent.
    pub fn learn_steps(&self) -> Option<u32> {
        match self {
            AnyAgent::Dqn(dqn) => Some(dqn.learn_steps()),
            _ => None,
        }
    }
}

macro_rules! each_agent {
    ($self:expr, $agent:ident => $body:expr) => {
        match $self {
            AnyAgent::QLearning($agent) => $body,
            AnyAgent::ThompsonSampling($agent) => $body,
            AnyAgent::QThompson($agent) => $body,
            AnyAgent::Dqn($agent) => $body,
        }
    };
}

impl Agent for AnyAgent {
    async fn act(&mut self, obs: Observation, features: &[f32], rng: &mut RunRng) -> Result<usize, String> {
        each_agent!(self, a => a.act(obs, features, rng).await)
    }
    fn greedy(&self, obs: Observation, features: &[f32]) -> usize {
        each_agent!(self, a => a.greedy(obs, features))
    }
    fn observe(&mut self, transition: &Experience, rng: &mut RunRng) {
        each_agent!(self, a => a.observe(transition, rng))
    }
    fn remember(&mut self, transition: &Experience) {
        each_agent!(self, a => a.remember(transition))
    }
    fn expert_episodes_per_task(&self) -> u32 {
        each_agent!(self, a => a.expert_episodes_per_task())
    }
    async fn end_episode(&mut self, progress: &RollingMetrics) -> Result<Option<f64>, String> {
        each_agent!(self, a => a.end_episode(progress).await)
    }
    fn finish(&mut self) {
        each_agent!(self, a => a.finish())
    }
    fn epsilon(&self) -> Option<f64> {
        each_agent!(self, a => a.epsilon())
    }
    fn action_values(&self, obs: Observation, features: &[f32]) -> Vec<f64> {
        each_agent!(self, a => a.action_values(obs, features))
    }
    fn embedding_dim(&self) -> Option<usize> {
        each_agent!(self, a => a.embedding_dim())
    }
    fn checkpoint(&self) -> Result<Checkpoint, String> {
        each_agent!(self, a => a.checkpoint())
    }
    fn load_checkpoint(&mut self, checkpoint: &Checkpoint) -> Result<(), String> {
        each_agent!(self, a => a.load_checkpoint(checkpoint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_learn_step_is_measured_in_multiply_adds_through_the_trunk() {
        let env = EnvId::Executive.default_spec();
        // Three texts and six flags: 3·384 + 6 = 1158 inputs to [512, 256] (docs/benchmarks.md's
        // 46 M at batch 64), and 3·16 + 6 = 54 inputs to [64, 32] for the page's default.
        let seed = AgentSpec::Dqn(dqn::DqnParams::seed(EnvId::Executive));
        assert_eq!(seed.learn_step_multiply_adds(&env), Some((1158 * 512 + 512 * 256) * 64));
        let playground = AgentSpec::Dqn(dqn::DqnParams::playground(EnvId::Executive));
        assert_eq!(playground.learn_step_multiply_adds(&env), Some((54 * 64 + 64 * 32) * 64));
        assert_eq!(AgentId::QLearning.default_spec(EnvId::Executive).learn_step_multiply_adds(&env), None);
    }

    #[test]
    fn argmax_respects_the_mask_and_breaks_ties_low() {
        let values = [9.0, 1.0, 1.0, 5.0];
        assert_eq!(masked_argmax(&values, ActionMask::from_legal(&[false, true, true, false])), 1);
        assert_eq!(masked_argmax(&values, ActionMask::all(4)), 0);
        // An empty mask falls back to every action.
        assert_eq!(masked_argmax(&values, ActionMask(0)), 0);
    }

    #[test]
    fn random_choices_stay_legal_and_cover_the_mask() {
        let mut rng = RunRng::seed_from_u64(3);
        let mask = ActionMask::from_legal(&[false, true, false, true, true]);
        let mut seen = [0; 5];
        for _ in 0..300 {
            seen[random_legal(mask, 5, &mut rng)] += 1;
        }
        assert_eq!(seen[0] + seen[2], 0);
        assert!(seen[1] > 50 && seen[3] > 50 && seen[4] > 50, "{seen:?}");
    }

    #[test]
    fn unknown_agent_names_the_valid_ones() {
        let err = AgentId::parse("ppo").unwrap_err();
        assert!(err.contains("q-learning, thompson-sampling, q-thompson, dqn"), "{err}");
    }

    #[test]
    fn params_schema_describes_every_field_with_its_doc_comment() {
        let schema = AgentId::QLearning.default_spec(EnvId::Orchestrator).params_schema();
        assert_eq!(schema["properties"]["alpha"]["description"], "Learning rate α.");
        let schema = AgentId::QThompson.default_spec(EnvId::Orchestrator).params_schema();
        assert!(schema["$defs"]["ThompsonParams"]["properties"]["prior_alpha"]["description"].is_string(), "{schema}");
    }

    #[test]
    fn specs_round_trip_through_json() {
        for id in AgentId::ALL {
            let spec = id.default_spec(EnvId::Executive);
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<AgentSpec>(&json).unwrap(), spec, "{json}");
            assert!(spec.validate().is_ok());
        }
    }
}
