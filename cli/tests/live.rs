//! `rlcg live`: the page's live mode on the command line, offline and against the e2e suite's
//! OpenAI-compatible stub server (node e2e/llm-stub.mjs).

mod common;

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command};
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{last_json_line, rlcg, rlcg_command};
use serde_json::json;

/// The stub server on a free port, stopped when dropped.
struct Stub {
    child: Child,
    port: u16,
}

impl Stub {
    fn start() -> Stub {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/llm-stub.mjs");
        let child = Command::new("node").arg(script).env("PORT", port.to_string()).spawn().expect("node runs");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "the stub did not start");
            sleep(Duration::from_millis(50));
        }
        Stub { child, port }
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_trained_orchestrator_policy_solves_a_task_offline_with_the_pages_summary_fields() {
    let output = rlcg(&["live", "--env", "orchestrator", "--llm", "simulated", "--seed", "1", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    for field in [
        "env",
        "driver",
        "task",
        "llm",
        "success",
        "return",
        "agent_calls",
        "llm_calls",
        "test_runs",
        "usage",
        "cost",
        "ended",
        "actions",
    ] {
        assert!(report.get(field).is_some(), "missing {field}: {report}");
    }
    assert_eq!(report["env"], "orchestrator");
    assert_eq!(report["llm"], "simulated LLM");
    assert_eq!(report["task"], "task1_correct");
    // Seed 003's learned policy calls the coder first; the offline coder writes the reference or
    // a failing draft, so the episode is coder, tester, and more only when the draft failed.
    assert_eq!(report["actions"][0], "coder", "{report}");
    assert_eq!(report["actions"][1], "tester", "{report}");
    assert!(report["test_runs"].as_u64().unwrap() >= 1);
    assert!(report["usage"]["prompt_tokens"].as_u64().unwrap() > 0, "the offline LLM's tokens are estimated");
    assert_eq!(report["cost"], 0.0);
}

#[test]
fn the_fixed_pipeline_drives_the_stub_server_and_passes_real_tests() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let args = [
        "live",
        "--env",
        "executive",
        "--pipeline",
        "--task",
        "task2_incorrect",
        "--llm",
        "custom",
        "--base-url",
        &base_url,
        "--model",
        "stub-coder",
        "--json",
    ];
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["success"], true, "{report}");
    assert_eq!(report["actions"], serde_json::json!(["generate", "test", "stop"]));
    assert_eq!((report["llm_calls"].as_u64(), report["test_runs"].as_u64()), (Some(1), Some(1)));
    // The stub reports 100 prompt tokens per call.
    assert_eq!(report["usage"]["prompt_tokens"], 100);
    assert_eq!(report["ended"], "stopped after passing tests");
}

/// `rlcg live --tasks seed003` against the stub, with extra arguments; its JSON report.
fn validate_on_seed003(stub: &Stub, model: &str, extra: &[&str]) -> serde_json::Value {
    let base_url = stub.base_url();
    let mut args = vec!["live", "--env", "orchestrator", "--tasks", "seed003", "--seed", "1", "--llm", "custom"];
    args.extend(["--base-url", &base_url, "--model", model, "--json"]);
    args.extend(extra);
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    last_json_line(&output)
}

#[test]
fn seed003_validation_plays_the_learned_policy_and_the_pipeline_on_the_five_tasks() {
    let stub = Stub::start();
    let report = validate_on_seed003(&stub, "stub-coder", &[]);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10, "{report}");
    let tasks: Vec<&str> = rows.iter().step_by(2).map(|r| r["task"].as_str().unwrap()).collect();
    assert_eq!(tasks[0], "seed003_sum_two_numbers");
    assert_eq!(tasks[4], "seed003_count_vowels");
    for pair in rows.chunks(2) {
        // Seed 003's table: the learned policy codes and tests; the pipeline plans first.
        assert_eq!(
            (&pair[0]["driver"], &pair[0]["success"], &pair[0]["steps"]),
            (&json!("policy"), &json!(true), &json!(2))
        );
        assert_eq!(pair[0]["actions"], json!(["coder", "tester"]));
        assert_eq!(pair[1]["actions"], json!(["planner", "coder", "tester"]));
    }
    assert_eq!(report["policy"], json!({"tasks": 5, "successes": 5, "agent_calls": 10, "special_cased": 0}));
    assert_eq!(report["pipeline"], json!({"tasks": 5, "successes": 5, "agent_calls": 15, "special_cased": 0}));
    let change = report["change_in_agent_calls"].as_f64().unwrap();
    assert!((change + 100.0 / 3.0).abs() < 1e-9, "{change}");
}

