//! Dueling double DQN with action masking: seed 000 §4 and Listing 6, on burn.
//!
//! * **Network**: a ReLU trunk, then a value head and an advantage head (one hidden layer of half
//!   the trunk's last size each); `Q = V + A − mean(A)`.
//! * **Targets** (double DQN): the online network picks `a* = argmax Q_online(s', ·)` among the
//!   legal actions of `s'`, the target network values it: `y = r + γ Q_target(s', a*) (1 − done)`.
//!   The seed's argmax also ranges over illegal actions; masking it keeps actions the agent can never
//!   take out of its targets.
//! * **Loss**: MSE, Adam, gradients clipped to norm `grad_clip_norm` (burn clips each parameter
//!   tensor's norm; PyTorch's `clip_grad_norm_` clips their joint norm).
//! * **Replay**: a ring buffer; a batch is drawn without replacement once `learning_starts`
//!   transitions are stored; before training it is seeded with the seed's expert episodes.
//! * **Exploration**: ε-greedy, ε multiplied by `epsilon_decay` after every learn step (as in the
//!   seed's `train_step`) down to `epsilon_min`; exploratory actions are drawn among the legal ones
//!   unless `explore_with_mask` is off (the seed's planner explores the whole action space).
//! * **Best checkpoint**: the network with the highest success(last100), ties broken by mean return,
//!   becomes the greedy policy when training ends.
//!
//! Weights are initialised from the run's RNG (PyTorch's default uniform ±1/√fan_in), so a run is
//! reproducible without touching burn's global seed.
//!
//! A browser cannot wait for its GPU, so on WebGPU every value is read back asynchronously: acting
//! awaits the Q-values ([`Dqn::act_async`]), a learn step reads nothing (targets are computed on the
//! device, losses are read once per episode), and the greedy network is copied to the CPU
//! ([`Dqn::copy_to_cpu`]) for evaluations, policy views and checkpoints.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use burn::grad_clipping::GradientClippingConfig;
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::store::ModuleRecord;
use burn::tensor::{Bool, Bytes, Device, Int, Tensor, TensorData};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Agent, AgentId, Checkpoint, Experience, RollingMetrics, masked_argmax, random_legal};
use crate::device::{Backend, f32_values, resolved};
use crate::params::check_range;
use crate::rng::RunRng;

mod network;
mod replay;

use crate::env::{ActionMask, EnvId, Observation};
pub use network::DuelingQNet;
use replay::Replay;

/// Hyperparameters of the agent. [`DqnParams::seed`] is seed 000's table 1; the default is
/// [`DqnParams::playground`], sized so that a person sees it learn in seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DqnParams {
    /// Hidden sizes of the shared trunk.
    pub hidden: Vec<usize>,
    /// Size of each text embedding in the input (prompt, code, feedback); 0 gives the flags alone.
    pub embedding_dim: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Discount factor γ.
    pub gamma: f64,
    /// Transitions per learn step.
    pub batch_size: usize,
    /// Transitions the replay buffer holds; the oldest go first.
    pub replay_capacity: usize,
    /// Transitions stored before learning begins.
    pub learning_starts: usize,
    /// Learn steps between copies of the online network into the target network.
    pub target_update: u32,
    /// Exploration rate before the first learn step.
    pub epsilon_start: f64,
    /// Exploration rate floor.
    pub epsilon_min: f64,
    /// Factor applied to ε after every learn step.
    pub epsilon_decay: f64,
    /// Largest norm of each parameter's gradient.
    pub grad_clip_norm: f64,
    /// Scripted expert episodes per task stored in the replay buffer before training.
    pub expert_episodes_per_task: u32,
    /// Exploratory actions are drawn among the legal actions only.
    pub explore_with_mask: bool,
}

impl Default for DqnParams {
    fn default() -> Self {
        Self::playground(EnvId::Executive)
    }
}

