//! The Train pane: the run form and its parameter sections, starting runs (and the run a share
//! link starts), the runs table, and making a run's share link.

pub mod backend_choice;
pub mod controls;
pub mod new_run;
pub mod runs_table;
pub mod share_panel;
