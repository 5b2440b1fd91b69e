//! Search links: a program search (seed 004) in a URL fragment, e.g.
//! `v=1&search=gif-mcts&task=binary_search&budget=20&seed=1&llm=simulated&o.regress=0.2`.
//! The simulated LLM's odds that differ from the defaults are `o.<field>`. `llm` says who answered
//! the sender: `simulated`, or the model's name; only a simulated search replays exactly, so only
//! that one is replayed on opening. The sender's results may ride along (`r.best`, `r.calls`,
//! `r.fp`), for the recipient's page to say whether its replay is the same search. A world-model
//! search's dataset seed and scoring ride along where they differ from the defaults (`w.data`,
//! `w.metric`, `w.done`). Naive verdicts, the teaching switch, are `naive=1`; a search that does not
//! run its programs through autopep8 is `autopep8=0`; one on an impossible variant of its task is
//! `impossible=one-off` or `impossible=conflicting`; one that holds out a share of its task's tests
//! from the LLM is `held_out=0.5`, and one where the model may give up is `give_up=1`. A teacher's
//! link to the Cheating view names its measure, seeds and tasks (`cheat=one-off&cheat.seeds=10&
//! cheat.tasks=caesar,flatten`): the page opens the view with them, and measures at once where the
//! simulated LLM answers. A teacher's `focus`, `hide` and `lock` name the
//! form's task, method, budget, seed and odds ([`super::teaching`]).
//!
//! Decoding never fails, as with run links: a bad field is named and its default stands in.

use crate::cheating::TestsInstruction;
use crate::cheating::impossible::ImpossibleVariant;
use crate::effects::llm_source::SIMULATED;
use crate::params;
use crate::search::measures::cheat_measure::{CheatMeasure, Measure};
use crate::search::offline::simulated_llm::SimulatedLlmParams;
use crate::search::record::SearchRecord;
use crate::search::spec::{MethodSpec, SearchSpec, WorldModelSpec};
use crate::search::world_model::WorldModelScoring;

use super::{
    LINK_VERSION, Link, Pane, SearchControl, Teaching, is_link_with, link_pairs, name_of, of_name, read, read_params,
    whole,
};

/// What the sender's search came to.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResults {
    pub best_score: f64,
    pub llm_calls: u32,
    /// [`crate::search::machine::Search::fingerprint`] of the sender's search.
    pub fingerprint: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SearchLink {
    pub spec: SearchSpec,
    /// `simulated`, or the model that answered the sender.
    pub llm: String,
    /// How fast that model wrote and where it ran, as the sender's page measured it
    /// ([`crate::llm::Usage::speed_on`]); empty for the simulated LLM.
    pub ran: String,
    pub results: Option<SearchResults>,
    pub teaching: Teaching<SearchControl>,
    /// The Cheating view's measure, for a link that opens it.
    pub cheating: Option<CheatMeasure>,
}

impl SearchLink {
    const FIELDS: [&str; 24] = [
        "v",
        "search",
        "task",
        "budget",
        "seed",
        "llm",
        "ran",
        "instruction",
        "w.data",
        "w.metric",
        "w.done",
        "naive",
        "autopep8",
        "impossible",
        "held_out",
        "give_up",
        "judge",
        "cheat",
        "cheat.seeds",
        "cheat.tasks",
        "cheat.lookups",
        "r.best",
        "r.calls",
        "r.fp",
    ];

    /// The link that shares `record`; a finished search's results ride along.
    pub fn of(record: &SearchRecord) -> Self {
        let results = (!record.ended.is_empty()).then(|| SearchResults {
            best_score: record.best_score(),
            llm_calls: record.llm_calls(),
            fingerprint: record.fingerprint.clone(),
        });
        Self {
            spec: record.spec.clone(),
            llm: record.llm.clone(),
            ran: record.usage.speed_on(&record.device).unwrap_or_default(),
            results,
            teaching: Teaching::default(),
            cheating: None,
        }
    }

