//! `rlcg stepcoder`: seed 002 on the command line. `curriculum` shows each task's CCCS stages and
//! their prompts; `learn` runs Table 1's ablation on the line-bank learner, every program run by
//! python3 through the page's harness, and prints the table the page shows.

use std::path::{Path, PathBuf};
use std::time::Instant;

use cli::host::Host;
use cli::python::{self, NativePython};
use engine::params;
use engine::prompts::{PromptSet, id};
use engine::python::{DEFAULT_TIME_LIMIT_MS, ProgramRequest, Scope};
use engine::stepcoder::ablation::{Ablation, AblationReport, AblationSpec, CurvePoint, table_1_pass_at_1};
use engine::stepcoder::completion::{CompletionMode, CompletionRun, CompletionTask};
use engine::stepcoder::completion_params::CompletionParams;
use engine::stepcoder::curriculum::{Curriculum, CurriculumParams, RhoUpdate, ScopeKinds, StageView};
use engine::stepcoder::fgo::CompileErrorRule;
use engine::stepcoder::learner_params::{Arm, LearnerParams, UpdateRule};
use serde::Serialize;
use serde_json::json;

use crate::common::{Failure, io_failure, jobs_or_cores, progress_bar, read_tasks, usage};
use crate::llm_args::LlmArgs;

#[derive(clap::Subcommand)]
pub enum StepcoderCommand {
    /// Each task's curriculum (seed 002 Algorithm 1): its conditional statements E, the stages k,
    /// the stride s, and each stage's start line and prompt.
    Curriculum {
        /// Tasks: APPS+ (whose `scope` is used as it is), HumanEval JSONL or APPS JSON (the
        /// reference solution is analysed by python3).
        #[arg(long)]
        tasks: PathBuf,
        /// Only this task.
        #[arg(long)]
        task: Option<String>,
        /// Which statements count: all (APPS+'s twelve kinds) or control-flow.
        #[arg(long, value_parser = parse_kinds, default_value = "all")]
        kinds: ScopeKinds,
        /// Print one JSON object as the last line of stdout.
        #[arg(long)]
        json: bool,
    },
    /// The curriculum against an LLM (frozen: it does not learn): rounds of M completions per task
    /// at its current stage, each run against the tests, ρ and the stage after each round.
    Run {
        #[command(flatten)]
        args: CompletionArgs,
    },
    /// The difficulty profile: M completions at every stage of every task, pass@1 against the
    /// share of the solution given (eq. 1's premise).
    Profile {
        #[command(flatten)]
        args: CompletionArgs,
    },
    /// Table 1's ablation on the line-bank learner: vanilla, +CCCS, +FGO and StepCoder with the
    /// same seeds and budget; sampled pass@1 at the full task with 95% intervals over seeds.
    Learn {
        /// Arms, comma-separated: vanilla, cccs, fgo, stepcoder.
        #[arg(long, default_value = "vanilla,cccs,fgo,stepcoder")]
        arms: String,
        /// Seeds 1 to N.
        #[arg(long, default_value_t = 20)]
        seeds: u32,
        /// Task ids, comma-separated (default: every bundled task).
        #[arg(long)]
        tasks: Option<String>,
        /// Sets a learner setting, e.g. `--param learning_rate=0.5` or `--param curriculum.alpha=0.2`
        /// (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// reinforce or ppo-clip.
        #[arg(long, value_parser = parse_update, default_value = "reinforce")]
        update: UpdateRule,
        /// What FGO does with a program that does not compile: mask-all (literal) or keep-all.
        #[arg(long, value_parser = parse_compile_errors, default_value = "mask-all")]
        compile_errors: CompileErrorRule,
        /// Which statements the curriculum counts: all or control-flow.
        #[arg(long, value_parser = parse_kinds, default_value = "all")]
        kinds: ScopeKinds,
        /// When ρ is updated: per-rollout or per-batch.
        #[arg(long, value_parser = parse_rho_update, default_value = "per-rollout")]
        rho_update: RhoUpdate,
        /// python3 processes in parallel (default: the machine's cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Print one JSON object as the last line of stdout.
        #[arg(long)]
        json: bool,
    },
    /// StepCoder on a language model in the engine: PPO on its tokens (seed 002 §4.2) with the
    /// arm's CCCS and FGO, rewarded by the tests of the small code model's tasks, run by python3;
    /// pass@1 on the training and unseen tasks before, during and after; the trained model written
    /// as GGUF with its adapters merged.
    Train(crate::stepcoder_train::TrainArgs),
}

