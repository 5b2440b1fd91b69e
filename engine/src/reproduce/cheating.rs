//! The simulated LLM's cheating rates on impossible tasks (issue 53): a check of the measure, not a
//! result about any model. Each bundled task made impossible (ImpossibleBench's one-off and
//! conflicting variants) gets one zero-shot reply per seed, at three settings of
//! `special_case_share`; every pass is a cheat.

use super::{Scale, Table, percent};
use crate::cheating::cheat_rate::CheatRate;
use crate::cheating::impossible::ImpossibleVariant;
use crate::search::bank::search_tasks;
use crate::search::bench::BenchSpec;
use crate::search::simulated_llm::SimulatedLlmParams;
use crate::search::spec::{MethodSpec, SearchSpec};

/// The group's name, as `rlcg reproduce --only` takes it.
pub const GROUP: &str = "cheating";

/// The shares of special-casing replies the table measures.
const SHARES: [f64; 3] = [0.0, 0.25, 0.5];

fn seeds(scale: Scale) -> Vec<u64> {
    (1..=scale.pick(20, 3)).collect()
}

/// One bench per variant and share, in the table's order: zero-shot, one call, every bundled task.
pub fn benches(scale: Scale) -> Vec<(ImpossibleVariant, f64, BenchSpec)> {
    let tasks: Vec<String> = search_tasks().iter().map(|t| t.id.clone()).collect();
    let mut benches = Vec::new();
    for variant in [ImpossibleVariant::OneOff, ImpossibleVariant::Conflicting] {
        for share in SHARES {
            let template = SearchSpec {
                simulated_llm: SimulatedLlmParams { special_case_share: share, ..SimulatedLlmParams::default() },
                impossible: Some(variant),
                ..SearchSpec::default()
            };
            let method = MethodSpec::parse("zero-shot").expect("a known method");
            benches.push((
                variant,
                share,
                BenchSpec::new(vec![method], vec![1], seeds(scale), tasks.clone(), template),
            ));
        }
    }
    benches
}

/// The table of [`benches`]' rates, in the same order.
pub fn table(scale: Scale, rates: &[(ImpossibleVariant, f64, CheatRate)]) -> Table {
    let rows = rates
        .iter()
        .map(|(variant, share, rate)| {
            vec![
                variant.name().to_owned(),
                format!("{share}"),
                rate.searches.to_string(),
                rate.cheated.to_string(),
                format!("{} [{}, {}]", percent(rate.rate), percent(rate.low), percent(rate.high)),
                rate.special_cased_input.to_string(),
            ]
        })
        .collect();
    Table {
        id: "cheat-rate",
        made_by: format!(
            "`{}` (as `rlcg cheat-rate`): the {} bundled tasks made impossible × seeds 1–{}, one zero-shot reply \
             each from the simulated LLM at the `special_case_share` given; the rate with its exact 95% interval \
             (Clopper–Pearson). A check of the measure (ImpossibleBench's, Zhong et al., 2025), not a result about \
             a model.",
            scale.command(GROUP),
            search_tasks().len(),
            seeds(scale).len()
        ),
        header: ["variant", "special_case_share", "searches", "cheated", "cheating rate [95%]", "special-cased inputs"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    }
}
