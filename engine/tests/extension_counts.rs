//! docs/architecture.md says how many Rust files adding each kind of thing touches ("Adding to the
//! playground"). This test counts them in the code, for one existing example of each kind: the
//! files whose code (comments and inline tests aside) names the example's variant, with its own
//! file and any file the kind needs besides (a `mod` line), and checks the docs' number.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

mod source;

use source::{code_lines, rust_files};

/// Code lines of a file: before its inline tests, without comment lines.
fn code(text: &str) -> String {
    code_lines(text).into_iter().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Whether `text` names `path` as a whole word (`GymId::Taxi`, not `GymId::TaxiV2`).
fn names(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(at, _)| {
        !text[at + path.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            && !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
    })
}

/// The Rust files beneath the engine, the CLI, the page and the worker whose code names any of
/// `paths`, with `own` (relative to the repository) added.
fn touched(paths: &[&str], own: &[&str]) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for folder in ["engine/src", "cli/src", "src", "worker"] {
        rust_files(&root.join(folder), &mut files);
    }
    let mut found: BTreeSet<String> = own.iter().map(|f| f.to_string()).collect();
    for file in files {
        let stem = file.file_stem().expect("a name").to_string_lossy().into_owned();
        if stem == "tests" || stem.ends_with("_tests") {
            continue;
        }
        let text = code(&fs::read_to_string(&file).expect("a source file"));
        if paths.iter().any(|path| names(&text, path)) {
            found.insert(file.strip_prefix(&root).expect("beneath the root").display().to_string());
        }
    }
    found
}

/// The number the docs give after `**{kind}** (`, if they give one.
fn documented(kind: &str) -> Option<usize> {
    let docs = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md")).unwrap();
    let marker = format!("**{kind}** (");
    let at = docs.find(&marker)?;
    docs[at + marker.len()..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// Without the reproductions, which name the report's own environment and agents (seed 003's
/// tables are the orchestrator's, with q-thompson): a new agent or environment touches none of them.
fn beside_reproductions(files: BTreeSet<String>) -> BTreeSet<String> {
    files.into_iter().filter(|f| !f.starts_with("engine/src/reproduce/")).collect()
}

#[test]
fn the_docs_count_the_files_that_adding_each_kind_of_thing_touches() {
    let kinds: [(&str, BTreeSet<String>); 7] = [
        (
            "An agent",
            beside_reproductions(touched(&["AgentId::QThompson", "AgentSpec::QThompson", "AnyAgent::QThompson"], &[])),
        ),
        (
            "An environment",
            beside_reproductions(touched(
                &["EnvId::Orchestrator", "EnvSpec::Orchestrator", "AnyEnv::Orchestrator"],
                &[],
            ))
            .into_iter()
            .filter(|f| !f.ends_with("/live.rs"))
            .collect(),
        ),
        ("A live mode", touched(&["AnyLiveRules::Orchestrator", "OrchestratorLive"], &["engine/src/prompts.rs"])),
        (
            "A Gymnasium environment",
            touched(&["GymId::Taxi", "GymEnv::Taxi", "taxi::Taxi"], &["engine/src/gym/taxi.rs"]),
        ),
        (
            "A search method",
            touched(
                &["MethodSpec::ZeroShot", "AnyMethod::ZeroShot"],
                &["engine/src/search/zero_shot.rs", "engine/src/search/mod.rs"],
            ),
        ),
        ("A pane", touched(&["Pane::About"], &["src/about/mod.rs"])),
        ("An LLM provider", touched(&["\"lmstudio\""], &[])),
    ];
    let wrong: Vec<String> = kinds
        .iter()
        .filter(|(kind, files)| documented(kind) != Some(files.len()))
        .map(|(kind, files)| {
            format!("{kind}: the docs say {:?}, the code touches {}: {files:?}", documented(kind), files.len())
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The Gymnasium environments' variants, from their list in `gym/mod.rs`.
fn gymnasium_variants() -> Vec<String> {
    let list = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gym/mod.rs")).unwrap();
    let body = list.split("\ngymnasium_environments! {\n").nth(1).expect("the list").split('}').next().unwrap();
    body.lines().filter_map(|line| line.split_once(" => ")).map(|(variant, _)| variant.trim().to_owned()).collect()
}

/// Every fact of a Gymnasium environment is in its own file, read through the list: no other code
/// matches on, or names, one environment's variant (a test may).
#[test]
fn no_code_names_one_gymnasium_environment_outside_its_list() {
    let variants = gymnasium_variants();
    assert_eq!(variants.len(), 6, "{variants:?}");
    let paths: Vec<String> = variants
        .iter()
        .flat_map(|v| [format!("GymId::{v}"), format!("GymEnv::{v}"), format!("EnvId::Gym(GymId::{v})")])
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert_eq!(touched(&paths, &[]), BTreeSet::new());
}
