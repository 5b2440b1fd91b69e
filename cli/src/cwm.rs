//! `rlcg cwm`: code world models (seed 004) on the command line: a model's accuracy on recorded
//! transitions, planning with it, and the bundled banks' programs. Models run in python3 through
//! the page's harness.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Subcommand;
use cli::host::Host;
use cli::python::NativePython;
use engine::cwm::normalised_return::{PlanningPolicy, PlanningRun, Protocol};
use engine::cwm::paper_results::paper_results;
use engine::cwm::tabulated::{self, TABULATE_LIMIT_MS, TabulatedModel};
use engine::env::EnvSpec;
use engine::env::gym::GymParams;
use engine::gym::GymId;
use engine::gym::accuracy::{Labelling, Metric};
use engine::gym::dataset::{dataset, from_json_lines};
use engine::params;
use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::rng::gym_rng;
use engine::search::scorer::{Score, Scorer};
use engine::search::world_model::{WorldModelScorer, WorldModelScoring};
use engine::search::world_model_tasks::world_model_task;
use engine::{AgentId, EnvId, Run, RunSpec};
use serde::Serialize;
use serde_json::json;

use crate::common::{Failure, io_failure, read_text, usage};

#[derive(Subcommand)]
pub enum CwmCommand {
    /// A world model's accuracy on transitions: both metrics (the official code's partial credit
    /// with the class-balanced mean, and the paper's thirds), and the first misclassified
    /// transition as an improve prompt shows it.
    Score {
        /// A Gymnasium id: Blackjack-v1, CliffWalking-v0, Taxi-v3, CartPole-v1, MountainCar-v0,
        /// Acrobot-v1.
        #[arg(long)]
        env: String,
        /// The Python file with the model's `Environment` class.
        #[arg(long)]
        program: PathBuf,
        /// Transitions JSON lines (`rlcg gym dataset` writes one); default: the dataset made
        /// from --dataset-seed.
        #[arg(long)]
        transitions: Option<PathBuf>,
        #[arg(long, default_value_t = 0)]
        dataset_seed: u64,
        /// Count a truncation as done, as the official buffers do (default: only termination).
        #[arg(long)]
        truncation_is_done: bool,
        #[arg(long)]
        json: bool,
    },
    /// Plan with a world model (seed 004 §5.3): the paper's MCTS planner with the model, with the
    /// true environment and at random, and the normalised return R(CWM). The model is tabulated
    /// over the environment's states (CliffWalking, Taxi, Blackjack) and planned in Rust; a
    /// continuous environment's model is planned in python3, one episode per run.
    Plan {
        #[arg(long)]
        env: String,
        #[arg(long)]
        program: PathBuf,
        /// Episodes per policy (the paper's 10).
        #[arg(long, default_value_t = 10)]
        episodes: u32,
        /// Rollouts of 20 steps instead of the paper's 100.
        #[arg(long)]
        quick: bool,
        /// A planner parameter as NAME=VALUE, repeatable (e.g. `random_ties=false`,
        /// `root_counted=false` for this project's earlier UCT).
        #[arg(long = "planner", value_name = "NAME=VALUE")]
        planner: Vec<String>,
        /// The oracle draws its own cards instead of foreseeing the real ones as the official
        /// oracle does (only Blackjack draws any).
        #[arg(long)]
        oracle_without_foresight: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// Train Q-learning inside a world model program (tabulated by running it in python3 over every
    /// state and action; CliffWalking, Taxi, Blackjack) and, beside it, on the real environment;
    /// both are evaluated greedily on the real environment.
    Train {
        #[arg(long)]
        env: String,
        #[arg(long)]
        program: PathBuf,
        /// Training episodes of each agent (default: the environment's).
        #[arg(long)]
        episodes: Option<u32>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Greedy evaluation episodes on the real environment.
        #[arg(long, default_value_t = 100)]
        eval_episodes: u32,
        #[arg(long)]
        json: bool,
    },
    /// Print a program of the bundled bank: the correct world model, or one with a fault.
    Model {
        #[arg(long)]
        env: String,
        /// A fault as SLOT:INDEX (both from 0), e.g. `4:0`.
        #[arg(long)]
        fault: Option<String>,
    },
}

pub fn run(command: &CwmCommand) -> Result<(), Failure> {
    match command {
        CwmCommand::Score { env, program, transitions, dataset_seed, truncation_is_done, json } => {
            score(env, program, transitions.as_deref(), *dataset_seed, *truncation_is_done, *json)
        }
        CwmCommand::Plan { env, program, episodes, quick, planner, oracle_without_foresight, seed, json } => {
            let base = if *quick { Protocol::quick() } else { Protocol::paper() };
            let planner = params::apply(&base.planner, planner).map_err(|e| usage(format!("--planner: {e}")))?;
            let protocol = Protocol { episodes: *episodes, planner, oracle_foresight: !oracle_without_foresight };
            plan(env, program, protocol, *seed, *json)
        }
        CwmCommand::Train { env, program, episodes, seed, eval_episodes, json } => {
            train_inside(env, program, *episodes, *seed, *eval_episodes, *json)
        }
        CwmCommand::Model { env, fault } => model(env, fault.as_deref()),
    }
}

#[derive(Serialize)]
struct ScoreReport {
    env: &'static str,
    transitions: usize,
    /// Transitions the model predicted before it raised (all of them when it did not).
    predicted: usize,
    official: f64,
    paper: f64,
    /// Transitions right in every part (next state, reward, done).
    matched: usize,
    bug: bool,
    error: Option<String>,
    first_miss: Option<serde_json::Value>,
    /// The harness's own time for the whole run, in milliseconds.
    python_ms: f64,
}

fn score(
    env: &str,
    program: &Path,
    transitions: Option<&Path>,
    dataset_seed: u64,
    truncation_is_done: bool,
    json: bool,
) -> Result<(), Failure> {
    let env = GymId::parse(env).map_err(usage)?;
    let code = read_text(program)?;
    let transitions = match transitions {
        Some(path) => from_json_lines(env, &read_text(path)?).map_err(|e| usage(format!("{}: {e}", path.display())))?,
        None => dataset(env, &mut gym_rng(dataset_seed)),
    };
    let labelling = if truncation_is_done { Labelling::TerminatedOrTruncated } else { Labelling::Terminated };
    let scorer =
        WorldModelScorer { env, transitions, scoring: WorldModelScoring { metric: Metric::Official, labelling } };
    let mut python = NativePython::start().map_err(io_failure)?;
    let verdict = python.run(&scorer.request(&code), DEFAULT_TIME_LIMIT_MS).map_err(io_failure)?;
    let accuracy = scorer.accuracy(&verdict);
    let Score { bug, error, example, .. } = scorer.evaluate(&verdict, &mut gym_rng(0));
    let report = ScoreReport {
        env: env.name(),
        transitions: scorer.transitions.len(),
        predicted: verdict.predictions.as_ref().map_or(0, Vec::len),
        official: if bug { 0.0 } else { accuracy.official },
        paper: if bug { 0.0 } else { accuracy.paper },
        matched: accuracy.transitions.iter().filter(|t| t.predicted && !t.misclassified()).count(),
        bug,
        error,
        first_miss: accuracy
            .first_miss
            .zip(example)
            .map(|(index, e)| json!({"index": index, "input": e.input, "expected": e.expected, "actual": e.actual})),
        python_ms: verdict.duration_ms,
    };
    if json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        println!(
            "{}: accuracy {:.4} (official), {:.4} (paper's formula); {} of {} transitions right",
            report.env, report.official, report.paper, report.matched, report.transitions
        );
        if let Some(error) = &report.error {
            println!("the model is a bug: {error}");
        }
        if let Some(miss) = &report.first_miss {
            println!(
                "first misclassified (transition {}):\n{}\nexpected:\n{}\nthe model's:\n{}",
                miss["index"],
                miss["input"].as_str().unwrap_or_default(),
                miss["expected"].as_str().unwrap_or_default(),
                miss["actual"].as_str().unwrap_or_default()
            );
        }
    }
    Ok(())
}

