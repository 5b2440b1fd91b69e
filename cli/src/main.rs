//! `rlcg`: train agents on the seed environments from the command line.
//!
//! Exit codes: 0 success, 1 an I/O failure, 2 bad arguments (unknown names, out-of-range values, a
//! malformed task file), 3 `check` found reference solutions that do not pass (or, with `--banks`,
//! tasks whose bank cannot be made).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

mod cwm;
mod gym;
mod live;
mod llm_args;
mod search;
mod stepcoder;
mod sweep;
use cli::python::{self, NativePython};
use engine::device::Backend;
use engine::env::hierarchical::{self, hierarchical_inference};
use engine::params;
use engine::python::{DEFAULT_TIME_LIMIT_MS, Outcome, ProgramRequest};
use engine::run::{EpisodeRecord, Evaluation};
use engine::search::bank::{BankTask, MUTANTS_LIMIT_MS};
use engine::task_import::{ImportedTask, parse_task_file};
use engine::{AgentId, EnvId, Environment, Run, RunSpec, RunSummary};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::json;

#[derive(Parser)]
#[command(name = "rlcg", version, about = "Reinforcement learning for LLM code generation: headless runs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Run Python programs (an LLM's, a task file's) with your own rights instead of in the
    /// sandbox (docs/guide.md, "The native Python sandbox"). Only for programs you trust.
    #[arg(long, global = true)]
    unsafe_python: bool,
}

