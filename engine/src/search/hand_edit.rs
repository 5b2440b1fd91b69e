//! Programs edited by hand: any node of a search (or its root) opened in the page's editor,
//! changed, and scored as the search scores its programs (the task's tests, or a world model's
//! accuracy on the search's dataset). The edit becomes a node of the tree marked "by hand", kept
//! in the search's record and exported with it. It is not part of what the search did: its calls,
//! best score over calls and fingerprint stay the search's, and autopep8 leaves it as written.

use crate::python::{ProgramRequest, ProgramVerdict};
use crate::rng::search_rng;
use crate::search::record::{HandEdit, SearchRecord};
use crate::search::scorer::{Score, Scorer};
use crate::search::spec::AnyScorer;
use crate::search::tree::SearchTreeNode;
use crate::task_import::ImportedTask;

/// The label of an edited node's edge.
pub const BY_HAND: &str = "by hand";

impl SearchRecord {
    /// The search's tree, with each hand edit under the node it came from (after the search's own
    /// nodes, in the order they were made).
    pub fn nodes(&self) -> Vec<SearchTreeNode> {
        let edits = self.edits.iter().enumerate().map(|(k, edit)| SearchTreeNode {
            parent: Some(edit.from),
            label: BY_HAND.into(),
            expansion: None,
            edit: Some(k),
            visits: 1,
            value: edit.score.score,
            bug: edit.score.bug,
            hacked: edit.score.hacked,
            special_cased: edit.score.special_cased().map(str::to_owned),
            self_tested: None,
        });
        self.tree.iter().cloned().chain(edits).collect()
    }

    /// The program at node `node` of [`Self::nodes`] and its score; the root has none, nor has a
    /// reply that held no program.
    pub fn program_at(&self, node: usize) -> Option<(&str, &Score)> {
        let nodes = self.nodes();
        let node = nodes.get(node)?;
        let (program, score) = match (node.expansion, node.edit) {
            (Some(e), _) => self.expansions.get(e).map(|e| (e.program.as_str(), &e.score))?,
            (_, Some(k)) => self.edits.get(k).map(|e| (e.program.as_str(), &e.score))?,
            _ => return None,
        };
        (!program.is_empty()).then_some((program, score))
    }

    /// Checks the hand edits of an imported record: each comes from a node before it.
    pub(super) fn check_edits(&self) -> Result<(), String> {
        for (k, edit) in self.edits.iter().enumerate() {
            if edit.from >= self.tree.len() + k {
                return Err(format!("hand edit {} comes from node {}, which is not before it", k + 1, edit.from));
            }
        }
        Ok(())
    }
}

/// A hand edit on its way: its program runs in Python as the search's own would, and its verdict
/// makes it a node of the record.
pub struct HandEditing {
    scorer: AnyScorer,
    from: usize,
    program: String,
    seed: u64,
}

impl HandEditing {
    /// `program`, edited from node `from` of `record`'s [`SearchRecord::nodes`]; `imported` is the
    /// search's task when it is an imported one (its tests are not in the record).
    pub fn new(
        record: &SearchRecord,
        imported: Option<&ImportedTask>,
        from: usize,
        program: String,
    ) -> Result<Self, String> {
        if from >= record.nodes().len() {
            return Err(format!("node {from} is not in the search's tree"));
        }
        if program.trim().is_empty() {
            return Err("the edited program is empty".into());
        }
        let scorer = record.spec.scorer(imported)?;
        Ok(Self { scorer, from, program, seed: record.spec.seed })
    }

    /// What Python runs to score it.
    pub fn request(&self) -> ProgramRequest {
        self.scorer.request(&self.program)
    }

    /// Scores the edit from its `verdict` and adds it to `record`; returns its node's index.
    pub fn finish(self, record: &mut SearchRecord, verdict: &ProgramVerdict) -> usize {
        // The failing example a tests scorer draws is drawn as the search would draw its first.
        let score = self.scorer.evaluate(verdict, &mut search_rng(self.seed));
        record.edits.push(HandEdit { from: self.from, program: self.program, score });
        record.nodes().len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::Outcome;
    use crate::search::tests::{simulated, simulated_spec};

    fn searched() -> SearchRecord {
        simulated("gif-mcts", 3).record(&simulated_spec("gif-mcts", 3), "simulated")
    }

    #[test]
    fn an_edit_becomes_a_node_under_the_one_it_came_from_and_leaves_the_search_as_it_was() {
        let mut record = searched();
        let before = record.clone();
        let from = 2;
        let (program, _) = record.program_at(from).unwrap();
        let edited = format!("{program}\n# edited\n");
        let editing = HandEditing::new(&record, None, from, edited.clone()).unwrap();
        // The search's own request for its task: every test of binary_search.
        let request = editing.request();
        let bank =
            crate::search::offline::bank::search_tasks().iter().find(|t| t.id == "binary_search").unwrap().clone();
        assert_eq!(request.tests, bank.search_task().tests);
        let mut verdict = ProgramVerdict::from_host(&request, Outcome::FailedTest, String::new(), 1.0);
        verdict.number_passed = verdict.total - 1;
        let node = editing.finish(&mut record, &verdict);
        assert_eq!(node, record.tree.len());
        let nodes = record.nodes();
        assert_eq!(nodes[node].parent, Some(from));
        assert_eq!((nodes[node].label.as_str(), nodes[node].edit), (BY_HAND, Some(0)));
        let (program, score) = record.program_at(node).unwrap();
        let total = f64::from(verdict.total);
        assert_eq!((program, score.score), (edited.as_str(), (total - 1.0) / total));
        // What the search did is unchanged, and the edit survives an export.
        assert_eq!(
            (&record.tree, &record.expansions, &record.fingerprint),
            (&before.tree, &before.expansions, &before.fingerprint)
        );
        let text = SearchRecord::export(std::slice::from_ref(&record));
        assert!(text.contains("\"edits\""));
        assert!(!SearchRecord::export(std::slice::from_ref(&before)).contains("\"edits\""));
        assert_eq!(SearchRecord::import(&text).unwrap(), vec![record.clone()]);
        // An edit of the edit hangs under it.
        let again = HandEditing::new(&record, None, node, "def f(): pass\n".into()).unwrap();
        let failed = ProgramVerdict::from_host(&again.request(), Outcome::CompileError, "SyntaxError".into(), 1.0);
        let node2 = again.finish(&mut record, &failed);
        assert_eq!(record.nodes()[node2].parent, Some(node));
        assert!(record.program_at(node2).unwrap().1.bug);
    }

    #[test]
    fn bad_edits_are_refused_with_a_reason() {
        let record = searched();
        let past = record.nodes().len();
        assert_eq!(
            HandEditing::new(&record, None, past, "x = 1".into()).err().unwrap(),
            format!("node {past} is not in the search's tree")
        );
        assert_eq!(HandEditing::new(&record, None, 0, "  \n".into()).err().unwrap(), "the edited program is empty");
        let mut bad = record.clone();
        bad.edits.push(HandEdit { from: past + 3, program: "x".into(), score: record.expansions[0].score.clone() });
        let problem = SearchRecord::import(&SearchRecord::export(&[bad])).unwrap_err();
        assert!(problem.contains("hand edit 1 comes from node"), "{problem}");
    }
}
