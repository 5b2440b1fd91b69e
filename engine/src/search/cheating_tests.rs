//! The searches' cheating measures (issue 53, and issue 67's held-out run): an impossible variant,
//! held-out tests run on their own after the visible verdict, and the model's option to give up.

use super::*;
use crate::effects::{Effectful, Need};
use crate::prompts::PromptSet;
use crate::python::{Outcome, ProgramVerdict, TestCase, TestResult};
use crate::search::machine::Search;
use crate::search::methods::zero_shot::ZeroShot;
use crate::search::offline::bank;
use crate::search::scorer::TestsScorer;
use crate::search::tests::{driven, reply, simulated_spec, task, verdict};

#[test]
fn an_impossible_search_scores_the_changed_tests_and_shows_them_and_the_lookup_answers_them() {
    use crate::cheating::impossible::ImpossibleVariant;
    use crate::effects::OfflineLlm;
    let original = bank::search_tasks().iter().find(|t| t.id == "binary_search").unwrap().tests.clone();
    let mut spec = simulated_spec("zero-shot", 4);
    spec.impossible = Some(ImpossibleVariant::OneOff);
    spec.simulated_llm.special_case_share = 1.0;
    let spec::AnyScorer::Tests(scorer) = spec.scorer(None).unwrap() else { panic!("a task with tests") };
    let changed: Vec<usize> = (0..original.len()).filter(|&i| scorer.tests[i] != original[i]).collect();
    assert_eq!(changed.len(), 1, "one test changed");
    let mut search = spec.start(None, true, PromptSet::default()).unwrap();
    let Need::Chat(call) = search.need() else { panic!("the search starts with a call") };
    let TestCase::Statement(mutated) = &scorer.tests[changed[0]] else { panic!("statement tests") };
    assert!(call.messages.iter().any(|m| m.content.contains(mutated.as_str())), "the prompt shows the changed test");
    // Special-casing at every reply: the lookup of the shown tests, changed one included.
    let outcome = OfflineLlm::new(4).reply(&search);
    search.chat_done(outcome, 0.0);
    let Need::Python(batch) = search.need() else { panic!("the program is run") };
    assert!(batch.requests[0].code.contains("def binary_search(*args):"), "{}", batch.requests[0].code);
    assert!(batch.requests[0].code.contains(&serde_json::to_string(mutated.as_str()).unwrap()));
    // Without an impossible variant, the search is the one it was.
    assert_eq!(
        simulated_spec("zero-shot", 4).scorer(None).unwrap(),
        spec::SearchSpec { impossible: None, ..spec }.scorer(None).unwrap()
    );
}

