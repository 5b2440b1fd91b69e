//! Table 1's ablation on the line-bank learner: every arm on every task with every seed, run side
//! by side, and summarised as pass@1 at the full task against executions, sampled at T = 1 and
//! decoded as Table 1 decodes (the mean over seeds with its 95% interval), each arm's difference
//! from vanilla seed by seed (the arms share their random streams, so the pairs are the test),
//! executions until the greedy program passes, and the share of gradient terms FGO removed. Sans-IO and [`Effectful`]: it needs batches of programs across all
//! learners (the playground's own, from the line banks), which a host runs.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::learner_params::{Arm, LearnerParams};
use super::line_bank::{LineBankTask, line_bank_tasks};
use super::policy_gradient::{Learner, Measurement};
use super::verdict_cache::{TestSet, VerdictCache};
use crate::effects::{Effectful, Need, PythonBatch};
use crate::params::Parameters;
use crate::python::{Author, Outcome, ProgramRequest, ProgramVerdict};

/// What to run: arms, seeds 1 to `seeds`, tasks (all bundled ones when empty) and the learner's
/// settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AblationSpec {
    pub arms: Vec<Arm>,
    pub seeds: u32,
    pub tasks: Vec<String>,
    pub params: LearnerParams,
}

impl Default for AblationSpec {
    fn default() -> Self {
        Self { arms: Arm::ALL.to_vec(), seeds: 10, tasks: Vec::new(), params: LearnerParams::default() }
    }
}

impl AblationSpec {
    /// The training executions it asks for in all: a learner per arm, seed and task, each with its
    /// budget (said before it starts; the programs run are fewer, repeats being cached).
    pub fn executions(&self) -> u64 {
        let tasks = if self.tasks.is_empty() { line_bank_tasks().len() } else { self.tasks.len() };
        (tasks * self.arms.len()) as u64 * u64::from(self.seeds) * u64::from(self.params.budget)
    }
}

/// The most seeds one ablation runs.
pub const MAX_SEEDS: u32 = 100;

/// Seed 002's Table 1: the overall pass@1 (%) of each arm, the 6.7B model on APPS+, for the table
/// beside ours (a fine-tuned LLM's, not the line-bank learner's: the two are not the same measure).
pub fn table_1_pass_at_1(arm: Arm) -> f64 {
    match arm {
        Arm::Vanilla => 31.7,
        Arm::Cccs => 35.5,
        Arm::Fgo => 34.6,
        Arm::StepCoder => 36.1,
    }
}

/// The most one line-bank program may take: the bank's programs are small functions, and one
/// that runs this long loops for ever.
pub const PROGRAM_LIMIT_MS: u32 = 2_000;

#[derive(Clone, Debug)]
struct Pending {
    task: usize,
    set: TestSet,
    program: String,
}

/// The learners of an [`AblationSpec`] and the verdicts they share.
#[derive(Clone, Debug)]
pub struct Ablation {
    pub spec: AblationSpec,
    pub tasks: Vec<LineBankTask>,
    /// One per task, arm and seed, in that order.
    learners: Vec<(usize, Learner)>,
    caches: Vec<VerdictCache>,
    pending: Vec<Pending>,
    /// The programs needed next (none once the ablation is over).
    batch: PythonBatch,
    /// Why the ablation ended before its end: cancelled, or a verdict it could not use.
    pub error: Option<String>,
}