#[derive(Clone, clap::Args)]
struct TrainArgs {
    /// Environment (see `rlcg list`).
    #[arg(long, value_parser = EnvId::parse)]
    env: EnvId,
    /// Agent (see `rlcg list`).
    #[arg(long, value_parser = AgentId::parse, default_value = "q-learning")]
    agent: AgentId,
    /// Training episodes.
    #[arg(long, default_value_t = 5000)]
    episodes: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A named configuration of the agent's hyperparameters (the page's choices): the DQN's
    /// `playground` (the default) or `seed` (seed 000's table 1); the tabular agents' `default`.
    #[arg(long)]
    config: Option<String>,
    /// Sets one of the agent's hyperparameters, e.g. `--param alpha=0.2` (repeatable; the names are
    /// the page's form fields and share links' `p.` fields).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Sets one of the environment's parameters (rewards, odds), e.g. `--env-param
    /// reward_success=20` (repeatable; the share links' `e.` fields).
    #[arg(long = "env-param", value_name = "NAME=VALUE")]
    env_params: Vec<String>,
    /// Where the DQN computes.
    #[arg(long, value_parser = Backend::parse, default_value = "ndarray")]
    backend: Backend,
    /// Fresh episodes on which the greedy policy is evaluated after training.
    #[arg(long, default_value_t = 1000)]
    eval_episodes: u32,
    /// Print one JSON object as the last line of stdout instead of the text summary.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Train an agent and report training and greedy-evaluation metrics.
    Train {
        #[command(flatten)]
        args: TrainArgs,
        /// Write every episode's record to FILE.csv or FILE.json.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Train, then evaluate the learned policy and seed 003's fixed pipeline on the same episodes.
    Compare {
        #[command(flatten)]
        args: TrainArgs,
    },
    /// Seed 000 §9: train the executive and planner DQNs, then let the planner drive the
    /// compute(a, b) task with the executive solving each subtask.
    Hierarchical {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Training episodes of the executive DQN.
        #[arg(long, default_value_t = 500)]
        executive_episodes: u32,
        /// Training episodes of the planner DQN.
        #[arg(long, default_value_t = 1000)]
        planner_episodes: u32,
        /// DQN hyperparameters of both agents: `playground` or `seed` (seed 000's table 1).
        #[arg(long, default_value = "playground")]
        config: String,
        #[arg(long, value_parser = Backend::parse, default_value = "ndarray")]
        backend: Backend,
        /// Print one JSON object (the whole trace) as the last line of stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run every task's reference solution against its tests with python3, through the harness the
    /// page uses in Pyodide. Tasks: HumanEval JSONL or APPS-style JSON.
    Check {
        /// The task file.
        #[arg(long)]
        tasks: PathBuf,
        /// Wall-clock limit per program, in seconds.
        #[arg(long, default_value_t = 5.0)]
        timeout: f64,
        /// Programs run in parallel (default: the machine's cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// List every task that did not pass, with why.
        #[arg(long)]
        verbose: bool,
        /// Also make each passing task's bank for the simulated LLM (its reference mutated), as an
        /// offline search of it does, and count the tasks that can be searched offline.
        #[arg(long)]
        banks: bool,
        /// Print one JSON object with the counts as the last line of stdout.
        #[arg(long)]
        json: bool,
    },
    /// Let a trained policy (or the fixed pipeline) drive an LLM on one task, testing every
    /// program with python3: the page's live mode, with the same summary.
    Live {
        #[command(flatten)]
        args: live::LiveArgs,
    },
    /// Seed 004's program search on one task: GIF-MCTS, WorldCoder or zero-shot sampling, with the
    /// simulated LLM or an endpoint, every program scored by python3.
    Search {
        #[command(flatten)]
        args: search::SearchArgs,
    },
    /// Many searches on the simulated LLM: each method's mean best score, its standard error and
    /// the solved fraction per budget, as seed 004's Table 1.
    SearchBench {
        #[command(flatten)]
        args: search::SearchBenchArgs,
    },
    /// Seed 004's code world models: score one on transitions, plan with it, print a bank's.
    Cwm {
        #[command(subcommand)]
        command: cwm::CwmCommand,
    },
    /// Seed 004's Gymnasium environments in the engine.
    Gym {
        #[command(subcommand)]
        command: gym::GymCommand,
    },
    /// Seed 002's StepCoder: the curriculum of a task file, and the ablation on the line-bank
    /// learner.
    Stepcoder {
        #[command(subcommand)]
        command: stepcoder::StepcoderCommand,
    },
    /// A grid of any command's parameters (seeds, environments, agents, methods, budgets, tasks),
    /// run cell by cell here or one cell per cluster task, and merged into means with 95%
    /// intervals over seeds.
    Sweep {
        #[command(flatten)]
        args: sweep::SweepArgs,
    },
    /// List the environments and agents.
    List {
        #[arg(long)]
        json: bool,
    },
}

/// A failure and the exit code it maps to.
struct Failure {
    code: u8,
    message: String,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure { code: 2, message: message.into() }
}

fn io_failure(message: impl Into<String>) -> Failure {
    Failure { code: 1, message: message.into() }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.unsafe_python {
        cli::sandbox::run_unconfined();
    }
    let result = match cli.command {
        Command::Train { args, out } => train(&args, out.as_deref()),
        Command::Compare { args } => compare(&args),
        Command::Hierarchical { seed, executive_episodes, planner_episodes, config, backend, json } => {
            hierarchical(seed, executive_episodes, planner_episodes, &config, backend, json)
        }
        Command::Check { tasks, timeout, jobs, verbose, banks, json } => {
            check(&tasks, timeout, jobs, verbose, banks, json)
        }
        Command::Live { args } => live::run(&args),
        Command::Search { args } => search::search(&args),
        Command::SearchBench { args } => search::bench(&args),
        Command::Gym { command } => gym::run(&command),
        Command::Cwm { command } => cwm::run(&command),
        Command::Stepcoder { command } => stepcoder::run(&command),
        Command::Sweep { args } => sweep::sweep(&args),
        Command::List { json } => {
            list(json);
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

impl TrainArgs {
    /// The run these arguments describe; a bad parameter is named.
    fn spec(&self) -> Result<RunSpec, Failure> {
        let mut spec = run_spec(self.env, self.agent, self.seed, self.episodes, self.config.as_deref(), self.backend)?;
        spec.agent = params::apply(&spec.agent, &self.params).map_err(|e| usage(format!("--param: {e}")))?;
        spec.env = params::apply(&spec.env, &self.env_params).map_err(|e| usage(format!("--env-param: {e}")))?;
        Ok(spec)
    }
}

/// Trains the spec of `args` with a progress bar on stderr; returns the run, its records and the
/// training time in seconds.
fn run_training(args: &TrainArgs, keep_records: bool) -> Result<(Run, Vec<EpisodeRecord>, f64), Failure> {
    if !(1..=100_000).contains(&args.eval_episodes) {
        return Err(usage(format!("eval-episodes must be between 1 and 100000, got {}", args.eval_episodes)));
    }
    let mut run = Run::new(args.spec()?).map_err(usage)?;
    let bar = progress_bar(u64::from(args.episodes), "episodes");
    let mut records = Vec::new();
    let started = Instant::now();
    // Drawing the bar costs more than a tabular episode; refresh it in chunks.
    let chunk = (args.episodes / 200).max(1);
    for record in run.by_ref() {
        if record.episode % chunk == 0 {
            bar.set_position(u64::from(record.episode + 1));
            bar.set_message(format!("success(last100) {:.0}%", 100.0 * record.success_last100));
        }
        if keep_records {
            records.push(record);
        }
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok((run, records, wall_seconds))
}

/// A progress bar on stderr counting `unit`.
fn progress_bar(length: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(length);
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}  {{msg}}");
    bar.set_style(ProgressStyle::with_template(&template).expect("the template is valid"));
    bar
}

/// The spec of a CLI run: the agent's defaults, or its configuration named by `--config`.
fn run_spec(
    env: EnvId,
    agent: AgentId,
    seed: u64,
    episodes: u32,
    config: Option<&str>,
    backend: Backend,
) -> Result<RunSpec, Failure> {
    let mut spec = RunSpec::new(env, agent, seed, episodes);
    spec.backend = backend;
    if let Some(config) = config {
        let presets = agent.presets(env);
        let names: Vec<&str> = presets.iter().map(|p| p.id).collect();
        let preset = presets.iter().find(|p| p.id == config).ok_or_else(|| {
            usage(format!("--config {config} is not a configuration of {}; valid: {}", agent.name(), names.join(", ")))
        })?;
        spec.agent = preset.spec.clone();
    }
    Ok(spec)
}

/// Trains a spec to the end without a progress bar.
fn trained(spec: RunSpec) -> Result<Run, Failure> {
    let mut run = Run::new(spec).map_err(usage)?;
    run.by_ref().for_each(drop);
    Ok(run)
}

fn hierarchical(
    seed: u64,
    executive_episodes: u32,
    planner_episodes: u32,
    config: &str,
    backend: Backend,
    json: bool,
) -> Result<(), Failure> {
    let spec = |env, episodes| run_spec(env, AgentId::Dqn, seed, episodes, Some(config), backend);
    let (top, sub) = hierarchical::LEVELS;
    let executive = trained(spec(sub, executive_episodes)?)?;
    let planner = trained(spec(top, planner_episodes)?)?;
    let trace = hierarchical_inference(
        (&planner.spec().env, |env: &_, obs| planner.greedy_action(env, obs)),
        (&executive.spec().env, |env: &_, obs| executive.greedy_action(env, obs)),
    )
    .map_err(usage)?;
    // The delivered program runs against the task's tests in python3 (in the sandbox).
    let trace = if trace.final_code.is_empty() {
        trace
    } else {
        let mut python = NativePython::start().map_err(io_failure)?;
        let verdict = python.run(&trace.final_request(), DEFAULT_TIME_LIMIT_MS).map_err(io_failure)?;
        trace.judged(&verdict)
    };
    if json {
        println!("{}", serde_json::to_string(&trace).expect("traces serialise"));
        return Ok(());
    }
    println!("Query: {}", trace.query);
    for step in &trace.planner_steps {
        println!("planner {:<12} reward {:+.1}", step.action, step.reward);
        if step.action == "execution" {
            for subtask in &trace.subtasks {
                println!("  subtask {}: {}", subtask.name, subtask.prompt);
                for s in &subtask.steps {
                    println!("    executive {:<9} reward {:+.1}  {}", s.action, s.reward, s.feedback);
                }
                println!("    {}", if subtask.success { "solved" } else { "FAILED" });
            }
        }
    }
    println!("Evaluation (the planner's episode): {}", trace.evaluation);
    println!("Final code, composed of the subtasks' code and the glue:\n{}", trace.final_code);
    if let Some((passed, total)) = trace.final_tests {
        println!("The final code in python3: Tests {passed}/{total}");
    }
    println!("{}", if trace.passed { "PASSED" } else { "FAILED" });
    Ok(())
}

#[derive(Serialize)]
struct TrainReport {
    #[serde(flatten)]
    summary: RunSummary,
    /// The greedy policy on fresh episodes.
    success_rate: f64,
    greedy: Evaluation,
    wall_seconds: f64,
    /// The network's learn steps in training (a DQN's; none for a tabular agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    learn_steps: Option<u32>,
}

fn train(args: &TrainArgs, out: Option<&Path>) -> Result<(), Failure> {
    let format = out.map(OutputFormat::of).transpose()?;
    let (run, records, wall_seconds) = run_training(args, out.is_some())?;
    if let (Some(path), Some(format)) = (out, format) {
        write_records(path, format, &run, &records)?;
    }
    let greedy = run.evaluate_greedy(args.eval_episodes);
    let learn_steps = run.agent().learn_steps();
    let report =
        TrainReport { summary: run.summary(), success_rate: greedy.success_rate, greedy, wall_seconds, learn_steps };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        let s = &report.summary;
        println!(
            "{} / {} / seed {}: {} episodes in {:.3} s",
            args.env.name(),
            args.agent.name(),
            s.seed,
            s.episodes,
            wall_seconds
        );
        if let Some(steps) = report.learn_steps {
            println!("  network    {steps} learn steps, {:.0} per second of training", f64::from(steps) / wall_seconds);
        }
        println!(
            "  training   success(last100) {:.1}%  best {:.1}%",
            100.0 * s.success_last100,
            100.0 * s.best_success_last100
        );
        println!(
            "             mean return {:.2}  length {:.2}  agent calls {:.2}",
            s.mean_return, s.mean_length, s.mean_agent_calls
        );
        print_evaluation("  greedy    ", &greedy);
        let names = run.env().info().action_names;
        let path: Vec<_> = run.tree().dominant_path().iter().map(|&a| names[a as usize]).collect();
        println!("  dominant path: {}", path.join(" -> "));
        if let Some(path) = out {
            println!("  records written to {}", path.display());
        }
    }
    Ok(())
}

fn print_evaluation(label: &str, e: &Evaluation) {
    println!(
        "{label} success {:.1}% over {} episodes  mean return {:.2}  agent calls {:.2}",
        100.0 * e.success_rate,
        e.episodes,
        e.mean_return,
        e.mean_agent_calls
    );
}

fn compare(args: &TrainArgs) -> Result<(), Failure> {
    if args.env.default_spec().baseline().is_none() {
        let with: Vec<&str> =
            EnvId::ALL.iter().filter(|e| e.default_spec().baseline().is_some()).map(|e| e.name()).collect();
        return Err(usage(format!(
            "compare needs an environment whose seed names a baseline ({}), got '{}'",
            with.join(", "),
            args.env.name()
        )));
    }
    let (run, _, _) = run_training(args, false)?;
    let learned = run.evaluate_greedy(args.eval_episodes);
    let fixed = run.evaluate_baseline(args.eval_episodes).expect("the environment has a baseline");
    let reduction = 1.0 - learned.mean_agent_calls / fixed.mean_agent_calls;
    if args.json {
        println!("{}", json!({ "learned": learned, "fixed": fixed, "agent_call_reduction": reduction }));
    } else {
        print_evaluation("learned", &learned);
        print_evaluation("fixed  ", &fixed);
        println!("agent calls {:.1}% fewer than the fixed pipeline", 100.0 * reduction);
    }
    Ok(())
}

fn check(
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
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
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

/// The tasks of a HumanEval JSONL or APPS-style JSON file; a file with any problem is refused
/// whole, with every problem named.
fn read_tasks(path: &Path) -> Result<Vec<ImportedTask>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
    let name = path.display().to_string();
    parse_task_file(&name, &text).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| format!("{name}: {e}")).collect();
        usage(format!("{} problem(s) in the task file, nothing done:\n{}", errors.len(), lines.join("\n")))
    })
}

