//! A search as it is kept in the browser, exported, imported and shown: its spec, who answered it,
//! and everything it did (tree, programs, calls, best score over calls). A search itself holds its
//! method's live state and is not kept; its record is what remains of it.

use serde::{Deserialize, Serialize};

use crate::cheating::llm_judge::JudgeRecord;
use crate::cwm::normalised_return::PlanningSummary;
use crate::llm::Usage;
use crate::params::Parameters;
use crate::search::method::{Expanded, TextAct};
use crate::search::scorer::Score;
use crate::search::spec::{ProgramSearch, SearchSpec};
use crate::search::trace::{BestSoFar, CallRecord, TextRecord};
use crate::search::tree::SearchTreeNode;

/// A program edited by hand, and its score (`hand_edit.rs` makes and scores them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandEdit {
    /// The node it was edited from: an index of [`SearchRecord::nodes`].
    pub from: usize,
    pub program: String,
    /// Kept and exported as `evaluation`, its name before.
    #[serde(rename = "evaluation")]
    pub score: Score,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    pub spec: SearchSpec,
    /// `simulated`, or the model that answered.
    pub llm: String,
    /// Where that model ran, in the host's words ("llama.cpp on the CPU, 2 threads" for the model
    /// in the tab); empty for the simulated LLM and for an endpoint, whose machine is not known here.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device: String,
    pub tree: Vec<SearchTreeNode>,
    pub expansions: Vec<Expanded>,
    /// The call behind each expansion, in the same order.
    pub calls: Vec<CallRecord>,
    /// LATS's and Reflexion's calls that wrote tests or reflections, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<TextRecord>,
    /// How many times the method looked at the task's own tests (`ProgramSearch::hidden_checks`).
    #[serde(default)]
    pub hidden_checks: u32,
    pub progress: Vec<BestSoFar>,
    /// The best program and its score.
    pub best: Option<(String, f64)>,
    pub usage: Usage,
    /// What the calls cost at the endpoint's prices (0 for the simulated LLM or a free model).
    #[serde(default)]
    pub cost_usd: f64,
    /// Why the search ended; empty while it runs.
    pub ended: String,
    /// [`crate::search::machine::Search::fingerprint`].
    pub fingerprint: String,
    /// For a world-model search: planning with its best model, once someone has (seed 004 §5.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned: Option<PlanningSummary>,
    /// Programs edited by hand from its nodes, and their scores ([`crate::search::hand_edit`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<HandEdit>,
    /// What the LLM judge said of the answer, when it was asked (`SearchSpec::llm_judge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<JudgeRecord>,
}

/// What an export file holds.
#[derive(Serialize, Deserialize)]
struct Export {
    format: String,
    version: u32,
    searches: Vec<SearchRecord>,
}

const FORMAT: &str = "rlcg-searches";
const VERSION: u32 = 1;

impl ProgramSearch {
    /// The record of this search, made from `spec` and answered by `llm`.
    pub fn record(&self, spec: &SearchSpec, llm: &str) -> SearchRecord {
        SearchRecord {
            spec: spec.clone(),
            llm: llm.to_owned(),
            device: String::new(),
            tree: self.tree(),
            expansions: self.expansions().to_vec(),
            calls: self.calls().to_vec(),
            texts: self.texts().to_vec(),
            hidden_checks: self.hidden_checks(),
            progress: self.progress().to_vec(),
            best: self.best().map(|(program, score)| (program.to_owned(), score)),
            usage: self.usage(),
            cost_usd: 0.0,
            ended: self.ended().to_owned(),
            fingerprint: self.fingerprint(),
            planned: None,
            edits: Vec::new(),
            judged: self.judged().cloned(),
        }
    }
}

impl SearchRecord {
    pub fn best_score(&self) -> f64 {
        self.best.as_ref().map_or(0.0, |(_, score)| *score)
    }

    pub fn llm_calls(&self) -> u32 {
        self.progress.last().map_or(0, |p| p.llm_calls)
    }