    /// Whether the recipient's page can replay the sender's search exactly.
    pub fn replays_exactly(&self) -> bool {
        self.llm == SIMULATED
    }

    /// The fragment (without `#`).
    pub fn encode(&self) -> String {
        let spec = &self.spec;
        let mut out = form_urlencoded::Serializer::new(String::new());
        out.append_pair("v", &LINK_VERSION.to_string())
            .append_pair("search", spec.method.name())
            .append_pair("task", &spec.task)
            .append_pair("budget", &spec.budget.to_string())
            .append_pair("seed", &spec.seed.to_string())
            .append_pair("llm", &self.llm);
        if !self.ran.is_empty() {
            out.append_pair("ran", &self.ran);
        }
        for (field, text) in params::changed(&spec.simulated_llm, &SimulatedLlmParams::default()) {
            out.append_pair(&format!("o.{}", field.name()), &text);
        }
        let (world, default) = (&spec.world_model, WorldModelSpec::default());
        if world.dataset_seed != default.dataset_seed {
            out.append_pair("w.data", &world.dataset_seed.to_string());
        }
        if world.scoring.metric != default.scoring.metric {
            out.append_pair("w.metric", &name_of(&world.scoring.metric));
        }
        if world.scoring.labelling != default.scoring.labelling {
            out.append_pair("w.done", &name_of(&world.scoring.labelling));
        }
        if spec.naive_verdicts {
            out.append_pair("naive", "1");
        }
        if !spec.autopep8 {
            out.append_pair("autopep8", "0");
        }
        if let Some(variant) = spec.impossible {
            out.append_pair("impossible", variant.name());
        }
        if spec.held_out_share != 0.0 {
            out.append_pair("held_out", &spec.held_out_share.to_string());
        }
        if spec.may_give_up {
            out.append_pair("give_up", "1");
        }
        if spec.tests_instruction != TestsInstruction::default() {
            out.append_pair("instruction", spec.tests_instruction.name());
        }
        if spec.llm_judge {
            out.append_pair("judge", "1");
        }
        if let Some(cheating) = &self.cheating {
            out.append_pair("cheat", cheating.measure.name()).append_pair("cheat.seeds", &cheating.seeds.to_string());
            if !cheating.tasks.is_empty() {
                out.append_pair("cheat.tasks", &cheating.tasks.join(","));
            }
            if let Some(share) = cheating.simulated_lookups {
                out.append_pair("cheat.lookups", &share.to_string());
            }
        }
        self.teaching.append(&mut out);
        if let Some(results) = &self.results {
            out.append_pair("r.best", &format!("{:.3}", results.best_score))
                .append_pair("r.calls", &results.llm_calls.to_string())
                .append_pair("r.fp", &results.fingerprint);
        }
        out.finish()
    }