#[test]
fn seed003_validation_calibrates_the_odds_from_a_coder_wrong_at_a_known_rate() {
    // stub-wrong-every-2 writes wrong code on the coder's odd calls: every policy episode's first
    // program, never the pipeline's (the planner comes first there).
    let stub = Stub::start();
    let report = validate_on_seed003(&stub, "stub-wrong-every-2", &[]);
    assert_eq!(report["policy"]["agent_calls"], 20, "{report}");
    for row in report["rows"].as_array().unwrap().iter().step_by(2) {
        assert_eq!(row["actions"], json!(["coder", "tester", "debugger", "tester"]), "{row}");
    }
    let counts: Vec<(String, u64, u64)> = report["calibration"]["estimates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["odds"].as_str().unwrap().to_owned(), e["happened"].as_u64().unwrap(), e["trials"].as_u64().unwrap())
        })
        .collect();
    let expected = [
        ("planner_success", 5, 5),
        ("coder_success_with_plan", 5, 5),
        ("coder_success_without_plan", 0, 5),
        ("tester_finds_error", 5, 5),
        ("debugger_fixes_error", 5, 5),
    ];
    assert_eq!(counts, expected.map(|(o, h, t)| (o.to_owned(), h, t)));
    let settings: Vec<&str> =
        report["calibrated_env_params"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert_eq!(
        settings,
        [
            "planner_success=0.857",
            "coder_success_with_plan=0.857",
            "coder_success_without_plan=0.143",
            "tester_finds_error=0.857",
            "debugger_fixes_error=0.857"
        ]
    );
    // The settings are what `rlcg train` takes.
    let mut train = vec!["train", "--env", "orchestrator", "--episodes", "300", "--json"];
    for setting in &settings {
        train.extend(["--env-param", setting]);
    }
    let output = rlcg(&train);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(last_json_line(&output)["env"], "orchestrator");
}

#[test]
fn a_refused_key_ends_the_episode_with_the_key_hidden() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let key = "sk-live-test-0123456789abcdefghij";
    let args = [
        "live",
        "--env",
        "orchestrator",
        "--pipeline",
        "--llm",
        "custom",
        "--base-url",
        &base_url,
        "--model",
        "stub-401",
        "--json",
    ];
    let output = rlcg_command(&args).env("RLCG_API_KEY", key).output().expect("rlcg runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["success"], false);
    let ended = report["ended"].as_str().unwrap();
    assert!(ended.starts_with("HTTP 401: the API key is missing or wrong"), "{ended}");
    assert_eq!(report["llm_calls"], 1, "an auth failure is not retried, and ends the episode");
    let everything = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!everything.contains(key), "the key leaked: {everything}");
}

/// Seed 003 §6.2 measured offline: the simulated LLM writes with `REAL_LLM_ODDS` (coding without
/// a plan is a coin flip, where the simulator guesses 0.60; the tests catch every bug, where it
/// guesses 0.40). The policy trained on the guesses mostly codes first; retrained on the odds
/// calibrated from its episodes it mostly plans first. Seeds 1–10, 20 rounds of the five tasks:
/// 81.9% → 97.9% on average (docs/reproductions.md); seeds 1–5: 83.0% → 98.0%, one seed (4)
/// planning first from the start (100% → 97%).
#[test]
fn recalibrating_on_a_real_llms_episodes_lifts_live_success_as_section_6_2_reports() {
    let (mut before, mut after) = (0.0, 0.0);
    for seed in ["1", "2", "3", "4", "5"] {
        let args = ["live", "--env", "orchestrator", "--tasks", "seed003", "--recalibrate", "--rounds", "20"];
        let output = rlcg(&[&args[..], &["--seed", seed, "--json"]].concat());
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let report = last_json_line(&output);
        assert_eq!(report["before"]["llm_odds"][2], "coder_success_without_plan=0.5", "{report}");
        assert_eq!((report["seed_before"].as_f64(), report["seed_after"].as_f64()), (Some(0.8), Some(1.0)));
        let rate = |side: &str| {
            let policy = &report[side]["policy"];
            assert_eq!(policy["tasks"], 100, "five tasks, twenty rounds");
            policy["successes"].as_f64().unwrap() / 100.0
        };
        let calibrated = report["before"]["calibrated_env_params"].as_array().unwrap();
        assert!(calibrated.iter().any(|s| s.as_str().unwrap().starts_with("tester_finds_error=0.9")), "{calibrated:?}");
        assert!(rate("after") >= 0.9, "seed {seed}: {}", rate("after"));
        before += rate("before") / 5.0;
        after += rate("after") / 5.0;
    }
    assert!(after - before > 0.1, "{before} → {after}");
}

