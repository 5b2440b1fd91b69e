//! The search methods, one file each, as their reports and official code specify them: GIF-MCTS
//! (with its value model), WorldCoder, zero-shot CoT, LATS and Reflexion, and the tests a search
//! writes for itself (LATS's and Reflexion's judge). Each implements [`crate::search::method::Method`].

pub mod gif_mcts;
pub mod lats;
pub mod own_tests;
pub mod reflexion;
pub mod value_model;
pub mod world_coder;
pub mod zero_shot;
