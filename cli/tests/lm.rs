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
    assert!(summary["prompt_tokens_per_second"].as_f64().unwrap() > 0.0);
    assert!(summary["load_seconds"].as_f64().unwrap() > 0.0);
    let streamed = String::from_utf8_lossy(&output.stdout);
    assert!(streamed.starts_with(text), "the reply is streamed before the JSON line: {streamed}");
}

#[test]
fn ignore_eos_writes_every_token_asked_for() {
    // The fixture ends its recorded answer after about 40 tokens; timed as llama.cpp's ignore_eos
    // times a model, it goes on to the limit.
    let request = include_str!("../../scripts/tiny-model/prompts.jsonl").lines().next().unwrap();
    let messages = temporary("ignore-eos.json", request);
    let ask = |extra: &[&str]| {
        let mut args = vec!["lm", "generate", "--model", FIXTURE, "--messages", messages.to_str().unwrap()];
        args.extend(["--max-tokens", "80", "--json"]);
        args.extend(extra);
        let output = rlcg(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        last_json_line(&output)
    };
    let ended = ask(&[]);
    assert_eq!(ended["stop"], "end");
    assert!(ended["completion_tokens"].as_u64().unwrap() < 80);
    let timed = ask(&["--ignore-eos"]);
    assert_eq!(timed["stop"], "max_tokens");
    assert_eq!(timed["completion_tokens"], 80);
    assert!(timed["text"].as_str().unwrap().starts_with(ended["text"].as_str().unwrap()));
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

#[test]
fn tune_teaches_the_fixture_a_new_program_and_writes_a_file_that_answers_with_it() {
    let chats = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/tiny-model/tune-chats.json");
    let out = std::env::temp_dir().join(format!("rlcg-lm-{}-shout.gguf", std::process::id()));
    let all = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj";
    let args = ["lm", "tune", "--model", FIXTURE, "--chats", chats, "--steps", "40", "--learning-rate", "1e-2"];
    let output = rlcg(&[&args[..], &["--targets", all, "--f16", "--out", out.to_str().unwrap(), "--json"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary = last_json_line(&output);
    let (before, after) = (summary["loss_before"].as_f64().unwrap(), summary["loss_after"].as_f64().unwrap());
    assert!(after < before / 10.0, "the reply's loss went from {before} to {after}");

    let chat: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(chats).unwrap()).unwrap();
    let prompt = &chat[0].as_array().unwrap()[..2];
    let messages = temporary("shout.json", &serde_json::to_string(prompt).unwrap());
    let generate = |model: &str| {
        let output = rlcg(&["lm", "generate", "--model", model, "--messages", messages.to_str().unwrap(), "--json"]);
        last_json_line(&output)["text"].as_str().unwrap().to_owned()
    };
    let taught = "```python\ndef shout(word: str) -> str:\n    return word.upper() + \"!\"\n```";
    assert_ne!(generate(FIXTURE), taught, "the fixture did not know it before");
    assert_eq!(generate(out.to_str().unwrap()), taught);
}

#[test]
fn tune_refuses_a_chat_without_a_reply_and_a_rank_of_zero() {
    let chats = temporary("no-reply.json", r#"[[{"role": "user", "content": "hi"}]]"#);
    let out = std::env::temp_dir().join("rlcg-lm-never-written.gguf");
    let base = ["lm", "tune", "--model", FIXTURE, "--chats", chats.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let output = rlcg(&base);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-reply.json: chat 0: a chat to learn ends with the assistant's reply"), "{stderr}");
    let output = rlcg(&[&base[..], &["--rank", "0"]].concat());
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--rank must be 1 or more"));
    assert!(!out.exists());
}
