//! HumanEval JSONL: one object per line with `task_id`, `prompt`, `canonical_solution`, `test` and
//! `entry_point`. The reference program is prompt + solution; the test is the `test` code followed
//! by `check(entry_point)`, as HumanEval's own evaluation does.

use serde_json::{Map, Value};

use super::{ImportError, ImportedTask, TaskFormat, error, is_identifier, string_field};
use crate::python::TestCase;

pub(super) fn humaneval_task(object: &Map<String, Value>, line: usize) -> Result<ImportedTask, ImportError> {
    let id = string_field(object, line, "task_id")?;
    let prompt = string_field(object, line, "prompt")?;
    let solution = string_field(object, line, "canonical_solution")?;
    let test = string_field(object, line, "test")?;
    let entry_point = string_field(object, line, "entry_point")?;
    if !is_identifier(&entry_point) {
        return Err(error(Some(line), Some("entry_point"), format!("`{entry_point}` is not a Python name")));
    }
    if !test.contains("def check") {
        return Err(error(Some(line), Some("test"), "defines no `check(candidate)` function"));
    }
    Ok(ImportedTask {
        id,
        format: TaskFormat::HumanEval,
        starter_code: prompt.clone(),
        solution: format!("{prompt}{solution}"),
        prompt,
        tests: vec![TestCase::Statement(format!("{test}\ncheck({entry_point})"))],
        scope: None,
        difficulty: None,
    })
}
