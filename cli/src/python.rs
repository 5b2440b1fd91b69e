//! The shared harness (the package `static/python/harness/`) on the machine's python3.
//!
//! A runner keeps one python3 process, the harness's judge, and feeds it one request per line. The
//! judge runs each program in a candidate interpreter of its own, forked from a zygote that has never
//! seen a request, and only the tests itself (docs/guide.md, "What a verdict guarantees"), so nothing
//! a program does reaches its own verdict or another's. All of them share one process group: a program
//! that outlives its wall-clock limit costs the group, which is killed and a fresh judge started.
//! They start with an empty environment, so no key of the user's is there to read.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use engine::effects::PythonRun;
use engine::python::{HARNESS_MODULES, Outcome, ProgramRequest, ProgramVerdict, parse_reply};
use serde::Deserialize;

use crate::sandbox::{self, Interpreter, Scratch};

/// What python3 runs: the harness package imported from its modules' sources, which follow as
/// arguments (name, text, name, text…), so the binary needs no file beside it and no file of the
/// harness exists for a program to change; then the judge's loop.
const BOOT: &str = r#"import importlib.abc, importlib.util, sys

class HarnessSources(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, sources):
        self.sources = sources

    def find_spec(self, fullname, path=None, target=None):
        package, _, module = fullname.partition(".")
        if package != "harness" or module == "__init__" or (module or "__init__") not in self.sources:
            return None
        name = module or "__init__"
        return importlib.util.spec_from_loader(fullname, self, origin=f"harness/{name}.py", is_package=not module)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = module.__spec__.origin
        name = module.__name__.partition(".")[2] or "__init__"
        exec(compile(self.sources[name], module.__file__, "exec"), vars(module))

sys.meta_path.insert(0, HarnessSources(dict(zip(sys.argv[1::2], sys.argv[2::2]))))
del sys.argv[1:]
import harness
harness.main()
"#;

/// Time python3 gets to start, import the harness and say what confines it.
const START_LIMIT: Duration = Duration::from_secs(10);

pub struct NativePython {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    /// Removed after the judge (declared after `child`, so dropped once it is killed).
    _scratch: Scratch,
}

/// The judge's first line: what it found confining it.
#[derive(Deserialize)]
struct Confinement {
    sandbox: sandbox::Layers,
}

/// The packages `scripts/setup` installs for the judge (autopep8, pycodestyle):
/// `$RLCG_PYTHON_LIB` when set, else the clone's `build/python-lib`; none when neither exists (an
/// interpreter that has autopep8 in its own site-packages needs none).
fn python_lib() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("RLCG_PYTHON_LIB")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../build/python-lib").into());
    path.canonicalize().ok().filter(|p| p.is_dir())
}

