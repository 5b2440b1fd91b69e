//! Importing coding tasks from the common benchmark formats into harness requests, one file per
//! format: HumanEval JSONL (`humaneval.rs`), APPS-style JSON (`apps.rs`) and APPS+, seed 002's
//! cleaned APPS (`apps_plus.rs`). This file reads a file's objects and tells the formats apart.
//!
//! A file is imported whole or not at all: every malformed line is reported with its line number
//! and field, and no task from a file with an error is returned.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod apps;
mod apps_plus;
mod humaneval;

pub use apps_plus::apps_plus_sample;

use crate::python::{ProgramRequest, Scope, TaskCode, TestCase};

/// The most tasks one file may hold (keeps the browser's storage and the UI responsive; APPS+'s
/// 7,413 fit in one file).
pub const MAX_TASKS_PER_FILE: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskFormat {
    HumanEval,
    Apps,
    AppsPlus,
}

/// A task ready for the harness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportedTask {
    pub id: String,
    pub format: TaskFormat,
    /// The problem statement (HumanEval: the prompt, a signature with its docstring).
    pub prompt: String,
    /// What the editor starts from: HumanEval's prompt, APPS's starter code.
    pub starter_code: String,
    /// The reference program (may be empty when an APPS task has no solution).
    pub solution: String,
    pub tests: Vec<TestCase>,
    /// APPS+'s conditional statements of the solution (StepCoder's curriculum points), as the file
    /// gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Vec<Scope>>,
    /// APPS's difficulty: introductory, interview or competition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
}

impl ImportedTask {
    /// The reference solution against the task's tests, for a check (verdict only).
    pub fn reference_request(&self) -> ProgramRequest {
        ProgramRequest::new(self.solution.clone(), self.tests.clone()).verdict_only().with_task(self.task_code())
    }

    /// What the tests' names mean: a HumanEval task's prompt (its imports and helpers, which its
    /// tests use) and its entry point, read back from the test's closing `check(entry_point)`.
    pub fn task_code(&self) -> Option<TaskCode> {
        let [TestCase::Statement(test)] = &self.tests[..] else { return None };
        let call = test.trim_end().rsplit('\n').next()?;
        let entry_point = call.strip_prefix("check(")?.strip_suffix(')')?;
        (self.format == TaskFormat::HumanEval && is_identifier(entry_point))
            .then(|| TaskCode { definitions: self.prompt.clone(), entry_point: Some(entry_point.to_owned()) })
    }
}