    /// Where every LLM call of the search went, for its tree's caption: the calls that wrote a
    /// program (a node each), the tests and reflections LATS and Reflexion wrote (no node: they
    /// are in the details of the node they were about), and programs with no node of their own.
    pub fn calls_explained(&self) -> String {
        let total = self.llm_calls() as usize;
        let programs = self.expansions.len();
        let drawn = self.tree.iter().filter(|n| n.expansion.is_some()).count();
        let of = |act: TextAct| self.texts.iter().filter(|t| t.act == act).count();
        let (tests, reflections) = (of(TextAct::WriteTests), of(TextAct::Reflect));
        let calls = |n: usize| if n == 1 { "1 LLM call".to_owned() } else { format!("{n} LLM calls") };
        let mut sentence = format!("{}: {programs} wrote a program, each a node", calls(total));
        if tests + reflections > 0 {
            sentence += &format!(
                "; {tests} wrote tests and {reflections} reflected on a program, which make no node: they are in the \
                 details of the node they were about"
            );
        }
        let other = total.saturating_sub(programs + tests + reflections);
        if other > 0 {
            sentence += &format!("; {} made nothing the search kept", calls(other));
        }
        if drawn < programs {
            sentence += &format!(
                "; {} of the programs have no node: the method did not keep them in its tree",
                programs - drawn
            );
        }
        sentence + "."
    }

    /// A short name: method, task, seed and LLM.
    /// Who answered the search's calls, what they used and how fast the model wrote, for its view.
    pub fn answered_by(&self) -> String {
        let usage = self.usage;
        let speed = usage.speed_on(&self.device).map(|speed| format!(", written at {speed}")).unwrap_or_default();
        format!(
            "Answered by {}: {} tokens ({} prompt, {} completion){speed}.",
            self.llm,
            usage.total(),
            usage.prompt_tokens,
            usage.completion_tokens
        )
    }

    pub fn label(&self) -> String {
        format!("{} on {} (seed {}, {})", self.spec.method.name(), self.spec.task, self.spec.seed, self.llm)
    }

    /// `records` as an export file.
    pub fn export(records: &[SearchRecord]) -> String {
        let export = Export { format: FORMAT.into(), version: VERSION, searches: records.to_vec() };
        serde_json::to_string_pretty(&export).expect("records serialise")
    }

    /// The searches of an export file; a file that is not one, or a search in it that does not
    /// hold together, is refused whole, with what was wrong and where.
    pub fn import(text: &str) -> Result<Vec<SearchRecord>, String> {
        let export: Export = serde_json::from_str(text).map_err(|e| format!("not a searches file: {e}"))?;
        if export.format != FORMAT || export.version != VERSION {
            return Err(format!(
                "a file of format '{}' version {}; this page reads '{FORMAT}' version {VERSION}",
                export.format, export.version
            ));
        }
        for (i, record) in export.searches.iter().enumerate() {
            record.check().map_err(|problem| format!("search {} ({}): {problem}", i + 1, record.label()))?;
        }
        Ok(export.searches)
    }