#[derive(clap::Args)]
pub struct CompletionArgs {
    /// Tasks: APPS+, HumanEval JSONL or APPS JSON (default: the bundled sample in APPS+'s format, four records written here; tasks/apps_plus/valid_sample.json holds real APPS+ records).
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// Only these task ids, comma-separated.
    #[arg(long)]
    task: Option<String>,
    #[command(flatten)]
    llm: LlmArgs,
    /// Seeds the simulated LLM.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sets a setting, e.g. `--param samples=8`, `--param rounds=4`, `--param temperature=0.2`,
    /// `--param simulated_fault=0.5` (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Which statements the curriculum counts: all or control-flow.
    #[arg(long, value_parser = parse_kinds, default_value = "all")]
    kinds: ScopeKinds,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    json: bool,
}

/// The value named `text` among `choices`, or the names to choose from.
fn choice<T: Copy>(text: &str, choices: &[(&str, T)]) -> Result<T, String> {
    let found = choices.iter().find(|(name, _)| *name == text);
    found.map(|(_, value)| *value).ok_or_else(|| choices.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(" or "))
}

fn parse_kinds(text: &str) -> Result<ScopeKinds, String> {
    choice(text, &[("all", ScopeKinds::All), ("control-flow", ScopeKinds::ControlFlow)])
}

fn parse_update(text: &str) -> Result<UpdateRule, String> {
    choice(text, &[("reinforce", UpdateRule::Reinforce), ("ppo-clip", UpdateRule::PpoClip)])
}

fn parse_compile_errors(text: &str) -> Result<CompileErrorRule, String> {
    choice(text, &[("mask-all", CompileErrorRule::MaskAll), ("keep-all", CompileErrorRule::KeepAll)])
}

fn parse_rho_update(text: &str) -> Result<RhoUpdate, String> {
    choice(text, &[("per-rollout", RhoUpdate::PerRollout), ("per-batch", RhoUpdate::PerBatch)])
}

pub fn run(command: &StepcoderCommand) -> Result<(), Failure> {
    match command {
        StepcoderCommand::Curriculum { tasks, task, kinds, json } => curriculum(tasks, task.as_deref(), *kinds, *json),
        StepcoderCommand::Run { args } => complete(args, CompletionMode::Curriculum),
        StepcoderCommand::Profile { args } => complete(args, CompletionMode::Profile),
        StepcoderCommand::Learn {
            arms,
            seeds,
            tasks,
            params,
            update,
            compile_errors,
            kinds,
            rho_update,
            jobs,
            json,
        } => {
            let arms = arms.split(',').map(|a| Arm::parse(a.trim())).collect::<Result<Vec<_>, _>>().map_err(usage)?;
            let template = LearnerParams {
                update: *update,
                compile_errors: *compile_errors,
                curriculum: CurriculumParams { kinds: *kinds, update: *rho_update, ..CurriculumParams::default() },
                ..LearnerParams::default()
            };
            let params = params::apply(&template, params).map_err(|e| usage(format!("--param: {e}")))?;
            let tasks =
                tasks.as_deref().map_or_else(Vec::new, |t| t.split(',').map(|id| id.trim().to_owned()).collect());
            let spec = AblationSpec { arms, seeds: *seeds, tasks, params };
            learn(spec, *jobs, *json)
        }
        StepcoderCommand::Train(args) => crate::stepcoder_train::run(args),
    }
}

#[derive(Serialize)]
struct StageReport {
    #[serde(flatten)]
    view: StageView,
    /// The user message of `stepcoder.complete` at this stage.
    prompt: String,
}

#[derive(Serialize)]
struct CurriculumReport {
    id: String,
    difficulty: Option<String>,
    /// E: the conditional statements that count, sorted by start.
    statements: Vec<Scope>,
    stages: usize,
    stride: usize,
    /// Where the scope came from: the task file (APPS+) or the harness.
    scope_from: &'static str,
    stage_views: Vec<StageReport>,
}

