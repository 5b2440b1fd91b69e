//! What a run measures: each episode's record with the rolling window, aggregates of a policy,
//! the run's summary, and the fingerprint that tells two runs apart.

use std::hash::Hasher;

use serde::{Deserialize, Serialize};

use crate::agents::AgentId;
use crate::env::EnvId;
use crate::env::episode::EpisodeOutcome;

/// One training episode with the run's rolling metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// 0-based episode number.
    pub episode: u32,
    #[serde(flatten)]
    pub outcome: EpisodeOutcome,
    /// Exploration rate the episode was played with.
    pub epsilon: Option<f64>,
    pub loss: Option<f64>,
    /// Success rate over the last 100 episodes, this one included.
    pub success_last100: f64,
    /// Mean return over the last 100 episodes, this one included.
    pub mean_return_last100: f64,
}

/// Aggregates of a policy played without learning.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub episodes: u32,
    pub success_rate: f64,
    pub mean_return: f64,
    pub mean_length: f64,
    pub mean_agent_calls: f64,
}

impl Evaluation {
    pub fn of(outcomes: impl IntoIterator<Item = EpisodeOutcome>) -> Self {
        let mut totals = Totals::default();
        outcomes.into_iter().for_each(|o| totals.add(&o));
        totals.evaluation()
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Totals {
    episodes: u32,
    successes: u32,
    return_sum: f64,
    length_sum: u64,
    calls_sum: u64,
}

impl Totals {
    pub(super) fn add(&mut self, o: &EpisodeOutcome) {
        self.episodes += 1;
        self.successes += u32::from(o.success);
        self.return_sum += o.episode_return;
        self.length_sum += u64::from(o.length);
        self.calls_sum += u64::from(o.agent_calls);
    }

    pub(super) fn evaluation(&self) -> Evaluation {
        let n = f64::from(self.episodes.max(1));
        Evaluation {
            episodes: self.episodes,
            success_rate: f64::from(self.successes) / n,
            mean_return: self.return_sum / n,
            mean_length: self.length_sum as f64 / n,
            mean_agent_calls: self.calls_sum as f64 / n,
        }
    }
}

/// Training so far: the whole run's means and the rolling window's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub env: EnvId,
    pub agent: AgentId,
    pub seed: u64,
    /// Episodes trained so far.
    pub episodes: u32,
    pub success_last100: f64,
    pub best_success_last100: f64,
    pub mean_return: f64,
    pub mean_length: f64,
    pub mean_agent_calls: f64,
}

/// A short digest of a run's records (every episode's return bits, success and actions): two runs
/// with the same fingerprint trained identically, on whatever platform.
pub fn fingerprint(records: &[EpisodeRecord]) -> String {
    let mut digest = Fingerprint::default();
    records.iter().for_each(|r| digest.add(r));
    digest.value()
}

/// [`fingerprint`] kept up to date as records arrive, so that a run of a million episodes is not
/// digested all at once when it finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Self(fnv::FnvHasher::default().finish())
    }
}

impl Fingerprint {
    pub fn add(&mut self, record: &EpisodeRecord) {
        let mut hasher = fnv::FnvHasher::with_key(self.0);
        hasher.write_u32(record.episode);
        hasher.write_u64(record.outcome.episode_return.to_bits());
        hasher.write_u8(u8::from(record.outcome.success));
        hasher.write(&record.outcome.actions);
        self.0 = hasher.finish();
    }

    pub fn value(self) -> String {
        format!("{:016x}", self.0)
    }
}
