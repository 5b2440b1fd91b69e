//! Pieces of the page that several panes use: the Gymnasium canvas, the animation frame, file
//! download and upload, and the LLM's settings.

pub mod download;
pub mod frame;
pub mod gym_canvas;
pub mod llm_settings;
pub mod upload;