impl DqnParams {
    /// Seed 000's table 1: trunk [512, 256], three 384-dimensional text embeddings plus six flags
    /// (1158 inputs, as with the seed's sentence transformer), learning rate 3e-4, γ 0.99. The
    /// planner (Listing 9) decays ε by 0.9995, explores unmasked and starts without experts.
    pub fn seed(env: EnvId) -> Self {
        let planner = env == EnvId::Planner;
        Self {
            hidden: vec![512, 256],
            embedding_dim: 384,
            learning_rate: 3e-4,
            gamma: 0.99,
            batch_size: 64,
            replay_capacity: 8000,
            learning_starts: 32,
            target_update: 200,
            epsilon_start: 1.0,
            epsilon_min: 0.05,
            epsilon_decay: if planner { 0.9995 } else { 0.995 },
            grad_clip_norm: 0.5,
            expert_episodes_per_task: if planner { 0 } else { 8 },
            explore_with_mask: !planner,
        }
    }

    /// The page's default: the flags alone decide the legal and the best action, so a small trunk
    /// over small embeddings learns the same policies in a fraction of the time. Every environment
    /// gets 8 expert episodes per task, ε ×0.995 per learn step and an ε floor of 0.01; exploration
    /// stays as the seed has it. For the planner that matters: it explores unmasked, where four
    /// actions in five are illegal and doom the episode, so the seed's floor of 0.05 caps training
    /// success near (1 − 0.05·4/5)^5 = 82%; a floor of 0.01 lifts the cap to 96%, and the greedy
    /// policy still has to learn the order rather than read it from the mask.
    pub fn playground(env: EnvId) -> Self {
        Self {
            hidden: vec![64, 32],
            embedding_dim: 16,
            learning_rate: 5e-4,
            target_update: 100,
            epsilon_decay: 0.995,
            epsilon_min: 0.01,
            expert_episodes_per_task: 8,
            ..Self::seed(env)
        }
    }

    /// Multiply-adds of one forward pass of a batch of `inputs` features through the trunk: the
    /// work a learn step's time follows, and the measure of where a GPU pays
    /// ([`crate::device::WGPU_PAYS_FROM_MULTIPLY_ADDS`]).
    pub fn trunk_multiply_adds(&self, inputs: usize) -> u64 {
        let layer_inputs = std::iter::once(inputs).chain(self.hidden.iter().copied());
        let per_transition: usize = layer_inputs.zip(&self.hidden).map(|(from, to)| from * to).sum();
        (per_transition * self.batch_size) as u64
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.hidden.is_empty() || self.hidden.len() > 4 || self.hidden.iter().any(|&h| !(1..=2048).contains(&h)) {
            return Err(format!("hidden must list 1 to 4 layer sizes between 1 and 2048, got {:?}", self.hidden));
        }
        check_range("embedding_dim", self.embedding_dim as f64, 0.0..=1024.0)?;
        check_range("learning_rate", self.learning_rate, 1e-6..=1.0)?;
        check_range("gamma", self.gamma, 0.0..=1.0)?;
        check_range("batch_size", self.batch_size as f64, 1.0..=1024.0)?;
        check_range("replay_capacity", self.replay_capacity as f64, self.batch_size as f64..=1_000_000.0)?;
        check_range("learning_starts", self.learning_starts as f64, 1.0..=self.replay_capacity as f64)?;
        check_range("target_update", f64::from(self.target_update), 1.0..=100_000.0)?;
        check_range("epsilon_start", self.epsilon_start, 0.0..=1.0)?;
        check_range("epsilon_min", self.epsilon_min, 0.0..=self.epsilon_start)?;
        check_range("epsilon_decay", self.epsilon_decay, 0.0..=1.0)?;
        check_range("grad_clip_norm", self.grad_clip_norm, 1e-6..=1e6)?;
        check_range("expert_episodes_per_task", f64::from(self.expert_episodes_per_task), 0.0..=1000.0)
    }
}

