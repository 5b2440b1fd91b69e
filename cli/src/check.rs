//! `rlcg check`: every task's reference solution against its tests on python3, and with `--banks`
//! the simulated LLM's bank of each.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use cli::python;
use engine::python::{Outcome, ProgramRequest};
use engine::search::offline::bank::{BankTask, MUTANTS_LIMIT_MS};
use engine::task_import::ImportedTask;
use serde_json::json;

use crate::common::{Failure, io_failure, jobs_or_cores, progress_bar, read_tasks, usage};

pub fn check(
    path: &Path,
    timeout_s: f64,
    jobs: Option<usize>,
    verbose: bool,
    banks: bool,
    json: bool,
) -> Result<(), Failure> {
    if !(0.05..=600.0).contains(&timeout_s) {
        return Err(usage(format!("--timeout must be between 0.05 and 600 seconds, not {timeout_s}")));
    }
    let tasks = read_tasks(path)?;
    let name = path.display().to_string();
    let jobs = jobs_or_cores(jobs);
    let requests: Vec<ProgramRequest> = tasks.iter().map(ImportedTask::reference_request).collect();
    let bar = progress_bar(requests.len() as u64, "checked");
    let started = Instant::now();
    let verdicts = python::run_all(&requests, (timeout_s * 1000.0).round() as u32, jobs, |_| bar.inc(1));
    bar.finish_and_clear();
    let wall_seconds = started.elapsed().as_secs_f64();
    let mut counts = BTreeMap::from(Outcome::ALL.map(|o| (o, 0u32)));
    let mut python_ms = 0.0;
    for (task, verdict) in tasks.iter().zip(&verdicts) {
        let verdict = verdict.as_ref().map_err(|e| io_failure(e.clone()))?;
        *counts.entry(verdict.outcome).or_default() += 1;
        python_ms += verdict.duration_ms;
        if verbose && verdict.outcome != Outcome::Pass {
            let why = verdict.error.clone().or_else(|| verdict.tests.iter().find_map(|t| t.error.clone()));
            println!("{}: {} ({})", task.id, verdict.outcome.label(), why.unwrap_or_default());
        }
    }
    let passed = counts[&Outcome::Pass];
    println!("{passed}/{} reference solutions pass ({jobs} python3 processes, {wall_seconds:.2} s)", tasks.len());
    let bank_failures = if banks {
        let passing: Vec<&ImportedTask> =
            tasks.iter().zip(&verdicts).filter(|(_, v)| v.as_ref().is_ok_and(|v| v.passed)).map(|(t, _)| t).collect();
        let failures = bank_failures(&passing, jobs)?;
        println!("{}/{} of them can be searched offline (a bank made)", passing.len() - failures.len(), passing.len());
        if verbose {
            failures.iter().for_each(|why| println!("{why}"));
        }
        Some((passing.len() - failures.len(), failures))
    } else {
        None
    };
    if json {
        let mut summary = json!({
            "tasks": name,
            "total": tasks.len(),
            "pass": passed,
            "fail": counts[&Outcome::FailedTest],
            "runtime_error": counts[&Outcome::RuntimeError],
            "compile_error": counts[&Outcome::CompileError],
            "timeout": counts[&Outcome::Timeout],
            "tampered": counts[&Outcome::Tampered],
            "wall_seconds": wall_seconds,
            // Time inside the harness, summed over programs: comparable with Pyodide's figure.
            "python_seconds": python_ms / 1000.0,
        });
        if let Some(layers) = cli::sandbox::layers() {
            summary["sandbox"] = json!(layers);
        }
        if let Some((made, failures)) = &bank_failures {
            summary["banks"] = json!(made);
            summary["bank_failures"] = json!(failures);
        }
        println!("{summary}");
    }
    let unsearchable = bank_failures.map_or(0, |(_, failures)| failures.len());
    if passed as usize != tasks.len() {
        Err(Failure {
            code: 3,
            message: format!("{} reference solution(s) did not pass", tasks.len() - passed as usize),
        })
    } else if unsearchable > 0 {
        Err(Failure { code: 3, message: format!("{unsearchable} task(s) cannot be searched offline") })
    } else {
        Ok(())
    }
}

/// Why each task's bank could not be made, for the tasks whose bank failed.
fn bank_failures(tasks: &[&ImportedTask], jobs: usize) -> Result<Vec<String>, Failure> {
    let requests = tasks.iter().map(|t| BankTask::mutants_request(t)).collect::<Result<Vec<_>, _>>().map_err(usage)?;
    let bar = progress_bar(requests.len() as u64, "banks made");
    let verdicts = python::run_all(&requests, MUTANTS_LIMIT_MS, jobs, |_| bar.inc(1));
    bar.finish_and_clear();
    let mut failures = Vec::new();
    for (task, verdict) in tasks.iter().zip(verdicts) {
        let verdict = verdict.map_err(io_failure)?;
        if let Err(why) = BankTask::from_mutants(task, &verdict) {
            failures.push(why);
        }
    }
    Ok(failures)
}
