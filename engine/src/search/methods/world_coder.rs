//! WorldCoder as seed 004 re-implements it for comparison (§5.1; the official code's
//! `WorldCoder`): the first call generates a program; every later call refines a program chosen
//! by Thompson sampling over all programs so far, fixing it if it is buggy and improving it
//! otherwise. Each program's Beta starts optimistic in proportion to its score,
//! Beta(1 + C·r, 1 + C·(1 − r)), and a refinement that does not reach a perfect score adds a
//! failure to it. Unlike GIF-MCTS nothing is backed up: a program's chances depend on its own
//! score and its own failed refinements.

use rand_distr::{Beta, Distribution};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rng::RunRng;
use crate::search::method::{ActionKind, Ask, Expanded, Expansion, Method};
use crate::search::scorer::Score;
use crate::search::tree::SearchTreeNode;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct WorldCoderParams {
    /// C: how strongly a program's score shapes its Beta prior (§5.1: 5).
    pub score_weight: f64,
    /// Always refine the newest program instead of sampling (the official code's
    /// `select_sequential` ablation).
    pub sequential: bool,
}

impl Default for WorldCoderParams {
    fn default() -> Self {
        Self { score_weight: 5.0, sequential: false }
    }
}

/// A program in the pool, with its Beta's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The program this one refined (`None` for the first, generated one).
    pub parent: Option<usize>,
    pub program: String,
    /// Kept and exported as `evaluation`, its name before.
    #[serde(rename = "evaluation")]
    pub score: Score,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldCoder {
    params: WorldCoderParams,
    pool: Vec<Candidate>,
    /// The program being refined (`None` while the first one is generated).
    refining: Option<usize>,
}

impl WorldCoder {
    pub fn new(params: WorldCoderParams) -> Self {
        Self { params, pool: Vec::new(), refining: None }
    }

    /// One draw from each program's Beta; the highest wins.
    fn sample(&self, rng: &mut RunRng) -> usize {
        let mut best = (0, f64::NEG_INFINITY);
        for (i, c) in self.pool.iter().enumerate() {
            let draw = Beta::new(c.alpha, c.beta).expect("both parameters are at least 1").sample(rng);
            if draw > best.1 {
                best = (i, draw);
            }
        }
        best.0
    }
}

impl Method for WorldCoder {
    fn next(&mut self, rng: &mut RunRng) -> Option<Ask> {
        if self.pool.is_empty() {
            self.refining = None;
            return Some(Ask::Program(Expansion { kind: ActionKind::Generate, code: String::new(), parent: None }));
        }
        let chosen = if self.params.sequential { self.pool.len() - 1 } else { self.sample(rng) };
        self.refining = Some(chosen);
        let c = &self.pool[chosen];
        let kind = if c.score.bug { ActionKind::Fix } else { ActionKind::Improve };
        Some(Ask::Program(Expansion { kind, code: c.program.clone(), parent: Some(c.score.clone()) }))
    }

    fn absorb(&mut self, expanded: &Expanded, _rng: &mut RunRng) {
        let r = expanded.score.score;
        let parent = self.refining.take();
        if let Some(refined) = parent {
            let strict = if r >= 1.0 { 1.0 } else { 0.0 };
            self.pool[refined].alpha += strict;
            self.pool[refined].beta += 1.0 - strict;
        }
        let c = self.params.score_weight;
        self.pool.push(Candidate {
            parent,
            program: expanded.program.clone(),
            score: expanded.score.clone(),
            alpha: 1.0 + c * r,
            beta: 1.0 + c * (1.0 - r),
        });
    }

    /// Each program under the one it refined.
    fn tree(&self, programs: &[Expanded]) -> Vec<SearchTreeNode> {
        SearchTreeNode::programs(programs, |i| self.pool[i].parent.map_or(0, |p| p + 1))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn expanded(kind: ActionKind, value: f64, bug: bool) -> Expanded {
        let score = Score { score: value, bug, error: bug.then(|| "SyntaxError (line 1)".into()), ..Score::default() };
        Expanded { kind, program: format!("x = {value}\n"), unformatted: None, score, kept_prefix: None, llm_calls: 1 }
    }

    #[test]
    fn generate_first_then_fix_the_buggy_and_improve_the_healthy_with_the_betas_worked_by_hand() {
        let mut rng = RunRng::seed_from_u64(1);
        let mut method = WorldCoder::new(WorldCoderParams::default());
        let first = method.next(&mut rng).and_then(Ask::program).unwrap();
        assert_eq!((first.kind, first.code.as_str()), (ActionKind::Generate, ""));
        method.absorb(&expanded(ActionKind::Generate, 0.0, true), &mut rng);
        // A bug scores 0: Beta(1, 6).
        assert_eq!((method.pool[0].alpha, method.pool[0].beta), (1.0, 6.0));
        let second = method.next(&mut rng).and_then(Ask::program).unwrap();
        assert_eq!((second.kind, second.parent.unwrap().bug), (ActionKind::Fix, true));
        method.absorb(&expanded(ActionKind::Fix, 0.6, false), &mut rng);
        // The refined program failed to reach 1: β += 1. The new one: Beta(1 + 5·0.6, 1 + 5·0.4).
        assert_eq!((method.pool[0].alpha, method.pool[0].beta), (1.0, 7.0));
        let (a, b) = (method.pool[1].alpha, method.pool[1].beta);
        assert!((a - 4.0).abs() < 1e-12 && (b - 3.0).abs() < 1e-12, "{a} {b}");
    }

    #[test]
    fn thompson_sampling_prefers_the_better_program_in_proportion() {
        // Beta(4, 3) against Beta(1, 7): the first wins a draw with probability 0.9 and more.
        let mut method = WorldCoder::new(WorldCoderParams::default());
        method.pool = vec![
            Candidate {
                parent: None,
                program: "a".into(),
                score: expanded(ActionKind::Improve, 0.6, false).score,
                alpha: 4.0,
                beta: 3.0,
            },
            Candidate {
                parent: None,
                program: "b".into(),
                score: expanded(ActionKind::Fix, 0.0, true).score,
                alpha: 1.0,
                beta: 7.0,
            },
        ];
        let mut rng = RunRng::seed_from_u64(3);
        let wins = (0..2000).filter(|_| method.sample(&mut rng) == 0).count();
        assert!((1800..2000).contains(&wins), "{wins}");
        method.params.sequential = true;
        assert_eq!(
            method.next(&mut rng).and_then(Ask::program).unwrap().kind,
            ActionKind::Fix,
            "sequential refines the newest"
        );
    }
}
