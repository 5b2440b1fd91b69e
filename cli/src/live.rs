//! `rlcg live`: a trained policy, or the environment's fixed pipeline, drives an LLM on one task,
//! with every program tested by python3 — live mode of the page, on the command line. The episode
//! is the engine's `LiveEpisode`, performed by the native host. With `--validate` (implied by
//! `--tasks seed003`) the policy and the pipeline each play every task: seed 003 §5.2's table,
//! and the simulator's odds calibrated from those episodes (§6.2).

use std::path::{Path, PathBuf};

use cli::host::{Host, Llm};
use cli::python::NativePython;
use engine::calibration::Calibration;
use engine::effects::{Effectful, LiveState};
use engine::live::validation::{Validation, ValidationTable};
use engine::live::{self, Driver, LiveEpisode, LiveSummary, LiveTask};
use engine::prompts::PromptSet;
use engine::{Run, params};
use serde::Serialize;

use crate::llm_args::LlmArgs;
use crate::{Failure, TrainArgs, io_failure, read_tasks, run_training, usage};

#[derive(clap::Args)]
pub struct LiveArgs {
    #[command(flatten)]
    train: TrainArgs,
    /// Drive with the environment's fixed pipeline instead of a policy trained first.
    #[arg(long)]
    pipeline: bool,
    /// The task's id (default: the first bundled task, or the first of --tasks).
    #[arg(long)]
    task: Option<String>,
    /// Tasks to choose from: a HumanEval JSONL or APPS-style JSON file, or `seed003` for seed 003
    /// §5.2's five bundled tasks (which validates on all five unless --task picks one).
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// Play the trained policy and the fixed pipeline on every task, and show seed 003's table
    /// with the simulator's odds calibrated from those episodes.
    #[arg(long)]
    validate: bool,
    #[command(flatten)]
    llm: LlmArgs,
}

/// The page's summary of a live episode, with what drove it.
#[derive(Serialize)]
struct LiveReport {
    env: &'static str,
    driver: String,
    task: String,
    llm: String,
    #[serde(flatten)]
    summary: LiveSummary,
    /// US dollars at the settings' prices (0 for the simulated LLM).
    cost: f64,
    actions: Vec<&'static str>,
}

/// Seed 003's validation: what drove it, the table, and the calibration.
#[derive(Serialize)]
struct ValidationReport {
    env: &'static str,
    policy: String,
    llm: String,
    #[serde(flatten)]
    table: ValidationTable,
    /// `None` for an environment that draws from no odds.
    calibration: Option<Calibration>,
    /// The environment's parameters that differ from the seed's once calibrated, as `NAME=VALUE`
    /// (`rlcg train --env-param`, share links' `e.` fields).
    calibrated_env_params: Vec<String>,
    /// US dollars at the settings' prices (0 for the simulated LLM).
    cost: f64,
}

fn trained_label(run: &Run) -> String {
    let spec = run.spec();
    format!("{} trained for {} episodes (seed {})", spec.agent.id().name(), spec.episodes, spec.seed)
}

/// Performs `task`'s needs with python3, `trained` answering the policy's decisions.
fn perform<T: Effectful>(task: &mut T, llm: Llm, trained: Option<&Run>, quiet: bool) -> Result<(), Failure> {
    let mut python = NativePython::start().map_err(io_failure)?;
    let decide = |state: LiveState| match trained {
        Some(run) => live::decide(run, &state),
        None => Err("the fixed pipeline decides for itself".to_owned()),
    };
    // An episode that Python failed ends with the reason, which its summary gives.
    let _ = Host::new(llm, &mut python).with_decide(decide).streaming(quiet).drive(task, |_| {});
    Ok(())
}

pub fn run(args: &LiveArgs) -> Result<(), Failure> {
    let seed003 = args.tasks.as_deref() == Some(Path::new(SEED003));
    if args.validate || seed003 && args.task.is_none() {
        return validate(args);
    }
    let env = args.train.env;
    let task = choose_task(args)?;
    let (llm, llm_label, settings) = args.llm.choose(args.train.seed, None)?;
    let driver = if args.pipeline { Driver::Pipeline } else { Driver::Policy };
    let mut episode = LiveEpisode::new(&args.train.spec()?.env, driver, task, PromptSet::default()).map_err(usage)?;
    let trained = if args.pipeline { None } else { Some(run_training(&args.train, false)?.0) };
    let driver_label = trained.as_ref().map_or_else(|| "fixed pipeline".to_owned(), trained_label);
    perform(&mut episode, llm, trained.as_ref(), args.train.json)?;

    let names = env.action_names();
    let summary = episode.summary().clone();
    let cost = settings.as_ref().map_or(0.0, |s| summary.usage.cost(s));
    let report = LiveReport {
        env: env.name(),
        driver: driver_label,
        task: episode.task().id.clone(),
        llm: llm_label,
        actions: episode.actions().into_iter().map(|a| names[a]).collect(),
        summary,
        cost,
    };
    if args.train.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
        return Ok(());
    }
    eprintln!();
    println!("{} on {} with {} ({})", report.driver, report.task, report.llm, report.env);
    for message in episode.messages() {
        let receiver = message.receiver.as_deref().unwrap_or("all");
        let first_line = message.content.lines().next().unwrap_or_default();
        println!("  {:>7.2} s  {} → {receiver}: {first_line}", message.time_ms / 1000.0, message.sender);
    }
    for (step, &name) in episode.steps().iter().zip(&report.actions) {
        let note = step.note.as_deref().map(|n| format!(" · {n}")).unwrap_or_default();
        println!("  {name:<10} reward {:+.1}{note}", step.reward);
    }
    let s = &report.summary;
    println!(
        "{} · return {:.1} · agent calls {} · LLM calls {} · test runs {} · tokens {} ({} prompt, {} completion) · cost ${:.4} · {}",
        if s.success { "success" } else { "no success" },
        s.episode_return,
        s.agent_calls,
        s.llm_calls,
        s.test_runs,
        s.usage.total(),
        s.usage.prompt_tokens,
        s.usage.completion_tokens,
        report.cost,
        s.ended
    );
    Ok(())
}

