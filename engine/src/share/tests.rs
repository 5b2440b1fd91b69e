use super::*;
use crate::agents::AgentSpec;
use crate::agents::DqnParams;
use crate::env::EnvSpec;
use proptest::prelude::*;

#[test]
fn links_are_short_readable_and_round_trip() {
    let link = ShareLink::default();
    assert_eq!(link.encode(), "v=1&env=orchestrator&agent=q-learning&seed=1&episodes=5000");
    let mut spec = RunSpec::new(EnvId::Executive, AgentId::Dqn, 42, 500);
    spec.agent = AgentSpec::Dqn(DqnParams::seed(EnvId::Executive));
    let teacher = ShareLink {
        teaching: Teaching {
            focus: None,
            hidden: vec![Control::Hyperparameters],
            locked: vec![Control::Env, Control::Agent],
        },
        ..ShareLink::of(spec)
    };
    let fragment = teacher.encode();
    assert!(fragment.contains("p.hidden=512%2C+256"), "{fragment}");
    assert!(fragment.ends_with("hide=hyperparameters&lock=env%2Cagent"), "{fragment}");
    assert_eq!(ShareLink::decode(&format!("#{fragment}")), (teacher, vec![]));
}

#[test]
fn a_repeated_key_is_named_and_the_first_wins() {
    let (link, problems) = ShareLink::decode("v=1&env=orchestrator&agent=q-learning&env=planner&seed=3&env=executive");
    assert_eq!(link.spec.env.id(), EnvId::Orchestrator);
    assert_eq!(link.spec.seed, 3);
    assert_eq!(problems, ["'env' is given 3 times; using the first, 'orchestrator'"]);
}

#[test]
fn bad_fields_are_named_and_replaced_by_defaults() {
    let (link, problems) =
        ShareLink::decode("v=1&env=moon&agent=dqn&seed=-3&episodes=99999999&p.learning_rate=7&x=1&hide=plot");
    assert_eq!(link.spec.env.id(), EnvId::Orchestrator);
    assert_eq!(link.spec.agent, AgentId::Dqn.default_spec(EnvId::Orchestrator));
    assert_eq!((link.spec.seed, link.spec.episodes), (1, RunSpec::MAX_EPISODES));
    assert_eq!(
        problems,
        [
            "env: unknown environment 'moon'; valid: executive, planner, orchestrator, CliffWalking-v0, Taxi-v3, Blackjack-v1, CartPole-v1, MountainCar-v0, Acrobot-v1",
            "seed: '-3' is not a whole number",
            "episodes: 99999999 is outside 1..=1000000; using 1000000",
            "hide: unknown control 'plot'; valid: env, agent, episodes, seed, hyperparameters, backend, env-params",
            "'x' is not a field of a share link",
            "hyperparameters: learning_rate must be between 0.000001 and 1, got 7; using the defaults",
        ]
    );
    let (link, problems) = ShareLink::decode("v=9&env=planner");
    assert_eq!(
        (link, problems),
        (ShareLink::default(), vec!["the link has version '9'; this page reads version 1".to_owned()])
    );
    let (_, problems) = ShareLink::decode("v=1&agent=q-learning&p.hidden=1");
    assert_eq!(problems, ["p.hidden: q-learning has no hyperparameter 'hidden'"]);
}

