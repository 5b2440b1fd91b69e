//! Task data from `tasks/`: prompts, unit tests, the code a simulated LLM answers with, and the
//! verdict of every code variant under those tests (checked against real Python by the test suite).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::python::{ProgramRequest, Verdict};

/// Which code variant the simulated LLM returns for each request (seed 000, Listing 5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptedVariants {
    pub generate: String,
    /// Returned by `debug` before any `search`.
    pub debug: String,
    pub debug_after_search: String,
}

/// One executive task (seed 000, Listing 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutiveTask {
    pub task_id: String,
    pub prompt: String,
    pub tests: Vec<String>,
    /// Code variants by name (`correct`, `incorrect`, `debugged`, ...).
    pub code: BTreeMap<String, String>,
    pub simulated_llm: ScriptedVariants,
    /// Success needs the search + double-debug episode (seed 000 §3.2, type 3).
    pub requires_search: bool,
    /// The verdict of each code variant, recorded so training needs no Python.
    pub verdicts: BTreeMap<String, Verdict>,
}

impl ExecutiveTask {
    pub fn code_of(&self, variant: &str) -> &str {
        self.code.get(variant).map_or("", String::as_str)
    }

    pub fn verdict_of(&self, variant: &str) -> Verdict {
        self.verdicts.get(variant).copied().unwrap_or(Verdict {
            passed: false,
            number_passed: 0,
            total: self.tests.len() as u32,
        })
    }

    /// Every variant the simulated LLM can return has code and a recorded verdict.
    fn check(&self) -> Result<(), String> {
        let llm = &self.simulated_llm;
        for variant in [&llm.generate, &llm.debug, &llm.debug_after_search] {
            if !self.code.contains_key(variant) {
                return Err(format!(
                    "task {}: simulated_llm names code variant '{variant}' that has no code",
                    self.task_id
                ));
            }
        }
        for variant in self.code.keys() {
            if !self.verdicts.contains_key(variant) {
                return Err(format!("task {}: code variant '{variant}' has no recorded verdict", self.task_id));
            }
        }
        Ok(())
    }
}

#[derive(Deserialize)]
struct ExecutiveFile {
    tasks: Vec<ExecutiveTask>,
}

/// A subtask the planner hands to the executive (seed 000 §7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Subtask {
    pub name: String,
    pub prompt: String,
    /// What the simulated LLM writes for it.
    pub code: String,
    pub tests: Vec<String>,
    /// The code's verdict under the tests, recorded like the executive's.
    pub verdict: Verdict,
}

impl Subtask {
    /// The subtask as an executive task whose simulated LLM writes `code` for every request.
    pub fn as_executive_task(&self) -> ExecutiveTask {
        const VARIANT: &str = "planned";
        ExecutiveTask {
            task_id: self.name.clone(),
            prompt: self.prompt.clone(),
            tests: self.tests.clone(),
            code: BTreeMap::from([(VARIANT.to_owned(), self.code.clone())]),
            simulated_llm: ScriptedVariants {
                generate: VARIANT.to_owned(),
                debug: VARIANT.to_owned(),
                debug_after_search: VARIANT.to_owned(),
            },
            requires_search: false,
            verdicts: BTreeMap::from([(VARIANT.to_owned(), self.verdict)]),
        }
    }
}

/// The planner's task and its simulated LLM's answers (seed 000, Listing 9).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannerTask {
    pub task_id: String,
    pub prompt: String,
    pub tests: Vec<String>,
    pub subtasks: Vec<Subtask>,
    pub integrated_code: String,
    pub integrated_verdict: Verdict,
}

impl PlannerTask {
    /// The integration's own code, `compute` calling the subtasks' functions (§9, Listing 10): the
    /// integrated program after the subtasks' code, which it opens with in their order.
    pub fn glue(&self) -> &str {
        let subtasks = self.subtasks.iter().map(|s| s.code.as_str()).collect::<Vec<_>>().join("\n");
        self.integrated_code.strip_prefix(&subtasks).map_or(&self.integrated_code, |glue| glue.trim_start_matches('\n'))
    }

    /// The program §9 delivers: the code of each subtask (as the executive left it), then the glue.
    pub fn compose(&self, subtask_code: &[&str]) -> String {
        let mut parts: Vec<&str> = subtask_code.to_vec();
        parts.push(self.glue());
        parts.iter().map(|p| p.trim_end_matches('\n')).collect::<Vec<_>>().join("\n\n") + "\n"
    }
}

/// Parses an executive task file (`{"tasks": [...]}`), checking that the simulated LLM is complete.
pub fn parse_executive_tasks(json: &str) -> Result<Vec<ExecutiveTask>, String> {
    let file: ExecutiveFile = serde_json::from_str(json).map_err(|e| format!("executive tasks: {e}"))?;
    if file.tasks.is_empty() {
        return Err("executive tasks: the file has no task".into());
    }
    file.tasks.iter().try_for_each(ExecutiveTask::check)?;
    Ok(file.tasks)
}

pub const EXECUTIVE_TASKS_JSON: &str = include_str!("../../../tasks/executive.json");
pub const PLANNER_TASK_JSON: &str = include_str!("../../../tasks/planner.json");
pub const SEED003_TASKS_JSON: &str = include_str!("../../../tasks/seed003.json");

/// One of seed 003 §5.2's five real tasks: the prompt, the unit tests, the reference program and
/// the faulty first draft the simulated LLM writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seed003Task {
    pub id: String,
    pub prompt: String,
    pub tests: Vec<String>,
    pub reference: String,
    pub draft: String,
}

