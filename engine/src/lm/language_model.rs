//! A GGUF file loaded whole: its tokenizer, its chat template and its transformer, and the reply to
//! a chat as llama.cpp's server writes it (the messages formatted by the file's template, the
//! prompt tokenised with its special tokens, generation until an end-of-generation token).

use std::collections::BTreeMap;

use burn::module::Module;
use burn::tensor::Device;

use crate::device::resolved;
use crate::lm::chat_template::{ChatTemplate, Message};
use crate::lm::generation::{Generation, Sampling};
use crate::lm::gguf::{Gguf, Value};
use crate::lm::gguf_writer;
use crate::lm::lora::LoraParams;
use crate::lm::model::{ModelConfig, Numerics, Transformer};
use crate::lm::quants::TensorType;
use crate::lm::tokenizer::Tokenizer;
use crate::rng::RunRng;

/// The memory a wasm32 page can address: a model's f32 weights must fit in it with room to spare.
const WASM_ADDRESSABLE_BYTES: u64 = 4 << 30;

pub struct LanguageModel {
    pub tokenizer: Tokenizer,
    /// The file's chat template; ChatML when it has none (llama.cpp's fallback).
    pub template: ChatTemplate,
    pub transformer: Transformer,
    /// The file's metadata, written back with the weights.
    metadata: BTreeMap<String, Value>,
}

/// llama.cpp's template when a file gives none (`LLM_CHAT_TEMPLATE_CHATML`).
const CHATML: &str = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

impl LanguageModel {
    /// The model in GGUF `bytes`, on `device`.
    pub fn load(bytes: &[u8], device: &Device, numerics: Numerics) -> Result<Self, String> {
        let gguf = Gguf::parse(bytes)?;
        let config = ModelConfig::from_gguf(&gguf)?;
        let needed = config.parameters() * 4;
        if cfg!(target_family = "wasm") && needed > WASM_ADDRESSABLE_BYTES / 2 {
            return Err(format!(
                "the model needs {:.1} GB as f32 weights; a page can address {:.0} GB in all",
                needed as f64 / 1e9,
                WASM_ADDRESSABLE_BYTES as f64 / 1e9
            ));
        }
        let tokenizer = Tokenizer::from_gguf(&gguf)?;
        let text = |id: Option<u32>| id.and_then(|id| tokenizer.text(id)).unwrap_or("").to_owned();
        let source = gguf.string("tokenizer.chat_template").unwrap_or(CHATML);
        let template = ChatTemplate::new(source, &text(tokenizer.bos), &text(tokenizer.eos))?;
        let transformer = Transformer::from_gguf(&gguf, bytes, device, numerics)?;
        Ok(Self { tokenizer, template, transformer, metadata: gguf.metadata })
    }

    /// The prompt's tokens for `messages`, as llama.cpp's server makes them.
    pub fn prompt(&self, messages: &[Message]) -> Result<Vec<u32>, String> {
        let text = self.template.render(messages)?;
        let mut tokens = self.tokenizer.encode(&text, true)?;
        if let Some(bos) = self.tokenizer.bos.filter(|_| self.tokenizer.add_bos) {
            tokens.insert(0, bos);
        }
        if tokens.is_empty() {
            return Err("the prompt has no tokens".into());
        }
        Ok(tokens)
    }

    /// A copy for inference alone, off any autodiff device: its replies keep no graph.
    pub fn valid(&self) -> Self {
        Self {
            tokenizer: self.tokenizer.clone(),
            template: self.template.clone(),
            transformer: self.transformer.valid(),
            metadata: self.metadata.clone(),
        }
    }

    /// The model frozen, with fresh LoRA adapters to train (`Transformer::with_lora`).
    pub fn with_lora(self, params: &LoraParams, rng: &mut RunRng) -> Self {
        Self { transformer: self.transformer.with_lora(params, rng), ..self }
    }

    /// The model as a GGUF file that llama.cpp loads: the same metadata and tokenizer, the weights
    /// (LoRA adapters merged) with matrices in `matrices`, F32 or F16.
    pub fn to_gguf(&self, matrices: TensorType) -> Vec<u8> {
        resolved(self.to_gguf_async(matrices))
    }

    /// [`Self::to_gguf`] on a device that cannot block on its values (WebGPU in a browser).
    pub async fn to_gguf_async(&self, matrices: TensorType) -> Result<Vec<u8>, String> {
        let mut metadata = self.metadata.clone();
        // llama_ftype: ALL_F32 or MOSTLY_F16; the quantisation's version no longer applies.
        let file_type = if matrices == TensorType::F16 { 1 } else { 0 };
        metadata.insert("general.file_type".into(), Value::U32(file_type));
        metadata.remove("general.quantization_version");
        Ok(gguf_writer::write(&metadata, &self.transformer.tensors(matrices).await?))
    }

    /// The reply to `messages`, to be drawn token by token.
    pub fn reply(&self, messages: &[Message], sampling: Sampling, max_tokens: usize) -> Result<Generation, String> {
        let prompt = self.prompt(messages)?;
        Ok(Generation::new(prompt, sampling, max_tokens, self.tokenizer.end_of_generation.clone()))
    }
}
