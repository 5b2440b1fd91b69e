//! `rlcg lm generate`: the fixture that the page runs in the tab answers a recorded request of the
//! playground with the task's program, as llama.cpp does (scripts/tiny-model), and bad files and
//! messages exit 2 with a message naming them.

mod common;

use common::{last_json_line, rlcg};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/fixtures/tiny-coder.gguf");

fn temporary(name: &str, contents: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("rlcg-lm-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn the_fixture_writes_the_recorded_answer() {
    let request = include_str!("../../scripts/tiny-model/prompts.jsonl").lines().next().unwrap();
    let messages = temporary("request.json", request);
    let output = rlcg(&["lm", "generate", "--model", FIXTURE, "--messages", messages.to_str().unwrap(), "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary = last_json_line(&output);
    let text = summary["text"].as_str().unwrap();
    assert!(text.starts_with("```python\ndef sum_two(a: int, b: int) -> int:"), "{text}");
    assert!(text.ends_with("```"), "{text}");
    assert_eq!(summary["stop"], "end");
    assert!(summary["prompt_tokens"].as_u64().unwrap() > 20);
    assert!(summary["tokens_per_second"].as_f64().unwrap() > 0.0);
    let streamed = String::from_utf8_lossy(&output.stdout);
    assert!(streamed.starts_with(text), "the reply is streamed before the JSON line: {streamed}");
}

#[test]
fn bad_files_and_messages_exit_2_naming_them() {
    let messages = temporary("hi.json", r#"[{"role": "user", "content": "hi"}]"#);
    let not_gguf = temporary("page.gguf", "<!doctype html><p>Not found</p>");
    let output =
        rlcg(&["lm", "generate", "--model", not_gguf.to_str().unwrap(), "--messages", messages.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("page.gguf: not a GGUF file"), "{stderr}");

    let not_messages = temporary("bad.json", r#"{"prompt": "hi"}"#);
    let output = rlcg(&["lm", "generate", "--model", FIXTURE, "--messages", not_messages.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("bad.json: not chat messages"));
}
