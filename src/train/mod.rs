//! The Train pane: the run form and its parameter sections, starting runs (and the run a share
//! link starts), the runs table, and making a run's share link.

pub mod backend_choice;
pub mod controls;
pub mod new_run;
pub mod pace_choice;
pub mod runs_table;
pub mod share_panel;

use engine::device::GpuAdapter;
use engine::share::ShareLink;
use leptos::prelude::*;

use crate::train::new_run::NewRunPanel;
use crate::train::runs_table::RunsTable;
use crate::train::share_panel::SharePanel;

/// The Train pane: the run form (started from `link` when the page was opened with one), the runs
/// and the sharing of a run.
#[component]
pub fn TrainPane(
    link: Option<ShareLink>,
    ready: ReadSignal<bool>,
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <NewRunPanel link=link ready=ready webgpu=webgpu error=error />
        <RunsTable />
        <SharePanel />
    }
}
