//! `rlcg lm`: the engine's language model on a GGUF file, so that any file can be checked against
//! llama.cpp from the command line. `generate` answers OpenAI-style chat messages, formatted by the
//! file's chat template, streaming the reply; `tune` trains LoRA adapters on chats and writes the
//! model, adapters merged, as GGUF; `pass-at-1` measures a model on the small code model's tasks,
//! every program run by python3 through the page's harness.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use engine::device::Backend;
use engine::lm::chat_template::Message;
use engine::lm::fine_tune::{Example, FineTune, reply_loss};
use engine::lm::generation::{Generation, Sampling};
use engine::lm::language_model::LanguageModel;
use engine::lm::lora::{LoraParams, Projection};
use engine::lm::model::{Numerics, Transformer};
use engine::lm::quants::TensorType;
use engine::rng::RunRng;
use engine::stepcoder::coder_tasks::{CoderTask, Split, coder_tasks};
use engine::stepcoder::model_pass_at_1::{ModelPassAt1, PassAt1Report, PassAt1Spec};
use rand::SeedableRng;
use serde::Deserialize;
use serde_json::json;

use cli::host::Host;
use cli::python::NativePython;

use crate::common::{Failure, io_failure, jobs_or_cores, progress_bar, read_text, usage};

#[derive(clap::Subcommand)]
pub enum LmCommand {
    /// Answer chat messages with the model in a GGUF file (llama and qwen2 architectures; F32,
    /// F16, Q5_0, Q8_0, Q4_K and Q6_K tensors), on the CPU with llama.cpp's numerics.
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
        /// Write all `--max-tokens` tokens, an end-of-generation token taken as any other (to time
        /// the model as llama.cpp's `ignore_eos` does).
        #[arg(long)]
        ignore_eos: bool,
        /// Print `{text, prompt_tokens, completion_tokens, tokens_per_second, stop, load_seconds,
        /// prompt_tokens_per_second}` as the last line.
        #[arg(long)]
        json: bool,
    },
    /// Train LoRA adapters on chats whose last message is the reply to learn, and write the model
    /// with the adapters merged as a GGUF file that llama.cpp (and the page's in-tab provider) runs.
    Tune {
        /// The model file.
        #[arg(long)]
        model: PathBuf,
        /// A JSON file of chats, each a list of messages ending with the assistant's reply to learn:
        /// `[[{"role": "user", "content": …}, {"role": "assistant", "content": …}], …]`.
        #[arg(long)]
        chats: PathBuf,
        /// Adam steps, one chat each, the chats in turn.
        #[arg(long, default_value_t = 30)]
        steps: usize,
        #[arg(long, default_value_t = 1e-3)]
        learning_rate: f64,
        /// LoRA's rank r (PEFT's default).
        #[arg(long, default_value_t = 8)]
        rank: usize,
        /// LoRA's α: the update is scaled by α / r (PEFT's default).
        #[arg(long, default_value_t = 8.0)]
        alpha: f32,
        /// The projections adapted in every block, comma-separated: q_proj, k_proj, v_proj, o_proj,
        /// gate_proj, up_proj, down_proj (PEFT's default for Llama and Qwen2: q_proj,v_proj).
        #[arg(long, value_delimiter = ',', value_parser = Projection::parse, default_value = "q_proj,v_proj")]
        targets: Vec<Projection>,
        /// Seeds the adapters' initial A matrices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The GGUF file to write.
        #[arg(long)]
        out: PathBuf,
        /// Matrices in F16 (half the size) instead of F32.
        #[arg(long)]
        f16: bool,
        /// Print `{steps, loss_before, loss_after, out, bytes}` as the last line.
        #[arg(long)]
        json: bool,
    },
    /// Pass@1 on the small code model's tasks (tasks/lm_coder.json, or a file of the same form):
    /// each task's reply drawn by the model, its program run against the tests and hidden tests.
    #[command(name = "pass-at-1")]
    PassAt1 {
        /// The model file.
        #[arg(long)]
        model: PathBuf,
        /// Tasks in tasks/lm_coder.json's form (default: that file, as this build has it).
        #[arg(long)]
        tasks: Option<PathBuf>,
        /// Only this split: training or unseen.
        #[arg(long, value_parser = parse_split)]
        split: Option<Split>,
        /// 0 draws the most likely token each time (greedy); Table 1 decodes at 0.2.
        #[arg(long, default_value_t = 0.0)]
        temperature: f32,
        #[arg(long, default_value_t = 1.0)]
        top_p: f32,
        /// Programs drawn per task (sampled ones differ; greedy ones are alike).
        #[arg(long, default_value_t = 1)]
        samples: usize,
        #[arg(long, default_value_t = PassAt1Spec::default().max_tokens)]
        max_tokens: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print the report (each split's passes, each program's reply and outcome) as the last line.
        #[arg(long)]
        json: bool,
    },
}

