//! APPS-style JSON: an array (or JSON lines) of objects with `problem` (or APPS's `question`), a
//! solution (`solution`, or APPS's `solutions` list, possibly JSON-encoded), `inputs`/`outputs` (top
//! level, or inside APPS's `input_output`, possibly JSON-encoded), optional `fn_name` and
//! `starter_code`. With `fn_name` each pair is a call (`Solution().fn_name` when the starter code
//! declares `class Solution`); without it, the program reads the input on stdin. The pairs, calls
//! and literals here serve APPS+ too.

use serde_json::{Map, Value};

use super::{ImportError, ImportedTask, TaskFormat, error, is_identifier, kind, string_field};
use crate::python::TestCase;

/// A value that APPS sometimes stores JSON-encoded inside a string.
pub(super) fn decoded(value: &Value) -> Value {
    match value {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| value.clone()),
        other => other.clone(),
    }
}

pub(super) fn apps_task(object: &Map<String, Value>, line: usize, index: usize) -> Result<ImportedTask, ImportError> {
    let id = apps_id(object, index, "apps");
    let prompt = match (object.get("problem"), object.get("question")) {
        (Some(_), _) => string_field(object, line, "problem")?,
        (None, Some(_)) => string_field(object, line, "question")?,
        (None, None) => return Err(error(Some(line), Some("problem"), "is missing (nor is `question`)")),
    };
    let solution = match (object.get("solution"), object.get("solutions").map(decoded)) {
        (Some(_), _) => string_field(object, line, "solution")?,
        (None, Some(Value::Array(list))) => match list.first() {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(error(Some(line), Some("solutions"), "must hold strings")),
            None => String::new(),
        },
        (None, Some(_)) => return Err(error(Some(line), Some("solutions"), "must be a list of programs")),
        (None, None) => String::new(),
    };
    let starter_code = match object.get("starter_code") {
        None | Some(Value::Null) => String::new(),
        Some(_) => string_field(object, line, "starter_code")?,
    };
    let io_field = if object.contains_key("input_output") { "input_output" } else { "inputs" };
    let io = match object.get("input_output").map(decoded) {
        Some(Value::Object(io)) => io,
        Some(_) => return Err(error(Some(line), Some("input_output"), "must be an object with inputs and outputs")),
        None => object.clone(),
    };
    let (inputs, outputs) = io_pairs(&io, line, io_field)?;
    let tests = match fn_name(&io, object, line)? {
        Some(name) => {
            let callee = callee(&starter_code, &name);
            inputs
                .iter()
                .zip(&outputs)
                .map(|(input, output)| call_test(&callee, input, output, python_literal))
                .collect()
        }
        None => stdin_tests(&inputs, &outputs, line, None)?,
    };
    Ok(ImportedTask {
        id,
        format: TaskFormat::Apps,
        prompt,
        starter_code,
        solution,
        tests,
        scope: None,
        difficulty: None,
    })
}

pub(super) fn apps_id(object: &Map<String, Value>, index: usize, prefix: &str) -> String {
    match object.get("problem_id").or_else(|| object.get("id")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => format!("{prefix}-{}", index + 1),
    }
}

/// The inputs and outputs of `io` (the object itself, or APPS's `input_output`): lists of one
/// length, not empty.
pub(super) fn io_pairs(
    io: &Map<String, Value>,
    line: usize,
    io_field: &str,
) -> Result<(Vec<Value>, Vec<Value>), ImportError> {
    let pairs = |name: &str| -> Result<Vec<Value>, ImportError> {
        match io.get(name) {
            Some(Value::Array(values)) => Ok(values.clone()),
            Some(other) => Err(error(Some(line), Some(name), format!("must be a list, not {}", kind(other)))),
            None => Err(error(
                Some(line),
                Some(if io_field == "inputs" { name } else { io_field }),
                format!("has no `{name}`"),
            )),
        }
    };
    let (inputs, outputs) = (pairs("inputs")?, pairs("outputs")?);
    if inputs.len() != outputs.len() {
        return Err(error(
            Some(line),
            Some("outputs"),
            format!("{} outputs for {} inputs; they must pair up", outputs.len(), inputs.len()),
        ));
    }
    if inputs.is_empty() {
        return Err(error(Some(line), Some("inputs"), "is empty: a task needs at least one test"));
    }
    Ok((inputs, outputs))
}

pub(super) fn fn_name(
    io: &Map<String, Value>,
    object: &Map<String, Value>,
    line: usize,
) -> Result<Option<String>, ImportError> {
    match io.get("fn_name").or_else(|| object.get("fn_name")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) if is_identifier(name) => Ok(Some(name.clone())),
        Some(other) => Err(error(Some(line), Some("fn_name"), format!("{other} is not a Python name"))),
    }
}

/// How a test calls the function `name`: a method of a fresh `Solution` where the starter code
/// declares that class (LeetCode's style), else the function itself.
pub(super) fn callee(starter_code: &str, name: &str) -> String {
    if starter_code.contains("class Solution") { format!("Solution().{name}") } else { name.to_owned() }
}

pub(super) fn stdin_tests(
    inputs: &[Value],
    outputs: &[Value],
    line: usize,
    call: Option<&str>,
) -> Result<Vec<TestCase>, ImportError> {
    inputs
        .iter()
        .zip(outputs)
        .enumerate()
        .map(|(i, (input, output))| {
            Ok(TestCase::Io {
                stdin: text_of(input).ok_or_else(|| io_error(line, "inputs", i))?,
                stdout: text_of(output).ok_or_else(|| io_error(line, "outputs", i))?,
                call: call.map(str::to_owned),
            })
        })
        .collect()
}

pub(super) fn io_error(line: usize, field: &str, index: usize) -> ImportError {
    error(Some(line), Some(field), format!("item {} must be text or a list of lines", index + 1))
}

/// A standard-input case is a string, or a list of lines.
pub(super) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(lines) => {
            lines.iter().map(|l| l.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>().map(|l| l.join("\n"))
        }
        _ => None,
    }
}

/// APPS's call-based check: the arguments are a list; the expected value may be wrapped in a list.
/// `literal` writes each argument, and each item of the expected list, as Python source.
pub(super) fn call_test(callee: &str, input: &Value, output: &Value, literal: fn(&Value) -> String) -> TestCase {
    let items = |items: &[Value]| items.iter().map(literal).collect::<Vec<_>>().join(", ");
    let arguments = match input {
        Value::Array(args) => items(args),
        single => literal(single),
    };
    let expected = match output {
        Value::Array(values) => format!("[{}]", items(values)),
        single => literal(single),
    };
    TestCase::Statement(format!(
        "_result = {callee}({arguments})\nassert _result == {expected} or [_result] == {expected}, f'got {{_result!r}}'"
    ))
}

/// A JSON value as a Python literal (JSON's string escapes are valid in Python).
pub(super) fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(_) => value.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(python_literal).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), python_literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