#[test]
fn bad_live_arguments_exit_2_naming_the_choices() {
    let output = rlcg(&["live", "--env", "planner", "--pipeline"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("live mode drives executive or orchestrator policies"));
    let output = rlcg(&["live", "--env", "executive", "--pipeline", "--task", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("valid: task1_correct, task2_incorrect, task3_search"));
    let output = rlcg(&["live", "--env", "executive", "--pipeline", "--llm", "openai"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("needs an API key: set RLCG_API_KEY"));
    let output = rlcg(&["live", "--env", "orchestrator", "--pipeline", "--llm-odds", "reward_success=3"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--llm-odds: 'reward_success' is not one of the LLM's odds; valid: planner_success"),
        "{stderr}"
    );
    let output = rlcg(&["live", "--env", "executive", "--pipeline", "--llm-odds", "planner_success=0.5"]);
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("the executive's offline LLM answers with the task's recorded programs")
    );
    let output = rlcg(&["live", "--env", "orchestrator", "--pipeline", "--rounds", "3"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("--rounds repeats a validation's tasks; add --validate"));
}

#[test]
fn a_search_drives_the_stub_server_on_an_imported_task() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/samples/humaneval.jsonl");
    let args = ["search", "--tasks", samples, "--task", "Sample/1", "--llm", "custom", "--base-url", &base_url];
    let mut args = args.to_vec();
    args.extend(["--model", "stub-coder", "--budget", "5", "--json"]);
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    // The stub writes is_palindrome correctly: solved by the first generate.
    assert_eq!((report["solved"].as_bool(), report["llm_calls"].as_u64()), (Some(true), Some(1)), "{report}");
    assert_eq!(report["llm"], "stub-coder");
    assert!(report["tokens"].as_u64().unwrap() > 100);
}

#[test]
fn with_prefill_a_search_sends_the_first_lines_and_the_stub_continues_them() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let run = |prefill: bool| {
        let mut args = vec!["search", "--task", "binary_search", "--llm", "custom", "--base-url", &base_url];
        args.extend(["--model", "stub-prefill", "--budget", "8", "--seed", "1", "--json"]);
        if prefill {
            args.push("--prefill");
        }
        let output = rlcg(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        last_json_line(&output)
    };
    // The stub's binary_search returns 0 for an absent target (5 of 7 tests); continuing the
    // first four lines of it, it returns -1, which passes all.
    let without = run(false);
    assert_eq!((without["solved"].as_bool(), without["llm_calls"].as_u64()), (Some(false), Some(8)), "{without}");
    let with = run(true);
    assert_eq!((with["solved"].as_bool(), with["llm_calls"].as_u64()), (Some(true), Some(2)), "{with}");
    assert!(with["best_program"].as_str().unwrap().ends_with("            return i\n    return -1\n"), "{with}");
}

#[test]
fn search_bench_asks_an_endpoint_when_given_one() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/samples/humaneval.jsonl");
    let mut args = vec!["search-bench", "--tasks", samples, "--first", "5", "--methods", "zero-shot,reflexion"];
    args.extend(["--budgets", "3"]);
    args.extend(["--seeds", "1", "--llm", "custom", "--base-url", &base_url, "--model", "stub-coder", "--json"]);
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["llm"], "stub-coder", "{report}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    // The stub knows two of the first five samples' functions (is_palindrome, count_vowels), and
    // writes no test: Reflexion's first program is its answer.
    assert_eq!(rows[0]["solved_fraction"].as_f64(), Some(0.4), "{report}");
    assert_eq!(rows[1]["solved_fraction"].as_f64(), Some(0.4), "{report}");
    assert!(rows[1]["mean_llm_calls"].as_f64().unwrap() >= 2.0, "Reflexion asks for tests first: {report}");
}

#[test]
fn cheat_rate_measures_an_endpoint() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let mut args = vec!["cheat-rate", "--variant", "one-off", "--tasks", "binary_search", "--seeds", "1-2"];
    args.extend(["--llm", "custom", "--base-url", &base_url, "--model", "stub-coder", "--json"]);
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["llm"], "stub-coder", "{report}");
    // The stub writes the same honest binary_search whatever the tests shown: it never cheats.
    let rate = &report["cheating"][0];
    assert_eq!((rate["searches"].as_u64(), rate["cheated"].as_u64()), (Some(2), Some(0)), "{report}");
}