/// The small code model, as `scripts/code-model/make.py` wrote it.
pub(crate) const CODE_MODEL: &[u8] = include_bytes!("../../models/rlcg-coder.gguf");

/// Tasks in tasks/lm_coder.json's form.
pub(crate) fn read_coder_tasks(path: &Path) -> Result<Vec<CoderTask>, Failure> {
    serde_json::from_str(&read_text(path)?)
        .map_err(|e| usage(format!("{}: not tasks in tasks/lm_coder.json's form: {e}", path.display())))
}

fn parse_split(text: &str) -> Result<Split, String> {
    Split::ALL.into_iter().find(|s| s.name() == text).ok_or_else(|| format!("'{text}': training or unseen"))
}

fn checked_sampling(temperature: f32, top_p: f32) -> Result<Sampling, Failure> {
    if !(temperature >= 0.0 && (0.0..=1.0).contains(&top_p) && top_p > 0.0) {
        return Err(usage(format!(
            "--temperature must be 0 or more and --top-p in (0, 1]; got {temperature} and {top_p}"
        )));
    }
    Ok(Sampling { temperature, top_p })
}

pub fn run(command: &LmCommand) -> Result<(), Failure> {
    match command {
        LmCommand::Generate { model, messages, temperature, top_p, max_tokens, seed, ignore_eos, json } => {
            let sampling = checked_sampling(*temperature, *top_p)?;
            generate(model, &read_messages(messages)?, sampling, *max_tokens, *seed, *ignore_eos, *json)
        }
        LmCommand::PassAt1 { model, tasks, split, temperature, top_p, samples, max_tokens, seed, json } => {
            if *samples == 0 {
                return Err(usage("--samples must be 1 or more".to_owned()));
            }
            let sampling = checked_sampling(*temperature, *top_p)?;
            let spec = PassAt1Spec { sampling, samples: *samples, max_tokens: *max_tokens, seed: *seed };
            let tasks = match tasks {
                Some(path) => read_coder_tasks(path)?,
                None => coder_tasks(),
            };
            let tasks: Vec<CoderTask> =
                tasks.into_iter().filter(|t: &CoderTask| split.is_none_or(|s| t.split == s)).collect();
            if tasks.is_empty() {
                return Err(usage("no tasks to measure".to_owned()));
            }
            let bytes = std::fs::read(model).map_err(|e| io_failure(format!("{}: {e}", model.display())))?;
            let report = pass_at_1(&bytes, tasks, spec)
                .map_err(|e| Failure { message: format!("{}: {}", model.display(), e.message), ..e })?;
            print_pass_at_1(&report, *json);
            Ok(())
        }
        LmCommand::Tune { model, chats, steps, learning_rate, rank, alpha, targets, seed, out, f16, json } => {
            let positive = |value: f64| value > 0.0;
            if *rank == 0 || !positive(f64::from(*alpha)) || !positive(*learning_rate) {
                return Err(usage(format!(
                    "--rank must be 1 or more, --alpha and --learning-rate above 0; got {rank}, {alpha} and {learning_rate}"
                )));
            }
            tune(&TuneArgs {
                model,
                chats,
                steps: *steps,
                learning_rate: *learning_rate,
                lora: LoraParams { rank: *rank, alpha: *alpha, targets: targets.clone() },
                seed: *seed,
                out,
                matrices: if *f16 { TensorType::F16 } else { TensorType::F32 },
                json: *json,
            })
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
    ignore_eos: bool,
    json: bool,
) -> Result<(), Failure> {
    let loading = Instant::now();
    let bytes = std::fs::read(path).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
    let device = Backend::Ndarray.inference_device().map_err(usage)?;
    let model = LanguageModel::load(&bytes, &device, Numerics::LlamaCpp)
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    let load_seconds = loading.elapsed().as_secs_f64();
    let mut generation = if ignore_eos {
        Generation::new(model.prompt(messages).map_err(usage)?, sampling, max_tokens, Vec::new())
    } else {
        model.reply(messages, sampling, max_tokens).map_err(usage)?
    };
    let started = Instant::now();
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
                "load_seconds": load_seconds,
                // The first step reads the whole prompt and draws the first token.
                "prompt_tokens_per_second": first_token_at
                    .map(|at| generation.prompt_tokens as f64 / (at - started).as_secs_f64().max(1e-9)),
            })
        );
    }
    Ok(())
}

