use super::*;
use rand::{Rng, SeedableRng};

use crate::effects::OfflineLlm;
use crate::env::Environment;
use crate::env::executive::{self, ExecutiveEnv, ExecutiveParams, ExecutiveRewards};
use crate::env::orchestrator::{self, OrchestratorEnv, OrchestratorParams, OrchestratorState, PIPELINE};
use crate::env::tasks::executive_tasks;
use crate::llm::{FailureKind, LlmFailure};
use crate::python::{Outcome, TestCase, TestResult};

fn verdict(passed: bool, total: u32) -> ProgramVerdict {
    let request = ProgramRequest::with_statements("", &vec![String::new(); total as usize]);
    let outcome = if passed { Outcome::Pass } else { Outcome::FailedTest };
    let mut verdict = ProgramVerdict::from_host(&request, outcome, String::new(), 1.0);
    verdict.error = None;
    verdict.passed = passed;
    verdict.number_passed = if passed { total } else { total - 1 };
    let error = (!passed).then(|| "AssertionError".into());
    verdict.tests = vec![TestResult { test: "assert f(1) == 2".into(), passed, error, ..TestResult::default() }];
    verdict
}

fn task() -> LiveTask {
    LiveTask::bundled().into_iter().find(|t| t.id == "task2_incorrect").unwrap()
}

fn has_code(episode: &LiveEpisode) -> bool {
    OrchestratorState::from_index(episode.observation().state).has_code
}

fn reply(text: &str) -> ChatOutcome {
    ChatOutcome::Reply { text: text.into(), usage: Usage { prompt_tokens: 10, completion_tokens: 5, writing_ms: 0 } }
}

/// Plays the episode with `decide` as the policy and `tests` as the verdicts, in order.
fn play(
    episode: &mut LiveEpisode,
    decide: &mut dyn FnMut(&LiveEpisode) -> usize,
    mut tests: Vec<bool>,
    replies: &mut dyn FnMut(&ChatCall) -> ChatOutcome,
) {
    tests.reverse();
    for t in 0..50 {
        let now = f64::from(t);
        match episode.need() {
            Need::Decide(_) => {
                let action = decide(episode);
                episode.decided(action, now);
            }
            Need::Chat(call) => {
                let outcome = replies(&call.clone());
                episode.chat_done(outcome, now);
            }
            Need::Python(_) => episode.python_done(vec![verdict(tests.pop().expect("a verdict"), 5)], now),
            Need::Compute => unreachable!("no work of its own"),
            Need::Done => return,
        }
    }
    panic!("the episode did not end");
}

#[test]
fn an_executive_policy_generates_tests_debugs_and_stops_on_real_verdicts() {
    let mut episode =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    let mut script =
        vec![executive::GENERATE, executive::TEST, executive::DEBUG, executive::TEST, executive::STOP].into_iter();
    let mut prompts_seen = Vec::new();
    play(&mut episode, &mut |_| script.next().unwrap(), vec![false, true], &mut |call| {
        prompts_seen.push(call.prompt_id.clone());
        reply("```python\ndef find_max(nums):\n    return max(nums)\n```")
    });
    assert_eq!(prompts_seen, ["executive.generate", "executive.debug"]);
    let summary = episode.summary();
    assert!(summary.success, "{summary:?}");
    assert_eq!((summary.agent_calls, summary.llm_calls, summary.test_runs), (2, 2, 2));
    assert_eq!(summary.usage.total(), 30);
    // Seed 000's rewards: 5 steps at −0.1, generate +1, fail −1, debug +2, pass +1, stop +30.
    assert!((summary.episode_return - 32.5).abs() < 1e-9, "{}", summary.episode_return);
    let kinds: Vec<MessageKind> = episode.messages().iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        [MessageKind::Task, MessageKind::Code, MessageKind::TestResult, MessageKind::Code, MessageKind::TestResult]
    );
    assert!(episode.messages()[2].content.contains("FAILED assert f(1) == 2: AssertionError"));
    assert_eq!(episode.steps()[1].verdict.as_ref().map(|v| v.passed), Some(false));
}