    /// Reads a fragment (with or without `#`); returns a valid link and what had to be replaced.
    pub fn decode(fragment: &str) -> (SearchLink, Vec<String>) {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let defaults = SearchLink {
            spec: SearchSpec::default(),
            llm: SIMULATED.into(),
            ran: String::new(),
            results: None,
            teaching: Teaching::default(),
            cheating: None,
        };
        let mut problems = Vec::new();
        let fields = [&Self::FIELDS[..], &Teaching::<SearchControl>::FIELDS].concat();
        let Some(pairs) = link_pairs(fragment, &fields, "o.", "search", &mut problems) else {
            return (defaults, problems);
        };
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let method = read(&mut problems, "search", get("search"), defaults.spec.method.clone(), MethodSpec::parse);
        let task = get("task").unwrap_or_default().to_owned();
        let budget = read(&mut problems, "budget", get("budget"), defaults.spec.budget, |v| {
            let budget: u32 = whole(v)?;
            if !(1..=SearchSpec::MAX_BUDGET).contains(&budget) {
                return Err(format!("{budget} is outside 1..={}", SearchSpec::MAX_BUDGET));
            }
            Ok(budget)
        });
        let seed = read(&mut problems, "seed", get("seed"), defaults.spec.seed, whole);
        let simulated_llm = read_params(
            &mut problems,
            &pairs,
            ("o.", "the simulated LLM", "odds field"),
            &SimulatedLlmParams::default(),
        );
        let llm = match get("llm").map(str::trim) {
            Some(llm) if !llm.is_empty() => llm.to_owned(),
            _ => SIMULATED.to_owned(),
        };
        let ran = get("ran").map(str::trim).unwrap_or_default().to_owned();
        let results = match (get("r.best"), get("r.calls"), get("r.fp")) {
            (None, None, None) => None,
            (Some(best), Some(calls), Some(fingerprint)) => {
                let best_score = best.parse::<f64>().ok().filter(|b| (0.0..=1.0).contains(b));
                match (best_score, whole::<u32>(calls)) {
                    (Some(best_score), Ok(llm_calls)) => {
                        Some(SearchResults { best_score, llm_calls, fingerprint: fingerprint.to_owned() })
                    }
                    _ => {
                        problems.push(format!("r.best '{best}' or r.calls '{calls}' is not a score in 0–1 and a whole number; the shared results are left out"));
                        None
                    }
                }
            }
            _ => {
                problems.push("the shared results need r.best, r.calls and r.fp together; they are left out".into());
                None
            }
        };
        let default = WorldModelSpec::default();
        let world_model = WorldModelSpec {
            dataset_seed: read(&mut problems, "w.data", get("w.data"), default.dataset_seed, whole),
            scoring: WorldModelScoring {
                metric: read(&mut problems, "w.metric", get("w.metric"), default.scoring.metric, of_name),
                labelling: read(&mut problems, "w.done", get("w.done"), default.scoring.labelling, of_name),
            },
        };
        let switch = |v: &str| match v {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err("must be 1 or 0".to_owned()),
        };
        let naive_verdicts = read(&mut problems, "naive", get("naive"), false, switch);
        let autopep8 = read(&mut problems, "autopep8", get("autopep8"), true, switch);
        let impossible =
            read(&mut problems, "impossible", get("impossible"), None, |v| ImpossibleVariant::parse(v).map(Some));
        let held_out_share = read(&mut problems, "held_out", get("held_out"), 0.0, |v| {
            let share: f64 = v.parse().map_err(|_| format!("'{v}' is not a number"))?;
            (share > 0.0 && share < 1.0).then_some(share).ok_or_else(|| format!("{share} is outside (0, 1)"))
        });
        let may_give_up = read(&mut problems, "give_up", get("give_up"), false, switch);
        let tests_instruction = read(
            &mut problems,
            "instruction",
            get("instruction"),
            TestsInstruction::default(),
            TestsInstruction::parse,
        );
        let llm_judge = read(&mut problems, "judge", get("judge"), false, switch);
        let spec = SearchSpec {
            method,
            task,
            budget,
            seed,
            simulated_llm,
            world_model,
            naive_verdicts,
            autopep8,
            impossible,
            held_out_share,
            may_give_up,
            tests_instruction,
            llm_judge,
        };
        let teaching = Teaching::read(&mut problems, get);
        let cheating = get("cheat").map(|name| {
            let default = CheatMeasure::default();
            CheatMeasure {
                measure: read(&mut problems, "cheat", Some(name), default.measure, Measure::parse),
                seeds: read(&mut problems, "cheat.seeds", get("cheat.seeds"), default.seeds, |v| {
                    let seeds: u32 = whole(v)?;
                    (1..=CheatMeasure::MAX_SEEDS)
                        .contains(&seeds)
                        .then_some(seeds)
                        .ok_or_else(|| format!("{seeds} is outside 1..={}", CheatMeasure::MAX_SEEDS))
                }),
                tasks: get("cheat.tasks")
                    .map(|list| list.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect())
                    .unwrap_or_default(),
                // Absent (a link made before it existed): the form's odds, as that link measured.
                simulated_lookups: read(&mut problems, "cheat.lookups", get("cheat.lookups"), None, |v| {
                    let share: f64 = v.parse().map_err(|_| format!("'{v}' is not a number"))?;
                    (0.0..=1.0)
                        .contains(&share)
                        .then_some(Some(share))
                        .ok_or_else(|| format!("{share} is outside 0..=1"))
                }),
            }
        });
        (SearchLink { spec, llm, ran, results, teaching, cheating }, problems)
    }
}