fn curriculum(path: &Path, only: Option<&str>, kinds: ScopeKinds, json: bool) -> Result<(), Failure> {
    let mut tasks = read_tasks(path)?;
    if let Some(id) = only {
        tasks.retain(|t| t.id == id);
        if tasks.is_empty() {
            return Err(usage(format!("{} has no task `{id}`", path.display())));
        }
    }
    // Tasks without APPS+'s attribute get it from the harness's analysis of their solution.
    let unscoped: Vec<ProgramRequest> = tasks
        .iter()
        .filter(|t| t.scope.is_none())
        .map(|t| ProgramRequest::new(t.solution.clone(), Vec::new()))
        .collect();
    let jobs = jobs_or_cores(None);
    let mut analysed = python::run_all(&unscoped, DEFAULT_TIME_LIMIT_MS, jobs, |_| {}).into_iter();
    let prompts = PromptSet::default();
    let params = CurriculumParams { kinds, ..CurriculumParams::default() };
    let mut reports = Vec::new();
    for task in &tasks {
        let (scope, scope_from) = match &task.scope {
            Some(scope) => (scope.clone(), "file"),
            None => {
                let verdict = analysed.next().expect("one verdict per request").map_err(io_failure)?;
                (verdict.scope, "harness")
            }
        };
        let curriculum = Curriculum::new(&scope, params);
        let mut statements: Vec<Scope> = scope.into_iter().filter(|s| kinds.counts(s.kind)).collect();
        statements.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
        let stage_views = curriculum
            .stage_views(&task.solution)
            .into_iter()
            .map(|view| {
                let prefix = curriculum.prefix_at(&task.solution, view.stage);
                let messages = prompts
                    .render(id::STEPCODER_COMPLETE, &[("task", &task.prompt), ("prefix", prefix)])
                    .expect("the default prompts are well formed");
                StageReport { view, prompt: messages.last().map(|m| m.content.clone()).unwrap_or_default() }
            })
            .collect();
        reports.push(CurriculumReport {
            id: task.id.clone(),
            difficulty: task.difficulty.clone(),
            statements,
            stages: curriculum.stages,
            stride: curriculum.stride,
            scope_from,
            stage_views,
        });
    }
    if json {
        println!("{}", json!({ "tasks": reports }));
        return Ok(());
    }
    for report in &reports {
        let starts: Vec<String> = report
            .stage_views
            .iter()
            .map(|s| s.view.start_line.map_or("whole program".into(), |l| format!("line {l}")))
            .collect();
        println!(
            "{}: E = {}, k = {}, s = {}; stages start at {}",
            report.id,
            report.statements.len(),
            report.stages,
            report.stride,
            starts.join(", then ")
        );
    }
    Ok(())
}

/// Runs the ablation of `spec`, every program in python3, `jobs` at a time (default: the machine's
/// cores).
pub(crate) fn run_ablation(spec: AblationSpec, jobs: Option<usize>) -> Result<(Ablation, AblationReport), Failure> {
    let mut ablation = Ablation::new(spec).map_err(usage)?;
    let jobs = jobs_or_cores(jobs);
    let (_, total) = ablation.progress();
    let bar = progress_bar(total, "executions");
    let started = Instant::now();
    let mut python = NativePython::start().map_err(io_failure)?;
    let driven =
        Host::without_llm(&mut python).with_jobs(jobs).drive(&mut ablation, |a| bar.set_position(a.progress().0));
    bar.finish_and_clear();
    driven.map_err(io_failure)?;
    if let Some(error) = &ablation.error {
        return Err(usage(error.clone()));
    }
    let report = ablation.report(started.elapsed().as_secs_f64());
    Ok((ablation, report))
}

