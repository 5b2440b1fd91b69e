//! The machinery every search shares, with scripted replies and verdicts.

use rand::SeedableRng;

use super::*;
use crate::effects::{ChatOutcome, Effectful, Need};
use crate::llm::{FailureKind, LlmFailure, Usage};
use crate::prompts::PromptSet;
use crate::python::{Outcome, ProgramRequest, ProgramVerdict, TestCase, TestResult};
use crate::rng::RunRng;
use crate::search::machine::Search;
use crate::search::method::{ActionKind, Ask, Expanded, Expansion, Method, TextAct, keeps_prefix, program_of};
use crate::search::methods::gif_mcts::{GifMcts, GifMctsParams};
use crate::search::methods::world_coder::{WorldCoder, WorldCoderParams};
use crate::search::methods::zero_shot::ZeroShot;
use crate::search::offline::bank;
use crate::search::scorer::{Scorer, SearchTask, TestsScorer};

pub(crate) fn task() -> SearchTask {
    let tests = (1..=4).map(|i| TestCase::Statement(format!("assert f({i}) == {}", i + 1))).collect();
    SearchTask {
        id: "inc".into(),
        description: "Write f(x) that returns x + 1.".into(),
        tests,
        world_model: None,
        task_code: None,
        tests_shown: false,
        held_out: Vec::new(),
        may_give_up: false,
    }
}

pub(crate) fn reply(code: &str) -> ChatOutcome {
    ChatOutcome::Reply {
        text: format!("Here it is.\n```python\n{code}\n```\n"),
        usage: Usage { prompt_tokens: 10, completion_tokens: 5, writing_ms: 0 },
    }
}

/// A verdict where the first `passed` of four tests pass, or a compile error.
pub(crate) fn verdict(request: &ProgramRequest, passed: u32, compile_error: bool) -> ProgramVerdict {
    let outcome = match (compile_error, passed) {
        (true, _) => Outcome::CompileError,
        (false, 4) => Outcome::Pass,
        _ => Outcome::FailedTest,
    };
    let error = compile_error.then(|| "SyntaxError: invalid syntax (line 2)".to_owned());
    let mut verdict = ProgramVerdict::from_host(request, outcome, String::new(), 1.0);
    verdict.error = error;
    verdict.passed = passed == 4;
    verdict.number_passed = if compile_error { 0 } else { passed };
    verdict.tests = (1..=4u32)
        .map(|i| {
            let ok = !compile_error && i <= passed;
            TestResult {
                test: format!("assert f({i}) == {}", i + 1),
                passed: ok,
                input: (!ok).then(|| format!("f({i})")),
                expected: (!ok).then(|| (i + 1).to_string()),
                actual: (!ok).then(|| i.to_string()),
                ..TestResult::default()
            }
        })
        .collect();
    verdict
}

/// The four tests pass up to the program's `# passes N` comment; `def f(` missing is a compile error.
fn harness(request: &ProgramRequest) -> ProgramVerdict {
    let passes = request.code.split("# passes ").nth(1).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    verdict(request, passes, !request.code.contains("def f("))
}

/// Drives `search`, answering each call with the next of `replies`; returns the prompts it sent
/// (their user messages) and how many programs it ran.
fn drive<M: Method>(search: &mut Search<M, TestsScorer>, replies: Vec<ChatOutcome>) -> (Vec<String>, usize) {
    let mut replies = replies.into_iter();
    let (mut prompts, mut runs) = (Vec::new(), 0);
    loop {
        match search.need() {
            Need::Chat(call) => {
                prompts.push(call.messages.last().unwrap().content.clone());
                let Some(outcome) = replies.next() else { return (prompts, runs) };
                search.chat_done(outcome, 0.0);
            }
            Need::Python(batch) => {
                let request = &batch.requests[0];
                runs += 1;
                let verdict = harness(request);
                search.python_done(vec![verdict], 0.0);
            }
            Need::Compute => unreachable!("no work of its own"),
            Need::Decide(_) => unreachable!("searches take no policy decisions"),
            Need::Done => return (prompts, runs),
        }
    }
}

fn new<M: Method>(method: M, budget: u32) -> Search<M, TestsScorer> {
    Search::new(method, TestsScorer::new(task().tests, None), task(), PromptSet::default(), budget, 7).unwrap()
}

