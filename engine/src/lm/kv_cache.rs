//! The key-value cache: each layer's keys and values of the positions read so far, so that a new
//! token attends to them without recomputing them.

use burn::tensor::Tensor;

/// Each layer's keys and values `[batch, kv_heads, length, head_dim]`, and how many positions of
/// each row are padding before its prompt (prompts of different lengths drawn side by side).
#[derive(Clone, Debug, Default)]
pub struct KvCache {
    layers: Vec<Option<(Tensor<4>, Tensor<4>)>>,
    length: usize,
    padding: Vec<usize>,
}

impl KvCache {
    /// An empty cache whose row `r` will begin with `padding[r]` positions that no later position
    /// attends to, and that do not count in the positions of its tokens.
    pub fn left_padded(padding: Vec<usize>) -> Self {
        Self { padding, ..Self::default() }
    }

    /// The positions the cache holds.
    pub fn length(&self) -> usize {
        self.length
    }

    /// Row `row`'s padding (none unless [`KvCache::left_padded`] set it).
    pub fn padding(&self, row: usize) -> usize {
        self.padding.get(row).copied().unwrap_or(0)
    }

    /// Adds `keys` and `values` of new positions to layer `layer`, and returns all of its.
    pub fn append(&mut self, layer: usize, keys: Tensor<4>, values: Tensor<4>) -> (Tensor<4>, Tensor<4>) {
        if self.layers.len() <= layer {
            self.layers.resize(layer + 1, None);
        }
        let joined = match self.layers[layer].take() {
            Some((k, v)) => (Tensor::cat(vec![k, keys], 2), Tensor::cat(vec![v, values], 2)),
            None => (keys, values),
        };
        self.layers[layer] = Some(joined.clone());
        joined
    }

    /// Counts the positions the last forward pass added (every layer has appended them).
    pub fn advance(&mut self, time: usize) {
        self.length += time;
    }
}
