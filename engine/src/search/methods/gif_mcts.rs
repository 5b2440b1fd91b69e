//! GIF-MCTS (seed 004 §4 and App. A; the official code's `GIF_MCTS`): Monte Carlo tree search
//! over programs, where each node is a program and each edge one LLM call that generates
//! (continues the node's first lines), improves (rewrites it from a failing test) or fixes (rewrites
//! it from its error). Read next to `gif_mcts.py` and `code_state_node.py`; every place where this
//! file follows the official code rather than the paper says so, and the differences that change
//! results are switches in [`GifMctsParams`].
//!
//! One iteration, one LLM call:
//! 1. **Select** from the root by UCT, descending while the chosen child is visited and not
//!    terminal. Choosing an unvisited action of a healthy node adds a sibling of its type, so a
//!    healthy node always offers one unexpanded generate and one unexpanded improve.
//! 2. **Expand** it: the method's call, then the program's score in [0, 1], or a bug.
//! 3. Update the type's value model and global mean with the score.
//! 4. **Backpropagate** (γ = 1): a buggy child's value is temporary (0.99, then 0.66, 0.33 as its
//!    fixes fail), so its ancestors only count the visit.
//! 5. After a fix, settle the buggy chain above it: the fixed value, the next temporary value, or
//!    0 and terminal once the fixes are spent.

use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rng::RunRng;
use crate::search::method::{ActionKind, Ask, Expanded, Expansion, Method};
use crate::search::methods::value_model::ValueModel;
use crate::search::scorer::Score;
use crate::search::tree::SearchTreeNode;

/// Seed 004's Table 4 and the official code's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct GifMctsParams {
    /// L: the lines of the reply a child's state keeps beyond its parent's (Table 4: 2).
    pub lines_per_step: u32,
    /// C: the weight of UCT's exploration term (Table 4: 0.1).
    pub exploration: f64,
    /// ε in UCT's denominator, n + ε (Table 4: 1).
    pub epsilon: f64,
    /// γ: the discount of backpropagation (Table 4: 1).
    pub discount: f64,
    /// The global value's prior for generate (Table 4: 0.5) ...
    pub generate_prior: f64,
    /// ... counted as this many scores (Table 4: 2).
    pub generate_prior_count: f64,
    /// The global value's prior for improve (Table 4: 0.55) ...
    pub improve_prior: f64,
    /// ... counted as this many scores (Table 4: 2).
    pub improve_prior_count: f64,
    /// The global value's prior for fix (the official code's `v_f_new_init`, 0.5) ...
    pub fix_prior: f64,
    /// ... counted as this many scores (2).
    pub fix_prior_count: f64,
    /// f: fixes a buggy program may take in a row; its temporary values are linspace(0, 0.99, f + 1)
    /// by fixes left (App. A: 3). 0 turns fixing off (the ablation of Table 6).
    pub fix_chain: u32,
    /// Nodes offer generate beyond the root's first (off: the "no generate" ablation of Table 6).
    pub allow_generate: bool,
    /// Nodes offer improve (off: the "no improve" ablation of Table 6).
    pub allow_improve: bool,
    /// The official code's quirk: a state is stored after a newline, so the line count a child adds
    /// is one more than L after the first level (states of 4, 7, 10 … lines, not 2, 4, 6).
    pub quirk_state_newline: bool,
    /// The official code's quirk: the value model learns from the local value computed with the new
    /// child already counted, at value 0 (it has no visit yet). Off: the other children only.
    pub quirk_local_value_counts_new_child: bool,
    /// The official code's quirk: a selected terminal node is expanded again (the paper calls
    /// this discouraged) and its children are rebuilt from its `initial_actions`, which are fix only
    /// for a node that was ever buggy: a fresh fix replaces the old one, even when the new program
    /// is healthy. Off: the re-expanded node is offered what a fresh expansion of its new program
    /// would be (generate and improve for a healthy one), beside its old children (this project's
    /// earlier rule).
    pub quirk_reexpansion_reoffers_initial_actions: bool,
    /// A node's state and its terminal test come from the reply as the LLM wrote it, as the official
    /// code's `parser.parse` (`first_new_l_lines`, `new_length`); only the full program is formatted
    /// (autopep8) and scored. Off: both come from autopep8's output, which adds lines to most world
    /// models (this project's earlier rule: a terminal node one level deeper, generate continuing a
    /// formatted prefix).
    pub state_from_raw_reply: bool,
}

