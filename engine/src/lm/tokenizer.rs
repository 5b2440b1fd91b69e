//! The byte-level BPE tokenizer of a GGUF file ("gpt2" in `tokenizer.ggml.model`), as llama.cpp's
//! `llm_tokenizer_bpe` runs it: special tokens split out first, then the pre-tokenizer's regex for
//! the file's `tokenizer.ggml.pre`, each piece mapped byte by byte to GPT-2's printable characters
//! and merged by rank. Written here rather than taken from HF `tokenizers`, whose wasm build is
//! experimental (`unstable_wasm`) and which would have to be configured from the same metadata.

use std::collections::HashMap;

use fancy_regex::Regex;

use crate::lm::gguf::{Gguf, Value};

/// llama.cpp's token types (`llama_token_type`).
const NORMAL: i64 = 1;
const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;

/// GPT-2's split (llama.cpp's `LLAMA_VOCAB_PRE_TYPE_GPT2`).
const GPT2_SPLIT: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
/// Qwen2's split (`LLAMA_VOCAB_PRE_TYPE_QWEN2`): digits one by one, letters with one leading mark.
const QWEN2_SPLIT: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Llama 3's split (`LLAMA_VOCAB_PRE_TYPE_LLAMA3`): digits in threes.
const LLAMA3_SPLIT: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// A GGUF file's tokenizer.
#[derive(Clone, Debug)]
pub struct Tokenizer {
    /// Each token's text, in GPT-2's byte characters for normal tokens.
    texts: Vec<String>,
    kinds: Vec<i64>,
    /// (left, right) → (rank, merged token).
    merges: HashMap<(u32, u32), (u32, u32)>,
    /// The tokens split out of text before the regex, longest first.
    specials: Vec<u32>,
    split: Regex,
    /// The token of each byte's GPT-2 character.
    byte_tokens: [Option<u32>; 256],
    /// Each GPT-2 character's byte.
    char_bytes: HashMap<char, u8>,
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    /// Tokens that end a reply (`llama_vocab::is_eog`): end of sequence, end of turn.
    pub end_of_generation: Vec<u32>,
    /// Whether llama.cpp puts `bos` before a prompt (`tokenizer.ggml.add_bos_token`).
    pub add_bos: bool,
}

impl Tokenizer {
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, String> {
        let model = gguf.string("tokenizer.ggml.model")?;
        if model != "gpt2" {
            return Err(format!("tokenizer '{model}' is not supported (byte-level BPE, 'gpt2', is)"));
        }
        let pre = gguf.string("tokenizer.ggml.pre").unwrap_or("gpt-2");
        let split = match pre {
            "gpt-2" | "gpt2" => GPT2_SPLIT,
            "qwen2" => QWEN2_SPLIT,
            "llama3" | "llama-v3" | "llama-bpe" => LLAMA3_SPLIT,
            other => {
                return Err(format!("pre-tokenizer '{other}' is not supported (gpt-2, qwen2 and llama-bpe are)"));
            }
        };
        let texts: Vec<String> = gguf.strings("tokenizer.ggml.tokens")?.into_iter().map(String::from).collect();
        let kinds = match gguf.get("tokenizer.ggml.token_type") {
            Some(Value::Array(kinds)) => kinds.iter().map(|k| k.as_u64().map_or(NORMAL, |k| k as i64)).collect(),
            _ => vec![NORMAL; texts.len()],
        };
        if kinds.len() != texts.len() {
            return Err(format!("the file has {} tokens but {} token types", texts.len(), kinds.len()));
        }
        let ids: HashMap<String, u32> = texts.iter().enumerate().map(|(id, text)| (text.clone(), id as u32)).collect();
        let mut merges = HashMap::new();
        for (rank, merge) in gguf.strings("tokenizer.ggml.merges")?.into_iter().enumerate() {
            let (left, right) =
                merge.split_once(' ').ok_or_else(|| format!("merge {rank} ('{merge}') is not two tokens"))?;
            if let (Some(&l), Some(&r), Some(&joined)) =
                (ids.get(left), ids.get(right), ids.get(&format!("{left}{right}")))
            {
                merges.entry((l, r)).or_insert((rank as u32, joined));
            }
        }
        let mut specials: Vec<u32> =
            (0..texts.len() as u32).filter(|&id| matches!(kinds[id as usize], CONTROL | USER_DEFINED)).collect();
        specials.sort_by_key(|&id| std::cmp::Reverse(texts[id as usize].len()));
        let byte_chars = byte_chars();
        let byte_tokens = std::array::from_fn(|byte| ids.get(&byte_chars[byte].to_string()).copied());
        let char_bytes = byte_chars.iter().enumerate().map(|(byte, &c)| (c, byte as u8)).collect();
        let id = |key: &str| {
            gguf.get(key).and_then(Value::as_u64).map(|id| id as u32).filter(|&id| (id as usize) < texts.len())
        };
        let (bos, eos, eot) =
            (id("tokenizer.ggml.bos_token_id"), id("tokenizer.ggml.eos_token_id"), id("tokenizer.ggml.eot_token_id"));
        let mut end_of_generation: Vec<u32> = [eos, eot].into_iter().flatten().collect();
        end_of_generation.dedup();
        let add_bos = matches!(gguf.get("tokenizer.ggml.add_bos_token"), Some(Value::Bool(true)));
        let split = Regex::new(split).map_err(|e| format!("pre-tokenizer '{pre}': {e}"))?;
        Ok(Self {
            texts,
            kinds,
            merges,
            specials,
            split,
            byte_tokens,
            char_bytes,
            bos,
            eos,
            end_of_generation,
            add_bos,
        })
    }