impl Ablation {
    /// The ablation of `spec`, or what is wrong with it. It first needs each task's canonical
    /// program run with analysis (its conditional statements and logical lines).
    pub fn new(spec: AblationSpec) -> Result<Self, String> {
        spec.params.validate()?;
        if spec.arms.is_empty() {
            return Err("choose at least one arm".into());
        }
        if spec.arms.iter().collect::<HashSet<_>>().len() != spec.arms.len() {
            return Err("an arm is named twice".into());
        }
        if !(1..=MAX_SEEDS).contains(&spec.seeds) {
            return Err(format!("seeds must be between 1 and {MAX_SEEDS}"));
        }
        let bundled = line_bank_tasks();
        let tasks: Vec<LineBankTask> = if spec.tasks.is_empty() {
            bundled
        } else {
            let known = || bundled.iter().map(|t| t.id.as_str()).collect::<Vec<_>>().join(", ");
            spec.tasks
                .iter()
                .map(|id| {
                    bundled
                        .iter()
                        .find(|t| &t.id == id)
                        .cloned()
                        .ok_or_else(|| format!("no task `{id}`: the tasks are {}", known()))
                })
                .collect::<Result<_, _>>()?
        };
        let requests: Vec<ProgramRequest> = tasks
            .iter()
            .map(|task| {
                let tests: Vec<String> = task.tests.iter().chain(&task.hidden_tests).cloned().collect();
                ProgramRequest::with_statements(task.canonical(), &tests)
            })
            .collect();
        let caches = vec![VerdictCache::default(); tasks.len()];
        let batch = PythonBatch { requests, limit_ms: PROGRAM_LIMIT_MS, author: Author::Playground };
        Ok(Self { spec, tasks, learners: Vec::new(), caches, pending: Vec::new(), batch, error: None })
    }

    /// Takes the verdicts of the needed programs, in order.
    fn supply(&mut self, verdicts: Vec<ProgramVerdict>) -> Result<(), String> {
        if verdicts.len() != self.batch.requests.len() {
            return Err(format!("{} verdicts for {} programs", verdicts.len(), self.batch.requests.len()));
        }
        if self.learners.is_empty() {
            self.start(&verdicts)?;
        } else {
            for (pending, verdict) in std::mem::take(&mut self.pending).into_iter().zip(&verdicts) {
                self.caches[pending.task].insert(pending.set, pending.program, verdict);
            }
        }
        self.advance();
        Ok(())
    }

    fn start(&mut self, canonical: &[ProgramVerdict]) -> Result<(), String> {
        for (task, verdict) in self.tasks.iter().zip(canonical) {
            if !verdict.passed {
                let why = verdict
                    .error
                    .clone()
                    .unwrap_or_else(|| format!("{} of {} tests pass", verdict.number_passed, verdict.total));
                return Err(format!("task `{}`: its canonical program does not pass its tests: {why}", task.id));
            }
        }
        for (index, (task, verdict)) in self.tasks.iter().zip(canonical).enumerate() {
            for &arm in &self.spec.arms {
                for seed in 1..=u64::from(self.spec.seeds) {
                    self.learners.push((index, Learner::new(task, index, verdict, arm, seed, self.spec.params)));
                }
            }
        }
        Ok(())
    }

    /// Updates every learner as far as cached verdicts allow, then asks for the programs missing.
    fn advance(&mut self) {
        let mut missing = HashSet::new();
        for (task, learner) in &mut self.learners {
            loop {
                let wanted = learner.wanted();
                if wanted.is_empty() {
                    break;
                }
                let absent: Vec<(TestSet, String)> = wanted
                    .into_iter()
                    .filter(|(set, program)| !self.caches[*task].has(*set, program))
                    .map(|(set, program)| (set, program.to_owned()))
                    .collect();
                if absent.is_empty() {
                    learner.update(&self.caches[*task]);
                    continue;
                }
                for (set, program) in absent {
                    if missing.insert((*task, set, program.clone())) {
                        self.pending.push(Pending { task: *task, set, program });
                    }
                }
                break;
            }
        }
        self.batch.requests = self
            .pending
            .iter()
            .map(|p| match p.set {
                TestSet::Training => self.tasks[p.task].training_request(p.program.clone()),
                TestSet::Measuring => self.tasks[p.task].measuring_request(p.program.clone()),
            })
            .collect();
    }

    /// Training executions spent so far, and in all.
    pub fn progress(&self) -> (u64, u64) {
        let spent = self.learners.iter().map(|(_, l)| u64::from(l.executions)).sum();
        (spent, self.spec.executions())
    }

