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

/// The four columns, in the order of [`paper_results`]' cells.
pub const COLUMNS: [&str; 4] =
    ["Llama 3 70B, GIF-MCTS", "Llama 3 70B, WorldCoder", "GPT-4 Turbo, GIF-MCTS", "GPT-4 Turbo, WorldCoder"];

/// An accuracy and an R(CWM), as the tables print them.
type Cell = (f64, Option<f64>);

const TABLES_9_AND_10: [(GymId, [Cell; 4]); 6] = [
    (GymId::CartPole, [(1.00, Some(1.11)), (0.92, Some(1.09)), (1.00, Some(0.99)), (1.00, Some(1.00))]),
    (GymId::CliffWalking, [(1.00, Some(1.01)), (1.00, Some(0.97)), (1.00, Some(0.98)), (1.00, Some(0.89))]),
    (GymId::MountainCar, [(1.00, None), (0.83, None), (1.00, None), (1.00, None)]),
    (GymId::Taxi, [(0.92, Some(0.67)), (0.44, Some(0.23)), (0.99, Some(0.87)), (0.99, Some(0.67))]),
    (GymId::Blackjack, [(0.83, Some(0.53)), (0.85, Some(0.41)), (0.93, Some(0.41)), (0.79, Some(0.59))]),
    (GymId::Acrobot, [(0.54, None), (0.73, None), (0.53, None), (0.42, None)]),
];

/// The paper's four cells for `env`, in the order of [`COLUMNS`].
pub fn paper_results(env: GymId) -> [PaperResult; 4] {
    let cells = TABLES_9_AND_10.iter().find(|(e, _)| *e == env).map_or([(0.0, None); 4], |(_, cells)| *cells);
    std::array::from_fn(|i| PaperResult { searched_by: COLUMNS[i], accuracy: cells[i].0, normalised: cells[i].1 })
}

/// The environments in the tables' order.
pub fn paper_environments() -> impl Iterator<Item = GymId> {
    TABLES_9_AND_10.iter().map(|(env, _)| *env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_environment_of_the_benchmark_has_its_row_as_the_paper_prints_it() {
        assert_eq!(paper_environments().count(), 6);
        let blackjack = paper_results(GymId::Blackjack);
        assert_eq!((blackjack[3].accuracy, blackjack[3].normalised), (0.79, Some(0.59)));
        assert_eq!(blackjack[3].searched_by, "GPT-4 Turbo, WorldCoder");
        assert!(paper_results(GymId::Acrobot).iter().all(|r| r.normalised.is_none()));
    }
}