#[test]
fn the_debug_prompt_carries_the_failing_code_and_report() {
    let mut episode =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Pipeline, task(), PromptSet::default()).unwrap();
    let mut debug_prompt = String::new();
    play(&mut episode, &mut |_| unreachable!("the pipeline decides"), vec![false, true], &mut |call| {
        if call.prompt_id == "executive.debug" {
            debug_prompt = call.messages[1].content.clone();
        }
        reply("```python\ndef find_max(nums):\n    return nums[0]\n```")
    });
    assert!(debug_prompt.contains("return nums[0]") && debug_prompt.contains("FAILED"), "{debug_prompt}");
    assert_eq!(
        episode.actions(),
        [executive::GENERATE, executive::TEST, executive::DEBUG, executive::TEST, executive::STOP]
    );
    assert!(episode.summary().success);
}

#[test]
fn the_orchestrator_pipeline_and_a_learned_coder_first_policy_differ_in_calls() {
    let mut pipeline =
        LiveEpisode::new(&EnvId::Orchestrator.default_spec(), Driver::Pipeline, task(), PromptSet::default()).unwrap();
    play(&mut pipeline, &mut |_| unreachable!(), vec![false, true], &mut |call| match call.agent.as_str() {
        "planner" => reply("1. use max"),
        "tester" => reply("nums[0] is not the maximum"),
        _ => reply("```python\ndef find_max(nums):\n    return max(nums)\n```"),
    });
    assert_eq!(pipeline.actions(), PIPELINE);
    assert!(pipeline.summary().success);
    let summary = pipeline.summary();
    assert_eq!(summary.agent_calls, 5, "every stage is an agent call, as in training");
    assert_eq!(summary.llm_calls, 4, "planner, coder, tester's analysis, debugger; the retest needs no LLM");
    let senders: Vec<&str> = pipeline.messages().iter().map(|m| m.sender.as_str()).collect();
    assert_eq!(senders, ["user", "planner", "coder", "tester", "tester", "debugger", "tester"]);

    let mut learned =
        LiveEpisode::new(&EnvId::Orchestrator.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    let coder_then_tester = |e: &LiveEpisode| if has_code(e) { orchestrator::TESTER } else { orchestrator::CODER };
    play(&mut learned, &mut { coder_then_tester }, vec![true], &mut |_| {
        reply("```python\ndef find_max(nums):\n    return max(nums)\n```")
    });
    assert_eq!(learned.actions(), [orchestrator::CODER, orchestrator::TESTER]);
    let summary = learned.summary();
    assert!(summary.success);
    assert_eq!((summary.agent_calls, summary.llm_calls), (2, 1));
    // −0.1 + 0.3 for the code, −0.1 + 10 for passing tests (seed 003's reward table).
    assert!((summary.episode_return - 10.1).abs() < 1e-9);
}

#[test]
fn redundant_calls_time_out_and_failed_calls_keep_the_episode_going() {
    let mut episode =
        LiveEpisode::new(&EnvId::Orchestrator.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    let mut calls = 0;
    play(&mut episode, &mut |_| orchestrator::DEBUGGER, vec![], &mut |_| {
        calls += 1;
        reply("")
    });
    assert_eq!(calls, 0, "a debugger with no error to fix makes no call");
    assert!(!episode.summary().success);
    assert_eq!(episode.summary().ended, "5 agent calls without passing tests");

    let mut episode =
        LiveEpisode::new(&EnvId::Orchestrator.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    let mut first = true;
    play(
        &mut episode,
        &mut |e| if has_code(e) { orchestrator::TESTER } else { orchestrator::CODER },
        vec![true],
        &mut |_| {
            if std::mem::take(&mut first) {
                ChatOutcome::Failed(LlmFailure::new(FailureKind::Server, "HTTP 503: the server failed."))
            } else {
                reply("def find_max(nums):\n    return max(nums)")
            }
        },
    );
    assert!(episode.summary().success, "the run goes on after a failed call");
    assert_eq!(episode.actions(), [orchestrator::CODER, orchestrator::CODER, orchestrator::TESTER]);
    assert_eq!(episode.messages()[1].kind, MessageKind::Error);

    let mut episode =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Pipeline, task(), PromptSet::default()).unwrap();
    play(&mut episode, &mut |_| unreachable!(), vec![], &mut |_| {
        ChatOutcome::Failed(LlmFailure::new(FailureKind::Auth, "HTTP 401"))
    });
    assert_eq!(episode.summary().ended, "HTTP 401");
    assert_eq!(episode.steps().len(), 1);
}

#[test]
fn a_reply_without_code_is_an_error_on_the_blackboard() {
    let mut episode =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Pipeline, task(), PromptSet::default()).unwrap();
    play(&mut episode, &mut |_| unreachable!(), vec![false, false], &mut |_| reply("Sorry, I can't."));
    let error = episode.messages().iter().find(|m| m.kind == MessageKind::Error).unwrap();
    assert!(error.content.starts_with("the generator's reply has no Python code: Sorry"), "{}", error.content);
    assert!(!episode.summary().success);
}

#[test]
fn illegal_actions_are_charged_and_the_step_limit_ends_the_episode() {
    let mut episode =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    // Debugging before any test is illegal: each one is charged as illegal, up to the step limit.
    play(&mut episode, &mut |_| executive::DEBUG, vec![], &mut |_| unreachable!());
    let summary = episode.summary();
    assert!(!summary.success);
    assert_eq!(summary.ended, "reached the step limit of 10");
    assert!(episode.steps().iter().all(|s| s.note.is_some()));
    // Seed 000 §3.4: 10 × (−0.1 − 5), and −10 for the step limit.
    assert!((summary.episode_return - (-61.0)).abs() < 1e-9, "{}", summary.episode_return);
}

#[test]
fn stopping_before_a_test_passed_ends_the_episode_as_in_training() {
    let mut episode =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    play(&mut episode, &mut |_| executive::STOP, vec![], &mut |_| unreachable!());
    let summary = episode.summary();
    assert_eq!((summary.success, summary.ended.as_str()), (false, "stopped without passing tests"));
    assert!((summary.episode_return - (-10.1)).abs() < 1e-9, "{}", summary.episode_return);
}

#[test]
fn live_mode_follows_a_reward_changed_in_the_environments_parameters() {
    let rewards = ExecutiveRewards { generate: 4.0, stop_success: 50.0, ..ExecutiveRewards::default() };
    let env = EnvSpec::Executive(ExecutiveParams { rewards, measured_verdicts: None });
    let mut episode = LiveEpisode::new(&env, Driver::Pipeline, task(), PromptSet::default()).unwrap();
    play(&mut episode, &mut |_| unreachable!(), vec![false, true], &mut |_| {
        reply("```python\ndef find_max(nums):\n    return max(nums)\n```")
    });
    // 32.5 with the seed's rewards; generate +3 and stop +20 more.
    assert!((episode.summary().episode_return - 55.5).abs() < 1e-9, "{}", episode.summary().episode_return);

    let params = OrchestratorParams { reward_code: 1.0, ..OrchestratorParams::default() };
    let env = EnvSpec::Orchestrator(params);
    let mut episode = LiveEpisode::new(&env, Driver::Policy, task(), PromptSet::default()).unwrap();
    play(
        &mut episode,
        &mut |e| if has_code(e) { orchestrator::TESTER } else { orchestrator::CODER },
        vec![true],
        &mut |_| reply("```python\ndef find_max(nums):\n    return max(nums)\n```"),
    );
    assert!((episode.summary().episode_return - 10.8).abs() < 1e-9, "{}", episode.summary().episode_return);
}

#[test]
fn the_executive_earns_the_same_rewards_live_as_in_its_simulator() {
    for live_task in LiveTask::bundled() {
        let mut env = ExecutiveEnv::for_task(&live_task.id).unwrap();
        env.reset(0);
        let actions = env.expert_actions().unwrap();
        let simulated: Vec<f64> = actions.iter().map(|&a| env.step(a).reward).collect();
        let mut episode =
            LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Policy, live_task.clone(), PromptSet::default())
                .unwrap();
        let mut script = actions.clone().into_iter();
        let mut llm = OfflineLlm::new(3);
        for t in 0..30 {
            match episode.need() {
                Need::Decide(_) => episode.decided(script.next().unwrap(), f64::from(t)),
                Need::Chat(_) => {
                    let outcome = llm.reply(&episode);
                    episode.chat_done(outcome, f64::from(t));
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    // The recorded verdict of the recorded program the offline LLM wrote.
                    let tasks = executive_tasks();
                    let task = tasks.iter().find(|t| t.task_id == live_task.id).unwrap();
                    let variant = task.code.iter().find(|(_, code)| code.trim() == request.code.trim()).unwrap().0;
                    episode.python_done(vec![verdict(task.verdict_of(variant).passed, 5)], f64::from(t));
                }
                Need::Compute => unreachable!("no work of its own"),
                Need::Done => break,
            }
        }
        let live: Vec<f64> = episode.steps().iter().map(|s| s.reward).collect();
        assert_eq!(live, simulated, "{}", live_task.id);
        assert!(episode.summary().success, "{}", live_task.id);
    }
}