/// Seed 000's double-DQN target of each transition of a batch: r + γ·Q_target(s′, a*)·(1 − done),
/// where a* is the online network's best action among those legal in s′. `online_next` and
/// `target_next` are both networks' values of s′ ([batch, actions]); `next_illegal` marks the
/// actions s′ rules out; `rewards` and `not_done` are [batch, 1]. Computed on the device, so that
/// nothing is read back during a learn step.
fn double_dqn_targets(
    online_next: Tensor<2>,
    target_next: Tensor<2>,
    next_illegal: Tensor<2, Bool>,
    rewards: Tensor<2>,
    not_done: Tensor<2>,
    gamma: f32,
) -> Tensor<2> {
    let best_next = online_next.mask_fill(next_illegal, -1e9).argmax(1);
    target_next.gather(1, best_next).mul_scalar(gamma).mul(not_done).add(rewards)
}

/// The agent: online and target networks, optimiser, replay memory and exploration state.
#[derive(Clone)]
pub struct Dqn {
    params: DqnParams,
    n_actions: usize,
    input_dim: usize,
    /// The training device (autodiff); the target network and inference use its inner device.
    device: Device,
    /// `None` only while a learn step has it.
    online: Option<DuelingQNet>,
    target: DuelingQNet,
    optimizer: ModuleOptimizer,
    replay: Replay,
    epsilon: f64,
    learn_steps: u32,
    /// This episode's losses, read back once when it ends rather than stalling every learn step.
    episode_losses: Vec<Tensor<1>>,
    /// Best success(last100), the mean return of the last 50 episodes then, and the network that
    /// reached them.
    best: Option<(f64, f64, DuelingQNet)>,
    /// The greedy policy once training has finished (the best checkpoint).
    policy: Option<DuelingQNet>,
    /// The greedy network read back to the CPU by [`Dqn::copy_to_cpu`], with the CPU device; it
    /// answers greedy queries until the agent learns again.
    cpu_copy: Option<(DuelingQNet, Device)>,
}

impl std::fmt::Debug for Dqn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dqn")
            .field("params", &self.params)
            .field("input_dim", &self.input_dim)
            .field("learn_steps", &self.learn_steps)
            .field("epsilon", &self.epsilon)
            .finish_non_exhaustive()
    }
}

impl Dqn {
    pub fn new(params: DqnParams, input_dim: usize, n_actions: usize, device: Device, rng: &mut RunRng) -> Self {
        let online = DuelingQNet::new(input_dim, &params.hidden, n_actions, &device, rng);
        let target = online.valid();
        // PyTorch's Adam, which the seed uses, divides by √v + 1e-8 (burn's default is 1e-5).
        let optimizer = AdamConfig::new()
            .with_epsilon(1e-8)
            .with_grad_clipping(Some(GradientClippingConfig::Norm(params.grad_clip_norm as f32)))
            .init();
        Self {
            n_actions,
            input_dim,
            device,
            online: Some(online),
            target,
            optimizer,
            replay: Replay::new(params.replay_capacity, input_dim),
            epsilon: params.epsilon_start,
            learn_steps: 0,
            episode_losses: Vec::new(),
            best: None,
            policy: None,
            cpu_copy: None,
            params,
        }
    }

    fn online(&self) -> &DuelingQNet {
        self.online.as_ref().expect("the online network is only taken during a learn step")
    }

    /// The network greedy actions come from: the best checkpoint once training has finished.
    fn greedy_network(&self) -> DuelingQNet {
        self.policy.clone().unwrap_or_else(|| self.online().valid())
    }

    /// Q-values of one observation under the greedy policy's network.
    pub fn q_values(&self, features: &[f32]) -> Vec<f32> {
        resolved(self.q_values_async(features))
    }

    /// [`q_values`](Self::q_values), awaiting the read-back.
    pub async fn q_values_async(&self, features: &[f32]) -> Result<Vec<f32>, String> {
        let input =
            |device: &Device| Tensor::<2>::from_data(TensorData::new(features.to_vec(), [1, self.input_dim]), device);
        let q = match (&self.cpu_copy, &self.policy) {
            (Some((copy, cpu)), _) => copy.forward(input(cpu)),
            (None, Some(policy)) => policy.forward(input(&self.device.clone().inner())),
            (None, None) => self.online().valid().forward(input(&self.device.clone().inner())),
        };
        f32_values(q.into_data_async().await)
    }

