//! LATS, Language Agent Tree Search (Zhou et al., ICML 2024), for code, as its official
//! `programming/mcts.py` runs it (`run_lats_gpt4.sh`: 8 iterations, 2 tests; GPT-3.5's: 4 and 4):
//!
//! 1. The LLM writes unit tests for the task; `tests` of them are sampled (the internal tests).
//! 2. The root is a "simple" solution. If it passes its internal tests, the task's own (hidden)
//!    tests decide, and the search is over. Otherwise the LLM reflects on it.
//! 3. `max_iters` iterations, each of which: regenerates the internal tests; descends from the root
//!    by UCT to a leaf; and `children` times, generates a child of the leaf from the feedback and
//!    reflections along its path, then — the official loop, which is inside the expansion loop —
//!    runs *every* child of the leaf so far on the internal tests, in order, reflecting on each one
//!    that fails, until one passes them (or, in the last iteration, at the first child): that child's
//!    hidden tests are checked and the loop stops there. The last child run gets the reward, the
//!    fraction of internal tests passed plus 1 if its hidden tests passed, backed up to the root
//!    (the +1 never lands: a child whose hidden tests pass ends the search before the update).
//! 4. UCT is `value/visits + 1.0·sqrt(ln N_parent / visits)`, and an unvisited node's is its value.
//! 5. The answer is the child whose hidden tests passed, else the root's child of highest value.
//!
//! Two modes. **Official**: hidden tests are checked as above, each time a child passes its
//! internal tests and on every child run in the last iteration, and the search stops at the first
//! that passes; the official code reports the result as pass@1, though it is closer to pass@k.
//! **Strict**: the method never sees the hidden tests. A program that passes its internal tests is
//! the answer (the root's rule), and the task's tests judge the answer once: true pass@1.
//!
//! Ours, where the official code differs (labelled where the page shows LATS): the generation
//! prompt recalls each program of the path with its feedback and reflection, where the official
//! code zips the leaf's program text with them character by character (`generate_with_accumulated_
//! context` is passed a string); a reply without code is the empty program, where the official code
//! asks again; a task without internal tests to run rewards 0, where it divides by zero. The search
//! machinery scores every program on the task's tests for the record and the views: only the
//! official mode's checks above reach the method.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prompts::id;
use crate::python::ProgramVerdict;
use crate::rng::RunRng;
use crate::search::method::{ActionKind, Answering, Ask, Expanded, Expansion, Method, TextAct, TextAsk};
use crate::search::methods::own_tests::{Attempt, SelfTested, history, reflect, rewrite, tests_in};
use crate::search::tree::SearchTreeNode;

/// How a LATS search uses the task's own tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HiddenTests {
    /// As the official code checks them: whenever a child passes its internal tests, and on every
    /// child run in the last iteration (closer to pass@k).
    #[default]
    Official,
    /// Once, on the final answer (pass@1).
    Strict,
}

impl HiddenTests {
    pub const NAMES: [&str; 2] = ["official", "strict"];

    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "official" => Ok(Self::Official),
            "strict" => Ok(Self::Strict),
            _ => Err(format!("unknown mode '{name}'; valid: {}", Self::NAMES.join(", "))),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LatsParams {
    /// Iterations after the root (`max_iters`): 8 in the official GPT-4 run, 4 in GPT-3.5's.
    pub max_iters: u32,
    /// Children generated per iteration (`n`): 5 in both runs (`expansion_factor` is dropped for MCTS).
    pub children: u32,
    /// Internal tests sampled from each set the LLM writes (`number_of_tests`): 2 for GPT-4, 4 for GPT-3.5.
    pub tests: u32,
    /// UCT's exploration weight (`Node.uct`).
    pub exploration: f64,
    /// How the task's own tests are used.
    pub mode: HiddenTests,
}

impl Default for LatsParams {
    fn default() -> Self {
        Self { max_iters: 8, children: 5, tests: 2, exploration: 1.0, mode: HiddenTests::Official }
    }
}

/// A node: a program, what its internal tests said, and its backed-up value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatsNode {
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Its program's place among the search's expansions.
    pub expansion: usize,
    pub program: String,
    /// The sum of the rewards backed up through it (the official `value`).
    pub value: f64,
    pub visits: u32,
    /// Its last run on the internal tests (none until it ran).
    pub tested: Option<SelfTested>,
    pub reflection: String,
    /// Whether its hidden tests passed, when the method checked them (official mode).
    pub hidden: Option<bool>,
    /// Its score on the task's tests, which only the official mode's checks read.
    hidden_score: f64,
}

