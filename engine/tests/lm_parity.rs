//! The engine's language model against llama.cpp's own numbers (issue 69). `scripts/tiny-model/
//! reference.py` ran llama.cpp (llama-cpp-python) once on the fixture files and recorded, per file
//! and chat, the prompt its Jinja formatted, the prompt's tokens, the logits after them, and greedy
//! generation; the engine must format and tokenise the same, and for the fixture (F32 and Q8_0, and
//! as the engine tuned and wrote it), the Qwen2-shaped model in F16 and the small code model that
//! StepCoder trains (`models/rlcg-coder.gguf`, Qwen2 in F16), give logits within 1e-3 of
//! their scale (the largest magnitude among them), the same argmax and the same greedy tokens. The Qwen2-shaped model in Q8_0 and
//! Q4_K_M is not there yet: its logits differ by up to 1.7% of their scale (docs/guide.md, "The
//! engine's language model"), and that measured gap is what its tests hold, so that it cannot grow.

mod lm_fixtures;

use engine::lm::chat_template::Message;
use engine::lm::generation::{Generation, Sampling};
use engine::rng::RunRng;
use lm_fixtures::{fixture, load};
use rand::SeedableRng;
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    files: Vec<FileReference>,
}

#[derive(Deserialize)]
struct FileReference {
    file: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    messages: Vec<Message>,
    prompt: String,
    tokens: Vec<u32>,
    logits: Vec<f32>,
    greedy: Vec<u32>,
}

/// What the engine is held to on a file.
#[derive(Clone, Copy, PartialEq)]
enum Held {
    /// llama.cpp's numbers: logits within 1e-3 of their scale, its argmax and its greedy reply.
    Exactly,
    /// An open gap: logits within this share of their scale (the largest difference measured).
    WithinMeasuredGap(f32),
}

/// Every check on one file's recorded chats.
fn matches_llama_cpp(name: &str, held: Held) {
    let reference: Reference =
        serde_json::from_str(&std::fs::read_to_string(fixture("llama-cpp-reference.json")).unwrap()).unwrap();
    let recorded = reference.files.iter().find(|f| f.file == name).unwrap_or_else(|| panic!("no reference for {name}"));
    let model = load(name);
    let mut rng = RunRng::seed_from_u64(0);
    for (index, case) in recorded.cases.iter().enumerate() {
        let prompt = model.template.render(&case.messages).unwrap();
        assert_eq!(prompt, case.prompt, "{name}, chat {index}: the chat template's prompt");
        let tokens = model.prompt(&case.messages).unwrap();
        assert_eq!(tokens, case.tokens, "{name}, chat {index}: the prompt's tokens");

        let mut generation =
            Generation::new(tokens, Sampling::GREEDY, case.greedy.len(), model.tokenizer.end_of_generation.clone());
        let logits = generation.next_logits(&model.transformer);
        let scale = case.logits.iter().fold(0f32, |m, l| m.max(l.abs()));
        let allowed = match held {
            Held::Exactly => 1e-3 * scale,
            Held::WithinMeasuredGap(share) => share * scale,
        };
        let (worst, at) = logits
            .iter()
            .zip(&case.logits)
            .enumerate()
            .map(|(i, (a, b))| ((a - b).abs(), i))
            .fold((0f32, 0), |w, d| if d.0 > w.0 { d } else { w });
        // The figure the issue notes report: the largest difference as a share of the logits' scale.
        eprintln!("{name}, chat {index}: largest difference {:.2e} of the logits' scale", worst / scale);
        assert!(
            worst <= allowed,
            "{name}, chat {index}: logit {at} is {} against llama.cpp's {} (difference {worst}, allowed {allowed})",
            logits[at],
            case.logits[at],
        );
        if held != Held::Exactly {
            continue;
        }
        assert_eq!(argmax(&logits), argmax(&case.logits), "{name}, chat {index}: the most likely token");

        let mut generation = model.reply(&case.messages, Sampling::GREEDY, case.greedy.len()).unwrap();
        while generation.step(&model.transformer, &mut rng).is_some() {}
        assert_eq!(generation.reply, case.greedy, "{name}, chat {index}: greedy generation");
    }
}

fn argmax(values: &[f32]) -> usize {
    values.iter().enumerate().fold((0, f32::NEG_INFINITY), |b, (i, &v)| if v > b.1 { (i, v) } else { b }).0
}

#[test]
fn llama_f32_fixture_matches_llama_cpp() {
    matches_llama_cpp("tiny-coder.gguf", Held::Exactly);
}

#[test]
fn llama_q8_0_matches_llama_cpp() {
    matches_llama_cpp("tiny-coder-q8_0.gguf", Held::Exactly);
}

#[test]
fn qwen2_f16_with_grouped_query_attention_and_tied_output_matches_llama_cpp() {
    matches_llama_cpp("qwen2-tiny-f16.gguf", Held::Exactly);
}

#[test]
fn qwen2_q8_0_stays_within_its_measured_gap() {
    matches_llama_cpp("qwen2-tiny-q8_0.gguf", Held::WithinMeasuredGap(0.012));
}

#[test]
fn qwen2_q4_k_m_stays_within_its_measured_gap() {
    matches_llama_cpp("qwen2-tiny-q4_k_m.gguf", Held::WithinMeasuredGap(0.017));
}

#[test]
fn a_file_the_engine_trained_and_wrote_is_what_llama_cpp_runs() {
    matches_llama_cpp("tiny-coder-tuned.gguf", Held::Exactly);
}

#[test]
fn the_small_code_model_that_stepcoder_trains_is_what_llama_cpp_runs() {
    // models/rlcg-coder.gguf: Qwen2's architecture in F16, trained by scripts/code-model/make.py.
    matches_llama_cpp("rlcg-coder.gguf", Held::Exactly);
}
