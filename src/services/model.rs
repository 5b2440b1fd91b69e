//! What the page knows about each run, and the pure computations on it (plot series, exports).
//! Nothing here touches the DOM, so it is tested natively.

use std::collections::VecDeque;

use engine::pace::Pace;
use engine::policy_view::PolicyView;
use engine::protocol::Finished;
use engine::run::Fingerprint;
use engine::run::records_csv::records_csv;
use engine::{EpisodeRecord, EpisodeTree, RunSpec};
use serde::{Deserialize, Serialize};

/// Colour-blind-safe series colours (Okabe & Ito), one per run in turn.
pub const PALETTE: [(u8, u8, u8); 7] =
    [(0, 114, 178), (213, 94, 0), (0, 158, 115), (204, 121, 167), (230, 159, 0), (86, 180, 233), (0, 0, 0)];

/// The `k`th series' colour in a plot (from 0).
pub fn palette_colour(k: usize) -> (u8, u8, u8) {
    PALETTE[k % PALETTE.len()]
}

/// Run `id`'s series colour.
fn colour_of(id: u32) -> (u8, u8, u8) {
    palette_colour(id as usize - 1)
}

pub fn css_colour((r, g, b): (u8, u8, u8)) -> String {
    format!("rgb({r}, {g}, {b})")
}

#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Training,
    Paused,
    /// Training ended: the budget was spent, or the user stopped it early.
    Finished,
    /// Training stopped without finishing (the page was reloaded, or the run came from a file):
    /// resuming trains the recorded episodes again, then goes on.
    Interrupted,
    Failed(String),
}

impl Status {
    pub fn label(&self) -> &str {
        match self {
            Status::Training => "training",
            Status::Paused => "paused",
            Status::Finished => "finished",
            Status::Interrupted => "interrupted",
            Status::Failed(_) => "failed",
        }
    }
}

/// Episode ids of live episodes in a run's tree start here, apart from training's.
pub const LIVE_EPISODE_BASE: u32 = 1_000_000;

#[derive(Clone, Debug)]
pub struct RunData {
    pub id: u32,
    pub spec: RunSpec,
    pub colour: (u8, u8, u8),
    pub status: Status,
    pub records: Vec<EpisodeRecord>,
    pub tree: EpisodeTree,
    /// The latest policy the worker sent (when paused or finished).
    pub policy: Option<PolicyView>,
    pub finished: Option<Box<Finished>>,
    /// The fingerprint of the records once training has finished.
    pub fingerprint: Option<String>,
    /// The fingerprint of the records so far, updated as they arrive (a million records take
    /// tens of milliseconds to digest at once).
    pub digest: Fingerprint,
    /// Drawn in the plot.
    pub shown: bool,
    /// Live-mode episodes added to the tree (ids from [`LIVE_EPISODE_BASE`]).
    pub live_episodes: u32,
    /// How fast the worker trains it (the page's; it changes when records come, never which).
    pub pace: Pace,
}

impl RunData {
    pub fn new(id: u32, spec: RunSpec) -> Self {
        Self {
            id,
            colour: colour_of(id),
            spec,
            status: Status::Training,
            records: Vec::new(),
            tree: EpisodeTree::default(),
            policy: None,
            finished: None,
            fingerprint: None,
            digest: Fingerprint::default(),
            shown: true,
            live_episodes: 0,
            pace: Pace::Full,
        }
    }

    pub fn label(&self) -> String {
        format!(
            "#{} {} · {} · seed {}",
            self.id,
            self.spec.env.id().name(),
            self.spec.agent.id().name(),
            self.spec.seed
        )
    }

    pub fn add(&mut self, records: Vec<EpisodeRecord>) {
        for record in &records {
            let o = &record.outcome;
            self.tree.add(record.episode, &o.actions, o.episode_return, o.success);
            self.digest.add(record);
        }
        self.records.extend(records);
    }

    /// A run read back from an exported file, shown as it was (plot, tree, results).
    pub fn imported(id: u32, run: ImportedRun) -> Self {
        let mut data = Self::new(id, run.spec);
        data.add(run.records);
        data.status = Status::Interrupted;
        if let Some(mut finished) = run.finished {
            finished.run_id = id;
            data.finish(finished);
        }
        data
    }

    /// The same run under another id.
    pub fn renumber(&mut self, id: u32) {
        self.id = id;
        self.colour = colour_of(id);
        if let Some(finished) = self.finished.as_mut() {
            finished.run_id = id;
        }
    }

    /// Training ended: the results and the final policy are in.
    pub fn finish(&mut self, finished: Box<Finished>) {
        self.status = Status::Finished;
        self.policy = Some(finished.policy.clone());
        self.finished = Some(finished);
        self.fingerprint = Some(self.digest.value());
    }

    pub fn success_last100(&self) -> f64 {
        self.records.last().map_or(0.0, |r| r.success_last100)
    }
}

/// The metrics the plot can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotMetric {
    SuccessLast100,
    Return,
    Loss,
    Epsilon,
    Length,
}