#[test]
fn the_orchestrator_earns_the_same_rewards_live_as_in_its_simulator() {
    // With certain odds the simulator's outcomes are known: plans are made, code is correct, tests
    // pass. Live mode with replies and verdicts that say the same must earn the same, whatever the
    // policy does.
    let certain = OrchestratorParams {
        planner_success: 1.0,
        coder_success_with_plan: 1.0,
        coder_success_without_plan: 1.0,
        debugger_fixes_error: 1.0,
        ..OrchestratorParams::default()
    };
    let mut rng = RunRng::seed_from_u64(11);
    for _ in 0..200 {
        let actions: Vec<usize> = (0..5).map(|_| rng.random_range(0..4)).collect();
        let mut env = OrchestratorEnv::new(certain);
        env.reset(0);
        let mut simulated = Vec::new();
        for &a in &actions {
            let step = env.step(a);
            simulated.push(step.reward);
            if step.done() {
                break;
            }
        }
        let env = EnvSpec::Orchestrator(certain);
        let mut episode = LiveEpisode::new(&env, Driver::Policy, task(), PromptSet::default()).unwrap();
        let mut script = actions.clone().into_iter();
        play(&mut episode, &mut |_| script.next().unwrap(), vec![true; 5], &mut |_| {
            reply("1. plan\n```python\ndef find_max(nums):\n    return max(nums)\n```")
        });
        let live: Vec<f64> = episode.steps().iter().map(|s| s.reward).collect();
        assert_eq!(live, simulated, "{actions:?}");
    }
}