/// Where the search is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    RootTests,
    RootProgram,
    RootRun,
    RootReflect,
    IterationTests,
    /// Generating child `j` of the leaf.
    Expand,
    /// Running the leaf's child `i` on the internal tests.
    Simulate(usize),
    Reflect(usize),
    Done,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lats {
    pub params: LatsParams,
    nodes: Vec<LatsNode>,
    phase: Phase,
    tests: Vec<String>,
    iteration: u32,
    leaf: usize,
    /// Children generated in this iteration.
    generated: u32,
    /// The node whose hidden tests passed (official), or that passed its internal tests (strict).
    answered: Option<usize>,
    /// Programs absorbed, which is the next one's expansion index.
    absorbed: usize,
    /// Hidden-test checks made during the search (official mode).
    checks: u32,
    ended: String,
}

impl Lats {
    pub fn new(params: LatsParams) -> Self {
        Self {
            params,
            nodes: Vec::new(),
            phase: Phase::RootTests,
            tests: Vec::new(),
            iteration: 0,
            leaf: 0,
            generated: 0,
            answered: None,
            absorbed: 0,
            checks: 0,
            ended: String::new(),
        }
    }

    /// How many times it looked at the task's own tests: its checks during the search, and the
    /// final answer's (the official code's last `evaluate`) unless that was one of them.
    pub fn hidden_checks(&self) -> u32 {
        let answer_checked = self.answered.is_some_and(|n| self.nodes[n].hidden.is_some());
        self.checks + u32::from(!self.nodes.is_empty() && !answer_checked)
    }

    /// `Node.uct`: the mean value plus the exploration bonus, or the value while unvisited.
    pub fn uct(&self, node: usize) -> f64 {
        let n = &self.nodes[node];
        if n.visits == 0 {
            return n.value;
        }
        let parent_visits = n.parent.map_or(0, |p| self.nodes[p].visits);
        let visits = f64::from(n.visits);
        n.value / visits + self.params.exploration * (f64::from(parent_visits).ln() / visits).sqrt()
    }