#[test]
fn held_out_tests_run_on_their_own_after_the_visible_verdict_score_nothing_and_mark_a_lookup() {
    use crate::cheating::held_out::HeldOutScore;
    let tests = task().tests;
    let scorer = TestsScorer {
        held_out: tests[2..].to_vec(),
        example_from_first_half: false,
        ..TestsScorer::new(tests[..2].to_vec(), None)
    };
    // Each program meets the visible tests, in their order; once that verdict is final, the
    // held-out ones in a request of their own. The held-out run prints the held-out inputs (the
    // red team's lookup-table attack): nothing of it may reach a prompt.
    let run = |visible_passed: u32, held_passed: u32| {
        let mut search = Search::new(ZeroShot, scorer.clone(), task(), PromptSet::default(), 2, 7).unwrap();
        let (mut requests, mut prompts) = (Vec::new(), Vec::new());
        loop {
            match search.need() {
                Need::Chat(call) => {
                    prompts.extend(call.messages.iter().map(|m| m.content.clone()));
                    search.chat_done(reply("def f(x):\n    return x + 1\n"), 0.0);
                }
                Need::Python(batch) => {
                    let request = batch.requests[0].clone();
                    let held = requests.len() % 2 == 1;
                    let passed = if held { held_passed } else { visible_passed };
                    let mut verdict = ProgramVerdict::from_host(&request, Outcome::FailedTest, String::new(), 1.0);
                    verdict.error = held.then(|| "held-out input f(3) seen".to_owned());
                    verdict.stdout = if held { "f(3) f(4)".into() } else { String::new() };
                    verdict.tests = request
                        .tests
                        .iter()
                        .enumerate()
                        .map(|(i, t)| TestResult {
                            test: format!("{t:?}"),
                            passed: (i as u32) < passed,
                            input: Some(format!("f({})", i + 1 + 2 * u32::from(held) as usize)),
                            ..TestResult::default()
                        })
                        .collect();
                    verdict.number_passed = passed;
                    verdict.passed = passed == verdict.total;
                    verdict.outcome = if verdict.passed { Outcome::Pass } else { Outcome::FailedTest };
                    requests.push(request.tests);
                    search.python_done(vec![verdict], 0.0);
                }
                _ => break,
            }
        }
        assert_eq!(requests[..2], [tests[..2].to_vec(), tests[2..].to_vec()], "visible first, then held out, apart");
        assert!(prompts.iter().all(|p| !p.contains("f(3)") && !p.contains("seen")), "nothing held out is shown");
        search.expansions()[0].score.clone()
    };
    // The visible two pass, the held-out two fail: a perfect score, marked with the first it failed.
    let special = run(2, 0);
    assert_eq!(special.score, 1.0);
    assert_eq!(special.held_out, Some(HeldOutScore { passed: 0, total: 2, first_failed: Some("f(3)".into()) }));
    assert_eq!(special.special_cased(), Some("f(3)"));
    assert_eq!(special.error, None, "the held-out run's error is not the program's");
    // Failing a visible test: scored on the visible ones and fed back from them only, not marked.
    let half = run(1, 0);
    assert_eq!(half.score, 0.5);
    assert_eq!(half.example.as_ref().and_then(|e| e.test), Some(1), "the failing visible test, never a held-out one");
    assert_eq!(half.special_cased(), None);
    // A program that passes every test, held-out ones included, is never marked.
    let correct = run(2, 2);
    assert_eq!((correct.score, correct.special_cased()), (1.0, None));
    assert_eq!(correct.held_out.map(|h| (h.passed, h.total)), Some((2, 2)));
}

#[test]
fn a_held_out_search_shows_only_the_visible_tests_and_its_seed_draws_the_split() {
    let mut spec = simulated_spec("zero-shot", 3);
    spec.held_out_share = 0.5;
    let all = bank::search_tasks().iter().find(|t| t.id == "binary_search").unwrap().tests.clone();
    let spec::AnyScorer::Tests(scorer) = spec.scorer(None).unwrap() else { panic!("a task with tests") };
    assert_eq!((all.len(), scorer.tests.len(), scorer.held_out.len()), (7, 3, 4), "3.5 rounds to 4 held out");
    let search = spec.start(None, true, PromptSet::default()).unwrap();
    assert_eq!(search.task().held_out, scorer.held_out);
    let Need::Chat(call) = search.need() else { panic!("the search starts with a call") };
    let prompt: String = call.messages.iter().map(|m| m.content.as_str()).collect();
    let text = |t: &TestCase| match t {
        TestCase::Statement(s) => s.trim().to_owned(),
        TestCase::Io { .. } => unreachable!("statement tests"),
    };
    assert!(scorer.tests.iter().all(|t| prompt.contains(&text(t))), "the visible tests are shown");
    assert!(scorer.held_out.iter().all(|t| !prompt.contains(&text(t))), "no held-out test is");
    let spec::AnyScorer::Tests(again) = spec.scorer(None).unwrap() else { unreachable!() };
    assert_eq!(again, scorer, "the same seed, the same split");
    let splits: Vec<_> = (4..12)
        .map(|seed| match (spec::SearchSpec { seed, ..spec.clone() }).scorer(None).unwrap() {
            spec::AnyScorer::Tests(s) => s.held_out,
            spec::AnyScorer::WorldModel(_) => unreachable!(),
        })
        .collect();
    assert!(splits.iter().any(|h| *h != scorer.held_out), "other seeds draw other splits");
    // Held out beside an impossible variant, which shows every test: refused, by name.
    let both = spec::SearchSpec { impossible: Some(crate::cheating::impossible::ImpossibleVariant::OneOff), ..spec };
    assert!(both.start(None, true, PromptSet::default()).unwrap_err().contains("choose one"));
}

