//! `rlcg lm`: the engine's language model on a GGUF file, so that any file can be checked against
//! llama.cpp from the command line. `generate` answers OpenAI-style chat messages, formatted by the
//! file's chat template, streaming the reply.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use engine::device::Backend;
use engine::lm::chat_template::Message;
use engine::lm::generation::Sampling;
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::rng::RunRng;
use rand::SeedableRng;
use serde::Deserialize;
use serde_json::json;

use crate::common::{Failure, io_failure, read_text, usage};

#[derive(clap::Subcommand)]
pub enum LmCommand {
    /// Answer chat messages with the model in a GGUF file (llama and qwen2 architectures; F32,
    /// F16, Q8_0, Q4_K and Q6_K tensors), on the CPU with llama.cpp's numerics.
    Generate {
        /// The model file.
        #[arg(long)]
        model: PathBuf,
        /// A JSON file of chat messages, `[{"role": …, "content": …}, …]` or an OpenAI request
        /// body with `messages`; a last assistant message is continued.
        #[arg(long)]
        messages: PathBuf,
        /// 0 draws the most likely token each time (greedy).
        #[arg(long, default_value_t = 0.0)]
        temperature: f32,
        #[arg(long, default_value_t = 1.0)]
        top_p: f32,
        #[arg(long, default_value_t = 256)]
        max_tokens: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print `{text, prompt_tokens, completion_tokens, tokens_per_second}` as the last line.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: &LmCommand) -> Result<(), Failure> {
    match command {
        LmCommand::Generate { model, messages, temperature, top_p, max_tokens, seed, json } => {
            if !(*temperature >= 0.0 && (0.0..=1.0).contains(top_p) && *top_p > 0.0) {
                return Err(usage(format!(
                    "--temperature must be 0 or more and --top-p in (0, 1]; got {temperature} and {top_p}"
                )));
            }
            let sampling = Sampling { temperature: *temperature, top_p: *top_p };
            generate(model, &read_messages(messages)?, sampling, *max_tokens, *seed, *json)
        }
    }
}

fn read_messages(path: &Path) -> Result<Vec<Message>, Failure> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Chat {
        Messages(Vec<Message>),
        Request { messages: Vec<Message> },
    }
    let chat: Chat = serde_json::from_str(&read_text(path)?).map_err(|e| {
        usage(format!("{}: not chat messages ([{{\"role\": …, \"content\": …}}, …]): {e}", path.display()))
    })?;
    let (Chat::Messages(messages) | Chat::Request { messages }) = chat;
    if messages.is_empty() {
        return Err(usage(format!("{}: no messages", path.display())));
    }
    Ok(messages)
}

fn generate(
    path: &Path,
    messages: &[Message],
    sampling: Sampling,
    max_tokens: usize,
    seed: u64,
    json: bool,
) -> Result<(), Failure> {
    let bytes = std::fs::read(path).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
    let device = Backend::Ndarray.inference_device().map_err(usage)?;
    let model = LanguageModel::load(&bytes, &device, Numerics::LlamaCpp)
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    let mut generation = model.reply(messages, sampling, max_tokens).map_err(usage)?;
    let mut rng = RunRng::seed_from_u64(seed);
    let mut first_token_at = None;
    let mut stdout = std::io::stdout();
    let mut pending = Vec::new();
    while let Some(token) = generation.step(&model.transformer, &mut rng) {
        first_token_at.get_or_insert_with(Instant::now);
        // Pieces can split a character: print what is whole.
        pending.extend(model.tokenizer.piece(token, false));
        let whole = match std::str::from_utf8(&pending) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        let _ = stdout.write_all(&pending[..whole]).and_then(|()| stdout.flush());
        pending.drain(..whole);
    }
    println!("{}", String::from_utf8_lossy(&pending));
    if json {
        // The reply after its first token: the prompt's reading is not generation.
        let rate = first_token_at
            .filter(|_| generation.reply.len() > 1)
            .map(|at| (generation.reply.len() - 1) as f64 / at.elapsed().as_secs_f64().max(1e-9));
        println!(
            "{}",
            json!({
                "text": model.tokenizer.decode(&generation.reply),
                "prompt_tokens": generation.prompt_tokens,
                "completion_tokens": generation.reply.len(),
                "tokens_per_second": rate,
                "stop": generation.stopped.map(|stop| stop.name()),
            })
        );
    }
    Ok(())
}
