//! Seed 004's searches on the simulated LLM: the bundled tasks (against Table 1), what moves their
//! ranking, and the world models' accuracy (against Tables 9 and 10). Each bench is a
//! [`BenchSpec`]: the CLI runs it on all cores, the page as one [`SequentialBench`] task
//! (`crate::search::measures::bench`), and both make the table here from its rows.
//!
//! [`SequentialBench`]: crate::search::measures::bench::SequentialBench

use super::{Scale, Table, percent};
use crate::cwm::paper_results::{paper_environments, paper_results};
use crate::gym::GymId;
use crate::search::measures::bench::{BenchRow, BenchSpec};
use crate::search::measures::paper_table_1::{TABLE_1_BUDGET, table_1_cell};
use crate::search::offline::bank::search_tasks;
use crate::search::offline::simulated_llm::SimulatedLlmParams;
use crate::search::spec::{MethodSpec, SearchSpec};

/// The groups' names, as `rlcg reproduce --only` takes them.
pub const GROUP: &str = "search";
pub const WORLD_MODELS_GROUP: &str = "world-models";

/// The methods the odds table compares.
const COMPARED: [&str; 3] = ["gif-mcts", "worldcoder", "zero-shot"];
/// The world-model searches and the budgets they are read at.
const WORLD_MODEL_METHODS: [&str; 2] = ["gif-mcts", "worldcoder"];
const WORLD_MODEL_BUDGETS: [u32; 2] = [10, 50];

/// The methods as the tables name them.
fn label(method: &str) -> &'static str {
    MethodSpec::parse(method).expect("the tables name known methods").label()
}

fn methods(names: &[&str]) -> Vec<MethodSpec> {
    names.iter().map(|name| MethodSpec::parse(name).expect("the tables name known methods")).collect()
}

/// `method`'s row at `budget`.
fn cell<'a>(rows: &'a [BenchRow], method: &str, budget: u32) -> &'a BenchRow {
    rows.iter().find(|r| r.method == method && r.budget == budget).expect("every method ran at every budget")
}

fn score(row: &BenchRow) -> String {
    format!("{:.3} ± {:.3}", row.mean_best_score, row.standard_error)
}

fn seeds(scale: Scale) -> Vec<u64> {
    (1..=scale.pick(100, 3)).collect()
}

fn bundled_tasks() -> Vec<String> {
    search_tasks().iter().map(|t| t.id.clone()).collect()
}

/// Seed 004's methods (with GIF-MCTS's ablations) on every bundled task, read at 10 and 20 calls.
pub fn bundled_bench(scale: Scale) -> BenchSpec {
    let budgets = vec![10, TABLE_1_BUDGET];
    BenchSpec::new(methods(MethodSpec::SEED_004), budgets, seeds(scale), bundled_tasks(), SearchSpec::default())
}

/// The table of [`bundled_bench`]'s rows.
pub fn bundled_table(scale: Scale, rows: &[BenchRow]) -> Table {
    let table_rows = MethodSpec::SEED_004
        .iter()
        .map(|&name| {
            let mut row = vec![label(name).to_owned()];
            for budget in [10, TABLE_1_BUDGET] {
                let cell = cell(rows, name, budget);
                row.extend([score(cell), percent(cell.solved_fraction)]);
            }
            row.push(table_1_cell(name));
            row
        })
        .collect();
    Table {
        id: "search-bundled",
        made_by: format!(
            "`{}`: the {} bundled tasks × seeds 1–{}, the simulated LLM at its default odds, mean best score ± \
             standard error and the share solved; compared with Table 1 (APPS competition, Llama 3 70B, strict \
             accuracy at {TABLE_1_BUDGET} calls): a different quantity.",
            scale.command(GROUP),
            bundled_tasks().len(),
            seeds(scale).len()
        ),
        header: ["simulated LLM, default odds", "budget 10", "solved", "budget 20", "solved", "Table 1, 20 calls"]
            .map(str::to_owned)
            .to_vec(),
        rows: table_rows,
    }
}

