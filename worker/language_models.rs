//! The engine's language models in the training worker (`engine::lm`): the GGUF files the page
//! posts, loaded as llama.cpp computes them ([`Numerics::LlamaCpp`]) on burn's CPU backend here, or
//! in f32 on WebGPU in the nested worker (`relay.rs` sends it those), and their replies. Each reply is
//! written by a task of its own that awaits every token (WebGPU cannot block on its values) and
//! lets the worker's other messages and the runs' slices in every few milliseconds; its draws come
//! from a stream of its own, seeded by the request.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::{Rc, Weak};

use engine::device::Backend;
use engine::lm::chat_template::Message;
use engine::lm::generation::{Generation, Sampling};
use engine::lm::gguf::Gguf;
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::protocol::{FromWorker, GenerateRequest, NextLogits, Reply};
use engine::rng::RunRng;
use futures_channel::oneshot;
use rand::SeedableRng;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

use crate::trainer::{Trainer, WebGpu, now, post};

/// Milliseconds a reply is written between the times it lets the worker's event loop run.
const WRITE_MS: f64 = 10.0;

#[derive(Default)]
pub(crate) struct LanguageModels {
    models: HashMap<u32, Rc<LanguageModel>>,
    /// Replies asked to stop, by request id: their tasks end them after the current token.
    stopping: HashSet<u32>,
}

impl LanguageModels {
    /// Loads `bytes` as model `model_id` on `backend`: what the model is, or why it does not load.
    pub(crate) fn load(&mut self, model_id: u32, name: &str, bytes: &[u8], backend: Backend) -> FromWorker {
        self.models.remove(&model_id);
        let loaded = Gguf::parse(bytes).and_then(|gguf| gguf.describe()).and_then(|described| {
            // llama.cpp's rounding of a product's activations (for F16 and quantised weights) is
            // done on the host, which WebGPU cannot wait for: there the engine computes in f32.
            let numerics = if backend == Backend::Wgpu { Numerics::F32 } else { Numerics::LlamaCpp };
            let model = LanguageModel::load(bytes, &backend.inference_device()?, numerics)?;
            self.models.insert(model_id, Rc::new(model));
            Ok(described)
        });
        FromWorker::ModelLoaded { model_id, result: loaded.map_err(|problem| format!("{name}: {problem}")) }
    }

    pub(crate) fn stop(&mut self, request_id: u32) {
        self.stopping.insert(request_id);
    }

    fn model(&self, model_id: u32) -> Result<Rc<LanguageModel>, String> {
        self.models
            .get(&model_id)
            .cloned()
            .ok_or_else(|| format!("no language model {model_id} is loaded in the worker"))
    }
}

impl Trainer {
    /// Starts a reply's task, or says at once why it cannot be written.
    pub(crate) fn generate(&mut self, request: GenerateRequest) {
        let request_id = request.request_id;
        let started = self.models.model(request.model_id).and_then(|model| {
            let prompt = model.prompt(&request.messages).map_err(|p| format!("the prompt: {p}"))?;
            let ends = if request.ignore_eos { Vec::new() } else { model.tokenizer.end_of_generation.clone() };
            let generation = Generation::new(prompt, request.sampling, request.max_tokens as usize, ends);
            Ok((model, generation))
        });
        match started {
            Ok((model, generation)) => {
                let rng = RunRng::seed_from_u64(request.seed);
                wasm_bindgen_futures::spawn_local(write_reply(self.this.clone(), request_id, model, generation, rng));
            }
            Err(problem) => self.post(FromWorker::GenerationEnded { request_id, result: Err(problem) }),
        }
    }

    /// The next token's logits after `messages`' prompt, posted when they come.
    pub(crate) fn next_logits(&mut self, request_id: u32, model_id: u32, messages: Vec<Message>) {
        let model = self.models.model(model_id);
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

    /// Loads a model file the page posted: read and loaded here on the CPU; on WebGPU, in the
    /// nested worker (the CPU worker relays it there) once WebGPU is up.
    pub(crate) fn load_model_file(&mut self, model_id: u32, name: String, backend: Backend, file: web_sys::Blob) {
        wasm_bindgen_futures::spawn_local(load_file(self.this.clone(), model_id, name, backend, file));
    }
}

async fn load_file(
    trainer: Weak<RefCell<Trainer>>,
    model_id: u32,
    name: String,
    backend: Backend,
    file: web_sys::Blob,
) {
    let scope = js_sys::global().unchecked_into::<DedicatedWorkerGlobalScope>();
    let fail =
        |problem: String| post(&scope, FromWorker::ModelLoaded { model_id, result: Err(format!("{name}: {problem}")) });
    if backend == Backend::Wgpu
        && let Err(why) = webgpu_settled(&trainer).await
    {
        return fail(format!("this browser offers no WebGPU ({why}); choose the engine on the CPU"));
    }
    // The CPU worker has the nested worker load a model for WebGPU, and keeps the others' requests.
    #[cfg(not(feature = "wgpu"))]
    if let Some(trainer) = trainer.upgrade() {
        let relay = &mut trainer.borrow_mut().relay;
        if backend == Backend::Wgpu {
            return relay.send_model(model_id, &name, file, &scope);
        }
        relay.forget_model(model_id);
    }
    match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
        Ok(buffer) => {
            let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
            let Some(trainer) = trainer.upgrade() else { return };
            let answer = trainer.borrow_mut().models.load(model_id, &name, &bytes, backend);
            post(&scope, answer);
        }
        Err(error) => fail(format!("the file could not be read in the worker: {error:?}")),
    }
}

/// Waits for this worker's WebGPU to come up, or says why it did not.
async fn webgpu_settled(trainer: &Weak<RefCell<Trainer>>) -> Result<(), String> {
    loop {
        let Some(strong) = trainer.upgrade() else { return Err("the worker ended".into()) };
        match &strong.borrow().webgpu {
            WebGpu::Ready => return Ok(()),
            WebGpu::Unavailable(why) => return Err(why.clone()),
            WebGpu::Pending => {}
        }
        drop(strong);
        gloo_timers::future::TimeoutFuture::new(50).await;
    }
}

/// Writes one reply token by token, sending its text every few milliseconds, until it ends, is
/// stopped, or fails; then its end. The trainer is never borrowed across an await.
async fn write_reply(
    trainer: Weak<RefCell<Trainer>>,
    request_id: u32,
    model: Rc<LanguageModel>,
    mut generation: Generation,
    mut rng: RunRng,
) {
    let scope = js_sys::global().unchecked_into::<DedicatedWorkerGlobalScope>();
    let started_ms = now(&scope);
    let (mut first_token_ms, mut sent, mut slice_start) = (None, 0, started_ms);
    let ended = loop {
        let Some(strong) = trainer.upgrade() else { return };
        let asked = strong.borrow_mut().models.stopping.remove(&request_id);
        drop(strong);
        if asked {
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
    let result = ended.map(|stop| Reply {
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

/// Lets the worker's event loop run (the page's messages, the runs' slices) before the reply goes
/// on: a message through a channel of its own, which unlike `setTimeout(0)` is never clamped to 4 ms.
async fn yield_to_event_loop() {
    let Ok(channel) = MessageChannel::new() else {
        return gloo_timers::future::TimeoutFuture::new(0).await;
    };
    let (done, heard) = oneshot::channel::<()>();
    let on_message = Closure::once(move |_: MessageEvent| {
        let _ = done.send(());
    });
    channel.port1().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    if channel.port2().post_message(&JsValue::NULL).is_ok() {
        let _ = heard.await;
    }
}
