//! The settings of StepCoder on the engine's language model (`model_ppo.rs`): seed 002 §4.2's PPO
//! where the seed gives a value, and ours, each labelled, where it does not or where a model of a
//! few million parameters with LoRA cannot use a 6.7B model's full fine-tuning values.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::curriculum::CurriculumParams;
use super::fgo::CompileErrorRule;
use crate::lm::lora::{LoraParams, Projection};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ModelPpoParams {
    /// Rollouts sampled per task and update (§4.2: 16).
    pub rollouts: usize,
    /// The rollouts' temperature (§4.2: 0.8).
    pub rollout_temperature: f32,
    /// The rollouts' nucleus (§4.2: top-p 0.9).
    pub rollout_top_p: f32,
    /// Programs drawn per task to measure pass@1 (ours: the seed does not say; one is too few for
    /// 32 tasks to show a change of a few points).
    pub measure_samples: usize,
    /// pass@1's decoding temperature (§4.2: 0.2).
    pub measure_temperature: f32,
    /// pass@1's nucleus (§4.2: top-p 0.95).
    pub measure_top_p: f32,
    /// β, the token-level KL coefficient (§4.2: 0.05).
    pub kl_coefficient: f32,
    /// ε of the clipped surrogate. Ours, the usual 0.2: §4.2's "clip value of 0.8" names no
    /// quantity.
    pub clip: f32,
    /// GAE's discount γ. Ours: eq. 2 gives none, and the reward comes once, at the end.
    pub gamma: f32,
    /// GAE's λ. Ours: eq. 2 gives none.
    pub lambda: f32,
    /// Adam's step on the adapters. Ours: §4.2's 5e-7 is a 6.7B model's full fine-tuning; LoRA on a
    /// small model needs steps about a thousand times larger.
    pub policy_learning_rate: f64,
    /// Adam's step on the value head. Ours (§4.2's critic: 1.5e-6, a full model of its own).
    pub value_learning_rate: f64,
    /// Passes over each batch of rollouts (ours: the seed does not say).
    pub epochs: usize,
    /// Training tasks per update, taken in turn from a shuffled order (ours; §4.2's global batch
    /// of 64 prompts is for its SFT).
    pub tasks_per_update: usize,
    /// The most tokens a reply may have (ours; §4.2: 1024, for APPS+'s longer programs).
    pub max_tokens: usize,
    /// The adapters trained on the frozen model (ours: rank 8 on every projection, since a small
    /// model's q and v alone hold too little to move).
    pub lora: LoraParams,
    /// The curriculum (α, ρ_t, which statements count, when ρ is updated).
    pub curriculum: CurriculumParams,
    /// What FGO does with programs that do not compile.
    pub compile_errors: CompileErrorRule,
}

impl Default for ModelPpoParams {
    fn default() -> Self {
        Self {
            rollouts: 16,
            rollout_temperature: 0.8,
            rollout_top_p: 0.9,
            measure_samples: 8,
            measure_temperature: 0.2,
            measure_top_p: 0.95,
            kl_coefficient: 0.05,
            clip: 0.2,
            gamma: 1.0,
            lambda: 0.95,
            policy_learning_rate: 5e-4,
            value_learning_rate: 1e-3,
            epochs: 2,
            tasks_per_update: 2,
            max_tokens: 128,
            lora: LoraParams { targets: Projection::ALL.to_vec(), ..LoraParams::default() },
            curriculum: CurriculumParams::default(),
            compile_errors: CompileErrorRule::MaskAll,
        }
    }
}

impl ModelPpoParams {
    /// One forward pass of one task's rollouts at full length through a model of `parameters`
    /// weights, in multiply-adds: the work by which the page's crossover rule
    /// (`Backend::preferred`) picks the CPU or WebGPU.
    pub fn batch_multiply_adds(&self, parameters: u64) -> u64 {
        parameters.saturating_mul((self.rollouts * self.max_tokens) as u64)
    }
}

impl crate::params::Parameters for ModelPpoParams {
    fn params_schema(&self) -> serde_json::Value {
        schemars::schema_for!(ModelPpoParams).to_value()
    }

