//! A program search's tree as its record and views read it: [`SearchTreeNode`]s, which each method
//! draws in its own file ([`crate::search::method::Method::tree`]), with what LATS's and
//! Reflexion's nodes show of their own tests ([`SelfTestedNode`]).

use serde::{Deserialize, Serialize};

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
}

/// What a tree node of LATS or Reflexion shows of a program's own tests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfTestedNode {
    /// The tests it last ran on, as the model wrote them.
    pub tests: Vec<String>,
    /// Their results, as the prompts show them (empty when it never ran).
    pub feedback: String,
    /// Tests the judge refused to run (not data).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// The share it passed.
    pub internal: Option<f64>,
    pub reflection: String,
    /// Whether its hidden tests passed, when the method looked (LATS's official mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    /// LATS's backed-up value, summed over its visits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
}
