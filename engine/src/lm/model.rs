//! The decoder-only transformer of llama.cpp's `llama` and `qwen2` architectures (llama-model.cpp's
//! `llm_build_llama` and `llm_build_qwen2`) on burn: RMSNorm, rotary positions (adjacent pairs for
//! Llama as GGUF stores it, halves for Qwen2: llama.cpp's ROPE_TYPE_NORM and NEOX), grouped-query
//! attention, SwiGLU, Qwen2's biases on the query, key and value, and an output tied to the
//! embedding when the file has none. With [`Numerics::LlamaCpp`] each matrix product first rounds
//! its activations as llama.cpp's CPU backend does for the weights' type, so that the logits are
//! llama.cpp's (engine/tests/lm_parity.rs; a Qwen2-shaped model in Q8_0 and Q4_K_M still differs
//! by about 1% of their scale, docs/guide.md).

use burn::module::{Module, Param};
use burn::tensor::activation::{silu, softmax};
use burn::tensor::{Device, Int, Tensor, TensorData};

use crate::device::f32_values;
use crate::lm::gguf::Gguf;
use crate::lm::gguf_writer::TensorOut;
use crate::lm::kv_cache::KvCache;
use crate::lm::lora::{Lora, LoraParams, Projection};
use crate::lm::quants::{ActivationType, TensorType};
use crate::rng::RunRng;

/// The architectures the engine runs, as `general.architecture` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    Llama,
    Qwen2,
}

/// A model's shape, from its GGUF metadata (`{arch}.…` keys, llama-arch.cpp's LLM_KV names).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    pub architecture: Architecture,
    pub vocabulary: usize,
    pub embedding: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub feed_forward: usize,
    pub context: usize,
    pub rope_base: f32,
    pub rms_epsilon: f32,
}

impl ModelConfig {
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, String> {
        let name = gguf.string("general.architecture")?;
        let architecture = match name {
            "llama" => Architecture::Llama,
            "qwen2" => Architecture::Qwen2,
            other => return Err(format!("architecture '{other}' is not supported (llama and qwen2 are)")),
        };
        let integer = |key: &str| gguf.integer(&format!("{name}.{key}")).map(|v| v as usize);
        let float = |key: &str, default: f32| {
            gguf.get(&format!("{name}.{key}"))
                .map_or(Ok(default), |v| v.as_f32().ok_or_else(|| format!("metadata '{name}.{key}' is not a number")))
        };
        let heads = integer("attention.head_count")?;
        let embedding = integer("embedding_length")?;
        let config = Self {
            architecture,
            vocabulary: gguf
                .tensor("token_embd.weight")
                .map(|t| t.shape()[0])
                .ok_or("the file has no tensor 'token_embd.weight'")?,
            embedding,
            layers: integer("block_count")?,
            heads,
            kv_heads: integer("attention.head_count_kv").unwrap_or(heads),
            feed_forward: integer("feed_forward_length")?,
            context: integer("context_length")?,
            rope_base: float("rope.freq_base", 10_000.0)?,
            rms_epsilon: float("attention.layer_norm_rms_epsilon", 1e-5)?,
        };
        if heads == 0 || config.kv_heads == 0 || heads % config.kv_heads != 0 || embedding % heads != 0 {
            return Err(format!(
                "{heads} attention heads, {} of them for keys and values, do not divide {embedding} embedding dimensions",
                config.kv_heads
            ));
        }
        let rotated = integer("rope.dimension_count").unwrap_or(config.head_dim());
        if rotated != config.head_dim() {
            return Err(format!(
                "rotary positions on {rotated} of {} dimensions a head are not supported",
                config.head_dim()
            ));
        }
        Ok(config)
    }

    pub fn head_dim(&self) -> usize {
        self.embedding / self.heads
    }

    pub fn parameters(&self) -> u64 {
        let d = self.embedding as u64;
        let kv = (self.kv_heads * self.head_dim()) as u64;
        let block = 2 * d + d * d * 2 + d * kv * 2 + 3 * d * self.feed_forward as u64;
        self.vocabulary as u64 * d + self.layers as u64 * block + d
    }
}

