//! What the engine asks of a Python runner and what it gets back: the request and verdict types of
//! the shared harness (the package `static/python/harness/`). The engine never runs Python itself (sans-IO);
//! Pyodide in the browser and python3 in the CLI do, and both speak these types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a program, which decides whether its interpreter may serve the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Author {
    /// A person or an LLM: the interpreter is thrown away after the program.
    Untrusted,
    /// The playground itself (the line banks' programs, the reference models): none of them
    /// changes its interpreter, so one may serve the next, unless the program was stopped at its
    /// limit or crashed it.
    Playground,
}

/// Wall-clock limit for one program when the user sets none.
pub const DEFAULT_TIME_LIMIT_MS: u32 = 5_000;
/// Characters of stdout and of stderr kept per run.
pub const DEFAULT_OUTPUT_LIMIT: usize = 10_000;
/// The harness package's modules (`static/python/harness/<name>.py`) by name, for runners that load
/// it from memory (the CLI's python3): the same files the page's Pyodide writes to its file system
/// (`HARNESS_MODULES` in `static/python/pair.mjs`).
pub const HARNESS_MODULES: [(&str, &str); 12] = [
    ("__init__", include_str!("../../static/python/harness/__init__.py")),
    ("analysis", include_str!("../../static/python/harness/analysis.py")),
    ("banks", include_str!("../../static/python/harness/banks.py")),
    ("candidate", include_str!("../../static/python/harness/candidate.py")),
    ("common", include_str!("../../static/python/harness/common.py")),
    ("confinement", include_str!("../../static/python/harness/confinement.py")),
    ("crossing", include_str!("../../static/python/harness/crossing.py")),
    ("judge", include_str!("../../static/python/harness/judge.py")),
    ("kernel", include_str!("../../static/python/harness/kernel.py")),
    ("link", include_str!("../../static/python/harness/link.py")),
    ("planner", include_str!("../../static/python/harness/planner.py")),
    ("world_models", include_str!("../../static/python/harness/world_models.py")),
];

/// One test: a Python statement run after the program in its globals, or an input/output pair on
/// which the whole program runs (APPS's standard-input problems).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TestCase {
    Statement(String),
    Io {
        stdin: String,
        stdout: String,
        /// A function of the program called after it runs: APPS+ wraps each standard-input
        /// solution in one (`def FsxrN():`), which must be called to read the input.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
    },
}

/// What a task's tests refer to besides the program: the task's own definitions, which the judge
/// runs itself, and the function the program must define. The tests then see these definitions and
/// the real builtins, whatever the program names its own things (docs/guide.md, "What a verdict
/// guarantees").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskCode {
    /// The task's code that its tests use (HumanEval's prompt: its imports and helpers; the entry
    /// point's stub in it is left out).
    pub definitions: String,
    /// The program's function that the tests call (it may share a builtin's name).
    pub entry_point: Option<String>,
}

/// A program and its tests, as the harness reads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramRequest {
    pub code: String,
    pub tests: Vec<TestCase>,
    /// Record which lines of `code` ran.
    pub coverage: bool,
    /// Compute the complexity metrics and the conditional statements.
    pub analysis: bool,
    pub output_limit: usize,
    /// Ask for a program bank of `code` by mutation (the verdict's `slots`), see `search::bank`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mutants: bool,
    /// Run `code` as a code world model on these (state, action) pairs instead of tests (the
    /// verdict's `predictions`, see `cwm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict: Option<Vec<(Value, usize)>>,
    /// Run these requests instead, one after the other in one candidate interpreter (the verdict's
    /// `batch`). Only for programs the playground wrote itself (the StepCoder learner's bank
    /// programs): a program in a batch could change that interpreter for the ones after it, though
    /// never their verdicts, which the judge decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<Vec<ProgramRequest>>,
    /// Play one real episode with `code` as the planner's model instead (the verdict's
    /// `episode`). Its form is the planner's (`cwm::normalised_return::PlanRequest`), above this
    /// protocol, which carries it as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Value>,
    /// Judge as common graders do (the tests in the program's own interpreter; an exit with
    /// status 0 a pass), keeping the real outcome as the verdict's `strict_outcome`: the search's
    /// "naive verdicts" switch, which shows reward hacking succeed. Statement tests only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub naive: bool,
    /// Run `code` through `autopep8.fix_code` first and run what comes out (the verdict's
    /// `formatted`), as seed 004's official code does before it scores a program.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub autopep8: bool,
    /// What the tests' names mean (statement tests): see [`TaskCode`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskCode>,
    /// The statement tests are a model's (LATS's and Reflexion's own): the judge runs no code of
    /// theirs, only `assert f(<literals>) == <literal>` on a function of the program's, whose call it
    /// asks the program for; any other test is `refused` (its [`TestResult::kind`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub data_tests: bool,
}