    /// The learner of task `task` (an index into [`Ablation::tasks`]), `arm` and `seed` (from 1),
    /// once the ablation has started.
    pub fn learner(&self, task: usize, arm: Arm, seed: u32) -> Option<&Learner> {
        let arm = self.spec.arms.iter().position(|a| *a == arm)?;
        let seeds = self.spec.seeds as usize;
        if task >= self.tasks.len() || !(1..=seeds).contains(&(seed as usize)) {
            return None;
        }
        let index = (task * self.spec.arms.len() + arm) * seeds + seed as usize - 1;
        self.learners.get(index).map(|(_, learner)| learner)
    }

    /// Distinct programs run, over all tasks.
    pub fn distinct_programs(&self) -> usize {
        self.caches.iter().map(VerdictCache::programs_run).sum()
    }

    /// A short digest of every learner's trace: two ablations with the same fingerprint learned
    /// identically.
    pub fn fingerprint(&self) -> String {
        let mut digest = fnv::FnvHasher::default();
        // Plain integers only: a derived `Hash` of an enum or an `Option` writes its discriminant
        // as an `isize`, whose width differs between wasm32 and native.
        let at = |executions: Option<u32>| executions.unwrap_or(u32::MAX);
        for (task, learner) in &self.learners {
            let trace = &learner.trace;
            let arm = Arm::ALL.iter().position(|a| *a == learner.arm).unwrap_or_default() as u8;
            (*task as u32, arm, at(trace.greedy_passed_at), at(trace.full_task_at), trace.masked_terms)
                .hash(&mut digest);
            for m in &trace.measurements {
                (m.executions, m.pass_at_1.to_bits(), m.stage as u32).hash(&mut digest);
            }
        }
        format!("{:016x}", digest.finish())
    }

    /// The finished ablation's report; `wall_seconds` is the host's clock.
    pub fn report(&self, wall_seconds: f64) -> AblationReport {
        AblationReport {
            spec: self.spec.clone(),
            rows: self.summary(),
            fingerprint: self.fingerprint(),
            distinct_programs: self.distinct_programs(),
            wall_seconds,
        }
    }

    /// Each arm on each task, then each arm over all tasks (`task` none: per seed, the mean over
    /// tasks).
    pub fn summary(&self) -> Vec<ArmSummary> {
        let mut rows = Vec::new();
        for task in (0..self.tasks.len()).map(Some).chain([None]) {
            for &arm in &self.spec.arms {
                rows.push(self.arm_summary(arm, task));
            }
        }
        rows
    }

    /// The learners of `arm` on `task` (all tasks when none), task by task, seeds in order.
    fn runs_of(&self, arm: Arm, task: Option<usize>) -> Vec<&Learner> {
        self.learners
            .iter()
            .filter(|(t, l)| l.arm == arm && task.is_none_or(|task| *t == task))
            .map(|(_, l)| l)
            .collect()
    }

    /// Per seed, `pass` at measurement `point`, averaged over the tasks of `runs`.
    fn per_seed(&self, runs: &[&Learner], point: usize, pass: fn(&Measurement) -> f64) -> Vec<f64> {
        let seeds = self.spec.seeds as usize;
        let tasks = runs.len() / seeds;
        (0..seeds)
            .map(|seed| {
                let of_seed = runs.iter().skip(seed).step_by(seeds);
                of_seed.map(|l| pass(&l.trace.measurements[point])).sum::<f64>() / tasks as f64
            })
            .collect()
    }

