//! LoRA on the engine's language model (issue 69): adapters on a frozen base train by burn's
//! autodiff, the base alone stays the reference, and the adapted model written as GGUF (the update
//! merged into the weights) loads with the adapted model's logits.

use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use engine::lm::kv_cache::KvCache;
use engine::lm::language_model::LanguageModel;
use engine::lm::lora::LoraParams;
use engine::lm::model::{Numerics, Transformer, Weights};
use engine::lm::quants::TensorType;
use engine::rng::RunRng;
use rand::SeedableRng;

fn fixture() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/fixtures/tiny-coder.gguf")).unwrap()
}

/// Logits `[time, vocabulary]` of `tokens` from an empty cache.
fn logits(model: &Transformer, tokens: &[u32], weights: Weights) -> Tensor<2> {
    let time = tokens.len();
    let ids = Tensor::<2, Int>::from_data(
        TensorData::new(tokens.iter().map(|&t| i64::from(t)).collect(), [1, time]),
        &model.device(),
    );
    let hidden = model.hidden(ids, &mut KvCache::default(), weights);
    model.logits(hidden.reshape([time, model.config.embedding]))
}

/// The mean negative log-likelihood of each next token.
fn loss(model: &Transformer, tokens: &[u32]) -> Tensor<1> {
    let time = tokens.len() - 1;
    let log_probabilities = log_softmax(logits(model, &tokens[..time], Weights::Adapted), 1);
    let targets: Vec<i64> = tokens[1..].iter().map(|&t| i64::from(t)).collect();
    let targets = Tensor::<2, Int>::from_data(TensorData::new(targets, [time, 1]), &model.device());
    -log_probabilities.gather(1, targets).mean()
}

fn values(tensor: Tensor<2>) -> Vec<f32> {
    tensor.into_data().try_into_vec::<f32>().unwrap()
}

#[test]
fn lora_trains_on_a_frozen_base_and_merges_into_the_file() {
    #[allow(deprecated)]
    let device = Device::ndarray().autodiff();
    let base = LanguageModel::load(&fixture(), &device, Numerics::F32).unwrap();
    let text = "def shout(word):\n    return word.upper() + '!'\n";
    let tokens = base.tokenizer.encode(text, false).unwrap();
    let base_logits = values(logits(&base.transformer, &tokens, Weights::Adapted));

    let mut rng = RunRng::seed_from_u64(1);
    let mut model = base.with_lora(&LoraParams::default(), &mut rng);
    // B starts at zero: the adapted model is the base until it trains.
    assert_eq!(values(logits(&model.transformer, &tokens, Weights::Adapted)), base_logits);

    let mut optimizer = AdamConfig::new().init();
    let first: f32 = loss(&model.transformer, &tokens).into_scalar();
    for _ in 0..8 {
        let loss = loss(&model.transformer, &tokens);
        let grads = GradientsParams::from_grads(loss.backward(), &model.transformer);
        model.transformer = optimizer.step(1e-2, model.transformer, grads);
    }
    let last: f32 = loss(&model.transformer, &tokens).into_scalar();
    assert!(last < first * 0.8, "eight Adam steps took the loss from {first} to {last}");
    // Only the adapters moved: the base alone still gives the base's logits.
    assert_eq!(values(logits(&model.transformer, &tokens, Weights::Base)), base_logits);

    let adapted = values(logits(&model.transformer, &tokens, Weights::Adapted));
    let written = LanguageModel::load(&model.to_gguf(TensorType::F32), &device, Numerics::F32).unwrap();
    let merged = values(logits(&written.transformer, &tokens, Weights::Adapted));
    let worst = adapted.iter().zip(&merged).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(worst < 1e-3, "the merged file's logits differ from the adapted model's by {worst}");
}