    /// Copies the greedy network to the CPU, where it answers greedy queries, policy views and
    /// checkpoints synchronously: a browser cannot wait for its GPU.
    pub async fn copy_to_cpu(&mut self) -> Result<(), String> {
        let cpu = Backend::Ndarray.device()?.inner();
        let copy = self.greedy_network().copy_to(&cpu).await?;
        self.cpu_copy = Some((copy, cpu));
        Ok(())
    }

    /// One gradient step on a replay minibatch.
    fn learn(&mut self, rng: &mut RunRng) {
        let p = &self.params;
        let batch = self.replay.sample(p.batch_size, self.n_actions, rng);
        let (b, d, a) = (batch.size, self.input_dim, self.n_actions);
        let inference = self.device.clone().inner();
        let online = self.online.take().expect("the online network is present between learn steps");

        let next_states = Tensor::<2>::from_data(TensorData::new(batch.next_states, [b, d]), &inference);
        let next_illegal = Tensor::<2, Bool>::from_data(TensorData::new(batch.next_illegal, [b, a]), &inference);
        let rewards = Tensor::<2>::from_data(TensorData::new(batch.rewards, [b, 1]), &inference);
        let not_done: Vec<f32> = batch.dones.iter().map(|done| 1.0 - done).collect();
        let not_done = Tensor::<2>::from_data(TensorData::new(not_done, [b, 1]), &inference);
        let targets = double_dqn_targets(
            online.valid().forward(next_states.clone()),
            self.target.forward(next_states),
            next_illegal,
            rewards,
            not_done,
            p.gamma as f32,
        );

        let states = Tensor::<2>::from_data(TensorData::new(batch.states, [b, d]), &self.device);
        let actions = Tensor::<2, Int>::from_data(TensorData::new(batch.actions, [b, 1]), &self.device);
        let loss = (online.forward(states).gather(1, actions) - targets).powi_scalar(2).mean();
        self.episode_losses.push(loss.clone().inner());
        self.cpu_copy = None;
        let grads = GradientsParams::from_grads(loss.backward(), &online);
        let online = self.optimizer.step(p.learning_rate, online, grads);

        self.learn_steps += 1;
        if self.learn_steps.is_multiple_of(p.target_update) {
            self.target = online.valid();
        }
        self.online = Some(online);
        self.epsilon = (self.epsilon * p.epsilon_decay).max(p.epsilon_min);
    }

    /// Gradient steps taken so far.
    pub fn learn_steps(&self) -> u32 {
        self.learn_steps
    }

    /// The greedy policy's network as burn record bytes (burnpack).
    pub fn network_bytes(&self) -> Result<Vec<u8>, String> {
        let network = match &self.cpu_copy {
            Some((copy, _)) => copy.clone(),
            None => self.greedy_network(),
        };
        let bytes = network.into_record().into_bytes().map_err(|e| format!("cannot save the network: {e}"))?;
        Ok(bytes.to_vec())
    }

    /// Makes the network in `bytes` (from [`network_bytes`](Self::network_bytes) of an agent with
    /// the same architecture) the greedy policy.
    pub fn load_network(&mut self, bytes: &[u8]) -> Result<(), String> {
        let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes.to_vec()))
            .map_err(|e| format!("not a network checkpoint: {e}"))?;
        let network = self
            .online()
            .valid()
            .try_load_record(record)
            .map_err(|e| format!("the checkpoint does not fit this network: {e}"))?;
        self.policy = Some(network);
        self.cpu_copy = None;
        Ok(())
    }
}