    /// The first child that maximises `key` (Python's `max`), if any.
    fn first_max(&self, node: usize, key: impl Fn(usize) -> f64) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for &child in &self.nodes[node].children {
            let k = key(child);
            if best.is_none_or(|(_, b)| k > b) {
                best = Some((child, k));
            }
        }
        best.map(|(child, _)| child)
    }

    /// Descends from the root by UCT (`best_child`) to a node without children.
    fn select_leaf(&self) -> usize {
        let mut node = 0;
        while let Some(child) = self.first_max(node, |c| self.uct(c)) {
            node = child;
        }
        node
    }

    /// `update` on `node` and every ancestor.
    fn backpropagate(&mut self, node: usize, reward: f64) {
        let mut at = Some(node);
        while let Some(n) = at {
            self.nodes[n].visits += 1;
            self.nodes[n].value += reward;
            at = self.nodes[n].parent;
        }
    }

    fn finish(&mut self, why: &str) {
        self.phase = Phase::Done;
        self.ended = why.to_owned();
    }

    /// The hidden tests' say on `node`, in official mode (counted); never read in strict mode.
    fn hidden_passes(&mut self, node: usize) -> bool {
        self.checks += 1;
        let passed = self.nodes[node].hidden_score >= 1.0;
        self.nodes[node].hidden = Some(passed);
        passed
    }

    fn new_tests(&mut self, reply: Option<&str>, rng: &mut RunRng) {
        self.tests = tests_in(reply.unwrap_or_default(), self.params.tests as usize, rng);
    }

    /// Records a run of `node` on the internal tests; whether it passed them.
    fn ran(&mut self, node: usize, verdict: &ProgramVerdict) -> bool {
        let tested = SelfTested::of(&self.tests, verdict);
        let passes = tested.passes();
        self.nodes[node].tested = Some(tested);
        passes
    }

    fn reflect_on(&self, node: usize) -> Ask {
        reflect(&self.nodes[node].program, self.nodes[node].tested.as_ref())
    }

    /// The share of its internal tests `node` passed in its last run (0 before any).
    fn internal(&self, node: usize) -> f64 {
        self.nodes[node].tested.as_ref().map_or(0.0, SelfTested::fraction)
    }

    /// After the leaf's child `i` ran (and was reflected on): the hidden tests' check, the next
    /// child to run, or the reward for this expansion (the official simulation loop).
    fn simulated(&mut self, i: usize) {
        let child = self.nodes[self.leaf].children[i];
        let passed = self.nodes[child].tested.as_ref().is_some_and(SelfTested::passes);
        let last_iteration = self.iteration + 1 == self.params.max_iters;
        let internal = self.internal(child);
        if passed || last_iteration {
            match self.params.mode {
                HiddenTests::Official => {
                    if self.hidden_passes(child) {
                        self.answered = Some(child);
                        return self.finish("a child's hidden tests passed");
                    }
                }
                HiddenTests::Strict if passed => {
                    self.answered = Some(child);
                    let why =
                        self.nodes[child].tested.as_ref().map(|t| t.why_the_answer("a child")).unwrap_or_default();
                    return self.finish(&why);
                }
                HiddenTests::Strict => {}
            }
            // The hidden tests failed (or were not looked at): their part of the reward is 0.
            return self.rewarded(child, internal);
        }
        if i + 1 < self.nodes[self.leaf].children.len() {
            self.phase = Phase::Simulate(i + 1);
        } else {
            self.rewarded(child, internal);
        }
    }

    /// The reward backed up from `child`, then the next child, iteration, or the end.
    fn rewarded(&mut self, child: usize, reward: f64) {
        self.backpropagate(child, reward);
        self.generated += 1;
        if self.generated < self.params.children {
            self.phase = Phase::Expand;
            return;
        }
        self.iteration += 1;
        if self.iteration < self.params.max_iters {
            self.phase = Phase::IterationTests;
        } else {
            self.finish("the iterations are done: the root's child of highest value is the answer");
        }
    }

    /// The path's programs with their feedback and reflections, the root's first.
    fn attempts(&self, node: usize) -> Vec<Attempt<'_>> {
        let mut path = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            path.push(n);
            at = self.nodes[n].parent;
        }
        path.iter()
            .rev()
            .map(|&n| &self.nodes[n])
            .filter_map(|n| {
                let feedback = n.tested.as_ref()?.feedback();
                Some(Attempt { program: &n.program, feedback, reflection: &n.reflection })
            })
            .collect()
    }
}

impl Method for Lats {
    fn next(&mut self, _rng: &mut RunRng) -> Option<Ask> {
        let write_tests = || {
            Ask::Text(TextAsk { act: TextAct::WriteTests, code: String::new(), feedback: String::new(), failing: None })
        };
        match self.phase {
            Phase::RootTests | Phase::IterationTests => Some(write_tests()),
            Phase::RootProgram => {
                Some(Ask::Program(Expansion { kind: ActionKind::Generate, code: String::new(), parent: None }))
            }
            Phase::RootRun => Some(Ask::Run { program: self.nodes[0].program.clone(), tests: self.tests.clone() }),
            Phase::RootReflect => Some(self.reflect_on(0)),
            Phase::Expand => {
                let leaf = &self.nodes[self.leaf];
                Some(Ask::Program(rewrite(&leaf.program, leaf.tested.as_ref())))
            }
            Phase::Simulate(i) => {
                let child = self.nodes[self.leaf].children[i];
                Some(Ask::Run { program: self.nodes[child].program.clone(), tests: self.tests.clone() })
            }
            Phase::Reflect(i) => Some(self.reflect_on(self.nodes[self.leaf].children[i])),
            Phase::Done => None,
        }
    }

