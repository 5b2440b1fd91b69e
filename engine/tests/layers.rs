//! The module graphs of the engine (`engine/src`) and of the page (`src/`) have no cycle, and the
//! page's panes do not import each other, as docs/architecture.md says: each file's `crate::` paths (outside comments) name the top-level
//! modules it uses, and a name that the crate root re-exports counts as its module. Tests are not
//! layers (a test may build its fixtures from above): test files (those a `#[cfg(test)]` declares,
//! whatever their name) and inline test modules are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

mod source;

use source::{code_lines, rust_files, test_files};

type Graph = BTreeMap<String, BTreeSet<String>>;

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
    let tests = test_files(&files);
    let mut graph = Graph::new();
    for file in files.iter().filter(|f| !tests.contains(*f)) {
        let relative = file.strip_prefix(src).expect("beneath src");
        let first = relative.components().next().expect("a path").as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_owned();
        if format!("{module}.rs") == root {
            continue;
        }
        let text = fs::read_to_string(file).expect("a source file");
        for line in code_lines(&text) {
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

/// The imports of one pane's folder from another's, in the page whose source is `src`: the page's
/// panes stand side by side, using the services and widgets beneath them all.
fn pane_crossings(src: &Path) -> Vec<(String, String)> {
    let graph = graph(src, "main.rs");
    let panes: BTreeSet<String> = fs::read_dir(src)
        .expect("the page's source")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().expect("a name").to_string_lossy().into_owned())
        .filter(|folder| !["services", "widgets"].contains(&folder.as_str()))
        .collect();
    panes
        .iter()
        .flat_map(|pane| {
            let uses = graph.get(pane).cloned().unwrap_or_default();
            uses.into_iter().filter(|used| panes.contains(used)).map(|used| (pane.clone(), used)).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn no_pane_imports_another_pane() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    assert!(src.join("search").is_dir() && src.join("train").is_dir(), "the panes are read");
    assert_eq!(pane_crossings(&src), Vec::<(String, String)>::new(), "a pane imports another pane");
}

/// The paths after each `prefix` (`crate::` or `super::`) in `line`, as segments: one path, or
/// each of a `{…}` group's.
fn paths_after(line: &str, prefix: &str) -> Vec<Vec<String>> {
    let segments = |path: &str| -> Vec<String> {
        path.split("::")
            .map(|s| s.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>())
            .take_while(|s| !s.is_empty())
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in line.match_indices(prefix) {
        if line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &line[at + prefix.len()..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
        let (head, tail) = rest.split_at(end);
        let head: Vec<String> = segments(head.trim_end_matches(':'));
        match tail.strip_prefix('{').filter(|_| head.is_empty() || rest[..end].ends_with("::")) {
            Some(group) => found.extend(group.split('}').next().unwrap_or_default().split(',').map(|item| {
                let mut path = head.clone();
                path.extend(segments(item));
                path
            })),
            None => found.push(head),
        }
    }
    found.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The file that a module path starting in `dir` names: the deepest `<seg>.rs` or `<seg>/mod.rs`
/// the segments reach, and through a folder's re-export (`pub use file::Name;` in its `mod.rs`),
/// the file that defines the name.
fn file_named(dir: &Path, path: &[String]) -> Option<std::path::PathBuf> {
    let (mut dir, mut found) = (dir.to_path_buf(), None);
    for segment in path {
        if dir.join(format!("{segment}.rs")).is_file() {
            return Some(dir.join(format!("{segment}.rs")));
        }
        if let Some(module) = found.as_ref().and_then(|m: &std::path::PathBuf| {
            re_exports(&fs::read_to_string(m).unwrap_or_default()).get(segment).cloned()
        }) {
            return file_named(&dir, &[module]);
        }
        if !dir.join(segment).join("mod.rs").is_file() {
            break;
        }
        dir = dir.join(segment);
        found = Some(dir.join("mod.rs"));
    }
    found
}

/// A crate's files and the files each one uses through `crate::` and `super::` paths, leaving out
/// the folders' `mod.rs` and the crate roots (a folder's registry and shared names stand above its
/// files, not beside them).
fn file_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let tests = test_files(&files);
    let name = |file: &Path| file.strip_prefix(src).expect("beneath src").display().to_string();
    let mut graph = Graph::new();
    for file in files.iter().filter(|f| !tests.contains(*f)) {
        let stem = file.file_stem().expect("a name").to_string_lossy();
        if ["mod", "lib", "main"].contains(&stem.as_ref()) {
            continue;
        }
        let parent = file.parent().expect("a folder");
        let text = fs::read_to_string(file).expect("a source file");
        for line in code_lines(&text).into_iter().filter(|l| !l.trim_start().starts_with("//")) {
            let used = paths_after(line, "crate::")
                .into_iter()
                .filter_map(|path| file_named(src, &path))
                .chain(paths_after(line, "super::").into_iter().filter_map(|path| file_named(parent, &path)));
            for target in used {
                let stem = target.file_stem().expect("a name").to_string_lossy();
                if target != *file && !["mod", "lib", "main"].contains(&stem.as_ref()) {
                    graph.entry(name(file)).or_default().insert(name(&target));
                }
            }
        }
    }
    graph
}

/// No file of the engine, the CLI, the page or the worker imports, through others, a file that
/// imports it back.
#[test]
fn no_file_imports_in_a_loop() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let engine = file_graph(&root.join("engine/src"));
    assert!(engine.get("search/hand_edit.rs").is_some_and(|uses| uses.contains("search/record.rs")), "{engine:?}");
    for folder in ["engine/src", "cli/src", "src", "worker"] {
        assert_eq!(cycles(&file_graph(&root.join(folder))), BTreeSet::new(), "in {folder}");
    }
}

/// Each public type, trait and alias of the engine, the CLI, the page and its worker is defined
/// once: a reader never has to ask which `Progress` a line means.
#[test]
fn each_public_type_name_is_defined_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for folder in ["engine/src", "cli/src", "src", "worker"] {
        rust_files(&root.join(folder), &mut files);
    }
    let mut homes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("a source file");
        for line in code_lines(&text) {
            let line = line.trim_start();
            let Some(rest) = ["pub ", "pub(crate) "].iter().find_map(|p| line.strip_prefix(p)) else { continue };
            let Some((_, after)) = ["struct ", "enum ", "trait ", "type "].iter().find_map(|k| rest.split_once(k))
            else {
                continue;
            };
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            homes
                .entry(name)
                .or_default()
                .push(file.strip_prefix(&root).expect("beneath the root").display().to_string());
        }
    }
    assert!(homes.contains_key("RunSpec") && homes.contains_key("Failure"), "the definitions are read");
    let twice: BTreeMap<&String, &Vec<String>> = homes.iter().filter(|(_, files)| files.len() > 1).collect();
    assert_eq!(twice, BTreeMap::new(), "public type names defined more than once");
}

#[test]
fn the_reader_sees_groups_re_exports_and_a_cycle() {
    assert_eq!(paths_after("use super::{bank::Bank, Score};", "super::"), [vec!["bank", "Bank"], vec!["Score"]]);
    assert_eq!(paths_after("let x = crate::rng::planning_rngs(1);", "crate::"), [vec!["rng", "planning_rngs"]]);
    assert_eq!(
        paths_after("use crate::search::{Search, spec::SearchSpec};", "crate::")[1],
        ["search", "spec", "SearchSpec"]
    );
    assert_eq!(crate_paths("use crate::{download, upload};"), ["download", "upload"]);
    assert_eq!(crate_paths("let x = crate::rng::planning_rngs(1, 2);"), ["rng"]);
    assert_eq!(re_exports("pub use rng::RunRng;\npub use run::{Run, RunSpec};")["RunSpec"], "run");
    let graph: Graph =
        [("a", "b"), ("b", "a")].iter().map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()]))).collect();
    assert_eq!(cycles(&graph).len(), 2);
}

