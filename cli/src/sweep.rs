//! `rlcg sweep`: a grid of any `rlcg` command's parameters (seeds, environments, agents, methods,
//! budgets, tasks), expanded into numbered cells, each one run of `rlcg … --json` in a process of
//! its own. The cells run here (`--jobs` at a time), or one per machine: `--index I`, or the index
//! a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`) or a Slurm array (`SLURM_ARRAY_TASK_ID`) sets,
//! for which `--emit k8s|slurm` writes the job. `rlcg sweep merge DIR` joins the cells' results
//! into one table: per cell of the grid without its seeds, the mean of every number in the
//! results with its 95% interval over seeds (Student's t), as text, JSON or CSV.
//!
//! A sweep file:
//!
//! ```json
//! { "command": ["train", "--env", "orchestrator", "--episodes", "500"],
//!   "grid": { "--agent": ["q-learning", "thompson-sampling"], "--seed": [1, 2, 3] } }
//! ```
//!
//! The grid's parameters are taken in name order, the last varying fastest: cell 0 is
//! `--agent q-learning --seed 1`, cell 1 `--agent q-learning --seed 2`, and so on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use engine::effects::PYTHON_COULD_NOT_RUN;
use engine::stepcoder::ablation::mean_interval;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::common::{Failure, io_failure, jobs_or_cores, progress_bar, read_text, side_by_side, usage};

/// The environment variables that carry a cell's index on a cluster, in the order they are read.
pub const INDEX_VARIABLES: [&str; 2] = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"];
/// The grid parameter that the merge averages over.
const SEED: &str = "--seed";

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    /// The sweep file (JSON: `command`, the `rlcg` command and its fixed arguments; `grid`, each
    /// parameter's values).
    #[arg(required = true)]
    file: Option<PathBuf>,
    /// Run only cell I (from 0); without it, the index in JOB_COMPLETION_INDEX or
    /// SLURM_ARRAY_TASK_ID when one is set, else every cell.
    #[arg(long)]
    index: Option<usize>,
    /// Print the job that runs every cell on a cluster, one cell per task, instead of running.
    #[arg(long, value_parser = ["k8s", "slurm"])]
    emit: Option<String>,
    /// Cells run side by side here (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Where each cell's result is written, as cell-I.json.
    #[arg(long, default_value = "sweep-results")]
    out: PathBuf,
}

#[derive(clap::Subcommand)]
enum SweepCommand {
    /// Join the cells' results in DIR into one table: means and 95% intervals over seeds.
    Merge {
        dir: PathBuf,
        /// Write the table as CSV to this file too.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Print the table as one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// A sweep file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sweep {
    command: Vec<String>,
    grid: BTreeMap<String, Vec<Value>>,
}

/// One cell's result, as written to `cell-I.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Cell {
    index: usize,
    /// The grid's parameters of this cell, by name.
    params: BTreeMap<String, String>,
    /// What `rlcg … --json` printed.
    result: Value,
}

