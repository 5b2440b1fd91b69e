//! The key-value cache: each layer's keys and values of the positions read so far, so that a new
//! token attends to them without recomputing them.

use burn::tensor::Tensor;

/// Each layer's keys and values `[batch, kv_heads, length, head_dim]`.
#[derive(Clone, Debug, Default)]
pub struct KvCache {
    layers: Vec<Option<(Tensor<4>, Tensor<4>)>>,
    length: usize,
}

impl KvCache {
    /// The positions the cache holds.
    pub fn length(&self) -> usize {
        self.length
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
