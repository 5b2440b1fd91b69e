//! Seed 004's Table 1: strict accuracy (%) on APPS competition problems with Llama 3 70B at 20
//! LLM calls, mean ± standard error, for the three methods the tables compare.

/// `(method name as [`crate::search::spec::MethodSpec::NAMES`] spells it, accuracy %, standard error)`.
pub const TABLE_1: [(&str, f64, f64); 3] =
    [("zero-shot", 23.2, 1.3), ("worldcoder", 25.1, 1.4), ("gif-mcts", 28.3, 1.4)];

/// The LLM calls per problem in Table 1.
pub const TABLE_1_BUDGET: u32 = 20;

/// `method`'s cell of Table 1 as the docs write it, e.g. `28.3 ± 1.4%`, or `—` for a method it
/// does not list.
pub fn table_1_cell(method: &str) -> String {
    TABLE_1
        .iter()
        .find(|(name, ..)| *name == method)
        .map_or("—".to_owned(), |(_, mean, se)| format!("{mean} ± {se}%"))
}