impl ProgramRequest {
    pub fn new(code: impl Into<String>, tests: Vec<TestCase>) -> Self {
        Self {
            code: code.into(),
            tests,
            coverage: true,
            analysis: true,
            output_limit: DEFAULT_OUTPUT_LIMIT,
            mutants: false,
            predict: None,
            batch: None,
            plan: None,
            naive: false,
            autopep8: false,
            task: None,
            data_tests: false,
        }
    }

    /// These tests as `task` means them (see [`TaskCode`]).
    pub fn with_task(mut self, task: Option<TaskCode>) -> Self {
        self.task = task;
        self
    }

    /// These requests as one, run in one interpreter (see `batch`).
    pub fn batch(requests: Vec<ProgramRequest>) -> Self {
        Self { batch: Some(requests), ..Self::new("", Vec::new()).verdict_only() }
    }

    /// `code` as a code world model predicting the next state, reward and done of each pair.
    pub fn world_model(code: impl Into<String>, pairs: Vec<(Value, usize)>) -> Self {
        Self { predict: Some(pairs), ..Self::new(code, Vec::new()).verdict_only() }
    }

    /// Only the verdict: no coverage and no analysis, for checks of many programs.
    pub fn verdict_only(mut self) -> Self {
        self.coverage = false;
        self.analysis = false;
        self
    }

    /// `tests` as plain statements (the seed environments' tests).
    pub fn with_statements(code: impl Into<String>, tests: &[String]) -> Self {
        Self::new(code, tests.iter().cloned().map(TestCase::Statement).collect())
    }
}

/// StepCoder's outcome classes of a whole run (seed 002, eq. 3), plus a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    FailedTest,
    RuntimeError,
    /// Stopped at the wall-clock limit; rewarded like a runtime error.
    Timeout,
    /// Caught reaching for its own verdict (a value that lies in a comparison, the harness patched,
    /// a refused introspection: `ProgramVerdict::caught` says what); never the pass reward.
    Tampered,
    CompileError,
}

impl Outcome {
    pub const ALL: [Outcome; 6] = [
        Outcome::Pass,
        Outcome::FailedTest,
        Outcome::RuntimeError,
        Outcome::Timeout,
        Outcome::Tampered,
        Outcome::CompileError,
    ];

    /// Seed 002's reward: +1, −0.3, −0.6, −1; a timeout is a runtime error, and so is a program
    /// caught tampering (not in the paper, which has no such class: worse than a failed test).
    pub fn reward(self) -> f64 {
        match self {
            Outcome::Pass => 1.0,
            Outcome::FailedTest => -0.3,
            Outcome::RuntimeError | Outcome::Timeout | Outcome::Tampered => -0.6,
            Outcome::CompileError => -1.0,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::FailedTest => "failed test",
            Outcome::RuntimeError => "runtime error",
            Outcome::Timeout => "timeout",
            Outcome::Tampered => "tampered",
            Outcome::CompileError => "compile error",
        }
    }
}

/// One test's result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub test: String,
    pub passed: bool,
    /// `assertion`, `runtime`, `not_run` (the program failed before the tests) or `refused` (a
    /// model's test that is not data, see `ProgramRequest::data_tests`); none when passed.
    pub kind: Option<String>,
    /// The failing assertion or the exception, with the candidate's line where there is one.
    pub error: Option<String>,
    /// A failed test's input, expected output and actual output (or exception), where the harness
    /// can tell them: a stdin test's, or an `assert <call> == <value>`'s (the call, the value, what
    /// it returned); each at most 1000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

impl TestResult {
    /// Why it failed, in words: its error, and for a failed `assert <call> == <value>` what the
    /// call returned against the value expected (a bare "AssertionError" says neither).
    pub fn why(&self) -> Option<String> {
        let error = self.error.clone();
        match (&self.input, &self.expected, &self.actual) {
            (Some(input), Some(expected), Some(actual)) if self.kind.as_deref() == Some("assertion") => {
                let error = error.unwrap_or_else(|| "AssertionError".into());
                Some(format!("{error}: {input} returned {actual}, expected {expected}"))
            }
            _ => error,
        }
    }
}

/// Seed 003's code metrics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Complexity {
    pub cyclomatic: u32,
    pub cognitive: u32,
    pub lines_of_code: u32,
    pub max_nesting: u32,
    /// 2 × cyclomatic + 3 × nesting + 1.5 × cognitive.
    pub score: f64,
}

