//! `rlcg reproduce`: the quick form of every generated table of docs/reproductions.md, held to its
//! pinned figures, so that a change that moves a reproduction fails here or updates the figures
//! (`rlcg reproduce --quick --write docs/reproductions-quick.md`) and the docs (`rlcg reproduce
//! --write docs/reproductions.md`) in the same commit.

mod common;

use common::{last_json_line, rlcg};

const PINNED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/reproductions-quick.md");

#[test]
fn the_quick_reproductions_match_their_pinned_figures() {
    let output = rlcg(&["reproduce", "--quick", "--check", PINNED, "--json"]);
    let report = last_json_line(&output);
    let differences = report["differences"].as_array().unwrap();
    assert!(differences.is_empty(), "{}", serde_json::to_string_pretty(differences).unwrap());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let ids: Vec<&str> = report["tables"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "seed003-training",
            "seed003-learned-vs-fixed",
            "seed003-validation",
            "seed003-recalibration",
            "search-bundled",
            "search-odds",
            "cwm-accuracy",
            "cheat-rate",
            "held-out",
            "give-up",
            "llm-judge",
            "equal-budget-bundled",
            "equal-budget-humaneval",
            "cwm-planning",
            "cwm-planning-python",
            "stepcoder-ablation",
            "stepcoder-training",
            "stepcoder-per-task",
            "stepcoder-earlier-rollouts",
            "stepcoder-keep-all",
            "code-model",
            "code-model-ppo",
        ]
    );
}

/// Every generated table of the docs is one `rlcg reproduce` makes, and the other way round.
#[test]
fn the_docs_hold_every_generated_table_and_no_other() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/reproductions.md")).unwrap();
    let pinned = std::fs::read_to_string(PINNED).unwrap();
    let ids = |text: &str| -> Vec<String> {
        text.match_indices("<!-- reproduce: ")
            .map(|(at, m)| text[at + m.len()..].split(' ').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&docs), ids(&pinned));
    assert_eq!(docs.matches("<!-- /reproduce -->").count(), ids(&docs).len());
}

/// A cell that differs is named with its table, row and column, and the command exits 1.
#[test]
fn a_changed_cell_is_named_and_fails_the_check() {
    let pinned = std::fs::read_to_string(PINNED).unwrap();
    let changed =
        pinned.replacen("| CliffWalking-v0 | 1 | 10 | −1109.8 |", "| CliffWalking-v0 | 1 | 10 | −1000.0 |", 1);
    assert_ne!(changed, pinned, "the pinned planning table has CliffWalking's random return");
    let path = std::env::temp_dir().join(format!("reproduce-changed-{}.md", std::process::id()));
    std::fs::write(&path, changed).unwrap();
    let output = rlcg(&["reproduce", "--quick", "--only", "planning", "--check", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).ok();
    assert_eq!(output.status.code(), Some(1));
    let report = last_json_line(&output);
    assert_eq!(
        report["differences"],
        serde_json::json!([
            "cwm-planning, row \"CliffWalking-v0\", column \"random\": file \"−1000.0\", now \"−1109.8\""
        ])
    );
}

/// The page's way to run a bench, one search after another as one task with the verdicts kept
/// (`SequentialBench`), makes the very tables the CLI's threads make: the pinned quick ones.
#[test]
fn the_sequential_bench_makes_the_pinned_quick_search_tables() {
    use cli::host::Host;
    use cli::python::NativePython;
    use engine::reproduce::search::{world_model_bench, world_model_table};
    use engine::reproduce::{Scale, blocks, search};
    use engine::search::measures::bench::SequentialBench;

    let run = |spec| {
        let mut bench = SequentialBench::new(spec).unwrap();
        Host::without_llm(&mut NativePython::start().unwrap()).drive(&mut bench, |_| {}).unwrap();
        assert_eq!(bench.error, None);
        assert_eq!(bench.progress().0, bench.progress().1, "every search finished");
        bench.spec.rows(&bench.outcomes)
    };
    let bundled = search::bundled_table(Scale::Quick, &run(search::bundled_bench(Scale::Quick)));
    let world_models: Vec<_> = search::world_model_environments()
        .into_iter()
        .map(|env| (env, run(world_model_bench(Scale::Quick, env))))
        .collect();
    let tables = [bundled, world_model_table(Scale::Quick, &world_models)];
    let differences = blocks::differences(&std::fs::read_to_string(PINNED).unwrap(), &tables);
    assert!(differences.is_empty(), "{differences:#?}");
}
