//! `rlcg live`: a trained policy, or the environment's fixed pipeline, drives an LLM on one task,
//! with every program tested by python3 — live mode of the page, on the command line. The episode
//! is the engine's `LiveEpisode`, performed by the native host. With `--validate` (implied by
//! `--tasks seed003`) the policy and the pipeline each play every task: seed 003 §5.2's table,
//! and the simulator's odds calibrated from those episodes (§6.2). With `--recalibrate` a policy
//! is retrained on the calibrated odds and validated again: §6.2's before and after. Offline, the
//! simulated LLM then writes with odds of its own (`--llm-odds`), which the simulator mis-guesses.

use std::path::{Path, PathBuf};

use cli::host::Host;
use cli::python::NativePython;
use engine::calibration::Calibration;
use engine::cheating::held_out::HeldOutScore;
use engine::effects::{Effectful, LiveState, Llm};
use engine::live::validation::{Validation, ValidationTable};
use engine::live::{self, Driver, LiveEpisode, LiveSummary, LiveTask};
use engine::prompts::PromptSet;
use engine::{Run, params};
use serde::Serialize;

use crate::TrainArgs;
use crate::common::{Failure, io_failure, read_tasks, usage};
use crate::llm_args::LlmArgs;
use crate::train::run_training;

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
    /// With --validate: how many times each driver plays each task.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=200))]
    rounds: u32,
    /// With --validate: retrain the policy on the odds calibrated from its episodes and validate it
    /// again, seed 003 §6.2's before and after. The simulated LLM writes with --llm-odds, or by
    /// default with `engine::calibration::REAL_LLM_ODDS`, which differ from the simulator's.
    #[arg(long)]
    recalibrate: bool,
    /// The simulated LLM's odds, when they should differ from the simulator's (a stand-in for a
    /// real LLM), e.g. `--llm-odds coder_success_without_plan=0.5` (repeatable; the five odds of
    /// `rlcg list`'s orchestrator).
    #[arg(long, value_name = "NAME=VALUE")]
    llm_odds: Vec<String>,
    /// Hold out this share of each task's tests from the LLM (EvilGenie's measure, as `search
    /// --held-out`): the split is drawn from --seed, the prompt shows the visible tests, only they
    /// are fed back and rewarded, and a program that passes them all but fails a held-out one is
    /// marked "special-cased?".
    #[arg(long, value_name = "SHARE")]
    held_out: Option<f64>,
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
    /// The simulated LLM's own odds, where they differ from the simulator's (`NAME=VALUE`).
    llm_odds: Vec<String>,
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
    // An episode whose programs Python could not run has no result: it is an error.
    Host::new(llm, &mut python).with_decide(decide).streaming(quiet).drive(task, |_| {}).map_err(io_failure)
}

/// §6.2 measured: the policy trained on the simulator's odds, then one retrained on the odds
/// calibrated from the first one's live episodes, validated with the same LLM.
#[derive(Serialize)]
struct RecalibrationReport {
    before: ValidationReport,
    after: ValidationReport,
    /// Seed 003 §6.2: "80% real-world success" before tuning, "100% success" after.
    seed_before: f64,
    seed_after: f64,
}

/// The simulated LLM's odds: `--llm-odds`, or §6.2's stand-in for a real LLM with --recalibrate.
fn llm_odds(args: &LiveArgs) -> Vec<String> {
    if args.llm_odds.is_empty() && args.recalibrate && args.llm.is_simulated() {
        return engine::calibration::REAL_LLM_ODDS.iter().map(|s| (*s).to_owned()).collect();
    }
    args.llm_odds.clone()
}