/// A source tree written for one test, from `(path, text)` pairs, in a folder of its own.
fn tree(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rlcg-layers-{name}-{}", std::process::id()));
    drop(fs::remove_dir_all(&dir));
    for (path, text) in files {
        let file = dir.join(path);
        fs::create_dir_all(file.parent().expect("a folder")).expect("a temporary folder");
        fs::write(file, text).expect("a temporary file");
    }
    dir
}

/// The guards fail on what they guard: a pane importing a pane, two files importing each other
/// (one through a folder's re-export), and a product file that only its name calls a test.
#[test]
fn the_guards_catch_an_injected_crossing_loop_and_test_named_product_file() {
    let page = tree(
        "panes",
        &[
            ("main.rs", "mod live;\nmod search;\nmod services;\n"),
            ("live/mod.rs", "use crate::services::host::drive;\n"),
            ("search/mod.rs", "use crate::live::LivePanel;\n"),
            ("services/mod.rs", "pub mod host;\n"),
            ("services/host.rs", "pub fn drive() {}\n"),
        ],
    );
    assert_eq!(pane_crossings(&page), [("search".to_owned(), "live".to_owned())]);

    let through_re_export = tree(
        "loop",
        &[
            ("lib.rs", "pub mod x;\n"),
            ("x/mod.rs", "mod one;\nmod two;\npub use two::Two;\n"),
            ("x/one.rs", "use crate::x::Two;\npub struct One;\n"),
            ("x/two.rs", "use super::one::One;\npub struct Two;\n"),
        ],
    );
    assert_eq!(cycles(&file_graph(&through_re_export)).len(), 2, "{:?}", file_graph(&through_re_export));

    let named_like_a_test = tree(
        "named",
        &[
            ("lib.rs", "mod helper_tests;\nmod user;\n#[cfg(test)]\nmod tests;\n"),
            ("helper_tests.rs", "use crate::user::User;\npub struct Helper;\n"),
            ("user.rs", "use crate::helper_tests::Helper;\npub struct User;\n"),
            ("tests.rs", "use crate::user::User;\n"),
        ],
    );
    let mut files = Vec::new();
    rust_files(&named_like_a_test, &mut files);
    assert_eq!(test_files(&files), BTreeSet::from([named_like_a_test.join("tests.rs")]));
    assert_eq!(cycles(&file_graph(&named_like_a_test)).len(), 2, "a product file named *_tests.rs is read");
    for dir in [page, through_re_export, named_like_a_test] {
        drop(fs::remove_dir_all(dir));
    }
}