/// What was wrong with an imported file, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportError {
    /// 1-based line in the file (for a JSON array: the line where the object starts).
    pub line: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, &self.field) {
            (Some(line), Some(field)) => write!(f, "line {line}, field `{field}`: {}", self.message),
            (Some(line), None) => write!(f, "line {line}: {}", self.message),
            (None, Some(field)) => write!(f, "field `{field}`: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

fn error(line: Option<usize>, field: Option<&str>, message: impl Into<String>) -> ImportError {
    ImportError { line, field: field.map(str::to_owned), message: message.into() }
}

/// Parses a task file (a JSON array or JSON lines). The first object decides the format of all:
/// APPS+ if it has `scope`, or `prompt` and `canonical_solution` without `task_id`; HumanEval if it
/// has any other HumanEval key (`task_id`, `canonical_solution`, `entry_point`, `test`); APPS
/// otherwise. `file_name` only names the file in messages.
pub fn parse_task_file(file_name: &str, text: &str) -> Result<Vec<ImportedTask>, Vec<ImportError>> {
    let (objects, mut errors) =
        if text.trim_start().starts_with('[') { json_array_objects(text) } else { json_line_objects(text) };
    if objects.is_empty() && errors.is_empty() {
        errors.push(error(None, None, format!("{file_name} holds no task")));
    }
    if objects.len() > MAX_TASKS_PER_FILE {
        errors.push(error(None, None, format!("{} tasks; at most {MAX_TASKS_PER_FILE} per file", objects.len())));
    }
    let format = objects.first().map_or(TaskFormat::HumanEval, |(_, first)| format_of(first));
    let mut tasks = Vec::with_capacity(objects.len());
    let mut ids = BTreeSet::new();
    for (index, (line, object)) in objects.iter().enumerate() {
        let parsed = match format {
            TaskFormat::HumanEval => humaneval::humaneval_task(object, *line),
            TaskFormat::Apps => apps::apps_task(object, *line, index),
            TaskFormat::AppsPlus => apps_plus::apps_plus_task(object, *line, index),
        };
        match parsed {
            Ok(task) if !ids.insert(task.id.clone()) => {
                errors.push(error(Some(*line), Some(id_field(format)), format!("`{}` appears twice", task.id)));
            }
            Ok(task) => tasks.push(task),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() { Ok(tasks) } else { Err(errors) }
}

fn format_of(object: &Map<String, Value>) -> TaskFormat {
    const HUMANEVAL_KEYS: [&str; 4] = ["task_id", "canonical_solution", "entry_point", "test"];
    let has = |key: &str| object.contains_key(key);
    if has("scope") || has("prompt") && has("canonical_solution") && !has("task_id") {
        TaskFormat::AppsPlus
    } else if HUMANEVAL_KEYS.iter().any(|k| has(k)) {
        TaskFormat::HumanEval
    } else {
        TaskFormat::Apps
    }
}

fn id_field(format: TaskFormat) -> &'static str {
    match format {
        TaskFormat::HumanEval => "task_id",
        TaskFormat::Apps | TaskFormat::AppsPlus => "problem_id",
    }
}

type Objects = Vec<(usize, Map<String, Value>)>;

fn json_line_objects(text: &str) -> (Objects, Vec<ImportError>) {
    let mut objects = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(object)) => objects.push((line, object)),
            Ok(_) => errors.push(error(Some(line), None, "expected one JSON object per line")),
            Err(e) => errors.push(error(Some(line), None, format!("not JSON: {e}"))),
        }
    }
    (objects, errors)
}

fn json_array_objects(text: &str) -> (Objects, Vec<ImportError>) {
    let items = match serde_json::from_str::<Vec<Value>>(text) {
        Ok(items) => items,
        Err(e) => return (Vec::new(), vec![error(Some(e.line()), None, format!("not a JSON array of tasks: {e}"))]),
    };
    let starts = object_start_lines(text);
    let mut objects = Vec::new();
    let mut errors = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let line = starts.get(index).copied().unwrap_or(1);
        match item {
            Value::Object(object) => objects.push((line, object)),
            _ => errors.push(error(Some(line), None, format!("item {} is not an object", index + 1))),
        }
    }
    (objects, errors)
}