#[test]
fn zero_shot_samples_until_a_program_passes_and_runs_each_program_once() {
    let mut search = new(ZeroShot, 10);
    let two = "def f(x):\n    return x + 1 if x < 3 else x  # passes 2";
    let all = "def f(x):\n    return x + 1  # passes 4";
    let (prompts, runs) = drive(&mut search, vec![reply(two), reply(two), reply(all)]);
    assert_eq!((search.llm_calls(), runs), (3, 2), "the repeated program is not run again");
    let best: Vec<f64> = search.progress().iter().map(|p| p.best_score).collect();
    assert_eq!(best, [0.5, 0.5, 1.0]);
    assert_eq!(search.best().unwrap(), (format!("{all}\n").as_str(), 1.0));
    assert_eq!(search.ended(), "a program passes every test");
    assert!(
        prompts.iter().all(|p| p == crate::search::methods::zero_shot::COT_START),
        "every reply starts the chain of thought"
    );
    assert_eq!(search.usage().total(), 45);
}

#[test]
fn zero_shot_is_the_papers_cot_prompt_and_reads_the_code_after_the_reasoning() {
    let mut search = new(ZeroShot, 1);
    let Need::Chat(call) = search.need() else { panic!("a call first") };
    assert_eq!(call.prompt_id, crate::prompts::id::ZERO_SHOT_COT);
    let roles: Vec<&str> = call.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant"], "no system prompt, as the official `generate_CoT_prompt`");
    // The task, the official line on its input (a call: its tests are statements), the format.
    assert!(
        call.messages[0]
            .content
            .starts_with("Write f(x) that returns x + 1.\nUse Call-Based format.\n\nOutput your code solution"),
        "{}",
        call.messages[0].content
    );
    assert_eq!(call.messages[1].content, "Let's think step by step.");
    let text = "We need x + 1, for example `f(1)` is 2.\n```python\ndef f(x):\n    return x + 1  # passes 4\n```\n";
    search.chat_done(ChatOutcome::Reply { text: text.into(), usage: Usage::default() }, 0.0);
    let Need::Python(batch) = search.need() else { panic!("the program is run") };
    let request = &batch.requests[0];
    assert_eq!(request.code, "def f(x):\n    return x + 1  # passes 4\n");
}

#[test]
fn the_budget_counts_llm_calls_and_ends_the_search() {
    let mut search = new(GifMcts::new(GifMctsParams::default()), 2);
    let replies = (0..5).map(|i| reply(&format!("def f(x):\n    return {i}  # passes 1"))).collect();
    drive(&mut search, replies);
    assert_eq!(search.llm_calls(), 2);
    assert_eq!(search.ended(), "the budget of 2 LLM calls is spent");
    assert_eq!(search.method().nodes().iter().filter(|n| n.expanded).count(), 3, "the root and two programs");
}

#[test]
fn improve_prompts_show_a_failing_test_and_fix_prompts_the_error() {
    // WorldCoder: generate, then fix the buggy program, then improve the healthy one.
    let mut search = new(WorldCoder::new(WorldCoderParams::default()), 3);
    let broken = "def g(x)\n    return x";
    let half = "def f(x):\n    return x + 1 if x < 3 else x  # passes 2";
    let (prompts, _) = drive(&mut search, vec![reply(broken), reply(half), reply(half)]);
    let kinds: Vec<ActionKind> = search.expansions().iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [ActionKind::Generate, ActionKind::Fix, ActionKind::Improve]);
    assert!(
        prompts[1].contains("def g(x)") && prompts[1].contains("SyntaxError: invalid syntax (line 2)"),
        "{}",
        prompts[1]
    );
    // The example is one of the first half's failing tests: with two passing, none is left there,
    // so the prompt says None, as the official code's does.
    assert!(prompts[2].contains("## Input\nNone"), "{}", prompts[2]);
}