    fn absorb(&mut self, expanded: &Expanded, _rng: &mut RunRng) {
        let node = LatsNode {
            expansion: self.absorbed,
            program: expanded.program.clone(),
            hidden_score: expanded.score.score,
            ..LatsNode::default()
        };
        self.absorbed += 1;
        match self.phase {
            Phase::RootProgram => {
                self.nodes.push(node);
                self.phase = Phase::RootRun;
            }
            Phase::Expand => {
                let id = self.nodes.len();
                self.nodes.push(LatsNode { parent: Some(self.leaf), ..node });
                self.nodes[self.leaf].children.push(id);
                self.phase = Phase::Simulate(0);
            }
            _ => {}
        }
    }

    fn absorb_text(&mut self, reply: Option<&str>, rng: &mut RunRng) {
        match self.phase {
            Phase::RootTests => {
                self.new_tests(reply, rng);
                self.phase = Phase::RootProgram;
            }
            Phase::IterationTests => {
                self.new_tests(reply, rng);
                self.leaf = self.select_leaf();
                self.generated = 0;
                self.phase = Phase::Expand;
            }
            Phase::RootReflect => {
                self.nodes[0].reflection = reply.unwrap_or_default().trim().to_owned();
                if self.params.max_iters == 0 {
                    return self.finish("no iterations: the root is the answer");
                }
                self.phase = Phase::IterationTests;
            }
            Phase::Reflect(i) => {
                let child = self.nodes[self.leaf].children[i];
                self.nodes[child].reflection = reply.unwrap_or_default().trim().to_owned();
                self.simulated(i);
            }
            _ => {}
        }
    }

    fn absorb_run(&mut self, verdict: &ProgramVerdict, _rng: &mut RunRng) {
        match self.phase {
            Phase::RootRun => {
                if !self.ran(0, verdict) {
                    self.phase = Phase::RootReflect;
                    return;
                }
                self.answered = Some(0);
                if self.params.mode == HiddenTests::Official {
                    self.hidden_passes(0);
                }
                let why = self.nodes[0].tested.as_ref().map(|t| t.why_the_answer("the root")).unwrap_or_default();
                self.finish(&why);
            }
            Phase::Simulate(i) => {
                let child = self.nodes[self.leaf].children[i];
                if self.ran(child, verdict) {
                    self.nodes[child].reflection.clear();
                    self.simulated(i);
                } else {
                    self.phase = Phase::Reflect(i);
                }
            }
            _ => {}
        }
    }

    fn prompt_id(&self, kind: ActionKind) -> &'static str {
        if kind == ActionKind::Generate { id::LATS_SIMPLE } else { id::LATS_IMPROVE }
    }

    fn prompt_values(&self) -> Vec<(&'static str, String)> {
        match self.phase {
            Phase::Expand => vec![("history", history(&self.attempts(self.leaf)))],
            _ => Vec::new(),
        }
    }

    fn answer(&self) -> Answering {
        let chosen = self
            .answered
            .or_else(|| self.nodes.first().map(|_| self.first_max(0, |c| self.nodes[c].value).unwrap_or(0)));
        Answering::Chosen(chosen.map(|node| self.nodes[node].expansion))
    }

    fn why_done(&self) -> String {
        self.ended.clone()
    }

    fn hidden_test_looks(&self, _programs: usize, _answered: bool) -> u32 {
        self.hidden_checks()
    }

    /// Its tree, the simple solution the root, each node valued by its mean backed-up value (one
    /// never backed up, by its share of its internal tests).
    fn tree(&self, programs: &[Expanded]) -> Vec<SearchTreeNode> {
        if self.nodes.is_empty() {
            return vec![SearchTreeNode::root()];
        }
        self.nodes
            .iter()
            .map(|n| SearchTreeNode {
                parent: n.parent,
                label: if n.parent.is_none() { "simple".into() } else { "child".into() },
                expansion: Some(n.expansion),
                edit: None,
                visits: n.visits,
                value: if n.visits > 0 {
                    n.value / f64::from(n.visits)
                } else {
                    n.tested.as_ref().map_or(0.0, SelfTested::fraction)
                },
                bug: programs[n.expansion].score.bug,
                hacked: programs[n.expansion].score.hacked,
                special_cased: programs[n.expansion].score.special_cased().map(str::to_owned),
                self_tested: Some(SelfTested::node(n.tested.as_ref(), &n.reflection, n.hidden, Some(n.value))),
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "lats_tests.rs"]
mod tests;
