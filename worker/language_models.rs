//! The engine's language models in the training worker (`engine::lm`, on burn's CPU backend): the
//! GGUF files the page posts, loaded as llama.cpp computes them ([`Numerics::LlamaCpp`]), and their
//! replies written a few tokens a slice, between the runs' slices, so that other requests (a stop,
//! a run's pause) are handled while a reply is written. Each reply's draws come from its own
//! stream, seeded by the request.

use std::collections::HashMap;

use engine::device::Backend;
use engine::lm::chat_template::Message;
use engine::lm::generation::{Generation, Sampling};
use engine::lm::gguf::Gguf;
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::protocol::{FromWorker, GenerateRequest, NextLogits, Reply};
use engine::rng::RunRng;
use rand::SeedableRng;

/// One reply being written.
struct Writing {
    request_id: u32,
    model_id: u32,
    generation: Generation,
    rng: RunRng,
    /// Bytes of the reply's text already sent.
    sent: usize,
    started_ms: f64,
    /// When the prompt was read and the first token drawn.
    first_token_ms: Option<f64>,
    stop_asked: bool,
}

#[derive(Default)]
pub(crate) struct LanguageModels {
    models: HashMap<u32, LanguageModel>,
    writing: Vec<Writing>,
}

impl LanguageModels {
    /// Loads `bytes` as model `model_id`: what the model is, or why it does not load.
    pub(crate) fn load(&mut self, model_id: u32, name: &str, bytes: &[u8]) -> FromWorker {
        self.models.remove(&model_id);
        let loaded = Gguf::parse(bytes).and_then(|gguf| gguf.describe()).and_then(|described| {
            let device = Backend::Ndarray.inference_device()?;
            let model = LanguageModel::load(bytes, &device, Numerics::LlamaCpp)?;
            self.models.insert(model_id, model);
            Ok(described)
        });
        FromWorker::ModelLoaded { model_id, result: loaded.map_err(|problem| format!("{name}: {problem}")) }
    }

    /// Starts writing a reply, or says at once why it cannot be written.
    pub(crate) fn generate(&mut self, request: GenerateRequest, now_ms: f64) -> Option<FromWorker> {
        let GenerateRequest { request_id, model_id, messages, sampling, max_tokens, seed } = request;
        let started = self.model(model_id).and_then(|model| {
            model.reply(&messages, sampling, max_tokens as usize).map_err(|p| format!("the prompt: {p}"))
        });
        match started {
            Ok(generation) => {
                self.writing.push(Writing {
                    request_id,
                    model_id,
                    generation,
                    rng: RunRng::seed_from_u64(seed),
                    sent: 0,
                    started_ms: now_ms,
                    first_token_ms: None,
                    stop_asked: false,
                });
                None
            }
            Err(problem) => Some(FromWorker::GenerationEnded { request_id, result: Err(problem) }),
        }
    }

    pub(crate) fn stop(&mut self, request_id: u32) {
        if let Some(writing) = self.writing.iter_mut().find(|w| w.request_id == request_id) {
            writing.stop_asked = true;
        }
    }

    pub(crate) fn next_logits(&self, request_id: u32, model_id: u32, messages: &[Message]) -> FromWorker {
        let result = self.model(model_id).and_then(|model| {
            let prompt = model.template.render(messages)?;
            let tokens = model.prompt(messages)?;
            let mut generation = Generation::new(tokens.clone(), Sampling::GREEDY, 1, Vec::new());
            Ok(NextLogits { prompt, tokens, logits: generation.next_logits(&model.transformer) })
        });
        FromWorker::Logits { request_id, result }
    }

    /// Replies are being written.
    pub(crate) fn has_work(&self) -> bool {
        !self.writing.is_empty()
    }

    /// Writes the replies for about `budget_ms` (at least a token each), then sends what each has
    /// written since the last slice and ends those that have stopped.
    pub(crate) fn write_for(&mut self, budget_ms: f64, now: &impl Fn() -> f64, post: &impl Fn(FromWorker)) {
        let start = now();
        let Self { models, writing } = self;
        for reply in writing.iter_mut() {
            let Some(model) = models.get(&reply.model_id) else {
                reply.stop_asked = true;
                continue;
            };
            while !reply.stop_asked && reply.generation.stopped.is_none() {
                reply.generation.step(&model.transformer, &mut reply.rng);
                reply.first_token_ms.get_or_insert_with(now);
                if now() - start >= budget_ms {
                    break;
                }
            }
            // Only whole characters are sent: a token may end inside one.
            let text = model.tokenizer.decode(&reply.generation.reply);
            let whole = text.trim_end_matches(char::REPLACEMENT_CHARACTER);
            if whole.len() > reply.sent {
                let tokens = reply.generation.reply.len() as u32;
                let text = whole[reply.sent..].to_owned();
                post(FromWorker::Generated { request_id: reply.request_id, text, tokens });
                reply.sent = whole.len();
            }
        }
        let end_ms = now();
        writing.retain_mut(|reply| {
            let ended = reply.stop_asked || reply.generation.stopped.is_some();
            if ended {
                post(FromWorker::GenerationEnded {
                    request_id: reply.request_id,
                    result: reply.summary(models, end_ms),
                });
            }
            !ended
        });
    }

    fn model(&self, model_id: u32) -> Result<&LanguageModel, String> {
        self.models.get(&model_id).ok_or_else(|| format!("no language model {model_id} is loaded in the worker"))
    }
}

impl Writing {
    fn summary(&self, models: &HashMap<u32, LanguageModel>, end_ms: f64) -> Result<Reply, String> {
        let model = models.get(&self.model_id).ok_or("the model was replaced while it wrote")?;
        let first = self.first_token_ms.unwrap_or(end_ms);
        Ok(Reply {
            text: model.tokenizer.decode(&self.generation.reply),
            tokens: self.generation.reply.clone(),
            prompt_tokens: self.generation.prompt_tokens as u32,
            stop: self.generation.stopped.map_or("stopped", |stop| stop.name()).to_owned(),
            prompt_ms: first - self.started_ms,
            writing_ms: end_ms - first,
        })
    }
}
