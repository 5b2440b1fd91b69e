//! CCCS, the Curriculum of Code Completion Subtasks (seed 002 §3.1–3.2, Algorithm 1 lines 1–3,
//! 9–10 and 16–26). A task's canonical solution is cut at the starts of its conditional
//! statements. The policy first writes only the end of the solution, the front given in its prompt;
//! each time its moving pass rate ρ passes the threshold, the cut moves one stage towards the start,
//! until it writes the whole program from the requirement alone.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::python::{Scope, ScopeKind};

/// Which of APPS+'s `scope` kinds count as conditional statements: the paper does not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKinds {
    /// All twelve kinds of the released attribute (function bodies and comprehensions included).
    #[default]
    All,
    /// Control flow only: if, for, while, try and except.
    ControlFlow,
}

impl ScopeKinds {
    pub fn counts(self, kind: ScopeKind) -> bool {
        match self {
            ScopeKinds::All => true,
            ScopeKinds::ControlFlow => kind.is_control_flow(),
        }
    }
}

/// When ρ is updated: Algorithm 1 updates it once per sample, but samples 16 rollouts per task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RhoUpdate {
    /// Once per rollout, in order (the algorithm read literally).
    #[default]
    PerRollout,
    /// Once per batch of rollouts, with the batch's pass rate in place of the 0/1 outcome.
    PerBatch,
}

/// The curriculum's settings. α and ρ_t are given nowhere in the paper (nor in the authors'
/// released code): the defaults are the playground's, and need 16 passes in a row to advance.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CurriculumParams {
    /// α: the weight of the newest outcome in the moving pass rate ρ (not from the paper).
    pub alpha: f64,
    /// ρ_t: the curriculum moves one stage towards the full task when ρ exceeds it (not from the
    /// paper).
    pub rho_threshold: f64,
    /// Which AST kinds count as conditional statements (the paper does not say).
    pub kinds: ScopeKinds,
    /// Whether ρ is updated per rollout or per batch (the paper does not say).
    pub update: RhoUpdate,
}

impl Default for CurriculumParams {
    fn default() -> Self {
        Self { alpha: 0.1, rho_threshold: 0.8, kinds: ScopeKinds::All, update: RhoUpdate::PerRollout }
    }
}

/// One task's curriculum: its cut points and where it stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curriculum {
    /// The start lines of the counted conditional statements, sorted (e_i's st_j).
    pub starts: Vec<u32>,
    /// k = ⌈√E⌉ stages (at least one: the full task).
    pub stages: usize,
    /// s = ⌈E / k⌉: how many statements one stage moves the cut.
    pub stride: usize,
    /// c: the current stage, from k − 1 down to 0 (the full task).
    pub stage: usize,
    /// ρ: the moving pass rate at this stage.
    pub rho: f64,
    pub params: CurriculumParams,
}

/// One stage of a curriculum: where the policy starts writing and how much is given.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageView {
    /// c: k − 1 first, 0 the full task.
    pub stage: usize,
    pub start_line: Option<u32>,
    /// Canonical lines in the prompt.
    pub prefix_lines: usize,
    /// Their share of the canonical solution's lines.
    pub share_given: f64,
}

/// ⌈√n⌉ in integers, exact for every `usize`.
fn ceil_sqrt(n: usize) -> usize {
    let square = |root: usize| root.checked_mul(root);
    let mut root = (n as f64).sqrt() as usize;
    while square(root).is_none_or(|s| s > n) {
        root -= 1;
    }
    while square(root).is_some_and(|s| s < n) {
        root += 1;
    }
    root
}

impl Curriculum {
    /// The curriculum of a canonical solution with this `scope`, at its first stage (c = k − 1,
    /// ρ = 0). With fewer than two statements there is one stage: the full task.
    pub fn new(scope: &[Scope], params: CurriculumParams) -> Self {
        let mut starts: Vec<u32> = scope.iter().filter(|s| params.kinds.counts(s.kind)).map(|s| s.start).collect();
        starts.sort_unstable();
        let count = starts.len();
        let stages = ceil_sqrt(count).max(1);
        let stride = count.div_ceil(stages);
        Self { starts, stages, stride, stage: stages - 1, rho: 0.0, params }
    }

