//! StepCoder (seed 002): the curriculum of code-completion subtasks (CCCS, [`curriculum`]), the
//! fine-grained mask of code the tests never ran (FGO, [`fgo`]), and two learners they train:
//! the engine's language model by PPO on its tokens ([`model_ppo`], [`token_ppo`]) on the small
//! code model's tasks ([`coder_tasks`], measured by [`model_pass_at_1`]), and a small line-bank
//! learner on which the effect of each is measured at Table 1's scale of runs ([`policy_gradient`],
//! [`line_bank`], [`ablation`]). [`completion`] runs the curriculum against an LLM behind an
//! endpoint (or the simulated one), whose weights it cannot train: there the curriculum is
//! Algorithm 1's bookkeeping with the model frozen.

pub mod ablation;
pub mod coder_tasks;
pub mod completion;
pub mod completion_params;
pub mod curriculum;
pub mod fgo;
pub mod learner_params;
pub mod line_bank;
pub mod model_pass_at_1;
pub mod model_ppo;
pub mod model_ppo_params;
pub mod policy_gradient;
pub mod ppo_batch;
pub mod sampling;
pub mod token_ppo;
pub mod training_work;
pub mod verdict_cache;
