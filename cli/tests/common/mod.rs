//! What the CLI's integration tests share: running `rlcg` and reading its JSON last line.

use std::process::{Command, Output};

use serde_json::Value;

/// `rlcg` with `args`, without an API key from the environment of whoever runs the tests.
pub fn rlcg_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rlcg"));
    command.args(args).env_remove("RLCG_API_KEY");
    command
}

pub fn rlcg(args: &[&str]) -> Output {
    rlcg_command(args).output().expect("rlcg runs")
}

pub fn last_json_line(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| {
        panic!("last line is not JSON ({e}): {stdout}\nstderr: {}", String::from_utf8_lossy(&output.stderr))
    })
}