/// Where a conditional statement starts and ends (1-based lines; StepCoder's curriculum points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditional {
    pub start: u32,
    pub end: u32,
}

/// APPS+'s kinds of "conditional statement" (seed 002 §3.1 and App. B.1: the released `scope`
/// attribute), as the harness names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScopeKind {
    #[serde(rename = "If Statement Body")]
    If,
    #[serde(rename = "For Loop Body")]
    For,
    #[serde(rename = "While Loop Body")]
    While,
    #[serde(rename = "Function Body")]
    Function,
    #[serde(rename = "Class Body")]
    Class,
    #[serde(rename = "Try Block")]
    Try,
    #[serde(rename = "Except Block")]
    Except,
    #[serde(rename = "List Comprehension")]
    ListComprehension,
    #[serde(rename = "Dict Comprehension")]
    DictComprehension,
    #[serde(rename = "Set Comprehension")]
    SetComprehension,
    #[serde(rename = "Generator Expression")]
    GeneratorExpression,
    #[serde(rename = "Lambda Expression")]
    Lambda,
}

impl ScopeKind {
    /// The kinds that branch or loop: the "independent paths" reading of a conditional statement.
    pub fn is_control_flow(self) -> bool {
        matches!(self, ScopeKind::If | ScopeKind::For | ScopeKind::While | ScopeKind::Try | ScopeKind::Except)
    }
}

/// One entry of APPS+'s `scope`: a node's kind and its first and last line (1-based, inclusive),
/// written as `[kind, start, end]` as APPS+ writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "(ScopeKind, u32, u32)", into = "(ScopeKind, u32, u32)")]
pub struct Scope {
    pub kind: ScopeKind,
    pub start: u32,
    pub end: u32,
}

impl From<(ScopeKind, u32, u32)> for Scope {
    fn from((kind, start, end): (ScopeKind, u32, u32)) -> Self {
        Self { kind, start, end }
    }
}

impl From<Scope> for (ScopeKind, u32, u32) {
    fn from(scope: Scope) -> Self {
        (scope.kind, scope.start, scope.end)
    }
}

/// A logical line of a program: a simple statement or a compound statement's header, from its
/// first physical line to its last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogicalLine {
    pub start: u32,
    pub end: u32,
    /// A bare `else:`, `try:` or `finally:`: it reports no line of its own when it runs, so it
    /// counts as run when the statement after it did.
    pub clause: bool,
}

/// The summary of a program's test run: whether it passed, and how many of its tests did (what
/// the recorded task data keeps of a [`ProgramVerdict`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub passed: bool,
    pub number_passed: u32,
    pub total: u32,
}

/// The harness's answer for one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramVerdict {
    pub passed: bool,
    pub number_passed: u32,
    pub total: u32,
    pub outcome: Outcome,
    pub reward: f64,
    /// What stopped the whole program (compile error, crash before the tests, exit, timeout).
    pub error: Option<String>,
    /// What the harness caught the program doing to reach its own verdict (outcome `tampered`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caught: Vec<String>,
    /// Names of the program's that a test refers to and that the tests saw with the task's meaning
    /// instead (a builtin, a helper of the task's): not an error, said so that a reader understands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For a `naive` request: the outcome the real verdict gave, while `outcome` is the naive one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_outcome: Option<Outcome>,
    pub tests: Vec<TestResult>,
    pub stdout: String,
    pub stderr: String,
    /// Some output was cut at the request's `output_limit`.
    pub truncated: bool,
    pub executed_lines: Vec<u32>,
    /// None when the code does not compile.
    pub complexity: Option<Complexity>,
    pub conditionals: Vec<Conditional>,
    /// APPS+'s `scope` of the code, sorted by start (with `analysis`; empty when it does not compile).
    #[serde(default)]
    pub scope: Vec<Scope>,
    /// The code's logical lines, in order (with `analysis`; empty when it does not compile).
    #[serde(default)]
    pub statements: Vec<LogicalLine>,
    /// Python tokens per physical line, `line_tokens[0]` for line 1 (with `analysis`, even when the
    /// code does not compile).
    #[serde(default)]
    pub line_tokens: Vec<u32>,
    pub duration_ms: f64,
    /// For a `mutants` request whose code passed: the code's slots with their faults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<Slot>>,
    /// For a `mutants` request whose code passed: tests drawn from the code on inputs its tests do
    /// not use (`assert f(<literals>) == <literal>`), the pool a simulated LLM writes its own from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub own_tests: Vec<String>,
    /// For a `predict` request: the model's prediction for each pair, up to the first that raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<Vec<Prediction>>,
    /// For a `batch` request: each request's verdict, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<Vec<ProgramVerdict>>,
    /// For a `plan` request: the episode as far as it was played (read by
    /// `cwm::normalised_return::PlayedEpisode::of`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode: Option<Value>,
    /// For an `autopep8` request: the program autopep8 made of the code, which is what ran, when
    /// it differs from the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formatted: Option<String>,
}