impl Agent for Dqn {
    async fn act(&mut self, obs: Observation, features: &[f32], rng: &mut RunRng) -> Result<usize, String> {
        // Training acts on the training device, so that pausing (which copies) never changes a run.
        self.cpu_copy = None;
        if rng.random::<f64>() < self.epsilon {
            let mask = if self.params.explore_with_mask { obs.mask } else { ActionMask::all(self.n_actions) };
            return Ok(random_legal(mask, self.n_actions, rng));
        }
        let values: Vec<f64> = self.q_values_async(features).await?.into_iter().map(f64::from).collect();
        Ok(masked_argmax(&values, obs.mask))
    }

    fn greedy(&self, obs: Observation, features: &[f32]) -> usize {
        masked_argmax(&self.action_values(obs, features), obs.mask)
    }

    fn observe(&mut self, transition: &Experience, rng: &mut RunRng) {
        self.replay.push(transition);
        if self.replay.len >= self.params.learning_starts {
            self.learn(rng);
        }
    }

    fn remember(&mut self, transition: &Experience) {
        self.replay.push(transition);
    }

    fn expert_episodes_per_task(&self) -> u32 {
        self.params.expert_episodes_per_task
    }

    /// Keeps the best network by success(last100), ties going to the higher mean return of the last
    /// 50 episodes, as seed 000's training loop does; unlike the seed, only once 100 episodes are in
    /// the window (before that, one lucky episode would read as 100% and could never be beaten).
    /// The loss is the mean over the episode's learn steps.
    async fn end_episode(&mut self, progress: &RollingMetrics) -> Result<Option<f64>, String> {
        let losses = match self.episode_losses.len() {
            0 => Vec::new(),
            _ => f32_values(Tensor::cat(std::mem::take(&mut self.episode_losses), 0).into_data_async().await)?,
        };
        let better = progress.window_full
            && self.best.as_ref().is_none_or(|(success, mean_return, _)| {
                progress.success_last100 > *success
                    || (progress.success_last100 == *success && progress.mean_return_last50 > *mean_return)
            });
        if better {
            self.best = Some((progress.success_last100, progress.mean_return_last50, self.online().valid()));
        }
        Ok((!losses.is_empty()).then(|| losses.iter().map(|&l| f64::from(l)).sum::<f64>() / losses.len() as f64))
    }

    /// The best network becomes the policy (the last one if the run was shorter than the window).
    fn finish(&mut self) {
        self.policy = Some(match &self.best {
            Some((_, _, best)) => best.clone(),
            None => self.online().valid(),
        });
        self.cpu_copy = None;
    }

    fn epsilon(&self) -> Option<f64> {
        Some(self.epsilon)
    }

    fn action_values(&self, _obs: Observation, features: &[f32]) -> Vec<f64> {
        self.q_values(features).into_iter().map(f64::from).collect()
    }

    fn embedding_dim(&self) -> Option<usize> {
        Some(self.params.embedding_dim)
    }

    fn checkpoint(&self) -> Result<Checkpoint, String> {
        Ok(Checkpoint::Network { burnpack: BASE64.encode(self.network_bytes()?) })
    }

