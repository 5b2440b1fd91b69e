//! The DQN's replay memory: a ring buffer of transitions with their features, as flat arrays,
//! sampled without replacement.

use rand::seq::index;

use crate::agents::{Experience, effective_mask};
use crate::env::ActionMask;
use crate::rng::RunRng;

/// Replay memory of transitions with their features, as flat arrays.
#[derive(Clone, Debug, Default)]
pub(super) struct Replay {
    pub(super) capacity: usize,
    pub(super) input_dim: usize,
    /// Next slot to overwrite once full.
    pub(super) cursor: usize,
    pub(super) len: usize,
    pub(super) states: Vec<f32>,
    pub(super) next_states: Vec<f32>,
    pub(super) actions: Vec<i64>,
    pub(super) rewards: Vec<f32>,
    pub(super) dones: Vec<f32>,
    pub(super) next_masks: Vec<ActionMask>,
}

impl Replay {
    pub(super) fn new(capacity: usize, input_dim: usize) -> Self {
        Self { capacity, input_dim, ..Self::default() }
    }

    pub(super) fn push(&mut self, t: &Experience) {
        let d = self.input_dim;
        if self.len < self.capacity {
            self.states.extend_from_slice(t.features);
            self.next_states.extend_from_slice(t.next_features);
            self.actions.push(t.action as i64);
            self.rewards.push(t.reward as f32);
            self.dones.push(f32::from(u8::from(t.done)));
            self.next_masks.push(t.next.mask);
            self.len += 1;
        } else {
            let i = self.cursor;
            self.states[i * d..(i + 1) * d].copy_from_slice(t.features);
            self.next_states[i * d..(i + 1) * d].copy_from_slice(t.next_features);
            self.actions[i] = t.action as i64;
            self.rewards[i] = t.reward as f32;
            self.dones[i] = f32::from(u8::from(t.done));
            self.next_masks[i] = t.next.mask;
        }
        self.cursor = (self.cursor + 1) % self.capacity;
    }
}

/// One minibatch, gathered from the replay memory.
pub(super) struct Batch {
    pub(super) size: usize,
    pub(super) states: Vec<f32>,
    pub(super) next_states: Vec<f32>,
    pub(super) actions: Vec<i64>,
    pub(super) rewards: Vec<f32>,
    pub(super) dones: Vec<f32>,
    /// `true` where the action is illegal in the next state, `[size × actions]`.
    pub(super) next_illegal: Vec<bool>,
}

impl Replay {
    pub(super) fn sample(&self, batch_size: usize, n_actions: usize, rng: &mut RunRng) -> Batch {
        let size = batch_size.min(self.len);
        let d = self.input_dim;
        let mut batch = Batch {
            size,
            states: Vec::with_capacity(size * d),
            next_states: Vec::with_capacity(size * d),
            actions: Vec::with_capacity(size),
            rewards: Vec::with_capacity(size),
            dones: Vec::with_capacity(size),
            next_illegal: Vec::with_capacity(size * n_actions),
        };
        for i in index::sample(rng, self.len, size) {
            batch.states.extend_from_slice(&self.states[i * d..(i + 1) * d]);
            batch.next_states.extend_from_slice(&self.next_states[i * d..(i + 1) * d]);
            batch.actions.push(self.actions[i]);
            batch.rewards.push(self.rewards[i]);
            batch.dones.push(self.dones[i]);
            let mask = effective_mask(self.next_masks[i], n_actions);
            batch.next_illegal.extend((0..n_actions).map(|a| !mask.allows(a)));
        }
        batch
    }
}
