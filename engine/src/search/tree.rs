//! What a program search did, as its record and views read it: the program it answers with, how
//! often its method looked at the task's own tests, and its tree ([`SearchTreeNode`]s, which each
//! method draws in its own file: [`Method::tree`]).

use serde::{Deserialize, Serialize};

use crate::search::methods::own_tests::SelfTestedNode;
use crate::search::method::{Answering, Expanded, Method};
use crate::search::scorer::Scorer;
use crate::search::machine::Search;

/// A node of a search's tree as views draw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchTreeNode {
    pub parent: Option<usize>,
    /// The action that made it: `g1`, `i2`, `f1` … for GIF-MCTS, the action's name otherwise.
    pub label: String,
    /// Its expansion in the search's order (`None` for the root and for hand edits).
    pub expansion: Option<usize>,
    /// Its hand edit, in the record's order ([`crate::search::hand_edit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<usize>,
    pub visits: u32,
    /// GIF-MCTS's backed-up value (a bug's temporary value), else the program's score.
    pub value: f64,
    pub bug: bool,
    /// Its program passed only because verdicts were naive (a reward hack).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hacked: bool,
    /// The held-out test it failed after passing every visible one ([`crate::search::scorer::Score::special_cased`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub special_cased: Option<String>,
    /// For LATS and Reflexion: the tests the method wrote and ran it on, and what came of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_tested: Option<SelfTestedNode>,
}

impl<M: Method, S: Scorer> Search<M, S> {
    /// The program the search answers with, by expansion: the method's choice, else its first
    /// program to pass every test (where a perfect score ended it), else its best.
    pub fn answer(&self) -> Option<usize> {
        let expansions = self.expansions();
        match self.method().answer() {
            Answering::Chosen(chosen) => chosen,
            Answering::BestScore => expansions.iter().position(|e| e.score.score >= 1.0).or_else(|| {
                (0..expansions.len())
                    .reduce(|best, i| if expansions[i].score.score > expansions[best].score.score { i } else { best })
            }),
        }
    }

    /// How many times the method looked at the task's own tests ([`Method::hidden_test_looks`]).
    pub fn hidden_checks(&self) -> u32 {
        self.method().hidden_test_looks(self.expansions().len(), self.answer().is_some())
    }

    /// The tree of programs, as the method draws it ([`Method::tree`]).
    pub fn tree(&self) -> Vec<SearchTreeNode> {
        self.method().tree(self.expansions())
    }
}

impl SearchTreeNode {
    /// The empty program every tree grows from.
    pub fn root() -> Self {
        Self {
            parent: None,
            label: "root".into(),
            expansion: None,
            edit: None,
            visits: 1,
            value: 0.0,
            bug: false,
            hacked: false,
            special_cased: None,
            self_tested: None,
        }
    }

    /// The root, then each program under node `parent_of(i)` (0 is the root) valued by its score.
    pub fn programs(expansions: &[Expanded], parent_of: impl Fn(usize) -> usize) -> Vec<Self> {
        let children = expansions.iter().enumerate().map(|(i, e)| Self {
            parent: Some(parent_of(i)),
            label: e.kind.name().into(),
            expansion: Some(i),
            edit: None,
            visits: 1,
            value: e.score.score,
            bug: e.score.bug,
            hacked: e.score.hacked,
            special_cased: e.score.special_cased().map(str::to_owned),
            self_tested: None,
        });
        std::iter::once(Self::root()).chain(children).collect()
    }
}
