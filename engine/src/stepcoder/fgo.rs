//! FGO, Fine-Grained Optimisation (seed 002 §3.2, Algorithm 1 line 13): a generated token counts in
//! the loss only if the unit tests ran its line. Together with CCCS's prompt mask, a line counts
//! when the policy wrote it (it is not the curriculum's prefix) and it ran.
//!
//! The paper leaves open what "ran" means for lines that report no line event of their own. The
//! rules here, from the harness's logical lines ([`LogicalLine`]):
//! - a statement (or a compound statement's header) spanning several lines ran if any of its
//!   lines did, so its continuation lines count with it;
//! - a bare `else:`, `try:` or `finally:` ran if the statement after it, the first of its block, did;
//! - the line that raised ran (the harness records it);
//! - comments and blank lines hold no tokens and are not code;
//! - a program that does not compile ran nothing: taken literally, the mask removes every
//!   generated token and the −1 reward reaches no line ([`CompileErrorRule`] can keep them).
//!
//! On a language model's reply the lines are mapped to its tokens ([`reply_code_lines`]) and the
//! mask becomes the loss's, token by token ([`token_mask`]).

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::python::{LogicalLine, Outcome, ProgramVerdict};

/// What the mask does with a program that does not compile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompileErrorRule {
    /// Nothing ran, so every generated token is masked (Algorithm 1 read literally).
    #[default]
    MaskAll,
    /// Every generated token stays in the loss, so the −1 reward is felt.
    KeepAll,
}

/// What the mask says of one line of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineRole {
    /// Given by the curriculum (CCCS's prefix): never in the loss.
    Prefix,
    /// Generated and run: in the loss.
    Kept,
    /// Generated and not run: removed by FGO.
    Masked,
    /// A blank line or a comment: no tokens.
    NotCode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaskedLine {
    pub role: LineRole,
    /// Python tokens on the line.
    pub tokens: u32,
}

/// The mask of one program, line by line (`lines[0]` is line 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FgoMask {
    pub outcome: Outcome,
    pub lines: Vec<MaskedLine>,
}

/// What the mask reads of a run: its outcome, the lines that ran, and the program's logical lines
/// and tokens (a verdict with coverage and analysis has them all).
#[derive(Clone, Copy, Debug)]
pub struct Coverage<'a> {
    pub outcome: Outcome,
    pub executed_lines: &'a [u32],
    pub statements: &'a [LogicalLine],
    pub line_tokens: &'a [u32],
}

impl<'a> From<&'a ProgramVerdict> for Coverage<'a> {
    fn from(verdict: &'a ProgramVerdict) -> Self {
        Self {
            outcome: verdict.outcome,
            executed_lines: &verdict.executed_lines,
            statements: &verdict.statements,
            line_tokens: &verdict.line_tokens,
        }
    }
}

impl FgoMask {
    /// The mask of `program`, whose first `prefix_lines` lines the curriculum gave, from its run.
    pub fn new(program: &str, prefix_lines: usize, run: Coverage<'_>, rule: CompileErrorRule) -> Self {
        let ran = ran_lines(&run);
        let lines = program
            .lines()
            .enumerate()
            .map(|(index, text)| {
                let line = index as u32 + 1;
                let tokens = run.line_tokens.get(index).copied().unwrap_or(0);
                let role = if index < prefix_lines {
                    LineRole::Prefix
                } else if run.outcome == Outcome::CompileError {
                    match (tokens > 0 || (run.line_tokens.is_empty() && !text.trim().is_empty()), rule) {
                        (false, _) => LineRole::NotCode,
                        (true, CompileErrorRule::MaskAll) => LineRole::Masked,
                        (true, CompileErrorRule::KeepAll) => LineRole::Kept,
                    }
                } else {
                    match ran.get(&line) {
                        None => LineRole::NotCode,
                        Some(true) => LineRole::Kept,
                        Some(false) => LineRole::Masked,
                    }
                };
                MaskedLine { role, tokens }
            })
            .collect();
        Self { outcome: run.outcome, lines }
    }

    /// Whether line `line` (1-based) is in the loss.
    pub fn keeps(&self, line: u32) -> bool {
        self.lines.get(line as usize - 1).is_some_and(|l| l.role == LineRole::Kept)
    }

    /// Tokens the policy wrote, and how many of them the mask keeps.
    pub fn token_counts(&self) -> TokenCounts {
        let count = |keep: fn(LineRole) -> bool| {
            self.lines.iter().filter(|l| keep(l.role)).map(|l| u64::from(l.tokens)).sum::<u64>()
        };
        TokenCounts {
            generated: count(|role| matches!(role, LineRole::Kept | LineRole::Masked)),
            kept: count(|role| role == LineRole::Kept),
        }
    }
}

