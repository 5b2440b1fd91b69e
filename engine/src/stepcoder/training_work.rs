//! What StepCoder's training of a model ([`super::model_ppo::ModelPpo`]) is doing, by kind: said in
//! words to people watching, and the key under which a host adds up where its time went.

use serde::{Deserialize, Serialize};

/// The kind of work a training is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainingWork {
    /// pass@1 being measured: the replies drawn at T 0.2 and their programs run.
    Measuring,
    /// An update's rollouts being drawn at T 0.8.
    Rollouts,
    /// The rollouts' programs running on their tests.
    Programs,
    /// The passing rollouts running on the hidden tests.
    HiddenTests,
    /// PPO's epochs on the rollouts.
    PpoStep,
    Done,
}

impl TrainingWork {
    pub const ALL: [TrainingWork; 6] = [
        TrainingWork::Measuring,
        TrainingWork::Rollouts,
        TrainingWork::Programs,
        TrainingWork::HiddenTests,
        TrainingWork::PpoStep,
        TrainingWork::Done,
    ];

    /// Its name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            TrainingWork::Measuring => "measuring",
            TrainingWork::Rollouts => "rollouts",
            TrainingWork::Programs => "programs",
            TrainingWork::HiddenTests => "hidden_tests",
            TrainingWork::PpoStep => "ppo_step",
            TrainingWork::Done => "done",
        }
    }

    /// In words, with `updates_done` updates behind it.
    pub fn describe(self, updates_done: usize) -> String {
        let update = updates_done + 1;
        match self {
            TrainingWork::Measuring => format!("measuring pass@1 after {updates_done} updates"),
            TrainingWork::Rollouts => format!("drawing update {update}'s rollouts"),
            TrainingWork::Programs => format!("running update {update}'s programs on their tests"),
            TrainingWork::HiddenTests => format!("running update {update}'s passing programs on the hidden tests"),
            TrainingWork::PpoStep => format!("update {update}: PPO on the rollouts"),
            TrainingWork::Done => "done".into(),
        }
    }
}