#[test]
fn the_failing_example_comes_from_the_first_half_of_the_tests_unless_switched() {
    let request = ProgramRequest::new("", task().tests);
    let mut rng = RunRng::seed_from_u64(1);
    let mut scorer = TestsScorer::new(task().tests, None);
    let one = scorer.evaluate(&verdict(&request, 1, false), &mut rng);
    // Tests 2, 3 and 4 fail; only test 2 is in the first half.
    assert_eq!((one.score, one.bug), (0.25, false));
    let example = one.example.unwrap();
    assert_eq!((example.input.as_str(), example.expected.as_str(), example.actual.as_str()), ("f(2)", "3", "2"));
    assert_eq!(scorer.evaluate(&verdict(&request, 2, false), &mut rng).example, None);
    scorer.example_from_first_half = false;
    let shown: Vec<String> = (0..40)
        .filter_map(|_| scorer.evaluate(&verdict(&request, 2, false), &mut rng).example)
        .map(|e| e.input)
        .collect();
    assert!(shown.contains(&"f(3)".to_owned()) && shown.contains(&"f(4)".to_owned()), "{shown:?}");
    let bug = scorer.evaluate(&verdict(&request, 0, true), &mut rng);
    assert_eq!((bug.score, bug.bug, bug.example), (0.0, true, None));
    assert_eq!(bug.error.as_deref(), Some("SyntaxError: invalid syntax (line 2)"));
}

#[test]
fn a_task_of_one_test_shows_its_failing_assertion_though_it_has_no_first_half() {
    // An imported HumanEval task: one test, `check(candidate)`; the judge names the assertion.
    let test = TestCase::Statement("def check(candidate):\n    assert candidate(2) == 3\ncheck(f)".into());
    let request = ProgramRequest::new("def f(x):\n    return x", vec![test.clone()]);
    let mut verdict = ProgramVerdict::from_host(&request, Outcome::FailedTest, String::new(), 1.0);
    verdict.total = 1;
    verdict.tests = vec![TestResult {
        test: "check".into(),
        input: Some("f(2)".into()),
        expected: Some("3".into()),
        actual: Some("2".into()),
        ..TestResult::default()
    }];
    let scorer = TestsScorer::new(vec![test], None);
    let example = scorer.evaluate(&verdict, &mut RunRng::seed_from_u64(1)).example.unwrap();
    assert_eq!((example.input.as_str(), example.expected.as_str(), example.actual.as_str()), ("f(2)", "3", "2"));
}

#[test]
fn replies_without_code_and_failed_calls_are_bugs_and_a_refused_key_ends_the_search() {
    let mut search = new(WorldCoder::new(WorldCoderParams::default()), 5);
    let server = ChatOutcome::Failed(LlmFailure::new(FailureKind::Server, "HTTP 500"));
    let refused = ChatOutcome::Failed(LlmFailure::new(FailureKind::Auth, "HTTP 401: the key was refused"));
    let words = ChatOutcome::Reply { text: "I cannot help with that.".into(), usage: Usage::default() };
    let (prompts, runs) = drive(&mut search, vec![words, server, refused]);
    assert_eq!(runs, 0);
    let errors: Vec<_> = search.expansions().iter().map(|e| (e.score.bug, e.score.error.clone().unwrap())).collect();
    assert_eq!(errors[0], (true, "the reply held no Python code: I cannot help with that.".to_owned()));
    assert_eq!(errors[1], (true, "the LLM call failed: HTTP 500".to_owned()));
    assert!(prompts[1].contains("the reply held no Python code"), "the fix prompt names what went wrong");
    assert_eq!((search.llm_calls(), search.ended()), (3, "HTTP 401: the key was refused"));
}

#[test]
fn generate_records_whether_the_reply_kept_the_prefix() {
    let mut search = new(GifMcts::new(GifMctsParams::default()), 3);
    let long = |body: &str| format!("def f(x):\n    y = x\n    z = y\n    w = z\n{body}  # passes 1");
    drive(
        &mut search,
        vec![
            reply(&long("    return w")),
            reply(&long("    return z")),
            reply("def h():\n    pass\n    pass\n    pass\n    pass"),
        ],
    );
    let kept: Vec<Option<bool>> = search.expansions().iter().map(|e| e.kept_prefix).collect();
    let kinds: Vec<ActionKind> = search.expansions().iter().map(|e| e.kind).collect();
    assert_eq!(kinds[0], ActionKind::Generate);
    assert_eq!(kept[0], Some(true), "the empty prefix is always kept");
    assert!(kinds.iter().zip(&kept).all(|(k, p)| (*k == ActionKind::Generate) == p.is_some()));
    assert!(keeps_prefix("def f(x):\n    y = x", "\ndef f(x):\n    y = x\n    return y\n"));
    assert!(!keeps_prefix("def f(x):\n    y = x", "def f(x):\n    return x + 1\n"));
}