impl Link for SearchLink {
    const KIND: &'static str = "search";
    const PANE: Pane = Pane::Search;

    /// A link has values (`search=…`); the pane's own anchor (`#search`, the nav's) is not one.
    fn is_fragment(fragment: &str) -> bool {
        is_link_with(fragment, "search")
    }

    fn read(fragment: &str) -> (Self, Vec<String>) {
        Self::decode(fragment)
    }

    fn fragment(&self) -> String {
        self.encode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panes_own_anchors_are_no_links() {
        // A reload on the nav's `#search` or `#stepcoder` shows the pane, not a broken link.
        assert!(!SearchLink::is_fragment("#search") && !SearchLink::is_fragment("search"));
        assert!(!crate::share::ablation_link::AblationLink::is_fragment("#stepcoder"));
        assert!(!crate::share::ShareLink::is_fragment("#search"));
        assert!(SearchLink::is_fragment(&format!("#{}", link().fragment())));
    }

    fn link() -> SearchLink {
        let mut spec = SearchSpec::new(MethodSpec::parse("gif-mcts-no-fix").unwrap(), "binary_search", 12, 7);
        spec.simulated_llm.regress = 0.25;
        let results = SearchResults { best_score: 0.75, llm_calls: 12, fingerprint: "00ff".into() };
        SearchLink {
            spec,
            llm: SIMULATED.into(),
            ran: String::new(),
            results: Some(results),
            teaching: Teaching::default(),
            cheating: None,
        }
    }

    #[test]
    fn a_search_link_is_short_readable_and_round_trips() {
        let fragment = link().encode();
        assert_eq!(
            fragment,
            "v=1&search=gif-mcts-no-fix&task=binary_search&budget=12&seed=7&llm=simulated&o.regress=0.25&r.best=0.750&r.calls=12&r.fp=00ff"
        );
        assert!(SearchLink::is_fragment(&format!("#{fragment}")));
        assert!(!SearchLink::is_fragment("#v=1&env=orchestrator"));
        assert_eq!(SearchLink::decode(&fragment), (link(), vec![]));
    }

    #[test]
    fn autopep8_off_rides_along_and_on_is_the_default() {
        let mut spec = link().spec;
        spec.autopep8 = false;
        let encoded = SearchLink { spec: spec.clone(), results: None, ..link() }.encode();
        assert!(encoded.ends_with("&autopep8=0"), "{encoded}");
        assert_eq!(SearchLink::decode(&encoded).0.spec, spec);
        let (decoded, problems) = SearchLink::decode("v=1&search=gif-mcts&task=t&budget=3&seed=1");
        assert!(decoded.spec.autopep8 && problems.is_empty());
        let (_, problems) = SearchLink::decode("v=1&search=gif-mcts&task=t&budget=3&seed=1&autopep8=no");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("autopep8"), "{problems:?}");
    }

    #[test]
    fn an_impossible_variant_rides_along_and_a_bad_one_is_named() {
        let mut spec = link().spec;
        spec.impossible = Some(ImpossibleVariant::Conflicting);
        spec.simulated_llm.special_case_share = 0.5;
        let encoded = SearchLink { spec: spec.clone(), results: None, ..link() }.encode();
        assert!(
            encoded.contains("&impossible=conflicting") && encoded.contains("o.special_case_share=0.5"),
            "{encoded}"
        );
        assert_eq!(SearchLink::decode(&encoded).0.spec, spec);
        let (decoded, problems) = SearchLink::decode("v=1&search=gif-mcts&task=t&budget=3&seed=1&impossible=two-off");
        assert_eq!(decoded.spec.impossible, None);
        assert!(problems.len() == 1 && problems[0].contains("two-off"), "{problems:?}");
    }

