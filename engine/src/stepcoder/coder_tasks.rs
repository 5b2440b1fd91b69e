//! The small code model's tasks (`tasks/lm_coder.json`, made with the model by
//! `scripts/code-model/make.py`): list functions composed of an aggregate, a transform and a
//! condition, whose programs the model was never trained on. StepCoder trains on the `training`
//! split; the `unseen` split composes further (its aggregate and transform never met in the
//! corpus) and is never trained on.

use serde::{Deserialize, Serialize};

use crate::lm::chat_template::Message;
use crate::python::{ProgramRequest, Scope};

/// Which set a task belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// StepCoder trains on it: every pair of its parts is in the corpus, the task is not.
    Training,
    /// Never trained on: its aggregate and transform never meet in the corpus.
    Unseen,
}

impl Split {
    pub const ALL: [Split; 2] = [Split::Training, Split::Unseen];

    pub fn name(self) -> &'static str {
        match self {
            Split::Training => "training",
            Split::Unseen => "unseen",
        }
    }
}

/// One task: what the model is asked, the program the template writes, and its tests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoderTask {
    pub id: String,
    pub split: Split,
    /// The user's turn, all the model sees.
    pub requirement: String,
    /// The template's program: CCCS's canonical solution.
    pub canonical: String,
    /// Its nodes as APPS+'s `scope` writes them: CCCS's conditional statements.
    pub scope: Vec<Scope>,
    /// The tests a training run rewards.
    pub tests: Vec<String>,
    /// The tests only measuring adds; never shown to the model.
    pub hidden_tests: Vec<String>,
}

impl CoderTask {
    /// The chat the model answers: the requirement as the user's turn, as the corpus has it.
    pub fn messages(&self) -> Vec<Message> {
        vec![Message { role: "user".into(), content: self.requirement.clone() }]
    }

    /// A run of `program` on the hidden tests alone, the verdict only: whether a program that
    /// passed the tests it was rewarded by holds beyond them. Its verdict rewards nothing.
    pub fn hidden_request(&self, program: String) -> ProgramRequest {
        ProgramRequest::with_statements(program, &self.hidden_tests).verdict_only()
    }

    /// A measuring run of `program`: the tests and the hidden tests, the verdict only.
    pub fn measuring_request(&self, program: String) -> ProgramRequest {
        let tests: Vec<String> = self.tests.iter().chain(&self.hidden_tests).cloned().collect();
        ProgramRequest::with_statements(program, &tests).verdict_only()
    }
}

/// The bundled tasks, in the file's order (the training split first).
pub fn coder_tasks() -> Vec<CoderTask> {
    serde_json::from_str(include_str!("../../../tasks/lm_coder.json")).expect("tasks/lm_coder.json is valid")
}

/// The first `training` tasks of the training split and the first `unseen` of the unseen one, in
/// the bundled order: a smaller run for a slower host (the page's).
pub fn first_of_each_split(training: usize, unseen: usize) -> Result<Vec<CoderTask>, String> {
    let tasks = coder_tasks();
    let mut chosen = Vec::new();
    for (split, wanted) in [(Split::Training, training), (Split::Unseen, unseen)] {
        let of_split: Vec<CoderTask> = tasks.iter().filter(|t| t.split == split).cloned().collect();
        if !(1..=of_split.len()).contains(&wanted) {
            return Err(format!("{} tasks: between 1 and {}, got {wanted}", split.name(), of_split.len()));
        }
        chosen.extend(of_split.into_iter().take(wanted));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tasks_of_each_split_are_taken_and_a_count_out_of_range_is_named() {
        let chosen = first_of_each_split(3, 2).unwrap();
        let splits: Vec<Split> = chosen.iter().map(|t| t.split).collect();
        assert_eq!(splits, [Split::Training, Split::Training, Split::Training, Split::Unseen, Split::Unseen]);
        assert_eq!(chosen[0], coder_tasks()[0]);
        assert_eq!(first_of_each_split(0, 2).unwrap_err(), "training tasks: between 1 and 32, got 0");
        assert_eq!(first_of_each_split(2, 99).unwrap_err(), "unseen tasks: between 1 and 16, got 99");
    }

    #[test]
    fn the_bundled_tasks_have_both_splits_and_distinct_ids() {
        let tasks = coder_tasks();
        let ids: std::collections::HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids.len(), tasks.len());
        for split in Split::ALL {
            assert!(tasks.iter().filter(|t| t.split == split).count() >= 10, "{split:?}");
        }
        for task in &tasks {
            assert!(task.canonical.starts_with(&format!("def {}(", task.id)), "{}", task.id);
            assert_eq!(task.tests.len(), 3, "{}", task.id);
            assert!(task.hidden_tests.len() >= 5, "{}", task.id);
            assert!(!task.requirement.contains("assert"), "{}: a test in the prompt", task.id);
            // A function, its loop and at least one condition: CCCS has two stages or more.
            assert!(task.scope.len() >= 2, "{}", task.id);
        }
    }
}
