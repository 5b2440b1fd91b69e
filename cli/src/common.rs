//! What the commands share: failures with their exit codes, the progress bar, and reading a task
//! file.

use std::path::Path;

use engine::task_import::{ImportedTask, parse_task_file};
use indicatif::{ProgressBar, ProgressStyle};

/// A failure and the exit code it maps to.
pub struct Failure {
    pub code: u8,
    pub message: String,
}

pub fn usage(message: impl Into<String>) -> Failure {
    Failure { code: 2, message: message.into() }
}

pub fn io_failure(message: impl Into<String>) -> Failure {
    Failure { code: 1, message: message.into() }
}

/// `jobs`, or as many as the machine has cores.
pub fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// `work` done on every item, `jobs` items at a time (a thread each), the results in the items'
/// order.
pub fn side_by_side<T: Sync, R: Send>(items: &[T], jobs: usize, work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new((0..items.len()).map(|_| None).collect::<Vec<Option<R>>>());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(index) else { return };
                    let result = work(item);
                    results.lock().expect("no worker panics holding the lock")[index] = Some(result);
                }
            });
        }
    });
    results.into_inner().expect("workers finished").into_iter().map(|r| r.expect("every item ran")).collect()
}

/// A progress bar on stderr counting `unit`.
pub fn progress_bar(length: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(length);
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}  {{msg}}");
    bar.set_style(ProgressStyle::with_template(&template).expect("the template is valid"));
    bar
}

/// The text of the file at `path`, or a failure that names it.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| io_failure(format!("{}: {e}", path.display())))
}

/// The tasks of a HumanEval JSONL or APPS-style JSON file; a file with any problem is refused
/// whole, with every problem named.
pub fn read_tasks(path: &Path) -> Result<Vec<ImportedTask>, Failure> {
    let text = read_text(path)?;
    let name = path.display().to_string();
    parse_task_file(&name, &text).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| format!("{name}: {e}")).collect();
        usage(format!("{} problem(s) in the task file, nothing done:\n{}", errors.len(), lines.join("\n")))
    })
}
