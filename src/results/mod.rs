//! The Results pane: the metrics plot, the episode tree, the policy views, and a shared run's
//! results beside the replay.

pub mod plot;
pub mod policy;
pub mod shared_results;
pub mod tree_view;
