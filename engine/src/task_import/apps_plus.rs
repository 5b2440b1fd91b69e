//! APPS+ (seed 002's cleaned APPS): an array (or JSON lines) of objects with `prompt` (a header
//! whose docstring is the problem), `canonical_solution`, `inputs`, `outputs`, `starter_code`,
//! `scope` (the conditional statements, `[kind, start, end]`), `difficulty`, and `fn_name` where
//! present. A call problem's function is `fn_name`, else the starter code's last `def`; its string
//! arguments and results are stored as Python literals (`"\"abc\""`) and go into the test as they
//! are. A standard-input problem's solution is a function of no arguments (`def FsxrN():`), which
//! each test calls after the program runs.

use serde_json::{Map, Value};

use super::apps::{apps_id, call_test, callee, fn_name, io_pairs, python_literal, stdin_tests};
use super::{ImportError, ImportedTask, TaskFormat, error, is_identifier, string_field};
use crate::python::Scope;

/// The sample in APPS+'s format that the repository bundles (`tasks/samples/apps_plus.json`): four
/// records written for the playground, not APPS+'s own; StepCoder's default tasks in the page and
/// the CLI.
pub fn apps_plus_sample() -> Vec<ImportedTask> {
    super::parse_task_file("apps_plus.json", include_str!("../../../tasks/samples/apps_plus.json"))
        .expect("the bundled APPS+ sample parses (a test holds it)")
}

/// The name of the last function the code defines at its top level with no parameters, e.g.
/// `FsxrN` in `def FsxrN():`.
pub(super) fn wrapper_function(code: &str) -> Option<&str> {
    code.lines().rev().find_map(|line| {
        let name = line.strip_prefix("def ")?.trim_end().strip_suffix("():")?;
        is_identifier(name).then_some(name)
    })
}

/// The last function the code defines, at any depth: a call problem's function in its starter code.
pub(super) fn last_function(code: &str) -> Option<&str> {
    code.lines().rev().find_map(|line| {
        let rest = line.trim_start().strip_prefix("def ")?;
        let name = &rest[..rest.find('(')?];
        is_identifier(name).then_some(name)
    })
}

pub(super) fn apps_plus_task(
    object: &Map<String, Value>,
    line: usize,
    index: usize,
) -> Result<ImportedTask, ImportError> {
    let id = match object.get("task_id") {
        Some(Value::String(s)) => s.clone(),
        _ => apps_id(object, index, "apps-plus"),
    };
    let prompt = string_field(object, line, "prompt")?;
    let solution = string_field(object, line, "canonical_solution")?;
    let starter_code = match object.get("starter_code") {
        None | Some(Value::Null) => String::new(),
        Some(_) => string_field(object, line, "starter_code")?,
    };
    let difficulty = match object.get("difficulty") {
        None | Some(Value::Null) => None,
        Some(_) => Some(string_field(object, line, "difficulty")?),
    };
    let scope = match object.get("scope") {
        None | Some(Value::Null) => None,
        Some(value) => Some(serde_json::from_value::<Vec<Scope>>(value.clone()).map_err(|e| {
            error(Some(line), Some("scope"), format!("must be a list of [kind, start line, end line]: {e}"))
        })?),
    };
    let (inputs, outputs) = io_pairs(object, line, "inputs")?;
    let call_problem = !matches!(inputs[0], Value::String(_));
    let tests = match fn_name(object, object, line)? {
        Some(name) => {
            let callee = callee(&starter_code, &name);
            inputs.iter().zip(&outputs).map(|(i, o)| call_test(&callee, i, o, apps_plus_literal)).collect()
        }
        None if call_problem => {
            let name = last_function(&starter_code).ok_or_else(|| {
                error(
                    Some(line),
                    Some("starter_code"),
                    "defines no function for the tests to call, and there is no `fn_name`",
                )
            })?;
            let callee = callee(&starter_code, name);
            inputs.iter().zip(&outputs).map(|(i, o)| call_test(&callee, i, o, apps_plus_literal)).collect()
        }
        None => {
            // A solution that never calls its wrapper at the top level reads nothing unless called.
            let wrapper = wrapper_function(&starter_code).or_else(|| wrapper_function(&solution));
            let called = wrapper.is_some_and(|name| {
                solution.lines().any(|l| {
                    !l.starts_with([' ', '\t', '#']) && !l.starts_with("def ") && l.contains(&format!("{name}("))
                })
            });
            stdin_tests(&inputs, &outputs, line, wrapper.filter(|_| !called))?
        }
    };
    Ok(ImportedTask { id, format: TaskFormat::AppsPlus, prompt, starter_code, solution, tests, scope, difficulty })
}

/// An APPS+ argument, or an item of an expected result, as its authors' grader writes it into the
/// call (`','.join(map(str, inputs))`, their `llama_reward_model.py`): APPS+ stores a string
/// argument as the Python literal itself (`"\"abc\""`), which goes in as it is; anything else as
/// its repr, with the strings inside it as they are, quote characters and all (record 434 of
/// `valid_all.json` counts `"d1/"` with its quotes). A string not quoted, which APPS+ does not
/// hold, goes in as a string.
pub(super) fn apps_plus_literal(value: &Value) -> String {
    match value {
        Value::String(s) if is_quoted(s) => s.clone(),
        other => python_literal(other),
    }
}

/// Whether `text` is one Python string literal: quoted at both ends with the same quote, and the
/// quote not reopened inside (unless escaped).
pub(super) fn is_quoted(text: &str) -> bool {
    let Some(quote) = text.chars().next().filter(|c| *c == '"' || *c == '\'') else { return false };
    let Some(inner) = text.get(1..text.len() - 1).filter(|_| text.len() >= 2 && text.ends_with(quote)) else {
        return false;
    };
    let mut escaped = false;
    inner.chars().all(|c| {
        let ok = escaped || c != quote;
        escaped = !escaped && c == '\\';
        ok
    })
}
