//! Reading the repository's Rust sources, for the tests that check its structure (`layers.rs`,
//! `extension_counts.rs`).

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
