//! The six code-world-model tasks of seed 004's benchmark (CWMB's discrete-action part): per
//! Gymnasium environment, the description an LLM writes the model from, and the simulated LLM's
//! bank. Both are files under `tasks/world_models/`, which each environment's file includes
//! (`Gymnasium::WORLD_MODEL_DESCRIPTION` and `WORLD_MODEL_BANK`):
//! - `<id>.md`, the environment described in our own words with every fact of the paper's
//!   descriptions (App. J.3: description, actions, observations, rewards, start state, episode
//!   end), then `interface.md`, the class to write (§3.4) and the notes every prompt carries;
//! - `<id>.bank.py`, a correct world model cut into slots, each followed by its real faults. A line
//!   `#| slot <name>` opens a slot; `#| logic|syntax|crash [repair] [wrong=<parts>] <what it does>`
//!   opens a fault of the slot above, where a logic fault's parts (`next_state`, `reward`, `done`,
//!   comma-separated) are what it alone gets wrong in the dataset's transitions. A native test runs
//!   every variant on the environment's dataset in python3, and checks those parts.

use std::sync::{Arc, OnceLock};

use crate::gym::GymId;
use crate::python::{Fault, FaultKind, PredictionPart, Slot};
use crate::search::offline::bank::BankTask;

const INTERFACE: &str = include_str!("../../../tasks/world_models/interface.md");

/// A bank file's slots and faults (see the module's doc), or what is wrong with it, by line.
pub fn parse_bank(text: &str) -> Result<Vec<Slot>, String> {
    let mut slots: Vec<Slot> = Vec::new();
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let Some(marker) = line.strip_prefix("#|") else {
            let slot =
                slots.last_mut().ok_or_else(|| format!("line {}: code before the first `#| slot`", index + 1))?;
            match slot.faults.last_mut() {
                Some(fault) => fault.text.push_str(line),
                None => slot.correct.push_str(line),
            }
            continue;
        };
        let mut words = marker.split_whitespace();
        let kind = match words.next() {
            Some("slot") => {
                slots.push(Slot { correct: String::new(), faults: Vec::new() });
                continue;
            }
            Some("logic") => FaultKind::Logic,
            Some("syntax") => FaultKind::Syntax,
            Some("crash") => FaultKind::Crash,
            other => return Err(format!("line {}: unknown marker {other:?}", index + 1)),
        };
        let mut words = words.peekable();
        let repair = words.next_if(|w| w.parse::<f64>().is_ok()).map_or(1.0, |w| w.parse().unwrap_or(1.0));
        let wrong = match words.next_if(|w| w.starts_with("wrong=")) {
            Some(parts) => parts["wrong=".len()..]
                .split(',')
                .map(PredictionPart::parse)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("line {}: {e}", index + 1))?,
            None => Vec::new(),
        };
        let slot = slots.last_mut().ok_or_else(|| format!("line {}: a fault before the first `#| slot`", index + 1))?;
        slot.faults.push(Fault { text: String::new(), kind, repair, fails: Vec::new(), own_fails: Vec::new(), wrong });
    }
    Ok(slots)
}

/// The six world-model tasks, with their banks.
pub fn world_model_tasks() -> Arc<[BankTask]> {
    static TASKS: OnceLock<Arc<[BankTask]>> = OnceLock::new();
    TASKS
        .get_or_init(|| {
            GymId::ALL
                .into_iter()
                .map(|id| BankTask {
                    id: id.name().to_owned(),
                    description: format!("{}\n{INTERFACE}", id.world_model_description().trim_end()),
                    tests: Vec::new(),
                    own_tests: Vec::new(),
                    task_code: None,
                    slots: parse_bank(id.world_model_bank())
                        .unwrap_or_else(|e| panic!("tasks/world_models/{}.bank.py: {e}", id.name())),
                    world_model: Some(id),
                })
                .collect()
        })
        .clone()
}

/// The world-model task of `id`.
pub fn world_model_task(id: GymId) -> BankTask {
    world_model_tasks().iter().find(|t| t.world_model == Some(id)).expect("every environment has a task").clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bank_file_reads_into_slots_and_faults_and_names_a_bad_line() {
        let text = "#| slot a\nx = 1\n#| logic 0.5 wrong=reward,done off by one\nx = 2\n#| slot b\nprint(x)\n#| crash\nprint(y)\n";
        let slots = parse_bank(text).unwrap();
        assert_eq!(slots.len(), 2);
        assert_eq!(slots[0].correct, "x = 1\n");
        let wrong = vec![PredictionPart::Reward, PredictionPart::Done];
        let off_by_one = Fault {
            text: "x = 2\n".into(),
            kind: FaultKind::Logic,
            repair: 0.5,
            fails: Vec::new(),
            own_fails: Vec::new(),
            wrong,
        };
        assert_eq!(slots[0].faults, [off_by_one]);
        assert!(
            parse_bank("#| slot a\n#| logic wrong=score\n").unwrap_err().starts_with("line 2: 'score' is not a part")
        );
        assert_eq!((slots[1].faults[0].kind, slots[1].faults[0].repair), (FaultKind::Crash, 1.0));
        assert_eq!(parse_bank("x = 1\n").unwrap_err(), "line 1: code before the first `#| slot`");
        assert!(parse_bank("#| slot a\n#| oops\n").unwrap_err().starts_with("line 2: unknown marker"));
    }

    #[test]
    fn every_environment_has_a_described_task_whose_bank_reads_back_each_fault() {
        let tasks = world_model_tasks();
        assert_eq!(tasks.len(), 6);
        for task in tasks.iter() {
            for heading in [
                "## Action space",
                "## Observation space",
                "## Rewards",
                "## Start state",
                "## Episode end",
                "## Class definition",
                "## Important notes",
            ] {
                assert!(task.description.contains(heading), "{}: {heading}", task.id);
            }
            crate::search::offline::bank::tests::assert_reads_back_every_single_fault_program(task);
        }
    }
}