#[test]
fn the_offline_llm_answers_with_the_recorded_programs() {
    for task in LiveTask::bundled() {
        let mut episode =
            LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Pipeline, task.clone(), PromptSet::default())
                .unwrap();
        let mut llm = OfflineLlm::new(1);
        for t in 0..30 {
            match episode.need() {
                Need::Chat(_) => {
                    let outcome = llm.reply(&episode);
                    assert!(matches!(&outcome, ChatOutcome::Reply { usage, .. } if usage.total() > 0));
                    episode.chat_done(outcome, f64::from(t));
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    // The recorded verdict of whichever recorded program was written.
                    let passed = request.code.trim() == task.reference().trim();
                    episode.python_done(vec![verdict(passed, 5)], f64::from(t));
                }
                Need::Compute => unreachable!("no work of its own"),
                Need::Decide(_) => unreachable!(),
                Need::Done => break,
            }
        }
        assert!(episode.is_done());
        assert!(episode.summary().usage.total() > 0);
        assert_eq!(episode.steps()[0].code.trim(), task.offline.generate.trim(), "{}", task.id);
    }
}

#[test]
fn a_trained_orchestrator_policy_decides_live_states_and_refuses_foreign_ones() {
    use crate::{AgentId, RunSpec};
    let mut run = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 5000)).unwrap();
    run.by_ref().for_each(drop);
    run.stop();
    let mut episode =
        LiveEpisode::new(&EnvId::Orchestrator.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    // Seed 003's headline: the learned policy calls the coder first, then the tester.
    assert_eq!(decide(&run, &episode.live_state()), Ok(orchestrator::CODER));
    episode.decided(orchestrator::CODER, 0.0);
    episode.chat_done(reply("```python\ndef find_max(nums):\n    return max(nums)\n```"), 1.0);
    assert_eq!(decide(&run, &episode.live_state()), Ok(orchestrator::TESTER));
    let executive =
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Policy, task(), PromptSet::default()).unwrap();
    assert!(decide(&run, &executive.live_state()).unwrap_err().contains("orchestrator"));
}

#[test]
fn episodes_refuse_other_environments_and_tasks_without_tests() {
    assert!(
        LiveEpisode::new(&EnvId::Planner.default_spec(), Driver::Policy, task(), PromptSet::default())
            .unwrap_err()
            .contains("planner")
    );
    let mut untested = task();
    untested.tests.clear();
    assert!(
        LiveEpisode::new(&EnvId::Executive.default_spec(), Driver::Policy, untested, PromptSet::default())
            .unwrap_err()
            .contains("no tests")
    );
}

/// A test as the harness names it in a verdict.
fn statement(test: &TestCase) -> String {
    match test {
        TestCase::Statement(text) => text.trim().to_owned(),
        TestCase::Io { stdin, .. } => stdin.clone(),
    }
}

