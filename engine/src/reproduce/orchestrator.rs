//! Seed 003's orchestrator: the training table (§5.1) and the learned policy against the fixed
//! pipeline (§5.3), for Q-learning and seed 003's q-thompson, over seeds. Each run is trained
//! apart ([`trained`]), so that a host can let its page draw between two.

use super::{Scale, Table, percent, signed};
use crate::env::orchestrator::{CODER, OrchestratorState};
use crate::run::Evaluation;
use crate::{Agent, AgentId, EnvId, Observation, Run, RunSpec};

/// The group's name, as `rlcg reproduce --only` takes it.
pub const GROUP: &str = "seed003";
/// The agents, one column each.
pub const AGENTS: [AgentId; 2] = [AgentId::QLearning, AgentId::QThompson];
/// Training episodes per run.
pub const EPISODES: u32 = 5000;
const EVALUATION_EPISODES: u32 = 1000;

/// The seeds at `scale`: 1 to this.
pub fn seeds(scale: Scale) -> u64 {
    scale.pick(20, 5)
}

/// One trained run's figures.
pub struct Trained {
    success_last100: f64,
    return_last100: f64,
    /// The first episode (1-based) whose last 100 succeeded 90% of the time or more.
    converged: Option<u32>,
    coder_first: bool,
    learned: Evaluation,
    fixed: Evaluation,
}

/// `agent` trained for 5000 episodes with `seed`, and evaluated beside the fixed pipeline.
pub fn trained(agent: AgentId, seed: u64) -> Result<Trained, String> {
    let mut run = Run::new(RunSpec::new(EnvId::Orchestrator, agent, seed, EPISODES))?;
    let records: Vec<_> = run.by_ref().collect();
    let last = records.last().ok_or("a run of no episodes")?;
    let start = OrchestratorState::default();
    let untrained = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, seed, 1))?;
    Ok(Trained {
        success_last100: last.success_last100,
        return_last100: last.mean_return_last100,
        converged: records.iter().find(|r| r.episode >= 99 && r.success_last100 >= 0.9).map(|r| r.episode + 1),
        coder_first: run.agent().greedy(Observation { state: start.index(), mask: start.mask() }, &[]) == CODER,
        learned: run.evaluate_greedy(EVALUATION_EPISODES),
        fixed: untrained.evaluate_baseline(EVALUATION_EPISODES).ok_or("the orchestrator has a baseline")?,
    })
}

/// "low–high, mean m" of `values`, each shown by `show`.
fn spread(values: &[f64], show: impl Fn(f64) -> String) -> String {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    match low == high {
        true => format!("{} for all {}", show(low), values.len()),
        false => format!("{}–{}, mean {}", show(low), show(high), show(mean)),
    }
}

/// Both tables, every run trained here.
pub fn run_tables(scale: Scale) -> Result<Vec<Table>, String> {
    let mut columns = Vec::new();
    for agent in AGENTS {
        columns.push((1..=seeds(scale)).map(|seed| trained(agent, seed)).collect::<Result<Vec<_>, _>>()?);
    }
    Ok(tables(scale, &columns))
}

/// Both tables from the runs of each agent of [`AGENTS`], seeds 1 to [`seeds`] in order.
pub fn tables(scale: Scale, columns: &[Vec<Trained>]) -> Vec<Table> {
    let seeds = seeds(scale);
    let command = scale.command(GROUP);
    let named = |agent: AgentId| format!("{}, seeds 1–{seeds}", agent.name());
    let header = |first: &str| {
        let mut header = vec![first.to_owned(), "paper".to_owned()];
        header.extend(AGENTS.map(named));
        header
    };
    let row = |name: &str, paper: &str, cell: &dyn Fn(&[Trained]) -> String| {
        let mut row = vec![name.to_owned(), paper.to_owned()];
        row.extend(columns.iter().map(|runs| cell(runs)));
        row
    };
    let training = Table {
        id: "seed003-training",
        made_by: format!(
            "`{command}`: {EPISODES} training episodes per seed, statistics read at the last episode \
             (exploration on); compared with seed 003 §5.1, one run."
        ),
        header: header("seed 003 §5.1"),
        rows: vec![
            row("final success: success over the last 100 episodes", "97%", &|runs| {
                spread(&runs.iter().map(|r| r.success_last100).collect::<Vec<_>>(), percent)
            }),
            row("final average reward: mean return of the last 100", "9.70", &|runs| {
                spread(&runs.iter().map(|r| r.return_last100).collect::<Vec<_>>(), |v| signed(v, 2))
            }),
            row("convergence: first episode with success(last100) ≥ 90%", "~500", &|runs| {
                let episodes: Vec<f64> = runs.iter().map(|r| r.converged.map_or(f64::NAN, f64::from)).collect();
                match episodes.iter().any(|e| e.is_nan()) {
                    true => format!("{} of {seeds} never", episodes.iter().filter(|e| e.is_nan()).count()),
                    false => spread(&episodes, |v| format!("{v:.0}")),
                }
            }),
        ],
    };
    let share = |part: usize| format!("{part} of {seeds} seeds");
    let calls = |r: &Trained| {
        let change = r.learned.mean_agent_calls / r.fixed.mean_agent_calls - 1.0;
        format!(
            "{:.2} vs {:.2} ({})",
            r.learned.mean_agent_calls,
            r.fixed.mean_agent_calls,
            signed(100.0 * change, 1) + "%"
        )
    };
    let versus_fixed = Table {
        id: "seed003-learned-vs-fixed",
        made_by: format!(
            "`{command}`: the greedy policy after {EPISODES} episodes and the fixed pipeline on the same \
             {EVALUATION_EPISODES} fresh episodes per seed; compared with seed 003 §5 (5 real tasks)."
        ),
        header: header("seed 003 §5"),
        rows: vec![
            row("greedy success, learned", "100%", &|runs| {
                let all: Vec<f64> = runs.iter().map(|r| r.learned.success_rate).collect();
                format!("seed 1: {}; {}", percent(all[0]), spread(&all, percent))
            }),
            row("greedy success, fixed pipeline", "100%", &|runs| {
                let all: Vec<f64> = runs.iter().map(|r| r.fixed.success_rate).collect();
                format!("seed 1: {}; {}", percent(all[0]), spread(&all, percent))
            }),
            row("agent calls, learned vs fixed", "10 vs 23 (−56.5%)", &|runs| format!("seed 1: {}", calls(&runs[0]))),
            row("coder first with half the calls", "coder first", &|runs| {
                share(
                    runs.iter()
                        .filter(|r| r.coder_first && r.learned.mean_agent_calls <= 0.5 * r.fixed.mean_agent_calls)
                        .count(),
                )
            }),
        ],
    };
    vec![training, versus_fixed]
}
