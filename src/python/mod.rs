//! The Python pane: a program and its tests side by side, run by Pyodide through the shared harness;
//! the verdict (StepCoder's outcome class and reward), each test's result, the output, the lines that
//! ran and seed 003's complexity. Tasks come bundled (seed 000's programs) or imported in the Search
//! pane from HumanEval JSONL and APPS JSON files, which are kept in the browser's IndexedDB.

use engine::EnvId;
use engine::python::{DEFAULT_TIME_LIMIT_MS, Outcome, ProgramRequest, ProgramVerdict, TaskCode, TestCase};
use engine::task_import::ImportedTask;
use leptos::prelude::*;

use crate::services::python_pool::{Python, PythonState};
use crate::services::python_worker::cross_origin_isolated;
use crate::services::storage::ImportedTasks;

/// A program and tests the editor can load.
#[derive(Clone, Debug, PartialEq)]
struct Example {
    label: String,
    code: String,
    tests: Vec<TestCase>,
    /// What the tests' names mean (an imported HumanEval task's prompt and entry point).
    task_code: Option<TaskCode>,
}

fn bundled_examples() -> Vec<Example> {
    EnvId::ALL
        .into_iter()
        .flat_map(|env| env.bundled_programs().into_iter().map(move |p| (env.source().replace('-', " "), p)))
        .map(|(source, p)| Example {
            label: format!("{source} · {} · {} code", p.task_id, p.variant),
            code: p.code,
            tests: p.tests.into_iter().map(TestCase::Statement).collect(),
            task_code: None,
        })
        .collect()
}

fn imported_example(task: &ImportedTask) -> Example {
    let code = if task.solution.is_empty() { task.starter_code.clone() } else { task.solution.clone() };
    Example { label: format!("imported · {}", task.id), code, tests: task.tests.clone(), task_code: task.task_code() }
}

/// Tests as the editor shows them: one statement per line; indented lines continue the one above.
fn tests_text(tests: &[TestCase]) -> String {
    tests
        .iter()
        .filter_map(|t| match t {
            TestCase::Statement(s) => Some(s.as_str()),
            TestCase::Io { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_tests(text: &str) -> Vec<TestCase> {
    let mut tests: Vec<String> = Vec::new();
    for line in text.lines() {
        let continues = line.starts_with([' ', '\t']) || line.trim().is_empty();
        match tests.last_mut() {
            Some(last) if continues => {
                last.push('\n');
                last.push_str(line);
            }
            _ if line.trim().is_empty() => {}
            _ => tests.push(line.to_owned()),
        }
    }
    tests.into_iter().map(|t| TestCase::Statement(t.trim_end().to_owned())).collect()
}

fn outcome_class(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "outcome pass",
        Outcome::FailedTest => "outcome failed",
        Outcome::RuntimeError | Outcome::Timeout => "outcome runtime",
        Outcome::Tampered => "outcome tampered",
        Outcome::CompileError => "outcome compile",
    }
}

fn parse_limit(text: &str) -> Result<u32, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.1..=60.0).contains(&seconds) => Ok((seconds * 1000.0).round() as u32),
        _ => Err(format!("time limit must be a number of seconds from 0.1 to 60, got '{text}'")),
    }
}

