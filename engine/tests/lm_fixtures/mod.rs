//! The language model's test files (e2e/fixtures: the fixture the page runs in the tab, the models
//! and llama.cpp's numbers that scripts/tiny-model/reference.py recorded), loaded on the CPU.
// Each test file that includes this uses some of it.
#![allow(dead_code)]

use std::path::PathBuf;

use burn::tensor::Device;
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../e2e/fixtures").join(name)
}

#[allow(deprecated)]
pub fn cpu() -> Device {
    Device::ndarray()
}

/// A fixture, or one of the project's own models (`models/`: the small code model).
pub fn load(name: &str) -> LanguageModel {
    let own = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models").join(name);
    let path = if own.exists() { own } else { fixture(name) };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    LanguageModel::load(&bytes, &cpu(), Numerics::LlamaCpp).unwrap_or_else(|e| panic!("{name}: {e}"))
}