#[test]
fn environment_parameters_and_measured_verdicts_ride_in_the_link() {
    let mut spec = RunSpec::new(EnvId::Executive, AgentId::QLearning, 2, 300);
    spec.env = params::apply(&spec.env, &["stop_success=50".into(), "max_tests=3".into()]).unwrap();
    let programs = EnvId::Executive.measured_programs();
    let mut measured: Vec<_> = programs.iter().map(|p| p.measured(p.recorded)).collect();
    measured[1].verdict = Verdict { passed: true, number_passed: 3, total: 3 };
    spec.env.set_measured_verdicts(Some(measured)).unwrap();
    let fragment = ShareLink::of(spec.clone()).encode();
    assert!(fragment.contains("&e.stop_success=50.0&e.max_tests=3&e.verdicts=p5-5_p3-3_f3-5_"), "{fragment}");
    assert_eq!(ShareLink::decode(&fragment), (ShareLink::of(spec.clone()), vec![]));

    let bad = [
        ("e.speed=2", "e.speed: executive has no environment parameter 'speed'"),
        ("e.max_tests=9", "environment parameters: max_tests must be between 1 and 4, got 9; using the defaults"),
        ("e.verdicts=p3-3", "e.verdicts: expected 10 verdicts, one per program, got 1; using the recorded verdicts"),
    ];
    let plain = RunSpec::new(EnvId::Executive, AgentId::QLearning, 2, 300);
    for (field, expected) in bad {
        let (link, problems) = ShareLink::decode(&format!("{}&{field}", ShareLink::of(plain.clone()).encode()));
        assert_eq!((link.spec, problems), (plain.clone(), vec![expected.to_owned()]), "{field}");
    }
    let text = ["x1-3"; 10].join("_");
    let (_, problems) = ShareLink::decode(&format!("v=1&env=executive&e.verdicts={text}"));
    assert_eq!(problems, ["e.verdicts: 'x1-3' is not p or f, then passed-total (p3-3); using the recorded verdicts"]);
    let (_, problems) = ShareLink::decode("v=1&env=orchestrator&e.verdicts=p1-1");
    assert_eq!(problems, ["e.verdicts: expected 0 verdicts, one per program, got 1; using the recorded verdicts"]);
}

/// Links that once broke a decoder, or nearly: kept and replayed on every run.
#[test]
fn corpus_of_hostile_links_decodes_to_valid_specs() {
    for line in include_str!("../../tests/share_link_corpus.txt").lines().filter(|l| !l.starts_with("//")) {
        let (link, _) = ShareLink::decode(line);
        assert!(link.spec.validate().is_ok(), "{line}");
    }
}

/// Results of a short run of `spec` (a few episodes, whatever the budget).
fn results_of(spec: &RunSpec) -> SharedResults {
    // Seed 004's environments take hundreds of steps an episode: a few are enough here.
    let (episodes, greedy) = if matches!(spec.env, EnvSpec::Gym(_)) { (1, 1) } else { (30, 20) };
    let short = RunSpec { episodes: spec.episodes.min(episodes), ..spec.clone() };
    let mut run = crate::Run::new(short).unwrap();
    let records: Vec<_> = run.by_ref().collect();
    SharedResults::of(&records, Some(&run.evaluate_greedy(greedy)), &run.policy_view().table).unwrap()
}

#[test]
fn results_ride_along_and_are_checked() {
    let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 7, 300);
    let mut run = crate::Run::new(spec.clone()).unwrap();
    let records: Vec<_> = run.by_ref().collect();
    let greedy = run.evaluate_greedy(100);
    let results = SharedResults::of(&records, Some(&greedy), &run.policy_view().table).unwrap();
    assert_eq!(results.episodes, 300);
    assert_eq!(results.success_curve.len(), CURVE_POINTS);
    assert_eq!(*results.success_curve.last().unwrap() as f64, (records[299].success_last100 * 100.0).round());
    assert_eq!(results.fingerprint, "5e91bdbdb8c1afe8", "the reference run pinned in run.rs");
    let link = ShareLink { results: Some(results.clone()), ..ShareLink::of(spec.clone()) };
    let (fragment, left_out) = link.encode_within_budget();
    assert_eq!(left_out, None, "{} characters", fragment.len());
    assert!(fragment.contains("&r.episodes=300&r.success=") && fragment.contains("&r.table="), "{fragment}");
    let (decoded, problems) = ShareLink::decode(&fragment);
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(decoded, link);

    // A table too large for the budget is left out, and the link says so.
    let mut big = results.clone();
    big.table = Some((0..80).map(|s| (s % 32, vec![1.234_567; 5])).collect());
    let (fragment, left_out) = ShareLink { results: Some(big), ..ShareLink::of(spec.clone()) }.encode_within_budget();
    assert!(fragment.len() <= SHARED_LINK_BUDGET && !fragment.contains("r.table") && fragment.contains("r.fp="));
    assert!(left_out.unwrap().starts_with("The link leaves out the learned table (80 states): it would make it "));

    let bad = [
        ("r.episodes=301&r.success=ZA&r.fp=5e91bdbdb8c1afe8", "r.episodes: 301 is outside 1..=300 (the run's budget)"),
        ("r.episodes=3&r.success=_w&r.fp=5e91bdbdb8c1afe8", "r.success: expected 1 to 50 percentages of at most 100"),
        ("r.episodes=3&r.success=ZA&r.fp=xyz", "r.fp: 'xyz' is not 16 hexadecimal digits"),
        ("r.success=ZA", "r.success without r.episodes"),
        (
            "r.episodes=3&r.success=ZA&r.fp=5e91bdbdb8c1afe8&r.greedy=120_2",
            "r.greedy: success must be 0 to 100 (%) and calls 0 to 1000, got 120 and 2",
        ),
        (
            "r.episodes=3&r.success=ZA&r.fp=5e91bdbdb8c1afe8&r.table=0_1_2",
            "r.table: row 1: expected 4 values of at most 1e6 in size",
        ),
        (
            "r.episodes=3&r.success=ZA&r.fp=5e91bdbdb8c1afe8&r.table=99999_1_2_3_4_5",
            "r.table: row 1: state must be below",
        ),
    ];
    for (fields, expected) in bad {
        let (link, problems) = ShareLink::decode(&format!("{}&{fields}", ShareLink::of(spec.clone()).encode()));
        assert_eq!(link.spec, spec, "{fields}: the spec stands");
        assert!(link.results.is_none(), "{fields}");
        assert!(problems.len() == 1 && problems[0].starts_with(expected), "{fields}: {problems:?}");
        assert!(problems[0].ends_with("; the shared results are left out"), "{problems:?}");
    }
}