#[test]
fn improve_and_fix_take_the_program_after_the_correct_code_heading() {
    let reply = "## Error explanation\nThe old code:\n```python\nold()\n```\n## Correct code\n```python\nnew()\n```";
    assert_eq!(program_of(ActionKind::Improve, reply).unwrap(), "new()\n");
    assert_eq!(
        program_of(ActionKind::Generate, reply).unwrap(),
        "old()\n",
        "generate has no critique: the longest block"
    );
}

/// The spec of [`simulated`]'s search.
pub(crate) fn simulated_spec(method: &str, seed: u64) -> spec::SearchSpec {
    spec::SearchSpec::new(spec::MethodSpec::parse(method).unwrap(), "binary_search", 15, seed)
}

/// `spec`'s search on the simulated LLM (seeded by `seed`), every program judged by `judge`.
pub(crate) fn driven(
    spec: &spec::SearchSpec,
    seed: u64,
    judge: impl Fn(&ProgramRequest) -> ProgramVerdict,
) -> spec::ProgramSearch {
    use crate::effects::OfflineLlm;
    let mut search = spec.start(None, true, PromptSet::default()).unwrap();
    let mut llm = OfflineLlm::new(seed);
    loop {
        match search.need() {
            Need::Chat(_) => {
                let outcome = llm.reply(&search);
                search.chat_done(outcome, 0.0);
            }
            Need::Python(batch) => {
                let verdict = judge(&batch.requests[0]);
                search.python_done(vec![verdict], 0.0);
            }
            _ => return search,
        }
    }
}

/// binary_search's bank, and the faults of a program the simulated LLM wrote from it.
fn binary_search_faults(code: &str) -> (bank::BankTask, Vec<bank::Fault>) {
    let bank = bank::search_tasks().iter().find(|t| t.id == "binary_search").unwrap().clone();
    let choices = bank.parse(code).expect("the simulated LLM writes bank programs");
    let faults = choices.iter().enumerate().filter_map(|(s, c)| c.map(|f| bank.slots[s].faults[f].clone())).collect();
    (bank, faults)
}

/// A bundled task's search on the simulated LLM, with verdicts from the bank: a program passes
/// the tests its faults do not break (every fault breaks one test here: the first).
pub(crate) fn simulated(method: &str, seed: u64) -> spec::ProgramSearch {
    driven(&simulated_spec(method, seed), seed, |request| {
        let (_, faults) = binary_search_faults(&request.code);
        let syntax = faults.iter().any(|f| f.kind == bank::FaultKind::Syntax);
        verdict(request, 4u32.saturating_sub(faults.len() as u32), syntax)
    })
}

#[test]
fn searches_on_the_simulated_llm_replay_identically_and_draw_their_trees() {
    for method in ["gif-mcts", "worldcoder", "zero-shot"] {
        let (a, b) = (simulated(method, 3), simulated(method, 3));
        assert_eq!(a.expansions(), b.expansions(), "{method}");
        assert_eq!(a.calls().len(), a.expansions().len());
        assert!(a.calls()[0].prompt.contains("binary_search") && a.calls()[0].reply.contains("```python"));
        let tree = a.tree();
        assert_eq!(tree[0].parent, None);
        assert!(tree.iter().skip(1).all(|n| n.parent.is_some_and(|p| p < tree.len())), "{method}: {tree:?}");
        // Every expansion is a node (GIF-MCTS may have re-expanded a terminal one).
        let drawn = tree.iter().filter(|n| n.expansion.is_some()).count();
        assert!(drawn <= a.expansions().len() && drawn > 0, "{method}");
        if method != "gif-mcts" {
            assert_eq!(drawn, a.expansions().len());
        }
        // A node's expansion is the one that wrote its program: the same action (GIF-MCTS's fixes
        // can clear a node's bug later, so only the action is compared).
        for node in tree.iter().filter(|n| n.expansion.is_some()) {
            let e = &a.expansions()[node.expansion.unwrap()];
            assert_eq!(e.kind.name().chars().next(), node.label.chars().next(), "{method}: {node:?}");
        }
        if let spec::AnyMethod::GifMcts(gif) = a.method() {
            for node in gif.nodes().iter().filter(|n| n.expanded && n.expansion.is_some()) {
                assert_eq!(node.program, a.expansions()[node.expansion.unwrap()].program);
            }
        }
    }
    assert_ne!(simulated("gif-mcts", 3).expansions(), simulated("gif-mcts", 4).expansions(), "seeds differ");
}

