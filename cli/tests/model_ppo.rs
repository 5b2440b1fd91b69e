//! `rlcg stepcoder train`: StepCoder's PPO on the small code model's tokens, its programs run by
//! python3. A short run on three tasks checks what must hold whatever the model learns: the policy
//! starts as its reference (the adapters begin at zero, so the first update's KL is 0) and moves
//! away from it, vanilla's loss keeps every reply token and FGO's fewer, CCCS's prompt starts at a
//! stage before the full task, and the trained model is written as a GGUF file that loads again.
//! A longer seeded run shows what the training does to pass@1.

mod common;

use common::{last_json_line, rlcg};
use engine::stepcoder::ablation::mean_interval;
use serde_json::Value;

/// Two training tasks and one unseen, from the bundled ones.
fn three_tasks() -> std::path::PathBuf {
    let tasks: Vec<Value> = serde_json::from_str(include_str!("../../tasks/lm_coder.json")).unwrap();
    let training = tasks.iter().filter(|t| t["split"] == "training").take(2);
    let unseen = tasks.iter().filter(|t| t["split"] == "unseen").take(1);
    let chosen: Vec<&Value> = training.chain(unseen).collect();
    let path = std::env::temp_dir().join(format!("rlcg-model-ppo-{}-tasks.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string(&chosen).unwrap()).unwrap();
    path
}

fn train(arm: &str, tasks: &std::path::Path, out: Option<&std::path::Path>) -> Value {
    let mut args = vec!["stepcoder", "train", "--tasks", tasks.to_str().unwrap(), "--arm", arm, "--updates", "2"];
    args.extend(["--measure-every", "1", "--param", "rollouts=4", "--param", "tasks_per_update=1", "--json"]);
    if let Some(out) = out {
        args.extend(["--out", out.to_str().unwrap()]);
    }
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    last_json_line(&output)
}

/// The page's "Train the model" trains what this command trains, to the printed digits:
/// e2e/train-model.spec.mjs holds the page's run of the same spec to these figures.
#[test]
fn the_first_tasks_train_as_the_page_trains_them() {
    let mut args = vec!["stepcoder", "train", "--first", "2,1", "--arm", "vanilla", "--updates", "3"];
    args.extend(["--measure-every", "1", "--param", "rollouts=4", "--param", "tasks_per_update=1"]);
    args.extend(["--param", "measure_samples=2", "--param", "max_tokens=96", "--json"]);
    let output = rlcg(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    let figure = |r: &Value, name: &str| r[name].as_f64().unwrap();
    let rows: Vec<String> = report["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!("{:+.3} {:.4} {:.0}%", figure(r, "mean_reward"), figure(r, "kl"), 100.0 * figure(r, "kept_share"))
        })
        .collect();
    assert_eq!(rows, ["+0.000 0.0000 100%", "+1.000 -0.0001 100%", "+0.500 0.0021 100%"]);
    // What a sweep averages: pass@1 before, after and its change, and where the time went.
    let (first, last) = (&report["measurements"][0], &report["measurements"][3]);
    let change = report["pass_at_1"]["change"]["training"].as_f64().unwrap();
    assert_eq!(change, figure(last, "training") - figure(first, "training"));
    let seconds = &report["seconds"];
    assert!(
        ["measuring", "rollouts", "programs", "ppo_step"].iter().all(|work| figure(seconds, work) > 0.0),
        "{seconds}"
    );
    let bad = rlcg(&["stepcoder", "train", "--first", "40,1"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--first: training tasks: between 1 and 32, got 40"));
}

/// `rlcg sweep` fans StepCoder's training out over seeds × arms, and its merge gives each arm's
/// change of pass@1 over the seeds with its interval.
#[test]
fn a_sweep_trains_each_arm_on_each_seed_and_merges_the_change_of_pass_at_1() {
    let root = std::env::temp_dir().join(format!("rlcg-model-ppo-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let file = root.join("sweep.json");
    let sweep = r#"{"command": ["stepcoder", "train", "--first", "1,1", "--updates", "1", "--measure-every", "1",
        "--param", "rollouts=2", "--param", "tasks_per_update=1", "--param", "measure_samples=1", "--param", "max_tokens=64"],
      "grid": {"--arm": ["vanilla", "stepcoder"], "--seed": [1, 2]}}"#;
    std::fs::write(&file, sweep).unwrap();
    let out = root.join("cells");
    let ran = rlcg(&["sweep", file.to_str().unwrap(), "--jobs", "2", "--out", out.to_str().unwrap()]);
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let merged = rlcg(&["sweep", "merge", out.to_str().unwrap(), "--json"]);
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let table: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let rows = table["rows"].as_array().unwrap();
    let arms: Vec<&str> = rows.iter().map(|r| r["params"]["--arm"].as_str().unwrap()).collect();
    assert_eq!(arms, ["stepcoder", "vanilla"]);
    for row in rows {
        assert_eq!(row["seeds"], 2, "{row}");
        let change = row["values"]["pass_at_1.change.training"].as_array().unwrap();
        let [mean, low, high] = [0, 1, 2].map(|i| change[i].as_f64().unwrap());
        assert!(low <= mean && mean <= high && (-1.0..=1.0).contains(&mean), "{row}");
    }
}

#[test]
fn stepcoder_moves_the_policy_from_its_reference_and_writes_the_trained_model() {
    let tasks = three_tasks();
    let out = std::env::temp_dir().join(format!("rlcg-model-ppo-{}.gguf", std::process::id()));
    let report = train("stepcoder", &tasks, Some(&out));
    let history = report["history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    let kl = |i: usize| history[i]["kl"].as_f64().unwrap();
    assert!(kl(0).abs() < 1e-6, "the adapters start at zero: the policy is its reference ({})", kl(0));
    assert!(kl(1).abs() > 1e-7, "one update moved the policy: {}", kl(1));
    // CCCS: every task starts a stage before the full task (each has two statements or more), and
    // four rollouts cannot lift ρ past 0.8 (at most 1 − 0.9⁴ = 0.34).
    for record in history {
        let (stage, rho) = (record["stages"][0][1].as_u64().unwrap(), record["stages"][0][2].as_f64().unwrap());
        assert!(stage >= 1 && rho <= 0.35, "{record}");
    }
    // The rollouts that passed ran on the hidden tests too: a share of them, whatever it is.
    assert!(history.iter().all(|r| (0.0..=1.0).contains(&r["special_cased"].as_f64().unwrap())), "{history:?}");
    // FGO keeps only the tokens of lines that ran: never the closing fence.
    assert!(history.iter().all(|r| r["kept_share"].as_f64().unwrap() < 1.0), "{history:?}");
    let measured: Vec<u64> =
        report["measurements"].as_array().unwrap().iter().map(|m| m["after_updates"].as_u64().unwrap()).collect();
    assert_eq!(measured, [0, 1, 2]);
    // Each measurement keeps every task's passes (of 8 programs), the pairs that compare points.
    for point in report["measurements"].as_array().unwrap() {
        let passes: Vec<u64> = point["passes"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap()).collect();
        assert!(passes.len() == 3 && passes.iter().all(|&p| p <= 8), "{point}");
        let training = (passes[0] + passes[1]) as f64 / 16.0;
        assert!((point["training"].as_f64().unwrap() - training).abs() < 1e-12, "{point}");
    }
    let model = out.to_str().unwrap();
    let sampled = ["--samples", "3", "--temperature", "0.2", "--top-p", "0.95", "--json"];
    let written =
        rlcg(&[&["lm", "pass-at-1", "--model", model, "--tasks", tasks.to_str().unwrap()][..], &sampled].concat());
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let written = last_json_line(&written);
    let programs: Vec<u64> =
        written["splits"].as_array().unwrap().iter().map(|s| s["programs"].as_u64().unwrap()).collect();
    assert_eq!(programs, [6, 3], "three programs for each of two training tasks and one unseen");
}

#[test]
fn vanilla_keeps_every_reply_token_in_the_loss_and_has_no_curriculum() {
    let report = train("vanilla", &three_tasks(), None);
    for record in report["history"].as_array().unwrap() {
        assert_eq!(record["kept_share"].as_f64().unwrap(), 1.0, "{record}");
        // Without CCCS there is no curriculum to report.
        assert_eq!(record["stages"].as_array().unwrap().len(), 0, "{record}");
    }
}

#[test]
fn bad_settings_and_tasks_exit_2_naming_them() {
    let tasks = three_tasks();
    let output = rlcg(&["stepcoder", "train", "--tasks", tasks.to_str().unwrap(), "--param", "rollouts=0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("rollouts must be between 1 and 64"));
    // The tests' build has no Wgpu backend (the `wgpu` feature): a GPU is asked for in words.
    let output = rlcg(&["stepcoder", "train", "--tasks", tasks.to_str().unwrap(), "--backend", "wgpu"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("backend 'wgpu' is not in this build (build the engine with its 'wgpu' feature)"),
        "{stderr}"
    );
    let output = rlcg(&["stepcoder", "train", "--tasks", tasks.to_str().unwrap(), "--backend", "cuda"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown backend 'cuda'; valid: ndarray, wgpu"));
    let unseen_only = std::env::temp_dir().join(format!("rlcg-model-ppo-{}-unseen.json", std::process::id()));
    let all: Vec<Value> = serde_json::from_str(include_str!("../../tasks/lm_coder.json")).unwrap();
    let unseen: Vec<&Value> = all.iter().filter(|t| t["split"] == "unseen").collect();
    std::fs::write(&unseen_only, serde_json::to_string(&unseen).unwrap()).unwrap();
    let output = rlcg(&["stepcoder", "train", "--tasks", unseen_only.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no training task"));
}

/// Seeded (issue 70's "done when"): 20 updates of PPO on the small model raise pass@1 on the
/// training tasks (8 programs each at T 0.2, as Table 1 decodes) by more than the 95% interval of
/// the tasks' paired changes: 41.8% → 54.3%, +12.5 points [+2.6, +22.4] for vanilla PPO on seed 1,
/// the same in every process since the critic is drawn from the seed (docs/reproductions.md,
/// "Determinism"; before, runs of this test gave +11.3 [+3.2, +19.5] and +9.0 [−3.6, +21.5]). StepCoder's
/// arms move less or fall at this length (docs/reproductions.md, `code-model-ppo`), so the test
/// holds the arm that learns. The unseen tasks are left out: the training draws and the training
/// tasks' measurements are the same without them.
#[test]
fn ppo_raises_training_pass_at_1_beyond_its_interval() {
    let all: Vec<Value> = serde_json::from_str(include_str!("../../tasks/lm_coder.json")).unwrap();
    let training: Vec<&Value> = all.iter().filter(|t| t["split"] == "training").collect();
    let path = std::env::temp_dir().join(format!("rlcg-model-ppo-{}-training.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string(&training).unwrap()).unwrap();
    let args = ["stepcoder", "train", "--tasks", path.to_str().unwrap(), "--arm", "vanilla", "--updates", "20"];
    let output = rlcg(&[&args[..], &["--measure-every", "20", "--seed", "1", "--json"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = last_json_line(&output);
    let passes = |i: usize| -> Vec<f64> {
        report["measurements"][i]["passes"].as_array().unwrap().iter().map(|p| p.as_f64().unwrap()).collect()
    };
    let changes: Vec<f64> = passes(0).iter().zip(passes(1)).map(|(before, after)| (after - before) / 8.0).collect();
    assert_eq!(changes.len(), 32);
    let (mean, low, high) = mean_interval(&changes);
    assert!(low > 0.0, "pass@1 moved by {mean:+.3} [{low:+.3}, {high:+.3}]: {}", report["measurements"]);
}