fn plan(env: &str, program: &Path, protocol: Protocol, seed: u64, json: bool) -> Result<(), Failure> {
    let env = GymId::parse(env).map_err(usage)?;
    let episodes = protocol.episodes;
    if episodes == 0 {
        return Err(usage("--episodes must be at least 1"));
    }
    let code = read_text(program)?;
    let reference = world_model_task(env).reference();
    let mut evaluation = PlanningRun::new(env, code, reference, protocol, seed).map_err(usage)?;
    let mut python = NativePython::start().map_err(io_failure)?;
    let bar = crate::common::progress_bar(u64::from(3 * episodes), "episodes");
    let driven = Host::without_llm(&mut python).drive(&mut evaluation, |e| bar.set_position(e.episodes.len() as u64));
    driven.map_err(io_failure)?;
    bar.finish_and_clear();
    let returns =
        |policy| evaluation.episodes.iter().filter(|e| e.policy == policy).map(|e| e.reward).collect::<Vec<_>>();
    let report = json!({
        "env": env.name(),
        "episodes": episodes,
        "protocol": evaluation.protocol,
        "planned_in": if PlanningRun::plans_in_python(env) { "python" } else { "rust" },
        "random": evaluation.mean_return(PlanningPolicy::Random),
        "oracle": evaluation.mean_return(PlanningPolicy::Oracle),
        "model": evaluation.mean_return(PlanningPolicy::Model),
        "normalised": evaluation.normalised(),
        "returns": {"random": returns(PlanningPolicy::Random), "oracle": returns(PlanningPolicy::Oracle), "model": returns(PlanningPolicy::Model)},
        "model_steps": evaluation.episodes.iter().map(|e| e.model_steps).sum::<u64>(),
        "error": evaluation.error,
        // Seed 004's Tables 9 and 10 for this environment, under the paper's protocol.
        "paper": paper_results(env),
    });
    if json {
        println!("{report}");
    } else {
        let shown =
            |v: Option<f64>| v.map_or("N/A (the oracle does no better than random)".into(), |v| format!("{v:.3}"));
        println!(
            "{}: mean return over {episodes} episodes: random {:.2}, oracle {:.2}, model {:.2}; R(CWM) = {}",
            env.name(),
            evaluation.mean_return(PlanningPolicy::Random).unwrap_or_default(),
            evaluation.mean_return(PlanningPolicy::Oracle).unwrap_or_default(),
            evaluation.mean_return(PlanningPolicy::Model).unwrap_or_default(),
            shown(evaluation.normalised())
        );
    }
    match evaluation.error {
        // The model failed: the report says where, and the exit status says it is not a result.
        Some(error) => Err(io_failure(format!("the model could not plan: {error}"))),
        None => Ok(()),
    }
}