impl Default for GifMctsParams {
    fn default() -> Self {
        Self {
            lines_per_step: 2,
            exploration: 0.1,
            epsilon: 1.0,
            discount: 1.0,
            generate_prior: 0.5,
            generate_prior_count: 2.0,
            improve_prior: 0.55,
            improve_prior_count: 2.0,
            fix_prior: 0.5,
            fix_prior_count: 2.0,
            fix_chain: 3,
            allow_generate: true,
            allow_improve: true,
            quirk_state_newline: true,
            quirk_local_value_counts_new_child: true,
            quirk_reexpansion_reoffers_initial_actions: true,
            state_from_raw_reply: true,
        }
    }
}

/// One program of the tree; unexpanded nodes are the actions a node offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub parent: Option<usize>,
    /// The action that leads here (`None` for the root) and its number among its type's siblings.
    pub action: Option<(ActionKind, u32)>,
    pub children: Vec<usize>,
    pub expanded: bool,
    pub visits: u32,
    pub value_sum: f64,
    /// A terminal child's score, credited to its parent in backpropagation.
    pub reward: f64,
    pub terminal: bool,
    pub bug: bool,
    pub fixes_left: u32,
    /// The node's state: the first lines of its program (the generate prompt's prefix).
    pub state: String,
    /// The whole program, whose score is the node's value.
    pub program: String,
    /// Kept and exported as `evaluation`, its name before.
    #[serde(rename = "evaluation")]
    pub score: Option<Score>,
    /// Which expansion made it, in the search's order (the latest, for a re-expanded terminal).
    pub expansion: Option<usize>,
    /// The actions its expansions offer (the official code's `initial_actions`).
    #[serde(default)]
    pub initial_actions: InitialActions,
}

/// A node's `initial_actions` in the official code: generate and improve (as the ablations allow)
/// until an expansion of it is a bug that is not terminal, then fix only while fixes are left,
/// else nothing. Once changed it stays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitialActions {
    #[default]
    GenerateImprove,
    FixOnly,
    Nothing,
}

impl Node {
    fn new(parent: Option<usize>, action: Option<(ActionKind, u32)>) -> Self {
        Self {
            parent,
            action,
            children: Vec::new(),
            expanded: false,
            visits: 0,
            value_sum: 0.0,
            reward: 0.0,
            terminal: false,
            bug: false,
            fixes_left: 0,
            state: String::new(),
            program: String::new(),
            score: None,
            expansion: None,
            initial_actions: InitialActions::GenerateImprove,
        }
    }

    /// The mean backed-up value, 0 before the first visit.
    pub fn value(&self) -> f64 {
        if self.visits == 0 { 0.0 } else { self.value_sum / f64::from(self.visits) }
    }

    fn kind(&self) -> Option<ActionKind> {
        self.action.map(|(kind, _)| kind)
    }
}

/// A type's global value: its prior counted as `count` scores, plus every score of that type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GlobalValue {
    sum: f64,
    count: f64,
}

impl GlobalValue {
    fn new(prior: f64, count: f64) -> Self {
        Self { sum: prior * count, count }
    }

    fn mean(&self) -> f64 {
        self.sum / self.count
    }
}

/// The node being expanded: the path from the root, its parent and itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Selection {
    path: Vec<usize>,
    parent: usize,
    child: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GifMcts {
    params: GifMctsParams,
    nodes: Vec<Node>,
    /// Value models and global values by [`ActionKind::index`].
    models: [ValueModel; 3],
    globals: [GlobalValue; 3],
    /// Temporary values of buggy nodes by fixes left.
    bug_values: Vec<f64>,
    selection: Option<Selection>,
    /// Expansions absorbed so far.
    absorbed: usize,
}

