//! The native side of `rlcg`: what the command needs beyond the engine (running Python).

pub mod python;
