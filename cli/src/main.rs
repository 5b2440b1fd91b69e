//! `rlcg`: train agents on the seed environments from the command line.
//!
//! Exit codes: 0 success, 1 an I/O failure (python3 that could not run the programs among them: such a
//! run has no result), 2 bad arguments (unknown names, out-of-range values, a
//! malformed task file), 3 `check` found reference solutions that do not pass (or, with `--banks`,
//! tasks whose bank cannot be made).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use engine::device::Backend;
use engine::{AgentId, EnvId};

mod check;
mod common;
mod cwm;
mod gym;
mod live;
mod llm_args;
mod lm;
mod reproduce;
mod search;
mod search_bench;
mod stepcoder;
mod stepcoder_train;
mod sweep;
mod train;

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
    /// Seed 004's program search on one task: GIF-MCTS, WorldCoder or zero-shot CoT, with the
    /// simulated LLM or an endpoint, every program scored by python3.
    Search {
        #[command(flatten)]
        args: search::SearchArgs,
    },
    /// Many searches on the simulated LLM: each method's mean best score, its standard error and
    /// the solved fraction per budget, as seed 004's Table 1.
    SearchBench {
        #[command(flatten)]
        args: search_bench::SearchBenchArgs,
    },
    /// How often the simulated LLM cheats: searches on impossible variants of the tasks
    /// (ImpossibleBench's one-off and conflicting), every pass a cheat, with its 95% interval.
    CheatRate {
        #[command(flatten)]
        args: search_bench::CheatRateArgs,
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
    /// The engine's language model on a GGUF file (llama.cpp's numbers, on the CPU).
    Lm {
        #[command(subcommand)]
        command: lm::LmCommand,
    },
    /// A grid of any command's parameters (seeds, environments, agents, methods, budgets, tasks),
    /// run cell by cell here or one cell per cluster task, and merged into means with 95%
    /// intervals over seeds.
    Sweep {
        #[command(flatten)]
        args: sweep::SweepArgs,
    },
    /// Regenerate the tables of docs/reproductions.md from the engine, in the same Markdown;
    /// `--check docs/reproductions.md` lists every cell that differs.
    Reproduce {
        #[command(flatten)]
        args: reproduce::ReproduceArgs,
    },
    /// List the environments and agents.
    List {
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.unsafe_python {
        cli::sandbox::run_unconfined();
    }
    let result = match cli.command {
        Command::Train { args, out } => train::train(&args, out.as_deref()),
        Command::Compare { args } => train::compare(&args),
        Command::Hierarchical { seed, executive_episodes, planner_episodes, config, backend, json } => {
            train::hierarchical(seed, executive_episodes, planner_episodes, &config, backend, json)
        }
        Command::Check { tasks, timeout, jobs, verbose, banks, json } => {
            check::check(&tasks, timeout, jobs, verbose, banks, json)
        }
        Command::Live { args } => live::run(&args),
        Command::Search { args } => search::search(&args),
        Command::SearchBench { args } => search_bench::bench(&args),
        Command::CheatRate { args } => search_bench::cheat_rate(&args),
        Command::Gym { command } => gym::run(&command),
        Command::Cwm { command } => cwm::run(&command),
        Command::Stepcoder { command } => stepcoder::run(&command),
        Command::Lm { command } => lm::run(&command),
        Command::Sweep { args } => sweep::sweep(&args),
        Command::Reproduce { args } => reproduce::reproduce(&args),
        Command::List { json } => {
            train::list(json);
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
