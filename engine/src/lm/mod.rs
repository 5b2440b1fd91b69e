//! A language model in the engine: the GGUF files the page's in-tab provider (llama.cpp) runs,
//! read, tokenised, formatted and run on burn with llama.cpp's numbers.

pub mod chat_template;
pub mod fine_tune;
pub mod generation;
pub mod gguf;
pub mod gguf_writer;
pub mod kv_cache;
pub mod language_model;
pub mod lora;
pub mod model;
pub mod quants;
pub mod tokenizer;
