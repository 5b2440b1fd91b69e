//! LoRA (Hu et al. 2021, as Hugging Face PEFT applies it): a frozen weight `W` `[out, in]` plus a
//! trained low-rank update `(α / r) · B A`, `A` `[r, in]` drawn as PyTorch's Kaiming-uniform draws a
//! linear layer, `B` `[out, r]` zero, so the adapted model starts as the base. The base without its
//! adapters is the reference a KL term needs, with no second copy of the weights.

use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rng::RunRng;

/// A projection of a transformer block an adapter can sit on (PEFT's `target_modules` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Projection {
    QProj,
    KProj,
    VProj,
    OProj,
    GateProj,
    UpProj,
    DownProj,
}

impl Projection {
    pub const ALL: [Projection; 7] = [
        Projection::QProj,
        Projection::KProj,
        Projection::VProj,
        Projection::OProj,
        Projection::GateProj,
        Projection::UpProj,
        Projection::DownProj,
    ];

    /// PEFT's name of it.
    pub fn name(self) -> &'static str {
        match self {
            Projection::QProj => "q_proj",
            Projection::KProj => "k_proj",
            Projection::VProj => "v_proj",
            Projection::OProj => "o_proj",
            Projection::GateProj => "gate_proj",
            Projection::UpProj => "up_proj",
            Projection::DownProj => "down_proj",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
            format!("unknown projection '{name}'; valid: {}", names.join(", "))
        })
    }
}

/// The adapters' hyperparameters, PEFT's `LoraConfig` defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoraParams {
    /// The update's rank r (PEFT: 8).
    pub rank: usize,
    /// α: the update is scaled by α / r (PEFT: 8).
    pub alpha: f32,
    /// The projections adapted in every block (PEFT's default for Llama and Qwen2: q_proj, v_proj).
    pub targets: Vec<Projection>,
}

impl Default for LoraParams {
    fn default() -> Self {
        Self { rank: 8, alpha: 8.0, targets: vec![Projection::QProj, Projection::VProj] }
    }
}

/// One adapter.
#[derive(Module, Debug)]
pub struct Lora {
    /// `[rank, in]`.
    a: Param<Tensor<2>>,
    /// `[out, rank]`.
    b: Param<Tensor<2>>,
    #[module(skip)]
    scale: f32,
}

impl Lora {
    pub fn new(input: usize, output: usize, params: &LoraParams, device: &Device, rng: &mut RunRng) -> Self {
        // kaiming_uniform_(a = √5) on fan-in `input`: bound 1 / √input.
        let bound = 1.0 / (input as f32).sqrt();
        let a: Vec<f32> = (0..params.rank * input).map(|_| rng.random_range(-bound..bound)).collect();
        Self {
            a: Param::from_data(TensorData::new(a, [params.rank, input]), device),
            b: Param::from_data(TensorData::new(vec![0f32; output * params.rank], [output, params.rank]), device),
            scale: params.alpha / params.rank as f32,
        }
    }

    /// The update's contribution to `x` `[rows, in]`: `(α / r) · x Aᵀ Bᵀ`.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        x.matmul(self.a.val().transpose()).matmul(self.b.val().transpose()) * self.scale
    }

    /// The update as a matrix `[out, in]`, to merge into the weight.
    pub fn delta(&self) -> Tensor<2> {
        self.b.val().matmul(self.a.val()) * self.scale
    }
}
