//! `rlcg stepcoder train`: StepCoder's PPO on a language model in the engine (`ModelPpo`), every
//! program run by python3 through the page's harness, each update and measurement printed as it
//! comes, and the trained model written as GGUF with its adapters merged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cli::host::Host;
use cli::python::NativePython;
use engine::device::Backend;
use engine::lm::language_model::LanguageModel;
use engine::lm::model::Numerics;
use engine::lm::quants::TensorType;
use engine::params;
use engine::share::training_link::fingerprint;
use engine::stepcoder::coder_tasks::{CoderTask, coder_tasks, first_of_each_split};
use engine::stepcoder::learner_params::Arm;
use engine::stepcoder::model_ppo::{ModelPpo, ModelPpoSpec, PassAt1Point};
use engine::stepcoder::model_ppo_params::ModelPpoParams;
use engine::stepcoder::training_work::TrainingWork;
use serde_json::{Value, json};

use crate::common::{Failure, io_failure, jobs_or_cores, usage};
use crate::lm::{CODE_MODEL, read_coder_tasks};

/// `rlcg stepcoder train`'s arguments.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// The model (default: models/rlcg-coder.gguf, the small code model, as this build has it).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Tasks in tasks/lm_coder.json's form (default: that file, as this build has it).
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// Only the first N training and M unseen tasks of the bundled ones, `N,M`, as the page's
    /// "Train the model" takes them.
    #[arg(long, value_name = "N,M", value_parser = first_tasks, conflicts_with = "tasks")]
    first: Option<(usize, usize)>,
    /// vanilla, cccs, fgo or stepcoder.
    #[arg(long, value_parser = Arm::parse, default_value = "stepcoder")]
    arm: Arm,
    /// PPO updates.
    #[arg(long, default_value_t = ModelPpoSpec::default().updates)]
    updates: usize,
    /// Updates between two measurements of pass@1.
    #[arg(long, default_value_t = ModelPpoSpec::default().measure_every)]
    measure_every: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sets a setting, e.g. `--param rollouts=8`, `--param policy_learning_rate=1e-3` or
    /// `--param curriculum.alpha=0.2` (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// ndarray (the CPU) or wgpu (a GPU through Vulkan, Metal or DX12, in a build with the
    /// `wgpu` feature).
    #[arg(long, value_parser = Backend::parse, default_value = "ndarray")]
    backend: Backend,
    /// Writes the trained model here (F16 matrices).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print `{spec, pass_at_1, fingerprint, seconds, history, measurements}` as the last line of
    /// stdout: pass@1 before, after and its change; the records' fingerprint, as a training's link
    /// in the page carries it; the seconds each kind of work took.
    #[arg(long)]
    json: bool,
}

/// `rlcg stepcoder train`.
pub fn run(args: &TrainArgs) -> Result<(), Failure> {
    let params = params::apply(&ModelPpoParams::default(), &args.params).map_err(|e| usage(format!("--param: {e}")))?;
    let TrainArgs { arm, updates, measure_every, seed, backend, .. } = *args;
    let spec = ModelPpoSpec { arm, updates, measure_every, seed, params, backend };
    let tasks = tasks(args.tasks.as_deref(), args.first)?;
    train(args.model.as_deref(), tasks, spec, args.out.as_deref(), args.json)
}

