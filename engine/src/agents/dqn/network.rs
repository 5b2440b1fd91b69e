//! The dueling Q-network of seed 000 Listing 6, with PyTorch's default initialisation drawn from
//! the run's RNG.

use burn::module::{Module, Param};
use burn::nn::Linear;
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, Transaction};

use crate::rng::{RunRng, seeded_linear as linear};

/// The dueling Q-network of seed 000 Listing 6.
#[derive(Module, Debug)]
pub struct DuelingQNet {
    pub(super) trunk: Vec<Linear>,
    pub(super) value_hidden: Linear,
    pub(super) value_out: Linear,
    pub(super) advantage_hidden: Linear,
    pub(super) advantage_out: Linear,
}

impl DuelingQNet {
    pub fn new(inputs: usize, hidden: &[usize], actions: usize, device: &Device, rng: &mut RunRng) -> Self {
        let mut trunk = Vec::with_capacity(hidden.len());
        let mut previous = inputs;
        for &size in hidden {
            trunk.push(linear(previous, size, device, rng));
            previous = size;
        }
        let head = if previous / 2 > 0 { previous / 2 } else { 32 };
        Self {
            trunk,
            value_hidden: linear(previous, head, device, rng),
            value_out: linear(head, 1, device, rng),
            advantage_hidden: linear(previous, head, device, rng),
            advantage_out: linear(head, actions, device, rng),
        }
    }

    fn layers(&self) -> impl Iterator<Item = &Linear> {
        self.trunk.iter().chain([&self.value_hidden, &self.value_out, &self.advantage_hidden, &self.advantage_out])
    }

    /// A copy on `device`, read back in one transaction without blocking.
    pub(super) async fn copy_to(&self, device: &Device) -> Result<Self, String> {
        let transaction = self.layers().fold(Transaction::default(), |transaction, layer| {
            let bias = layer.bias.as_ref().expect("every layer is built with a bias (see `linear`)");
            transaction.register(layer.weight.val()).register(bias.val())
        });
        let data = transaction.execute_async().await.map_err(|e| format!("cannot read the network back: {e:?}"))?;
        let mut data = data.into_iter();
        let mut next = || data.next().expect("two tensors were registered per layer");
        let mut layers: Vec<Linear> = self
            .layers()
            .map(|_| Linear { weight: Param::from_data(next(), device), bias: Some(Param::from_data(next(), device)) })
            .collect();
        let heads = layers.split_off(self.trunk.len());
        let [value_hidden, value_out, advantage_hidden, advantage_out] =
            heads.try_into().expect("the network has four head layers");
        Ok(Self { trunk: layers, value_hidden, value_out, advantage_hidden, advantage_out })
    }

    /// Q-values, `[batch, actions]`.
    pub fn forward(&self, input: Tensor<2>) -> Tensor<2> {
        let x = self.trunk.iter().fold(input, |x, layer| relu(layer.forward(x)));
        let value = self.value_out.forward(relu(self.value_hidden.forward(x.clone())));
        let advantage = self.advantage_out.forward(relu(self.advantage_hidden.forward(x)));
        value + (advantage.clone() - advantage.mean_dim(1))
    }
}
