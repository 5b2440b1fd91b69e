//! `rlcg gym`: the engine's Gymnasium environments (seed 004's CWMB part) against recorded
//! transitions.

use std::path::PathBuf;

use clap::Subcommand;
use engine::gym::transitions;

use crate::{Failure, io_failure};

#[derive(Subcommand)]
pub enum GymCommand {
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
    let GymCommand::Check { transitions: path, json } = command;
    let text = std::fs::read_to_string(path).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
    let report = transitions::check(&text);
    if *json {
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