    fn load_checkpoint(&mut self, checkpoint: &Checkpoint) -> Result<(), String> {
        match checkpoint {
            Checkpoint::Network { burnpack } => {
                let bytes =
                    BASE64.decode(burnpack).map_err(|e| format!("the checkpoint's network is not base64: {e}"))?;
                self.load_network(&bytes)
            }
            other => Err(other.mismatch(AgentId::Dqn)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::activation::relu;
    use rand::SeedableRng;

    fn agent(params: DqnParams, rng: &mut RunRng) -> Dqn {
        Dqn::new(params, 4, 3, Backend::Ndarray.device().unwrap(), rng)
    }

    #[test]
    fn dueling_heads_combine_as_v_plus_centred_a() {
        let mut rng = RunRng::seed_from_u64(0);
        let device = Backend::Ndarray.device().unwrap().inner();
        let net = DuelingQNet::new(4, &[8], 3, &device, &mut rng);
        let x = Tensor::<2>::from_data(TensorData::new(vec![0.5f32, -1.0, 2.0, 0.0], [1, 4]), &device);
        let trunk = net.trunk.iter().fold(x.clone(), |x, l| relu(l.forward(x)));
        let value = net.value_out.forward(relu(net.value_hidden.forward(trunk.clone())));
        let advantage = net.advantage_out.forward(relu(net.advantage_hidden.forward(trunk)));
        let q = net.forward(x).into_data().try_into_vec::<f32>().unwrap();
        let v = value.into_data().try_into_vec::<f32>().unwrap()[0];
        let a = advantage.into_data().try_into_vec::<f32>().unwrap();
        let mean = a.iter().sum::<f32>() / 3.0;
        for i in 0..3 {
            assert!((q[i] - (v + a[i] - mean)).abs() < 1e-5);
        }
    }

    #[test]
    fn learning_fits_a_one_step_reward() {
        // One state, three actions, reward = action index, episodes of one step.
        let params =
            DqnParams { hidden: vec![16], learning_starts: 8, expert_episodes_per_task: 0, ..DqnParams::default() };
        let mut rng = RunRng::seed_from_u64(1);
        let mut dqn = agent(params, &mut rng);
        let features = [1.0, 0.0, 0.5, 0.0];
        let obs = Observation { state: 0, mask: ActionMask::all(3) };
        for step in 0..600 {
            let action = step % 3;
            let t = Experience {
                state: 0,
                action,
                reward: action as f64,
                next: obs,
                done: true,
                features: &features,
                next_features: &features,
            };
            dqn.observe(&t, &mut rng);
        }
        let q = dqn.q_values(&features);
        assert!((q[0] - 0.0).abs() < 0.2 && (q[1] - 1.0).abs() < 0.2 && (q[2] - 2.0).abs() < 0.2, "{q:?}");
        assert_eq!(dqn.greedy(obs, &features), 2);
        let only_first_two = Observation { state: 0, mask: ActionMask::from_legal(&[true, true, false]) };
        assert_eq!(dqn.greedy(only_first_two, &features), 1, "masked greedy");
        assert!(dqn.epsilon().unwrap() < 0.1, "ε decays per learn step");
    }

    /// Worked by hand. Row 1: the online network prefers action 1, but s′ rules it out, so a* = 2
    /// (its best legal action); the target network's value there is 20 (not its own best, 25 or
    /// 40): 1 + 0.9·20 = 19. Row 2 ends the episode: the target is the reward alone, −1.
    #[test]
    fn double_dqn_target_takes_the_online_argmax_among_legal_actions_and_the_target_value() {
        let device = Backend::Ndarray.device().unwrap().inner();
        let floats = |v: Vec<f32>, shape: [usize; 2]| Tensor::<2>::from_data(TensorData::new(v, shape), &device);
        let online_next = floats(vec![1.0, 5.0, 3.0, 2.0, 0.0, 1.0], [2, 3]);
        let target_next = floats(vec![25.0, 40.0, 20.0, 7.0, 8.0, 9.0], [2, 3]);
        let illegal = Tensor::<2, Bool>::from_data(
            TensorData::new(vec![false, true, false, false, false, false], [2, 3]),
            &device,
        );
        let targets = double_dqn_targets(
            online_next,
            target_next,
            illegal,
            floats(vec![1.0, -1.0], [2, 1]),
            floats(vec![1.0, 0.0], [2, 1]),
            0.9,
        );
        assert_eq!(targets.into_data().try_into_vec::<f32>().unwrap(), [19.0, -1.0]);
    }

    /// The target network is the online one as it was at the last multiple of `target_update`
    /// learn steps.
    #[test]
    fn the_target_network_follows_the_online_one_every_target_update_steps() {
        let params = DqnParams { hidden: vec![8], learning_starts: 4, target_update: 3, ..DqnParams::default() };
        let mut rng = RunRng::seed_from_u64(3);
        let mut dqn = agent(params, &mut rng);
        let features = [0.2, 1.0, 0.0, 0.5];
        let obs = Observation { state: 0, mask: ActionMask::all(3) };
        for action in 0..8 {
            let t = Experience {
                state: 0,
                action: action % 3,
                reward: 1.0,
                next: obs,
                done: false,
                features: &features,
                next_features: &features,
            };
            dqn.remember(&t);
        }
        let device = dqn.device.clone().inner();
        let values = |net: &DuelingQNet| {
            let x = Tensor::<2>::from_data(TensorData::new(features.to_vec(), [1, 4]), &device);
            net.forward(x).into_data().try_into_vec::<f32>().unwrap()
        };
        let first = values(&dqn.target);
        for step in 1..=6 {
            dqn.learn(&mut rng);
            let (target, online) = (values(&dqn.target), values(&dqn.online().valid()));
            if step % 3 == 0 {
                assert_eq!(target, online, "step {step}: copied");
            } else {
                assert_ne!(target, online, "step {step}: the online network moved on");
                assert_eq!(target == first, step < 3, "step {step}: the target waits for the next copy");
            }
        }
    }

    #[test]
    fn checkpoints_round_trip_and_reject_other_shapes() {
        let mut rng = RunRng::seed_from_u64(2);
        let trained = agent(DqnParams::default(), &mut rng);
        let bytes = trained.network_bytes().unwrap();
        let mut fresh = agent(DqnParams::default(), &mut rng);
        let features = [0.3, 0.1, 0.0, 1.0];
        assert_ne!(fresh.q_values(&features), trained.q_values(&features));
        fresh.load_network(&bytes).unwrap();
        assert_eq!(fresh.q_values(&features), trained.q_values(&features));

        let mut other = agent(DqnParams { hidden: vec![8], ..DqnParams::default() }, &mut rng);
        assert!(other.load_network(&bytes).unwrap_err().starts_with("the checkpoint does not fit"));
        assert!(other.load_network(b"not a checkpoint").unwrap_err().starts_with("not a network checkpoint"));
        let not_base64 = Checkpoint::Network { burnpack: "***".into() };
        assert!(other.load_checkpoint(&not_base64).unwrap_err().starts_with("the checkpoint's network is not base64"));
        let table = Checkpoint::QTable { q: vec![0.0; 4] };
        assert_eq!(other.load_checkpoint(&table).unwrap_err(), "a Q-table checkpoint does not fit a dqn agent");
    }

    #[test]
    fn a_cpu_copy_answers_like_the_network_until_the_agent_learns() {
        let mut rng = RunRng::seed_from_u64(3);
        let mut dqn = agent(DqnParams { hidden: vec![8, 6], learning_starts: 1, ..DqnParams::default() }, &mut rng);
        let features = [0.2, -0.4, 1.0, 0.7];
        let on_device = dqn.q_values(&features);
        crate::device::completed(dqn.copy_to_cpu()).unwrap();
        assert!(dqn.cpu_copy.is_some());
        assert_eq!(dqn.q_values(&features), on_device, "every layer is copied in its place");
        let obs = Observation { state: 0, mask: ActionMask::all(3) };
        let t = Experience {
            state: 0,
            action: 1,
            reward: 1.0,
            next: obs,
            done: true,
            features: &features,
            next_features: &features,
        };
        dqn.observe(&t, &mut rng);
        assert!(dqn.cpu_copy.is_none(), "a learn step makes the copy stale");
        assert_ne!(dqn.q_values(&features), on_device);
    }

    #[test]
    fn validation_names_the_field() {
        let bad = DqnParams { hidden: vec![], ..DqnParams::default() };
        assert!(bad.validate().unwrap_err().starts_with("hidden"));
        let bad = DqnParams { learning_starts: 0, ..DqnParams::default() };
        assert!(bad.validate().unwrap_err().starts_with("learning_starts"));
        assert!(DqnParams::seed(EnvId::Planner).validate().is_ok());
        assert!(!DqnParams::seed(EnvId::Planner).explore_with_mask);
    }
}