pub fn run(args: &LiveArgs) -> Result<(), Failure> {
    if !args.llm_odds.is_empty() && !args.llm.is_simulated() {
        return Err(usage("--llm-odds sets the simulated LLM's odds; a real endpoint has its own"));
    }
    let seed003 = args.tasks.as_deref() == Some(Path::new(SEED003));
    if args.validate || args.recalibrate || seed003 && args.task.is_none() {
        return validate(args);
    }
    if args.rounds != 1 {
        return Err(usage("--rounds repeats a validation's tasks; add --validate"));
    }
    let env = args.train.env;
    let task = choose_task(args)?;
    let llm = args.llm.choose(args.train.seed, None)?;
    let (llm_label, prices) = (llm.label(), llm.prices());
    let driver = if args.pipeline { Driver::Pipeline } else { Driver::Policy };
    let episode = LiveEpisode::new(&args.train.spec()?.env, driver, task, PromptSet::default()).map_err(usage)?;
    let mut episode = episode.with_llm_odds(&args.llm_odds).map_err(|e| usage(format!("--llm-odds: {e}")))?;
    let trained = if args.pipeline { None } else { Some(run_training(&args.train, false)?.0) };
    let driver_label = trained.as_ref().map_or_else(|| "fixed pipeline".to_owned(), trained_label);
    perform(&mut episode, llm, trained.as_ref(), args.train.json)?;

    let names = env.action_names();
    let summary = episode.summary().clone();
    let cost = summary.usage.cost(prices);
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
        let passed = step.verdict.as_ref().is_some_and(|v| v.passed);
        println!("  {name:<10} reward {:+.1}{note}{}", step.reward, held_out_words(step.held_out.as_ref(), passed));
    }
    let s = &report.summary;
    println!(
        "{}{} · return {:.1} · agent calls {} · LLM calls {} · test runs {} · tokens {} ({} prompt, {} completion) · cost ${:.4} · {}",
        if s.success { "success" } else { "no success" },
        held_out_words(s.held_out.as_ref(), s.success),
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
    let tasks = match &args.tasks {
        Some(path) if path == Path::new(SEED003) => LiveTask::seed003(),
        Some(path) => read_tasks(path)?.iter().map(LiveTask::from_imported).collect(),
        None => LiveTask::bundled(),
    };
    let Some(share) = args.held_out else { return Ok(tasks) };
    let held_out = |task: LiveTask| task.holding_out(share, args.train.seed);
    tasks.into_iter().map(held_out).collect::<Result<_, _>>().map_err(|e| usage(format!("--held-out: {e}")))
}

/// How a program did on the held-out tests, and the special-cased mark, in words (empty without).
fn held_out_words(held_out: Option<&HeldOutScore>, passed_visible: bool) -> String {
    let Some(held_out) = held_out else { return String::new() };
    let mark =
        held_out.special_cased(passed_visible).map(|test| format!(" · special-cased? it fails the held-out {test}"));
    format!(" · {held_out}{}", mark.unwrap_or_default())
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

/// Seed 003 §5.2–5.3 on every task of the set, then §6.2's calibration from those episodes; with
/// --recalibrate, again with a policy retrained on the calibrated odds.
fn validate(args: &LiveArgs) -> Result<(), Failure> {
    if args.pipeline {
        return Err(usage("--validate plays both the trained policy and the fixed pipeline; drop --pipeline"));
    }
    let tasks = match &args.task {
        Some(_) => vec![choose_task(args)?],
        None => task_set(args)?,
    };
    let before = validation_report(args, &args.train, &tasks)?;
    if !args.recalibrate {
        if args.train.json {
            println!("{}", serde_json::to_string(&before).expect("reports serialise"));
        } else {
            eprintln!();
            print_validation(&before, args);
        }
        return Ok(());
    }
    let report = recalibrated(args, &tasks, before)?;
    if args.train.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
        return Ok(());
    }
    eprintln!();
    println!("── trained on today's odds ──");
    print_validation(&report.before, args);
    println!("\n── retrained on the calibrated odds ──");
    print_validation(&report.after, args);
    let rate = |r: &ValidationReport| 100.0 * r.table.policy.success_rate();
    println!(
        "\nseed 003 §6.2: live success of the learned policy {:.0}% → {:.0}% after calibration (seed 003: {:.0}% → {:.0}%)",
        rate(&report.before),
        rate(&report.after),
        100.0 * report.seed_before,
        100.0 * report.seed_after
    );
    Ok(())
}

/// §6.2: a policy retrained on the odds calibrated from `before`'s episodes, validated again.
fn recalibrated(args: &LiveArgs, tasks: &[LiveTask], before: ValidationReport) -> Result<RecalibrationReport, Failure> {
    if before.calibration.as_ref().is_none_or(|c| !c.has_trials()) {
        return Err(usage(format!("{} has no odds for live episodes to calibrate", before.env)));
    }
    let retrained = TrainArgs { env_params: before.calibrated_env_params.clone(), ..args.train.clone() };
    let after = validation_report(args, &retrained, tasks)?;
    let (seed_before, seed_after) = engine::calibration::SEED_SUCCESS_BEFORE_AND_AFTER;
    Ok(RecalibrationReport { before, after, seed_before, seed_after })
}