fn list(json: bool) {
    let envs: Vec<_> = EnvId::ALL.iter().map(|e| json!({ "name": e.name(), "summary": e.summary() })).collect();
    let agents: Vec<_> = AgentId::ALL.iter().map(|a| json!({ "name": a.name(), "summary": a.summary() })).collect();
    if json {
        println!("{}", json!({ "environments": envs, "agents": agents }));
        return;
    }
    println!("environments:");
    EnvId::ALL.iter().for_each(|e| println!("  {:<18} {}", e.name(), e.summary()));
    println!("agents:");
    AgentId::ALL.iter().for_each(|a| println!("  {:<18} {}", a.name(), a.summary()));
    println!(
        "baselines:\n  {:<18} seed 003's planner -> coder -> tester -> debugger -> tester (rlcg compare)",
        "fixed-pipeline"
    );
}

#[derive(Clone, Copy)]
enum OutputFormat {
    Csv,
    Json,
}

impl OutputFormat {
    fn of(path: &Path) -> Result<Self, Failure> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => Ok(Self::Csv),
            Some("json") => Ok(Self::Json),
            _ => Err(usage(format!("--out {}: the file name must end in .csv or .json", path.display()))),
        }
    }
}

/// One CSV row: the record with action and task names spelled out.
#[derive(Serialize)]
struct CsvRow<'a> {
    episode: u32,
    task: &'a str,
    #[serde(rename = "return")]
    episode_return: f64,
    length: u32,
    success: bool,
    agent_calls: u32,
    invalid_actions: u32,
    epsilon: Option<f64>,
    loss: Option<f64>,
    success_last100: f64,
    mean_return_last100: f64,
    actions: String,
}