/// The interpreter `python3` names on the user's PATH (through pyenv or any shim) and what it reads,
/// found once with the user's environment, so that the harness can then start with none.
fn interpreter() -> Result<&'static Interpreter, String> {
    static FOUND: OnceLock<Result<Interpreter, String>> = OnceLock::new();
    const WHERE: &str =
        "import sys\nfor p in [sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path]:\n    print(p)";
    FOUND
        .get_or_init(|| {
            let output = Command::new("python3")
                .args(["-I", "-c", WHERE])
                .stderr(Stdio::null())
                .output()
                .map_err(|e| format!("could not start python3 (is it installed?): {e}"))?;
            let text = String::from_utf8_lossy(&output.stdout);
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(std::path::PathBuf::from);
            match lines.next() {
                Some(executable) if output.status.success() => {
                    Ok(Interpreter { executable, read: lines.chain(python_lib()).collect() })
                }
                _ => Err("python3 did not say where its interpreter is".to_owned()),
            }
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl NativePython {
    /// Starts python3 on the harness (from memory, see [`BOOT`]) in
    /// the sandbox (`sandbox.rs`): a process group of its own, no environment but the harness's
    /// memory limit and where its packages are, a scratch folder as its working directory.
    pub fn start() -> Result<Self, String> {
        let interpreter = interpreter()?;
        let scratch = Scratch::new()?;
        let mut command = Command::new(&interpreter.executable);
        command.env_clear();
        if let Ok(limit) = std::env::var("RLCG_MEMORY_LIMIT_BYTES") {
            command.env("RLCG_MEMORY_LIMIT_BYTES", limit);
        }
        if let Some(lib) = python_lib() {
            command.env("RLCG_PYTHON_LIB", lib);
        }
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        sandbox::confine(&mut command, interpreter, &scratch)?;
        let mut child = command
            .args(["-I", "-c", BOOT])
            .args(HARNESS_MODULES.iter().flat_map(|(name, text)| [*name, *text]))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not start python3 (is it installed?): {e}"))?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let (sender, replies) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut python = Self { child, stdin, replies, _scratch: scratch };
        let first = python.replies.recv_timeout(START_LIMIT).map_err(|_| {
            let status = python.child.try_wait().ok().flatten().map(|s| format!(" ({s})")).unwrap_or_default();
            format!("python3 did not start the harness{status}")
        })?;
        let found = serde_json::from_str::<Confinement>(&first)
            .map_err(|e| format!("the harness's first line is not what it found confining it: {e}"))?
            .sandbox;
        sandbox::report(found);
        Ok(python)
    }

    /// Runs one program; a timeout or a dead interpreter is a verdict, not an error. Errors are the
    /// runner's own failures (python3 missing, a reply the harness should never give).
    pub fn run(&mut self, request: &ProgramRequest, limit_ms: u32) -> Result<ProgramVerdict, String> {
        let started = Instant::now();
        let line = serde_json::to_string(request).map_err(|e| e.to_string())?;
        if writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).is_err() {
            return self.restart_with(request, Outcome::RuntimeError, "the Python process had exited".into(), started);
        }
        match self.replies.recv_timeout(Duration::from_millis(limit_ms.into())) {
            Ok(reply) => {
                let verdict = parse_reply(&reply, request);
                // The judge found its zygote ended or stopped and has ended itself (harness/__init__.py, `main`).
                if reply.starts_with(r#"{"restart": true"#) {
                    self.restart()?;
                }
                verdict
            }
            Err(RecvTimeoutError::Timeout) => {
                self.restart()?;
                Ok(ProgramVerdict::timeout(request, limit_ms))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                let error = format!("the harness's Python process ended ({status})");
                self.restart_with(request, Outcome::RuntimeError, error, started)
            }
        }
    }

    fn restart(&mut self) -> Result<(), String> {
        self.stop();
        *self = Self::start()?;
        Ok(())
    }

    /// Kills the judge, its zygote and every candidate (a program running away included).
    fn stop(&mut self) {
        #[cfg(unix)]
        if let Ok(group) = i32::try_from(self.child.id()) {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(group), nix::sys::signal::Signal::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn restart_with(
        &mut self,
        request: &ProgramRequest,
        outcome: Outcome,
        error: String,
        started: Instant,
    ) -> Result<ProgramVerdict, String> {
        self.restart()?;
        Ok(ProgramVerdict::from_host(request, outcome, error, started.elapsed().as_secs_f64() * 1000.0))
    }
}

impl Drop for NativePython {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs every request, `jobs` python3 processes in parallel; verdicts come back in request order.
pub fn run_all(
    requests: &[ProgramRequest],
    limit_ms: u32,
    jobs: usize,
    on_verdict: impl Fn(usize) + Sync,
) -> Vec<Result<ProgramVerdict, String>> {
    let runs: Vec<PythonRun> = requests.iter().map(|r| PythonRun { request: r.clone(), limit_ms }).collect();
    Runners::new(jobs).run_all(&runs, on_verdict)
}

/// python3 runners that a host keeps from one batch to the next, each started on first use (side
/// by side, one thread each), and started again if it could not start before.
pub struct Runners(Vec<Option<Result<NativePython, String>>>);

impl Runners {
    pub fn new(count: usize) -> Self {
        Self((0..count.max(1)).map(|_| None).collect())
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// Runs every run, as many at once as there are runners; verdicts come back in order.
    pub fn run_all(
        &mut self,
        runs: &[PythonRun],
        on_verdict: impl Fn(usize) + Sync,
    ) -> Vec<Result<ProgramVerdict, String>> {
        let next = AtomicUsize::new(0);
        let results = Mutex::new((0..runs.len()).map(|_| None).collect::<Vec<_>>());
        thread::scope(|scope| {
            for slot in self.0.iter_mut().take(runs.len().max(1)) {
                let (next, results, on_verdict) = (&next, &results, &on_verdict);
                scope.spawn(move || {
                    if !matches!(slot, Some(Ok(_))) {
                        *slot = Some(NativePython::start());
                    }
                    let runner = slot.as_mut().expect("started above");
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(run) = runs.get(index) else { break };
                        let result = match runner {
                            Ok(runner) => runner.run(&run.request, run.limit_ms),
                            Err(e) => Err(e.clone()),
                        };
                        results.lock().expect("no runner panics while holding the lock")[index] = Some(result);
                        on_verdict(index);
                    }
                });
            }
        });
        results.into_inner().expect("runners finished").into_iter().map(|r| r.expect("every request ran")).collect()
    }
}

#[cfg(test)]
mod tests {
    use engine::python::TestCase;

    use super::*;

    fn request(code: &str, tests: &[&str]) -> ProgramRequest {
        ProgramRequest::new(code, tests.iter().map(|t| TestCase::Statement((*t).into())).collect())
    }

    #[test]
    fn the_four_outcome_classes_and_their_rewards() {
        let mut python = NativePython::start().unwrap();
        let cases = [
            ("def f(x):\n    return x + 1\n", Outcome::Pass, 1.0),
            ("def f(x):\n    return x\n", Outcome::FailedTest, -0.3),
            ("def f(x):\n    return 1 / 0\n", Outcome::RuntimeError, -0.6),
            ("def f(x)\n    return x\n", Outcome::CompileError, -1.0),
        ];
        for (code, outcome, reward) in cases {
            let verdict = python.run(&request(code, &["assert f(1) == 2"]), 5_000).unwrap();
            assert_eq!((verdict.outcome, verdict.reward), (outcome, reward), "{code}: {verdict:?}");
            assert_eq!(verdict.reward, outcome.reward(), "the harness and the engine agree on rewards");
        }
    }

    #[test]
    fn coverage_complexity_and_conditionals() {
        let code = "def sign(x):\n    if x > 0:\n        return 1\n    elif x < 0:\n        return -1\n    return 0\n";
        let verdict = NativePython::start().unwrap().run(&request(code, &["assert sign(5) == 1"]), 5_000).unwrap();
        assert_eq!(verdict.executed_lines, [1, 2, 3], "the untaken branches are not marked");
        let complexity = verdict.complexity.unwrap();
        assert_eq!((complexity.cyclomatic, complexity.cognitive, complexity.max_nesting), (3, 2, 1));
        assert_eq!(complexity.score, 2.0 * 3.0 + 3.0 * 1.0 + 1.5 * 2.0);
        let starts: Vec<u32> = verdict.conditionals.iter().map(|c| c.start).collect();
        assert_eq!(starts, [2, 4]);
    }

    #[test]
    fn hostile_programs_get_verdicts_and_the_next_program_still_runs() {
        let mut python = NativePython::start().unwrap();
        let hostile = [
            ("while True:\n    try:\n        pass\n    except BaseException:\n        pass\n", Outcome::Timeout),
            // Its clocks are its own interpreter's; the host keeps the wall clock.
            (
                "import time\ntime.time = time.monotonic = time.perf_counter = lambda: 0.0\nwhile True:\n    pass\n",
                Outcome::Timeout,
            ),
            ("def f():\n    return f()\nf()\n", Outcome::RuntimeError),
            ("x = 'x' * (10 ** 12)\n", Outcome::RuntimeError),
            ("import sys\nsys.exit(0)\n", Outcome::RuntimeError),
            ("import os\nos._exit(0)\n", Outcome::RuntimeError),
            // Signals are refused (the program would reach its judge next).
            ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", Outcome::Tampered),
            ("import os\nos.write(1, b'not json')\nprint('y' * 10**6)\n", Outcome::Pass),
        ];
        for (code, outcome) in hostile {
            let verdict = python.run(&request(code, &[]), 1_000).unwrap();
            assert_eq!(verdict.outcome, outcome, "{code}: {verdict:?}");
            let next = python.run(&request("x = 1", &["assert x == 1"]), 1_000).unwrap();
            assert_eq!(next.outcome, Outcome::Pass, "after {code}");
        }
        let flood = python.run(&request("print('y' * 10**6)", &[]), 1_000).unwrap();
        assert!(flood.truncated && flood.stdout.len() == engine::python::DEFAULT_OUTPUT_LIMIT);
    }

    #[test]
    fn failed_tests_report_their_input_expected_and_actual_output() {
        let mut python = NativePython::start().unwrap();
        let tests = ["assert f(1) == 3", "assert f(2) == 3", "assert f('a') == 1", "assert f(1) > 5"];
        let verdict = python.run(&request("def f(x):\n    return x + 1\n", &tests), 5_000).unwrap();
        let examples: Vec<_> =
            verdict.tests.iter().map(|t| (t.input.as_deref(), t.expected.as_deref(), t.actual.as_deref())).collect();
        let crash = "TypeError: can only concatenate str (not \"int\") to str (line 2)";
        assert_eq!(
            examples,
            [
                (Some("f(1)"), Some("3"), Some("2")),
                (None, None, None),
                (Some("f('a')"), Some("1"), Some(crash)),
                (None, None, None)
            ]
        );
        let stdin = |input: &str, output: &str| TestCase::Io { stdin: input.into(), stdout: output.into(), call: None };
        let long = "9".repeat(1_500);
        let tests = vec![stdin("2", "5"), stdin("3", "6"), stdin("1", &long)];
        let verdict = python.run(&ProgramRequest::new("print(int(input()) * 2)\n", tests), 5_000).unwrap();
        let first = &verdict.tests[0];
        assert_eq!(
            (first.input.as_deref(), first.expected.as_deref(), first.actual.as_deref()),
            (Some("2"), Some("5"), Some("4"))
        );
        assert_eq!(verdict.tests[1].actual, None, "a passed test has no example");
        // Examples are cut at 1000 characters.
        assert_eq!(verdict.tests[2].expected.as_ref().unwrap().chars().count(), 1_001);
    }

    #[test]
    fn standard_output_is_compared_line_by_line_as_apps_plus_authors_do() {
        let mut python = NativePython::start().unwrap();
        let stdin = |output: &str| TestCase::Io { stdin: String::new(), stdout: output.into(), call: None };
        // Spaces around each line and line breaks around the whole do not count; a line does.
        let spaced = "print('1 ')\nprint(' 2')\nprint()\n";
        let verdict = python.run(&ProgramRequest::new(spaced, vec![stdin("\n1\n2"), stdin("1 2")]), 5_000).unwrap();
        assert_eq!(verdict.tests.iter().map(|t| t.passed).collect::<Vec<_>>(), [true, false]);
        let gap = "print(1)\nprint()\nprint(2)\n";
        assert!(!python.run(&ProgramRequest::new(gap, vec![stdin("1\n2")]), 5_000).unwrap().passed);
    }

    #[test]
    fn run_all_keeps_request_order() {
        let requests: Vec<_> =
            (0..6).map(|i| request(&format!("x = {i}"), &[&format!("assert x == {}", i % 2)])).collect();
        let verdicts = run_all(&requests, 5_000, 2, |_| {});
        let passed: Vec<bool> = verdicts.iter().map(|v| v.as_ref().unwrap().passed).collect();
        assert_eq!(passed, [true, true, false, false, false, false]);
    }
}