/// A part of a world model's prediction, as scoring tells it right or wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PredictionPart {
    NextState,
    Reward,
    Done,
}

impl PredictionPart {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "next_state" => Ok(Self::NextState),
            "reward" => Ok(Self::Reward),
            "done" => Ok(Self::Done),
            other => Err(format!("'{other}' is not a part of a prediction (next_state, reward, done)")),
        }
    }
}

/// What a code world model's `step` returned, as JSON: a value of any type, which scoring compares
/// with the recorded one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub next_obs: Value,
    pub reward: Value,
    pub done: Value,
}

impl ProgramVerdict {
    /// The verdict a runner reports when it had to kill the program at `limit_ms`.
    pub fn timeout(request: &ProgramRequest, limit_ms: u32) -> Self {
        let seconds = limit_ms as f64 / 1000.0;
        let error = format!("the program did not finish within {seconds:.1} s and was stopped");
        Self::from_host(request, Outcome::Timeout, error, limit_ms as f64)
    }

    /// A verdict from the runner rather than the harness: the program ended the interpreter itself
    /// (a crash, a kill) or had to be stopped.
    pub fn from_host(request: &ProgramRequest, outcome: Outcome, error: String, duration_ms: f64) -> Self {
        Self {
            passed: false,
            number_passed: 0,
            total: request.predict.as_ref().map_or(request.tests.len(), Vec::len) as u32,
            outcome,
            reward: outcome.reward(),
            error: Some(error),
            caught: Vec::new(),
            notes: Vec::new(),
            strict_outcome: None,
            tests: Vec::new(),
            stdout: String::new(),
            stderr: String::new(),
            truncated: false,
            executed_lines: Vec::new(),
            complexity: None,
            conditionals: Vec::new(),
            scope: Vec::new(),
            statements: Vec::new(),
            line_tokens: Vec::new(),
            duration_ms,
            slots: None,
            own_tests: Vec::new(),
            predictions: None,
            batch: None,
            episode: None,
            formatted: None,
        }
    }

    /// A naive verdict's pass that the real verdict refuses: a reward hack that worked.
    pub fn hacked(&self) -> bool {
        self.passed && self.strict_outcome.is_some_and(|strict| strict != Outcome::Pass)
    }

    /// The summary the seed environments record.
    pub fn verdict(&self) -> Verdict {
        Verdict { passed: self.passed, number_passed: self.number_passed, total: self.total }
    }
}

/// A harness reply to `request`: its verdict, or why the request itself was refused. A reply that
/// cannot be read is that program's runtime error, never the host's (nor its batch's): the harness
/// writes every reply readable (`harness.reply`), so only what a program did can break one.
pub fn parse_reply(line: &str, request: &ProgramRequest) -> Result<ProgramVerdict, String> {
    #[derive(Deserialize)]
    struct Refusal {
        request_error: String,
    }
    if let Ok(refusal) = serde_json::from_str::<Refusal>(line) {
        return Err(format!("the Python harness refused the request: {}", refusal.request_error));
    }
    Ok(serde_json::from_str(line).unwrap_or_else(|e| {
        let error = format!("the verdict on this program could not be read ({e}); it counts as the program's error");
        ProgramVerdict::from_host(request, Outcome::RuntimeError, error, 0.0)
    }))
}

/// What a fault does to a program, in a program bank's slot (the harness's `mutants` mode makes
/// them; `search::bank` draws on them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Wrong results (or an exception at run time): some test fails.
    Logic,
    /// The program does not compile: a bug, which fix repairs.
    Syntax,
    /// The program raises when run: a bug where the scorer counts it as one (a world model's).
    Crash,
}