impl GifMcts {
    pub fn new(params: GifMctsParams) -> Self {
        let p = &params;
        let models = [
            ValueModel::new(p.generate_prior_count),
            ValueModel::new(p.improve_prior_count),
            ValueModel::new(p.fix_prior_count),
        ];
        let globals = [
            GlobalValue::new(p.generate_prior, p.generate_prior_count),
            GlobalValue::new(p.improve_prior, p.improve_prior_count),
            GlobalValue::new(p.fix_prior, p.fix_prior_count),
        ];
        let f = p.fix_chain;
        // numpy's linspace: k·step, with the last value set to the end exactly.
        let step = if f == 0 { 0.0 } else { 0.99 / f64::from(f) };
        let bug_values = (0..=f).map(|k| if k == f && f > 0 { 0.99 } else { step * f64::from(k) }).collect();
        // The root is the empty program, expanded and visited once, offering generate only.
        let mut root = Node::new(None, None);
        root.expanded = true;
        root.visits = 1;
        root.fixes_left = f;
        let mut search = Self { params, nodes: vec![root], models, globals, bug_values, selection: None, absorbed: 0 };
        search.offer(0, ActionKind::Generate, 1);
        search
    }

    pub fn params(&self) -> &GifMctsParams {
        &self.params
    }

    /// The tree, the root first.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    fn offer(&mut self, parent: usize, kind: ActionKind, number: u32) {
        let id = self.nodes.len();
        self.nodes.push(Node::new(Some(parent), Some((kind, number))));
        self.nodes[parent].children.push(id);
    }

    /// The local value: the mean value of `node`'s expanded children of `kind` (`skip` left out).
    fn local_value(&self, node: usize, kind: ActionKind, skip: Option<usize>) -> Option<f64> {
        let values: Vec<f64> = self.nodes[node]
            .children
            .iter()
            .filter(|&&c| Some(c) != skip && self.nodes[c].expanded && self.nodes[c].kind() == Some(kind))
            .map(|&c| self.nodes[c].value())
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    }

    /// UCT of `child` under `parent`: its mean value if visited, else the value model's estimate for
    /// its type (clipped to [0, 1]) with the exploration term counting the type's expanded siblings.
    pub fn uct(&self, parent: usize, child: usize) -> f64 {
        let p = &self.params;
        let (parent_node, node) = (&self.nodes[parent], &self.nodes[child]);
        let log_visits = f64::from(parent_node.visits).ln();
        if node.visits > 0 {
            return node.value() + p.exploration * (log_visits / (f64::from(node.visits) + p.epsilon)).sqrt();
        }
        let kind = node.kind().expect("only the root has no action");
        let same_type = parent_node.children.iter().filter(|&&c| self.nodes[c].kind() == Some(kind)).count() - 1;
        let exploration = p.exploration * (log_visits / (same_type as f64 + p.epsilon)).sqrt();
        let estimate =
            self.models[kind.index()].predict(self.globals[kind.index()].mean(), self.local_value(parent, kind, None));
        estimate.clamp(0.0, 1.0) + exploration
    }

    /// The child of `node` with the highest UCT, ties broken at random; choosing an unvisited one
    /// of a healthy node offers a sibling of the same type. A buggy child left without fixes (when
    /// fixing is off) offers nothing and is passed over.
    fn select_child(&mut self, node: usize, rng: &mut RunRng) -> Option<usize> {
        let dead_end = |n: &Node| n.expanded && n.children.is_empty() && !n.terminal;
        let children: Vec<usize> =
            self.nodes[node].children.iter().copied().filter(|&c| !dead_end(&self.nodes[c])).collect();
        let scores: Vec<f64> = children.iter().map(|&c| self.uct(node, c)).collect();
        let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<usize> = children.iter().zip(&scores).filter(|(_, s)| **s == best).map(|(c, _)| *c).collect();
        let child = *ties.get(rng.random_range(0..ties.len().max(1)))?;
        if self.nodes[child].visits == 0 && !self.nodes[node].bug {
            let (kind, number) = self.nodes[child].action.expect("children have actions");
            if kind != ActionKind::Generate || self.params.allow_generate {
                self.offer(node, kind, number + 1);
            }
        }
        Some(child)
    }

    /// The lines of a state that a child's count starts from.
    fn state_lines(&self, state: &str) -> usize {
        if self.params.quirk_state_newline {
            state.split('\n').count() + 1
        } else if state.is_empty() {
            0
        } else {
            state.split('\n').count()
        }
    }

    /// After the fix `child` of buggy `parent`: the chain of fix-made nodes above it, up to and
    /// including the first node that was not made by a fix, takes the child's value, the next
    /// temporary value, or 0 and ends, when the fixes are spent.
    fn settle_bug_chain(&mut self, parent: usize, child: usize) {
        if !self.nodes[parent].bug {
            return;
        }
        let (child_bug, fixes_left, child_value) =
            (self.nodes[child].bug, self.nodes[child].fixes_left, self.nodes[child].value());
        let mut node = Some(parent);
        while let Some(id) = node {
            let n = &mut self.nodes[id];
            let visits = f64::from(n.visits);
            match (child_bug, fixes_left) {
                (true, 0) => {
                    n.value_sum = 0.0;
                    n.terminal = true;
                }
                (true, k) => {
                    n.value_sum = self.bug_values[k as usize] * visits;
                    n.bug = false;
                }
                (false, _) => {
                    n.value_sum = child_value * visits;
                    n.bug = false;
                }
            }
            let made_by_fix = n.kind() == Some(ActionKind::Fix);
            node = if made_by_fix { n.parent } else { None };
        }
    }
}