#[component]
pub fn PythonPane() -> impl IntoView {
    // The tasks imported from files (kept in IndexedDB; live mode offers them too).
    let (python, imported) = (Python::from_context(), ImportedTasks::from_context());
    let state = python.with_value(|p| p.state);
    let bundled = bundled_examples();
    let first = bundled[0].clone();

    let code = RwSignal::new(first.code.clone());
    let tests_edit = RwSignal::new(tests_text(&first.tests));
    // Input/output tests (APPS) are not edited as text; they stay with the task that brought them.
    let io_tests = RwSignal::new(Vec::<TestCase>::new());
    let task_code = RwSignal::new(None::<TaskCode>);
    let limit = RwSignal::new(format!("{}", DEFAULT_TIME_LIMIT_MS as f64 / 1000.0));
    let verdict = RwSignal::new(None::<(ProgramVerdict, String)>);
    let problem = RwSignal::new(None::<String>);

    let bundled = StoredValue::new(bundled);
    let examples = move || {
        let mut all = bundled.get_value();
        imported.with(|t| all.extend(t.iter().map(imported_example)));
        all
    };
    let choose = move |label: String| {
        if let Some(example) = examples().into_iter().find(|e| e.label == label) {
            code.set(example.code);
            tests_edit.set(tests_text(&example.tests));
            io_tests.set(example.tests.into_iter().filter(|t| matches!(t, TestCase::Io { .. })).collect());
            task_code.set(example.task_code);
            verdict.set(None);
        }
    };

    let run = {
        move |_| {
            let limit_ms = match parse_limit(&limit.get_untracked()) {
                Ok(ms) => ms,
                Err(message) => return problem.set(Some(message)),
            };
            problem.set(None);
            verdict.set(None);
            let source = code.get_untracked();
            let mut tests = parse_tests(&tests_edit.get_untracked());
            tests.extend(io_tests.get_untracked());
            python.with_value(|python| {
                let request = ProgramRequest::new(source.clone(), tests).with_task(task_code.get_untracked());
                python.run(request, limit_ms, move |result| match result {
                    Ok(v) => verdict.set(Some((v, source))),
                    Err(message) => problem.set(Some(message)),
                })
            });
        }
    };

    let state_text = {
        move || match state.get() {
            PythonState::Idle => "Python loads when you first run a program.".to_owned(),
            PythonState::Loading => "Loading Python (Pyodide)…".to_owned(),
            PythonState::Ready { load_ms, after_verdict_ms: None } => {
                format!("Python ready (loaded in {:.2} s).", load_ms / 1000.0)
            }
            PythonState::Ready { load_ms, after_verdict_ms: Some(after) } => format!(
                "Python ready (loaded in {:.2} s; ready {:.0} ms after the last verdict).",
                load_ms / 1000.0,
                after
            ),
            PythonState::Running => "Running…".to_owned(),
            PythonState::Failed(message) => message,
        }
    };
    let busy = move || matches!(state.get(), PythonState::Loading | PythonState::Running);
    let isolation = if cross_origin_isolated() {
        "Runaway programs are interrupted (the page is cross-origin isolated); ones that ignore it are stopped by restarting Python."
    } else {
        "Runaway programs are stopped by restarting Python (the page is not cross-origin isolated, so it cannot interrupt them)."
    };
    let line_count = move || code.with(|c| c.lines().count().max(1));

    view! {
        <section aria-labelledby="python-heading" class="panel" id="python">
            <h2 id="python-heading">"Python"</h2>
            <p class="hint">"Programs run in your browser with Pyodide, in a worker of their own, through the harness the training environments use. " {isolation}</p>
            <div class="row">
                <label>"Program "
                    <select id="editor-task" on:change=move |ev| choose(event_target_value(&ev))>
                        {move || examples().into_iter().map(|e| view! { <option value=e.label.clone()>{e.label.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Time limit (s) "<input id="editor-limit" inputmode="decimal" size="4" prop:value=limit on:input=move |ev| limit.set(event_target_value(&ev)) /></label>
                <button type="button" id="editor-run" on:click=run>"Run"</button>
                <span id="python-state" role="status" class:busy=busy>{state_text}</span>
            </div>
            <p class="error" role="alert" id="python-problem" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <div class="editor">
                <div class="code-column">
                    <label for="editor-code">"Code"</label>
                    <div class="code-box">
                        <pre class="gutter" aria-hidden="true">{move || (1..=line_count()).map(|n| format!("{n}\n")).collect::<String>()}</pre>
                        <textarea id="editor-code" spellcheck="false" autocomplete="off" wrap="off" rows="14"
                            prop:value=code on:input=move |ev| code.set(event_target_value(&ev))
                            on:scroll=move |ev| {
                                let area: web_sys::HtmlTextAreaElement = event_target(&ev);
                                if let Some(gutter) = area.previous_element_sibling() { gutter.set_scroll_top(area.scroll_top()) }
                            }></textarea>
                    </div>
                </div>
                <div class="code-column">
                    <label for="editor-tests">"Tests (one per line; indented lines continue a test)"</label>
                    <textarea id="editor-tests" spellcheck="false" autocomplete="off" wrap="off" rows="14"
                        prop:value=tests_edit on:input=move |ev| tests_edit.set(event_target_value(&ev))></textarea>
                    <p class="hint" hidden=move || io_tests.with(Vec::is_empty)>
                        {move || format!("Plus {} input/output tests from the task: the program runs on each input and must print the expected output.", io_tests.with(Vec::len))}
                    </p>
                </div>
            </div>
            {move || verdict.get().map(|(v, source)| view! { <VerdictView verdict=v source=source /> })}
            <p class="hint" id="python-imported">"Tasks imported from HumanEval and APPS files are in the Program list too. "<a href="#import">"Import tasks in the Search pane"</a></p>
        </section>
    }
}

#[component]
fn VerdictView(verdict: ProgramVerdict, source: String) -> impl IntoView {
    let reward = format!("{:+}", verdict.reward);
    let executed: std::collections::BTreeSet<u32> = verdict.executed_lines.iter().copied().collect();
    let conditional_starts: std::collections::BTreeSet<u32> = verdict.conditionals.iter().map(|c| c.start).collect();
    let complexity = verdict.complexity.map(|c| {
        format!(
            "complexity {:.1} (cyclomatic {}, cognitive {}, nesting {}, {} lines)",
            c.score, c.cyclomatic, c.cognitive, c.max_nesting, c.lines_of_code
        )
    });
    let lines = source
        .lines()
        .enumerate()
        .map(|(i, text)| {
            let number = i as u32 + 1;
            let class = if text.trim().is_empty() {
                "line"
            } else if executed.contains(&number) {
                "line executed"
            } else {
                "line missed"
            };
            let marker = if conditional_starts.contains(&number) { "◆" } else { " " };
            view! { <span class=class data-line=number><span class="number">{format!("{number:>3}{marker}")}</span>{format!("{text}\n")}</span> }
        })
        .collect_view();
    let has_coverage = !verdict.executed_lines.is_empty();
    view! {
        <div id="verdict" class="verdict">
            <p>
                <span id="outcome" class=outcome_class(verdict.outcome)>{verdict.outcome.label()}</span>
                " reward "<strong id="reward">{reward}</strong>
                " · "<span id="tests-passed">{format!("{}/{} tests", verdict.number_passed, verdict.total)}</span>
                " · "<span id="duration">{format!("{:.0} ms", verdict.duration_ms)}</span>
                {complexity.map(|c| view! { " · " <span id="complexity" class="badge">{c}</span> })}
            </p>
            <p id="program-error" class="error" hidden=verdict.error.is_none()>{verdict.error.clone()}</p>
            <ul id="verdict-notes" class="notes" hidden=verdict.notes.is_empty()>
                {verdict.notes.iter().map(|note| view! { <li>{note.clone()}</li> }).collect_view()}
            </ul>
            <table id="test-results" hidden=verdict.tests.is_empty()>
                <thead><tr><th scope="col">"Test"</th><th scope="col">"Result"</th><th scope="col">"Why"</th></tr></thead>
                <tbody>
                    {verdict.tests.iter().map(|t| view! {
                        <tr class=if t.passed { "passed" } else { "failed" }>
                            <td><code>{t.test.clone()}</code></td>
                            <td>{if t.passed { "pass" } else if t.kind.as_deref() == Some("not_run") { "not run" } else { "fail" }}</td>
                            <td>{t.why()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <div hidden=!has_coverage>
                <h3>"Lines that ran"<small>" (◆ starts a conditional statement)"</small></h3>
                <pre id="coverage" class="coverage">{lines}</pre>
            </div>
            <div hidden=verdict.stdout.is_empty() && verdict.stderr.is_empty()>
                <h3>"Output"{verdict.truncated.then_some(" (cut short)")}</h3>
                <pre id="stdout">{verdict.stdout.clone()}</pre>
                <pre id="stderr" class="error">{verdict.stderr.clone()}</pre>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indented_lines_continue_a_test() {
        let tests = parse_tests("assert f(1) == 1\n\nfor x in range(3):\n    assert f(x) == x\nassert True\n");
        assert_eq!(
            tests,
            [
                TestCase::Statement("assert f(1) == 1".into()),
                TestCase::Statement("for x in range(3):\n    assert f(x) == x".into()),
                TestCase::Statement("assert True".into()),
            ]
        );
        assert_eq!(parse_tests(&tests_text(&tests)), tests);
    }

    #[test]
    fn time_limits_are_checked() {
        assert_eq!(parse_limit("2.5"), Ok(2500));
        assert!(parse_limit("0").unwrap_err().contains("from 0.1 to 60"));
        assert!(parse_limit("abc").unwrap_err().contains("'abc'"));
    }
}