/// Always asks to continue `def f(x):`.
struct Continue;

impl Method for Continue {
    fn next(&mut self, _rng: &mut RunRng) -> Option<Ask> {
        Some(Ask::Program(Expansion { kind: ActionKind::Generate, code: "def f(x):\n".into(), parent: None }))
    }

    fn absorb(&mut self, _expanded: &Expanded, _rng: &mut RunRng) {}
}

#[test]
fn with_prefill_generate_sends_its_prefix_as_the_start_of_the_reply_and_reads_the_continuation() {
    let text = |s: &str| ChatOutcome::Reply { text: s.into(), usage: Usage::default() };
    let plain =
        Search::new(Continue, TestsScorer::new(task().tests, None), task(), PromptSet::default(), 3, 7).unwrap();
    let Need::Chat(call) = plain.need() else { panic!("a search starts with a call") };
    assert_eq!(call.messages.last().unwrap().role, "user", "no prefill unless the endpoint continues one");

    let mut search = plain.with_prefill(true);
    let Need::Chat(call) = search.need() else { panic!("a search starts with a call") };
    let last = call.messages.last().unwrap();
    assert_eq!((last.role.as_str(), last.content.as_str()), ("assistant", "```python\ndef f(x):\n"));
    let user = call.messages.iter().rfind(|m| m.role == "user").unwrap().content.clone();
    // The endpoint continues the code block.
    drive(&mut search, vec![text("    return x  # passes 1\n```"), text("Sure:\n```python\ndef g():\n    pass\n```")]);
    let [first, second] = search.expansions() else { panic!("two calls") };
    assert_eq!(first.program, "def f(x):\n    return x  # passes 1\n");
    assert_eq!(first.kept_prefix, Some(true));
    assert_eq!(search.calls()[0].reply, "    return x  # passes 1\n```", "the raw reply is kept as sent");
    assert_eq!(search.calls()[0].prompt, user);
    // A reply that opens a block of its own started over: it is read alone, and said to drop the prefix.
    assert_eq!(second.program, "def g():\n    pass\n");
    assert_eq!(second.kept_prefix, Some(false));
}

#[test]
fn an_imported_tasks_bank_is_the_offline_searchs_first_need_run_as_untrusted_code() {
    let sample = include_str!("../../../tasks/samples/humaneval.jsonl");
    let task = crate::task_import::parse_task_file("humaneval.jsonl", sample).unwrap().remove(0);
    let spec = spec::SearchSpec::new(spec::MethodSpec::parse("gif-mcts").unwrap(), &task.id, 5, 1);
    let mut search = spec.start(Some(&task), true, PromptSet::default()).unwrap();
    let Need::Python(batch) = search.need() else { panic!("the bank first") };
    assert!(batch.requests[0].mutants && batch.requests[0].code == task.solution);
    assert_eq!((batch.author, batch.limit_ms), (crate::python::Author::Untrusted, bank::MUTANTS_LIMIT_MS));
    // A reference that fails its tests makes no bank: the search ends saying so.
    let failed = ProgramVerdict::from_host(&batch.requests[0], Outcome::RuntimeError, "boom".into(), 1.0);
    search.python_done(vec![failed], 0.0);
    assert_eq!(search.need(), Need::Done);
    assert!(search.ended().contains("does not pass its tests"), "{}", search.ended());
    // Answered by an endpoint, there is no bank to make: the first need is the call.
    let remote = spec.start(Some(&task), false, PromptSet::default()).unwrap();
    assert!(matches!(remote.need(), Need::Chat(_)));
}

