//! The tables of `docs/reproductions.md` as values: each [`Table`] knows the Markdown the docs hold
//! it in, between `<!-- reproduce: ID -->` and `<!-- /reproduce -->`, under a line that says the
//! command that made it, its seeds and settings, and what it is compared with in the paper. The
//! tables the page re-runs are made here ([`orchestrator`], [`search`]), so that the page and
//! `rlcg reproduce` make them alike; the CLI makes the rest, and [`blocks`] compares any of them
//! with a file.

pub mod blocks;
pub mod cheating;
pub mod lats;
pub mod orchestrator;
pub mod search;

use serde::Serialize;

/// `docs/reproductions.md` as this build has it, for a re-run to be compared with.
pub const DOCS: &str = include_str!("../../../docs/reproductions.md");
/// The quick run's figures as `cli/tests/reproduce.rs` pins them, for a quick re-run.
pub const QUICK: &str = include_str!("../../../docs/reproductions-quick.md");

/// How much of each reproduction runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The docs' settings.
    Full,
    /// Fewer seeds and episodes, in a few minutes.
    Quick,
}

impl Scale {
    /// `full` or `quick`, whichever this scale is.
    pub fn pick<T>(self, full: T, quick: T) -> T {
        if self == Scale::Full { full } else { quick }
    }

    /// The command that makes `group`'s tables at this scale.
    pub fn command(self, group: &str) -> String {
        format!("rlcg reproduce --only {group}{}", self.pick("", " --quick"))
    }
}

/// One generated table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    pub id: &'static str,
    /// The line above it: the command, the seeds and settings, and what it is compared with.
    pub made_by: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The block the docs hold: the markers, the line above, and the table.
    pub fn markdown(&self) -> String {
        let row = |cells: &[String]| format!("| {} |", cells.join(" | "));
        let mut lines = vec![blocks::opening(self.id), self.made_by.clone(), String::new(), row(&self.header)];
        lines.push(format!("|{}", "---|".repeat(self.header.len())));
        lines.extend(self.rows.iter().map(|r| row(r)));
        lines.push(blocks::CLOSING.to_owned());
        lines.join("\n")
    }
}

/// `value` with a true minus sign, as the docs write numbers.
pub fn signed(value: f64, decimals: usize) -> String {
    format!("{value:.decimals$}").replace('-', "−")
}

/// A share as a percentage with one decimal.
pub fn percent(share: f64) -> String {
    format!("{:.1}%", 100.0 * share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_the_docs_write_them() {
        assert_eq!(
            (signed(-1109.84, 1), signed(0.305, 3), percent(0.9805)),
            ("−1109.8".into(), "0.305".into(), "98.0%".into())
        );
        assert_eq!(Scale::Quick.command("seed003"), "rlcg reproduce --only seed003 --quick");
        assert!(blocks::differences(DOCS, &[]).is_empty());
        assert!(DOCS.contains(&blocks::opening("seed003-training")), "the docs hold the seed 003 table");
    }
}
