//! `rlcg gym check` on the fixture recorded from Gymnasium 0.29.1, and on a file with a mistake.

mod common;

use common::{last_json_line, rlcg};

#[test]
fn the_gymnasium_fixture_matches_and_a_wrong_line_is_named() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/gym/transitions.jsonl");
    let output = rlcg(&["gym", "check", "--transitions", fixture, "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    let report = last_json_line(&output);
    assert_eq!(report["total"], report["matched"]);
    let ids = ["Blackjack-v1", "CliffWalking-v0", "Taxi-v3", "CartPole-v1", "MountainCar-v0", "Acrobot-v1"];
    for id in ids {
        assert!(report["per_env"][id]["total"].as_u64().unwrap() >= 300, "{id}: {report}");
    }
    assert_eq!(report["mismatches"], serde_json::json!([]));

    let wrong = std::env::temp_dir().join(format!("rlcg-gym-wrong-{}.jsonl", std::process::id()));
    let line = r#"{"env": "Taxi-v3", "obs": 1, "action": 4, "reward": -1, "next_obs": 16, "terminated": false, "truncated": false}"#;
    std::fs::write(&wrong, format!("{line}\n")).unwrap();
    let output = rlcg(&["gym", "check", "--transitions", wrong.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&wrong).unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = last_json_line(&output);
    assert_eq!((report["total"].as_u64(), report["matched"].as_u64()), (Some(1), Some(0)));
    assert_eq!(report["mismatches"][0]["problem"], "next_obs Discrete(16), the engine's Discrete(17)");
}

#[test]
fn the_speed_benchmark_reports_each_environment_named() {
    let output = rlcg(&["gym", "bench", "--steps", "2000", "--envs", "CartPole-v1,Taxi-v3", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    assert_eq!(report["steps"], 2000);
    let rates = report["per_env"].as_object().unwrap();
    assert_eq!(rates.keys().collect::<Vec<_>>(), ["CartPole-v1", "Taxi-v3"]);
    assert!(rates.values().all(|r| r.as_f64().unwrap() > 0.0));
    let output = rlcg(&["gym", "bench", "--envs", "Pong-v5"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown Gymnasium environment 'Pong-v5'"));
}

#[test]
fn a_dataset_is_ten_trajectories_that_gym_check_accepts() {
    let path = std::env::temp_dir().join(format!("rlcg-gym-dataset-{}.jsonl", std::process::id()));
    let output = rlcg(&["gym", "dataset", "--env", "Taxi-v3", "--seed", "3", "--out", path.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let starts = text.lines().filter(|l| l.contains("\"t\":0}")).count();
    assert_eq!(starts, 10, "5 random and 5 heuristic trajectories");
    let output = rlcg(&["gym", "check", "--transitions", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).unwrap();
    assert!(output.status.success());
    assert_eq!(last_json_line(&output)["matched"].as_u64(), Some(text.lines().count() as u64));
}