    fn validate(&self) -> Result<(), String> {
        use crate::params::check_range;
        for (name, value, most) in [
            ("rollouts", self.rollouts, 64),
            ("measure_samples", self.measure_samples, 64),
            ("epochs", self.epochs, 16),
            ("tasks_per_update", self.tasks_per_update, 64),
            ("max_tokens", self.max_tokens, 4096),
            ("lora.rank", self.lora.rank, 256),
        ] {
            if !(1..=most).contains(&value) {
                return Err(format!("{name} must be between 1 and {most}, got {value}"));
            }
        }
        check_range("rollout_temperature", f64::from(self.rollout_temperature), 0.01..=2.0)?;
        check_range("rollout_top_p", f64::from(self.rollout_top_p), 0.01..=1.0)?;
        check_range("measure_temperature", f64::from(self.measure_temperature), 0.0..=2.0)?;
        check_range("measure_top_p", f64::from(self.measure_top_p), 0.01..=1.0)?;
        check_range("kl_coefficient", f64::from(self.kl_coefficient), 0.0..=10.0)?;
        check_range("clip", f64::from(self.clip), 0.01..=1.0)?;
        check_range("gamma", f64::from(self.gamma), 0.0..=1.0)?;
        check_range("lambda", f64::from(self.lambda), 0.0..=1.0)?;
        check_range("policy_learning_rate", self.policy_learning_rate, 1e-9..=1.0)?;
        check_range("value_learning_rate", self.value_learning_rate, 1e-9..=1.0)?;
        check_range("lora.alpha", f64::from(self.lora.alpha), 1e-3..=1e4)?;
        check_range("curriculum.alpha", self.curriculum.alpha, 0.001..=1.0)?;
        check_range("curriculum.rho_threshold", self.curriculum.rho_threshold, 0.0..=0.999)?;
        if self.lora.targets.is_empty() {
            return Err("lora.targets must name at least one projection".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{Parameters, apply, build, fields, texts};

    #[test]
    fn every_setting_is_set_by_name_and_a_bad_one_is_named() {
        let defaults = ModelPpoParams::default();
        defaults.validate().unwrap();
        let settings = ["lora.targets=q_proj, v_proj", "rollouts=8", "curriculum.alpha=0.2"].map(String::from);
        let set = apply(&defaults, &settings).unwrap();
        assert_eq!(set.lora.targets, [Projection::QProj, Projection::VProj]);
        assert_eq!((set.rollouts, set.curriculum.alpha), (8, 0.2));
        assert_eq!(apply(&defaults, &[] as &[String]).unwrap(), defaults);
        assert!(apply(&defaults, &["clip=2".to_owned()]).unwrap_err().starts_with("clip"));
        assert!(apply(&defaults, &["lora.targets=".to_owned()]).unwrap_err().starts_with("lora.targets"));
        assert!(apply(&defaults, &["lora.targets=x_proj".to_owned()]).unwrap_err().contains("x_proj"));
    }

    #[test]
    fn single_precision_settings_read_as_written() {
        let defaults = ModelPpoParams::default();
        let fields = fields(&defaults.params_schema());
        let shown = texts(&defaults, &fields);
        let text = |name: &str| &shown[fields.iter().position(|f| f.name() == name).unwrap()];
        assert_eq!(
            (text("rollout_temperature"), text("rollout_top_p"), text("clip")),
            (&"0.8".into(), &"0.9".into(), &"0.2".into())
        );
        // Double precision is shown as it is, and the texts build the defaults again.
        assert_eq!(text("curriculum.alpha"), "0.1");
        assert_eq!(build(&defaults, &fields, &shown).unwrap(), defaults);
    }

    #[test]
    fn a_ppo_batch_of_the_small_model_is_past_the_crossover_on_a_hardware_adapter_only() {
        use crate::device::{Backend, GpuAdapter};
        // 3.4 M parameters × 16 rollouts × 128 tokens = 6,963,200,000 multiply-adds.
        let work = ModelPpoParams::default().batch_multiply_adds(3_400_000);
        assert_eq!(work, 6_963_200_000);
        let gpu = GpuAdapter { description: "a hardware adapter".into(), software: false };
        let swiftshader = GpuAdapter { description: "google swiftshader".into(), software: true };
        assert_eq!(Backend::preferred(work, Some(&gpu)), Backend::Wgpu);
        assert_eq!(Backend::preferred(work, Some(&swiftshader)), Backend::Ndarray);
        // 2 rollouts of 24 tokens of a 1 M model: 48 M, under the crossover.
        let small = ModelPpoParams { rollouts: 2, max_tokens: 24, ..ModelPpoParams::default() };
        assert_eq!(Backend::preferred(small.batch_multiply_adds(1_000_000), Some(&gpu)), Backend::Ndarray);
    }
}
