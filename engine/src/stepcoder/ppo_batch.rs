//! One prompt's rollouts as PPO's batch on the language model: the replies padded into one
//! `[rows, prompt + width]` tensor, the policy's log-probabilities before the update and the
//! reference's (the base without its adapters), the critic's values, and from them each token's
//! reward, GAE's advantages and the returns ([`token_ppo`]); then, each epoch, the clipped loss and
//! the value loss of the policy as it now is.
//!
//! [`token_ppo`]: super::token_ppo

use burn::module::Module;
use burn::nn::Linear;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};

use super::model_ppo_params::ModelPpoParams;
use super::token_ppo::{clipped_policy_loss, gae, token_rewards, value_loss};
use crate::device::f32_values;
use crate::lm::kv_cache::KvCache;
use crate::lm::model::{Transformer, Weights};
use crate::rng::{RunRng, seeded_linear};

/// The value head: the critic's estimate of the return from each state, read off the policy's
/// last hidden state, which it does not train (ours: §4.2's critic is a model of its own).
#[derive(Module, Debug)]
pub struct ValueHead {
    linear: Linear,
}

impl ValueHead {
    /// Drawn from the run's RNG, so that a seed trains the same in every process.
    pub fn new(embedding: usize, device: &Device, rng: &mut RunRng) -> Self {
        Self { linear: seeded_linear(embedding, 1, device, rng) }
    }
}

/// One rollout's reply: its tokens (the end of the turn included), eq. 3's reward for its program,
/// and which tokens the loss keeps (1) or masks (0).
pub struct RolloutReply<'a> {
    pub tokens: &'a [u32],
    pub reward: f32,
    pub mask: &'a [f32],
}

/// One prompt's rollouts, ready for the loss.
pub struct PpoBatch {
    tokens: Tensor<2, Int>,
    prompt_length: usize,
    width: usize,
    old_log_probs: Tensor<2>,
    advantages: Tensor<2>,
    returns: Tensor<2>,
    mask: Tensor<2>,
    /// Σ (log π_old − log π_ref) over the replies' tokens: the KL estimate's numerator.
    pub kl_sum: f64,
    /// The replies' tokens, padding aside.
    pub reply_tokens: usize,
}

impl PpoBatch {
    /// The batch of `replies` to `prompt` under `policy` as it drew them and `critic` (both without
    /// autodiff: constants of the loss); the reference is `policy` without its adapters. Awaits
    /// the log-probabilities and values it reads back (WebGPU in a browser cannot block on them).
    pub async fn new(
        policy: &Transformer,
        critic: &ValueHead,
        prompt: &[u32],
        replies: &[RolloutReply<'_>],
        params: &ModelPpoParams,
    ) -> Result<Self, String> {
        let device = policy.device();
        let width = replies.iter().map(|r| r.tokens.len()).max().unwrap_or(1).max(1);
        let rows = replies.len();
        let mut flat = Vec::with_capacity(rows * (prompt.len() + width));
        let mut mask = vec![0.0f32; rows * width];
        for (row, reply) in replies.iter().enumerate() {
            flat.extend(prompt.iter().map(|&t| i64::from(t)));
            flat.extend((0..width).map(|t| reply.tokens.get(t).map_or(0, |&token| i64::from(token))));
            mask[row * width..row * width + reply.mask.len()].copy_from_slice(reply.mask);
        }
        let tokens = Tensor::<2, Int>::from_data(TensorData::new(flat, [rows, prompt.len() + width]), &device);
        let (old, values) = forward(policy, Some(critic), &tokens, prompt.len(), width, Weights::Adapted);
        let (reference, _) = forward(policy, None, &tokens, prompt.len(), width, Weights::Base);
        let old_values = f32_values(old.clone().into_data_async().await)?;
        let reference_values = f32_values(reference.into_data_async().await)?;
        let value_values = f32_values(values.expect("the critic ran").into_data_async().await)?;
        let mut advantages = vec![0.0f32; rows * width];
        let mut returns = vec![0.0f32; rows * width];
        let mut kl_sum = 0.0;
        for (row, reply) in replies.iter().enumerate() {
            let span = row * width..row * width + reply.tokens.len();
            let (old, reference) = (&old_values[span.clone()], &reference_values[span.clone()]);
            kl_sum += old.iter().zip(reference).map(|(o, r)| f64::from(o - r)).sum::<f64>();
            let rewards = token_rewards(old, reference, params.kl_coefficient, reply.reward);
            let estimated = gae(&rewards, &value_values[span.clone()], params.gamma, params.lambda);
            advantages[span.clone()].copy_from_slice(&estimated.advantages);
            returns[span].copy_from_slice(&estimated.returns);
        }
        let matrix = |values: Vec<f32>| Tensor::<2>::from_data(TensorData::new(values, [rows, width]), &device);
        Ok(Self {
            tokens,
            prompt_length: prompt.len(),
            width,
            old_log_probs: old,
            advantages: matrix(advantages),
            returns: matrix(returns),
            mask: matrix(mask),
            kl_sum,
            reply_tokens: replies.iter().map(|r| r.tokens.len()).sum(),
        })
    }

    /// The clipped policy loss and the value loss of `policy` and `critic` as they are now.
    pub fn losses(&self, policy: &Transformer, critic: &ValueHead, clip: f32) -> (Tensor<1>, Tensor<1>) {
        let (log_probs, values) =
            forward(policy, Some(critic), &self.tokens, self.prompt_length, self.width, Weights::Adapted);
        let policy_loss = clipped_policy_loss(
            log_probs,
            self.old_log_probs.clone(),
            self.advantages.clone(),
            self.mask.clone(),
            clip,
        );
        let value_loss = value_loss(values.expect("the critic ran"), self.returns.clone(), self.mask.clone());
        (policy_loss, value_loss)
    }
}

/// Log-probabilities `[rows, width]` of the reply tokens in `tokens` `[rows, prompt + width]`
/// under `weights`, and `critic`'s estimates at the same states when given.
fn forward(
    transformer: &Transformer,
    critic: Option<&ValueHead>,
    tokens: &Tensor<2, Int>,
    prompt_length: usize,
    width: usize,
    weights: Weights,
) -> (Tensor<2>, Option<Tensor<2>>) {
    let [rows, _] = tokens.dims();
    let d = transformer.config.embedding;
    let inputs = tokens.clone().narrow(1, 0, prompt_length + width - 1);
    let hidden = transformer.hidden(inputs, &mut KvCache::default(), weights);
    // Position p predicts token p + 1: the reply's tokens from the prompt's last position on.
    let states = hidden.narrow(1, prompt_length - 1, width).reshape([rows * width, d]);
    let log_probs = log_softmax(transformer.logits(states.clone()), 1);
    let targets = tokens.clone().narrow(1, prompt_length, width).reshape([rows * width, 1]);
    let chosen = log_probs.gather(1, targets).reshape([rows, width]);
    let values = critic.map(|head| head.linear.forward(states.detach()).reshape([rows, width]));
    (chosen, values)
}