fn write_records(path: &Path, format: OutputFormat, run: &Run, records: &[EpisodeRecord]) -> Result<(), Failure> {
    let failed = |e: &dyn std::fmt::Display| io_failure(format!("cannot write {}: {e}", path.display()));
    let info = run.env().info();
    match format {
        OutputFormat::Csv => {
            let mut writer = csv::Writer::from_path(path).map_err(|e| failed(&e))?;
            for r in records {
                let o = &r.outcome;
                let actions: Vec<_> = o.actions.iter().map(|&a| info.action_names[a as usize]).collect();
                writer
                    .serialize(CsvRow {
                        episode: r.episode,
                        task: &info.tasks[o.task as usize],
                        episode_return: o.episode_return,
                        length: o.length,
                        success: o.success,
                        agent_calls: o.agent_calls,
                        invalid_actions: o.invalid_actions,
                        epsilon: r.epsilon,
                        loss: r.loss,
                        success_last100: r.success_last100,
                        mean_return_last100: r.mean_return_last100,
                        actions: actions.join(" "),
                    })
                    .map_err(|e| failed(&e))?;
            }
            writer.flush().map_err(|e| failed(&e))
        }
        OutputFormat::Json => {
            let document = json!({
                "spec": run.spec(),
                "action_names": info.action_names,
                "tasks": info.tasks,
                "records": records,
            });
            std::fs::write(path, serde_json::to_vec(&document).expect("records serialise")).map_err(|e| failed(&e))
        }
    }
}
