//! The Train pane: the run form and its parameter sections, starting runs (and the run a share
//! link starts), the runs table, making a run's share link, and what a link hides or locks.

pub mod controls;
pub mod new_run;
pub mod runs_table;
pub mod share_panel;
pub mod teacher;
