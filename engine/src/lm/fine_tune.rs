//! Supervised fine-tuning of a model's LoRA adapters on chats whose last message is the reply to
//! learn: the mean negative log-likelihood of the reply's tokens (and the end-of-turn token after
//! them) given the prompt, as the file's chat template formats it, minimised by Adam. The base stays
//! frozen (`Transformer::with_lora`), so the trained model is the base plus the adapters.

use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Int, Tensor, TensorData};

use crate::lm::chat_template::Message;
use crate::lm::kv_cache::KvCache;
use crate::lm::language_model::LanguageModel;
use crate::lm::model::{Transformer, Weights};

/// One chat to learn: the prompt's tokens and the reply's, the end-of-turn token included.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub prompt: Vec<u32>,
    pub reply: Vec<u32>,
}

impl Example {
    /// `chat`'s last message is the assistant's reply to learn; the ones before it are the prompt.
    pub fn of(model: &LanguageModel, chat: &[Message]) -> Result<Self, String> {
        let Some((reply, prompt)) = chat.split_last().filter(|(last, _)| last.role == "assistant") else {
            return Err("a chat to learn ends with the assistant's reply".into());
        };
        let mut reply_tokens = model.tokenizer.encode(&reply.content, false)?;
        reply_tokens.extend(model.tokenizer.end_of_generation.last());
        Ok(Self { prompt: model.prompt(prompt)?, reply: reply_tokens })
    }
}

/// Adam on the adapters, one example a step.
pub struct FineTune {
    optimizer: ModuleOptimizer,
    learning_rate: f64,
}

impl FineTune {
    pub fn new(learning_rate: f64) -> Self {
        Self { optimizer: AdamConfig::new().init(), learning_rate }
    }

    /// One Adam step on `example`; returns the model and the loss before the step.
    pub fn step(&mut self, model: Transformer, example: &Example) -> (Transformer, f32) {
        let loss = reply_loss(&model, example);
        let value = loss.clone().into_scalar::<f32>();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        (self.optimizer.step(self.learning_rate, model, grads), value)
    }
}

/// The mean negative log-likelihood of `example`'s reply given its prompt.
pub fn reply_loss(model: &Transformer, example: &Example) -> Tensor<1> {
    let tokens: Vec<i64> = example.prompt.iter().chain(&example.reply).map(|&t| i64::from(t)).collect();
    // Position i predicts token i + 1: the reply's tokens are predicted from the prompt's last on.
    let inputs = tokens.len() - 1;
    let device = model.device();
    let ids = Tensor::<2, Int>::from_data(TensorData::new(tokens[..inputs].to_vec(), [1, inputs]), &device);
    let hidden = model.hidden(ids, &mut KvCache::default(), Weights::Adapted);
    let first = example.prompt.len() - 1;
    let predicting =
        hidden.narrow(1, first, example.reply.len()).reshape([example.reply.len(), model.config.embedding]);
    let log_probabilities = log_softmax(model.logits(predicting), 1);
    let targets: Vec<i64> = example.reply.iter().map(|&t| i64::from(t)).collect();
    let targets = Tensor::<2, Int>::from_data(TensorData::new(targets, [example.reply.len(), 1]), &device);
    -log_probabilities.gather(1, targets).mean()
}
