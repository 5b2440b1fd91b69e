//! `rlcg live`: a trained policy, or the environment's fixed pipeline, drives an LLM on one task,
//! with every program tested by python3 — live mode of the page, on the command line. The episode
//! is the engine's `LiveEpisode`, performed by the native host.

use std::io::Write;
use std::path::PathBuf;

use cli::host::{self, Llm};
use cli::python::NativePython;
use engine::effects::OfflineLlm;
use engine::live::{self, Driver, LiveEpisode, LiveSummary, LiveTask};
use engine::llm::{ProviderSettings, preset};
use engine::prompts::PromptSet;
use serde::Serialize;

use crate::{Failure, TrainArgs, io_failure, read_tasks, run_training, usage};

/// The environment variable that holds the API key (never a flag, so it stays out of shell
/// histories and process lists).
const API_KEY_VARIABLE: &str = "RLCG_API_KEY";

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
    /// Tasks to choose from: a HumanEval JSONL or APPS-style JSON file.
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// `simulated` (offline: the task's recorded programs, with seed 003's odds) or a provider
    /// preset: openrouter, openai, ollama, lmstudio, custom. The key is read from RLCG_API_KEY.
    #[arg(long, default_value = "simulated")]
    llm: String,
    /// The endpoint's base URL (default: the preset's).
    #[arg(long)]
    base_url: Option<String>,
    /// The model (default: the preset's).
    #[arg(long)]
    model: Option<String>,
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

pub fn run(args: &LiveArgs) -> Result<(), Failure> {
    let env = args.train.env;
    let task = choose_task(args)?;
    let (mut llm, llm_label, settings) = llm_of(args)?;
    let driver = if args.pipeline { Driver::Pipeline } else { Driver::Policy };
    let mut episode = LiveEpisode::new(&args.train.spec()?.env, driver, task, PromptSet::default()).map_err(usage)?;
    let trained = if args.pipeline { None } else { Some(run_training(&args.train, false)?.0) };
    let driver_label = match &trained {
        Some(run) => format!(
            "{} trained for {} episodes (seed {})",
            run.spec().agent.id().name(),
            run.spec().episodes,
            run.spec().seed
        ),
        None => "fixed pipeline".to_owned(),
    };
    let mut python = NativePython::start().map_err(io_failure)?;
    let decide = |state| match &trained {
        Some(run) => live::decide(run, &state),
        None => Err("the fixed pipeline decides for itself".to_owned()),
    };
    let quiet = args.train.json;
    let mut on_text = |piece: &str| {
        if !quiet {
            eprint!("{piece}");
            let _ = std::io::stderr().flush();
        }
    };
    host::drive(&mut episode, &mut llm, &mut python, decide, &mut on_text);

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

fn choose_task(args: &LiveArgs) -> Result<LiveTask, Failure> {
    let tasks = match &args.tasks {
        Some(path) => read_tasks(path)?.iter().map(LiveTask::from_imported).collect(),
        None => LiveTask::bundled(),
    };
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

/// The LLM, its label, and its settings when it is an endpoint.
fn llm_of(args: &LiveArgs) -> Result<(Llm, String, Option<ProviderSettings>), Failure> {
    if args.llm == "simulated" {
        let offline = Llm::Offline(Box::new(OfflineLlm::new(args.train.seed)));
        return Ok((offline, "simulated LLM".to_owned(), None));
    }
    let Some(preset) = preset(&args.llm) else {
        return Err(usage(format!(
            "unknown LLM '{}'; valid: simulated, openrouter, openai, ollama, lmstudio, custom",
            args.llm
        )));
    };
    let mut settings = ProviderSettings::from_preset(preset);
    if let Some(url) = &args.base_url {
        settings.base_url.clone_from(url);
    }
    if let Some(model) = &args.model {
        settings.model.clone_from(model);
    }
    settings.validate().map_err(|m| usage(format!("LLM settings: {m}")))?;
    let key = std::env::var(API_KEY_VARIABLE).unwrap_or_default();
    if key.trim().is_empty() && preset.needs_key {
        return Err(usage(format!("{} needs an API key: set {API_KEY_VARIABLE}", settings.base_url)));
    }
    let label = settings.model.clone();
    Ok((Llm::Remote { settings: settings.clone(), key }, label, Some(settings)))
}