/// `--tasks`'s name for seed 003 §5.2's five bundled tasks.
const SEED003: &str = "seed003";

fn task_set(args: &LiveArgs) -> Result<Vec<LiveTask>, Failure> {
    Ok(match &args.tasks {
        Some(path) if path == Path::new(SEED003) => LiveTask::seed003(),
        Some(path) => read_tasks(path)?.iter().map(LiveTask::from_imported).collect(),
        None => LiveTask::bundled(),
    })
}

fn choose_task(args: &LiveArgs) -> Result<LiveTask, Failure> {
    let tasks = task_set(args)?;
    match &args.task {
        None => tasks.into_iter().next().ok_or_else(|| usage("there is no task to solve")),
        Some(id) => {
            let ids: Vec<String> = tasks.iter().map(|t| t.id.clone()).collect();
            tasks
                .into_iter()
                .find(|t| &t.id == id)
                .ok_or_else(|| usage(format!("unknown task '{id}'; valid: {}", ids.join(", "))))
        }
    }
}

/// Seed 003 §5.2–5.3 on every task of the set, then §6.2's calibration from those episodes.
fn validate(args: &LiveArgs) -> Result<(), Failure> {
    if args.pipeline {
        return Err(usage("--validate plays both the trained policy and the fixed pipeline; drop --pipeline"));
    }
    let env = args.train.spec()?.env;
    let tasks = match &args.task {
        Some(_) => vec![choose_task(args)?],
        None => task_set(args)?,
    };
    let (llm, llm_label, settings) = args.llm.choose(args.train.seed, None)?;
    let mut validation = Validation::new(&env, tasks, &PromptSet::default()).map_err(usage)?;
    let trained = run_training(&args.train, false)?.0;
    perform(&mut validation, llm, Some(&trained), args.train.json)?;

    let table = validation.table();
    let trials: Vec<_> = validation.finished().iter().flat_map(LiveEpisode::trials).collect();
    let calibration = Calibration::new(&env, &trials).ok();
    let calibrated_env_params = match &calibration {
        Some(c) if c.has_trials() => {
            let calibrated = c.calibrated(&env).map_err(usage)?;
            let changed = params::changed(&calibrated, &env.id().default_spec());
            changed.into_iter().map(|(field, value)| format!("{}={value}", field.name())).collect()
        }
        _ => Vec::new(),
    };
    let usage = validation.finished().iter().fold(engine::llm::Usage::default(), |mut total, e| {
        total.add(e.summary().usage);
        total
    });
    let report = ValidationReport {
        env: env.id().name(),
        policy: trained_label(&trained),
        llm: llm_label,
        table,
        calibration,
        calibrated_env_params,
        cost: settings.as_ref().map_or(0.0, |s| usage.cost(s)),
    };
    if args.train.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
        return Ok(());
    }
    eprintln!();
    print_validation(&report, args);
    Ok(())
}

fn print_validation(report: &ValidationReport, args: &LiveArgs) {
    let table = &report.table;
    println!(
        "{} and the fixed pipeline on {} tasks with {} ({})",
        report.policy, table.policy.tasks, report.llm, report.env
    );
    println!("{:<26} {:<44} fixed pipeline", "task", "learned policy");
    let cell = |row: &engine::live::validation::ValidationRow| {
        format!("{} {} steps: {}", if row.success { "✓" } else { "✗" }, row.steps, row.actions.join(" → "))
    };
    for pair in table.rows.chunks(2) {
        let pipeline = pair.get(1).map(cell).unwrap_or_default();
        println!("{:<26} {:<44} {pipeline}", pair[0].task, cell(&pair[0]));
    }
    let rate = |t: &engine::live::validation::DriverTotals| format!("{:.0}%", t.success_rate() * 100.0);
    println!("{:<26} {:<44} {}", "success rate", rate(&table.policy), rate(&table.pipeline));
    println!("{:<26} {:<44} {}", "total agent calls", table.policy.agent_calls, table.pipeline.agent_calls);
    if let Some(change) = table.change_in_agent_calls {
        println!("change in agent calls: {change:+.1}% (seed 003: 23 → 10, −56.5%)");
    }
    println!("cost ${:.4}", report.cost);
    let Some(calibration) = &report.calibration else { return };
    println!("\nthe simulator's odds from these episodes (Beta(1, 1) prior; seed 003 §6.2):");
    println!("  {:<28} {:>6} {:>9} {:>10}  95% interval", "odds", "today", "observed", "posterior");
    for e in &calibration.estimates {
        let (mean, interval) = match (e.mean, e.interval) {
            (Some(mean), Some((low, high))) => (format!("{mean:.3}"), format!("[{low:.3}, {high:.3}]")),
            _ => ("—".to_owned(), "no trial".to_owned()),
        };
        let observed = format!("{}/{}", e.happened, e.trials);
        println!("  {:<28} {:>6.3} {observed:>9} {mean:>10}  {interval}", e.odds, e.current);
    }
    let settings: Vec<String> = report.calibrated_env_params.iter().map(|s| format!("--env-param {s}")).collect();
    if calibration.has_trials() {
        println!(
            "train on them: rlcg train --env {} --agent {} {}",
            report.env,
            args.train.agent.name(),
            settings.join(" ")
        );
    }
}