    /// E: how many conditional statements count.
    pub fn statements(&self) -> usize {
        self.starts.len()
    }

    /// The first line the policy writes at stage `c` (Algorithm 1 line 9: the start of statement
    /// s·c); none at c = 0, where it writes everything.
    pub fn start_line_at(&self, c: usize) -> Option<u32> {
        (c > 0).then(|| self.starts[self.stride * c])
    }

    pub fn start_line(&self) -> Option<u32> {
        self.start_line_at(self.stage)
    }

    /// How many canonical lines the prompt gives at stage `c` (x_p, line 10).
    pub fn prefix_lines_at(&self, c: usize) -> usize {
        self.start_line_at(c).map_or(0, |line| line as usize - 1)
    }

    /// The canonical lines before the cut at stage `c`, each with its newline.
    pub fn prefix_at<'a>(&self, canonical: &'a str, c: usize) -> &'a str {
        let lines = self.prefix_lines_at(c);
        let end = canonical.split_inclusive('\n').take(lines).map(str::len).sum();
        &canonical[..end]
    }

    /// Every stage from the first (c = k − 1) to the full task, as the curriculum inspector shows
    /// them for `canonical`.
    pub fn stage_views(&self, canonical: &str) -> Vec<StageView> {
        let total = canonical.lines().count().max(1);
        (0..self.stages)
            .rev()
            .map(|stage| {
                let prefix_lines = self.prefix_lines_at(stage);
                StageView {
                    stage,
                    start_line: self.start_line_at(stage),
                    prefix_lines,
                    share_given: prefix_lines as f64 / total as f64,
                }
            })
            .collect()
    }

    pub fn is_full_task(&self) -> bool {
        self.stage == 0
    }

    /// Records whether one sample passed every test (lines 16–26): ρ ← α + (1 − α)ρ on a pass,
    /// (1 − α)ρ otherwise; past ρ_t the cut moves one stage back (the paper's `min(c − 1, 0)` is
    /// a misprint for `max`) and ρ starts again from 0. Returns whether it moved.
    pub fn record(&mut self, passed: bool) -> bool {
        self.record_rate(if passed { 1.0 } else { 0.0 })
    }

    /// Records a batch's samples at once, per [`RhoUpdate`]. Returns whether the stage moved.
    pub fn record_batch(&mut self, passed: &[bool]) -> bool {
        if passed.is_empty() {
            return false;
        }
        match self.params.update {
            // Recording stops at a stage advance: the batch's later samples were drawn at the
            // easier stage and say nothing about the new one, whose ρ starts from 0.
            RhoUpdate::PerRollout => passed.iter().any(|&p| self.record(p)),
            RhoUpdate::PerBatch => self.record_rate(passed.iter().filter(|&&p| p).count() as f64 / passed.len() as f64),
        }
    }

    fn record_rate(&mut self, rate: f64) -> bool {
        let alpha = self.params.alpha;
        self.rho = alpha * rate + (1.0 - alpha) * self.rho;
        if self.rho > self.params.rho_threshold && self.stage > 0 {
            self.rho = 0.0;
            self.stage -= 1;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ifs(count: usize) -> Vec<Scope> {
        // Statements start on lines 2, 4, 6, …: start line = 2 × (index + 1).
        (0..count).map(|i| Scope { kind: ScopeKind::If, start: 2 * (i as u32 + 1), end: 2 * (i as u32 + 1) }).collect()
    }

    /// The sheet's table of E → (k, s, e-indices of the stages c = k − 1 … 1).
    #[test]
    fn stages_and_strides_follow_the_table() {
        let table: [(usize, usize, usize, &[usize]); 14] = [
            (1, 1, 1, &[]),
            (2, 2, 1, &[1]),
            (3, 2, 2, &[2]),
            (4, 2, 2, &[2]),
            (5, 3, 2, &[4, 2]),
            (6, 3, 2, &[4, 2]),
            (7, 3, 3, &[6, 3]),
            (9, 3, 3, &[6, 3]),
            (10, 4, 3, &[9, 6, 3]),
            (12, 4, 3, &[9, 6, 3]),
            (13, 4, 4, &[12, 8, 4]),
            (16, 4, 4, &[12, 8, 4]),
            (17, 5, 4, &[16, 12, 8, 4]),
            (20, 5, 4, &[16, 12, 8, 4]),
        ];
        for (count, k, s, indices) in table {
            let curriculum = Curriculum::new(&ifs(count), CurriculumParams::default());
            assert_eq!((curriculum.stages, curriculum.stride), (k, s), "E = {count}");
            assert_eq!(curriculum.stage, k - 1, "E = {count} starts at c = k − 1");
            let starts: Vec<u32> = (1..k).rev().map(|c| curriculum.start_line_at(c).unwrap()).collect();
            let expected: Vec<u32> = indices.iter().map(|&i| 2 * (i as u32 + 1)).collect();
            assert_eq!(starts, expected, "E = {count}");
            assert_eq!(curriculum.start_line_at(0), None, "E = {count}: no prefix at c = 0");
        }
        assert_eq!(Curriculum::new(&ifs(25), CurriculumParams::default()).stride, 5);
        let thirty = Curriculum::new(&ifs(30), CurriculumParams::default());
        assert_eq!((thirty.stages, thirty.stride, thirty.start_line_at(5)), (6, 5, Some(2 * 26)));
        let none = Curriculum::new(&[], CurriculumParams::default());
        assert_eq!((none.stages, none.stage, none.start_line()), (1, 0, None));
    }

    #[test]
    fn the_index_s_times_c_is_always_a_statement() {
        for count in 1..=2_000 {
            let curriculum = Curriculum::new(&ifs(count), CurriculumParams::default());
            assert!(curriculum.stride * (curriculum.stages - 1) < count.max(1), "E = {count}");
        }
        assert_eq!((ceil_sqrt(0), ceil_sqrt(15), ceil_sqrt(16), ceil_sqrt(17)), (0, 4, 4, 5));
        assert_eq!(ceil_sqrt(usize::MAX), 1 << (usize::BITS / 2));
    }

    #[test]
    fn statements_are_sorted_and_filtered_by_kind() {
        let scope = [
            Scope { kind: ScopeKind::Function, start: 1, end: 9 },
            Scope { kind: ScopeKind::Except, start: 7, end: 8 },
            Scope { kind: ScopeKind::Try, start: 3, end: 8 },
            Scope { kind: ScopeKind::ListComprehension, start: 4, end: 4 },
            Scope { kind: ScopeKind::For, start: 5, end: 6 },
        ];
        let all = Curriculum::new(&scope, CurriculumParams::default());
        assert_eq!(all.starts, [1, 3, 4, 5, 7]);
        let control = CurriculumParams { kinds: ScopeKinds::ControlFlow, ..CurriculumParams::default() };
        assert_eq!(Curriculum::new(&scope, control).starts, [3, 5, 7]);
        // E = 5: k = 3, s = 2; stage 2 starts at statement 4 (line 7), stage 1 at statement 2 (line 4).
        assert_eq!((all.start_line_at(2), all.start_line_at(1)), (Some(7), Some(4)));
    }

    #[test]
    fn the_prefix_is_the_canonical_lines_before_the_cut() {
        let canonical = "def f(x):\n    y = 0\n    if x:\n        y = 1\n    return y";
        let scope =
            [Scope { kind: ScopeKind::Function, start: 1, end: 5 }, Scope { kind: ScopeKind::If, start: 3, end: 4 }];
        let curriculum = Curriculum::new(&scope, CurriculumParams::default());
        assert_eq!((curriculum.stages, curriculum.stage, curriculum.start_line()), (2, 1, Some(3)));
        assert_eq!(curriculum.prefix_at(canonical, 1), "def f(x):\n    y = 0\n");
        assert_eq!(curriculum.prefix_lines_at(1), 2);
        assert_eq!(curriculum.prefix_at(canonical, 0), "");
        let views = curriculum.stage_views(canonical);
        assert_eq!(views.len(), 2);
        assert_eq!((views[0].stage, views[0].start_line, views[0].prefix_lines), (1, Some(3), 2));
        assert!((views[0].share_given - 0.4).abs() < 1e-12, "2 of 5 lines");
        assert_eq!((views[1].stage, views[1].start_line, views[1].share_given), (0, None, 0.0));
    }

    /// α = 0.1, ρ_t = 0.8: ρ after n passes from 0 is 1 − 0.9ⁿ, which first exceeds 0.8 at n = 16
    /// (0.9¹⁵ = 0.206, 0.9¹⁶ = 0.185).
    #[test]
    fn sixteen_passes_in_a_row_advance_a_stage() {
        let mut curriculum = Curriculum::new(&ifs(5), CurriculumParams::default());
        assert_eq!(curriculum.stage, 2);
        for pass in 1..=15 {
            assert!(!curriculum.record(true), "pass {pass}");
        }
        assert!((curriculum.rho - (1.0 - 0.9f64.powi(15))).abs() < 1e-12);
        assert!(curriculum.record(true));
        assert_eq!((curriculum.stage, curriculum.rho), (1, 0.0), "max(c − 1, 0), not min: one stage back");
        curriculum.record(true);
        assert!((curriculum.rho - 0.1).abs() < 1e-12);
        curriculum.record(false);
        assert!((curriculum.rho - 0.09).abs() < 1e-12, "a failure decays ρ by 1 − α");
    }

    #[test]
    fn the_full_task_is_the_last_stage() {
        let mut curriculum = Curriculum::new(&ifs(2), CurriculumParams { alpha: 0.5, ..CurriculumParams::default() });
        // α = 0.5: 0.5, 0.75, 0.875 > 0.8 after three passes.
        assert!(!curriculum.record_batch(&[true, true]));
        assert!(curriculum.record_batch(&[true]));
        assert!(curriculum.is_full_task());
        for _ in 0..10 {
            assert!(!curriculum.record(true), "c stays at 0");
        }
    }

    #[test]
    fn a_batch_update_uses_the_batch_pass_rate() {
        let params = CurriculumParams { update: RhoUpdate::PerBatch, ..CurriculumParams::default() };
        let mut curriculum = Curriculum::new(&ifs(4), params);
        curriculum.record_batch(&[true, false, true, true]);
        assert!((curriculum.rho - 0.075).abs() < 1e-12, "0.1 × 3/4");
        let mut per_rollout = Curriculum::new(&ifs(4), CurriculumParams::default());
        per_rollout.record_batch(&[true, false, true, true]);
        // ((0.1 × 0.9) × 0.9 + 0.1) × 0.9 + 0.1 = 0.2629
        assert!((per_rollout.rho - 0.2629).abs() < 1e-12, "{}", per_rollout.rho);
    }

    #[test]
    fn an_advance_inside_a_batch_carries_none_of_its_later_samples_over() {
        let mut curriculum = Curriculum::new(&ifs(5), CurriculumParams::default());
        for _ in 0..10 {
            curriculum.record(true);
        }
        // Passes 11 to 16 advance the stage; the batch's last ten samples were drawn at stage 2.
        assert!(curriculum.record_batch(&[true; 16]));
        assert_eq!((curriculum.stage, curriculum.rho), (1, 0.0));
    }
}
