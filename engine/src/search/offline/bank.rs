//! The program bank behind the search's simulated LLM (seed 004 spec §6): each task's reference
//! program cut into slots, and for each slot its correct text and real faulty ones. A program the
//! simulated LLM writes is one text per slot, so any program it wrote can be read back into its
//! choices, and a prefix into the choices it pins. `tasks/search.json` holds the bundled banks,
//! written by hand; a native test runs every variant in python3. An imported task's bank is made
//! by the harness (`mutants` requests), which mutates the reference's syntax tree and keeps the
//! mutants its tests tell apart ([`BankTask::from_mutants`]). Each bank also holds a pool of tests
//! apart from the task's, for the unit tests the simulated LLM writes ([`BankTask::own_tests`]).

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::gym::GymId;
use crate::python::{ProgramRequest, ProgramVerdict, TaskCode, TestCase};
use crate::search::scorer::SearchTask;
use crate::task_import::ImportedTask;

// The slot vocabulary is the harness's (its `mutants` mode returns slots), so it lives in `python`.
pub use crate::python::{Fault, FaultKind, Slot};

/// How long the harness may take to make a bank: it runs every mutant on every test.
pub const MUTANTS_LIMIT_MS: u32 = 60_000;

/// One slot's text in a program: the correct one, or a fault by index.
pub type Choice = Option<usize>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BankTask {
    pub id: String,
    pub description: String,
    pub tests: Vec<TestCase>,
    /// The pool that the simulated LLM writes LATS's and Reflexion's unit tests from, kept apart
    /// from `tests`, which score a program: for a bundled task, calls written for the purpose
    /// (`scripts/search-bank/own_tests.py`), for an imported one calls the harness draws on inputs
    /// its tests do not use; each with the value the reference returns. Empty for a task that is
    /// not tested by function calls (the simulated LLM then writes no test).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub own_tests: Vec<String>,
    /// What the tests' names mean, for an imported HumanEval task (see [`TaskCode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_code: Option<TaskCode>,
    pub slots: Vec<Slot>,
    /// A code world model's environment (see [`SearchTask::world_model`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_model: Option<GymId>,
}

impl BankTask {
    pub fn search_task(&self) -> SearchTask {
        SearchTask {
            id: self.id.clone(),
            description: self.description.clone(),
            tests: self.tests.clone(),
            world_model: self.world_model,
            task_code: self.task_code.clone(),
            tests_shown: false,
            held_out: Vec::new(),
            may_give_up: false,
        }
    }

    /// The harness request that makes `task`'s bank from its reference solution.
    pub fn mutants_request(task: &ImportedTask) -> Result<ProgramRequest, String> {
        if task.solution.trim().is_empty() {
            return Err(format!("task {} has no reference solution to make the simulated LLM's bank from", task.id));
        }
        let request = ProgramRequest::new(task.solution.clone(), task.tests.clone()).with_task(task.task_code());
        Ok(ProgramRequest { mutants: true, ..request })
    }

    /// `task`'s bank from the harness's answer to [`Self::mutants_request`]: the reference cut into
    /// slots, with the faults its tests tell apart.
    pub fn from_mutants(task: &ImportedTask, verdict: &ProgramVerdict) -> Result<Self, String> {
        let Some(slots) = verdict.slots.clone().filter(|_| verdict.passed) else {
            let why = verdict
                .error
                .clone()
                .unwrap_or_else(|| format!("{} of {} tests pass", verdict.number_passed, verdict.total));
            return Err(format!(
                "task {}'s reference solution does not pass its tests ({why}), so no bank can be made from it",
                task.id
            ));
        };
        let search = SearchTask::from(task);
        let bank = Self {
            id: task.id.clone(),
            description: search.description,
            tests: task.tests.clone(),
            own_tests: verdict.own_tests.clone(),
            task_code: task.task_code(),
            slots,
            world_model: None,
        };
        let faults: usize = bank.slots.iter().map(|s| s.faults.len()).sum();
        if faults == 0 {
            return Err(format!(
                "no mutant of task {}'s reference fails a test: its tests cannot tell programs apart",
                task.id
            ));
        }
        let correct = vec![None; bank.slots.len()];
        if bank.parse(&bank.program(&correct)).is_none() || bank.program(&correct).trim() != task.solution.trim() {
            return Err(format!("task {}'s bank does not read back its reference (a harness fault)", task.id));
        }
        Ok(bank)
    }

    pub fn text(&self, slot: usize, choice: Choice) -> &str {
        let s = &self.slots[slot];
        choice.map_or(&s.correct, |f| &s.faults[f].text)
    }

    /// A slot's text as a reply is read against it: the first slot without the blank lines a
    /// reference may open with (HumanEval's prompts mostly do), which code extraction drops.
    fn read_text(&self, slot: usize, choice: Choice) -> &str {
        let text = self.text(slot, choice);
        if slot == 0 { without_leading_blank_lines(text) } else { text }
    }