/// Any spec, with some hyperparameters, environment parameters and measured verdicts changed.
fn any_spec() -> impl Strategy<Value = RunSpec> {
    let env_params =
        (-1000.0f64..=1000.0, 0.0f64..=1.0, 1u32..=4, prop::collection::vec((any::<bool>(), 0u32..=5), 10));
    (0..EnvId::ALL.len(), 0..AgentId::ALL.len(), any::<u64>(), 1u32..=RunSpec::MAX_EPISODES, 0.0f64..=1.0, env_params)
        .prop_map(|(env, agent, seed, episodes, alpha, (reward, odds, count, verdicts))| {
            let env = EnvId::ALL[env];
            let mut spec = RunSpec::new(env, AgentId::ALL[agent], seed, episodes);
            if let AgentSpec::QLearning(p) = &mut spec.agent {
                p.alpha = alpha;
            }
            match &mut spec.env {
                EnvSpec::Executive(p) => {
                    p.rewards.stop_success = reward;
                    p.rewards.max_tests = count as usize;
                    let programs = env.measured_programs();
                    let measured = programs.iter().zip(&verdicts).map(|(program, &(passed, n))| {
                        program.measured(Verdict { passed, number_passed: n, total: 5 })
                    });
                    p.measured_verdicts = (count % 2 == 0).then(|| measured.collect());
                }
                EnvSpec::Planner(p) => p.step = reward,
                EnvSpec::Orchestrator(p) => {
                    p.tester_finds_error = odds;
                    p.max_iterations = count;
                }
                EnvSpec::Gym(p) => p.max_steps_without_limit = count * 5,
            }
            if spec.validate().is_err() {
                // A tabular agent on a continuous environment: the form offers the DQN there.
                spec.agent = AgentId::Dqn.default_spec(env);
            }
            spec
        })
}

proptest! {
    #[test]
    fn any_text_decodes_to_a_valid_spec_without_panicking(text in ".{0,300}") {
        let (link, _) = ShareLink::decode(&text);
        prop_assert!(link.spec.validate().is_ok());
    }

    #[test]
    fn edited_links_decode_to_valid_specs(spec in any_spec(), cut in 0usize..200, junk in "[&=%a-z0-9.,+-]{0,20}") {
        let fragment = ShareLink { results: Some(results_of(&spec)), ..ShareLink::of(spec) }.encode();
        let edited = format!("{}{junk}", &fragment[..cut.min(fragment.len())]);
        let (link, _) = ShareLink::decode(&edited);
        prop_assert!(link.spec.validate().is_ok());
    }

    #[test]
    fn every_spec_round_trips(spec in any_spec()) {
        let mut link = ShareLink { teaching: Teaching { hidden: vec![Control::Seed], ..Teaching::default() }, results: Some(results_of(&spec)), ..ShareLink::of(spec) };
        if link.encode().len() > MAX_LINK_CHARS {
            // Taxi's table of 500 states does not fit a link; the page leaves it out.
            link.results.as_mut().unwrap().table = None;
        }
        prop_assert_eq!(ShareLink::decode(&link.encode()), (link, vec![]));
    }
}