    pub fn vocabulary_size(&self) -> usize {
        self.texts.len()
    }

    /// `text`'s tokens, as llama.cpp's `llama_tokenize(…, add_special = false, parse_special)`:
    /// with `parse_special`, control tokens written in the text (`<|im_start|>`) are those tokens.
    pub fn encode(&self, text: &str, parse_special: bool) -> Result<Vec<u32>, String> {
        let mut tokens = Vec::new();
        let mut plain_from = 0;
        let mut at = 0;
        while at < text.len() {
            let special = self.specials.iter().copied().find(|&id| {
                (parse_special || self.kinds[id as usize] == USER_DEFINED)
                    && text[at..].starts_with(self.texts[id as usize].as_str())
            });
            match special {
                Some(id) => {
                    self.encode_plain(&text[plain_from..at], &mut tokens)?;
                    tokens.push(id);
                    at += self.texts[id as usize].len();
                    plain_from = at;
                }
                None => at += text[at..].chars().next().map_or(1, char::len_utf8),
            }
        }
        self.encode_plain(&text[plain_from..], &mut tokens)?;
        Ok(tokens)
    }

    fn encode_plain(&self, text: &str, tokens: &mut Vec<u32>) -> Result<(), String> {
        for piece in self.split.find_iter(text) {
            let piece = piece.map_err(|e| format!("the pre-tokenizer failed on {text:?}: {e}"))?;
            let mut symbols = piece
                .as_str()
                .bytes()
                .map(|byte| {
                    self.byte_tokens[byte as usize]
                        .ok_or_else(|| format!("the vocabulary has no token for byte {byte:#04x}"))
                })
                .collect::<Result<Vec<u32>, String>>()?;
            // The best-ranked adjacent pair merges first, the leftmost of equals (llama.cpp's queue).
            while let Some((at, merged)) = symbols
                .windows(2)
                .enumerate()
                .filter_map(|(at, pair)| self.merges.get(&(pair[0], pair[1])).map(|&(rank, merged)| (rank, at, merged)))
                .min()
                .map(|(_, at, merged)| (at, merged))
            {
                symbols[at] = merged;
                symbols.remove(at + 1);
            }
            tokens.extend(symbols);
        }
        Ok(())
    }

    /// Token `id`'s bytes as llama.cpp's `token_to_piece` gives them: control tokens only with
    /// `special`.
    pub fn piece(&self, id: u32, special: bool) -> Vec<u8> {
        let Some(text) = self.texts.get(id as usize) else { return Vec::new() };
        match self.kinds[id as usize] {
            CONTROL if !special => Vec::new(),
            CONTROL | USER_DEFINED => text.as_bytes().to_vec(),
            _ => text.chars().filter_map(|c| self.char_bytes.get(&c).copied()).collect(),
        }
    }

    /// `tokens` as text, control tokens left out; bytes that are not UTF-8 are replaced.
    pub fn decode(&self, tokens: &[u32]) -> String {
        String::from_utf8_lossy(&tokens.iter().flat_map(|&id| self.piece(id, false)).collect::<Vec<u8>>()).into_owned()
    }

    /// Token `id`'s text as the vocabulary holds it.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.texts.get(id as usize).map(String::as_str)
    }
}

/// GPT-2's `bytes_to_unicode`: printable bytes stand for themselves, the others for the characters
/// from U+0100 on, in byte order.
fn byte_chars() -> [char; 256] {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut next = 256u32;
    std::array::from_fn(|byte| {
        let byte = byte as u8;
        if printable(byte) {
            char::from(byte)
        } else {
            let c = char::from_u32(next).expect("U+0100 to U+0143 are characters");
            next += 1;
            c
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpt2_maps_space_to_g_dot_and_newline_to_c_dot() {
        let chars = byte_chars();
        assert_eq!(chars[b' ' as usize], 'Ġ');
        assert_eq!(chars[b'\n' as usize], 'Ċ');
        assert_eq!(chars[b'a' as usize], 'a');
        assert_eq!(chars[0], 'Ā');
    }
}