/// The line on which each top-level element of a JSON array starts (for error messages).
fn object_start_lines(text: &str) -> Vec<usize> {
    let (mut depth, mut line, mut in_string, mut escaped) = (0usize, 1usize, false, false);
    let mut starts = Vec::new();
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else {
            match c {
                '"' => in_string = true,
                '[' | '{' => {
                    if depth == 1 {
                        starts.push(line);
                    }
                    depth += 1;
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if c == '\n' {
            line += 1;
        }
    }
    starts
}

fn string_field(object: &Map<String, Value>, line: usize, field: &str) -> Result<String, ImportError> {
    match object.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(error(Some(line), Some(field), format!("must be a string, not {}", kind(other)))),
        None => Err(error(Some(line), Some(field), "is missing")),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::apps::python_literal;
    use super::apps_plus::apps_plus_literal;
    use super::*;

    const HUMANEVAL_LINE: &str = r#"{"task_id": "Demo/0", "prompt": "def add(a, b):\n    \"\"\"Sum.\"\"\"\n", "canonical_solution": "    return a + b\n", "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n", "entry_point": "add"}"#;

    #[test]
    fn humaneval_lines_become_prompt_plus_solution_and_a_check_call() {
        let tasks = parse_task_file("demo.jsonl", &format!("{HUMANEVAL_LINE}\n\n")).unwrap();
        assert_eq!(tasks.len(), 1);
        let task = &tasks[0];
        assert_eq!(task.format, TaskFormat::HumanEval);
        assert!(task.solution.ends_with("    return a + b\n") && task.solution.starts_with("def add"));
        let TestCase::Statement(test) = &task.tests[0] else { panic!("a statement test") };
        assert!(test.ends_with("check(add)"), "{test}");
    }

    #[test]
    fn every_bad_line_is_named_and_nothing_is_half_imported() {
        let text = format!(
            "{HUMANEVAL_LINE}\nnot json\n{}\n{}\n{HUMANEVAL_LINE}\n",
            HUMANEVAL_LINE.replace("\"entry_point\": \"add\"", "\"entry_point\": 3"),
            HUMANEVAL_LINE.replace("\"entry_point\": \"add\"", "\"entry_point\": \"a-b\""),
        );
        let errors = parse_task_file("bad.jsonl", &text).unwrap_err();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].starts_with("line 2: not JSON"), "{messages:?}");
        assert_eq!(messages[1], "line 3, field `entry_point`: must be a string, not a number");
        assert_eq!(messages[2], "line 4, field `entry_point`: `a-b` is not a Python name");
        assert_eq!(messages[3], "line 5, field `task_id`: `Demo/0` appears twice");
    }

    #[test]
    fn apps_call_and_stdin_problems() {
        let text = r#"[
  {"problem_id": 7, "question": "Double it.", "solutions": "[\"def double(x):\\n    return 2 * x\\n\"]",
   "input_output": "{\"inputs\": [[2], [5]], \"outputs\": [[4], 10], \"fn_name\": \"double\"}", "starter_code": ""},
  {"problem": "Echo twice.", "solution": "s = input()\nprint(s + s)\n", "inputs": ["ab\n", ["x"]], "outputs": ["abab\n", "xx"]}
]"#;
        let tasks = parse_task_file("apps.json", text).unwrap();
        assert_eq!(tasks[0].id, "7");
        assert!(tasks[0].solution.starts_with("def double"));
        let TestCase::Statement(call) = &tasks[0].tests[0] else { panic!() };
        assert!(call.starts_with("_result = double(2)\nassert _result == [4] or [_result] == [4]"), "{call}");
        assert_eq!(tasks[1].id, "apps-2");
        assert_eq!(tasks[1].tests[1], TestCase::Io { stdin: "x".into(), stdout: "xx".into(), call: None });
    }

    #[test]
    fn apps_errors_name_the_object_line_and_field() {
        let text = "[\n  {\"problem\": \"p\", \"inputs\": [\"1\"], \"outputs\": []},\n  {\"problem\": \"q\", \"inputs\": [\"1\"], \"outputs\": [\"1\"], \"fn_name\": \"no such\"}\n]";
        let messages: Vec<String> =
            parse_task_file("apps.json", text).unwrap_err().iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "line 2, field `outputs`: 0 outputs for 1 inputs; they must pair up",
                "line 3, field `fn_name`: \"no such\" is not a Python name",
            ]
        );
    }

    #[test]
    fn python_literals_of_json_values() {
        let value: Value = serde_json::from_str(r#"[null, true, 1.5, "a\"b", {"k": [false]}]"#).unwrap();
        assert_eq!(python_literal(&value), r#"[None, True, 1.5, "a\"b", {"k": [False]}]"#);
    }

    #[test]
    fn apps_plus_records_keep_scope_and_difficulty_call_their_wrapper_and_keep_literals() {
        let tasks = apps_plus_sample();
        assert_eq!(tasks.len(), 4);
        assert!(tasks.iter().all(|t| t.format == TaskFormat::AppsPlus));
        let stdin = &tasks[0];
        assert_eq!(stdin.id, "apps-plus-1");
        assert_eq!(stdin.difficulty.as_deref(), Some("introductory"));
        let scope = stdin.scope.as_ref().unwrap();
        assert_eq!((scope[0].kind, scope[0].start, scope[0].end), (crate::python::ScopeKind::Function, 2, 12));
        let TestCase::Io { call, stdin: input, .. } = &stdin.tests[0] else { panic!("a stdin test") };
        assert_eq!((call.as_deref(), input.as_str()), (Some("QvTrk"), "3\n1 -2 5\n"));
        assert!(stdin.solution.starts_with("import sys\ndef QvTrk():"), "the solution is kept as it is");
        let TestCase::Statement(method) = &tasks[2].tests[0] else { panic!("a call test") };
        assert!(
            method.starts_with("_result = Solution().longestVowelRun(\"beautiful\")\nassert _result == [3]"),
            "{method}"
        );
        let TestCase::Statement(nested) = &tasks[3].tests[0] else { panic!("a call test") };
        assert!(
            nested.starts_with("_result = distinct_words(\"tree apple sky\")\nassert _result == [[[\"sky\"], 2]]"),
            "{nested}"
        );
    }

    /// APPS+ holds 7,413 records; the whole dataset imports from one file.
    #[test]
    fn the_whole_of_apps_plus_fits_in_one_file() {
        let record = r#"{"prompt": "\ndef FsxrN():\n    \"\"\"Echo.\"\"\"\n", "canonical_solution": "def FsxrN():\n    print(input())\n", "inputs": ["a\n"], "outputs": ["a\n"], "starter_code": "\ndef FsxrN():\n", "scope": [["Function Body", 1, 2]], "difficulty": "introductory"}"#;
        let text = vec![record; 7_413].join("\n");
        let tasks = parse_task_file("apps_plus.jsonl", &text).unwrap();
        assert_eq!(tasks.len(), 7_413);
        assert_eq!(tasks[7_412].id, "apps-plus-7413");
        assert_eq!(
            tasks[0].tests[0],
            TestCase::Io { stdin: "a\n".into(), stdout: "a\n".into(), call: Some("FsxrN".into()) }
        );
    }

    #[test]
    fn quoted_strings_are_python_literals_already() {
        let values: Vec<Value> =
            serde_json::from_str(r#"["\"abc\"", "plain", "'x'", "\"a\\\"b\"", "\"a\"b\"", "\"", [1, "\" /\""]]"#)
                .unwrap();
        let literals: Vec<String> = values.iter().map(apps_plus_literal).collect();
        // Inside a list a string keeps its quote characters, as `str(list)` gives it.
        assert_eq!(
            literals,
            ["\"abc\"", "\"plain\"", "'x'", r#""a\"b""#, r#""\"a\"b\"""#, r#""\"""#, r#"[1, "\" /\""]"#]
        );
    }

    #[test]
    fn apps_plus_errors_name_the_field() {
        let record = |extra: &str| {
            format!(r#"[{{"prompt": "p", "canonical_solution": "x", "inputs": [[1]], "outputs": [[1]]{extra}}}]"#)
        };
        let message = |extra: &str| parse_task_file("plus.json", &record(extra)).unwrap_err()[0].to_string();
        assert_eq!(
            message(r#", "starter_code": "x = 1""#),
            "line 1, field `starter_code`: defines no function for the tests to call, and there is no `fn_name`"
        );
        assert!(
            message(r#", "scope": [["Loop", 1, 2]]"#)
                .starts_with("line 1, field `scope`: must be a list of [kind, start line, end line]")
        );
        let fine = parse_task_file("plus.json", &record(r#", "fn_name": "f""#)).unwrap();
        assert_eq!(
            fine[0].tests,
            [TestCase::Statement(
                "_result = f(1)\nassert _result == [1] or [_result] == [1], f'got {_result!r}'".into()
            )]
        );
    }

    #[test]
    fn an_empty_file_says_so() {
        let errors = parse_task_file("empty.jsonl", "\n \n").unwrap_err();
        assert_eq!(errors[0].to_string(), "empty.jsonl holds no task");
    }
}
