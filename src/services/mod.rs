//! What the panes share, through leptos context or as plain functions: the training worker's
//! bridge, the runs, the Python worker pool, the LLM client, the host that drives effectful tasks,
//! storage (IndexedDB), the page's links, the service worker, and what the page knows about each run.

pub mod cancel;
pub mod chat;
pub mod engine_llm;
pub mod host;
pub mod in_tab_llm;
pub mod js_error;
pub mod links;
pub mod llm_choice;
pub mod llm_client;
pub mod model;
pub mod model_training;
pub mod offline;
pub mod python_pool;
pub mod python_worker;
pub mod run_book;
pub mod storage;
pub mod worker_bridge;