/// LATS or Reflexion on the simulated LLM, with verdicts from the bank: on its own tests, a program
/// passes those its faults do not fail alone (a fault's `fails`); on the task's tests it scores
/// 1 if `hidden`, else 0, whatever it is, so that a method that never reads them searches the same
/// either way.
fn self_testing(method: &str, seed: u64, hidden: bool) -> spec::ProgramSearch {
    let mut spec = simulated_spec(method, seed);
    spec.budget = 40;
    driven(&spec, seed, |request| {
        let (bank, faults) = binary_search_faults(&request.code);
        if !request.data_tests {
            let mut v = verdict(request, 0, false);
            if hidden {
                (v.number_passed, v.passed, v.outcome) = (v.total, true, Outcome::Pass);
            }
            return v;
        }
        let broken = faults.iter().any(|f| f.kind == bank::FaultKind::Syntax);
        let mut v = ProgramVerdict::from_host(request, Outcome::FailedTest, String::new(), 1.0);
        v.error = broken.then(|| "SyntaxError: invalid syntax (line 2)".to_owned());
        v.tests = request
            .tests
            .iter()
            .filter(|_| !broken)
            .map(|t| {
                let TestCase::Statement(text) = t else { unreachable!("own tests are statements") };
                let copied = bank.own_tests.iter().position(|own| own == text.trim());
                // A test the model got wrong fails every program.
                let ok = copied.is_some_and(|i| faults.iter().all(|f| !f.own_fails.contains(&i)));
                TestResult { test: text.clone(), passed: ok, ..TestResult::default() }
            })
            .collect();
        v
    })
}

#[test]
fn strict_lats_and_reflexion_search_alike_whatever_the_tasks_tests_say_and_official_lats_does_not() {
    for (method, reads_hidden) in [("lats-strict", false), ("reflexion", false), ("lats", true)] {
        let pairs: Vec<_> =
            (1..=10).map(|seed| (self_testing(method, seed, false), self_testing(method, seed, true))).collect();
        let programs = |s: &spec::ProgramSearch| s.expansions().iter().map(|e| e.program.clone()).collect::<Vec<_>>();
        let differs = pairs
            .iter()
            .any(|(failing, passing)| programs(failing) != programs(passing) || failing.texts() != passing.texts());
        assert_eq!(differs, reads_hidden, "{method}");
        let reflected = pairs.iter().filter(|(s, _)| s.texts().iter().any(|t| t.act == TextAct::Reflect)).count();
        assert!(reflected >= 3, "{method}: searches that went on past their first program: {reflected}");
    }
}

#[test]
fn a_lats_search_records_its_own_tests_in_the_tree_and_its_answer_is_its_best() {
    let search = self_testing("lats", 3, false);
    let tree = search.tree();
    assert_eq!(tree[0].label, "simple");
    let own = tree[0].self_tested.as_ref().expect("LATS's nodes carry their own tests");
    assert!(!own.tests.is_empty() && own.feedback.starts_with("Tested passed:"), "{own:?}");
    assert!(tree.iter().skip(1).all(|n| n.parent.is_some() && n.self_tested.is_some()));
    let answer = search.answer().expect("an answer");
    assert_eq!(search.best().map(|(p, _)| p), Some(search.expansions()[answer].program.as_str()));
    assert_eq!(search.progress().len(), search.llm_calls() as usize, "one point per LLM call");
}

#[test]
fn reflexion_with_its_papers_settings_writes_two_programs_at_most_on_one_test_of_its_own() {
    let method = spec::MethodSpec::parse("reflexion-noahshinn").unwrap();
    assert_eq!(method.name(), "reflexion-noahshinn");
    assert_eq!(spec::MethodSpec::parse("reflexion").unwrap().name(), "reflexion");
    for seed in 1..=10 {
        let search = self_testing("reflexion-noahshinn", seed, false);
        let programs = search.expansions().len();
        assert!((1..=2).contains(&programs), "seed {seed}: {programs} programs");
        let own = search.tree()[1].self_tested.clone().expect("the first program's own tests");
        assert!(own.tests.len() <= 1, "seed {seed}: {:?}", own.tests);
    }
}