impl PlotMetric {
    pub const ALL: [PlotMetric; 5] =
        [PlotMetric::SuccessLast100, PlotMetric::Return, PlotMetric::Loss, PlotMetric::Epsilon, PlotMetric::Length];

    pub fn key(self) -> &'static str {
        match self {
            PlotMetric::SuccessLast100 => "success_last100",
            PlotMetric::Return => "return",
            PlotMetric::Loss => "loss",
            PlotMetric::Epsilon => "epsilon",
            PlotMetric::Length => "length",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            PlotMetric::SuccessLast100 => "Success rate over the last 100 episodes",
            PlotMetric::Return => "Episode return",
            PlotMetric::Loss => "Loss (mean TD error² of the episode's learn steps)",
            PlotMetric::Epsilon => "Exploration rate ε",
            PlotMetric::Length => "Episode length (steps)",
        }
    }

    pub fn parse(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.key() == key)
    }

    pub fn value(self, record: &EpisodeRecord) -> Option<f64> {
        match self {
            PlotMetric::SuccessLast100 => Some(record.success_last100),
            PlotMetric::Return => Some(record.outcome.episode_return),
            PlotMetric::Loss => record.loss,
            PlotMetric::Epsilon => record.epsilon,
            PlotMetric::Length => Some(f64::from(record.outcome.length)),
        }
    }
}

/// The plotted series of `metric`: a trailing moving average over `window` episodes, averaged
/// into at most `max_points` buckets so that long runs draw as fast as short ones. One pass and no
/// copy of the records: the plot redraws with every progress message, and a run may hold millions.
pub fn series(records: &[EpisodeRecord], metric: PlotMetric, window: usize, max_points: usize) -> Vec<(f64, f64)> {
    let window = window.max(1);
    let bucket = records.len().div_ceil(max_points.max(1)).max(1);
    let mut recent = VecDeque::with_capacity(window + 1);
    let mut sum = 0.0;
    let mut points = Vec::with_capacity(max_points + 1);
    let (mut episode_sum, mut value_sum, mut in_bucket) = (0.0, 0.0, 0usize);
    for (episode, value) in records.iter().filter_map(|r| Some((f64::from(r.episode), metric.value(r)?))) {
        sum += value;
        recent.push_back(value);
        if recent.len() > window {
            sum -= recent.pop_front().unwrap_or_default();
        }
        episode_sum += episode;
        value_sum += sum / recent.len() as f64;
        in_bucket += 1;
        if in_bucket == bucket {
            points.push((episode_sum / bucket as f64, value_sum / bucket as f64));
            (episode_sum, value_sum, in_bucket) = (0.0, 0.0, 0);
        }
    }
    if in_bucket > 0 {
        points.push((episode_sum / in_bucket as f64, value_sum / in_bucket as f64));
    }
    points
}

/// One row per episode of every run, in the engine's one schema.
pub fn metrics_csv(runs: &[&RunData]) -> String {
    records_csv(runs.iter().map(|run| (run.id, &run.spec, run.records.as_slice())))
}

#[derive(Serialize)]
struct RunExport<'a> {
    id: u32,
    spec: &'a RunSpec,
    status: &'a str,
    finished: Option<&'a Finished>,
    records: &'a [EpisodeRecord],
}

impl<'a> RunExport<'a> {
    fn of(run: &'a RunData) -> Self {
        Self {
            id: run.id,
            spec: &run.spec,
            status: run.status.label(),
            finished: run.finished.as_deref(),
            records: &run.records,
        }
    }
}

/// Every run's spec, results and episode records.
pub fn metrics_json(runs: &[&RunData]) -> Result<String, String> {
    let runs: Vec<RunExport> = runs.iter().map(|r| RunExport::of(r)).collect();
    serde_json::to_string_pretty(&runs).map_err(|e| format!("the runs could not be exported: {e}"))
}

/// A run of an exported JSON file (`metrics_json`), read back.
#[derive(Debug, Deserialize)]
pub struct ImportedRun {
    pub spec: RunSpec,
    pub finished: Option<Box<Finished>>,
    pub records: Vec<EpisodeRecord>,
}

