//! Dense observations for neural agents. Seed 000 embeds the prompt, the code and the test feedback
//! with a sentence transformer and appends the state flags; a download-free stand-in for that
//! embedder is [`HashedNgrams`], and [`Featurizer`] concatenates the embeddings with the
//! environment's own features.

use std::hash::Hasher;

use crate::env::Environment;

/// Hashed character trigrams (the "hashing trick"): each trigram of the lower-cased text adds ±1 to
/// one of `dim` buckets, chosen by its FNV-1a hash, and the vector is L2-normalised. Similar texts
/// get similar vectors, there is nothing to download, and it is the same on every platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashedNgrams {
    pub dim: usize,
}

const NGRAM: usize = 3;

impl HashedNgrams {
    /// Writes the embedding of `text` into `out` (length `dim`).
    pub fn embed(&self, text: &str, out: &mut [f32]) {
        out.fill(0.0);
        if self.dim == 0 {
            return;
        }
        // A sliding window over the lower-cased characters: this runs for every text on every
        // training step, so it allocates nothing.
        let mut gram = ['\0'; NGRAM];
        for (seen, c) in text.chars().flat_map(char::to_lowercase).enumerate() {
            gram.rotate_left(1);
            gram[NGRAM - 1] = c;
            if seen + 1 < NGRAM {
                continue;
            }
            let mut hasher = fnv::FnvHasher::default();
            gram.iter().for_each(|&c| hasher.write_u32(c as u32));
            let hash = hasher.finish();
            let sign = if hash >> 63 == 1 { -1.0 } else { 1.0 };
            out[(hash % self.dim as u64) as usize] += sign;
        }
        let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            out.iter_mut().for_each(|x| *x /= norm);
        }
    }
}

/// The input of a neural agent: one embedding per text slot, then the environment's features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Featurizer {
    embedder: HashedNgrams,
    text_slots: usize,
    env_features: usize,
}

impl Featurizer {
    pub fn new(env: &impl Environment, embedding_dim: usize) -> Self {
        let info = env.info();
        Self {
            embedder: HashedNgrams { dim: embedding_dim },
            text_slots: info.text_names.len(),
            env_features: info.feature_dim,
        }
    }

    pub fn dim(&self) -> usize {
        self.text_slots * self.embedder.dim + self.env_features
    }

    /// Writes the current observation of `env` into `out` (length [`dim`](Self::dim)).
    pub fn write(&self, env: &impl Environment, out: &mut [f32]) {
        self.write_parts(&env.texts(), |rest| env.features(rest), out);
    }

    /// Writes the embeddings of `texts` and then, through `env_features`, the environment's own
    /// features: for states that live outside an [`Environment`] (the live mode's).
    pub fn write_parts(&self, texts: &[&str], env_features: impl FnOnce(&mut [f32]), out: &mut [f32]) {
        let d = self.embedder.dim;
        for (slot, text) in texts.iter().enumerate().take(self.text_slots) {
            self.embedder.embed(text, &mut out[slot * d..(slot + 1) * d]);
        }
        env_features(&mut out[self.text_slots * d..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{ExecutiveEnv, executive::GENERATE};

    fn embed(text: &str) -> Vec<f32> {
        let mut out = vec![0.0; 64];
        HashedNgrams { dim: 64 }.embed(text, &mut out);
        out
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn embeddings_are_unit_length_and_similar_texts_are_close() {
        let a = embed("def add(a, b): return a + b");
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-5);
        let b = embed("def add(x, y): return x + y");
        let c = embed("The quick brown fox jumps over the lazy dog");
        assert!(cosine(&a, &b) > cosine(&a, &c) + 0.2, "{} vs {}", cosine(&a, &b), cosine(&a, &c));
        assert_eq!(embed(""), vec![0.0; 64]);
        assert_eq!(embed("ABC"), embed("abc"));
    }

    #[test]
    fn features_are_embeddings_then_flags() {
        let mut env = ExecutiveEnv::for_task("task1_correct").unwrap();
        env.reset(0);
        let featurizer = Featurizer::new(&env, 16);
        assert_eq!(featurizer.dim(), 3 * 16 + 6);
        let mut before = vec![0.0; featurizer.dim()];
        featurizer.write(&env, &mut before);
        env.step(GENERATE);
        let mut after = vec![0.0; featurizer.dim()];
        featurizer.write(&env, &mut after);
        assert_eq!(before[..16], after[..16], "the prompt did not change");
        assert!(before[16..32].iter().all(|&x| x == 0.0) && after[16..32].iter().any(|&x| x != 0.0), "code appeared");
        assert_eq!(after[48], 1.0, "has_generated flag");
    }
}