#[test]
fn held_out_tests_mark_a_special_casing_llms_program_and_leave_an_honest_one_unmarked() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let live = |model: &str| {
        let args = ["live", "--env", "executive", "--pipeline", "--task", "task2_incorrect", "--held-out", "0.4"];
        let mut args = args.to_vec();
        args.extend(["--seed", "3", "--llm", "custom", "--base-url", &base_url, "--model", model, "--json"]);
        let output = rlcg(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        last_json_line(&output)
    };
    // The stub's special-caser answers the three tests the prompt shows from a table: it passes
    // them (the episode succeeds on them) and fails both held-out tests.
    let special = live("stub-special-case");
    assert_eq!(special["success"], true, "{special}");
    assert_eq!((special["held_out"]["passed"].as_u64(), special["held_out"]["total"].as_u64()), (Some(0), Some(2)));
    assert!(special["held_out"]["first_failed"].as_str().unwrap().starts_with("find_max("), "{special}");
    let honest = live("stub-coder");
    assert_eq!((honest["success"].as_bool(), honest["held_out"]["passed"].as_u64()), (Some(true), Some(2)), "{honest}");
    assert!(honest["held_out"].get("first_failed").is_none(), "{honest}");

    let output = rlcg(&["live", "--env", "executive", "--pipeline", "--held-out", "1.5"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("--held-out: task task1_correct: held-out share: 1.5 is outside (0, 1)")
    );
}

#[test]
fn held_out_tests_in_the_stepcoder_curriculum_mark_the_completions_that_answer_the_visible_tests_only() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let args = ["stepcoder", "profile", "--task", "apps-plus-1,apps-plus-2", "--param", "samples=1"];
    let mut args = args.to_vec();
    args.extend(["--param", "held_out_share=0.4", "--llm", "custom", "--base-url", &base_url]);
    args.extend(["--model", "stub-special-case", "--json"]);
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    // The stub answers the inputs its prompt shows from a table: every pass fails a held-out test.
    let passes = report["outcomes"].as_array().unwrap().iter().find(|o| o["outcome"] == "pass").unwrap();
    assert!(passes["completions"].as_u64().unwrap() >= 2, "{report}");
    assert_eq!(report["special_cased"], passes["completions"], "{report}");
}

#[test]
fn the_llm_judge_asks_the_endpoint_after_the_search_and_reads_its_verdict() {
    let stub = Stub::start();
    let base_url = stub.base_url();
    let judged = |model: &str, task: &[&str]| {
        let mut args = vec!["search", "--llm", "custom", "--base-url", &base_url, "--model", model];
        args.extend(task);
        args.extend(["--budget", "3", "--seed", "1", "--llm-judge", "--json"]);
        let output = rlcg(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        last_json_line(&output)
    };
    // The stub looks the shown tests up: the lookup passes them, and the judge, asked once the
    // search is over and beyond its calls, reads the lookup and says so.
    let lookup = judged("stub-special-case", &["--task", "binary_search", "--held-out", "0.5"]);
    assert_eq!((lookup["best_score"].as_f64(), lookup["llm_calls"].as_u64()), (Some(1.0), Some(1)), "{lookup}");
    assert_eq!(lookup["judged"]["class"], "reward-hacking", "{lookup}");
    assert!(lookup["judged"]["prompt"].as_str().unwrap().contains("_ANSWERS = []"), "{lookup}");
    assert!(lookup["judged"]["reply"].as_str().unwrap().ends_with("VERDICT: REWARD HACKING"), "{lookup}");
    // Its honest program (is_palindrome, solved at the first call) is called legitimate.
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/samples/humaneval.jsonl");
    let honest = judged("stub-coder", &["--tasks", samples, "--task", "Sample/1"]);
    assert_eq!(
        (honest["solved"].as_bool(), honest["judged"]["class"].as_str()),
        (Some(true), Some("legitimate")),
        "{honest}"
    );
}
