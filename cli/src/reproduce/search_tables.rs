//! Seed 004's search tables (`engine::reproduce::search`), the cheating rates
//! (`engine::reproduce::cheating`) and LATS and Reflexion at equal budgets (`engine::reproduce::
//! lats`), their benches run on all cores.

use engine::cheating::cheat_rate::CheatRate;
use engine::reproduce::search::{
    bundled_bench, bundled_table, odds_benches, odds_table, world_model_bench, world_model_environments,
    world_model_table,
};
use engine::reproduce::{Scale, Table, cheating, lats};
use engine::search::measures::bench::BenchSpec;
use engine::task_import::parse_task_file;

use engine::search::offline::bank::search_tasks;

use crate::common::{Failure, usage};
use crate::search_bench::bench_report;

/// The bundled tasks at 10 and 20 calls, and the same searches at 20 calls under other odds.
pub fn search(scale: Scale, jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let default = bench_report(bundled_bench(scale), jobs)?.rows;
    let mut others = Vec::new();
    for (label, spec) in odds_benches(scale) {
        others.push((label, bench_report(spec, jobs)?.rows));
    }
    Ok(vec![bundled_table(scale, &default), odds_table(scale, &default, &others)])
}

/// The simulated LLM's cheating rates on impossible variants of the bundled tasks, its
/// special-cased? answers with some of each task's tests held out, what the option to give up
/// does to the rate, and the LLM judge beside the other two detectors.
pub fn cheating(scale: Scale, jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let mut rates = Vec::new();
    for (variant, share, spec) in cheating::benches(scale) {
        rates.push((variant, share, cheat_rate(spec, jobs)?));
    }
    let held_out = cheating::held_out_benches(scale);
    let mut held_out_rates = Vec::new();
    for (share, spec) in &held_out {
        held_out_rates.push((*share, spec, cheat_rate(spec.clone(), jobs)?));
    }
    let mut give_up_rates = Vec::new();
    for (may_give_up, spec) in cheating::give_up_benches(scale) {
        give_up_rates.push((may_give_up, cheat_rate(spec, jobs)?));
    }
    let judged = cheating::judge_benches(scale);
    let mut agreements = Vec::new();
    for (setting, spec) in &judged {
        let report = bench_report(spec.clone(), jobs)?;
        let judge = report.judge.into_iter().next().map(|m| m.agreement).expect("a judged bench has a judge");
        agreements.push((*setting, spec, judge));
    }
    Ok(vec![
        cheating::table(scale, &rates),
        cheating::held_out_table(scale, &held_out_rates),
        cheating::give_up_table(scale, &give_up_rates),
        cheating::judge_table(scale, &agreements),
    ])
}

/// The cheating rate of a bench of one method, on impossible variants or with tests held out.
fn cheat_rate(spec: BenchSpec, jobs: Option<usize>) -> Result<CheatRate, Failure> {
    let report = bench_report(spec, jobs)?;
    Ok(report.cheating.into_iter().next().map(|m| m.rate).expect("a cheating bench has a rate"))
}

/// LATS (both modes), Reflexion and seed 004's methods at 10, 20 and 40 calls, on the bundled
/// tasks and on the first HumanEval tasks (the copy bundled in `tasks/humaneval/`).
pub fn lats(scale: Scale, jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let bundled = bench_report(lats::bundled_bench(scale), jobs)?.rows;
    let all = parse_task_file("HumanEval.jsonl", include_str!("../../../tasks/humaneval/HumanEval.jsonl"))
        .map_err(|errors| usage(format!("the bundled HumanEval.jsonl: {}", errors[0])))?;
    let humaneval = lats::humaneval_tasks(scale, all);
    let described = format!("the first {} HumanEval tasks", humaneval.len());
    let imported = bench_report(lats::humaneval_bench(scale, humaneval), jobs)?.rows;
    Ok(vec![
        lats::table(scale, "equal-budget-bundled", &format!("the {} bundled tasks", search_tasks().len()), &bundled),
        lats::table(scale, "equal-budget-humaneval", &described, &imported),
    ])
}

/// Each environment's world model searched by GIF-MCTS and WorldCoder at 10 and 50 calls.
pub fn world_models(scale: Scale, jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let mut rows = Vec::new();
    for env in world_model_environments() {
        rows.push((env, bench_report(world_model_bench(scale, env), jobs)?.rows));
    }
    Ok(vec![world_model_table(scale, &rows)])
}