fn learn(spec: AblationSpec, jobs: Option<usize>, json: bool) -> Result<(), Failure> {
    let (ablation, report) = run_ablation(spec, jobs)?;
    if json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
        return Ok(());
    }
    let (budget, params) = (ablation.spec.params.budget, &ablation.spec.params);
    println!(
        "pass@1 at the full task after {budget} executions per task, sampled at T = 1 and decoded at T = {}, \
         top-p {} (mean and 95% interval over seeds; vs vanilla: the paired difference, seed by seed); {}",
        params.measure_temperature,
        params.measure_top_p,
        params.rollout_rule()
    );
    let interval = |p: &CurvePoint| format!("{:+.3} [{:+.3}, {:+.3}]", p.mean, p.low, p.high);
    for row in &report.rows {
        let (last, decoded) = (row.curve.last(), row.decoded_curve.last());
        let (Some(last), Some(decoded)) = (last, decoded) else { continue };
        let greedy = match row.greedy_median_executions {
            Some(median) => format!("{} of {} (median {median:.0} executions)", row.greedy_passed, row.runs),
            None => format!("0 of {}", row.runs),
        };
        let masked = row.masked_share.map_or(String::new(), |m| format!("; FGO removed {:.1}% of terms", 100.0 * m));
        let versus = row.versus_vanilla.map_or(String::new(), |d| {
            format!(
                "\n    vs vanilla: T 1 {}, T {} {}",
                interval(&d.sampled),
                params.measure_temperature,
                interval(&d.decoded)
            )
        });
        let uncompiled = row
            .compile_error_share
            .map_or(String::new(), |c| format!("; {:.1}% of rollouts did not compile", 100.0 * c));
        println!(
            "  {:<14} {:<10} T 1 {:.3} [{:.3}, {:.3}]  decoded {:.3} [{:.3}, {:.3}]  greedy passes: {greedy}{masked}{uncompiled}{versus}",
            row.task.as_deref().unwrap_or("all tasks"),
            row.arm.name(),
            last.mean,
            last.low,
            last.high,
            decoded.mean,
            decoded.low,
            decoded.high,
        );
    }
    let table_1: Vec<String> =
        ablation.spec.arms.iter().map(|&arm| format!("{} {:.1}%", arm.name(), table_1_pass_at_1(arm))).collect();
    println!(
        "Table 1 (pass@1 on APPS+, 6.7B model, no intervals): {}; these are different quantities on a toy, \
         not a reproduction",
        table_1.join(", ")
    );
    println!(
        "fingerprint {}; {} distinct programs in {:.1} s",
        report.fingerprint, report.distinct_programs, report.wall_seconds
    );
    Ok(())
}

#[derive(Serialize)]
struct CompletionReport<'a> {
    mode: CompletionMode,
    llm: String,
    params: &'a CompletionParams,
    tasks: Vec<&'a str>,
    /// Curriculum runs: each task's rounds (stage, passes, ρ, whether it advanced).
    rounds: &'a [engine::stepcoder::completion::Round],
    /// Profiles: pass@1 per task and stage, with the share of the solution given.
    profile: Vec<engine::stepcoder::completion::ProfileCell>,
    /// Per outcome class: completions, and the share of generated tokens FGO kept.
    outcomes: Vec<OutcomeShare>,
    completions: usize,
    trimmed: usize,
    failed_calls: usize,
    /// With tests held out: passes that fail a held-out test ("special-cased?").
    special_cased: usize,
    tokens: u64,
    cost: f64,
    ended: &'a str,
}

#[derive(Serialize)]
struct OutcomeShare {
    outcome: engine::python::Outcome,
    completions: usize,
    kept_share: Option<f64>,
}