    #[test]
    fn a_link_to_the_cheating_view_carries_its_measure_seeds_and_tasks_and_a_bad_one_is_named() {
        let cheating = CheatMeasure {
            measure: Measure::HeldOut,
            seeds: 10,
            tasks: vec!["caesar".into(), "flatten".into()],
            simulated_lookups: Some(0.5),
        };
        let shared = SearchLink { cheating: Some(cheating), ..link() };
        let encoded = shared.encode();
        assert!(
            encoded.contains("&cheat=held-out&cheat.seeds=10&cheat.tasks=caesar%2Cflatten&cheat.lookups=0.5"),
            "{encoded}"
        );
        assert_eq!(SearchLink::decode(&encoded), (shared, vec![]));
        let (decoded, problems) = SearchLink::decode(
            "v=1&search=zero-shot&task=t&budget=1&seed=1&cheat=two-off&cheat.seeds=500&cheat.lookups=2",
        );
        assert_eq!(decoded.cheating, Some(CheatMeasure { simulated_lookups: None, ..CheatMeasure::default() }));
        assert!(problems.len() == 3 && problems[0].contains("two-off") && problems[1].contains("500"), "{problems:?}");
        assert!(problems[2].starts_with("cheat.lookups") && problems[2].contains("2 is outside 0..=1"), "{problems:?}");
        // A link made before the field: the form's odds, as it measured them.
        let (older, problems) = SearchLink::decode("v=1&search=zero-shot&task=t&budget=1&seed=1&cheat=one-off");
        assert_eq!((older.cheating.unwrap().simulated_lookups, problems), (None, vec![]));
    }

    #[test]
    fn a_held_out_share_rides_along_and_one_outside_the_open_interval_is_named() {
        let mut spec = link().spec;
        spec.held_out_share = 0.4;
        spec.may_give_up = true;
        let encoded = SearchLink { spec: spec.clone(), results: None, ..link() }.encode();
        assert!(encoded.contains("&held_out=0.4&give_up=1"), "{encoded}");
        assert_eq!(SearchLink::decode(&encoded).0.spec, spec);
        for bad in ["1", "0", "-0.2", "half"] {
            let (decoded, problems) =
                SearchLink::decode(&format!("v=1&search=gif-mcts&task=t&budget=3&seed=1&held_out={bad}"));
            assert_eq!(decoded.spec.held_out_share, 0.0);
            assert!(problems.len() == 1 && problems[0].contains("held_out"), "{bad}: {problems:?}");
        }
    }

