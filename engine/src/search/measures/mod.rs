//! Many searches at once and what they measure: seed 004's benches, the cheating measure, and the
//! paper's Table 1 for comparison.

pub mod bench;
pub mod cheat_measure;
pub mod paper_table_1;