/// docs/architecture.md's page layout names every file of the page: each file by its name, each
/// folder's `mod.rs` by the folder.
#[test]
fn the_page_layout_in_the_docs_names_every_page_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let docs = fs::read_to_string(root.join("docs/architecture.md")).expect("the architecture docs");
    let section = docs.split("## The page (`src/`)").nth(1).expect("the page's section");
    let section = section.split("\n## ").next().expect("its end");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let unnamed: Vec<String> = files
        .iter()
        .filter(|file| {
            let name = file.file_name().expect("a name").to_string_lossy().into_owned();
            let folder = file.parent().and_then(Path::file_name).expect("a folder").to_string_lossy().into_owned();
            match name.as_str() {
                "mod.rs" => !section.contains(&format!("{folder}/")),
                _ => !section.contains(&name),
            }
        })
        .map(|file| file.strip_prefix(&root).expect("beneath the root").display().to_string())
        .collect();
    assert!(files.len() > 60, "the page's files are read");
    assert_eq!(unnamed, Vec::<String>::new(), "files the page layout of docs/architecture.md does not name");
}

/// One job per file and small components, as docs/architecture.md asks: no product file of the
/// engine, the CLI, the page or the worker has more than 550 lines before its tests, and no
/// component (a `#[component]` function) more than 150.
#[test]
fn no_file_or_component_outgrows_its_bar() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for folder in ["engine/src", "cli/src", "src", "worker"] {
        rust_files(&root.join(folder), &mut files);
    }
    let tests = test_files(&files);
    let mut over = Vec::new();
    for file in files.iter().filter(|f| !tests.contains(*f)) {
        let text = fs::read_to_string(file).expect("a source file");
        let lines = code_lines(&text);
        let name = file.strip_prefix(&root).expect("beneath the root").display().to_string();
        if lines.len() > 550 {
            over.push(format!("{name}: {} lines before its tests", lines.len()));
        }
        for (at, _) in lines.iter().enumerate().filter(|(_, l)| l.trim() == "#[component]") {
            let length = lines[at..].iter().position(|l| *l == "}").unwrap_or(lines.len() - at);
            if length > 150 {
                over.push(format!("{name}:{}: a component of {length} lines", at + 1));
            }
        }
    }
    assert!(files.len() > 200, "the sources are read");
    assert_eq!(over, Vec::<String>::new());
}
