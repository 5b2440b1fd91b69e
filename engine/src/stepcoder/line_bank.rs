//! The learner's tasks (`tasks/stepcoder.json`): small functions written one line at a time from a
//! bank. Each free line offers the canonical line and three real mutants (a flipped comparison, a
//! value off by one, a wrong variable, a dropped result, or a syntax break), each of which alone
//! fails a test. Visible tests reward training; hidden tests join them when pass@1 is measured.

use serde::{Deserialize, Serialize};

use crate::python::ProgramRequest;

/// One line of a task: given, or a slot the policy fills from its bank (canonical line first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BankLine {
    Fixed(String),
    Slot(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineBankTask {
    pub id: String,
    pub requirement: String,
    pub lines: Vec<BankLine>,
    /// The tests whose outcome is the training reward (APPS+ has about three per task).
    pub tests: Vec<String>,
    /// Further tests, used with the visible ones only to measure pass@1.
    pub hidden_tests: Vec<String>,
}

/// The bundled tasks.
pub fn line_bank_tasks() -> Vec<LineBankTask> {
    serde_json::from_str(include_str!("../../../tasks/stepcoder.json"))
        .expect("tasks/stepcoder.json is checked by a test")
}

impl LineBankTask {
    /// The (0-based) indices of the lines the policy chooses.
    pub fn slots(&self) -> Vec<usize> {
        self.lines.iter().enumerate().filter(|(_, l)| matches!(l, BankLine::Slot(_))).map(|(i, _)| i).collect()
    }

    /// How many options each slot offers, in slot order.
    pub fn options(&self) -> Vec<usize> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                BankLine::Slot(options) => Some(options.len()),
                BankLine::Fixed(_) => None,
            })
            .collect()
    }

    /// The program with option `choices[j]` in slot j (0 is the canonical line).
    pub fn program(&self, choices: &[usize]) -> String {
        let mut choice = choices.iter();
        let mut program = String::new();
        for line in &self.lines {
            program += match line {
                BankLine::Fixed(text) => text,
                BankLine::Slot(options) => &options[*choice.next().expect("one choice per slot")],
            };
            program.push('\n');
        }
        program
    }

    pub fn canonical(&self) -> String {
        self.program(&vec![0; self.slots().len()])
    }

    /// A training run: the visible tests, with the lines that ran (FGO's mask). No analysis: every
    /// program of a bank has the canonical program's logical lines, one per line, so the
    /// canonical program's analysis serves them all.
    pub fn training_request(&self, program: String) -> ProgramRequest {
        let mut request = ProgramRequest::with_statements(program, &self.tests);
        request.analysis = false;
        request
    }

    /// A measuring run: visible and hidden tests, the verdict only.
    pub fn measuring_request(&self, program: String) -> ProgramRequest {
        let tests: Vec<String> = self.tests.iter().chain(&self.hidden_tests).cloned().collect();
        ProgramRequest::with_statements(program, &tests).verdict_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_tasks_are_as_the_learner_needs_them() {
        let tasks = line_bank_tasks();
        assert!((3..=5).contains(&tasks.len()));
        for task in &tasks {
            assert!(task.slots().len() >= 8, "{}: at least 8 free lines", task.id);
            assert!(task.options().iter().all(|&n| n == 4), "{}: the canonical line and three mutants", task.id);
            assert!(task.tests.len() >= 3 && task.hidden_tests.len() >= 3, "{}", task.id);
            let canonical = task.canonical();
            assert_eq!(canonical.lines().count(), task.lines.len());
            assert!(canonical.starts_with("def "), "{}", task.id);
        }
    }

    #[test]
    fn a_program_takes_each_slot_from_its_choice() {
        let task = &line_bank_tasks()[0];
        let mut choices = vec![0; task.slots().len()];
        choices[0] = 1;
        let program = task.program(&choices);
        let BankLine::Slot(options) = &task.lines[task.slots()[0]] else { unreachable!() };
        assert_eq!(program.lines().nth(task.slots()[0]), Some(options[1].as_str()));
        assert_ne!(program, task.canonical());
    }
}
