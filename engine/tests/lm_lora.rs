//! LoRA on the engine's language model (issue 69): adapters on a frozen base train by burn's
//! autodiff on a reply (`lm::fine_tune`), the base alone stays the reference, and the adapted model
//! written as GGUF (the update merged into the weights) loads with the adapted model's logits.

mod lm_fixtures;

use burn::tensor::{Device, Int, Tensor, TensorData};
use engine::lm::chat_template::Message;
use engine::lm::fine_tune::{Example, FineTune, reply_loss};
use engine::lm::kv_cache::KvCache;
use engine::lm::language_model::LanguageModel;
use engine::lm::lora::LoraParams;
use engine::lm::model::{Numerics, Transformer, Weights};
use engine::lm::quants::TensorType;
use engine::rng::RunRng;
use lm_fixtures::fixture;
use rand::SeedableRng;

/// Logits `[time, vocabulary]` of `tokens` from an empty cache.
fn logits(model: &Transformer, tokens: &[u32], weights: Weights) -> Vec<f32> {
    let time = tokens.len();
    let ids = TensorData::new(tokens.iter().map(|&t| i64::from(t)).collect(), [1, time]);
    let hidden = model.hidden(Tensor::<2, Int>::from_data(ids, &model.device()), &mut KvCache::default(), weights);
    model.logits(hidden.reshape([time, model.config.embedding])).into_data().try_into_vec::<f32>().unwrap()
}

#[test]
fn lora_trains_on_a_frozen_base_and_merges_into_the_file() {
    #[allow(deprecated)]
    let device = Device::ndarray().autodiff();
    let bytes = std::fs::read(fixture("tiny-coder.gguf")).unwrap();
    let base = LanguageModel::load(&bytes, &device, Numerics::F32).unwrap();
    let chat = [
        Message { role: "user".into(), content: "Shout the word.".into() },
        Message { role: "assistant".into(), content: "def shout(word):\n    return word.upper() + '!'\n".into() },
    ];
    let example = Example::of(&base, &chat).unwrap();
    let tokens: Vec<u32> = example.prompt.iter().chain(&example.reply).copied().collect();
    let base_logits = logits(&base.transformer, &tokens, Weights::Adapted);

    let mut rng = RunRng::seed_from_u64(1);
    let mut model = base.with_lora(&LoraParams::default(), &mut rng);
    // B starts at zero: the adapted model is the base until it trains.
    assert_eq!(logits(&model.transformer, &tokens, Weights::Adapted), base_logits);

    let first: f32 = reply_loss(&model.transformer, &example).into_scalar();
    let mut fine_tune = FineTune::new(1e-2);
    for _ in 0..8 {
        model.transformer = fine_tune.step(model.transformer, &example).0;
    }
    let last: f32 = reply_loss(&model.transformer, &example).into_scalar();
    assert!(last < first * 0.8, "eight Adam steps took the reply's loss from {first} to {last}");
    // Only the adapters moved: the base alone still gives the base's logits.
    assert_eq!(logits(&model.transformer, &tokens, Weights::Base), base_logits);

    let adapted = logits(&model.transformer, &tokens, Weights::Adapted);
    let written = LanguageModel::load(&model.to_gguf(TensorType::F32), &device, Numerics::F32).unwrap();
    let merged = logits(&written.transformer, &tokens, Weights::Adapted);
    let worst = adapted.iter().zip(&merged).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(worst < 1e-3, "the merged file's logits differ from the adapted model's by {worst}");
}

#[test]
fn a_chat_to_learn_ends_with_the_reply() {
    let model = lm_fixtures::load("tiny-coder.gguf");
    let chat = [Message { role: "user".into(), content: "Hi".into() }];
    assert_eq!(Example::of(&model, &chat).unwrap_err(), "a chat to learn ends with the assistant's reply");
}