/// The three methods at 20 calls under each other setting of the simulated LLM, by label.
pub fn odds_benches(scale: Scale) -> Vec<(&'static str, BenchSpec)> {
    let odds = |name: &str, value: &str| {
        crate::params::apply(&SimulatedLlmParams::default(), &[format!("{name}={value}")]).expect("a known setting")
    };
    let settings = [
        (
            "improve does not localise (`improve_localises=false`)",
            SearchSpec { simulated_llm: odds("improve_localises", "false"), ..SearchSpec::default() },
        ),
        (
            "improve_repairs 0.15",
            SearchSpec { simulated_llm: odds("improve_repairs", "0.15"), ..SearchSpec::default() },
        ),
        ("without autopep8 (`--no-autopep8`)", SearchSpec { autopep8: false, ..SearchSpec::default() }),
    ];
    settings
        .into_iter()
        .map(|(label, template)| {
            (label, BenchSpec::new(methods(&COMPARED), vec![TABLE_1_BUDGET], seeds(scale), bundled_tasks(), template))
        })
        .collect()
}

/// The odds table: [`bundled_bench`]'s rows, then each of [`odds_benches`]' by its label.
pub fn odds_table(scale: Scale, default: &[BenchRow], others: &[(&str, Vec<BenchRow>)]) -> Table {
    let ranked = |label: &str, rows: &[BenchRow]| {
        let mut row = vec![label.to_owned()];
        row.extend(COMPARED.map(|name| {
            let cell = cell(rows, name, TABLE_1_BUDGET);
            format!("{}, {} solved", score(cell), percent(cell.solved_fraction))
        }));
        let [gif, world_coder] =
            ["gif-mcts", "worldcoder"].map(|name| cell(rows, name, TABLE_1_BUDGET).mean_best_score);
        row.push(if gif > world_coder { "GIF-MCTS" } else { "WorldCoder" }.to_owned());
        row
    };
    let mut rows = vec![ranked("default odds", default)];
    rows.extend(others.iter().map(|(label, rows)| ranked(label, rows)));
    Table {
        id: "search-odds",
        made_by: format!(
            "`{}`: the same searches at {TABLE_1_BUDGET} calls, seeds 1–{}, under other odds of the simulated \
             LLM, mean best score ± standard error and the share solved; no counterpart in the paper.",
            scale.command(GROUP),
            seeds(scale).len()
        ),
        header: ["simulated LLM", "GIF-MCTS", "WorldCoder", "zero-shot CoT", "the better search"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    }
}

/// GIF-MCTS and WorldCoder on `env`'s world model, read at 10 and 50 calls.
pub fn world_model_bench(scale: Scale, env: GymId) -> BenchSpec {
    let tasks = vec![env.name().to_owned()];
    BenchSpec::new(
        methods(&WORLD_MODEL_METHODS),
        WORLD_MODEL_BUDGETS.to_vec(),
        seeds(scale),
        tasks,
        SearchSpec::default(),
    )
}

/// The environments in the table's order (the paper's).
pub fn world_model_environments() -> Vec<GymId> {
    paper_environments()
}

/// The accuracy table, from each environment's [`world_model_bench`] rows.
pub fn world_model_table(scale: Scale, rows: &[(GymId, Vec<BenchRow>)]) -> Table {
    let table_rows = rows
        .iter()
        .map(|(env, rows)| {
            let mut row = vec![env.name().to_owned()];
            for budget in WORLD_MODEL_BUDGETS {
                row.extend(WORLD_MODEL_METHODS.map(|name| score(cell(rows, name, budget))));
            }
            let paper = paper_results(*env);
            row.push(format!("{:.2} / {:.2}", paper[2].accuracy, paper[3].accuracy));
            row.push(format!("{:.2} / {:.2}", paper[0].accuracy, paper[1].accuracy));
            row
        })
        .collect();
    Table {
        id: "cwm-accuracy",
        made_by: format!(
            "`{}`: the simulated LLM (the banks of `tasks/world_models/`, default odds), the dataset of seed 0, seeds \
             1–{}, mean best accuracy (official rule) ± standard error; compared with Tables 9 and 10 (real LLMs, one \
             search per environment): different quantities.",
            scale.command(WORLD_MODELS_GROUP),
            seeds(scale).len()
        ),
        header: [
            "environment",
            "GIF-MCTS, 10 calls",
            "WorldCoder, 10",
            "GIF-MCTS, 50",
            "WorldCoder, 50",
            "paper GIF / WC (GPT-4, 10)",
            "paper GIF / WC (Llama, 50)",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows: table_rows,
    }
}
