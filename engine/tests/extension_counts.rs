//! docs/architecture.md says how many Rust files adding each kind of thing touches ("Adding to the
//! playground"). This test counts them in the code, for every existing variant of each kind, and
//! checks the docs' number against the costliest: the files whose code (comments and inline tests
//! aside) names the variant, with its own file and any file the kind needs besides (a `mod` line).
//! Test files (declared under `#[cfg(test)]`) are left out, whatever their name.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

mod source;

use source::{code_lines, rust_files, test_files};

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
    let tests = test_files(&files);
    for file in files {
        if tests.contains(&file) {
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

/// The variants of `enum_name` in `file` (relative to the repository), as written.
fn variants(file: &str, enum_name: &str) -> Vec<String> {
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file)).unwrap();
    let body = text.split(&format!("pub enum {enum_name} {{")).nth(1).expect("the enum").split("\n}").next().unwrap();
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with("#["))
        .map(|l| l.chars().take_while(|c| c.is_alphanumeric()).collect::<String>())
        .collect()
}

/// `QThompson` → `q_thompson`.
fn snake(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// A variant's own file: `<folder>/<snake>.rs`, or its folder's `mod.rs`.
fn own_file(folder: &str, variant: &str) -> String {
    let name = snake(variant);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match root.join(format!("{folder}/{name}.rs")).is_file() {
        true => format!("{folder}/{name}.rs"),
        false => format!("{folder}/{name}/mod.rs"),
    }
}

/// The files that adding the costliest variant of a kind touched: each variant's own files and
/// the files naming it, counted for every variant.
fn costliest(each: impl IntoIterator<Item = BTreeSet<String>>) -> BTreeSet<String> {
    each.into_iter().max_by_key(BTreeSet::len).expect("a kind has variants")
}

#[test]
fn the_docs_count_the_files_that_adding_each_kind_of_thing_touches() {
    let agents = variants("engine/src/agents/mod.rs", "AgentId");
    let envs: Vec<String> = variants("engine/src/env/mod.rs", "EnvId").into_iter().filter(|v| v != "Gym").collect();
    let lives = variants("engine/src/env/live_rules.rs", "AnyLiveRules");
    let methods = variants("engine/src/search/spec.rs", "MethodSpec");
    let panes = variants("engine/src/share/teaching.rs", "Pane");
    assert!(agents.len() >= 4 && envs.len() >= 3 && lives.len() >= 2 && methods.len() >= 5 && panes.len() >= 7);
    let kinds: [(&str, BTreeSet<String>); 8] = [
        (
            "An agent",
            costliest(agents.iter().map(|v| {
                let paths = [format!("AgentId::{v}"), format!("AgentSpec::{v}"), format!("AnyAgent::{v}")];
                beside_reproductions(touched(
                    &paths.each_ref().map(String::as_str),
                    &[&own_file("engine/src/agents", v)],
                ))
            })),
        ),
        (
            "An environment",
            costliest(envs.iter().map(|v| {
                let paths = [format!("EnvId::{v}"), format!("EnvSpec::{v}"), format!("AnyEnv::{v}")];
                let own = own_file("engine/src/env", v);
                beside_reproductions(touched(&paths.each_ref().map(String::as_str), &[&own]))
                    .into_iter()
                    .filter(|f| !f.ends_with("/live.rs"))
                    .collect()
            })),
        ),
        (
            "A live mode",
            costliest(lives.iter().map(|v| {
                let paths = [format!("AnyLiveRules::{v}"), format!("{v}Live")];
                let own = format!("engine/src/env/{}/live.rs", snake(v));
                touched(&paths.each_ref().map(String::as_str), &[&own, "engine/src/prompts.rs"])
            })),
        ),
        (
            "A Gymnasium environment",
            costliest(gymnasium_variants().iter().map(|v| {
                let paths = [format!("GymId::{v}"), format!("GymEnv::{v}"), format!("{}::{v}", snake(v))];
                touched(
                    &paths.each_ref().map(String::as_str),
                    &[&own_file("engine/src/gym", v), "engine/src/gym/mod.rs"],
                )
            })),
        ),
        (
            "A search method",
            costliest(methods.iter().map(|v| {
                let paths = [format!("MethodSpec::{v}"), format!("AnyMethod::{v}")];
                let own = own_file("engine/src/search/methods", v);
                touched(&paths.each_ref().map(String::as_str), &[&own, "engine/src/search/methods/mod.rs"])
            })),
        ),
        (
            "A pane",
            costliest(panes.iter().map(|v| {
                // The pane's own folder counts once, as its `mod.rs`: its parts are the pane.
                let own = format!("src/{}/", v.to_lowercase());
                let files = touched(&[&format!("Pane::{v}")], &[&format!("{own}mod.rs"), "src/main.rs"]);
                files.into_iter().filter(|f| !f.starts_with(&own) || f.ends_with("/mod.rs")).collect()
            })),
        ),
        (
            "An LLM provider",
            costliest(["\"openrouter\"", "\"openai\"", "\"ollama\"", "\"lmstudio\""].map(|id| touched(&[id], &[]))),
        ),
        ("An LLM source", touched(&["LlmSource::InTab", "Llm::InTab"], &[])),
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