/// A verdict on `request` in which the tests `passes` says passed and the others failed.
fn verdict_on(request: &ProgramRequest, passes: impl Fn(&str) -> bool) -> ProgramVerdict {
    let tests: Vec<TestResult> = request
        .tests
        .iter()
        .map(|test| {
            let text = statement(test);
            let passed = passes(&text);
            let kind = (!passed).then(|| "assertion".to_owned());
            TestResult { test: text, passed, kind, ..TestResult::default() }
        })
        .collect();
    let passed = tests.iter().all(|t| t.passed);
    let mut verdict = ProgramVerdict::from_host(
        request,
        if passed { Outcome::Pass } else { Outcome::FailedTest },
        String::new(),
        1.0,
    );
    verdict.error = None;
    verdict.number_passed = tests.iter().filter(|t| t.passed).count() as u32;
    verdict.passed = passed;
    verdict.tests = tests;
    verdict
}

#[test]
fn held_out_tests_run_on_their_own_after_the_visible_verdict_feed_nothing_back_and_mark_a_special_cased_program() {
    let held_out = task().holding_out(0.4, 3).unwrap();
    assert_eq!((held_out.tests.len(), held_out.held_out.len()), (3, 2), "0.4 of 5 tests held out");
    assert_eq!(task().holding_out(0.4, 3).unwrap(), held_out, "the seed draws the split");
    assert!(
        held_out.tests.iter().all(|t| held_out.prompt.contains(&statement(t))),
        "the prompt shows the visible tests"
    );
    assert!(held_out.held_out.iter().all(|t| !held_out.prompt.contains(&statement(t))), "and no held-out one");
    let visible: Vec<String> = held_out.tests.iter().map(statement).collect();

    // A program that answers the visible tests only: it passes them, the episode succeeds on
    // them (and earns as much), and it is marked with the first held-out test it failed.
    for (special_cases, mark) in [(true, Some(statement(&held_out.held_out[0]))), (false, None)] {
        let mut episode = LiveEpisode::new(
            &EnvId::Executive.default_spec(),
            Driver::Pipeline,
            held_out.clone(),
            PromptSet::default(),
        )
        .unwrap();
        let mut requests = Vec::new();
        for t in 0..20 {
            match episode.need() {
                Need::Chat(call) => {
                    let prompt: String = call.messages.iter().map(|m| m.content.as_str()).collect();
                    assert!(
                        held_out.held_out.iter().all(|t| !prompt.contains(&statement(t))),
                        "no prompt shows a held-out test"
                    );
                    episode.chat_done(reply("```python\ndef find_max(nums):\n    return max(nums)\n```"), f64::from(t));
                }
                Need::Python(batch) => {
                    let request = &batch.requests[0];
                    let sent: Vec<String> = request.tests.iter().map(statement).collect();
                    requests.push(sent);
                    let verdict = verdict_on(request, |test| !special_cases || visible.iter().any(|v| v == test));
                    episode.python_done(vec![verdict], f64::from(t));
                }
                Need::Done => break,
                need => panic!("unexpected need {need:?}"),
            }
        }
        // The visible tests in their order, then the held-out ones in a request of their own,
        // once the visible verdict is final.
        let held: Vec<String> = held_out.held_out.iter().map(statement).collect();
        assert_eq!(requests, [visible.clone(), held]);
        let step = episode.steps().iter().find(|s| s.verdict.is_some()).unwrap();
        let verdict = step.verdict.as_ref().unwrap();
        assert_eq!((verdict.passed, verdict.number_passed, verdict.total), (true, 3, 3), "the visible tests' verdict");
        let reports: Vec<&str> =
            episode.messages().iter().map(|m| m.content.as_str()).filter(|c| c.contains("tests passed")).collect();
        assert_eq!(reports, ["pass: 3/3 tests passed"], "the tester reports the visible tests only");
        let summary = episode.summary();
        assert!(summary.success);
        assert_eq!(step.special_cased().map(str::to_owned), mark);
        assert_eq!(summary.special_cased().map(str::to_owned), mark);
        assert_eq!(
            summary.held_out.as_ref().map(|h| (h.passed, h.total)),
            Some((if special_cases { 0 } else { 2 }, 2))
        );
    }
    assert!(task().holding_out(1.0, 3).unwrap_err().contains("task task2_incorrect: held-out share: 1"));
}