    /// The reference program: the correct text of every slot.
    pub fn reference(&self) -> String {
        self.program(&vec![None; self.slots.len()])
    }

    /// The program of `choices`, one per slot.
    pub fn program(&self, choices: &[Choice]) -> String {
        choices.iter().enumerate().map(|(slot, &c)| self.text(slot, c)).collect()
    }

    /// The variants of `slot`: the correct text, then each fault.
    pub fn variants(&self, slot: usize) -> impl Iterator<Item = Choice> {
        std::iter::once(None).chain((0..self.slots[slot].faults.len()).map(Some))
    }

    /// Reads a program back into its choices, slot by slot; `None` when it is not one of the bank's.
    /// A program that autopep8 reflowed (seed 004's official code formats each program before it is
    /// scored) is read with whitespace and line-continuing backslashes ignored when it does not read
    /// as it is (a native test reads back every bank program autopep8 formats); variants that differ
    /// only in whitespace (an indentation slip) then read as the first of them, the correct text,
    /// since autopep8 repairs most such slips.
    pub fn parse(&self, program: &str) -> Option<Vec<Choice>> {
        [false, true].into_iter().find_map(|blind| {
            let (choices, _, whole) = self.read(program, blind);
            (whole && choices.len() == self.slots.len()).then_some(choices)
        })
    }

    /// The choices a prefix pins: each slot it covers whole, then, for the slot it ends in, the
    /// variants it is consistent with (all of them when it ends between slots). Read as
    /// [`Self::parse`] reads, whitespace ignored when the prefix does not read as it is.
    pub fn pinned(&self, prefix: &str) -> (Vec<Choice>, Vec<Choice>) {
        let lost =
            |(pinned, open, _): &(Vec<Choice>, Vec<Choice>, bool)| pinned.len() < self.slots.len() && open.is_empty();
        let exact = self.read(prefix, false);
        let read = if lost(&exact) {
            Some(self.read(prefix, true)).filter(|blind| !lost(blind)).unwrap_or(exact)
        } else {
            exact
        };
        (read.0, read.1)
    }

    /// `text` read slot by slot (`blind`: with all whitespace removed): the choices of the slots it
    /// holds whole; the variants of the slot it ends in that it is consistent with (all of them
    /// when it ends between slots, none when it is not the bank's); whether nothing follows.
    fn read(&self, text: &str, blind: bool) -> (Vec<Choice>, Vec<Choice>, bool) {
        // Blind: autopep8 changes whitespace, and continues a long line with a backslash.
        let form = |t: &str| -> String {
            if blind { t.replace("\\\n", "").chars().filter(|c| !c.is_whitespace()).collect() } else { t.to_owned() }
        };
        let text = form(without_leading_blank_lines(text));
        let mut rest = text.as_str();
        let mut pinned = Vec::with_capacity(self.slots.len());
        for slot in 0..self.slots.len() {
            if rest.trim().is_empty() {
                return (pinned, self.variants(slot).collect(), true);
            }
            let texts: Vec<(Choice, String)> =
                self.variants(slot).map(|c| (c, form(self.read_text(slot, c)))).collect();
            match texts.iter().find(|(_, t)| rest.starts_with(t.as_str())) {
                Some((choice, t)) => {
                    rest = &rest[t.len()..];
                    pinned.push(*choice);
                }
                None => {
                    let open = texts.iter().filter(|(_, t)| t.starts_with(rest)).map(|(c, _)| *c).collect();
                    return (pinned, open, false);
                }
            }
        }
        (pinned, Vec::new(), rest.trim().is_empty())
    }

    /// Every program with exactly one fault: its slot, the fault's index and the choices.
    pub fn single_faults(&self) -> impl Iterator<Item = (usize, usize, Vec<Choice>)> + '_ {
        (0..self.slots.len()).flat_map(move |slot| {
            (0..self.slots[slot].faults.len()).map(move |fault| {
                let mut choices = vec![None; self.slots.len()];
                choices[slot] = Some(fault);
                (slot, fault, choices)
            })
        })
    }

    /// The slot that holds 1-based `line` of the program of `choices`, as a reply's code holds it
    /// (without the blank lines it may open with).
    pub fn slot_of_line(&self, choices: &[Choice], line: usize) -> Option<usize> {
        let mut last = 0;
        for (slot, &c) in choices.iter().enumerate() {
            last += self.read_text(slot, c).lines().count();
            if line <= last {
                return Some(slot);
            }
        }
        None
    }
}

/// `text` from its first line that holds more than whitespace.
fn without_leading_blank_lines(text: &str) -> &str {
    let mut rest = text;
    while let Some(end) = rest.find('\n').filter(|&end| rest[..end].trim().is_empty()) {
        rest = &rest[end + 1..];
    }
    rest
}

