//! Pieces of the page that several panes use: the Gymnasium canvas, the animation frame, file
//! download and upload, the LLM's settings, and a teacher's share options.

pub mod download;
pub mod frame;
pub mod gym_canvas;
pub mod llm_settings;
pub mod teacher_options;
pub mod upload;