impl Method for GifMcts {
    fn next(&mut self, rng: &mut RunRng) -> Option<Ask> {
        let mut path = vec![0];
        let mut node = 0;
        let child = loop {
            let child = self.select_child(node, rng)?;
            let c = &self.nodes[child];
            if c.terminal || c.visits == 0 {
                break child;
            }
            path.push(child);
            node = child;
        };
        let kind = self.nodes[child].kind().expect("children have actions");
        let parent = &self.nodes[node];
        let code = if kind == ActionKind::Generate { parent.state.clone() } else { parent.program.clone() };
        let expansion = Expansion { kind, code, parent: parent.score.clone() };
        self.selection = Some(Selection { path, parent: node, child });
        Some(Ask::Program(expansion))
    }

    fn absorb(&mut self, expanded: &Expanded, _rng: &mut RunRng) {
        let Some(Selection { mut path, parent, child }) = self.selection.take() else { return };
        let p = &self.params;
        let kind = self.nodes[child].kind().expect("children have actions");
        let score = expanded.score.score;
        let bug = expanded.score.bug;

        // The child's state: the reply's first lines, L more than its parent's (App. A); a reply
        // shorter than that is a finished program, a terminal node whose score is its reward.
        let written = match &expanded.unformatted {
            Some(reply) if p.state_from_raw_reply => reply,
            _ => &expanded.program,
        };
        let lines: Vec<&str> = written.trim_end_matches('\n').split('\n').collect();
        let wanted = self.state_lines(&self.nodes[parent].state) + p.lines_per_step as usize;
        let terminal = lines.len() < wanted;
        let fixes_left =
            if bug && kind == ActionKind::Fix { self.nodes[parent].fixes_left.saturating_sub(1) } else { p.fix_chain };
        let bug_value = self.bug_values[fixes_left as usize];
        let (allow_generate, allow_improve) = (p.allow_generate, p.allow_improve);
        let official_reexpansion = p.quirk_reexpansion_reoffers_initial_actions;
        let reexpanded = self.nodes[child].expanded;
        {
            let node = &mut self.nodes[child];
            node.expanded = true;
            node.state = lines[..lines.len().min(wanted)].join("\n");
            node.program = expanded.program.clone();
            node.score = Some(expanded.score.clone());
            node.expansion = Some(self.absorbed);
            self.absorbed += 1;
            node.terminal = terminal;
            node.bug = bug;
            node.fixes_left = fixes_left;
            node.reward = if terminal { score } else { 0.0 };
            if bug && !terminal {
                node.initial_actions = if bug_value > 0.0 { InitialActions::FixOnly } else { InitialActions::Nothing };
            }
        }
        if !terminal {
            if bug && bug_value > 0.0 {
                self.nodes[child].value_sum += bug_value;
            }
            let offered = if official_reexpansion {
                self.nodes[child].initial_actions
            } else if bug {
                if bug_value > 0.0 { InitialActions::FixOnly } else { InitialActions::Nothing }
            } else {
                InitialActions::GenerateImprove
            };
            let kinds: Vec<ActionKind> = match offered {
                InitialActions::GenerateImprove => {
                    [(allow_generate, ActionKind::Generate), (allow_improve, ActionKind::Improve)]
                        .into_iter()
                        .filter_map(|(allowed, kind)| allowed.then_some(kind))
                        .collect()
                }
                InitialActions::FixOnly => vec![ActionKind::Fix],
                InitialActions::Nothing => Vec::new(),
            };
            if reexpanded && official_reexpansion {
                // The official `children[action] = CodeStateNode()`: the old child of each first
                // action is replaced (it stays in the tree's record, detached).
                let nodes = &self.nodes;
                let replaced = |c: &usize| kinds.iter().any(|&k| nodes[*c].action == Some((k, 1)));
                let kept: Vec<usize> = self.nodes[child].children.iter().copied().filter(|c| !replaced(c)).collect();
                self.nodes[child].children = kept;
            }
            for kind in kinds {
                self.offer(child, kind, 1);
            }
        }

        // The value model learns what this type of action scored here.
        let skip = (!self.params.quirk_local_value_counts_new_child).then_some(child);
        let local = self.local_value(parent, kind, skip);
        let global = self.globals[kind.index()].mean();
        self.models[kind.index()].update(global, local, score);
        let g = &mut self.globals[kind.index()];
        g.sum += score;
        g.count += 1.0;

        // Backpropagation: a terminal child's score is its reward, so its own value is 0.
        let mut value = if terminal { 0.0 } else { score };
        path.push(child);
        for &id in path.iter().rev() {
            let node = &mut self.nodes[id];
            node.value_sum += if bug { node.value() } else { value };
            node.visits += 1;
            value = node.reward + self.params.discount * value;
        }
        self.settle_bug_chain(parent, child);
    }

    /// Its expanded nodes, renumbered in the arena's order, each labelled by its action and the
    /// action's index (`g1`, `i2`, `f1` …) with its backed-up value.
    fn tree(&self, programs: &[Expanded]) -> Vec<SearchTreeNode> {
        let kept: Vec<usize> = (0..self.nodes.len()).filter(|&i| self.nodes[i].expanded).collect();
        let index_of = |id: usize| kept.iter().position(|&k| k == id);
        kept.iter()
            .map(|&i| {
                let n = &self.nodes[i];
                SearchTreeNode {
                    parent: n.parent.and_then(index_of),
                    label: n.action.map_or_else(|| "root".into(), |(kind, k)| format!("{}{k}", &kind.name()[..1])),
                    expansion: n.expansion,
                    edit: None,
                    visits: n.visits,
                    value: n.value(),
                    bug: n.bug,
                    hacked: n.expansion.is_some_and(|e| programs[e].score.hacked),
                    special_cased: n.expansion.and_then(|e| programs[e].score.special_cased()).map(str::to_owned),
                    self_tested: None,
                }
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "gif_mcts_tests.rs"]
mod tests;