    fn arm_summary(&self, arm: Arm, task: Option<usize>) -> ArmSummary {
        let runs = self.runs_of(arm, task);
        let points = runs.first().map_or(0, |l| l.trace.measurements.len());
        let curve_of = |pass: fn(&Measurement) -> f64| -> Vec<CurvePoint> {
            (0..points)
                .map(|point| {
                    let executions = runs[0].trace.measurements[point].executions;
                    // A pass rate lies in [0, 1], whatever the t interval's width.
                    CurvePoint::of(executions, &self.per_seed(&runs, point, pass), 0.0)
                })
                .collect()
        };
        let versus_vanilla = (arm != Arm::Vanilla && self.spec.arms.contains(&Arm::Vanilla) && points > 0).then(|| {
            let vanilla = self.runs_of(Arm::Vanilla, task);
            let last = points - 1;
            let executions = runs[0].trace.measurements[last].executions;
            let difference = |pass: fn(&Measurement) -> f64| {
                let ours = self.per_seed(&runs, last, pass);
                let theirs = self.per_seed(&vanilla, last, pass);
                let pairs: Vec<f64> = ours.iter().zip(&theirs).map(|(a, b)| a - b).collect();
                CurvePoint::of(executions, &pairs, -1.0)
            };
            PairedDifference { sampled: difference(|m| m.pass_at_1), decoded: difference(|m| m.decoded_pass_at_1) }
        });
        let rollouts: u32 = runs.iter().flat_map(|l| l.trace.outcomes.values()).sum();
        let compile_errors: u32 = runs.iter().filter_map(|l| l.trace.outcomes.get(&Outcome::CompileError)).sum();
        let mut greedy: Vec<u32> = runs.iter().filter_map(|l| l.trace.greedy_passed_at).collect();
        greedy.sort_unstable();
        let terms: u64 = runs.iter().map(|l| l.trace.gradient_terms).sum();
        let masked: u64 = runs.iter().map(|l| l.trace.masked_terms).sum();
        ArmSummary {
            arm,
            task: task.map(|t| self.tasks[t].id.clone()),
            runs: runs.len() as u32,
            curve: curve_of(|m| m.pass_at_1),
            decoded_curve: curve_of(|m| m.decoded_pass_at_1),
            versus_vanilla,
            compile_error_share: (rollouts > 0).then(|| f64::from(compile_errors) / f64::from(rollouts)),
            greedy_passed: greedy.len() as u32,
            greedy_median_executions: median(&greedy),
            full_task_reached: arm.uses_cccs().then(|| {
                runs.iter().filter(|l| l.trace.full_task_at.is_some() || l.curriculum.stages == 1).count() as u32
            }),
            masked_share: (arm.uses_fgo() && terms > 0).then(|| masked as f64 / terms as f64),
        }
    }
}

impl Effectful for Ablation {
    fn need(&self) -> Need<'_> {
        if self.error.is_some() || self.batch.requests.is_empty() { Need::Done } else { Need::Python(&self.batch) }
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        if let Err(why) = self.supply(verdicts) {
            self.end(&why, now_ms);
        }
    }

    /// Ends the ablation; what the learners learned so far stays.
    fn end(&mut self, reason: &str, _now_ms: f64) {
        if self.error.is_none() && !self.batch.requests.is_empty() {
            self.error = Some(reason.to_owned());
        }
    }
}

/// The mean of `values` and its 95% interval (Student's t; the mean itself for one value).
pub fn mean_interval(values: &[f64]) -> (f64, f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, mean, mean);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let t = StudentsT::new(0.0, 1.0, n - 1.0).expect("at least one degree of freedom").inverse_cdf(0.975);
    let half = t * (variance / n).sqrt();
    (mean, mean - half, mean + half)
}

fn median(sorted: &[u32]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(f64::from(sorted[n / 2])),
        _ => Some((f64::from(sorted[n / 2 - 1]) + f64::from(sorted[n / 2])) / 2.0),
    }
}

/// A finished ablation: what ran, its table and its fingerprint. `rlcg stepcoder learn --json`
/// prints one; the page keeps them, exports them as a list and imports either form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AblationReport {
    pub spec: AblationSpec,
    pub rows: Vec<ArmSummary>,
    pub fingerprint: String,
    /// Distinct programs run (each program runs once; the learners share verdicts).
    pub distinct_programs: usize,
    pub wall_seconds: f64,
}

impl AblationReport {
    /// The reports in `text`: one report, or a list of them.
    pub fn parse(text: &str) -> Result<Vec<Self>, String> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format!("not JSON (line {}, column {}): {e}", e.line(), e.column()))?;
        let reports = match value {
            serde_json::Value::Array(items) => items,
            single => vec![single],
        };
        reports
            .into_iter()
            .enumerate()
            .map(|(index, report)| {
                let report: Self = serde_json::from_value(report)
                    .map_err(|e| format!("report {}: not a StepCoder ablation report: {e}", index + 1))?;
                report.spec.params.validate().map_err(|e| format!("report {}: {e}", index + 1))?;
                if report.rows.is_empty() {
                    return Err(format!("report {}: it has no rows", index + 1));
                }
                Ok(report)
            })
            .collect()
    }
}

