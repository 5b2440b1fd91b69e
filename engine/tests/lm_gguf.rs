//! GGUF in and out (issue 69): a file written back by the engine loads with the same logits, and a
//! bad file gets a message naming what is wrong.

mod lm_fixtures;

use engine::lm::chat_template::Message;
use engine::lm::generation::Sampling;
use engine::lm::gguf::{Gguf, Value};
use engine::lm::gguf_writer::{self, TensorOut};
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::lm::quants::TensorType;
use lm_fixtures::{cpu, fixture, load};

/// The fixture's metadata and tensors, as a file to edit.
fn fixture_parts() -> (Gguf, Vec<TensorOut>) {
    let bytes = std::fs::read(fixture("tiny-coder.gguf")).unwrap();
    let gguf = Gguf::parse(&bytes).unwrap();
    let tensors = gguf
        .tensors
        .iter()
        .map(|t| {
            let (shape, values) = gguf.read_f32(&bytes, &t.name).unwrap();
            TensorOut { name: t.name.clone(), shape, values, kind: TensorType::F32 }
        })
        .collect();
    (gguf, tensors)
}

fn load_error(bytes: &[u8]) -> String {
    match LanguageModel::load(bytes, &cpu(), Numerics::LlamaCpp) {
        Ok(_) => panic!("the file loaded"),
        Err(e) => e,
    }
}

#[test]
fn a_file_written_back_gives_the_same_logits() {
    let (gguf, tensors) = fixture_parts();
    let written = gguf_writer::write(&gguf.metadata, &tensors);
    let original = load("tiny-coder.gguf");
    let again = LanguageModel::load(&written, &cpu(), Numerics::LlamaCpp).unwrap();
    let messages = [Message { role: "user".into(), content: "def add(a, b):".into() }];
    let logits = |model: &LanguageModel| {
        let mut generation = model.reply(&messages, Sampling::GREEDY, 1).unwrap();
        generation.next_logits(&model.transformer)
    };
    assert_eq!(logits(&original), logits(&again));
}

#[test]
fn bad_files_say_what_is_wrong() {
    let bytes = std::fs::read(fixture("tiny-coder.gguf")).unwrap();
    assert_eq!(load_error(b""), "the file is empty");
    assert_eq!(load_error(b"<!doctype html>"), "not a GGUF file: it starts with \"<!do\", not \"GGUF\"");
    let truncated = load_error(&bytes[..bytes.len() / 2]);
    assert!(truncated.starts_with("truncated: tensor '"), "{truncated}");
    assert!(load_error(&bytes[..100]).starts_with("truncated: the file ends at byte 100 inside"));

    let (mut gguf, mut tensors) = fixture_parts();
    gguf.metadata.insert("general.architecture".into(), Value::String("mamba".into()));
    assert_eq!(
        load_error(&gguf_writer::write(&gguf.metadata, &tensors)),
        "architecture 'mamba' is not supported (llama and qwen2 are)"
    );

    let (gguf, _) = fixture_parts();
    let down = tensors.iter_mut().find(|t| t.name == "blk.0.ffn_down.weight").unwrap();
    down.shape.reverse();
    assert_eq!(
        load_error(&gguf_writer::write(&gguf.metadata, &tensors)),
        "tensor 'blk.0.ffn_down.weight' has shape [384, 128]; this model needs [128, 384]"
    );

    // A tensor of a type the engine does not read (Q4_0, ggml type 2): its type field patched.
    let mut patched = bytes.clone();
    let name = b"output_norm.weight";
    let at = patched.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    let type_at = at + 4 + 8; // after the rank (u32) and the one dimension (u64)
    patched[type_at..type_at + 4].copy_from_slice(&2u32.to_le_bytes());
    assert_eq!(
        load_error(&patched),
        "tensor 'output_norm.weight': tensor type Q4_0 is not supported (supported: F32, F16, Q5_0, Q8_0, Q4_K, Q6_K)"
    );
}

#[test]
fn a_model_file_is_looked_at_from_its_start_before_it_is_kept() {
    let bytes = std::fs::read(fixture("tiny-coder.gguf")).unwrap();
    let (gguf, _) = fixture_parts();
    let data_start = gguf.data_start as usize;
    let len = bytes.len() as u64;
    // The header alone is enough, and says what the file is.
    let seen = Gguf::parse_start(&bytes[..data_start], len).unwrap();
    assert_eq!(seen.tensors, gguf.tensors);
    let parameters: u64 = gguf.tensors.iter().map(|t| t.count()).sum();
    let described = seen.describe().unwrap();
    assert!(
        described.ends_with(&format!(
            "llama, {} tensors, {:.1} M parameters",
            gguf.tensors.len(),
            parameters as f64 / 1e6
        )),
        "{described}"
    );
    // A file shorter than its tensors say is truncated, from its start alone.
    let short = Gguf::parse_start(&bytes[..data_start], len - 1).unwrap_err();
    assert!(
        short.starts_with("truncated: tensor '") && short.ends_with(&format!("but the file has {} bytes", len - 1)),
        "{short}"
    );
    // A start cut inside the header of a longer file is not called truncated.
    assert_eq!(
        Gguf::parse_start(&bytes[..100], len).unwrap_err(),
        "its header is longer than the first 100 bytes, the most read to check a model"
    );
    assert!(Gguf::parse_start(&bytes[..100], 100).unwrap_err().starts_with("truncated: the file ends at byte 100"));
    assert_eq!(Gguf::parse_start(b"", 0).unwrap_err(), "the file is empty");
    // A GGUF that no language model loads from.
    let (mut gguf, tensors) = fixture_parts();
    gguf.metadata.remove("general.architecture");
    let no_architecture = gguf_writer::write(&gguf.metadata, &tensors);
    assert_eq!(
        Gguf::parse(&no_architecture).unwrap().describe().unwrap_err(),
        "the file has no metadata 'general.architecture'"
    );
    let no_tensors = gguf_writer::write(&fixture_parts().0.metadata, &[]);
    assert_eq!(Gguf::parse(&no_tensors).unwrap().describe().unwrap_err(), "the file has no tensors");
}
