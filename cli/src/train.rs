//! Training from the command line: `train` (with its records written out), `compare` against
//! seed 003's fixed pipeline, seed 000 §9's `hierarchical` inference, and `list`.

use std::path::Path;
use std::time::Instant;

use cli::python::NativePython;
use engine::device::Backend;
use engine::env::hierarchical::{self, hierarchical_inference};
use engine::params;
use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::run::records_csv::records_csv;
use engine::run::{EpisodeRecord, Evaluation};
use engine::{AgentId, EnvId, Environment, Run, RunSpec, RunSummary};
use serde::Serialize;
use serde_json::json;

use crate::TrainArgs;
use crate::common::{Failure, io_failure, progress_bar, usage};

impl TrainArgs {
    /// The run these arguments describe; a bad parameter is named.
    pub fn spec(&self) -> Result<RunSpec, Failure> {
        let mut spec = run_spec(self.env, self.agent, self.seed, self.episodes, self.config.as_deref(), self.backend)?;
        spec.agent = params::apply(&spec.agent, &self.params).map_err(|e| usage(format!("--param: {e}")))?;
        spec.env = params::apply(&spec.env, &self.env_params).map_err(|e| usage(format!("--env-param: {e}")))?;
        Ok(spec)
    }
}

/// Trains the spec of `args` with a progress bar on stderr; returns the run, its records and the
/// training time in seconds.
pub fn run_training(args: &TrainArgs, keep_records: bool) -> Result<(Run, Vec<EpisodeRecord>, f64), Failure> {
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

pub fn hierarchical(
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
    let solved = hierarchical::solve_subtasks(&executive.spec().env, |env: &_, obs| executive.greedy_action(env, obs))
        .map_err(usage)?;
    // The planner's evaluation is the delivered program's run against the task's tests, in python3
    // (in the sandbox).
    let mut python = NativePython::start().map_err(io_failure)?;
    let verdict = python.run(&solved.request(), DEFAULT_TIME_LIMIT_MS).map_err(io_failure)?;
    let trace =
        hierarchical_inference((&planner.spec().env, |env: &_, obs| planner.greedy_action(env, obs)), solved, &verdict)
            .map_err(usage)?;
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
    println!("Final code, composed of the subtasks' code and the glue:\n{}", trace.final_code);
    println!("The planner's evaluation, the final code in python3: {}", trace.evaluation);
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

pub fn train(args: &TrainArgs, out: Option<&Path>) -> Result<(), Failure> {
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

pub fn compare(args: &TrainArgs) -> Result<(), Failure> {
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

pub fn list(json: bool) {
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

fn write_records(path: &Path, format: OutputFormat, run: &Run, records: &[EpisodeRecord]) -> Result<(), Failure> {
    let failed = |e: &dyn std::fmt::Display| io_failure(format!("cannot write {}: {e}", path.display()));
    let info = run.env().info();
    match format {
        OutputFormat::Csv => std::fs::write(path, records_csv([(1, run.spec(), records)])).map_err(|e| failed(&e)),
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
