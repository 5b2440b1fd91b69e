//! The settings of a curriculum run against an LLM (`completion.rs`): seed 002's sampling, the
//! curriculum's, the simulated LLM's and the held-out tests', with their defaults.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::curriculum::CurriculumParams;
use super::fgo::CompileErrorRule;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CompletionParams {
    /// M: completions per task per round (and per stage in a profile).
    pub samples: usize,
    /// Rounds per task in a curriculum run.
    pub rounds: usize,
    /// The endpoint's sampling temperature (seed 002 §4.2: 0.8 while training).
    pub temperature: f64,
    /// The endpoint's nucleus (seed 002 §4.2: 0.9).
    pub top_p: f64,
    /// The simulated LLM: the chance that it gets a remaining conditional statement's header
    /// wrong (half of the time a logic fault, half a syntax break).
    pub simulated_fault: f64,
    /// The simulated LLM: the chance that its reply repeats the prefix.
    pub simulated_repeat: f64,
    /// The curriculum (α, ρ_t, which statements count, when ρ is updated).
    pub curriculum: CurriculumParams,
    /// What the mask view does with programs that do not compile.
    pub compile_errors: CompileErrorRule,
    /// The share of each task's tests held out from the LLM (EvilGenie's measure; 0: none): the
    /// prompt shows the others, which alone give the reward, the mask and ρ (not from the paper).
    pub held_out_share: f64,
    /// Draws which tests are held out.
    pub held_out_seed: u64,
}

impl Default for CompletionParams {
    fn default() -> Self {
        Self {
            samples: 4,
            rounds: 8,
            temperature: 0.8,
            top_p: 0.9,
            simulated_fault: 0.3,
            simulated_repeat: 0.25,
            curriculum: CurriculumParams::default(),
            compile_errors: CompileErrorRule::MaskAll,
            held_out_share: 0.0,
            held_out_seed: 1,
        }
    }
}

impl crate::params::Parameters for CompletionParams {
    fn params_schema(&self) -> serde_json::Value {
        schemars::schema_for!(CompletionParams).to_value()
    }

    fn validate(&self) -> Result<(), String> {
        use crate::params::check_range;
        if !(1..=64).contains(&self.samples) {
            return Err(format!("samples must be between 1 and 64, got {}", self.samples));
        }
        if !(1..=1000).contains(&self.rounds) {
            return Err(format!("rounds must be between 1 and 1000, got {}", self.rounds));
        }
        check_range("temperature", self.temperature, 0.0..=2.0)?;
        check_range("top_p", self.top_p, 0.01..=1.0)?;
        check_range("simulated_fault", self.simulated_fault, 0.0..=1.0)?;
        check_range("simulated_repeat", self.simulated_repeat, 0.0..=1.0)?;
        check_range("curriculum.alpha", self.curriculum.alpha, 0.001..=1.0)?;
        check_range("curriculum.rho_threshold", self.curriculum.rho_threshold, 0.0..=0.999)?;
        check_range("held_out_share", self.held_out_share, 0.0..=0.999)
    }
}
