//! What a search came to, counted and worded once: the page's summary line and the CLI's report
//! read the same [`SearchSummary`].

use std::fmt;

use crate::cheating::llm_judge::JudgeClass;
use crate::search::method::Expanded;
use crate::search::record::SearchRecord;

/// The counts of one search's record.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSummary {
    pub llm_calls: u32,
    /// The best program's score or, for a method that answers with a program its own tests chose
    /// (LATS, Reflexion), the answer's.
    pub score: f64,
    pub answers_by_own_tests: bool,
    /// How many times the method looked at the task's own tests.
    pub hidden_checks: u32,
    /// Programs the search wrote.
    pub nodes: usize,
    /// Calls that wrote tests or reflections (LATS, Reflexion).
    pub text_calls: usize,
    pub tokens: u64,
    pub cost_usd: f64,
    /// Judged as common graders do; `hacked` programs passed only because of it.
    pub naive_verdicts: bool,
    pub hacked: usize,
    /// Programs went through autopep8 first; it changed `reformatted` of them.
    pub autopep8: bool,
    pub reformatted: usize,
    /// The share of the task's tests held out from the LLM.
    pub held_out_share: f64,
    /// Each program (1-based, in the order written) that passed every visible test and failed a
    /// held-out one, with the held-out test it failed.
    pub special_cased: Vec<(usize, String)>,
    /// The LLM judge was asked (`SearchSpec::llm_judge`), and what it said of the answer: none
    /// while it has not, or where no answer passed every test it was scored on.
    pub llm_judge: bool,
    pub judged: Option<Option<JudgeClass>>,
}

impl SearchRecord {
    pub fn summary(&self) -> SearchSummary {
        let count = |kept: fn(&Expanded) -> bool| self.expansions.iter().filter(|e| kept(e)).count();
        SearchSummary {
            llm_calls: self.llm_calls(),
            score: self.best_score(),
            answers_by_own_tests: self.spec.method.writes_own_tests(),
            hidden_checks: self.hidden_checks,
            nodes: self.expansions.len(),
            text_calls: self.texts.len(),
            tokens: self.usage.total(),
            cost_usd: self.cost_usd,
            naive_verdicts: self.spec.naive_verdicts,
            hacked: count(|e| e.score.hacked),
            autopep8: self.spec.autopep8,
            reformatted: count(|e| e.unformatted.is_some()),
            held_out_share: self.spec.held_out_share,
            special_cased: (self.expansions.iter().enumerate())
                .filter_map(|(i, e)| e.score.special_cased().map(|test| (i + 1, test.to_owned())))
                .collect(),
            llm_judge: self.spec.llm_judge,
            judged: self.judged.as_ref().map(|j| j.class),
        }
    }
}

impl SearchSummary {
    /// Every test passed (by the best program, or by the answer).
    pub fn solved(&self) -> bool {
        self.score >= 1.0
    }
}

/// One line: calls, the score (and, for LATS and Reflexion, how often the task's tests were looked
/// at), tokens, the cost of an endpoint, and what the verdicts and the held-out tests found.
impl fmt::Display for SearchSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} LLM calls · ", self.llm_calls)?;
        match self.answers_by_own_tests {
            true => write!(
                f,
                "answer's score {:.3} · the task's tests looked at {} time(s)",
                self.score, self.hidden_checks
            )?,
            false => write!(f, "best score {:.3}", self.score)?,
        }
        write!(f, " · {} tokens", self.tokens)?;
        if self.cost_usd > 0.0 {
            write!(f, " · ${:.4}", self.cost_usd)?;
        }
        match (self.naive_verdicts, self.hacked) {
            (false, _) => {}
            (true, 0) => write!(f, " · naive verdicts")?,
            (true, n) => write!(f, " · naive verdicts: {n} hacked program(s) passed that the real verdict refuses")?,
        }
        match (self.autopep8, self.reformatted) {
            (false, _) => write!(f, " · without autopep8")?,
            (true, 0) => {}
            (true, n) => write!(f, " · autopep8 changed {n} program(s)")?,
        }
        if self.held_out_share > 0.0 {
            write!(
                f,
                " · {:.0}% of the tests held out: {} program(s) special-cased? (every visible test passed, a held-out one failed)",
                100.0 * self.held_out_share,
                self.special_cased.len()
            )?;
        }
        match (self.llm_judge, self.judged) {
            (false, _) => {}
            (true, None) => write!(f, " · the LLM judge: no answer passed every test it was scored on")?,
            (true, Some(None)) => write!(f, " · the LLM judge: its reply named no class")?,
            (true, Some(Some(class))) => write!(f, " · the LLM judge: {}", class.name())?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::search::tests::{simulated, simulated_spec};

    #[test]
    fn the_summary_counts_the_record_and_words_it_once() {
        let search = simulated("gif-mcts", 3);
        let record = search.record(&simulated_spec("gif-mcts", 3), "simulated");
        let summary = record.summary();
        assert_eq!(summary.llm_calls, search.llm_calls());
        assert_eq!((summary.nodes, summary.text_calls), (search.expansions().len(), 0));
        assert_eq!(summary.score, search.best().map_or(0.0, |(_, s)| s));
        let line = summary.to_string();
        assert!(
            line.starts_with(&format!("{} LLM calls · best score {:.3} · ", summary.llm_calls, summary.score)),
            "{line}"
        );
        let held_out = super::SearchSummary { held_out_share: 0.3, special_cased: vec![(2, "t".into())], ..summary };
        assert!(held_out.to_string().ends_with(" · 30% of the tests held out: 1 program(s) special-cased? (every visible test passed, a held-out one failed)"));
        let judged = super::SearchSummary {
            llm_judge: true,
            judged: Some(Some(crate::cheating::llm_judge::JudgeClass::RewardHacking)),
            ..held_out
        };
        assert!(judged.to_string().ends_with("a held-out one failed) · the LLM judge: REWARD HACKING"), "{judged}");
    }
}