/// Pass@1 at the full task after `executions` (or an arm's difference from vanilla), over seeds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub executions: u32,
    pub mean: f64,
    /// The 95% interval of the mean.
    pub low: f64,
    pub high: f64,
}

impl CurvePoint {
    /// The mean of `values` with its 95% interval, clipped to [`floor`, 1].
    fn of(executions: u32, values: &[f64], floor: f64) -> Self {
        let (mean, low, high) = mean_interval(values);
        CurvePoint { executions, mean, low: low.max(floor), high: high.min(1.0) }
    }
}

/// An arm's final pass@1 minus vanilla's, seed by seed, at both decodings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedDifference {
    /// Sampled at T = 1.
    pub sampled: CurvePoint,
    /// Decoded at T = 0.2, top-p 0.95.
    pub decoded: CurvePoint,
}

/// One arm's results on one task, or over all tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmSummary {
    pub arm: Arm,
    /// None: every task, each seed's pass@1 averaged over the tasks.
    pub task: Option<String>,
    /// Learners summarised (tasks × seeds).
    pub runs: u32,
    /// Pass@1 sampled at T = 1.
    pub curve: Vec<CurvePoint>,
    /// Pass@1 decoded at the measuring temperature and nucleus (Table 1's T = 0.2, top-p 0.95).
    #[serde(default)]
    pub decoded_curve: Vec<CurvePoint>,
    /// Against vanilla at the end, seed by seed (none for vanilla, or without it).
    #[serde(default)]
    pub versus_vanilla: Option<PairedDifference>,
    /// The share of training rollouts that did not compile.
    #[serde(default)]
    pub compile_error_share: Option<f64>,
    /// Learners whose greedy program passed the visible and hidden tests within the budget.
    pub greedy_passed: u32,
    /// The median of their executions until it did.
    pub greedy_median_executions: Option<f64>,
    /// CCCS arms: learners whose curriculum reached the full task.
    pub full_task_reached: Option<u32>,
    /// FGO arms: the share of sampled lines' gradient terms the mask removed.
    pub masked_share: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_ablation_asks_for_163_840_executions() {
        // Four arms × ten seeds × four bundled tasks × 1024 executions each.
        assert_eq!(AblationSpec::default().executions(), 163_840);
        let one = AblationSpec { arms: vec![Arm::Vanilla], seeds: 2, tasks: vec!["x".into()], ..Default::default() };
        assert_eq!(one.executions(), 2 * 1024);
    }

    #[test]
    fn the_interval_is_students() {
        // Mean 2, sample sd 1, n = 3: t(0.975, 2) = 4.303, half-width 4.303 / √3 = 2.484.
        let (mean, low, high) = mean_interval(&[1.0, 2.0, 3.0]);
        assert!((mean - 2.0).abs() < 1e-12);
        assert!((high - mean - 2.484_4).abs() < 1e-3, "{high}");
        assert!((mean - low - 2.484_4).abs() < 1e-3);
        assert_eq!(mean_interval(&[0.5]), (0.5, 0.5, 0.5));
        assert_eq!((median(&[1, 3, 10]), median(&[1, 3]), median(&[])), (Some(3.0), Some(2.0), None));
    }

    #[test]
    fn bad_specs_are_named() {
        let spec = |f: fn(&mut AblationSpec)| {
            let mut spec = AblationSpec::default();
            f(&mut spec);
            Ablation::new(spec).unwrap_err()
        };
        assert_eq!(spec(|s| s.arms.clear()), "choose at least one arm");
        assert_eq!(spec(|s| s.arms = vec![Arm::Fgo, Arm::Fgo]), "an arm is named twice");
        assert!(spec(|s| s.seeds = 0).contains("between 1 and 100"));
        assert!(spec(|s| s.tasks = vec!["nope".into()]).starts_with("no task `nope`: the tasks are clamp_sum"));
    }

    #[test]
    fn it_first_asks_for_each_canonical_program_with_analysis() {
        let ablation = Ablation::new(AblationSpec::default()).unwrap();
        let Need::Python(batch) = ablation.need() else { panic!("a first need") };
        let requests = &batch.requests;
        assert_eq!((requests.len(), batch.author), (ablation.tasks.len(), Author::Playground));
        assert!(requests.iter().all(|r| r.analysis && r.coverage));
        assert_eq!(requests[0].code, ablation.tasks[0].canonical());
    }

    #[test]
    fn reports_read_back_one_or_a_list_and_bad_ones_are_named() {
        let row = ArmSummary {
            arm: Arm::Cccs,
            task: None,
            runs: 2,
            curve: vec![CurvePoint { executions: 0, mean: 0.5, low: 0.25, high: 0.75 }],
            decoded_curve: vec![CurvePoint { executions: 0, mean: 0.9, low: 0.8, high: 1.0 }],
            versus_vanilla: None,
            compile_error_share: Some(0.1),
            greedy_passed: 2,
            greedy_median_executions: Some(0.0),
            full_task_reached: Some(1),
            masked_share: None,
        };
        let report = AblationReport {
            spec: AblationSpec { seeds: 2, ..AblationSpec::default() },
            rows: vec![row],
            fingerprint: "64a64325430366b3".into(),
            distinct_programs: 10,
            wall_seconds: 1.5,
        };
        let one = serde_json::to_string(&report).unwrap();
        assert_eq!(AblationReport::parse(&one).unwrap(), vec![report.clone()]);
        let two = serde_json::to_string(&[&report, &report]).unwrap();
        assert_eq!(AblationReport::parse(&two).unwrap().len(), 2);
        assert!(AblationReport::parse("{").unwrap_err().starts_with("not JSON (line 1, column 1)"));
        let err = AblationReport::parse(r#"[{"rows": []}]"#).unwrap_err();
        assert!(err.starts_with("report 1: not a StepCoder ablation report: missing field"), "{err}");
        let empty = one.replacen(r#""rows":[{"#, r#""rows":[],"x":[{"#, 1);
        assert_eq!(AblationReport::parse(&empty).unwrap_err(), "report 1: it has no rows");
        let bad = one.replacen(r#""rollouts":16"#, r#""rollouts":0"#, 1);
        assert!(AblationReport::parse(&bad).unwrap_err().starts_with("report 1: rollouts"), "{bad}");
    }

    #[test]
    fn a_learner_is_found_by_task_arm_and_seed() {
        let spec = AblationSpec { arms: vec![Arm::Cccs, Arm::Fgo], seeds: 3, ..AblationSpec::default() };
        let mut ablation = Ablation::new(spec).unwrap();
        let Need::Python(batch) = ablation.need() else { panic!("a first need") };
        let canonical: Vec<ProgramVerdict> = batch
            .requests
            .iter()
            .map(|r| {
                let mut verdict = ProgramVerdict::from_host(r, Outcome::Pass, String::new(), 0.0);
                verdict.passed = true;
                verdict
            })
            .collect();
        assert!(ablation.learner(0, Arm::Fgo, 1).is_none(), "not before the start");
        ablation.python_done(canonical.clone(), 0.0);
        assert_eq!(ablation.error, None);
        let found = ablation.learner(1, Arm::Fgo, 3).unwrap();
        let task = &ablation.tasks[1];
        let mut fresh = Learner::new(task, 1, &canonical[1], Arm::Fgo, 3, ablation.spec.params);
        assert_eq!(found.arm, Arm::Fgo);
        assert_eq!(found.clone().wanted(), fresh.wanted(), "the same seed's draws");
        assert!(ablation.learner(1, Arm::Fgo, 4).is_none() && ablation.learner(1, Arm::Vanilla, 1).is_none());
        assert!(ablation.learner(ablation.tasks.len(), Arm::Cccs, 1).is_none());
    }
}
