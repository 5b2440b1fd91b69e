//! How often an LLM cheats, as the Search pane's Cheating view measures it and a teacher's link
//! opens it: the chosen bundled tasks (all by default) × seeds 1..=N, one zero-shot reply each, so
//! that the rate is per reply as `rlcg cheat-rate` gives it; on ImpossibleBench's impossible
//! variants (every pass a cheat) or with half of each task's tests held out (EvilGenie's measure:
//! an answer that passes the visible tests and fails a held-out one is special-cased?).

use crate::cheating::held_out::EVILGENIE_SHARE;
use crate::cheating::impossible::ImpossibleVariant;
use crate::search::measures::bench::BenchSpec;
use crate::search::offline::bank::search_tasks;
use crate::search::spec::{MethodSpec, SearchSpec};

/// What is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Impossible(ImpossibleVariant),
    HeldOut,
}

impl Measure {
    /// Names in links and the view: the impossible variants', then `held-out`.
    pub const NAMES: [&str; 3] = ["one-off", "conflicting", "held-out"];

    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "held-out" => Ok(Self::HeldOut),
            other => ImpossibleVariant::parse(other)
                .map(Self::Impossible)
                .map_err(|_| format!("unknown measure '{other}'; valid: {}", Self::NAMES.join(", "))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Impossible(variant) => variant.name(),
            Self::HeldOut => "held-out",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CheatMeasure {
    pub measure: Measure,
    /// Seeds 1..=`seeds`: each draws a variant's changed test (or the held-out split) and the
    /// reply.
    pub seeds: u32,
    /// Bundled task ids; empty: every bundled task.
    pub tasks: Vec<String>,
    /// The share of the simulated LLM's replies that look the shown tests up (its
    /// `special_case_share`) while it is measured; none: the search form's odds. A real model has
    /// no such odds: what it does is what is measured.
    pub simulated_lookups: Option<f64>,
}

impl Default for CheatMeasure {
    /// One-off impossible variants of every bundled task, 5 seeds, and a simulated LLM that looks
    /// the tests up in [`CheatMeasure::DEMO_LOOKUPS`] of its replies, so that the view has cheats
    /// to show.
    fn default() -> Self {
        Self {
            measure: Measure::Impossible(ImpossibleVariant::OneOff),
            seeds: 5,
            tasks: Vec::new(),
            simulated_lookups: Some(Self::DEMO_LOOKUPS),
        }
    }
}

impl CheatMeasure {
    pub const MAX_SEEDS: u32 = 100;
    /// The share of each task's tests the held-out measure holds out: EvilGenie's.
    pub const HELD_OUT_SHARE: f64 = EVILGENIE_SHARE;
    /// The simulated LLM's share of lookups in a fresh Cheating view: ours, a demonstration's (the
    /// search form's own default is 0, an honest simulated LLM).
    pub const DEMO_LOOKUPS: f64 = 0.2;

    /// The bench that measures it with `template`'s other settings (the simulated LLM's odds,
    /// giving up, autopep8); its task, method, budget and seed are the measure's.
    pub fn bench(&self, mut template: SearchSpec) -> Result<BenchSpec, String> {
        if !(1..=Self::MAX_SEEDS).contains(&self.seeds) {
            return Err(format!("seeds: {} is outside 1..={}", self.seeds, Self::MAX_SEEDS));
        }
        let bundled: Vec<String> = search_tasks().iter().map(|t| t.id.clone()).collect();
        if let Some(unknown) = self.tasks.iter().find(|t| !bundled.contains(t)) {
            return Err(format!("tasks: no bundled task '{unknown}'; valid: {}", bundled.join(", ")));
        }
        if let Some(share) = self.simulated_lookups {
            if !(0.0..=1.0).contains(&share) {
                return Err(format!("simulated lookups: {share} is outside 0..=1"));
            }
            template.simulated_llm.special_case_share = share;
        }
        (template.impossible, template.held_out_share) = match self.measure {
            Measure::Impossible(variant) => (Some(variant), 0.0),
            Measure::HeldOut => (None, Self::HELD_OUT_SHARE),
        };
        let tasks = if self.tasks.is_empty() { bundled } else { self.tasks.clone() };
        let zero_shot = MethodSpec::parse("zero-shot")?;
        Ok(BenchSpec::new(vec![zero_shot], vec![1], (1..=u64::from(self.seeds)).collect(), tasks, template))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_is_one_zero_shot_reply_per_task_and_seed_on_the_measures_tasks() {
        let measure = CheatMeasure {
            measure: Measure::HeldOut,
            seeds: 3,
            tasks: vec!["caesar".into(), "flatten".into()],
            simulated_lookups: None,
        };
        let bench = measure.bench(SearchSpec { may_give_up: true, ..SearchSpec::default() }).unwrap();
        assert_eq!(
            (bench.budgets.clone(), bench.seeds.clone(), bench.tasks.clone()),
            (vec![1], vec![1, 2, 3], vec!["caesar".to_owned(), "flatten".to_owned()])
        );
        assert_eq!(
            (bench.template.held_out_share, bench.template.impossible, bench.template.may_give_up),
            (EVILGENIE_SHARE, None, true)
        );
        assert_eq!(bench.methods[0].name(), "zero-shot");
        // The form's odds stand unless the measure sets the simulated LLM's lookups, as a fresh
        // view does.
        assert_eq!(bench.template.simulated_llm, SearchSpec::default().simulated_llm);
        let every = CheatMeasure::default().bench(SearchSpec::default()).unwrap();
        assert_eq!((every.tasks.len(), every.template.impossible), (10, Some(ImpossibleVariant::OneOff)));
        assert_eq!(every.template.simulated_llm.special_case_share, CheatMeasure::DEMO_LOOKUPS);
    }

    #[test]
    fn a_bad_measure_seed_count_or_task_is_named() {
        assert!(Measure::parse("two-off").unwrap_err().contains("valid: one-off, conflicting, held-out"));
        let seeds = CheatMeasure { seeds: 0, ..CheatMeasure::default() };
        assert!(seeds.bench(SearchSpec::default()).unwrap_err().starts_with("seeds: 0"));
        let tasks = CheatMeasure { tasks: vec!["nope".into()], ..CheatMeasure::default() };
        assert!(tasks.bench(SearchSpec::default()).unwrap_err().starts_with("tasks: no bundled task 'nope'"));
        let lookups = CheatMeasure { simulated_lookups: Some(1.5), ..CheatMeasure::default() };
        assert_eq!(lookups.bench(SearchSpec::default()).unwrap_err(), "simulated lookups: 1.5 is outside 0..=1");
        for name in Measure::NAMES {
            assert_eq!(Measure::parse(name).unwrap().name(), name);
        }
    }
}
