//! The module graphs of the engine (`engine/src`) and of the page (`src/`) have no cycle, and the
//! page's panes do not import each other, as docs/architecture.md says: each file's `crate::` paths (outside comments) name the top-level
//! modules it uses, and a name that the crate root re-exports counts as its module. Tests are not
//! layers (a test may build its fixtures from above): test files and what follows `#[cfg(test)]`
//! are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Names the root file re-exports (`pub use module::{A, B};`), by name.
fn re_exports(root_file: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in root_file.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let Some((module, items)) = rest.split_once("::") else { continue };
        for item in items.trim_end_matches(';').trim_matches(|c| c == '{' || c == '}').split(',') {
            names.insert(item.trim().to_owned(), module.to_owned());
        }
    }
    names
}

/// The identifiers after each `crate::` in `line`: one, or each of a `{…}` group's.
fn crate_paths(line: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut found = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        let rest = &line[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                found.extend(group.split('}').next().unwrap_or_default().split(',').map(|i| ident(i.trim())))
            }
            None => found.push(ident(rest)),
        }
    }
    found.into_iter().filter(|i| !i.is_empty()).collect()
}

fn graph(src: &Path, root: &str) -> Graph {
    let aliases = re_exports(&fs::read_to_string(src.join(root)).expect("the crate root"));
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("beneath src");
        let first = relative.components().next().expect("a path").as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_owned();
        let name = file.file_stem().expect("a file name").to_string_lossy();
        if format!("{module}.rs") == root || name == "tests" || name.ends_with("_tests") {
            continue;
        }
        let text = fs::read_to_string(&file).expect("a source file");
        for line in text.lines().take_while(|l| l.trim() != "#[cfg(test)]") {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in crate_paths(line) {
                let target = aliases.get(&name).cloned().unwrap_or(name);
                if target != module {
                    graph.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    graph
}

/// Every cycle through a module, as the modules on it.
fn cycles(graph: &Graph) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        let mut stack: Vec<Vec<String>> = vec![vec![start.clone()]];
        let mut seen = BTreeSet::new();
        while let Some(path) = stack.pop() {
            let last = path.last().expect("a path").clone();
            for next in graph.get(&last).into_iter().flatten() {
                if next == start {
                    let mut cycle = path.clone();
                    cycle.push(start.clone());
                    found.insert(cycle);
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
    }
    found
}

#[test]
fn the_engine_has_no_module_cycle() {
    let graph = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), "lib.rs");
    assert!(graph.get("python").is_none_or(|uses| !uses.contains("cwm")), "the Python protocol stays below cwm");
    assert_eq!(cycles(&graph), BTreeSet::new());
}

#[test]
fn the_page_has_no_module_cycle() {
    let graph = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../src"), "main.rs");
    assert_eq!(cycles(&graph), BTreeSet::new());
}

/// The page's panes stand side by side: a pane's folder uses the services and widgets beneath all
/// panes, never another pane's folder.
#[test]
fn no_pane_imports_another_pane() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let graph = graph(&src, "main.rs");
    let panes: BTreeSet<String> = fs::read_dir(&src)
        .expect("the page's source")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().expect("a name").to_string_lossy().into_owned())
        .filter(|folder| !["services", "widgets"].contains(&folder.as_str()))
        .collect();
    assert!(panes.contains("search") && panes.contains("train"), "the panes are read: {panes:?}");
    let crossings: Vec<(&String, &String)> = panes
        .iter()
        .flat_map(|pane| {
            graph.get(pane).into_iter().flatten().filter(|used| panes.contains(*used)).map(move |used| (pane, used))
        })
        .collect();
    assert_eq!(crossings, Vec::<(&String, &String)>::new(), "a pane imports another pane");
}

#[test]
fn the_reader_sees_groups_re_exports_and_a_cycle() {
    assert_eq!(crate_paths("use crate::{download, upload};"), ["download", "upload"]);
    assert_eq!(crate_paths("let x = crate::rng::planning_rngs(1, 2);"), ["rng"]);
    assert_eq!(re_exports("pub use rng::RunRng;\npub use run::{Run, RunSpec};")["RunSpec"], "run");
    let graph: Graph =
        [("a", "b"), ("b", "a")].iter().map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()]))).collect();
    assert_eq!(cycles(&graph).len(), 2);
}
