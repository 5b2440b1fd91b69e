//! Seed 003 live: the learned policy and the fixed pipeline on the seed's five tasks with the
//! simulated LLM (§5.2–5.3), and the loop of §6.2, calibrating the simulator from live episodes and
//! retraining on it, over seeds.

use engine::calibration::SEED_SUCCESS_BEFORE_AND_AFTER;
use engine::live::validation::ValidationTable;

use crate::common::Failure;
use crate::live::seed003_validation;
use engine::reproduce::{Scale, Table, signed};

/// "low–high" of `values`, or the one value.
fn range(values: &[i64], show: impl Fn(i64) -> String) -> String {
    let (low, high) = (values.iter().min().copied().unwrap_or(0), values.iter().max().copied().unwrap_or(0));
    if low == high { show(low) } else { format!("{}–{}", show(low), show(high)) }
}

/// A change in percent with its sign, as the docs write it (`+5.3%`, `−41.2%`).
fn signed_percent(change: f64) -> String {
    if change >= 0.0 { format!("+{change:.1}%") } else { format!("{}%", signed(change, 1)) }
}

pub fn tables(scale: Scale, _jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let command = scale.command("seed003-live");
    let seeds: Vec<u64> = (1..=scale.pick(10, 3)).collect();
    let mut validations = Vec::new();
    for &seed in &seeds {
        let seed = seed.to_string();
        validations.push(seed003_validation(&["--env", "orchestrator", "--tasks", "seed003", "--seed", &seed])?.0);
    }
    let of = |pick: &dyn Fn(&ValidationTable) -> i64| validations.iter().map(pick).collect::<Vec<i64>>();
    let steps = |table: &ValidationTable| -> Vec<i64> {
        table.rows.iter().filter(|r| r.driver == engine::live::Driver::Policy).map(|r| r.steps as i64).collect()
    };
    let first = &validations[0];
    let all_steps: Vec<i64> = validations.iter().flat_map(steps).collect();
    let changes: Vec<f64> = validations.iter().filter_map(|t| t.change_in_agent_calls).collect();
    let [low, high] = [f64::min, f64::max].map(|pick| changes.iter().copied().reduce(pick).unwrap_or(0.0));
    let out_of = |n: i64| format!("{n} of 5");
    let of_five = |values: &[i64]| format!("{} of 5", range(values, |n| n.to_string()));
    let seeds_label = format!("seeds 1–{}", seeds.len());
    let validation = Table {
        id: "seed003-validation",
        made_by: format!(
            "`{command}`: as `rlcg live --env orchestrator --tasks seed003 --seed N`, Q-learning trained for 5000 \
             episodes, then it and the fixed pipeline drive the simulated LLM (the simulator's own odds) once on each \
             of the five tasks, every program run by python3; compared with seed 003 §5.2–5.3 (a real LLM)."
        ),
        header: vec!["seed 003 §5.2–5.3".to_owned(), "paper".to_owned(), "seed 1".to_owned(), seeds_label],
        rows: vec![
            vec![
                "success, learned".to_owned(),
                "5 of 5".to_owned(),
                out_of(first.policy.successes as i64),
                of_five(&of(&|t| t.policy.successes as i64)),
            ],
            vec![
                "steps per task, learned".to_owned(),
                "2".to_owned(),
                range(&steps(first), |n| n.to_string()),
                range(&all_steps, |n| n.to_string()),
            ],
            vec![
                "total agent calls, learned vs fixed".to_owned(),
                "10 vs 23".to_owned(),
                format!("{} vs {}", first.policy.agent_calls, first.pipeline.agent_calls),
                format!(
                    "{} vs {}",
                    range(&of(&|t| i64::from(t.policy.agent_calls)), |n| n.to_string()),
                    range(&of(&|t| i64::from(t.pipeline.agent_calls)), |n| n.to_string())
                ),
            ],
            vec![
                "change in agent calls".to_owned(),
                "−56.5%".to_owned(),
                first.change_in_agent_calls.map_or("—".to_owned(), signed_percent),
                if low == high {
                    signed_percent(low)
                } else {
                    format!("{} to {}", signed_percent(low), signed_percent(high))
                },
            ],
            vec![
                "success, fixed".to_owned(),
                "5 of 5".to_owned(),
                out_of(first.pipeline.successes as i64),
                of_five(&of(&|t| t.pipeline.successes as i64)),
            ],
        ],
    };

    let rounds = scale.pick(20, 4);
    let seeds: Vec<u64> = (1..=scale.pick(10, 2)).collect();
    let mut before_after = Vec::new();
    for &seed in &seeds {
        let (seed, rounds) = (seed.to_string(), rounds.to_string());
        let line =
            ["--env", "orchestrator", "--tasks", "seed003", "--recalibrate", "--rounds", &rounds, "--seed", &seed];
        let (before, after) = seed003_validation(&line)?;
        let after = after.expect("--recalibrate validates again");
        before_after.push((before.policy.success_rate(), after.policy.success_rate()));
    }
    let (seed_before, seed_after) = SEED_SUCCESS_BEFORE_AND_AFTER;
    let row = |name: &str, values: Vec<f64>, seed: f64| {
        let mut row = vec![name.to_owned()];
        row.extend(values.iter().map(|v| format!("{:.0}%", 100.0 * v)));
        row.push(format!("{:.1}%", 100.0 * values.iter().sum::<f64>() / values.len() as f64));
        row.push(format!("{:.0}%", 100.0 * seed));
        row
    };
    let mut header = vec!["seed".to_owned()];
    header.extend(seeds.iter().map(u64::to_string));
    header.extend(["mean".to_owned(), "seed 003".to_owned()]);
    let recalibration = Table {
        id: "seed003-recalibration",
        made_by: format!(
            "`{command}`: as `rlcg live --env orchestrator --tasks seed003 --recalibrate --rounds {rounds} --seed N`, live \
             success of the learned policy over {} episodes, the simulated LLM writing with \
             `engine::calibration::REAL_LLM_ODDS` (ours, not a real LLM's); compared with seed 003 §6.2 (its real LLM).",
            rounds * 5
        ),
        header,
        rows: vec![
            row("trained on the simulator's odds", before_after.iter().map(|p| p.0).collect(), seed_before),
            row("retrained on the calibrated odds", before_after.iter().map(|p| p.1).collect(), seed_after),
        ],
    };
    Ok(vec![validation, recalibration])
}
