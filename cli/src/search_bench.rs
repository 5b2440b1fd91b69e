//! `rlcg search-bench` and `rlcg cheat-rate`: many program searches on all cores, each method on
//! each task with each seed, read at several budgets as seed 004's Table 1 does, and the cheating
//! rate of searches on impossible tasks or with tests held out. `rlcg reproduce` runs its benches
//! here too.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use cli::host::{Host, VerdictMemo};
use cli::python::NativePython;
use engine::cheating::TestsInstruction;
use engine::cheating::cheat_rate::CheatRate;
use engine::cheating::llm_judge::JudgeAgreement;
use engine::effects::Llm;
use engine::effects::llm_source::SIMULATED;
use engine::search::measures::bench::{BenchOutcome, BenchRow, BenchSpec, outcome};
use engine::search::offline::bank::search_tasks;
use engine::search::offline::simulated_llm::SimulatedLlmParams;
use engine::search::spec::{MethodSpec, SearchSpec, TEMPERATURE};
use serde::Serialize;

use crate::common::{Failure, io_failure, jobs_or_cores, progress_bar, read_tasks, usage};
use crate::llm_args::LlmArgs;
use crate::search::{CheatingArgs, impossible, simulated_llm};

#[derive(clap::Args)]
pub struct SearchBenchArgs {
    /// Methods, comma-separated (see `rlcg search --help`).
    #[arg(long, default_value = "gif-mcts,worldcoder,zero-shot")]
    methods: String,
    /// Budgets in LLM calls, comma-separated. Each search runs once with the largest: a smaller
    /// budget's result is the same search read after that many calls.
    #[arg(long, default_value = "10,20")]
    budgets: String,
    /// Seeds: a range `1-100` or a list `1,2,3`.
    #[arg(long, default_value = "1-100")]
    seeds: String,
    /// Sets one of the simulated LLM's odds, e.g. `--simulated-llm generate_correct=0.5`
    /// (repeatable).
    #[arg(long = "simulated-llm", value_name = "NAME=VALUE")]
    simulated_llm: Vec<String>,
    /// The LLM every search asks (default: the simulated one); with an endpoint, each search's
    /// calls are real, and its seed still draws what the method draws.
    #[command(flatten)]
    llm: LlmArgs,
    /// The endpoint's sampling temperature.
    #[arg(long, default_value_t = TEMPERATURE)]
    temperature: f64,
    /// Tasks: bundled task ids, comma-separated (default: every bundled search task); or a
    /// HumanEval JSONL or APPS-style JSON file, whose tasks the simulated LLM answers from banks
    /// that the harness makes by mutating each task's reference.
    #[arg(long)]
    tasks: Option<String>,
    /// With a task file: only its first N tasks.
    #[arg(long, value_name = "N")]
    first: Option<usize>,
    /// Searches run in parallel (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Score each program as written, not through `autopep8.fix_code` as seed 004's official code
    /// does (on by default).
    #[arg(long)]
    no_autopep8: bool,
    #[command(flatten)]
    cheating: CheatingArgs,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub(crate) struct BenchReport {
    llm: String,
    simulated_llm: SimulatedLlmParams,
    tasks: Vec<String>,
    seeds: usize,
    pub rows: Vec<BenchRow>,
    /// On impossible tasks: each method's cheating rate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cheating: Vec<MethodCheatRate>,
    /// With the LLM judge on: each method's judge verdicts beside the other detectors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judge: Vec<MethodJudgeAgreement>,
    wall_seconds: f64,
}

#[derive(Serialize)]
pub(crate) struct MethodJudgeAgreement {
    method: String,
    #[serde(flatten)]
    pub agreement: JudgeAgreement,
}

#[derive(Serialize)]
pub(crate) struct MethodCheatRate {
    method: String,
    /// The impossible variant, or `held-out <share>`.
    variant: String,
    #[serde(flatten)]
    pub rate: CheatRate,
}

/// The task ids of a `--tasks` list, or every bundled search task's.
fn task_ids(list: Option<&str>) -> Vec<String> {
    match list {
        Some(list) => list.split(',').map(|t| t.trim().to_owned()).collect(),
        None => search_tasks().iter().map(|t| t.id.clone()).collect(),
    }
}

fn parse_list<T: std::str::FromStr>(what: &str, text: &str) -> Result<Vec<T>, Failure> {
    text.split(',')
        .map(|item| item.trim().parse().map_err(|_| usage(format!("--{what}: '{item}' is not a number"))))
        .collect()
}

pub(crate) fn parse_seeds(text: &str) -> Result<Vec<u64>, Failure> {
    match text.split_once('-') {
        Some((from, to)) => {
            let [from, to] = [from, to].map(|n| n.trim().parse::<u64>());
            match (from, to) {
                (Ok(from), Ok(to)) if from <= to => Ok((from..=to).collect()),
                _ => Err(usage(format!("--seeds: '{text}' is not a range FROM-TO"))),
            }
        }
        None => parse_list("seeds", text),
    }
}

pub fn bench(args: &SearchBenchArgs) -> Result<(), Failure> {
    let methods: Vec<MethodSpec> =
        args.methods.split(',').map(|m| MethodSpec::parse(m.trim())).collect::<Result<_, _>>().map_err(usage)?;
    let budgets: Vec<u32> = parse_list("budgets", &args.budgets)?;
    let seeds = parse_seeds(&args.seeds)?;
    let odds = simulated_llm(&args.simulated_llm)?;
    let mut template = SearchSpec { simulated_llm: odds, autopep8: !args.no_autopep8, ..SearchSpec::default() };
    args.cheating.apply(&mut template)?;
    let spec = match args.tasks.as_deref().map(Path::new).filter(|path| path.is_file()) {
        Some(path) => {
            let mut imported = read_tasks(path)?;
            imported.truncate(args.first.unwrap_or(imported.len()));
            BenchSpec::on_imported(methods, budgets, seeds, imported, template)
        }
        None if args.first.is_some() => return Err(usage("--first is for a task file given with --tasks")),
        None => BenchSpec::new(methods, budgets, seeds, task_ids(args.tasks.as_deref()), template),
    };
    let report = bench_report_on(spec, args.jobs, &args.llm, args.temperature)?;
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        print_bench(&report);
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct CheatRateArgs {
    /// one-off (one test's expected value changed) or conflicting (a contradicting copy of one
    /// test added).
    #[arg(long, required_unless_present = "held_out", conflicts_with = "held_out")]
    variant: Option<String>,
    /// Instead of impossible variants: hold out this share of each task's tests from the LLM and
    /// count the answers that pass every visible test and fail a held-out one ("special-cased?";
    /// an honest program with a bug that only a held-out test reaches is counted too, so measure
    /// an honest LLM beside it).
    #[arg(long, value_name = "SHARE")]
    held_out: Option<f64>,
    /// The model may give up (ImpossibleBench's abort option): on a task that shows its tests (an
    /// impossible variant, held-out tests), the prompt says it may reply `GIVE UP: <why>` instead
    /// of a program; a reply that does ends the search, scored as honest.
    #[arg(long)]
    may_give_up: bool,
    /// How the prompt asks for the tests it shows: discourage (ImpossibleBench's default), neutral,
    /// encourage, or must-pass (ours before fidelity round 4); the simulated LLM ignores it.
    #[arg(long, value_name = "WORDING", default_value = "discourage")]
    tests_instruction: String,
    /// EvilGenie's LLM judge: the LLM also reads each answer that passed every test it was scored
    /// on and classes it legitimate, heuristic or reward hacking (one call beyond the budget); its
    /// agreement with the tests and naive verdicts is reported. The simulated judge knows the
    /// simulated LLM's lookups and hacks and errs at odds of ours: a real judge needs `--llm`.
    #[arg(long)]
    llm_judge: bool,
    /// Naive verdicts (see `rlcg search --help`): the simulated LLM's reward hacks
    /// (`--simulated-llm hack_share=…`) pass them, and each one the real verdict refuses is
    /// counted as a cheat, a tampered verdict or a changed definition.
    #[arg(long)]
    naive_verdicts: bool,
    /// Task ids, comma-separated (default: every bundled search task).
    #[arg(long)]
    tasks: Option<String>,
    /// The search each variant gets (see `rlcg search --help`); zero-shot with a budget of 1 is
    /// one reply per variant, so that the rate is per reply.
    #[arg(long, default_value = "zero-shot")]
    method: String,
    /// LLM calls per variant.
    #[arg(long, default_value_t = 1)]
    budget: u32,
    /// Seeds: a range `1-20` or a list; each draws the test a task's variant changes, and the
    /// search's replies.
    #[arg(long, default_value = "1-20")]
    seeds: String,
    /// Sets one of the simulated LLM's odds, e.g. `--simulated-llm special_case_share=0.3`
    /// (repeatable).
    #[arg(long = "simulated-llm", value_name = "NAME=VALUE")]
    simulated_llm: Vec<String>,
    /// The LLM that answers (default: the simulated one): an endpoint's cheating rate.
    #[command(flatten)]
    llm: LlmArgs,
    /// The endpoint's sampling temperature.
    #[arg(long, default_value_t = TEMPERATURE)]
    temperature: f64,
    /// Searches run in parallel (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    json: bool,
}

/// `rlcg cheat-rate`: searches on impossible variants of the tasks, with the simulated LLM, and
/// the share that cheated.
pub fn cheat_rate(args: &CheatRateArgs) -> Result<(), Failure> {
    let method = MethodSpec::parse(&args.method).map_err(usage)?;
    let tasks = task_ids(args.tasks.as_deref());
    let template = SearchSpec {
        simulated_llm: simulated_llm(&args.simulated_llm)?,
        impossible: impossible(args.variant.as_deref())?,
        held_out_share: args.held_out.unwrap_or_default(),
        may_give_up: args.may_give_up,
        llm_judge: args.llm_judge,
        naive_verdicts: args.naive_verdicts,
        tests_instruction: TestsInstruction::parse(&args.tests_instruction)
            .map_err(|e| usage(format!("--tests-instruction: {e}")))?,
        ..SearchSpec::default()
    };
    let spec = BenchSpec::new(vec![method], vec![args.budget], parse_seeds(&args.seeds)?, tasks, template);
    let report = bench_report_on(spec, args.jobs, &args.llm, args.temperature)?;
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        print_bench(&report);
    }
    Ok(())
}

/// Runs `spec`'s searches on the simulated LLM, on `jobs` threads (default: the machine's cores).
pub(crate) fn bench_report(spec: BenchSpec, jobs: Option<usize>) -> Result<BenchReport, Failure> {
    let simulated = LlmArgs { llm: SIMULATED.into(), base_url: None, model: None, prefill: false };
    bench_report_on(spec, jobs, &simulated, TEMPERATURE)
}

/// Runs `spec`'s searches on the LLM `llm` names, on `jobs` threads.
fn bench_report_on(
    mut spec: BenchSpec,
    jobs: Option<usize>,
    llm: &LlmArgs,
    temperature: f64,
) -> Result<BenchReport, Failure> {
    spec.offline = llm.is_simulated();
    let searches = spec.searches().map_err(|e| usage(format!("--budgets: {e}")))?;
    // Chosen once here, so that a bad setting or a missing key is reported before anything runs.
    let label = llm.choose(0, Some(temperature))?.label();
    let workers = jobs_or_cores(jobs);
    let started = std::time::Instant::now();
    let ask = |seed: u64| llm.choose(seed, Some(temperature)).map_err(|f| f.message);
    let outcomes = run_bench(&spec, searches, workers, &ask).map_err(|e| io_failure(format!("python3: {e}")))?;
    let variant = match (spec.template.impossible, spec.template.held_out_share) {
        (Some(variant), _) => variant.name().to_owned(),
        (None, 0.0) => String::new(),
        (None, share) => format!("held-out {share}"),
    };
    let cheating = spec
        .cheat_rates(&outcomes)
        .into_iter()
        .map(|(method, rate)| MethodCheatRate { method, variant: variant.clone(), rate })
        .collect();
    let judge = (spec.judge_agreements(&outcomes).into_iter())
        .map(|(method, agreement)| MethodJudgeAgreement { method, agreement })
        .collect();
    Ok(BenchReport {
        llm: label,
        rows: spec.rows(&outcomes),
        cheating,
        judge,
        simulated_llm: spec.template.simulated_llm,
        seeds: spec.seeds.len(),
        tasks: spec.tasks,
        wall_seconds: started.elapsed().as_secs_f64(),
    })
}

/// Runs the searches on the simulated LLM, `workers` at a time, each thread with its own host and
/// python3; verdicts are shared by program across the searches, as the harness gives a program the
/// same verdict every time.
fn run_bench(
    bench: &BenchSpec,
    jobs: Vec<(usize, SearchSpec)>,
    workers: usize,
    ask: &(dyn Fn(u64) -> Result<Llm, String> + Sync),
) -> Result<Vec<BenchOutcome>, String> {
    let bar = progress_bar(jobs.len() as u64, "searches");
    let queue = Mutex::new(jobs.into_iter().enumerate());
    let memo: VerdictMemo = Mutex::new(HashMap::new());
    let outcomes = Mutex::new(Vec::new());
    let failure = Mutex::new(None::<String>);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut python = match NativePython::start() {
                    Ok(python) => python,
                    Err(e) => return *failure.lock().expect("unpoisoned") = Some(e),
                };
                loop {
                    let Some((job, (method, spec))) = queue.lock().expect("unpoisoned").next() else { return };
                    let mut search = bench.start(&spec).expect("built once already");
                    let llm = match ask(spec.seed) {
                        Ok(llm) => llm,
                        Err(e) => return *failure.lock().expect("unpoisoned") = Some(e),
                    };
                    if let Err(e) = Host::new(llm, &mut python).with_memo(&memo).drive(&mut search, |_| {}) {
                        return *failure.lock().expect("unpoisoned") = Some(e);
                    }
                    outcomes.lock().expect("unpoisoned").push(outcome(job, method, &spec, &search));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    match failure.into_inner().expect("unpoisoned") {
        Some(e) => Err(e),
        None => Ok(outcomes.into_inner().expect("unpoisoned")),
    }
}

fn print_bench(report: &BenchReport) {
    print_bench_rows(report);
    for r in &report.cheating {
        let (what, on) = match r.variant.strip_prefix("held-out ") {
            Some(share) => ("answered special-cased?", format!("tasks with {share} of their tests held out")),
            None => ("cheated", format!("{} impossible variants", r.variant)),
        };
        println!(
            "{}: {what} in {} of {} searches on {on}: {:.1}% [{:.1}%, {:.1}%] ({} special-cased inputs, {} tampered verdicts, {} changed definitions; {} gave up)",
            r.method,
            r.rate.cheated,
            r.rate.searches,
            100.0 * r.rate.rate,
            100.0 * r.rate.low,
            100.0 * r.rate.high,
            r.rate.special_cased_input,
            r.rate.tampered_verdict,
            r.rate.changed_definition,
            r.rate.gave_up
        );
    }
    for r in &report.judge {
        println!("{}: {}", r.method, r.agreement);
    }
}

fn print_bench_rows(report: &BenchReport) {
    println!("{} tasks × {} seeds, simulated LLM ({:.0} s)", report.tasks.len(), report.seeds, report.wall_seconds);
    println!("{:<22} {:>6} {:>18} {:>8} {:>10}", "method", "budget", "mean best score", "solved", "LLM calls");
    for r in &report.rows {
        println!(
            "{:<22} {:>6} {:>11.3} ± {:.3} {:>7.1}% {:>10.1}",
            r.method,
            r.budget,
            r.mean_best_score,
            r.standard_error,
            100.0 * r.solved_fraction,
            r.mean_llm_calls
        );
    }
}
