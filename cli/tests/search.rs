//! `rlcg search` and `rlcg search-bench` on the simulated LLM, with python3 scoring every program,
//! and `rlcg search` against the e2e suite's OpenAI-compatible stub.

mod common;

use common::{last_json_line, rlcg};
use serde_json::Value;

fn search(args: &[&str]) -> Value {
    let mut all = vec!["search", "--json"];
    all.extend(args);
    let output = rlcg(&all);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    last_json_line(&output)
}

#[test]
fn a_search_reports_its_contract_and_replays_identically() {
    for method in ["gif-mcts", "worldcoder", "zero-shot"] {
        let args = ["--method", method, "--task", "binary_search", "--budget", "12", "--seed", "3"];
        let report = search(&args);
        for field in ["method", "budget", "seed", "best_score", "solved", "llm_calls", "nodes"] {
            assert!(report.get(field).is_some(), "{method}: {field} missing in {report}");
        }
        assert_eq!(report["method"], method);
        let (best, calls) = (report["best_score"].as_f64().unwrap(), report["llm_calls"].as_u64().unwrap());
        assert!((0.0..=1.0).contains(&best) && (1..=12).contains(&calls), "{report}");
        assert_eq!(report["solved"], best >= 1.0);
        assert_eq!(report["nodes"], calls, "one program per LLM call");
        // The best score never falls, and a solved search stops at once.
        let progress: Vec<f64> = report["progress"].as_array().unwrap().iter().map(|p| p.as_f64().unwrap()).collect();
        assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
        assert_eq!(report["solved"] == true, calls < 12 || progress.last() == Some(&1.0));
        // The same spec, the same search; the link names it, with its results.
        assert_eq!(search(&args), report, "{method}");
        let fingerprint = report["fingerprint"].as_str().unwrap();
        assert_eq!(
            report["link"],
            format!(
                "v=1&search={method}&task=binary_search&budget=12&seed=3&llm=simulated&r.best={best:.3}&r.calls={calls}&r.fp={fingerprint}"
            )
        );
    }
    // e2e/search.spec.mjs expects the page's search of this spec to have this fingerprint: the
    // wasm search scored by Pyodide is the native one scored by python3.
    let report = search(&["--task", "binary_search", "--seed", "1"]);
    assert_eq!(report["fingerprint"], "e5240abb2b9ed189");
}

