//! `rlcg gym`: the engine's Gymnasium environments (seed 004's CWMB part) against recorded
//! transitions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Subcommand;
use engine::gym::{GymId, dataset, random_steps, transitions};
use engine::rng::gym_rng;

use crate::common::{Failure, io_failure, read_text, usage};

#[derive(Subcommand)]
pub enum GymCommand {
    /// An environment's dataset (seed 004 §3.2): 5 random and 5 heuristic trajectories of at most
    /// 100 steps, as transitions JSON lines (the format `gym check` reads).
    Dataset {
        /// A Gymnasium id: Blackjack-v1, CliffWalking-v0, Taxi-v3, CartPole-v1, MountainCar-v0,
        /// Acrobot-v1.
        #[arg(long)]
        env: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write to FILE instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Steps per second of the engine's environments under uniformly random actions (a new
    /// episode after each end, the time limit included); `bench/gym-speed` sets them beside
    /// Gymnasium's.
    Bench {
        /// Steps per environment.
        #[arg(long, default_value_t = 1_000_000)]
        steps: u32,
        /// Environments (Gymnasium ids), comma-separated; all six by default.
        #[arg(long, value_delimiter = ',')]
        envs: Vec<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print one JSON object: {steps, per_env: {id: steps_per_second}}.
        #[arg(long)]
        json: bool,
    },
    /// Replay a transitions file (JSON lines: env, obs, action, reward, next_obs, terminated,
    /// truncated, and optionally t, the steps before) through the engine's environments: float
    /// observations within 1e-5, the rest exactly, Blackjack by its rules. Exits 0 only when every
    /// transition matches.
    Check {
        #[arg(long)]
        transitions: PathBuf,
        /// Print one JSON object: {total, matched, per_env: {id: {total, matched}}, mismatches}.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: &GymCommand) -> Result<(), Failure> {
    match command {
        GymCommand::Check { transitions, json } => check(transitions, *json),
        GymCommand::Bench { steps, envs, seed, json } => bench(*steps, envs, *seed, *json),
        GymCommand::Dataset { env, seed, out } => {
            let id = GymId::parse(env).map_err(usage)?;
            let lines = dataset::to_json_lines(&dataset::dataset(id, &mut gym_rng(*seed)));
            match out {
                Some(path) => std::fs::write(path, lines).map_err(|e| io_failure(format!("{}: {e}", path.display()))),
                None => {
                    print!("{lines}");
                    Ok(())
                }
            }
        }
    }
}

fn bench(steps: u32, envs: &[String], seed: u64, json: bool) -> Result<(), Failure> {
    let ids = if envs.is_empty() {
        GymId::ALL.to_vec()
    } else {
        envs.iter().map(|name| GymId::parse(name).map_err(usage)).collect::<Result<_, _>>()?
    };
    let mut per_env = BTreeMap::new();
    for id in ids {
        let mut rng = gym_rng(seed);
        let started = Instant::now();
        let episodes = random_steps(id, steps, &mut rng);
        let seconds = started.elapsed().as_secs_f64();
        if !json {
            println!(
                "{:<16} {:>12.0} steps/s ({steps} steps, {episodes} episodes)",
                id.name(),
                f64::from(steps) / seconds
            );
        }
        per_env.insert(id.name(), f64::from(steps) / seconds);
    }
    if json {
        println!("{}", serde_json::json!({ "steps": steps, "per_env": per_env }));
    }
    Ok(())
}

fn check(path: &Path, json: bool) -> Result<(), Failure> {
    let text = read_text(path)?;
    let report = transitions::check(&text);
    if json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        for (env, tally) in &report.per_env {
            println!("{env:<16} {:>6} of {:>6} match", tally.matched, tally.total);
        }
        for mismatch in &report.mismatches {
            println!("line {} ({}): {}", mismatch.line, mismatch.env, mismatch.problem);
        }
        println!("{} of {} transitions match", report.matched, report.total);
    }
    if report.all_match() {
        Ok(())
    } else {
        Err(Failure {
            code: 1,
            message: format!("{} of {} transitions do not match", report.total - report.matched, report.total),
        })
    }
}
