//! Seed 004's own figures for code world models, beside which the page and `rlcg cwm plan` show
//! ours: Tables 9 and 10's accuracy and normalised return R(CWM) of the best model that each
//! method found, with Llama 3 70B at 50 LLM calls and GPT-4 Turbo at 10. R(CWM) is N/A where the
//! paper's oracle did no better than random.

use serde::Serialize;

use crate::gym::GymId;

/// One cell of the tables.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PaperResult {
    /// Which LLM and method, e.g. `Llama 3 70B, GIF-MCTS`.
    pub searched_by: &'static str,
    pub accuracy: f64,
    /// `None`: N/A in the paper.
    pub normalised: Option<f64>,
}

/// The four columns, in the order of [`paper_results`]' cells (each environment's file holds its
/// row, `Gymnasium::PAPER_RESULTS`).
pub const COLUMNS: [&str; 4] =
    ["Llama 3 70B, GIF-MCTS", "Llama 3 70B, WorldCoder", "GPT-4 Turbo, GIF-MCTS", "GPT-4 Turbo, WorldCoder"];

/// The paper's four cells for `env`, in the order of [`COLUMNS`].
pub fn paper_results(env: GymId) -> [PaperResult; 4] {
    let cells = env.paper_results();
    std::array::from_fn(|i| PaperResult { searched_by: COLUMNS[i], accuracy: cells[i].0, normalised: cells[i].1 })
}

/// The environments in the tables' order.
pub fn paper_environments() -> Vec<GymId> {
    let mut environments = GymId::ALL.to_vec();
    environments.sort_by_key(|env| env.paper_row());
    environments
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_environment_of_the_benchmark_has_its_row_as_the_paper_prints_it() {
        let names: Vec<&str> = paper_environments().iter().map(|env| env.name()).collect();
        assert_eq!(
            names,
            ["CartPole-v1", "CliffWalking-v0", "MountainCar-v0", "Taxi-v3", "Blackjack-v1", "Acrobot-v1"]
        );
        let blackjack = paper_results(GymId::Blackjack);
        assert_eq!((blackjack[3].accuracy, blackjack[3].normalised), (0.79, Some(0.59)));
        assert_eq!(blackjack[3].searched_by, "GPT-4 Turbo, WorldCoder");
        assert!(paper_results(GymId::Acrobot).iter().all(|r| r.normalised.is_none()));
    }
}
