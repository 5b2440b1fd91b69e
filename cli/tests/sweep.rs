//! `rlcg sweep`: a small grid run here, then cell by cell as a cluster runs it (each cell a process
//! with its index in JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID), both merged to the same table.

use std::path::Path;
use std::process::{Command, Output};

fn rlcg(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rlcg"));
    command.args(args).env_remove("JOB_COMPLETION_INDEX").env_remove("SLURM_ARRAY_TASK_ID");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("rlcg runs")
}

/// The merged table of `dir`, without the wall-clock times, which differ from run to run.
fn merged(dir: &Path) -> serde_json::Value {
    let output = rlcg(&["sweep", "merge", dir.to_str().unwrap(), "--json"], &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut table: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for row in table["rows"].as_array_mut().unwrap() {
        row["values"].as_object_mut().unwrap().remove("wall_seconds");
    }
    table
}

#[test]
fn a_sweep_run_by_index_and_merged_equals_the_local_run() {
    let root = std::env::temp_dir().join(format!("rlcg-sweep-{}", std::process::id()));
    let (local, cluster) = (root.join("local"), root.join("cluster"));
    std::fs::create_dir_all(&root).unwrap();
    let file = root.join("sweep.json");
    let sweep = r#"{"command": ["train", "--env", "orchestrator", "--episodes", "300", "--eval-episodes", "100"],
                    "grid": {"--agent": ["q-learning", "thompson-sampling"], "--seed": [1, 2, 3]}}"#;
    std::fs::write(&file, sweep).unwrap();
    let file = file.to_str().unwrap();

    let output = rlcg(&["sweep", file, "--jobs", "2", "--out", local.to_str().unwrap()], &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for index in 0..6 {
        let variable = if index % 2 == 0 { "JOB_COMPLETION_INDEX" } else { "SLURM_ARRAY_TASK_ID" };
        let output = rlcg(&["sweep", file, "--out", cluster.to_str().unwrap()], &[(variable, index.to_string())]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let table = merged(&local);
    assert_eq!(table, merged(&cluster));
    assert_eq!(table["cells"], 6);
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "one row per agent, over its three seeds");
    assert_eq!((rows[0]["params"]["--agent"].as_str(), rows[0]["seeds"].as_u64()), (Some("q-learning"), Some(3)));
    let (mean, low, high) = {
        let v = &rows[0]["values"]["greedy.success_rate"];
        (v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
    };
    assert!(low <= mean && mean <= high && (0.0..=1.0).contains(&mean));

    // A cell out of range, and a bad file, are named.
    let output = rlcg(&["sweep", file, "--index", "6"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cell 6 is not in the sweep: it has cells 0 to 5"));
    let bad = root.join("bad.json");
    std::fs::write(&bad, r#"{"command": ["train"], "grid": {"seed": [1]}}"#).unwrap();
    let output = rlcg(&["sweep", bad.to_str().unwrap()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("grid parameter `seed` must be an option (--name)"));
    std::fs::remove_dir_all(&root).unwrap();
}
