//! PPO on a language model's tokens as seed 002 §4.2 specifies it and the authors' PPO code
//! (MPLSandbox's `mplsandbox_for_rl/ppo`, the trainer derived from StepCoder's) computes it:
//! - each generated token's reward is the KL penalty −β(log π_old − log π_ref), and the test reward
//!   of eq. 3 is added at the reply's last token (`penalized_rewards[-1] += reward`);
//! - advantages by GAE (eq. 2) over the whole reply, the value head's estimates as the baseline;
//! - the policy's loss is the clipped surrogate, the value's the squared error to the returns, each
//!   averaged over the tokens the loss mask keeps: generated tokens only (CCCS's prefix is prompt),
//!   and with FGO only those on lines the tests ran (`fgo`).
//!
//! The arrays are one reply's tokens in order; the losses take `[replies, tokens]` tensors with
//! the mask 0 on padding.

use burn::tensor::Tensor;

/// Each generated token's reward: the KL penalty to the reference model, and `reward` (eq. 3's, for
/// the whole program) added at the last token.
pub fn token_rewards(old_log_probs: &[f32], reference_log_probs: &[f32], kl_coefficient: f32, reward: f32) -> Vec<f32> {
    let mut rewards: Vec<f32> = old_log_probs
        .iter()
        .zip(reference_log_probs)
        .map(|(old, reference)| -kl_coefficient * (old - reference))
        .collect();
    if let Some(last) = rewards.last_mut() {
        *last += reward;
    }
    rewards
}

/// GAE's advantages and the returns the value head learns.
#[derive(Clone, Debug, PartialEq)]
pub struct Advantages {
    pub advantages: Vec<f32>,
    pub returns: Vec<f32>,
}

/// Generalised advantage estimation (eq. 2) over one reply: δ_t = r_t + γV_{t+1} − V_t with the
/// value after the last token 0 (the episode ends there), A_t = δ_t + γλA_{t+1}, R_t = A_t + V_t.
pub fn gae(rewards: &[f32], values: &[f32], gamma: f32, lambda: f32) -> Advantages {
    let n = rewards.len();
    let mut advantages = vec![0.0; n];
    let mut next_advantage = 0.0;
    for t in (0..n).rev() {
        let next_value = if t + 1 < n { values[t + 1] } else { 0.0 };
        let delta = rewards[t] + gamma * next_value - values[t];
        next_advantage = delta + gamma * lambda * next_advantage;
        advantages[t] = next_advantage;
    }
    let returns = advantages.iter().zip(values).map(|(a, v)| a + v).collect();
    Advantages { advantages, returns }
}

/// The mean of `terms` over the tokens `mask` keeps (0 when it keeps none).
fn masked_mean(terms: Tensor<2>, mask: Tensor<2>) -> Tensor<1> {
    let kept = mask.clone().sum().clamp_min(1.0);
    (terms * mask).sum() / kept
}

/// The clipped surrogate loss −mean(min(ρA, clip(ρ, 1 − ε, 1 + ε)A)) over the kept tokens, with
/// ρ = π_θ/π_old from the log-probabilities.
pub fn clipped_policy_loss(
    new_log_probs: Tensor<2>,
    old_log_probs: Tensor<2>,
    advantages: Tensor<2>,
    mask: Tensor<2>,
    clip: f32,
) -> Tensor<1> {
    let ratio = (new_log_probs - old_log_probs).exp();
    let unclipped = ratio.clone() * advantages.clone();
    let clipped = ratio.clamp(1.0 - clip, 1.0 + clip) * advantages;
    -masked_mean(unclipped.min_pair(clipped), mask)
}

/// The value head's loss: half the squared error to the returns, over the kept tokens.
pub fn value_loss(values: Tensor<2>, returns: Tensor<2>, mask: Tensor<2>) -> Tensor<1> {
    masked_mean((values - returns).powi_scalar(2), mask) * 0.5
}