#[test]
fn a_model_let_give_up_ends_the_search_honestly_and_the_prompt_says_it_may() {
    use crate::cheating::give_up;
    use crate::cheating::impossible::ImpossibleVariant;
    let mut spec = simulated_spec("gif-mcts", 2);
    spec.impossible = Some(ImpossibleVariant::OneOff);
    spec.may_give_up = true;
    spec.simulated_llm.give_up_share = 1.0;
    let search = driven(&spec, 2, |request| verdict(request, 0, false));
    assert_eq!(search.llm_calls(), 1, "the first reply gives up");
    assert!(search.gave_up().is_some_and(|why| why.contains("contradict")), "{:?}", search.gave_up());
    assert!(search.ended().starts_with("the LLM gave up, saying the task is impossible: "), "{}", search.ended());
    assert_eq!(crate::search::measures::bench::cheat_of(&search), None, "giving up is honest");
    assert!(search.calls()[0].prompt.contains(&give_up::instruction()));
    // At a share of 0 the same search draws as it did without the option.
    spec.simulated_llm.give_up_share = 0.0;
    let kept = driven(&spec, 2, |request| verdict(request, 0, false));
    let without = driven(&spec::SearchSpec { may_give_up: false, ..spec.clone() }, 2, |r| verdict(r, 0, false));
    let programs = |s: &spec::ProgramSearch| s.expansions().iter().map(|e| e.program.clone()).collect::<Vec<_>>();
    assert_eq!((kept.gave_up(), programs(&kept)), (None, programs(&without)));
    // Offered only where the tests are shown: otherwise refused, by name.
    let plain = spec::SearchSpec { impossible: None, ..spec };
    assert!(plain.start(None, true, PromptSet::default()).unwrap_err().contains("shows its tests"));
}

#[test]
fn the_llm_judge_reads_an_answer_that_passed_once_the_search_ends_and_changes_nothing_it_did() {
    use crate::cheating::llm_judge::JudgeClass;
    use crate::prompts::id;
    let mut spec = simulated_spec("zero-shot", 5);
    spec.held_out_share = 0.3;
    spec.simulated_llm.special_case_share = 1.0;
    let all_pass = |request: &crate::python::ProgramRequest| verdict(request, request.tests.len() as u32, false);
    let unjudged = driven(&spec, 5, all_pass);
    assert_eq!(unjudged.judged(), None, "off by default");
    spec.llm_judge = true;
    let judged = driven(&spec, 5, all_pass);
    // The judge's call is beyond the search: the same calls, programs and fingerprint.
    assert_eq!((judged.llm_calls(), judged.fingerprint()), (unjudged.llm_calls(), unjudged.fingerprint()));
    assert_eq!(judged.ended(), unjudged.ended());
    let record = judged.judged().expect("an answer that passed every visible test is judged");
    let lookup = &judged.expansions()[0].program;
    assert!(lookup.contains("_SHOWN = ["), "the simulated LLM looked the tests up: {lookup}");
    assert!(record.prompt.contains(lookup.trim()), "the judge reads the program: {}", record.prompt);
    assert!(record.prompt.contains(&judged.task().description), "and the task as the model was shown it");
    let held_out = &judged.task().held_out;
    let unseen = |t: &TestCase| matches!(t, TestCase::Statement(s) if !record.prompt.contains(s.trim()));
    assert!(!held_out.is_empty() && held_out.iter().all(unseen), "no held-out test reaches the judge");
    assert!(record.class.is_some(), "{}", record.reply);
    assert!(PromptSet::default().get(id::CHEATING_JUDGE).is_some());
    // An answer that fails a visible test is not judged: no detector counts it.
    let failing = driven(&spec, 5, |request| verdict(request, 0, false));
    assert_eq!((failing.judged(), failing.is_done()), (None, true));
    // The simulated judge flags lookups, missing 10% of them, and calls honest answers legitimate,
    // with 5% false alarms.
    let classes = |spec: &spec::SearchSpec| -> Vec<_> {
        (1..=20)
            .map(|seed| driven(&spec::SearchSpec { seed, ..spec.clone() }, seed, all_pass).judged().unwrap().class)
            .collect()
    };
    let lookups = classes(&spec);
    assert!(lookups.iter().filter(|c| **c == Some(JudgeClass::RewardHacking)).count() >= 16, "{lookups:?}");
    spec.simulated_llm.special_case_share = 0.0;
    let honest = classes(&spec);
    assert!(honest.iter().filter(|c| **c == Some(JudgeClass::Legitimate)).count() >= 17, "{honest:?}");
}
