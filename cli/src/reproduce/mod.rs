//! `rlcg reproduce`: every generated table of `docs/reproductions.md`, regenerated from the engine
//! and printed in the same Markdown. Each table sits in the docs between
//! `<!-- reproduce: ID -->` and `<!-- /reproduce -->`, under a line that says the command that made
//! it, its seeds and settings, and what it is compared with in the paper. `--check FILE` lists every
//! cell that differs from FILE's, `--write FILE` replaces FILE's tables with the new ones, and
//! `--quick` runs a reduced version whose figures are pinned in `docs/reproductions-quick.md`.

use std::path::PathBuf;

use engine::reproduce::{Scale, Table, blocks, orchestrator};

use crate::common::{Failure, io_failure, read_text, usage};

mod code_model_table;
mod live_tables;
mod planning_table;
mod search_tables;
mod stepcoder_table;

/// The groups of tables, in the docs' order: each name and what makes its tables.
type Generator = fn(Scale, Option<usize>) -> Result<Vec<Table>, Failure>;
const GROUPS: [(&str, Generator); 11] = [
    (orchestrator::GROUP, |scale, _| orchestrator::run_tables(scale).map_err(usage)),
    ("seed003-live", live_tables::tables),
    ("search", search_tables::search),
    ("world-models", search_tables::world_models),
    ("cheating", search_tables::cheating),
    ("lats", search_tables::lats),
    ("planning", planning_table::tables),
    ("planning-python", planning_table::python_tables),
    ("stepcoder", stepcoder_table::tables),
    ("code-model", code_model_table::tables),
    ("code-model-ppo", code_model_table::ppo_tables),
];

#[derive(clap::Args)]
pub struct ReproduceArgs {
    /// Groups of tables, comma-separated (default: all): seed003, seed003-live, search,
    /// world-models, cheating, lats, planning, planning-python, stepcoder, code-model,
    /// code-model-ppo.
    #[arg(long)]
    only: Option<String>,
    /// Fewer seeds and episodes (a few minutes); compare with `docs/reproductions-quick.md`.
    #[arg(long)]
    quick: bool,
    /// List every cell that differs from FILE's tables (e.g. docs/reproductions.md); exit 1 if any.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
    /// Replace FILE's tables with the ones made now.
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
    /// Processes in parallel (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Print one JSON object, `{tables, differences}`, as the last line of stdout.
    #[arg(long)]
    json: bool,
}

pub fn reproduce(args: &ReproduceArgs) -> Result<(), Failure> {
    let scale = if args.quick { Scale::Quick } else { Scale::Full };
    let names: Vec<&str> = GROUPS.iter().map(|(name, _)| *name).collect();
    let chosen: Vec<&str> = match &args.only {
        None => names.clone(),
        Some(list) => list.split(',').map(str::trim).collect(),
    };
    if let Some(unknown) = chosen.iter().find(|c| !names.contains(c)) {
        return Err(usage(format!("--only: no group '{unknown}'; the groups are {}", names.join(", "))));
    }
    // Both files are read before the run, so that a wrong path costs nothing; the tables are
    // printed before the file is written, so that a file without a table's markers loses none.
    let checked = args.check.as_deref().map(read_text).transpose()?;
    let written = args.write.as_deref().map(read_text).transpose()?;
    let mut tables = Vec::new();
    for (name, generate) in GROUPS.iter().filter(|(name, _)| chosen.contains(name)) {
        eprintln!("{}", scale.command(name));
        tables.extend(generate(scale, args.jobs)?);
    }
    for table in &tables {
        println!("{}\n", table.markdown());
    }
    let differences = checked.map_or_else(Vec::new, |text| blocks::differences(&text, &tables));
    if let (Some(path), Some(text)) = (&args.write, written) {
        let replaced = blocks::replaced(&text, &tables).map_err(usage)?;
        std::fs::write(path, replaced).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
    }
    if let Some(path) = &args.check {
        match differences.len() {
            0 => println!("No difference from {} in {} table(s).", path.display(), tables.len()),
            n => println!("{n} difference(s) from {}:\n{}", path.display(), differences.join("\n")),
        }
    }
    if args.json {
        println!("{}", serde_json::json!({ "tables": tables, "differences": differences }));
    }
    if differences.is_empty() {
        Ok(())
    } else {
        Err(Failure { code: 1, message: format!("{} cell(s) differ", differences.len()) })
    }
}