/// A parameter's value as a command-line argument.
fn argument(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

impl Sweep {
    fn read(path: &Path) -> Result<Self, Failure> {
        let text = read_text(path)?;
        let sweep: Self = serde_json::from_str(&text).map_err(|e| {
            usage(format!("{}: not a sweep file (line {}, column {}): {e}", path.display(), e.line(), e.column()))
        })?;
        if sweep.command.is_empty() {
            return Err(usage(format!("{}: `command` names no rlcg command", path.display())));
        }
        if sweep.command[0] == "sweep" {
            return Err(usage(format!("{}: a sweep cannot run sweeps", path.display())));
        }
        if let Some((name, _)) = sweep.grid.iter().find(|(name, values)| !name.starts_with("--") || values.is_empty()) {
            return Err(usage(format!(
                "{}: grid parameter `{name}` must be an option (--name) with at least one value",
                path.display()
            )));
        }
        Ok(sweep)
    }

    fn cells(&self) -> usize {
        self.grid.values().map(Vec::len).product()
    }

    /// Cell `index`'s parameters: the last parameter varies fastest.
    fn params(&self, index: usize) -> BTreeMap<String, String> {
        let mut rest = index;
        let mut params = BTreeMap::new();
        for (name, values) in self.grid.iter().rev() {
            params.insert(name.clone(), argument(&values[rest % values.len()]));
            rest /= values.len();
        }
        params
    }

    /// Runs cell `index` as `rlcg … --json` in a process of its own.
    fn run(&self, index: usize) -> Result<Cell, String> {
        let params = self.params(index);
        let mut args = self.command.clone();
        for (name, value) in &params {
            args.extend([name.clone(), value.clone()]);
        }
        args.push("--json".into());
        let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
        let output = Command::new(exe).args(&args).output().map_err(|e| format!("cell {index}: {e}"))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("cell {index} (rlcg {}) failed: {}", args.join(" "), stderr.trim()));
        }
        let last = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
        let result = serde_json::from_str(last).map_err(|e| format!("cell {index} printed no JSON: {e}"))?;
        Ok(Cell { index, params, result })
    }

    /// A Kubernetes Indexed Job or a Slurm array script that runs every cell of `file`.
    fn emit(&self, file: &Path, kind: &str, out: &Path) -> String {
        let last = self.cells() - 1;
        let (file, out) = (file.display(), out.display());
        match kind {
            "k8s" => format!(
                "# One pod per cell; each runs `rlcg sweep` with its index (JOB_COMPLETION_INDEX). The\n\
                 # image must hold rlcg and the sweep file, and {out} should be a shared volume.\n\
                 apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: rlcg-sweep\nspec:\n  completions: {}\n  \
                 parallelism: {}\n  completionMode: Indexed\n  template:\n    spec:\n      restartPolicy: Never\n      \
                 containers:\n        - name: rlcg\n          image: rlcg:latest\n          \
                 command: [\"rlcg\", \"sweep\", \"{file}\", \"--out\", \"{out}\"]\n",
                last + 1,
                (last + 1).min(16)
            ),
            _ => format!(
                "#!/bin/bash\n# One array task per cell; each runs `rlcg sweep` with its index (SLURM_ARRAY_TASK_ID).\n\
                 #SBATCH --job-name=rlcg-sweep\n#SBATCH --array=0-{last}\n#SBATCH --cpus-per-task=1\n\
                 rlcg sweep {file} --out {out}\n"
            ),
        }
    }
}

pub fn sweep(args: &SweepArgs) -> Result<(), Failure> {
    if let Some(SweepCommand::Merge { dir, csv, json }) = &args.command {
        return merge(dir, csv.as_deref(), *json);
    }
    let file = args.file.as_ref().ok_or_else(|| usage("give a sweep file"))?;
    let sweep = Sweep::read(file)?;
    if let Some(kind) = &args.emit {
        print!("{}", sweep.emit(file, kind, &args.out));
        return Ok(());
    }
    std::fs::create_dir_all(&args.out).map_err(|e| io_failure(format!("{}: {e}", args.out.display())))?;
    let index = match args.index {
        Some(index) => Some(index),
        None => INDEX_VARIABLES
            .iter()
            .find_map(|name| std::env::var(name).ok().map(|v| (name, v)))
            .map(|(name, value)| value.trim().parse().map_err(|_| usage(format!("{name}={value} is not an index"))))
            .transpose()?,
    };
    match index {
        Some(index) if index >= sweep.cells() => {
            Err(usage(format!("cell {index} is not in the sweep: it has cells 0 to {}", sweep.cells() - 1)))
        }
        Some(index) => {
            let cell = sweep.run(index).map_err(io_failure)?;
            keep(&args.out, &cell)?;
            println!("{}", serde_json::to_string(&cell).expect("cells serialise"));
            Ok(())
        }
        None => run_all(&sweep, args.jobs, &args.out),
    }
}

fn keep(out: &Path, cell: &Cell) -> Result<(), Failure> {
    let path = out.join(format!("cell-{}.json", cell.index));
    std::fs::write(&path, serde_json::to_string(cell).expect("cells serialise"))
        .map_err(|e| io_failure(format!("{}: {e}", path.display())))
}

/// Every cell here, `jobs` processes at a time, then the merged table.
fn run_all(sweep: &Sweep, jobs: Option<usize>, out: &Path) -> Result<(), Failure> {
    let jobs = jobs_or_cores(jobs);
    let bar = progress_bar(sweep.cells() as u64, "cells");
    let cells: Vec<usize> = (0..sweep.cells()).collect();
    let kept = side_by_side(&cells, jobs, |&index| {
        let kept = sweep.run(index).map_err(io_failure).and_then(|cell| keep(out, &cell));
        bar.inc(1);
        kept
    });
    bar.finish_and_clear();
    if let Some(failure) = kept.into_iter().find_map(Result::err) {
        return Err(failure);
    }
    merge(out, None, false)
}

