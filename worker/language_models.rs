//! The engine's language models in the training worker (`engine::lm`): the GGUF files the page
//! posts, loaded as llama.cpp computes them ([`Numerics::LlamaCpp`]) on burn's CPU backend here, or
//! in f32 on WebGPU in the nested worker (`relay.rs` sends it those), and their replies. Each reply is
//! written by a task of its own that awaits every token (WebGPU cannot block on its values) and
//! lets the worker's other messages and the runs' slices in every few milliseconds; its draws come
//! from a stream of its own, seeded by the request.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use engine::device::Backend;
use engine::lm::chat_template::Message;
use engine::lm::generation::{Generation, Sampling};
use engine::lm::gguf::Gguf;
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::protocol::{FromWorker, GenerateRequest, ModelReply, NextLogits};
use engine::rng::RunRng;
use rand::SeedableRng;
use web_sys::DedicatedWorkerGlobalScope;

use crate::page_link::{now, post, yield_to_event_loop};

/// Milliseconds a reply is written between the times it lets the worker's event loop run.
const WRITE_MS: f64 = 10.0;

/// The worker's language models, shared with the tasks writing their replies (which never hold
/// them across an await).
#[derive(Clone)]
pub(crate) struct LanguageModels {
    scope: DedicatedWorkerGlobalScope,
    held: Rc<RefCell<Held>>,
}

#[derive(Default)]
struct Held {
    models: HashMap<u32, Rc<LanguageModel>>,
    /// Replies asked to stop, by request id: their tasks end them after the current token.
    stopping: HashSet<u32>,
}

impl LanguageModels {
    pub(crate) fn new(scope: DedicatedWorkerGlobalScope) -> Self {
        Self { scope, held: Rc::default() }
    }

    /// Reads `file` and loads it as model `model_id` on `backend`, then tells the page what the
    /// model is or why it does not load.
    pub(crate) async fn load_file(&self, model_id: u32, name: &str, backend: Backend, file: web_sys::Blob) {
        match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => {
                let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                post(&self.scope, self.load(model_id, name, &bytes, backend));
            }
            Err(error) => self.refuse(model_id, name, &format!("the file could not be read in the worker: {error:?}")),
        }
    }

    /// Loads `bytes` as model `model_id` on `backend`: what the model is, or why it does not load.
    pub(crate) fn load(&self, model_id: u32, name: &str, bytes: &[u8], backend: Backend) -> FromWorker {
        let mut held = self.held.borrow_mut();
        held.models.remove(&model_id);
        let loaded = Gguf::parse(bytes).and_then(|gguf| gguf.describe()).and_then(|described| {
            // llama.cpp's rounding of a product's activations (for F16 and quantised weights) is
            // done on the host, which WebGPU cannot wait for: there the engine computes in f32.
            let numerics = if backend == Backend::Wgpu { Numerics::F32 } else { Numerics::LlamaCpp };
            let model = LanguageModel::load(bytes, &backend.inference_device()?, numerics)?;
            held.models.insert(model_id, Rc::new(model));
            Ok(described)
        });
        FromWorker::ModelLoaded { model_id, result: loaded.map_err(|problem| format!("{name}: {problem}")) }
    }

    /// Tells the page that model `model_id` (the file `name`) does not load, and why.
    pub(crate) fn refuse(&self, model_id: u32, name: &str, problem: &str) {
        post(&self.scope, FromWorker::ModelLoaded { model_id, result: Err(format!("{name}: {problem}")) });
    }

    pub(crate) fn stop(&self, request_id: u32) {
        self.held.borrow_mut().stopping.insert(request_id);
    }

    /// Starts a reply's task, or says at once why it cannot be written.
    pub(crate) fn generate(&self, request: GenerateRequest) {
        let request_id = request.request_id;
        let started = self.model(request.model_id).and_then(|model| {
            let prompt = model.prompt(&request.messages).map_err(|p| format!("the prompt: {p}"))?;
            let ends = if request.ignore_eos { Vec::new() } else { model.tokenizer.end_of_generation.clone() };
            let generation = Generation::new(prompt, request.sampling, request.max_tokens as usize, ends);
            Ok((model, generation))
        });
        match started {
            Ok((model, generation)) => {
                let rng = RunRng::seed_from_u64(request.seed);
                wasm_bindgen_futures::spawn_local(write_reply(self.clone(), request_id, model, generation, rng));
            }
            Err(problem) => post(&self.scope, FromWorker::GenerationEnded { request_id, result: Err(problem) }),
        }
    }

    /// The next token's logits after `messages`' prompt, posted when they come.
    pub(crate) fn next_logits(&self, request_id: u32, model_id: u32, messages: Vec<Message>) {
        let model = self.model(model_id);
        let scope = self.scope.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = match model
                .and_then(|model| Ok((model.template.render(&messages)?, model.prompt(&messages)?, model)))
            {
                Ok((prompt, tokens, model)) => {
                    let mut generation = Generation::new(tokens.clone(), Sampling::GREEDY, 1, Vec::new());
                    generation.next_logits_async(&model.transformer).await.map(|logits| NextLogits {
                        prompt,
                        tokens,
                        logits,
                    })
                }
                Err(problem) => Err(problem),
            };
            post(&scope, FromWorker::Logits { request_id, result });
        });
    }

    fn model(&self, model_id: u32) -> Result<Rc<LanguageModel>, String> {
        self.held
            .borrow()
            .models
            .get(&model_id)
            .cloned()
            .ok_or_else(|| format!("no language model {model_id} is loaded in the worker"))
    }

    /// Whether the page asked reply `request_id` to stop (and forgets that it did).
    fn asked_to_stop(&self, request_id: u32) -> bool {
        self.held.borrow_mut().stopping.remove(&request_id)
    }
}