#[derive(Deserialize)]
struct BankFile {
    tasks: Vec<BankTask>,
}

pub const SEARCH_TASKS_JSON: &str = include_str!("../../../../tasks/search.json");

/// The bundled search tasks with their banks.
pub fn search_tasks() -> Arc<[BankTask]> {
    static TASKS: OnceLock<Arc<[BankTask]>> = OnceLock::new();
    TASKS
        .get_or_init(|| {
            let file: BankFile = serde_json::from_str(SEARCH_TASKS_JSON).expect("bundled tasks/search.json is valid");
            file.tasks.into()
        })
        .clone()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The correct program and each single-fault one read back into their choices.
    pub(crate) fn assert_reads_back_every_single_fault_program(task: &BankTask) {
        let correct = vec![None; task.slots.len()];
        assert_eq!(task.parse(&task.program(&correct)), Some(correct), "{}", task.id);
        for (slot, _, choices) in task.single_faults() {
            assert_eq!(task.parse(&task.program(&choices)), Some(choices), "{} slot {slot}", task.id);
        }
    }

    fn running_max() -> BankTask {
        search_tasks().iter().find(|t| t.id == "running_max").unwrap().clone()
    }

    #[test]
    fn ten_bundled_tasks_read_back_every_single_fault_program() {
        let tasks = search_tasks();
        assert_eq!(tasks.len(), 10);
        for task in tasks.iter() {
            assert_reads_back_every_single_fault_program(task);
            assert_eq!(task.parse("print('something else')\n"), None);
        }
    }

    #[test]
    fn a_reference_that_opens_with_blank_lines_reads_back_without_them() {
        let mut task = running_max();
        task.slots[0].correct.insert_str(0, "\n  \n");
        let correct = vec![None; task.slots.len()];
        let program = task.program(&correct);
        assert!(program.starts_with("\n  \ndef "));
        // Code extraction drops the blank lines; either way the program is the reference.
        assert_eq!(task.parse(&program), Some(correct.clone()));
        assert_eq!(task.parse(program.trim_start()), Some(correct.clone()));
        assert_eq!(task.pinned(program.trim_start()).0, correct);
        // Line numbers count from the first line that holds code, as in the extracted program.
        assert_eq!(task.slot_of_line(&correct, 1), Some(0));
        assert_eq!(task.slot_of_line(&correct, 2), Some(1));
        assert_eq!(without_leading_blank_lines(" \n\t\n x\n\n"), " x\n\n");
    }

    #[test]
    fn a_program_autopep8_reflowed_reads_back_as_the_choices_it_was_made_of() {
        let task = running_max();
        let mut choices = vec![None; task.slots.len()];
        choices[1] = Some(0); // best = 0, a logic fault
        let program = task.program(&choices);
        // What autopep8 makes of a program: spacing and indentation changed, lines wrapped and added.
        let reflowed = program.replace("    result = []\n", "    result = [\n    ]\n\n").replace("if best", "if  best");
        assert_eq!(task.parse(&reflowed), Some(choices.clone()));
        let prefix: String = reflowed.lines().take(5).map(|l| format!("{l}\n")).collect();
        assert_eq!(task.pinned(&prefix).0, [None, Some(0)]);
        // A program that reads as it is keeps its exact reading: the indentation slip of slot 3
        // differs from the correct text in whitespace only.
        let mut slip = vec![None; task.slots.len()];
        slip[3] = Some(1);
        assert_eq!(task.parse(&task.program(&slip)), Some(slip));
    }

    #[test]
    fn a_prefix_pins_the_slots_it_covers_and_narrows_the_one_it_ends_in() {
        let task = running_max();
        let mut choices = vec![None; task.slots.len()];
        choices[1] = Some(0); // best = 0
        let program = task.program(&choices);
        // Four lines: the def, the two lines of slot 1, and the loop header of slot 2.
        let prefix: String = program.lines().take(4).map(|l| format!("{l}\n")).collect();
        assert_eq!(task.pinned(&prefix), (vec![None, Some(0), None], vec![None, Some(0), Some(1)]));
        // Ending inside slot 3 ("if best is None or x > best:") leaves its variants that start so.
        let prefix: String = program.lines().take(5).map(|l| format!("{l}\n")).collect();
        let (pinned, open) = task.pinned(&prefix);
        assert_eq!((pinned.len(), open), (3, vec![None, Some(1)]));
        assert_eq!(task.pinned(""), (vec![], task.variants(0).collect()));
        assert_eq!(task.slot_of_line(&choices, 1), Some(0));
        assert_eq!(task.slot_of_line(&choices, 3), Some(1));
        assert_eq!(task.slot_of_line(&choices, 99), None);
    }
}