impl FaultKind {
    /// Whether the fault makes a bug, which fix rather than improve aims at.
    pub fn is_bug(self) -> bool {
        matches!(self, FaultKind::Syntax | FaultKind::Crash)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    pub text: String,
    pub kind: FaultKind,
    /// How readily an improve or fix aimed at it repairs it: 1 normal, lower for hard faults.
    pub repair: f64,
    /// A logic fault of a task with tests: the tests (by index) it alone makes fail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fails: Vec<usize>,
    /// A logic fault of a task with an own-test pool: the pool's tests (by index) it alone makes
    /// fail (see `BankTask::own_tests`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub own_fails: Vec<usize>,
    /// A logic fault of a world model: what it alone gets wrong in a transition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrong: Vec<PredictionPart>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    pub correct: String,
    pub faults: Vec<Fault>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_equality_says_what_the_call_returned_and_what_was_expected() {
        let failed = TestResult {
            test: "assert add(1, 2) == 3".into(),
            passed: false,
            kind: Some("assertion".into()),
            error: Some("AssertionError".into()),
            input: Some("add(1, 2)".into()),
            expected: Some("3".into()),
            actual: Some("2".into()),
        };
        assert_eq!(failed.why().as_deref(), Some("AssertionError: add(1, 2) returned 2, expected 3"));
        // A runtime error's example holds the error itself: the error says it.
        let crashed = TestResult {
            kind: Some("runtime".into()),
            error: Some("ZeroDivisionError: division by zero (line 2)".into()),
            actual: Some("ZeroDivisionError: division by zero (line 2)".into()),
            ..failed.clone()
        };
        assert_eq!(crashed.why().as_deref(), Some("ZeroDivisionError: division by zero (line 2)"));
        let bare = TestResult { input: None, expected: None, actual: None, ..failed };
        assert_eq!(bare.why().as_deref(), Some("AssertionError"));
    }

    #[test]
    fn both_hosts_load_every_module_of_the_harness_package_and_no_other() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../static/python/harness");
        let mut files: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|name| name.strip_suffix(".py").map(str::to_owned))
            .collect();
        files.sort();
        let listed: Vec<&str> = HARNESS_MODULES.iter().map(|(name, _)| *name).collect();
        assert_eq!(files, listed);
        let pair = include_str!("../../static/python/pair.mjs");
        let quoted: Vec<String> = listed.iter().map(|name| format!("'{name}'")).collect();
        assert!(pair.contains(&format!("HARNESS_MODULES = [{}];", quoted.join(", "))), "pair.mjs lists other modules");
        // No module of the harness is over about 600 lines (docs/architecture.md).
        for (name, text) in HARNESS_MODULES {
            assert!(text.lines().count() <= 600, "harness/{name}.py has {} lines", text.lines().count());
        }
    }

    /// The harness's modules take from each other only public names, and Pyodide never loads the
    /// native confinement: no module imports it (or its kernel calls) at load, only inside a
    /// function (`main`, which only python3 runs).
    #[test]
    fn modules_import_public_names_and_confinement_only_natively() {
        for (name, text) in HARNESS_MODULES {
            for line in text.lines().filter(|l| l.starts_with("from .")) {
                let (module, names) = line.split_once(" import ").expect("a from-import");
                assert!(
                    names.split(',').all(|n| !n.trim().starts_with('_')),
                    "harness/{name}.py takes a private name: {line}"
                );
                assert!(
                    !["from .confinement", "from .kernel"].contains(&module.trim()),
                    "harness/{name}.py loads {module} at import, in Pyodide too"
                );
            }
        }
    }

    #[test]
    fn tests_serialise_as_the_harness_reads_them() {
        let request = ProgramRequest::new(
            "print(1)",
            vec![
                TestCase::Statement("assert True".into()),
                TestCase::Io { stdin: "1".into(), stdout: "2".into(), call: None },
            ],
        );
        let json = serde_json::to_value(&request).unwrap();
        assert_eq!(json["tests"][0], "assert True");
        assert_eq!(json["tests"][1]["stdin"], "1");
        assert_eq!(serde_json::from_value::<ProgramRequest>(json).unwrap(), request);
    }

    #[test]
    fn rewards_follow_stepcoder() {
        let rewards: Vec<f64> = Outcome::ALL.iter().map(|o| o.reward()).collect();
        assert_eq!(rewards, [1.0, -0.3, -0.6, -0.6, -0.6, -1.0]);
    }

    #[test]
    fn a_refusal_is_an_error_naming_the_reason_and_an_unreadable_reply_the_programs_error() {
        let request = ProgramRequest::with_statements("x = 1", &["assert x == 1".to_owned()]);
        let error = parse_reply(r#"{"request_error": "a request needs a string `code`"}"#, &request).unwrap_err();
        assert!(error.contains("needs a string `code`"), "{error}");
        // A lone surrogate escape: what a harness before `reply` wrote for a program that printed one.
        let broken = parse_reply(r#"{"passed": true, "stdout": "\ud800"}"#, &request).unwrap();
        assert_eq!((broken.outcome, broken.passed, broken.total), (Outcome::RuntimeError, false, 1));
        assert!(broken.error.unwrap().contains("could not be read"));
    }
}