/// Writes one reply token by token, sending its text every few milliseconds, until it ends, is
/// stopped, or fails; then its end.
async fn write_reply(
    models: LanguageModels,
    request_id: u32,
    model: Rc<LanguageModel>,
    mut generation: Generation,
    mut rng: RunRng,
) {
    let scope = models.scope.clone();
    let started_ms = now(&scope);
    let (mut first_token_ms, mut sent, mut slice_start) = (None, 0, started_ms);
    let ended = loop {
        if models.asked_to_stop(request_id) {
            break Ok("stopped");
        }
        match generation.step_async(&model.transformer, &mut rng).await {
            Ok(token) => {
                first_token_ms.get_or_insert_with(|| now(&scope));
                if token.is_none() {
                    break Ok(generation.stopped.map_or("stopped", |stop| stop.name()));
                }
            }
            Err(problem) => break Err(problem),
        }
        if now(&scope) - slice_start >= WRITE_MS {
            sent = send_new_text(&scope, request_id, &model, &generation, sent);
            yield_to_event_loop().await;
            slice_start = now(&scope);
        }
    };
    send_new_text(&scope, request_id, &model, &generation, sent);
    let end_ms = now(&scope);
    let first = first_token_ms.unwrap_or(end_ms);
    let result = ended.map(|stop| ModelReply {
        text: model.tokenizer.decode(&generation.reply),
        tokens: generation.reply.clone(),
        prompt_tokens: generation.prompt_tokens as u32,
        stop: stop.to_owned(),
        prompt_ms: first - started_ms,
        writing_ms: end_ms - first,
    });
    post(&scope, FromWorker::GenerationEnded { request_id, result });
}

/// Sends the reply's text written since `sent` bytes, whole characters only (a token may end
/// inside one); returns the bytes sent in all.
fn send_new_text(
    scope: &DedicatedWorkerGlobalScope,
    request_id: u32,
    model: &LanguageModel,
    generation: &Generation,
    sent: usize,
) -> usize {
    let text = model.tokenizer.decode(&generation.reply);
    let whole = text.trim_end_matches(char::REPLACEMENT_CHARACTER);
    if whole.len() > sent {
        let tokens = generation.reply.len() as u32;
        post(scope, FromWorker::Generated { request_id, text: whole[sent..].to_owned(), tokens });
    }
    whole.len().max(sent)
}