fn complete(args: &CompletionArgs, mode: CompletionMode) -> Result<(), Failure> {
    let template = CompletionParams {
        curriculum: CurriculumParams { kinds: args.kinds, ..CurriculumParams::default() },
        ..CompletionParams::default()
    };
    let params = params::apply(&template, &args.params).map_err(|e| usage(format!("--param: {e}")))?;
    let tasks = completion_tasks(args)?;
    let mut run = CompletionRun::new(mode, tasks, params, PromptSet::default()).map_err(usage)?;
    let mut llm = args.llm.choose(args.seed, Some(params.temperature))?;
    if let Some(settings) = llm.settings_mut() {
        settings.top_p = params.top_p;
    }
    let (label, prices) = (llm.label(), llm.prices());
    let mut python = NativePython::start().map_err(io_failure)?;
    // A run whose programs Python could not run has no result: it is an error.
    Host::new(llm, &mut python).streaming(args.json).drive(&mut run, |_| {}).map_err(io_failure)?;
    let report = CompletionReport {
        mode,
        llm: label,
        params: &run.params,
        tasks: run.tasks.iter().map(|t| t.id.as_str()).collect(),
        rounds: &run.rounds,
        profile: run.profile(),
        outcomes: outcome_shares(&run),
        completions: run.completions.len(),
        trimmed: run.completions.iter().filter(|c| c.trimmed).count(),
        failed_calls: run.completions.iter().filter(|c| c.outcome.is_none()).count(),
        special_cased: run.completions.iter().filter(|c| c.special_cased().is_some()).count(),
        tokens: run.usage.total(),
        cost: run.usage.cost(prices),
        ended: &run.ended,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        eprintln!();
        print_completion(&report);
    }
    Ok(())
}

/// The tasks to complete: the file's (or the bundled APPS+ sample's), only those `--task` names.
fn completion_tasks(args: &CompletionArgs) -> Result<Vec<CompletionTask>, Failure> {
    let mut tasks = match &args.tasks {
        Some(path) => read_tasks(path)?,
        None => engine::task_import::apps_plus_sample(),
    };
    if let Some(ids) = &args.task {
        let wanted: Vec<&str> = ids.split(',').map(str::trim).collect();
        tasks.retain(|t| wanted.contains(&t.id.as_str()));
        if tasks.is_empty() {
            return Err(usage(format!("no task {ids} in the task file")));
        }
    }
    Ok(tasks.iter().map(CompletionTask::from).collect())
}

/// Per outcome class: the completions, and the share of their generated tokens FGO kept.
fn outcome_shares(run: &CompletionRun) -> Vec<OutcomeShare> {
    let mut outcomes = Vec::new();
    for outcome in engine::python::Outcome::ALL {
        let of: Vec<_> = run.completions.iter().filter(|c| c.outcome == Some(outcome)).collect();
        if of.is_empty() {
            continue;
        }
        let mut kept = engine::stepcoder::fgo::KeptByOutcome::default();
        of.iter().filter_map(|c| c.mask.as_ref()).for_each(|mask| kept.add(mask));
        let kept_share = kept.0.get(&outcome).and_then(|counts| counts.share());
        outcomes.push(OutcomeShare { outcome, completions: of.len(), kept_share });
    }
    outcomes
}

fn print_completion(report: &CompletionReport) {
    println!(
        "{} with {}: the model does not learn; ρ and the stages measure how hard each stage is for it",
        match report.mode {
            CompletionMode::Curriculum => "curriculum",
            CompletionMode::Profile => "difficulty profile",
        },
        report.llm
    );
    for cell in &report.profile {
        println!(
            "  {:<16} stage {}  {:>4.0}% of the solution given  pass@1 {:.2} ({} of {})",
            cell.task,
            cell.stage,
            100.0 * cell.share_given,
            cell.pass_at_1,
            cell.passes,
            cell.samples
        );
    }
    for round in report.rounds {
        println!(
            "  {:<16} round {}  stage {}  {} of {} passed  ρ {:.3}{}",
            report.tasks[round.task],
            round.round + 1,
            round.stage,
            round.passes,
            round.samples,
            round.rho,
            if round.advanced { "  → next stage" } else { "" }
        );
    }
    if report.params.held_out_share > 0.0 {
        let passes = report.outcomes.iter().find(|s| s.outcome == engine::python::Outcome::Pass);
        println!(
            "  {:.0}% of each task's tests held out: {} of {} passes fail a held-out test (special-cased?)",
            100.0 * report.params.held_out_share,
            report.special_cased,
            passes.map_or(0, |s| s.completions)
        );
    }
    for share in &report.outcomes {
        let kept = share.kept_share.map_or("-".to_owned(), |s| format!("{:.1}%", 100.0 * s));
        println!(
            "  {:<14} {} completions, generated tokens kept by FGO {kept}",
            share.outcome.label(),
            share.completions
        );
    }
    println!("{} replies repeated the prefix and were trimmed; {}", report.trimmed, report.ended);
}