/// Whose arithmetic the matrix products follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Numerics {
    /// llama.cpp's CPU backend: activations rounded as the weights' type asks. Inference only (the
    /// rounding is done on the host and has no gradient).
    #[default]
    LlamaCpp,
    /// Plain f32 throughout, differentiable.
    F32,
}

/// Which weights a forward pass uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// The base with its LoRA adapters, if it has any.
    Adapted,
    /// The base alone: the reference policy of a KL term.
    Base,
}

/// A weight matrix `[out, in]` as the file stores it, the rounding llama.cpp gives its inputs, and
/// an optional LoRA adapter.
#[derive(Module, Debug)]
pub struct Linear {
    weight: Param<Tensor<2>>,
    bias: Option<Param<Tensor<1>>>,
    lora: Option<Lora>,
    #[module(skip)]
    activation: ActivationType,
}

impl Linear {
    /// `x` `[rows, in]` times the weight's transpose, plus the bias and the adapter's update.
    pub fn forward(&self, x: Tensor<2>, weights: Weights) -> Tensor<2> {
        let adapter = self.lora.as_ref().filter(|_| weights == Weights::Adapted).map(|lora| lora.forward(x.clone()));
        // (W xᵀ)ᵀ rather than x Wᵀ: burn's ndarray backend copies a transposed operand into place
        // before the product, and the weight is the large one (it was 45% of a token's time).
        let x = round_activations(x, self.activation);
        let mut y = self.weight.val().matmul(x.transpose()).transpose();
        if let Some(bias) = &self.bias {
            y = y + bias.val().unsqueeze_dim(0);
        }
        match adapter {
            Some(update) => y + update,
            None => y,
        }
    }

    /// The weight with the adapter's update merged in.
    fn merged(&self) -> Tensor<2> {
        match &self.lora {
            Some(lora) => self.weight.val() + lora.delta(),
            None => self.weight.val(),
        }
    }
}

/// One transformer block.
#[derive(Module, Debug)]
pub struct Block {
    attention_norm: Param<Tensor<1>>,
    query: Linear,
    key: Linear,
    value: Linear,
    attention_output: Linear,
    feed_forward_norm: Param<Tensor<1>>,
    gate: Linear,
    up: Linear,
    down: Linear,
}