#[derive(Deserialize)]
struct Seed003File {
    tasks: Vec<Seed003Task>,
}

/// One program of the bundled task data: its code, its tests and its recorded verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct BundledProgram {
    pub task_id: String,
    /// The code variant (`correct`, `incorrect`, ...; `integrated` for the planner's program).
    pub variant: String,
    pub code: String,
    pub tests: Vec<String>,
    pub recorded: Verdict,
}

impl BundledProgram {
    pub fn request(&self) -> ProgramRequest {
        ProgramRequest::with_statements(self.code.clone(), &self.tests)
    }

    pub fn measured(&self, verdict: Verdict) -> MeasuredVerdict {
        MeasuredVerdict { task_id: self.task_id.clone(), variant: self.variant.clone(), verdict }
    }
}

/// Every code variant of the executive tasks.
pub fn executive_programs() -> Vec<BundledProgram> {
    executive_tasks()
        .iter()
        .flat_map(|task| {
            task.code.iter().map(|(variant, code)| BundledProgram {
                task_id: task.task_id.clone(),
                variant: variant.clone(),
                code: code.clone(),
                tests: task.tests.clone(),
                recorded: task.verdict_of(variant),
            })
        })
        .collect()
}

/// The planner's integrated program, then the program of each subtask.
pub fn planner_programs() -> Vec<BundledProgram> {
    let task = planner_task();
    let integrated = BundledProgram {
        task_id: task.task_id.clone(),
        variant: "integrated".into(),
        code: task.integrated_code.clone(),
        tests: task.tests.clone(),
        recorded: task.integrated_verdict,
    };
    let subtasks = task.subtasks.iter().map(|s| BundledProgram {
        task_id: s.name.clone(),
        variant: "planned".into(),
        code: s.code.clone(),
        tests: s.tests.clone(),
        recorded: s.verdict,
    });
    std::iter::once(integrated).chain(subtasks).collect()
}

/// A verdict measured by running one code variant of a task in Python (the page's "test actions run
/// in Python" switch): it replaces the recorded one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeasuredVerdict {
    pub task_id: String,
    pub variant: String,
    pub verdict: Verdict,
}

/// The bundled executive tasks with every recorded verdict replaced by a measured one; every code
/// variant of every task must have been measured.
pub fn executive_tasks_measured(measured: &[MeasuredVerdict]) -> Result<Arc<[ExecutiveTask]>, String> {
    let mut tasks = executive_tasks().to_vec();
    for task in &mut tasks {
        for (variant, verdict) in &mut task.verdicts {
            *verdict = measured
                .iter()
                .find(|m| m.task_id == task.task_id && &m.variant == variant)
                .map(|m| m.verdict)
                .ok_or_else(|| format!("no measured verdict for task {} / {variant}", task.task_id))?;
        }
    }
    Ok(tasks.into())
}

/// The three bundled executive tasks.
pub fn executive_tasks() -> Arc<[ExecutiveTask]> {
    static TASKS: OnceLock<Arc<[ExecutiveTask]>> = OnceLock::new();
    TASKS
        .get_or_init(|| {
            parse_executive_tasks(EXECUTIVE_TASKS_JSON).expect("bundled tasks/executive.json is valid").into()
        })
        .clone()
}

/// The bundled planner task.
pub fn planner_task() -> Arc<PlannerTask> {
    static TASK: OnceLock<Arc<PlannerTask>> = OnceLock::new();
    TASK.get_or_init(|| Arc::new(serde_json::from_str(PLANNER_TASK_JSON).expect("bundled tasks/planner.json is valid")))
        .clone()
}

/// Seed 003 §5.2's five tasks.
pub fn seed003_tasks() -> Arc<[Seed003Task]> {
    static TASKS: OnceLock<Arc<[Seed003Task]>> = OnceLock::new();
    TASKS
        .get_or_init(|| {
            let file: Seed003File =
                serde_json::from_str(SEED003_TASKS_JSON).expect("bundled tasks/seed003.json is valid");
            file.tasks.into()
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_tasks_parse() {
        let tasks = executive_tasks();
        let ids: Vec<_> = tasks.iter().map(|t| t.task_id.as_str()).collect();
        assert_eq!(ids, ["task1_correct", "task2_incorrect", "task3_search"]);
        assert_eq!(planner_task().subtasks.len(), 3);
        // The integrated program is the subtasks' code, then the glue: §9 composes the same way.
        let planner = planner_task();
        assert!(planner.glue().starts_with("def compute(a, b):"), "{}", planner.glue());
        let solved: Vec<&str> = planner.subtasks.iter().map(|s| s.code.as_str()).collect();
        assert_eq!(planner.compose(&solved), planner.integrated_code);
        let seed003: Vec<_> = seed003_tasks().iter().map(|t| t.id.clone()).collect();
        assert_eq!(
            seed003,
            [
                "seed003_sum_two_numbers",
                "seed003_reverse_string",
                "seed003_check_even",
                "seed003_find_max",
                "seed003_count_vowels"
            ]
        );
    }

    #[test]
    fn missing_variant_is_reported_by_task_and_name() {
        let json = EXECUTIVE_TASKS_JSON.replacen("\"debug\": \"debugged\"", "\"debug\": \"nonexistent\"", 1);
        let err = parse_executive_tasks(&json).unwrap_err();
        assert!(err.contains("task2_incorrect") && err.contains("nonexistent"), "{err}");
    }

    #[test]
    fn malformed_json_names_the_position() {
        let err = parse_executive_tasks("{\"tasks\": [}").unwrap_err();
        assert!(err.contains("line 1"), "{err}");
    }
}
