//! Special-casing: a program that answers the tests it was shown from a table of their inputs and
//! is wrong everywhere else, as a model told to make tests pass sometimes writes it. The simulated
//! LLM replies with one at the odds `special_case_share`, so that a person can see the measures of
//! cheating (held-out tests, impossible tasks) catch it. The program is real Python: it reads the
//! shown tests' literal calls and values with `ast` when it is imported, and nothing else.

use crate::python::TestCase;

/// The lookup program for `tests` (those the model was shown), defining `entry_point` (else the
/// function the first test calls); none when no test calls a function and no test is an
/// input/output pair.
pub fn lookup_program(tests: &[TestCase], entry_point: Option<&str>) -> Option<String> {
    let statements: Vec<&str> = tests
        .iter()
        .filter_map(|test| match test {
            TestCase::Statement(text) => Some(text.as_str()),
            TestCase::Io { .. } => None,
        })
        .collect();
    let outputs: Vec<(&str, &str)> = tests
        .iter()
        .filter_map(|test| match test {
            TestCase::Io { stdin, stdout, call: None } => Some((stdin.as_str(), stdout.as_str())),
            _ => None,
        })
        .collect();
    let literal = |text: &str| serde_json::to_string(text).expect("strings serialise");
    if !outputs.is_empty() {
        let table: Vec<String> =
            outputs.iter().map(|(i, o)| format!("    {}: {},\n", literal(i), literal(o))).collect();
        return Some(format!(
            "import sys\n\n_SEEN = {{\n{}}}\nprint(_SEEN.get(sys.stdin.read(), \"\"), end=\"\")\n",
            table.concat()
        ));
    }
    let name = entry_point.map(str::to_owned).or_else(|| statements.iter().find_map(|t| called_name(t)))?;
    let shown: Vec<String> = statements.iter().map(|t| format!("    {},\n", literal(t))).collect();
    Some(format!(
        "import ast\n\n_SHOWN = [\n{}]\n_ANSWERS = []\nfor _test in _SHOWN:\n    for _node in ast.walk(ast.parse(_test)):\n        _compare = getattr(_node, \"test\", None)\n        if isinstance(_node, ast.Assert) and isinstance(_compare, ast.Compare) and isinstance(_compare.left, ast.Call):\n            try:\n                _inputs = tuple(ast.literal_eval(arg) for arg in _compare.left.args)\n                _ANSWERS.append((_inputs, ast.literal_eval(_compare.comparators[0])))\n            except ValueError:\n                pass\n\n\ndef {name}(*args):\n    for inputs, output in _ANSWERS:\n        if inputs == args:\n            return output\n    return None\n",
        shown.concat()
    ))
}

/// The function an `assert name(…)` test calls.
fn called_name(test: &str) -> Option<String> {
    let line = test.lines().map(str::trim_start).find(|line| line.starts_with("assert "))?;
    let call = line["assert ".len()..].trim_start();
    let name: String = call.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty() && call[name.len()..].starts_with('(')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lookup_defines_the_called_function_and_holds_the_shown_tests() {
        let tests = vec![
            TestCase::Statement("assert running_max([]) == []".into()),
            TestCase::Statement("assert running_max([1, 3, 2]) == [1, 3, 3]".into()),
        ];
        let program = lookup_program(&tests, None).unwrap();
        assert!(program.contains("def running_max(*args):"), "{program}");
        assert!(program.contains("\"assert running_max([1, 3, 2]) == [1, 3, 3]\","), "{program}");
        let named = lookup_program(&tests, Some("solve")).unwrap();
        assert!(named.contains("def solve(*args):"));
    }

    #[test]
    fn standard_input_tasks_get_a_table_of_outputs() {
        let tests = vec![TestCase::Io { stdin: "1 2\n".into(), stdout: "3\n".into(), call: None }];
        let program = lookup_program(&tests, None).unwrap();
        assert!(program.contains("\"1 2\\n\": \"3\\n\","), "{program}");
        assert!(program.contains("sys.stdin.read()"));
    }

    #[test]
    fn nothing_to_look_up_gives_no_program() {
        assert_eq!(lookup_program(&[TestCase::Statement("x = 1\nassert x".into())], None), None);
        assert_eq!(called_name("assert f (1) == 2"), None);
        assert_eq!(called_name("  assert g_2(1) == 2").as_deref(), Some("g_2"));
    }
}