/// Reads the runs of an exported JSON file; a problem names the file, and the run and record or the
/// line and column where it is.
pub fn parse_runs_json(name: &str, text: &str) -> Result<Vec<ImportedRun>, String> {
    let runs: Vec<ImportedRun> = serde_json::from_str(text).map_err(|e| {
        format!("{name} is not a runs file exported by this page (line {}, column {}: {e})", e.line(), e.column())
    })?;
    if runs.is_empty() {
        return Err(format!("{name} holds no run"));
    }
    for (index, run) in runs.iter().enumerate() {
        let at = |what: String| format!("{name}, run {}: {what}", index + 1);
        run.spec.validate().map_err(at)?;
        if run.records.len() > run.spec.episodes as usize {
            return Err(at(format!("{} records for a budget of {} episodes", run.records.len(), run.spec.episodes)));
        }
        if let Some((i, record)) = run.records.iter().enumerate().find(|(i, r)| r.episode as usize != *i) {
            return Err(at(format!("record {} is episode {} where {i} was expected", i + 1, record.episode)));
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{AgentId, EnvId, Run};

    fn trained(episodes: u32) -> RunData {
        let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, episodes);
        let mut data = RunData::new(1, spec.clone());
        data.add(Run::new(spec).unwrap().collect());
        data
    }

    #[test]
    fn the_running_digest_is_the_fingerprint_of_the_records_added_in_batches() {
        let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 4, 700);
        let records: Vec<_> = Run::new(spec.clone()).unwrap().collect();
        let mut data = RunData::new(1, spec);
        for batch in records.chunks(97) {
            data.add(batch.to_vec());
        }
        assert_eq!(data.digest.value(), engine::run::fingerprint(&records));
        assert_ne!(data.digest.value(), engine::run::fingerprint(&records[..699]));
    }

    #[test]
    fn series_smooth_with_a_trailing_window_and_bucket_long_runs() {
        let run = trained(1000);
        let raw = series(&run.records, PlotMetric::Return, 1, 10_000);
        assert_eq!(raw.len(), 1000);
        assert!((raw[3].1 - run.records[3].outcome.episode_return).abs() < 1e-9);
        let smooth = series(&run.records, PlotMetric::Return, 10, 10_000);
        let mean: f64 = run.records[0..10].iter().map(|r| r.outcome.episode_return).sum::<f64>() / 10.0;
        assert!((smooth[9].1 - mean).abs() < 1e-9);
        // The first points average what there is so far.
        assert!((smooth[0].1 - raw[0].1).abs() < 1e-9);
        let bucketed = series(&run.records, PlotMetric::Return, 1, 100);
        assert_eq!(bucketed.len(), 100);
        assert!((bucketed[0].0 - 4.5).abs() < 1e-9, "bucket of episodes 0..10 sits at 4.5");
        // Episodes without a value (no learn step yet) are skipped, not drawn as zero.
        let mut gappy = run.records.clone();
        gappy[0].loss = None;
        assert_eq!(series(&gappy, PlotMetric::Loss, 1, 10_000).len(), 999);
    }

    #[test]
    fn csv_has_a_row_per_episode_with_named_actions() {
        let run = trained(50);
        let csv = metrics_csv(&[&run]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 51);
        assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
        assert!(lines[1].starts_with("1,orchestrator,q-learning,1,0,"), "{}", lines[1]);
        let actions = lines[1].rsplit(',').next().unwrap();
        assert!(actions.split(' ').all(|a| ["planner", "coder", "tester", "debugger"].contains(&a)), "{actions}");
    }

    #[test]
    fn json_export_round_trips_the_records() {
        let run = trained(20);
        let json: serde_json::Value = serde_json::from_str(&metrics_json(&[&run]).unwrap()).unwrap();
        assert_eq!(json[0]["records"].as_array().unwrap().len(), 20);
        assert_eq!(json[0]["spec"]["env"]["kind"], "orchestrator");
        assert_eq!(json[0]["spec"]["env"]["reward_success"], 10.0, "the environment's parameters are exported");
    }

    #[test]
    fn exported_runs_read_back_as_they_were() {
        let run = trained(300);
        let text = metrics_json(&[&run]).unwrap();
        let imported = parse_runs_json("runs.json", &text).unwrap();
        assert_eq!(imported.len(), 1);
        let back = RunData::imported(9, imported.into_iter().next().unwrap());
        assert_eq!(back.spec, run.spec);
        assert_eq!(back.records, run.records);
        assert_eq!(back.status, Status::Interrupted, "no results were exported for this run");
        assert_eq!(back.tree.nodes().len(), run.tree.nodes().len());
        assert_eq!(back.tree.node(0).visits, 300);

        // An export from before environment parameters names the environment alone.
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old[0]["spec"]["env"] = "orchestrator".into();
        let imported = parse_runs_json("old.json", &old.to_string()).unwrap();
        assert_eq!(RunData::imported(10, imported.into_iter().next().unwrap()).spec, run.spec);
    }

    #[test]
    fn a_bad_runs_file_names_the_run_and_the_problem() {
        let run = trained(20);
        let mut value: serde_json::Value = serde_json::from_str(&metrics_json(&[&run]).unwrap()).unwrap();
        value[0]["records"][3]["episode"] = 7.into();
        let problem = parse_runs_json("runs.json", &value.to_string()).unwrap_err();
        assert_eq!(problem, "runs.json, run 1: record 4 is episode 7 where 3 was expected");
        let problem = parse_runs_json("x.json", "[{\"spec\": 1}]").unwrap_err();
        assert!(problem.starts_with("x.json is not a runs file exported by this page (line 1, column"), "{problem}");
        assert_eq!(parse_runs_json("e.json", "[]").unwrap_err(), "e.json holds no run");
    }
}
