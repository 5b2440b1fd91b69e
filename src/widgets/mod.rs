//! Pieces of the page that several panes use: the plots, the Gymnasium canvas, the animation frame, file
//! download and upload, the LLM's settings and the line that names the LLM a pane will call,
//! parameter inputs, a teacher's share options, and how a share is written.

pub mod chart;
pub mod chosen_llm;
pub mod download;
pub mod frame;
pub mod gym_canvas;
pub mod in_tab_model;
pub mod llm_settings;
pub mod param_fields;
pub mod teacher_options;
pub mod upload;

/// A share as the page writes it: one decimal, in percent.
pub fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}
