//! StepCoder (seed 002): the curriculum of code-completion subtasks (CCCS, [`curriculum`]), the
//! fine-grained mask of code the tests never ran (FGO, [`fgo`]), and a small learner on which the
//! effect of each is measured ([`policy_gradient`], [`line_bank`], [`ablation`]); [`completion`] runs the
//! curriculum against a real (or simulated) LLM, and its difficulty profile.
//!
//! The page cannot fine-tune an LLM, and nothing here claims to: run against an LLM, the curriculum
//! is Algorithm 1's bookkeeping with the model frozen; the learner is a softmax per line of a
//! program bank, trained by policy gradient on programs that really run.

pub mod ablation;
pub mod completion;
pub mod completion_params;
pub mod curriculum;
pub mod fgo;
pub mod learner_params;
pub mod line_bank;
pub mod policy_gradient;
pub mod sampling;
pub mod verdict_cache;