/// Whether each code line ran, by the rules of the module's documentation: a line of no logical
/// line (blank, comment) is absent.
fn ran_lines(run: &Coverage<'_>) -> BTreeMap<u32, bool> {
    let executed: BTreeSet<u32> = run.executed_lines.iter().copied().collect();
    let statements = run.statements;
    let mut ran = vec![false; statements.len()];
    for (index, statement) in statements.iter().enumerate().rev() {
        ran[index] = if statement.clause {
            ran.get(index + 1).copied().unwrap_or(false)
        } else {
            executed.range(statement.start..=statement.end).next().is_some()
        };
    }
    statements.iter().zip(ran).flat_map(|(s, ran)| (s.start..=s.end).map(move |line| (line, ran))).collect()
}

/// FGO on a model's tokens: the program text of a reply's token pieces (up to its closing fence)
/// and the program line of each token after a prefix of `prefix_lines` lines. A token belongs to
/// the line of its first character that is not a line break (one that is only line breaks, to the
/// line it ends); tokens from the closing fence on, and empty ones (the end of the turn), are not
/// code.
pub fn reply_code_lines(pieces: &[String], prefix_lines: usize) -> (String, Vec<Option<u32>>) {
    let text: String = pieces.concat();
    let code_end = text.find("```").unwrap_or(text.len());
    let mut start = 0;
    let lines = pieces
        .iter()
        .map(|piece| {
            let (from, to) = (start, start + piece.len());
            start = to;
            let breaks = piece.len() - piece.trim_start_matches('\n').len();
            let first = if breaks < piece.len() { from + breaks } else { from };
            let in_code = !piece.is_empty() && first < code_end;
            in_code.then(|| (prefix_lines + 1 + text[..first].matches('\n').count()) as u32)
        })
        .collect();
    (text[..code_end].to_owned(), lines)
}

/// The loss's mask on a reply's tokens from their program lines ([`reply_code_lines`]): under FGO's
/// `mask`, 1 for a token on a line it keeps and 0 for the others (a token after the code is on no
/// line); without FGO every token counts.
pub fn token_mask(mask: Option<&FgoMask>, token_lines: &[Option<u32>]) -> Vec<f32> {
    token_lines
        .iter()
        .map(|line| match (mask, line) {
            (None, _) => 1.0,
            (Some(mask), Some(line)) if mask.keeps(*line) => 1.0,
            _ => 0.0,
        })
        .collect()
}

/// Generated tokens and the ones in the loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCounts {
    pub generated: u64,
    pub kept: u64,
}

impl TokenCounts {
    /// The share of generated tokens kept; none when nothing was generated.
    pub fn share(self) -> Option<f64> {
        (self.generated > 0).then(|| self.kept as f64 / self.generated as f64)
    }
}

/// The share of generated tokens FGO keeps, per outcome class, over many programs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptByOutcome(pub BTreeMap<Outcome, TokenCounts>);

impl KeptByOutcome {
    pub fn add(&mut self, mask: &FgoMask) {
        let counts = mask.token_counts();
        let entry = self.0.entry(mask.outcome).or_default();
        entry.generated += counts.generated;
        entry.kept += counts.kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::ProgramRequest;

    fn statement(start: u32, end: u32) -> LogicalLine {
        LogicalLine { start, end, clause: false }
    }

    fn clause(line: u32) -> LogicalLine {
        LogicalLine { start: line, end: line, clause: true }
    }

    /// A verdict as the harness gives it for `PROGRAM` run with `f(1)`.
    fn verdict(outcome: Outcome, executed: &[u32]) -> ProgramVerdict {
        let mut verdict = ProgramVerdict::from_host(&ProgramRequest::new(PROGRAM, vec![]), outcome, String::new(), 0.0);
        verdict.error = None;
        verdict.executed_lines = executed.to_vec();
        verdict.statements = vec![
            statement(1, 1),
            statement(2, 2),
            statement(3, 3),
            clause(4),
            statement(5, 6),
            clause(8),
            statement(9, 9),
            clause(10),
            statement(11, 11),
        ];
        verdict.line_tokens = vec![6, 3, 3, 2, 5, 2, 0, 2, 2, 2, 3];
        verdict
    }

    fn pieces(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| (*t).to_owned()).collect()
    }

    #[test]
    fn each_token_has_the_line_it_writes_and_the_fence_ends_the_code() {
        // After a prefix of 3 lines: "        if x > 0:\n            total += x\n    return total\n```", then
        // the end of the turn (an empty piece).
        let reply = pieces(&[
            "       ",
            " if",
            " x",
            " >",
            " 0",
            ":\n",
            "           ",
            " total",
            " +=",
            " x",
            "\n",
            "   ",
            " return",
            " total",
            "\n",
            "```",
            "",
        ]);
        let (code, lines) = reply_code_lines(&reply, 3);
        assert_eq!(code, "        if x > 0:\n            total += x\n    return total\n");
        let line = |l: u32| Some(l);
        assert_eq!(
            lines,
            vec![
                line(4),
                line(4),
                line(4),
                line(4),
                line(4),
                line(4),
                line(5),
                line(5),
                line(5),
                line(5),
                line(5),
                line(6),
                line(6),
                line(6),
                line(6),
                None,
                None
            ]
        );
        // A piece that starts with a break belongs to the line after it.
        let (_, lines) = reply_code_lines(&pieces(&["a", "\n    b", "\n"]), 0);
        assert_eq!(lines, vec![Some(1), Some(2), Some(2)]);
    }