    fn check(&self) -> Result<(), String> {
        if !(1..=SearchSpec::MAX_BUDGET).contains(&self.spec.budget) {
            return Err(format!("budget {} is outside 1..={}", self.spec.budget, SearchSpec::MAX_BUDGET));
        }
        self.spec.simulated_llm.validate().map_err(|e| format!("simulated LLM: {e}"))?;
        if self.calls.len() != self.expansions.len() || self.progress.len() != self.expansions.len() {
            return Err(format!(
                "{} expansions, {} calls and {} progress points; there must be one of each per LLM call",
                self.expansions.len(),
                self.calls.len(),
                self.progress.len()
            ));
        }
        for (i, node) in self.tree.iter().enumerate() {
            if node.parent.is_some_and(|p| p >= i) || node.expansion.is_some_and(|e| e >= self.expansions.len()) {
                return Err(format!("tree node {i} points past its parent or the expansions"));
            }
        }
        self.check_edits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::{simulated, simulated_spec};

    fn searched(seed: u64) -> SearchRecord {
        simulated("gif-mcts", seed).record(&simulated_spec("gif-mcts", seed), "simulated")
    }

    #[test]
    fn every_llm_call_is_accounted_for_beside_the_tree() {
        let record = searched(3);
        let calls = record.llm_calls();
        assert_eq!(record.calls_explained(), format!("{calls} LLM calls: {calls} wrote a program, each a node."));
        let lats = simulated("lats", 1).record(&simulated_spec("lats", 1), "simulated");
        let (programs, texts) = (lats.expansions.len(), lats.texts.len());
        assert!(
            texts > 0 && lats.llm_calls() as usize == programs + texts,
            "{programs} + {texts} = {}",
            lats.llm_calls()
        );
        let explained = lats.calls_explained();
        assert!(
            explained.starts_with(&format!("{} LLM calls: {programs} wrote a program", lats.llm_calls())),
            "{explained}"
        );
        assert!(explained.contains("which make no node"), "{explained}");
    }

    #[test]
    fn records_export_import_and_share_what_the_search_did() {
        let record = searched(3);
        assert_eq!(record.calls.len(), record.expansions.len());
        assert_eq!(record.llm_calls() as usize, record.expansions.len());
        assert_eq!(searched(3).fingerprint, record.fingerprint, "the same spec searches the same way");
        assert_ne!(searched(4).fingerprint, record.fingerprint);
        let text = SearchRecord::export(std::slice::from_ref(&record));
        assert_eq!(SearchRecord::import(&text).unwrap(), vec![record.clone()]);
        // A record without a planned model (as every record kept before planning was) has none in
        // its file; one planned with keeps its returns through an export.
        assert!(!text.contains("\"planned\""));
        let mut planned = record.clone();
        let evaluation = crate::cwm::normalised_return::PlanningRun::new(
            crate::gym::GymId::CartPole,
            String::new(),
            String::new(),
            crate::cwm::normalised_return::Protocol::quick(),
            1,
        )
        .unwrap();
        planned.planned = Some(evaluation.summary());
        let text = SearchRecord::export(std::slice::from_ref(&planned));
        assert_eq!(SearchRecord::import(&text).unwrap(), vec![planned]);
    }

    #[test]
    fn a_record_says_who_answered_and_a_models_speed_and_device_go_through_an_export() {
        let simulated = searched(3);
        let usage = simulated.usage;
        assert_eq!(
            simulated.answered_by(),
            format!(
                "Answered by simulated: {} tokens ({} prompt, {} completion).",
                usage.total(),
                usage.prompt_tokens,
                usage.completion_tokens
            )
        );
        let text = SearchRecord::export(std::slice::from_ref(&simulated));
        assert!(!text.contains("\"device\"") && !text.contains("\"writing_ms\""), "nothing measured, nothing kept");
        let mut in_tab = simulated.clone();
        in_tab.llm = "tiny (in this tab)".into();
        in_tab.device = "llama.cpp on the CPU, 2 threads".into();
        in_tab.usage = Usage { prompt_tokens: 1000, completion_tokens: 250, writing_ms: 10_000 };
        assert_eq!(
            in_tab.answered_by(),
            "Answered by tiny (in this tab): 1250 tokens (1000 prompt, 250 completion), written at 25.0 tokens/s on llama.cpp on the CPU, 2 threads."
        );
        let text = SearchRecord::export(std::slice::from_ref(&in_tab));
        assert!(text.contains("\"writing_ms\": 10000") && text.contains("\"device\": \"llama.cpp"), "{text}");
        assert_eq!(SearchRecord::import(&text).unwrap(), vec![in_tab]);
    }

    #[test]
    fn an_import_names_what_is_wrong() {
        let mut record = searched(3);
        record.calls.pop();
        let problem = SearchRecord::import(&SearchRecord::export(&[record])).unwrap_err();
        assert!(problem.starts_with("search 1 (gif-mcts on binary_search (seed 3, simulated)): "), "{problem}");
        assert!(problem.contains("one of each per LLM call"), "{problem}");
        let problem =
            SearchRecord::import("{\"format\": \"rlcg-runs\", \"version\": 1, \"searches\": []}").unwrap_err();
        assert!(problem.contains("format 'rlcg-runs'"), "{problem}");
        assert!(SearchRecord::import("[1, 2").unwrap_err().starts_with("not a searches file: "));
    }
}