/// One row of the merged table: a cell of the grid without its seeds, and per number in the
/// results its mean and 95% interval over the seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Row {
    params: BTreeMap<String, String>,
    seeds: usize,
    /// By the number's path in the result (`greedy.success_rate`): mean, low, high.
    values: BTreeMap<String, (f64, f64, f64)>,
}

/// Every number in `value`, by its dotted path. Of arrays, only objects count (a curve of numbers
/// is not a result to average), each named by its `method` (and `@budget` when it has one), as the
/// rows of `search-bench` and `cheat-rate` are, else by its index: `cheating.zero-shot.rate`,
/// `rows.gif-mcts@20.mean_best_score`.
fn numbers(value: &Value, path: &str, into: &mut BTreeMap<String, f64>) {
    let join = |name: &str| if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") };
    match value {
        Value::Number(n) => {
            into.insert(path.to_owned(), n.as_f64().unwrap_or(f64::NAN));
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                numbers(field, &join(name), into);
            }
        }
        Value::Array(elements) => {
            for (index, element) in elements.iter().enumerate().filter(|(_, e)| e.is_object()) {
                let name = match (element.get("method").and_then(Value::as_str), element.get("budget")) {
                    (Some(method), Some(budget)) => format!("{method}@{budget}"),
                    (Some(method), None) => method.to_owned(),
                    (None, _) => index.to_string(),
                };
                numbers(element, &join(&name), into);
            }
        }
        _ => {}
    }
}

fn rows(cells: &[Cell]) -> Vec<Row> {
    let mut groups: BTreeMap<BTreeMap<String, String>, Vec<&Cell>> = BTreeMap::new();
    for cell in cells {
        let mut key = cell.params.clone();
        key.remove(SEED);
        groups.entry(key).or_default().push(cell);
    }
    groups
        .into_iter()
        .map(|(params, cells)| {
            let mut by_path: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for cell in &cells {
                let mut found = BTreeMap::new();
                numbers(&cell.result, "", &mut found);
                // The seed a result echoes is what the row averages over, not a result.
                found.retain(|path, _| path != "seed" && !path.ends_with(".seed"));
                for (path, value) in found {
                    by_path.entry(path).or_default().push(value);
                }
            }
            let values = by_path.into_iter().map(|(path, values)| (path, mean_interval(&values))).collect();
            Row { params, seeds: cells.len(), values }
        })
        .collect()
}

fn merge(dir: &Path, csv: Option<&Path>, json: bool) -> Result<(), Failure> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_failure(format!("{}: {e}", dir.display())))?;
    let mut cells = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| io_failure(e.to_string()))?.path();
        let is_cell =
            path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("cell-") && n.ends_with(".json"));
        if !is_cell {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
        let cell: Cell =
            serde_json::from_str(&text).map_err(|e| usage(format!("{}: not a sweep cell: {e}", path.display())))?;
        cells.push(cell);
    }
    if cells.is_empty() {
        return Err(usage(format!("{} holds no sweep cells (cell-I.json)", dir.display())));
    }
    cells.sort_by_key(|c| c.index);
    let unrun: Vec<String> =
        cells.iter().filter(|c| python_failed(&c.result)).map(|c| format!("cell-{}", c.index)).collect();
    if !unrun.is_empty() {
        return Err(io_failure(format!(
            "{}: Python could not run the programs of {}; their numbers are not results (run them again)",
            dir.display(),
            unrun.join(", ")
        )));
    }
    let rows = rows(&cells);
    if let Some(path) = csv {
        std::fs::write(path, to_csv(&rows)).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
    }
    if json {
        println!("{}", json!({ "cells": cells.len(), "rows": rows }));
        return Ok(());
    }
    for row in &rows {
        let params: Vec<String> = row.params.iter().map(|(name, value)| format!("{name} {value}")).collect();
        println!("{} ({} seeds)", params.join(" "), row.seeds);
        for (path, (mean, low, high)) in &row.values {
            println!("  {path:<32} {mean:>12.4} [{low:.4}, {high:.4}]");
        }
    }
    Ok(())
}

/// Whether a cell's result says that Python could not run its programs (a cell kept by an `rlcg`
/// that still exited 0 then).
fn python_failed(result: &Value) -> bool {
    match result {
        Value::String(text) => text.starts_with(PYTHON_COULD_NOT_RUN),
        Value::Array(items) => items.iter().any(python_failed),
        Value::Object(fields) => fields.values().any(python_failed),
        _ => false,
    }
}