    #[test]
    fn a_reply_cut_before_its_fence_is_code_to_its_end() {
        let (code, lines) = reply_code_lines(&pieces(&["def", " f", "():"]), 0);
        assert_eq!(code, "def f():");
        assert_eq!(lines, vec![Some(1), Some(1), Some(1)]);
    }

    #[test]
    fn the_token_mask_keeps_the_tokens_of_lines_that_ran() {
        // PROGRAM's line 3 ran (kept), 4 did not (masked); a token after the code is on no line.
        let mask =
            FgoMask::new(PROGRAM, 1, (&verdict(Outcome::Pass, &[1, 2, 3, 9, 11])).into(), CompileErrorRule::MaskAll);
        let lines = [Some(3), Some(3), Some(4), None, Some(1)];
        assert_eq!(token_mask(Some(&mask), &lines), [1.0, 1.0, 0.0, 0.0, 0.0], "line 1 is the prefix");
        assert_eq!(token_mask(None, &lines), [1.0; 5]);
    }

    const PROGRAM: &str = "def f(x):\n    if x:\n        y = 1\n    else:\n        y = (2 +\n             3)\n    # done\n    try:\n        return y\n    finally:\n        y = 0\n";

    #[test]
    fn lines_that_ran_are_kept_and_the_others_masked() {
        // f(1) runs lines 1, 2, 3, 9 and 11: the else branch (4-6) never runs; try: (8) and
        // finally: (10) report no line (Python 3.12 on) but the statements after them ran.
        let mask =
            FgoMask::new(PROGRAM, 1, (&verdict(Outcome::Pass, &[1, 2, 3, 9, 11])).into(), CompileErrorRule::MaskAll);
        let roles: Vec<LineRole> = mask.lines.iter().map(|l| l.role).collect();
        use LineRole::*;
        assert_eq!(roles, [Prefix, Kept, Kept, Masked, Masked, Masked, NotCode, Kept, Kept, Kept, Kept]);
        // Generated tokens: lines 2-11 = 3 + 3 + 2 + 5 + 2 + 0 + 2 + 2 + 2 + 3 = 24; masked 2 + 5 + 2 = 9.
        assert_eq!(mask.token_counts(), TokenCounts { generated: 24, kept: 15 });
        assert!(mask.keeps(3) && !mask.keeps(6) && !mask.keeps(1), "the prefix is never in the loss");
    }

    #[test]
    fn an_else_that_ran_counts_with_its_first_statement_and_a_continuation_with_its_statement() {
        // f(0): lines 1, 2, 5 (only the first line of the two-line statement reports), 9, 11.
        let mask = FgoMask::new(
            PROGRAM,
            0,
            (&verdict(Outcome::FailedTest, &[1, 2, 5, 9, 11])).into(),
            CompileErrorRule::MaskAll,
        );
        let roles: Vec<LineRole> = mask.lines[..6].iter().map(|l| l.role).collect();
        use LineRole::*;
        assert_eq!(roles, [Kept, Kept, Masked, Kept, Kept, Kept]);
    }

    #[test]
    fn a_program_that_does_not_compile_keeps_nothing_or_everything_by_the_rule() {
        let mut broken = verdict(Outcome::CompileError, &[]);
        broken.statements.clear();
        let literal = FgoMask::new(PROGRAM, 2, (&broken).into(), CompileErrorRule::MaskAll);
        assert_eq!(literal.token_counts(), TokenCounts { generated: 21, kept: 0 });
        assert_eq!(literal.lines[6].role, LineRole::NotCode, "the comment holds no token");
        let kept = FgoMask::new(PROGRAM, 2, (&broken).into(), CompileErrorRule::KeepAll);
        assert_eq!(kept.token_counts(), TokenCounts { generated: 21, kept: 21 });
        let mut shares = KeptByOutcome::default();
        shares.add(&literal);
        shares.add(&FgoMask::new(
            PROGRAM,
            1,
            (&verdict(Outcome::Pass, &[1, 2, 3, 9, 11])).into(),
            CompileErrorRule::MaskAll,
        ));
        assert_eq!(shares.0[&Outcome::CompileError].share(), Some(0.0));
        assert_eq!(shares.0[&Outcome::Pass].share(), Some(15.0 / 24.0));
    }
}