    #[test]
    fn naive_verdicts_and_a_hack_share_ride_along_and_a_bad_switch_is_named() {
        let mut spec = SearchSpec::new(MethodSpec::parse("gif-mcts").unwrap(), "binary_search", 12, 2);
        spec.naive_verdicts = true;
        spec.simulated_llm.hack_share = 0.5;
        let link = SearchLink { spec, results: None, ..link() };
        let fragment = link.encode();
        assert_eq!(
            fragment,
            "v=1&search=gif-mcts&task=binary_search&budget=12&seed=2&llm=simulated&o.hack_share=0.5&naive=1"
        );
        assert_eq!(SearchLink::decode(&fragment), (link, vec![]));
        let (decoded, problems) = SearchLink::decode("v=1&search=gif-mcts&task=t&budget=3&seed=1&naive=yes");
        assert!(!decoded.spec.naive_verdicts);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("naive") && problems[0].contains("must be 1 or 0"), "{problems:?}");
    }

    #[test]
    fn a_world_model_searchs_dataset_and_scoring_ride_along_when_not_the_defaults() {
        let mut spec = SearchSpec::new(MethodSpec::parse("worldcoder").unwrap(), "Taxi-v3", 10, 2);
        spec.world_model.dataset_seed = 5;
        spec.world_model.scoring.labelling = crate::gym::accuracy::Labelling::TerminatedOrTruncated;
        let link = SearchLink { spec, results: None, ..link() };
        let fragment = link.encode();
        assert!(fragment.ends_with("&w.data=5&w.done=terminated_or_truncated"), "{fragment}");
        assert_eq!(SearchLink::decode(&fragment), (link, vec![]));
        let (_, problems) = SearchLink::decode("v=1&search=gif-mcts&task=Taxi-v3&w.metric=best");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("w.metric"), "{problems:?}");
    }

    #[test]
    fn bad_fields_are_named_and_defaults_stand_in() {
        let (decoded, problems) =
            SearchLink::decode("v=1&search=beam&task=t&budget=0&seed=x&o.regress=2&o.colour=3&r.best=1&color=red");
        assert_eq!(decoded.spec.method.name(), "gif-mcts");
        assert_eq!((decoded.spec.budget, decoded.spec.seed), (20, 1));
        assert_eq!(decoded.spec.simulated_llm, SimulatedLlmParams::default());
        assert_eq!(decoded.results, None);
        assert!(decoded.replays_exactly());
        let expected = [
            "'color' is not a field of a search link",
            "search: unknown method 'beam'",
            "budget: 0 is outside 1..=1000",
            "seed: 'x' is not a whole number",
            "o.colour: the simulated LLM has no odds field 'colour'",
            "odds fields: ",
            "the shared results need r.best, r.calls and r.fp together",
        ];
        crate::share::assert_problems_start_with(&problems, &expected);
    }

    #[test]
    fn a_kept_searchs_link_carries_its_results_and_replays_exactly() {
        use crate::search::tests::{simulated, simulated_spec};
        let record = simulated("gif-mcts", 3).record(&simulated_spec("gif-mcts", 3), "simulated");
        let link = SearchLink::of(&record);
        let results = link.results.as_ref().unwrap();
        assert_eq!((results.best_score, results.llm_calls), (record.best_score(), record.llm_calls()));
        assert!(link.replays_exactly());
    }

    #[test]
    fn a_search_answered_by_a_model_does_not_replay_exactly() {
        let (decoded, problems) = SearchLink::decode("v=1&search=worldcoder&task=t&budget=5&seed=2&llm=gpt-4o-mini");
        assert!(problems.is_empty());
        assert!(!decoded.replays_exactly());
        assert_eq!(decoded.encode(), "v=1&search=worldcoder&task=t&budget=5&seed=2&llm=gpt-4o-mini");
    }

    #[test]
    fn a_models_search_carries_where_it_ran_and_how_fast_and_an_instruction_is_a_field() {
        use crate::llm::Usage;
        use crate::search::tests::{simulated, simulated_spec};
        let mut spec = simulated_spec("gif-mcts", 3);
        spec.tests_instruction = TestsInstruction::Neutral;
        spec.llm_judge = true;
        let mut record = simulated("gif-mcts", 3).record(&spec, "tiny (in this tab, from file:///tiny.gguf)");
        record.usage = Usage { prompt_tokens: 900, completion_tokens: 190, writing_ms: 6000 };
        record.device = "llama.cpp on the CPU, 2 threads".into();
        let link = SearchLink::of(&record);
        assert_eq!(link.ran, "31.7 tokens/s on llama.cpp on the CPU, 2 threads");
        let fragment = link.encode();
        assert!(fragment.contains("&ran=31.7+tokens%2Fs+on+llama.cpp+on+the+CPU%2C+2+threads"), "{fragment}");
        assert!(fragment.contains("&instruction=neutral&judge=1"), "{fragment}");
        let (decoded, problems) = SearchLink::decode(&fragment);
        assert_eq!((&decoded.spec, &decoded.llm, &decoded.ran, problems), (&link.spec, &link.llm, &link.ran, vec![]));
    }
}