/// What `tune` is asked for.
struct TuneArgs<'a> {
    model: &'a Path,
    chats: &'a Path,
    steps: usize,
    learning_rate: f64,
    lora: LoraParams,
    seed: u64,
    out: &'a Path,
    matrices: TensorType,
    json: bool,
}

fn tune(args: &TuneArgs) -> Result<(), Failure> {
    let chats: Vec<Vec<Message>> = serde_json::from_str(&read_text(args.chats)?).map_err(|e| {
        usage(format!("{}: not a list of chats ([[{{\"role\": …, \"content\": …}}, …], …]): {e}", args.chats.display()))
    })?;
    if chats.is_empty() {
        return Err(usage(format!("{}: no chats", args.chats.display())));
    }
    let bytes = std::fs::read(args.model).map_err(|e| io_failure(format!("{}: {e}", args.model.display())))?;
    let device = Backend::Ndarray.device().map_err(usage)?;
    let model = LanguageModel::load(&bytes, &device, Numerics::F32)
        .map_err(|e| usage(format!("{}: {e}", args.model.display())))?;
    let examples = chats
        .iter()
        .enumerate()
        .map(|(i, chat)| {
            Example::of(&model, chat).map_err(|e| usage(format!("{}: chat {i}: {e}", args.chats.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut rng = RunRng::seed_from_u64(args.seed);
    let mut model = model.with_lora(&args.lora, &mut rng);
    let mean_loss = |transformer: &Transformer| {
        examples.iter().map(|e| reply_loss(transformer, e).into_scalar::<f32>()).sum::<f32>() / examples.len() as f32
    };
    let loss_before = mean_loss(&model.transformer);
    let mut fine_tune = FineTune::new(args.learning_rate);
    let bar = progress_bar(args.steps as u64, "steps");
    for step in 0..args.steps {
        let (transformer, loss) = fine_tune.step(model.transformer, &examples[step % examples.len()]);
        model.transformer = transformer;
        bar.inc(1);
        bar.set_message(format!("loss {loss:.3}"));
    }
    bar.finish_and_clear();
    let loss_after = mean_loss(&model.transformer);
    let file = model.to_gguf(args.matrices);
    std::fs::write(args.out, &file).map_err(|e| io_failure(format!("{}: {e}", args.out.display())))?;
    println!(
        "{} steps: the replies' mean loss {loss_before:.3} → {loss_after:.3}; wrote {} ({:.1} MB, {})",
        args.steps,
        args.out.display(),
        file.len() as f64 / 1e6,
        args.matrices.name()
    );
    if args.json {
        println!(
            "{}",
            json!({
                "steps": args.steps,
                "loss_before": loss_before,
                "loss_after": loss_after,
                "out": args.out.display().to_string(),
                "bytes": file.len(),
            })
        );
    }
    Ok(())
}

/// The pass@1 of the model in `bytes` on `tasks`, its replies written on the CPU with llama.cpp's
/// numerics and its programs run by python3, one interpreter each.
pub(crate) fn pass_at_1(bytes: &[u8], tasks: Vec<CoderTask>, spec: PassAt1Spec) -> Result<PassAt1Report, Failure> {
    let device = Backend::Ndarray.inference_device().map_err(usage)?;
    let model = LanguageModel::load(bytes, &device, Numerics::LlamaCpp).map_err(usage)?;
    let mut run = ModelPassAt1::new(model, tasks, spec);
    let bar = progress_bar(run.progress().1 as u64, "programs");
    let mut python = NativePython::start().map_err(io_failure)?;
    let driven = Host::without_llm(&mut python)
        .with_jobs(jobs_or_cores(None))
        .drive(&mut run, |r| bar.set_position(r.progress().0 as u64));
    bar.finish_and_clear();
    driven.map_err(io_failure)?;
    match (run.report(), &run.error) {
        (Some(report), _) => Ok(report),
        (None, error) => Err(usage(error.clone().unwrap_or_else(|| "the measurement did not finish".to_owned()))),
    }
}

fn print_pass_at_1(report: &PassAt1Report, json: bool) {
    for result in &report.results {
        let outcome = result.outcome.map_or("not run".to_owned(), |o| format!("{o:?}"));
        println!(
            "{:<28} {:<9} {}",
            result.id,
            result.split.name(),
            if result.passed { "pass".to_owned() } else { outcome }
        );
    }
    for split in &report.splits {
        println!(
            "{}: {} of {} programs passed ({:.1}%) on {} tasks",
            split.split.name(),
            split.passed,
            split.programs,
            100.0 * split.share(),
            split.tasks
        );
    }
    if json {
        println!("{}", serde_json::to_string(report).expect("reports serialise"));
    }
}