impl Block {
    /// Its projections, with their GGUF names.
    fn projections(&self) -> [(Projection, &'static str, &Linear); 7] {
        [
            (Projection::QProj, "attn_q", &self.query),
            (Projection::KProj, "attn_k", &self.key),
            (Projection::VProj, "attn_v", &self.value),
            (Projection::OProj, "attn_output", &self.attention_output),
            (Projection::GateProj, "ffn_gate", &self.gate),
            (Projection::UpProj, "ffn_up", &self.up),
            (Projection::DownProj, "ffn_down", &self.down),
        ]
    }

    fn projection_mut(&mut self, projection: Projection) -> &mut Linear {
        match projection {
            Projection::QProj => &mut self.query,
            Projection::KProj => &mut self.key,
            Projection::VProj => &mut self.value,
            Projection::OProj => &mut self.attention_output,
            Projection::GateProj => &mut self.gate,
            Projection::UpProj => &mut self.up,
            Projection::DownProj => &mut self.down,
        }
    }
}

/// The model.
#[derive(Module, Debug)]
pub struct Transformer {
    embedding: Param<Tensor<2>>,
    blocks: Vec<Block>,
    output_norm: Param<Tensor<1>>,
    /// The output matrix; the embedding's when the file ties them.
    output: Linear,
    #[module(skip)]
    tied: bool,
    #[module(skip)]
    pub config: ModelConfig,
}

impl Transformer {
    /// The model in `bytes` (a GGUF file that `gguf` parsed), dequantised to f32 on `device`.
    pub fn from_gguf(gguf: &Gguf, bytes: &[u8], device: &Device, numerics: Numerics) -> Result<Self, String> {
        let config = ModelConfig::from_gguf(gguf)?;
        let (d, kv, ff) = (config.embedding, config.kv_heads * config.head_dim(), config.feed_forward);
        let tensor = |name: &str, shape: &[usize]| -> Result<TensorData, String> {
            let (found, weights) = gguf.read_f32(bytes, name)?;
            if found != shape {
                return Err(format!("tensor '{name}' has shape {found:?}; this model needs {shape:?}"));
            }
            Ok(TensorData::new(weights, shape.to_vec()))
        };
        let vector = |name: &str, n: usize| tensor(name, &[n]).map(|data| Param::from_data(data, device));
        let activation = |name: &str| match numerics {
            Numerics::LlamaCpp => gguf.tensor(name).map_or(ActivationType::F32, |t| t.kind.activation_type()),
            Numerics::F32 => ActivationType::F32,
        };
        let linear = |name: &str, out: usize, input: usize, bias: bool| -> Result<Linear, String> {
            let weight = Param::from_data(tensor(&format!("{name}.weight"), &[out, input])?, device);
            let bias = if bias { Some(vector(&format!("{name}.bias"), out)?) } else { None };
            Ok(Linear { weight, bias, lora: None, activation: activation(&format!("{name}.weight")) })
        };
        let biased = config.architecture == Architecture::Qwen2;
        let blocks = (0..config.layers)
            .map(|i| {
                let name = |part: &str| format!("blk.{i}.{part}");
                Ok(Block {
                    attention_norm: vector(&name("attn_norm.weight"), d)?,
                    query: linear(&name("attn_q"), d, d, biased)?,
                    key: linear(&name("attn_k"), kv, d, biased)?,
                    value: linear(&name("attn_v"), kv, d, biased)?,
                    attention_output: linear(&name("attn_output"), d, d, false)?,
                    feed_forward_norm: vector(&name("ffn_norm.weight"), d)?,
                    gate: linear(&name("ffn_gate"), ff, d, false)?,
                    up: linear(&name("ffn_up"), ff, d, false)?,
                    down: linear(&name("ffn_down"), d, ff, false)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let embedding = Param::from_data(tensor("token_embd.weight", &[config.vocabulary, d])?, device);
        let tied = gguf.tensor("output.weight").is_none();
        let output = match tied {
            false => linear("output", config.vocabulary, d, false)?,
            true => Linear {
                weight: embedding.clone(),
                bias: None,
                lora: None,
                activation: activation("token_embd.weight"),
            },
        };
        Ok(Self { embedding, blocks, output_norm: vector("output_norm.weight", d)?, output, tied, config })
    }

    /// The model with its weights frozen and a fresh LoRA adapter on each of `params.targets` in
    /// every block, the only weights that train.
    pub fn with_lora(self, params: &LoraParams, rng: &mut RunRng) -> Self {
        let device = self.device();
        let mut model = self.no_grad();
        for block in &mut model.blocks {
            for &target in &params.targets {
                let linear = block.projection_mut(target);
                let [output, input] = linear.weight.val().dims();
                linear.lora = Some(Lora::new(input, output, params, &device, rng));
            }
        }
        model
    }

    /// Every weight under its GGUF name, adapters merged in: matrices as `matrices` (F32 or F16),
    /// vectors in F32; the output left out when it is tied to the embedding. Awaits the values it
    /// reads back (WebGPU in a browser cannot block on them).
    pub async fn tensors(&self, matrices: TensorType) -> Result<Vec<TensorOut>, String> {
        let matrix = |name: String, tensor: Tensor<2>| {
            let [rows, columns] = tensor.dims();
            (name, tensor.reshape([rows * columns]), vec![rows, columns], matrices)
        };
        let vector = |name: String, tensor: &Param<Tensor<1>>| {
            let values = tensor.val();
            let shape = values.dims().to_vec();
            (name, values, shape, TensorType::F32)
        };
        let mut named = vec![matrix("token_embd.weight".into(), self.embedding.val())];
        for (i, block) in self.blocks.iter().enumerate() {
            named.push(vector(format!("blk.{i}.attn_norm.weight"), &block.attention_norm));
            named.push(vector(format!("blk.{i}.ffn_norm.weight"), &block.feed_forward_norm));
            for (_, name, linear) in block.projections() {
                named.push(matrix(format!("blk.{i}.{name}.weight"), linear.merged()));
                if let Some(bias) = &linear.bias {
                    named.push(vector(format!("blk.{i}.{name}.bias"), bias));
                }
            }
        }
        named.push(vector("output_norm.weight".into(), &self.output_norm));
        if !self.tied {
            named.push(matrix("output.weight".into(), self.output.merged()));
        }
        let mut tensors = Vec::with_capacity(named.len());
        for (name, values, shape, kind) in named {
            let values = f32_values(values.into_data_async().await).map_err(|e| format!("{name}: {e}"))?;
            tensors.push(TensorOut { name, shape, values, kind });
        }
        Ok(tensors)
    }

    /// The last hidden states `[batch, time, embedding]` of `tokens` `[batch, time]`, which follow
    /// the `cache.length()` tokens the cache holds; their keys and values join the cache.
    pub fn hidden(&self, tokens: Tensor<2, Int>, cache: &mut KvCache, weights: Weights) -> Tensor<3> {
        let [batch, time] = tokens.dims();
        let d = self.config.embedding;
        let start = cache.length();
        let mut x = self.embedding.val().select(0, tokens.reshape([batch * time])).reshape([batch, time, d]);
        let padding: Vec<usize> = (0..batch).map(|row| cache.padding(row)).collect();
        let rope = Rope::new(&self.config, start, time, &padding, &x.device());
        let mask = causal_mask(start, time, &padding, &x.device());
        for (layer, block) in self.blocks.iter().enumerate() {
            let h = rms_norm(x.clone(), &block.attention_norm, self.config.rms_epsilon).reshape([batch * time, d]);
            let heads = |y: Tensor<2>, n: usize| y.reshape([batch, time, n, self.config.head_dim()]).swap_dims(1, 2);
            let query = rope.apply(heads(block.query.forward(h.clone(), weights), self.config.heads));
            let key = rope.apply(heads(block.key.forward(h.clone(), weights), self.config.kv_heads));
            let value = heads(block.value.forward(h, weights), self.config.kv_heads);
            let (keys, values) = cache.append(layer, key, value);
            let attended = self.attend(query, keys, values, mask.clone()).swap_dims(1, 2).reshape([batch * time, d]);
            x = x + block.attention_output.forward(attended, weights).reshape([batch, time, d]);
            let h = rms_norm(x.clone(), &block.feed_forward_norm, self.config.rms_epsilon).reshape([batch * time, d]);
            let swiglu = silu(block.gate.forward(h.clone(), weights)) * block.up.forward(h, weights);
            x = x + block.down.forward(swiglu, weights).reshape([batch, time, d]);
        }
        cache.advance(time);
        rms_norm(x, &self.output_norm, self.config.rms_epsilon)
    }

    pub fn device(&self) -> Device {
        self.embedding.val().device()
    }

    /// Next-token logits `[rows, vocabulary]` of hidden states `[rows, embedding]`.
    pub fn logits(&self, hidden: Tensor<2>) -> Tensor<2> {
        self.output.forward(hidden, Weights::Adapted)
    }

    /// Attention of `query` `[batch, heads, time, head_dim]` over the cached `keys` and `values`
    /// `[batch, kv_heads, length, head_dim]`; query head `h` reads key head `h / (heads / kv_heads)`,
    /// as ggml's broadcast in `mul_mat` pairs them.
    fn attend(&self, query: Tensor<4>, keys: Tensor<4>, values: Tensor<4>, mask: Tensor<4>) -> Tensor<4> {
        let [batch, kv_heads, length, head_dim] = keys.dims();
        let group = self.config.heads / kv_heads;
        let widen = |t: Tensor<4>| {
            t.unsqueeze_dim::<5>(2).expand([batch, kv_heads, group, length, head_dim]).reshape([
                batch,
                self.config.heads,
                length,
                head_dim,
            ])
        };
        let scores = query.matmul(widen(keys).swap_dims(2, 3)) * (1.0 / (head_dim as f32).sqrt());
        let weights = softmax(scores + mask, 3);
        weights.matmul(widen(values))
    }
}

/// ggml's `rms_norm` then the weight: `x / sqrt(mean(x²) + ε) · w` over the last dimension.
fn rms_norm(x: Tensor<3>, weight: &Param<Tensor<1>>, epsilon: f32) -> Tensor<3> {
    let scale = (x.clone().powi_scalar(2).mean_dim(2) + epsilon).sqrt().recip();
    x * scale * weight.val().unsqueeze_dims::<3>(&[0, 1])
}

/// 0 where position `start + i` of a row may attend to position `j`, −∞ after it and on the row's
/// padding: `[batch, 1, time, start + time]`. A padding position attends to itself alone, so that
/// its softmax stays finite; nothing reads what it computes.
fn causal_mask(start: usize, time: usize, padding: &[usize], device: &Device) -> Tensor<4> {
    let length = start + time;
    let mask: Vec<f32> = padding
        .iter()
        .flat_map(|&pad| {
            (0..time).flat_map(move |i| {
                let position = start + i;
                (0..length).map(move |j| {
                    let hidden = j > position || (j < pad && j != position);
                    if hidden { f32::NEG_INFINITY } else { 0.0 }
                })
            })
        })
        .collect();
    Tensor::from_data(TensorData::new(mask, [padding.len(), 1, time, length]), device)
}

/// The rotation of positions `start..start + time` of each row, counted from the row's first token
/// after its padding, with ggml's angles (`ggml_rope_cache_init`: θ = p · base^(−2i/n), the powers
/// taken by repeated products in f32).
struct Rope {
    cos: Tensor<4>,
    sin: Tensor<4>,
    architecture: Architecture,
}

impl Rope {
    fn new(config: &ModelConfig, start: usize, time: usize, padding: &[usize], device: &Device) -> Self {
        let half = config.head_dim() / 2;
        let theta_scale = config.rope_base.powf(-2.0 / config.head_dim() as f32);
        let rows = padding.len();
        let (mut cos, mut sin) = (Vec::with_capacity(rows * time * half), Vec::with_capacity(rows * time * half));
        for &pad in padding {
            for position in start..start + time {
                let mut theta = position.saturating_sub(pad) as f32;
                for _ in 0..half {
                    cos.push(theta.cos());
                    sin.push(theta.sin());
                    theta *= theta_scale;
                }
            }
        }
        let table = |values: Vec<f32>| {
            Tensor::<3>::from_data(TensorData::new(values, [rows, time, half]), device).unsqueeze_dim(1)
        };
        Self { cos: table(cos), sin: table(sin), architecture: config.architecture }
    }

    /// `x` `[batch, heads, time, head_dim]` rotated.
    fn apply(&self, x: Tensor<4>) -> Tensor<4> {
        let [batch, heads, time, head_dim] = x.dims();
        let half = head_dim / 2;
        let (cos, sin) = (self.cos.clone(), self.sin.clone());
        match self.architecture {
            // NEOX: dimension i turns with dimension i + head_dim / 2.
            Architecture::Qwen2 => {
                let (a, b) = (x.clone().narrow(3, 0, half), x.narrow(3, half, half));
                Tensor::cat(vec![a.clone() * cos.clone() - b.clone() * sin.clone(), b * cos + a * sin], 3)
            }
            // NORM: dimension 2i turns with dimension 2i + 1.
            Architecture::Llama => {
                let pairs = x.reshape([batch, heads, time, half, 2]);
                let a = pairs.clone().narrow(4, 0, 1).squeeze_dim::<4>(4);
                let b = pairs.narrow(4, 1, 1).squeeze_dim::<4>(4);
                let turned = [a.clone() * cos.clone() - b.clone() * sin.clone(), b * cos + a * sin];
                Tensor::stack::<5>(turned.to_vec(), 4).reshape([batch, heads, time, head_dim])
            }
        }
    }
}

/// `x` `[rows, in]` rounded row by row as llama.cpp rounds a product's activations (on the host:
/// no gradient passes).
fn round_activations(x: Tensor<2>, activation: ActivationType) -> Tensor<2> {
    if activation == ActivationType::F32 {
        return x;
    }
    let [rows, columns] = x.dims();
    let device = x.device();
    let mut values: Vec<f32> = x.into_data().try_into_vec::<f32>().expect("activations are f32");
    values.chunks_mut(columns).for_each(|row| activation.round_row(row));
    Tensor::from_data(TensorData::new(values, [rows, columns]), &device)
}