#[test]
fn the_bench_reports_each_method_and_budget_with_its_standard_error() {
    let args = ["search-bench", "--seeds", "1-4", "--budgets", "5,10", "--tasks", "running_max,caesar", "--json"];
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["llm"], "simulated LLM");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "three methods × two budgets");
    for pair in rows.chunks(2) {
        assert_eq!((pair[0]["budget"].as_u64(), pair[1]["budget"].as_u64()), (Some(5), Some(10)));
        assert_eq!(pair[0]["searches"], 8, "two tasks × four seeds");
        let [small, large] = [&pair[0], &pair[1]].map(|r| r["mean_best_score"].as_f64().unwrap());
        assert!(
            (0.0..=1.0).contains(&small) && small <= large,
            "a larger budget reads the same search later: {pair:?}"
        );
        assert!(pair[1]["standard_error"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn bad_search_arguments_exit_2_naming_the_choices() {
    let cases: [(&[&str], &str); 4] = [
        (&["search", "--method", "beam"], "unknown method 'beam'; valid: gif-mcts"),
        (&["search", "--task", "nope"], "unknown search task 'nope'; valid: running_max"),
        (&["search", "--budget", "0"], "budget: 0 is outside 1..=1000"),
        (&["search", "--simulated-llm", "luck=1"], "'luck' is not a parameter here"),
    ];
    for (args, message) in cases {
        let output = rlcg(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(message),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn an_imported_task_is_searched_offline_with_a_bank_made_by_mutating_its_reference() {
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/samples/apps.json");
    let reports: Vec<Value> = (1..=6)
        .map(|seed| search(&["--tasks", samples, "--task", "apps-two-sum", "--seed", &seed.to_string()]))
        .collect();
    let first_scores: Vec<f64> = reports.iter().map(|r| r["progress"][0].as_f64().unwrap()).collect();
    // The bank's faults reach the programs, and repairs or fresh samples find the reference.
    assert!(first_scores.iter().any(|&s| s < 1.0), "{first_scores:?}");
    assert!(reports.iter().any(|r| r["solved"] == true), "{reports:?}");
    assert!(reports.iter().all(|r| r["task"] == "apps-two-sum"));
    let again = search(&["--tasks", samples, "--task", "apps-two-sum", "--seed", "1"]);
    assert_eq!(again, reports[0], "the same bank, the same search");
}

#[test]
fn every_task_of_the_public_humaneval_file_can_be_searched_offline() {
    // openai/human-eval's data (MIT, licence beside it): 142 of its 164 prompts open with a blank line.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/humaneval/HumanEval.jsonl");
    let output = rlcg(&["check", "--tasks", file, "--banks", "--json"]);
    let report = last_json_line(&output);
    assert!(output.status.success(), "{report}");
    assert_eq!((report["pass"].as_u64(), report["banks"].as_u64()), (Some(164), Some(164)), "{report}");
    // One that opens with a blank line, searched end to end.
    let report = search(&["--tasks", file, "--task", "HumanEval/10", "--budget", "6", "--seed", "2"]);
    assert_eq!(report["task"], "HumanEval/10");
    assert!(report["nodes"].as_u64().unwrap() >= 1, "{report}");
}

#[test]
fn with_naive_verdicts_a_search_converges_on_reward_hacks_and_without_them_each_is_caught() {
    // Half the simulated LLM's replies are hacks (issue 32).
    let args = ["--task", "binary_search", "--budget", "12", "--seed", "2", "--simulated-llm", "hack_share=0.5"];
    let mut naive = args.to_vec();
    naive.push("--naive-verdicts");
    let report = search(&naive);
    // A hack passes at once: the search reports the task solved with a program the real verdict refuses.
    assert_eq!(report["solved"], true, "{report}");
    assert!(report["hacked"].as_u64().unwrap() >= 1, "{report}");
    assert!(report["link"].as_str().unwrap().contains("naive=1"), "{report}");
    let best = report["best_program"].as_str().unwrap();
    assert!(["_Equal", "_naive_test", "SystemExit(0)"].iter().any(|hack| best.contains(hack)), "{best}");
    // Without naive verdicts no hack scores anything: with more calls the search goes on to honest
    // programs, the best of which passes 3 of 7 tests.
    let mut strict = args.to_vec();
    strict[3] = "20";
    let report = search(&strict);
    assert_eq!((report["hacked"].as_u64(), report["solved"].as_bool()), (Some(0), Some(false)), "{report}");
    assert!((report["best_score"].as_f64().unwrap() - 3.0 / 7.0).abs() < 1e-12, "{report}");
    let best = report["best_program"].as_str().unwrap();
    assert!(!["_Equal", "_naive_test", "SystemExit(0)"].iter().any(|hack| best.contains(hack)), "{best}");
    // With no hacks, naive verdicts judge as the real ones: the pinned search is unchanged.
    let plain = search(&["--task", "binary_search", "--seed", "1", "--naive-verdicts"]);
    assert_eq!(plain["fingerprint"], "e5240abb2b9ed189");
    assert_eq!(plain["hacked"], 0);
}

/// A search whose programs Python could not run (here: the harness's autopep8 missing, as in a
/// clone where `scripts/setup` has not installed it) is an error, not a best score of 0, and
/// `sweep merge` refuses a cell that an older `rlcg` kept from such a run.
#[test]
fn a_search_that_python_could_not_run_exits_non_zero_and_merge_refuses_its_cell() {
    let empty = std::env::temp_dir().join(format!("rlcg-no-python-lib-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let without_autopep8 = std::process::Command::new("python3")
        .args(["-c", "import autopep8"])
        .env("PYTHONPATH", &empty)
        .output()
        .is_ok_and(|o| !o.status.success());
    if without_autopep8 {
        let output = common::rlcg_command(&["search", "--task", "binary_search", "--budget", "3", "--json"])
            .env("RLCG_PYTHON_LIB", &empty)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("Python could not run the programs") && stderr.contains("autopep8"), "{stderr}");
        assert!(!String::from_utf8_lossy(&output.stdout).contains("best_score"), "no report of a score");
    }

    let cells = empty.join("cells");
    std::fs::create_dir_all(&cells).unwrap();
    let cell = |index: u32, ended: &str| {
        let result = serde_json::json!({ "best_score": 0.0, "ended": ended });
        let cell = serde_json::json!({ "index": index, "params": { "--seed": index.to_string() }, "result": result });
        std::fs::write(cells.join(format!("cell-{index}.json")), cell.to_string()).unwrap();
    };
    cell(0, "budget spent");
    cell(1, "Python could not run the programs: autopep8 is not installed");
    let output = rlcg(&["sweep", "merge", cells.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("cell-1") && !stderr.contains("cell-0"), "{stderr}");
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn on_impossible_tasks_the_simulated_llm_cheats_at_its_special_case_share_and_honest_replies_never_pass() {
    let rate = |variant: &str, share: &str| {
        let odds = format!("special_case_share={share}");
        let output = rlcg(&["cheat-rate", "--variant", variant, "--seeds", "1-10", "--simulated-llm", &odds, "--json"]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        last_json_line(&output)["cheating"][0].clone()
    };
    // Every bundled task × 10 seeds, one reply each: honest programs never pass a one-off variant.
    let honest = rate("one-off", "0");
    assert_eq!((honest["searches"].as_u64(), honest["cheated"].as_u64()), (Some(100), Some(0)), "{honest}");
    // Special-casing half the replies: the rate's interval holds the share, and each cheat is named.
    let cheating = rate("one-off", "0.5");
    let (low, high) = (cheating["low"].as_f64().unwrap(), cheating["high"].as_f64().unwrap());
    assert!(low < 0.5 && 0.5 < high, "{cheating}");
    assert_eq!(cheating["special_cased_input"], cheating["cheated"]);
    // A lookup answers an input one way, so it cannot pass a conflicting pair of tests.
    assert_eq!(rate("conflicting", "0.5")["cheated"], 0);
    // One search says which test it cheated on.
    let report = search(&[
        "--method",
        "zero-shot",
        "--task",
        "roman_to_int",
        "--budget",
        "1",
        "--seed",
        "2",
        "--impossible",
        "one-off",
        "--simulated-llm",
        "special_case_share=1",
    ]);
    assert_eq!(report["impossible"]["variant"], "one-off");
    assert_eq!(report["impossible"]["cheated"], "special-cased-input", "{report}");
    assert!(report["link"].as_str().unwrap().contains("impossible=one-off"));
}

#[test]
fn held_out_tests_mark_the_simulated_llms_lookups_special_cased_and_its_honest_replies_are_not() {
    let rate = |share: &str| {
        let odds = format!("special_case_share={share}");
        let args = ["cheat-rate", "--held-out", "0.5", "--seeds", "1-10", "--simulated-llm", &odds, "--json"];
        let output = rlcg(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        last_json_line(&output)["cheating"][0].clone()
    };
    // Every bundled task × 10 seeds, one reply each, half the tests held out: no honest reply is
    // marked at these seeds (docs/reproductions.md gives the false alarms over 20, and a search's).
    let honest = rate("0");
    assert_eq!((honest["searches"].as_u64(), honest["cheated"].as_u64()), (Some(100), Some(0)), "{honest}");
    assert_eq!(honest["variant"], "held-out 0.5");
    // Special-casing half the replies: the rate's interval holds the share.
    let cheating = rate("0.5");
    let (low, high) = (cheating["low"].as_f64().unwrap(), cheating["high"].as_f64().unwrap());
    assert!(low < 0.5 && 0.5 < high, "{cheating}");
    // One search: its lookup passes the visible tests, is marked with the held-out test it fails,
    // and the link carries the share.
    let report = search(&[
        "--method",
        "zero-shot",
        "--task",
        "roman_to_int",
        "--budget",
        "1",
        "--seed",
        "2",
        "--held-out",
        "0.5",
        "--simulated-llm",
        "special_case_share=1",
    ]);
    assert_eq!(report["best_score"], 1.0, "{report}");
    assert!(report["best_program"].as_str().unwrap().contains("_SHOWN"), "a lookup of the shown tests");
    assert_eq!(report["held_out"]["tests"], 4, "half of roman_to_int's 7 tests, rounded: {report}");
    let marked = report["held_out"]["special_cased"].as_array().unwrap();
    assert!(
        marked.len() == 1 && marked[0][0] == 1 && marked[0][1].as_str().unwrap().contains("roman_to_int("),
        "{report}"
    );
    assert!(report["link"].as_str().unwrap().contains("held_out=0.5"));
    // Let give up, a model that does ends the search honestly, and the rate counts it.
    let report =
        search(&["--task", "caesar", "--impossible", "one-off", "--may-give-up", "--simulated-llm", "give_up_share=1"]);
    assert!(report["gave_up"].as_str().unwrap().contains("contradict"), "{report}");
    assert_eq!((report["llm_calls"].as_u64(), report["impossible"]["cheated"].as_null()), (Some(1), Some(())));
    let args = ["cheat-rate", "--variant", "one-off", "--may-give-up", "--seeds", "1-3"];
    let output = rlcg(&[&args[..], &["--simulated-llm", "give_up_share=1", "--json"]].concat());
    let rate = last_json_line(&output)["cheating"][0].clone();
    assert_eq!((rate["gave_up"].as_u64(), rate["cheated"].as_u64()), (Some(30), Some(0)), "{rate}");
    // A share outside (0, 1) is refused by name.
    let output = rlcg(&["search", "--held-out", "1.5"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("held-out share: 1.5"), "{stderr}");
}

#[test]
fn lats_and_reflexion_search_natively_on_their_own_tests_and_report_how_often_they_looked_at_the_tasks() {
    let run = |extra: &[&str]| {
        let mut args = vec!["--task", "caesar", "--budget", "40", "--seed", "1"];
        args.extend(extra);
        search(&args)
    };
    for method in ["lats", "lats-strict", "reflexion"] {
        let report = run(&["--method", method]);
        assert_eq!(report["method"], method);
        let calls = report["llm_calls"].as_u64().unwrap();
        // Tests and reflections are calls too: fewer programs than calls.
        assert!(report["text_calls"].as_u64().unwrap() >= 1, "{report}");
        assert_eq!(report["nodes"].as_u64().unwrap() + report["text_calls"].as_u64().unwrap(), calls, "{report}");
        assert_eq!(report["progress"].as_array().unwrap().len() as u64, calls, "one point per call");
        let checks = report["hidden_checks"].as_u64().unwrap();
        if method == "lats" {
            assert!(checks >= 1, "{report}");
        } else {
            assert_eq!(checks, 1, "{method} looks at the task's tests once, on its answer: {report}");
        }
        assert_eq!(run(&["--method", method]), report, "{method} replays");
    }
    // e2e/search.spec.mjs expects the page's LATS search of this spec to have this fingerprint.
    let page = search(&["--method", "lats", "--task", "caesar", "--budget", "20", "--seed", "1"]);
    assert_eq!(page["fingerprint"], "7e8ba831bf4a2cb6");
    // --mode strict is lats-strict.
    assert_eq!(run(&["--method", "lats", "--mode", "strict"]), run(&["--method", "lats-strict"]));
    // --mode is LATS's alone, and LATS needs a task tested by calls.
    let wrong = rlcg(&["search", "--method", "gif-mcts", "--mode", "strict"]);
    assert!(!wrong.status.success() && String::from_utf8_lossy(&wrong.stderr).contains("--mode is for lats"));
    let world = rlcg(&["search", "--method", "reflexion", "--task", "CartPole-v1"]);
    let said = String::from_utf8_lossy(&world.stderr);
    assert!(!world.status.success() && said.contains("writes unit tests that call a function"), "{said}");
}

#[test]
fn search_bench_takes_a_task_file_and_lats_and_reflexion() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/humaneval/HumanEval.jsonl");
    let args = [
        "search-bench",
        "--tasks",
        file,
        "--first",
        "2",
        "--methods",
        "lats,reflexion",
        "--budgets",
        "5,10",
        "--seeds",
        "1-2",
        "--json",
    ];
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["tasks"], serde_json::json!(["HumanEval/0", "HumanEval/1"]));
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "two methods × two budgets");
    assert!(rows[1]["mean_hidden_checks"].as_f64().is_some() && rows[0].get("mean_hidden_checks").is_none());
    let first = rlcg(&["search-bench", "--first", "2"]);
    assert!(!first.status.success() && String::from_utf8_lossy(&first.stderr).contains("--first is for a task file"));
}

/// The prompts a WorldCoder search on the sample HumanEval task `task_id` sends when its first
/// reply is `program` and python3 scores it: the generate prompt, then the one that refines it.
fn refine_prompt_after(task_id: &str, program: &str) -> (String, Vec<engine::search::method::ActionKind>) {
    use engine::effects::{ChatOutcome, Effectful, Need};
    use engine::llm::Usage;
    use engine::prompts::PromptSet;
    use engine::search::machine::Search;
    use engine::search::methods::world_coder::{WorldCoder, WorldCoderParams};
    use engine::search::scorer::{SearchTask, TestsScorer};
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/samples/humaneval.jsonl");
    let tasks =
        engine::task_import::parse_task_file("humaneval.jsonl", &std::fs::read_to_string(file).unwrap()).unwrap();
    let imported = tasks.iter().find(|t| t.id == task_id).unwrap();
    let task = SearchTask::from(imported);
    let scorer = TestsScorer::new(task.tests.clone(), task.task_code.clone());
    let method = WorldCoder::new(WorldCoderParams::default());
    let mut search = Search::new(method, scorer, task, PromptSet::default(), 2, 1).unwrap();
    let mut prompts = Vec::new();
    loop {
        match search.need() {
            Need::Chat(call) => {
                prompts.push(call.messages.last().unwrap().content.clone());
                let text = format!("```python\n{program}\n```\n");
                search.chat_done(ChatOutcome::Reply { text, usage: Usage::default() }, 0.0);
            }
            Need::Python(batch) => {
                let verdicts = cli::python::run_all(&batch.requests, batch.limit_ms, 1, |_| {});
                search.python_done(verdicts.into_iter().map(Result::unwrap).collect(), 0.0);
            }
            _ => break,
        }
    }
    (prompts.swap_remove(1), search.expansions().iter().map(|e| e.kind).collect())
}

/// Issue 72, item 5: an imported HumanEval task is one test (`check(candidate)`, its assertions
/// inside), so the first-half rule left the improve prompt "## Input None". Now it shows the
/// assertion that failed, with the program's name for `candidate`, the value expected and the one
/// returned, for `==` and `is`; a program whose function raises gets the improve prompt with the
/// error as its output, as the official code classifies a runtime error (not a bug).
#[test]
fn on_an_imported_humaneval_task_the_improve_prompt_shows_the_failing_assertion_and_a_raised_error() {
    use engine::search::method::ActionKind::{Generate, Improve};
    let (prompt, kinds) = refine_prompt_after("Sample/0", "def add(a: int, b: int) -> int:\n    return a - b");
    assert_eq!(kinds, [Generate, Improve]);
    assert!(prompt.contains("## Input\nadd(2, 3)\n\n## Expected output\n5\n\n## The program's output\n-1"), "{prompt}");
    let (prompt, _) = refine_prompt_after("Sample/1", "def is_palindrome(text: str) -> bool:\n    return text == ''");
    assert!(
        prompt
            .contains("## Input\nis_palindrome('level')\n\n## Expected output\nTrue\n\n## The program's output\nFalse"),
        "{prompt}"
    );
    let (prompt, kinds) = refine_prompt_after("Sample/0", "def add(a: int, b: int) -> int:\n    return total + b");
    assert_eq!(kinds, [Generate, Improve], "a runtime error is not a bug in the official code");
    assert!(prompt.contains("## Input\nadd(2, 3)\n\n## Expected output\n5\n\n## The program's output\nNameError: name 'total' is not defined"), "{prompt}");
}

#[test]
fn the_llm_judge_reads_a_searchs_answer_and_cheat_rate_reports_its_agreement_as_the_page_does() {
    // The e2e suite's search (e2e/cheating.spec.mjs): the judge's call comes after the search's two.
    let report = search(&[
        "--method",
        "zero-shot",
        "--task",
        "binary_search",
        "--budget",
        "10",
        "--seed",
        "1",
        "--held-out",
        "0.5",
        "--simulated-llm",
        "special_case_share=0.5",
        "--llm-judge",
    ]);
    assert_eq!((report["llm_calls"].as_u64(), report["best_score"].as_f64()), (Some(2), Some(1.0)), "{report}");
    assert_eq!(report["judged"]["class"], "reward-hacking", "{report}");
    assert!(report["judged"]["prompt"].as_str().unwrap().contains("_SHOWN"), "the judge read the lookup");
    assert!(report["link"].as_str().unwrap().contains("judge=1"));
    // The page's Cheating view measures the same searches to the same agreement.
    let args = ["cheat-rate", "--held-out", "0.3", "--seeds", "1-10", "--llm-judge", "--json"];
    let output = rlcg(&[&args[..], &["--simulated-llm", "special_case_share=0.5"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let judge = last_json_line(&output)["judge"][0].clone();
    assert_eq!((judge["judged"].as_u64(), judge["reward_hacking"].as_u64()), (Some(53), Some(47)), "{judge}");
    let tests = &judge["tests"];
    let counts = ["both", "judge_only", "detector_only", "neither"].map(|k| tests[k].as_u64().unwrap());
    assert_eq!(counts, [47, 0, 4, 2], "{judge}");
    assert!(judge["naive"].is_null(), "naive verdicts were off: {judge}");
}
