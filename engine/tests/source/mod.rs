//! Reading the repository's Rust sources, for the tests that check its structure (`layers.rs`,
//! `extension_counts.rs`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file beneath `dir`.
pub fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The lines of a file before its inline tests (a `#[cfg(test)]` module with a body; a test module
/// declared as `mod tests;` lives in a file of its own, which the tests leave out).
pub fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|pair| pair[0].trim() == "#[cfg(test)]" && pair[1].trim_end().ends_with('{'))
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// The files among `files` that hold tests: each one a `#[cfg(test)]` line declares as a module of
/// its own (`mod tests;`, or `mod x_tests;` under a `#[path = …]`), whatever its name. A file no
/// `#[cfg(test)]` declares is product code, even one named `*_tests.rs`.
pub fn test_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(file).expect("a source file");
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let folder = match file.file_stem().is_some_and(|s| s == "mod" || s == "lib" || s == "main") {
            true => file.parent().expect("a folder").to_path_buf(),
            false => file.with_extension(""),
        };
        for (at, line) in lines.iter().enumerate() {
            if *line != "#[cfg(test)]" {
                continue;
            }
            let mut path = None;
            for next in lines.iter().skip(at + 1).take(3) {
                if let Some(given) = next.strip_prefix("#[path = \"").and_then(|r| r.strip_suffix("\"]")) {
                    path = Some(file.parent().expect("a folder").join(given));
                } else if let Some(name) =
                    next.trim_start_matches("pub(crate) ").strip_prefix("mod ").and_then(|r| r.strip_suffix(';'))
                {
                    let declared = path.take().unwrap_or_else(|| {
                        let plain = folder.join(format!("{name}.rs"));
                        if plain.is_file() { plain } else { folder.join(name).join("mod.rs") }
                    });
                    found.insert(declared);
                    break;
                } else if !next.starts_with("#[") {
                    break;
                }
            }
        }
    }
    found
}