/// The table as CSV: one line per row and number, with its parameters.
fn to_csv(rows: &[Row]) -> String {
    let names: Vec<&String> = rows.first().map(|r| r.params.keys().collect()).unwrap_or_default();
    let quoted = |text: &str| format!("\"{}\"", text.replace('"', "\"\""));
    let mut csv = names.iter().map(|n| quoted(n.trim_start_matches('-'))).collect::<Vec<_>>();
    csv.extend(["seeds", "value", "mean", "low", "high"].map(str::to_owned));
    let mut lines = vec![csv.join(",")];
    for row in rows {
        for (path, (mean, low, high)) in &row.values {
            let mut line: Vec<String> =
                names.iter().map(|n| quoted(row.params.get(*n).map_or("", String::as_str))).collect();
            line.extend([row.seeds.to_string(), quoted(path), mean.to_string(), low.to_string(), high.to_string()]);
            lines.push(line.join(","));
        }
    }
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep() -> Sweep {
        serde_json::from_value(json!({
            "command": ["train", "--env", "orchestrator"],
            "grid": { "--seed": [1, 2, 3], "--agent": ["q-learning", "thompson-sampling"] }
        }))
        .unwrap()
    }

    #[test]
    fn cells_are_numbered_in_name_order_the_last_varying_fastest() {
        let sweep = sweep();
        assert_eq!(sweep.cells(), 6);
        let params = |i| sweep.params(i).into_values().collect::<Vec<_>>();
        assert_eq!(params(0), ["q-learning", "1"]);
        assert_eq!(params(1), ["q-learning", "2"]);
        assert_eq!(params(3), ["thompson-sampling", "1"]);
        assert_eq!(params(5), ["thompson-sampling", "3"]);
    }

    #[test]
    fn the_merge_averages_over_seeds_with_the_interval_worked_by_hand() {
        let cell = |index, seed: &str, rate: f64| Cell {
            index,
            params: BTreeMap::from([("--agent".into(), "q-learning".into()), (SEED.into(), seed.into())]),
            result: json!({ "greedy": { "success_rate": rate }, "env": "orchestrator", "spec": { "seed": seed.parse::<u64>().unwrap() } }),
        };
        let rows = rows(&[cell(0, "1", 0.8), cell(1, "2", 1.0)]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].values.keys().collect::<Vec<_>>(), ["greedy.success_rate"], "no averaged seed");
        let (mean, low, high) = rows[0].values["greedy.success_rate"];
        // Mean 0.9, s = 0.1414, t(0.975, 1) = 12.706: half-width 12.706 · 0.1414 / √2 = 1.2706.
        assert!((mean - 0.9).abs() < 1e-12);
        assert!((high - mean - 1.2706).abs() < 1e-3 && (mean - low - 1.2706).abs() < 1e-3);
        assert_eq!(rows[0].params, BTreeMap::from([("--agent".to_owned(), "q-learning".to_owned())]));
        let csv = to_csv(&rows);
        assert!(
            csv.starts_with("\"agent\",seeds,value,mean,low,high\n\"q-learning\",2,\"greedy.success_rate\",0.9,"),
            "{csv}"
        );
    }

    #[test]
    fn arrays_of_methods_are_merged_by_method_and_budget() {
        let result = json!({
            "rows": [{ "method": "gif-mcts", "budget": 20, "solved_fraction": 0.5 }],
            "cheating": [{ "method": "zero-shot", "variant": "one-off", "rate": 0.25 }],
            "tasks": ["running_max"],
            "curve": [3, 4],
            "pairs": [{ "a": 1 }],
        });
        let mut found = BTreeMap::new();
        numbers(&result, "", &mut found);
        assert_eq!(
            found,
            BTreeMap::from([
                ("cheating.zero-shot.rate".to_owned(), 0.25),
                ("pairs.0.a".to_owned(), 1.0),
                ("rows.gif-mcts@20.budget".to_owned(), 20.0),
                ("rows.gif-mcts@20.solved_fraction".to_owned(), 0.5),
            ]),
            "a list of numbers is not averaged"
        );
    }

    #[test]
    fn the_emitted_jobs_cover_every_cell() {
        let (file, out) = (Path::new("sweep.json"), Path::new("/results"));
        let k8s = sweep().emit(file, "k8s", out);
        assert!(k8s.contains("completions: 6") && k8s.contains("completionMode: Indexed"), "{k8s}");
        let slurm = sweep().emit(file, "slurm", out);
        assert!(
            slurm.contains("#SBATCH --array=0-5") && slurm.contains("rlcg sweep sweep.json --out /results"),
            "{slurm}"
        );
    }
}