fn train_inside(
    env: &str,
    program: &Path,
    episodes: Option<u32>,
    seed: u64,
    eval_episodes: u32,
    json: bool,
) -> Result<(), Failure> {
    let env = GymId::parse(env).map_err(usage)?;
    if env.tabulated_states().is_none() {
        return Err(usage(format!(
            "{} cannot be tabulated, so no agent trains inside its model (CliffWalking-v0, Taxi-v3, Blackjack-v1 can)",
            env.name()
        )));
    }
    let code = read_text(program)?;
    let mut python = NativePython::start().map_err(io_failure)?;
    let verdict = python.run(&tabulated::request(env, &code).map_err(usage)?, TABULATE_LIMIT_MS).map_err(io_failure)?;
    let table = TabulatedModel::from_verdict(env, &verdict).map_err(usage)?;
    let episodes = episodes.unwrap_or_else(|| EnvId::Gym(env).default_episodes(false));
    let real = RunSpec::new(EnvId::Gym(env), AgentId::QLearning, seed, episodes);
    let mut inside = real.clone();
    inside.env = EnvSpec::Gym(GymParams { model: Some(Arc::new(table)), ..GymParams::new(env) });
    // The model was written from the recorded dataset (seed 0's, as `rlcg cwm score` scores on):
    // those are the real steps the agent inside it used.
    let dataset_steps = dataset(env, &mut gym_rng(0)).len() as u64;
    let mut rows = Vec::new();
    for (label, spec) in [("inside the model", inside), ("on the real environment", real)] {
        let mut run = Run::new(spec).map_err(usage)?;
        let steps: u64 = run.by_ref().map(|record| u64::from(record.outcome.length)).sum();
        let greedy = run.evaluate_greedy(eval_episodes);
        let real_steps = if rows.is_empty() { dataset_steps } else { steps };
        rows.push(json!({ "trained": label, "real_steps": real_steps, "greedy": greedy }));
        if !json {
            println!(
                "Q-learning {label:<24} {real_steps:>7} real steps; greedy on the real environment: success {:.0}%, mean return {:.2}",
                100.0 * greedy.success_rate,
                greedy.mean_return
            );
        }
    }
    if json {
        println!("{}", json!({ "env": env.name(), "episodes": episodes, "seed": seed, "runs": rows }));
    }
    Ok(())
}

fn model(env: &str, fault: Option<&str>) -> Result<(), Failure> {
    let task = world_model_task(GymId::parse(env).map_err(usage)?);
    let mut choices = vec![None; task.slots.len()];
    if let Some(fault) = fault {
        let bad = || usage(format!("--fault {fault}: expected SLOT:INDEX, e.g. 0:0"));
        let (slot, index) = fault.split_once(':').ok_or_else(bad)?;
        let (slot, index): (usize, usize) = (slot.parse().map_err(|_| bad())?, index.parse().map_err(|_| bad())?);
        let faults = task
            .slots
            .get(slot)
            .map(|s| s.faults.len())
            .ok_or_else(|| usage(format!("--fault {fault}: {} has slots 0–{}", task.id, task.slots.len() - 1)))?;
        if index >= faults {
            return Err(usage(format!("--fault {fault}: slot {slot} of {} has {faults} faults", task.id)));
        }
        choices[slot] = Some(index);
    }
    print!("{}", task.program(&choices));
    Ok(())
}
