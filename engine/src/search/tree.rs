//! What a program search did, as its record and views read it: the program it answers with, how
//! often its method looked at the task's own tests, and its tree ([`SearchTreeNode`]s, drawn
//! differently for each method).

use serde::{Deserialize, Serialize};

use super::self_tests::{SelfTested, SelfTestedNode};
use super::spec::{AnyMethod, ProgramSearch};
use super::{Answering, Method};

/// A node of a search's tree as views draw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchTreeNode {
    pub parent: Option<usize>,
    /// The action that made it: `g1`, `i2`, `f1` … for GIF-MCTS, the action's name otherwise.
    pub label: String,
    /// Its expansion in the search's order (`None` for the root and for hand edits).
    pub expansion: Option<usize>,
    /// Its hand edit, in the record's order ([`super::hand_edit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<usize>,
    pub visits: u32,
    /// GIF-MCTS's backed-up value (a bug's temporary value), else the program's score.
    pub value: f64,
    pub bug: bool,
    /// Its program passed only because verdicts were naive (a reward hack).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hacked: bool,
    /// For LATS and Reflexion: the tests the method wrote and ran it on, and what came of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_tested: Option<SelfTestedNode>,
}

impl ProgramSearch {
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

    /// How many times the method looked at the task's own tests: every program, for seed 004's
    /// methods (they are its reward); LATS's checks (`Lats::hidden_checks`); Reflexion's final
    /// answer's.
    pub fn hidden_checks(&self) -> u32 {
        match self.method() {
            AnyMethod::Lats(lats) => lats.hidden_checks(),
            AnyMethod::Reflexion(_) => u32::from(self.answer().is_some()),
            _ => self.expansions().len() as u32,
        }
    }

    /// The tree of programs: GIF-MCTS's expanded nodes; WorldCoder's programs under the one each
    /// refined; zero-shot's samples under the empty program; LATS's tree, its simple solution the
    /// root; Reflexion's programs each under the one before.
    pub fn tree(&self) -> Vec<SearchTreeNode> {
        let root = SearchTreeNode {
            parent: None,
            label: "root".into(),
            expansion: None,
            edit: None,
            visits: 1,
            value: 0.0,
            bug: false,
            hacked: false,
            self_tested: None,
        };
        let expansions = self.expansions();
        let flat = |parent_of: &dyn Fn(usize) -> usize| {
            let children = expansions.iter().enumerate().map(|(i, e)| SearchTreeNode {
                parent: Some(parent_of(i)),
                label: e.kind.name().into(),
                expansion: Some(i),
                edit: None,
                visits: 1,
                value: e.score.score,
                bug: e.score.bug,
                hacked: e.score.hacked,
                self_tested: None,
            });
            std::iter::once(root.clone()).chain(children).collect()
        };
        match self.method() {
            AnyMethod::GifMcts(search) => {
                let nodes = search.nodes();
                // Expanded nodes only, renumbered in the arena's order.
                let kept: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].expanded).collect();
                let index_of = |id: usize| kept.iter().position(|&k| k == id);
                kept.iter()
                    .map(|&i| {
                        let n = &nodes[i];
                        SearchTreeNode {
                            parent: n.parent.and_then(index_of),
                            label: n
                                .action
                                .map_or_else(|| "root".into(), |(kind, k)| format!("{}{k}", &kind.name()[..1])),
                            expansion: n.expansion,
                            edit: None,
                            visits: n.visits,
                            value: n.value(),
                            bug: n.bug,
                            hacked: n.expansion.is_some_and(|e| expansions[e].score.hacked),
                            self_tested: None,
                        }
                    })
                    .collect()
            }
            AnyMethod::WorldCoder(search) => flat(&|i| search.pool()[i].parent.map_or(0, |p| p + 1)),
            AnyMethod::ZeroShot(_) => flat(&|_| 0),
            // Each program under the one it rewrote.
            AnyMethod::Reflexion(search) => {
                let mut tree: Vec<SearchTreeNode> = flat(&|i| i);
                for (node, attempt) in tree.iter_mut().skip(1).zip(search.attempts()) {
                    node.label = if attempt.expansion == 0 { "simple".into() } else { "retry".into() };
                    node.value = attempt.tested.as_ref().map_or(0.0, SelfTested::fraction);
                    node.self_tested = Some(SelfTested::node(attempt.tested.as_ref(), &attempt.reflection, None, None));
                }
                tree
            }
            AnyMethod::Lats(search) if search.nodes().is_empty() => vec![root],
            AnyMethod::Lats(search) => search
                .nodes()
                .iter()
                .map(|n| SearchTreeNode {
                    parent: n.parent,
                    label: if n.parent.is_none() { "simple".into() } else { "child".into() },
                    expansion: Some(n.expansion),
                    edit: None,
                    visits: n.visits,
                    // The mean backed-up value; a node never backed up, its internal tests' share.
                    value: if n.visits > 0 {
                        n.value / f64::from(n.visits)
                    } else {
                        n.tested.as_ref().map_or(0.0, SelfTested::fraction)
                    },
                    bug: expansions[n.expansion].score.bug,
                    hacked: expansions[n.expansion].score.hacked,
                    self_tested: Some(SelfTested::node(n.tested.as_ref(), &n.reflection, n.hidden, Some(n.value))),
                })
                .collect(),
        }
    }
}