fn train(
    model: Option<&Path>,
    tasks: Vec<CoderTask>,
    spec: ModelPpoSpec,
    out: Option<&Path>,
    json: bool,
) -> Result<(), Failure> {
    let bytes = match model {
        Some(path) => std::fs::read(path).map_err(|e| io_failure(format!("{}: {e}", path.display())))?,
        None => CODE_MODEL.to_vec(),
    };
    let name = model.map_or("models/rlcg-coder.gguf".to_owned(), |p| p.display().to_string());
    let started = Instant::now();
    let mut shown = (0, 0);
    // Where the time went, by the kind of work each step did.
    let mut seconds: BTreeMap<TrainingWork, f64> = BTreeMap::new();
    let mut working = (TrainingWork::Measuring, Instant::now());
    let training = run_training(&bytes, &name, tasks, spec, jobs_or_cores(None), |t| {
        *seconds.entry(working.0).or_default() += working.1.elapsed().as_secs_f64();
        working = (t.work(), Instant::now());
        for m in &t.measurements[shown.1..] {
            println!(
                "after {} updates: pass@1 {:.1}% training, {:.1}% unseen",
                m.after_updates,
                100.0 * m.training,
                100.0 * m.unseen
            );
        }
        for r in &t.history[shown.0..] {
            let stages: Vec<String> =
                r.stages.iter().map(|(id, stage, rho)| format!("{id} c={stage} ρ={rho:.2}")).collect();
            println!(
                "update {}: reward {:+.3}, rollouts passed {:.0}% ({:.0}% of them special-cased), KL {:.4}, tokens kept \
                 {:.0}%; {}",
                r.update,
                r.mean_reward,
                100.0 * r.pass_rate,
                100.0 * r.special_cased,
                r.kl,
                100.0 * r.kept_share,
                stages.join(", ")
            );
        }
        shown = (t.history.len(), t.measurements.len());
    })?;
    println!("{} updates in {:.1} s", training.updates_done, started.elapsed().as_secs_f64());
    let spent: Vec<String> = seconds.iter().map(|(work, s)| format!("{} {s:.1} s", work.name())).collect();
    println!("by kind of work: {}", spent.join(", "));
    if let Some(path) = out {
        let file = training.model().to_gguf(TensorType::F16);
        std::fs::write(path, &file).map_err(|e| io_failure(format!("{}: {e}", path.display())))?;
        println!("wrote {} ({:.1} MB)", path.display(), file.len() as f64 / 1e6);
    }
    if json {
        println!(
            "{}",
            json!({
                "spec": training.spec,
                "pass_at_1": pass_at_1_change(&training.measurements),
                "fingerprint": fingerprint(&training.history, &training.measurements),
                "seconds": seconds.iter().map(|(work, s)| (work.name(), *s)).collect::<BTreeMap<_, _>>(),
                "history": training.history,
                "measurements": training.measurements,
            })
        );
    }
    Ok(())
}

/// pass@1 before training, after it and the change, on each split: what a sweep over seeds
/// averages (`rlcg sweep merge`).
fn pass_at_1_change(measurements: &[PassAt1Point]) -> Value {
    let (Some(before), Some(after)) = (measurements.first(), measurements.last()) else { return Value::Null };
    let split = |training: f64, unseen: f64| json!({ "training": training, "unseen": unseen });
    json!({
        "before": split(before.training, before.unseen),
        "after": split(after.training, after.unseen),
        "change": split(after.training - before.training, after.unseen - before.unseen),
    })
}

/// StepCoder's training of the model in `bytes` (`name` in messages) on `tasks`, its programs run
/// by `jobs` python3 processes; `on_step` sees it before the first step and after every step.
pub(crate) fn run_training(
    bytes: &[u8],
    name: &str,
    tasks: Vec<CoderTask>,
    spec: ModelPpoSpec,
    jobs: usize,
    mut on_step: impl FnMut(&ModelPpo),
) -> Result<ModelPpo, Failure> {
    let device = spec.backend.device().map_err(usage)?;
    let loaded = LanguageModel::load(bytes, &device, Numerics::F32).map_err(|e| usage(format!("{name}: {e}")))?;
    let mut training = ModelPpo::new(loaded, tasks, spec).map_err(usage)?;
    let mut python = NativePython::start().map_err(io_failure)?;
    on_step(&training);
    Host::without_llm(&mut python).with_jobs(jobs).drive(&mut training, on_step).map_err(io_failure)?;
    match &training.error {
        Some(error) => Err(usage(error.clone())),
        None => Ok(training),
    }
}

/// The tasks to train on: a file's, the first of each split of the bundled ones (`--first`), or
/// all the bundled ones.
pub(crate) fn tasks(file: Option<&Path>, first: Option<(usize, usize)>) -> Result<Vec<CoderTask>, Failure> {
    match (file, first) {
        (Some(path), _) => read_coder_tasks(path),
        (None, Some((training, unseen))) => {
            first_of_each_split(training, unseen).map_err(|e| usage(format!("--first: {e}")))
        }
        (None, None) => Ok(coder_tasks()),
    }
}

/// `--first N,M`: two whole numbers.
pub(crate) fn first_tasks(text: &str) -> Result<(usize, usize), String> {
    let parsed = text.split_once(',').and_then(|(n, m)| Some((n.trim().parse().ok()?, m.trim().parse().ok()?)));
    parsed.ok_or_else(|| format!("'{text}' is not N,M (the first N training and M unseen tasks)"))
}