#[cfg(test)]
mod tests {
    use burn::tensor::TensorData;

    use super::*;
    use crate::device::Backend;

    fn close(a: &[f32], b: &[f32]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-6, "{a:?} against {b:?}");
        }
    }

    fn matrix(rows: &[&[f32]]) -> Tensor<2> {
        let device = Backend::Ndarray.inference_device().unwrap();
        let flat: Vec<f32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Tensor::from_data(TensorData::new(flat, [rows.len(), rows[0].len()]), &device)
    }

    fn scalar(t: Tensor<1>) -> f32 {
        t.into_scalar::<f32>()
    }

    #[test]
    fn the_kl_penalty_is_per_token_and_the_test_reward_joins_the_last() {
        // −0.05 × (−1 − (−1.5)) = −0.025; −0.05 × (−2 − (−1)) = +0.05, then −0.3 (a failed test).
        close(&token_rewards(&[-1.0, -2.0], &[-1.5, -1.0], 0.05, -0.3), &[-0.025, -0.25]);
        assert!(token_rewards(&[], &[], 0.05, 1.0).is_empty());
    }

    #[test]
    fn gae_runs_back_from_the_end_of_the_reply() {
        // δ = [0, 0, 0.5]; A₂ = 0.5, A₁ = 0.95 × 0.5, A₀ = 0.95² × 0.5; R = A + V.
        let found = gae(&[0.0, 0.0, 1.0], &[0.5, 0.5, 0.5], 1.0, 0.95);
        close(&found.advantages, &[0.45125, 0.475, 0.5]);
        close(&found.returns, &[0.95125, 0.975, 1.0]);
        // γ = λ = 1: every advantage is the return to the end minus the value.
        let found = gae(&[0.1, -0.2, 0.7], &[0.3, 0.0, 0.4], 1.0, 1.0);
        close(&found.advantages, &[0.3, 0.5, 0.3]);
        close(&found.returns, &[0.6, 0.5, 0.7]);
    }

    #[test]
    fn the_surrogate_is_clipped_and_averaged_over_the_kept_tokens() {
        let old = matrix(&[&[0.0, 0.0]]);
        let new = matrix(&[&[1.5f32.ln(), 0.5f32.ln()]]);
        let advantage = matrix(&[&[1.0, 1.0]]);
        // min(1.5, 1.2) = 1.2 and min(0.5, 0.8) = 0.5: −(1.2 + 0.5) / 2.
        let both = clipped_policy_loss(new.clone(), old.clone(), advantage.clone(), matrix(&[&[1.0, 1.0]]), 0.2);
        assert!((scalar(both) + 0.85).abs() < 1e-6);
        let first = clipped_policy_loss(new.clone(), old.clone(), advantage, matrix(&[&[1.0, 0.0]]), 0.2);
        assert!((scalar(first) + 1.2).abs() < 1e-6);
        // A negative advantage takes the unclipped ratio when it is the smaller: min(−1.5, −1.2).
        let against =
            clipped_policy_loss(new.clone(), old.clone(), matrix(&[&[-1.0, 0.0]]), matrix(&[&[1.0, 0.0]]), 0.2);
        assert!((scalar(against) - 1.5).abs() < 1e-6);
        // Nothing kept: no loss.
        let none = clipped_policy_loss(new, old, matrix(&[&[1.0, 1.0]]), matrix(&[&[0.0, 0.0]]), 0.2);
        assert_eq!(scalar(none), 0.0);
    }

    #[test]
    fn the_value_loss_is_half_the_masked_squared_error() {
        let loss = value_loss(matrix(&[&[1.0, 0.0, 5.0]]), matrix(&[&[0.0, 2.0, 0.0]]), matrix(&[&[1.0, 1.0, 0.0]]));
        // (1 + 4) / 2 kept tokens, halved.
        assert!((scalar(loss) - 1.25).abs() < 1e-6);
    }
}
