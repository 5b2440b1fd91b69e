//! Seed 004 §5.3: planning with the bank's correct world model of each discrete environment, the
//! oracle and random beside it, and the normalised return R(CWM).

use cli::host::Host;
use cli::python::NativePython;
use engine::cwm::normalised_return::{PlanningPolicy, PlanningRun, Protocol};
use engine::cwm::paper_results::{paper_environments, paper_results};
use engine::gym::GymId;
use engine::search::world_model_tasks::world_model_task;

use crate::common::{Failure, io_failure, usage};
use engine::reproduce::{Scale, Table, signed};

/// The environments planned in Rust (the model tabulated), in the paper's order, with their
/// episodes per policy and seed as each reproduces its R (`Gymnasium::PLANNING_REPRODUCTION`); the
/// quick run plays at most 200 episodes, with seed 1.
fn planned(scale: Scale) -> Vec<(GymId, u32, u64)> {
    let mut planned = Vec::new();
    for env in paper_environments().into_iter().filter(|&env| !PlanningRun::plans_in_python(env)) {
        let reproduction = env.planning_reproduction();
        let episodes = scale.pick(reproduction.episodes, reproduction.episodes.min(200));
        planned.extend((1..=scale.pick(reproduction.seeds, 1)).map(|seed| (env, episodes, seed)));
    }
    planned
}

/// The paper's R(CWM) over Tables 9 and 10: its range, or N/A.
fn paper_range(env: GymId) -> String {
    let values: Vec<f64> = paper_results(env).iter().filter_map(|cell| cell.normalised).collect();
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match values.len() {
        0 => "N/A".to_owned(),
        _ => format!("{}–{}", signed(low, 2), signed(high, 2)),
    }
}

/// One row: `env`'s correct model planned under `protocol` with `seed`, beside the oracle and
/// random; `first` are the row's cells before the returns.
fn planned_row(
    python: &mut NativePython,
    env: GymId,
    protocol: Protocol,
    seed: u64,
    first: Vec<String>,
) -> Result<Vec<String>, Failure> {
    let reference = world_model_task(env).reference();
    let mut run = PlanningRun::new(env, reference.clone(), reference, protocol, seed).map_err(usage)?;
    Host::without_llm(python).drive(&mut run, |_| {}).map_err(io_failure)?;
    if let Some(error) = &run.error {
        return Err(io_failure(format!("{}: the model could not plan: {error}", env.name())));
    }
    let decimals = env.planning_reproduction().decimals;
    let mean = |policy| run.mean_return(policy).map_or("—".to_owned(), |v| signed(v, decimals));
    let mut row = first;
    row.extend([
        mean(PlanningPolicy::Random),
        mean(PlanningPolicy::Oracle),
        mean(PlanningPolicy::Model),
        run.normalised().map_or("N/A".to_owned(), |r| signed(r, 2)),
        paper_range(env),
    ]);
    Ok(row)
}

pub fn tables(scale: Scale, _jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let mut python = NativePython::start().map_err(io_failure)?;
    let mut rows = Vec::new();
    for (env, episodes, seed) in planned(scale) {
        let first = vec![env.name().to_owned(), seed.to_string(), episodes.to_string()];
        rows.push(planned_row(&mut python, env, Protocol { episodes, ..Protocol::paper() }, seed, first)?);
    }
    Ok(vec![Table {
        id: "cwm-planning",
        made_by: format!(
            "`{}`: the bank's correct model, tabulated, the paper's protocol (25 simulations, rollouts of 100 \
             steps, the official planner); mean return per policy; compared with the paper's R(CWM) over \
             Tables 9 and 10 (models of accuracy below 1).",
            scale.command("planning")
        ),
        header: ["environment", "seed", "episodes per policy", "random", "oracle", "model", "R(CWM)", "paper's R"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    }])
}

/// The continuous environments, whose models are planned in python3 (one harness run per
/// episode): the paper's protocol, or in the quick run the first of them under the quick protocol,
/// as the page runs it.
pub fn python_tables(scale: Scale, _jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let mut python = NativePython::start().map_err(io_failure)?;
    let in_python: Vec<GymId> =
        paper_environments().into_iter().filter(|&env| PlanningRun::plans_in_python(env)).collect();
    let (planned, protocol, protocol_name) = match scale {
        Scale::Full => (in_python, Protocol::paper(), "the paper's"),
        Scale::Quick => (in_python[..1].to_vec(), Protocol::quick(), "the quick"),
    };
    let mut rows = Vec::new();
    for env in planned {
        let started = std::time::Instant::now();
        let row = planned_row(&mut python, env, protocol.clone(), 1, vec![env.name().to_owned()])?;
        eprintln!("{}: planned in {:.0} s", env.name(), started.elapsed().as_secs_f64());
        rows.push(row);
    }
    Ok(vec![Table {
        id: "cwm-planning-python",
        made_by: format!(
            "`{}`: the bank's correct model planned in python3, {protocol_name} protocol ({} episodes, 25 \
             simulations, rollouts of {} steps), seed 1; compared with the paper's R(CWM) over Tables 9 and 10.",
            scale.command("planning-python"),
            protocol.episodes,
            protocol.planner.rollout_steps
        ),
        header: ["environment", "random", "oracle", "model", "R(CWM)", "paper's R"].map(str::to_owned).to_vec(),
        rows,
    }])
}
