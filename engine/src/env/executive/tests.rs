use super::*;

fn run(task_id: &str, actions: &[usize]) -> (f64, Vec<Step>) {
    let mut env = ExecutiveEnv::for_task(task_id).unwrap();
    env.reset(7);
    let steps: Vec<Step> = actions.iter().map(|&a| env.step(a)).collect();
    (steps.iter().map(|s| s.reward).sum(), steps)
}

fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

#[test]
fn canonical_episodes_succeed_with_the_seed_returns() {
    // Seed 000 §3.2: each task's correct trajectory; returns follow from §3.4's rewards.
    let cases: [(&str, &[usize], f64); 3] = [
        ("task1_correct", &[GENERATE, TEST, STOP], 0.9 + 0.9 + 29.9),
        ("task2_incorrect", &[GENERATE, TEST, DEBUG, TEST, STOP], 0.9 - 1.1 + 1.9 + 0.9 + 29.9),
        (
            "task3_search",
            &[GENERATE, TEST, DEBUG, TEST, SEARCH, DEBUG, TEST, STOP],
            0.9 - 1.1 + 1.9 - 1.1 + 1.4 + 1.9 + 0.9 + 29.9,
        ),
    ];
    for (task, actions, expected) in cases {
        let (ret, steps) = run(task, actions);
        assert_close(ret, expected);
        let last = steps.last().unwrap();
        assert!(last.terminated && last.info.success, "{task} did not succeed");
        assert!(steps.iter().all(|s| !s.info.invalid_action));
        // The seed's mask allows every canonical step.
        let mut env = ExecutiveEnv::for_task(task).unwrap();
        let mut obs = env.reset(0);
        for &a in actions {
            assert!(obs.mask.allows(a), "{task}: mask forbids {}", ACTION_NAMES[a]);
            obs = env.step(a).observation;
        }
    }
    assert_close(run("task1_correct", &[GENERATE, TEST, STOP]).0, 31.7);
    assert_close(run("task2_incorrect", &[GENERATE, TEST, DEBUG, TEST, STOP]).0, 32.5);
    assert_close(run("task3_search", &[GENERATE, TEST, DEBUG, TEST, SEARCH, DEBUG, TEST, STOP]).0, 34.7);
}

#[test]
fn every_illegal_action_of_the_seed_costs_five_and_flags_invalid() {
    // (task, legal prefix, illegal action): each rule of Listing 3.
    let cases: [(&str, &[usize], usize); 11] = [
        ("task1_correct", &[GENERATE], GENERATE),                       // generate twice
        ("task1_correct", &[], TEST),                                   // test before generate
        ("task1_correct", &[GENERATE, TEST], TEST),                     // re-test after a pass
        ("task2_incorrect", &[GENERATE, TEST, TEST, TEST, TEST], TEST), // a fifth test
        ("task1_correct", &[GENERATE], DEBUG),                          // debug before any test
        ("task1_correct", &[GENERATE, TEST], DEBUG),                    // debug after a pass
        ("task3_search", &[GENERATE, TEST, DEBUG], DEBUG),              // 2nd debug without 2 tests or search
        ("task3_search", &[GENERATE, TEST, DEBUG, TEST, SEARCH, DEBUG, TEST], DEBUG), // 3rd debug
        ("task3_search", &[GENERATE, TEST], SEARCH),                    // search before the first debug
        ("task3_search", &[GENERATE, TEST, DEBUG, TEST, SEARCH], SEARCH), // search twice
        ("task2_incorrect", &[GENERATE, TEST, DEBUG, TEST], SEARCH),    // search when tests were not [fail, fail]
    ];
    for (task, prefix, illegal) in cases {
        let mut env = ExecutiveEnv::for_task(task).unwrap();
        env.reset(0);
        for &a in prefix {
            assert!(!env.step(a).info.invalid_action, "{task}: prefix {prefix:?} was illegal");
        }
        let step = env.step(illegal);
        assert_close(step.reward, -5.1);
        assert!(step.info.invalid_action && !step.done(), "{task}: {} after {prefix:?}", ACTION_NAMES[illegal]);
        assert!(env.flags().invalid_action);
    }
}

#[test]
fn an_illegal_action_makes_stop_fail() {
    let (ret, steps) = run("task1_correct", &[TEST, GENERATE, TEST, STOP]);
    let last = steps.last().unwrap();
    assert!(last.terminated && !last.info.success);
    assert_close(ret, -5.1 + 0.9 + 0.9 - 10.1);
}

#[test]
fn the_step_limit_truncates_with_a_penalty() {
    let mut env = ExecutiveEnv::for_task("task1_correct").unwrap();
    env.reset(0);
    let steps: Vec<Step> = (0..10).map(|_| env.step(GENERATE)).collect();
    assert!(steps[..9].iter().all(|s| !s.done()));
    assert!(steps[9].truncated && !steps[9].terminated);
    assert_close(steps[9].reward, -5.1 - 10.0);
}

#[test]
fn debug_without_search_stays_wrong_on_the_search_task() {
    let mut env = ExecutiveEnv::for_task("task3_search").unwrap();
    env.reset(0);
    for a in [GENERATE, TEST, DEBUG] {
        env.step(a);
    }
    assert!(env.current_code().contains("cnt >= 1"));
    env.step(TEST);
    assert_eq!(env.feedback(), "Tests 2/5");
}

#[test]
fn flags_index_round_trips() {
    for i in 0..ExecutiveFlags::N_STATES {
        assert_eq!(ExecutiveFlags::from_index(i).index(), i);
    }
}

#[test]
fn reset_draws_every_task() {
    let mut env = ExecutiveEnv::default();
    let mut seen = [false; 3];
    for seed in 0..50 {
        env.reset(seed);
        seen[env.task_index()] = true;
    }
    assert_eq!(seen, [true; 3]);
}