/// Seed 003's validation on its five tasks as `command_line` (the arguments of `rlcg live`) asks,
/// without printing: the report before, and with `--recalibrate` the one after.
pub(crate) fn seed003_validation(command_line: &[&str]) -> Result<(ValidationTable, Option<ValidationTable>), Failure> {
    #[derive(clap::Parser)]
    struct Live {
        #[command(flatten)]
        args: LiveArgs,
    }
    let args = <Live as clap::Parser>::try_parse_from(std::iter::once("live").chain(command_line.iter().copied()))
        .map_err(|e| usage(e.to_string()))?
        .args;
    let tasks = task_set(&args)?;
    let before = validation_report(&args, &args.train, &tasks)?;
    if !args.recalibrate {
        return Ok((before.table, None));
    }
    let report = recalibrated(&args, &tasks, before)?;
    Ok((report.before.table, Some(report.after.table)))
}

/// The policy that `train` describes, and the fixed pipeline, on every task `args.rounds` times.
fn validation_report(args: &LiveArgs, train: &TrainArgs, tasks: &[LiveTask]) -> Result<ValidationReport, Failure> {
    let env = train.spec()?.env;
    let llm_odds = llm_odds(args);
    let llm = args.llm.choose(train.seed, None)?;
    let (llm_label, prices) = (llm.label(), llm.prices());
    let rounds: Vec<LiveTask> = (0..args.rounds).flat_map(|_| tasks.iter().cloned()).collect();
    let validation = Validation::new(&env, rounds, &PromptSet::default()).map_err(usage)?;
    let mut validation = validation.with_llm_odds(&llm_odds).map_err(|e| usage(format!("--llm-odds: {e}")))?;
    let trained = run_training(train, false)?.0;
    perform(&mut validation, llm, Some(&trained), train.json)?;

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
    Ok(ValidationReport {
        llm_odds,
        env: env.id().name(),
        policy: trained_label(&trained),
        llm: llm_label,
        table,
        calibration,
        calibrated_env_params,
        cost: usage.cost(prices),
    })
}

fn print_validation(report: &ValidationReport, args: &LiveArgs) {
    let table = &report.table;
    println!(
        "{} and the fixed pipeline on {} tasks with {} ({})",
        report.policy, table.policy.tasks, report.llm, report.env
    );
    if !report.llm_odds.is_empty() {
        println!("the simulated LLM wrote with odds of its own: {}", report.llm_odds.join(", "));
    }
    println!("{:<26} {:<44} fixed pipeline", "task", "learned policy");
    if args.rounds == 1 {
        let cell = |row: &engine::live::validation::ValidationRow| {
            format!("{} {} steps: {}", if row.success { "✓" } else { "✗" }, row.steps, row.actions.join(" → "))
        };
        for pair in table.rows.chunks(2) {
            let pipeline = pair.get(1).map(cell).unwrap_or_default();
            println!("{:<26} {:<44} {pipeline}", pair[0].task, cell(&pair[0]));
        }
    } else {
        let mut tasks: Vec<&str> = Vec::new();
        for row in &table.rows {
            if !tasks.contains(&row.task.as_str()) {
                tasks.push(&row.task);
            }
        }
        for task in tasks {
            let of = |driver: Driver| {
                let rows = table.rows.iter().filter(|r| r.task == task && r.driver == driver);
                let (played, won) = rows.fold((0, 0), |(p, w), r| (p + 1, w + usize::from(r.success)));
                format!("✓ {won} of {played}")
            };
            println!("{task:<26} {:<44} {}", of(Driver::Policy), of(Driver::Pipeline));
        }
    }
    let rate = |t: &engine::live::validation::DriverTotals| format!("{:.0}%", t.success_rate() * 100.0);
    println!("{:<26} {:<44} {}", "success rate", rate(&table.policy), rate(&table.pipeline));
    println!("{:<26} {:<44} {}", "total agent calls", table.policy.agent_calls, table.pipeline.agent_calls);
    if args.held_out.is_some() {
        let marked =
            |t: &engine::live::validation::DriverTotals| format!("{} of {} successes", t.special_cased, t.successes);
        println!("{:<26} {:<44} {}", "special-cased?", marked(&table.policy), marked(&table.pipeline));
    }
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
