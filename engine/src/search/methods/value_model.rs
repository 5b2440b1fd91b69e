//! GIF-MCTS's value model for unexplored actions (seed 004 App. A; the official code's
//! `ValuePredictor`): an action type's expected score is a weighted mean of its global value (the
//! type's mean score over the whole tree, with a prior) and its local value (the mean value of the
//! node's expanded children of that type). The two weights learn by plain SGD on the squared error
//! against each new child's score, at a learning rate 1/n that decays as the type is used.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueModel {
    pub w_global: f64,
    pub w_local: f64,
    /// The learning rate is 1/n; n starts at 1 + the prior's count and grows by one per update.
    pub n: f64,
}

impl ValueModel {
    /// Both weights 0.5, as the official code starts them.
    pub fn new(prior_count: f64) -> Self {
        Self { w_global: 0.5, w_local: 0.5, n: 1.0 + prior_count }
    }

    /// The global value alone when the node has no expanded child of the type, else the weighted
    /// mean of both.
    pub fn predict(&self, global: f64, local: Option<f64>) -> f64 {
        match local {
            None => global,
            Some(local) => (self.w_global * global + self.w_local * local) / (self.w_global + self.w_local),
        }
    }

    /// One SGD step on (prediction − target)²; returns the prediction it made and the loss. Without
    /// a local value the prediction does not depend on the weights, so only the rate decays.
    pub fn update(&mut self, global: f64, local: Option<f64>, target: f64) -> (f64, f64) {
        let prediction = self.predict(global, local);
        let error = prediction - target;
        if let Some(local) = local {
            // d/dw_g of (w_g·g + w_l·l)/(w_g + w_l) is (g − prediction)/(w_g + w_l); likewise for w_l.
            let sum = self.w_global + self.w_local;
            let rate = 1.0 / self.n;
            self.w_global -= rate * 2.0 * error * (global - prediction) / sum;
            self.w_local -= rate * 2.0 * error * (local - prediction) / sum;
        }
        self.n += 1.0;
        (prediction, error * error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sgd_step_worked_by_hand() {
        // Prior count 2: n = 3, rate 1/3. g = 0.5, l = 0, target 1: prediction 0.25, error −0.75.
        // ∂/∂w_g = 2·(−0.75)·(0.5 − 0.25) = −0.375, so w_g = 0.5 + 0.375/3 = 0.625;
        // ∂/∂w_l = 2·(−0.75)·(0 − 0.25) = 0.375, so w_l = 0.5 − 0.125 = 0.375.
        let mut model = ValueModel::new(2.0);
        let (prediction, loss) = model.update(0.5, Some(0.0), 1.0);
        assert_eq!((prediction, loss), (0.25, 0.5625));
        assert!((model.w_global - 0.625).abs() < 1e-12 && (model.w_local - 0.375).abs() < 1e-12, "{model:?}");
        assert_eq!(model.n, 4.0);
        // The same inputs now predict (0.625·0.5 + 0.375·0)/1 = 0.3125: closer to the target.
        assert!((model.predict(0.5, Some(0.0)) - 0.3125).abs() < 1e-12);
    }

    #[test]
    fn without_a_local_value_the_prediction_is_the_global_one_and_only_the_rate_decays() {
        let mut model = ValueModel::new(2.0);
        assert_eq!(model.predict(0.55, None), 0.55);
        assert_eq!(model.update(0.55, None, 0.0), (0.55, 0.55 * 0.55));
        assert_eq!((model.w_global, model.w_local, model.n), (0.5, 0.5, 4.0));
    }
}
