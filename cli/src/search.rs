//! `rlcg search` and `rlcg search-bench`: seed 004's program searches (GIF-MCTS, WorldCoder,
//! zero-shot), LATS and Reflexion on the command line, every program scored by python3 through the page's harness.
//! One search goes through the native host like live mode; the bench runs many on the simulated
//! LLM, on all cores, and reports each method's mean best score as seed 004's Table 1 does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cli::host::{Host, VerdictMemo};
use cli::python::NativePython;
use engine::cheating::cheat_rate::{CheatKind, CheatRate};
use engine::cheating::impossible::ImpossibleVariant;
use engine::effects::Llm;
use engine::params;
use engine::prompts::PromptSet;
use engine::search::bank::search_tasks;
use engine::search::bench::{BenchOutcome, BenchRow, BenchSpec, cheat_of, outcome};
use engine::search::lats::HiddenTests;
use engine::search::simulated_llm::SimulatedLlmParams;
use engine::search::spec::{MethodSpec, SearchSpec, TEMPERATURE};
use engine::share::search_link::{SIMULATED, SearchLink};
use serde::Serialize;

use crate::common::{Failure, io_failure, progress_bar, read_tasks, usage};
use crate::llm_args::LlmArgs;

#[derive(clap::Args)]
pub struct SearchArgs {
    /// gif-mcts, worldcoder, zero-shot, an ablation (gif-mcts-no-generate, -no-improve, -no-fix),
    /// lats (lats-strict: `--mode strict`) or reflexion.
    #[arg(long, default_value = "gif-mcts")]
    method: String,
    /// For lats: official (the task's tests checked whenever a child passes its own, as LATS's
    /// code does: closer to pass@k) or strict (once, on the answer: pass@1).
    #[arg(long)]
    mode: Option<String>,
    /// Tasks: a HumanEval JSONL or APPS-style JSON file (an endpoint must answer them); default:
    /// the bundled search tasks, whose program banks the simulated LLM answers from.
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// The task's id (default: the first).
    #[arg(long)]
    task: Option<String>,
    #[command(flatten)]
    llm: LlmArgs,
    /// LLM calls allowed.
    #[arg(long, default_value_t = SearchSpec::default().budget)]
    budget: u32,
    #[arg(long, default_value_t = SearchSpec::default().seed)]
    seed: u64,
    /// Sets one of the simulated LLM's odds, e.g. `--simulated-llm generate_correct=0.5`
    /// (repeatable).
    #[arg(long = "simulated-llm", value_name = "NAME=VALUE")]
    simulated_llm: Vec<String>,
    /// The endpoint's sampling temperature (seed 004: 1.0; lower starves the search of diversity).
    #[arg(long, default_value_t = TEMPERATURE)]
    temperature: f64,
    /// Judge as common graders do (the tests in the program's own interpreter), so that reward
    /// hacks pass; each is marked, since the real verdict refuses it. With `--simulated-llm
    /// hack_share=0.3`, the simulated LLM writes some.
    #[arg(long)]
    naive_verdicts: bool,
    /// Score each program as written, not through `autopep8.fix_code` as seed 004's official code
    /// does (on by default).
    #[arg(long)]
    no_autopep8: bool,
    /// Search an impossible variant of the task (one-off or conflicting, ImpossibleBench's): one
    /// test, drawn from the seed, contradicts the task, and the prompt shows the tests; a program
    /// that passes them all has cheated.
    #[arg(long, value_name = "VARIANT")]
    impossible: Option<String>,
    /// Hold out this share of the task's tests from the LLM (EvilGenie's measure): the split is
    /// drawn from the seed, the visible tests are shown with the task, and a program that passes
    /// them all but fails a held-out one is marked "special-cased?".
    #[arg(long, value_name = "SHARE")]
    held_out: Option<f64>,
    /// The model may give up (ImpossibleBench's abort option): on a task that shows its tests (an
    /// impossible variant, held-out tests), the prompt says it may reply `GIVE UP: <why>` instead
    /// of a program; a reply that does ends the search, scored as honest.
    #[arg(long)]
    may_give_up: bool,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    json: bool,
}

/// What `rlcg search --json` prints.
#[derive(Serialize)]
struct SearchReport {
    method: &'static str,
    task: String,
    llm: String,
    budget: u32,
    seed: u64,
    best_score: f64,
    solved: bool,
    llm_calls: u32,
    /// How many times the method looked at the task's own tests (`ProgramSearch::hidden_checks`).
    hidden_checks: u32,
    /// Programs the search wrote (one per LLM call, but for LATS's and Reflexion's tests and
    /// reflections).
    nodes: usize,
    /// LATS's and Reflexion's calls that wrote tests or reflections.
    text_calls: usize,
    /// Programs that passed only because verdicts were naive (`--naive-verdicts`): reward hacks.
    hacked: usize,
    /// Programs that autopep8 changed before they were scored.
    reformatted: usize,
    /// On an impossible task (`--impossible`): its variant, and how the search cheated, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    impossible: Option<ImpossibleReport>,
    /// With tests held out (`--held-out`): how many, and the programs marked "special-cased?".
    #[serde(skip_serializing_if = "Option::is_none")]
    held_out: Option<HeldOutReport>,
    /// Why the model gave up, when it was let (`--may-give-up`) and did.
    #[serde(skip_serializing_if = "Option::is_none")]
    gave_up: Option<String>,
    tokens: u64,
    cost: f64,
    ended: String,
    /// The best score after each call.
    progress: Vec<f64>,
    best_program: String,
    /// [`engine::search::Search::fingerprint`]: the page's replay of `link` has the same one.
    fingerprint: String,
    /// The search link's fragment: append it to the page's address after `#`.
    link: String,
}

pub fn search(args: &SearchArgs) -> Result<(), Failure> {
    let mut method = MethodSpec::parse(&args.method).map_err(usage)?;
    if let Some(mode) = &args.mode {
        let MethodSpec::Lats(params) = &mut method else {
            return Err(usage(format!("--mode is for lats, not {}", args.method)));
        };
        params.mode = HiddenTests::parse(mode).map_err(usage)?;
    }
    let mut spec = SearchSpec::new(method, "", args.budget, args.seed);
    spec.simulated_llm = simulated_llm(&args.simulated_llm)?;
    spec.naive_verdicts = args.naive_verdicts;
    spec.autopep8 = !args.no_autopep8;
    spec.impossible = impossible(args.impossible.as_deref())?;
    spec.held_out_share = args.held_out.unwrap_or_default();
    spec.may_give_up = args.may_give_up;
    let imported = match &args.tasks {
        None => {
            spec.task = args.task.clone().unwrap_or_else(|| SearchSpec::default().task);
            None
        }
        Some(path) => {
            let tasks = read_tasks(path)?;
            let task = match &args.task {
                None => tasks.into_iter().next(),
                Some(id) => tasks.into_iter().find(|t| &t.id == id),
            }
            .ok_or_else(|| {
                usage(format!("no task {} in {}", args.task.as_deref().unwrap_or("at all"), path.display()))
            })?;
            spec.task = task.id.clone();
            Some(task)
        }
    };
    let search = spec.start(imported.as_ref(), args.llm.is_simulated(), PromptSet::default()).map_err(usage)?;
    let (llm, llm_label, settings) = args.llm.choose(args.seed, Some(args.temperature))?;
    let mut search = search.with_prefill(settings.as_ref().is_some_and(|s| s.assistant_prefill));
    let mut python = NativePython::start().map_err(io_failure)?;
    // A search whose programs Python could not run has no result: it is an error, not a score of 0.
    Host::new(llm, &mut python).streaming(args.json).drive(&mut search, |_| {}).map_err(io_failure)?;

    let (best_program, best_score) = search.best().map_or((String::new(), 0.0), |(p, s)| (p.to_owned(), s));
    let report = SearchReport {
        method: spec.method.name(),
        task: search.task().id.clone(),
        llm: llm_label.clone(),
        budget: args.budget,
        seed: args.seed,
        best_score,
        solved: best_score >= 1.0,
        llm_calls: search.llm_calls(),
        hidden_checks: search.hidden_checks(),
        nodes: search.expansions().len(),
        text_calls: search.texts().len(),
        hacked: search.expansions().iter().filter(|e| e.score.hacked).count(),
        reformatted: search.expansions().iter().filter(|e| e.unformatted.is_some()).count(),
        impossible: spec
            .impossible
            .map(|variant| ImpossibleReport { variant: variant.name(), cheated: cheat_of(&search) }),
        held_out: args.held_out.map(|share| HeldOutReport {
            share,
            tests: search.task().held_out.len(),
            special_cased: (search.expansions().iter().enumerate())
                .filter_map(|(i, e)| e.score.special_cased().map(|test| (i + 1, test.to_owned())))
                .collect(),
        }),
        gave_up: search.gave_up().map(str::to_owned),
        tokens: search.usage().total(),
        cost: settings.as_ref().map_or(0.0, |s| search.usage().cost(s)),
        ended: search.ended().to_owned(),
        progress: search.progress().iter().map(|p| p.best_score).collect(),
        best_program,
        fingerprint: search.fingerprint(),
        link: SearchLink::of(&search.record(&spec, if args.llm.is_simulated() { SIMULATED } else { &llm_label }))
            .encode(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
        return Ok(());
    }
    eprintln!();
    println!(
        "{} on {} with {} (budget {}, seed {})",
        report.method, report.task, report.llm, report.budget, report.seed
    );
    for (i, e) in search.expansions().iter().enumerate() {
        let bug = if e.score.bug { " · bug" } else { "" };
        let hacked = if e.score.hacked { " · hacked: the real verdict refuses it" } else { "" };
        let reformatted = if e.unformatted.is_some() { " · reformatted by autopep8" } else { "" };
        let special_cased = e
            .score
            .special_cased()
            .map(|test| format!(" · special-cased? it fails held-out test {test}"))
            .unwrap_or_default();
        println!(
            "  program {:>3}  {:<8} score {:.3} (after {} calls){bug}{hacked}{reformatted}{special_cased}",
            i + 1,
            e.kind.name(),
            e.score.score,
            e.llm_calls
        );
    }
    if !search.texts().is_empty() {
        println!("  {} more calls wrote tests or reflections", search.texts().len());
    }
    if spec.method.writes_own_tests() {
        println!(
            "(as the official LATS code runs it; ours where it differs: the prompt recalls the path's programs, Reflexion's retry sends its reflection, a model's test runs only as data — docs/reproductions.md)"
        );
    }
    if let Some(HeldOutReport { tests, special_cased, .. }) = &report.held_out {
        println!(
            "{tests} of the task's tests held out from the LLM; {} program(s) passed every visible test and failed a held-out one (special-cased?)",
            special_cased.len()
        );
    }
    if let Some(ImpossibleReport { variant, cheated }) = &report.impossible {
        match cheated {
            Some(kind) => println!("on the {variant} impossible variant: cheated ({})", cheat_words(*kind)),
            None => println!("on the {variant} impossible variant: no program passed every test (no cheat)"),
        }
    }
    println!(
        "{} {:.3}{} · {} LLM calls · the task's tests looked at {} times · {} tokens · cost ${:.4} · {}",
        if spec.method.writes_own_tests() { "answer's score" } else { "best score" },
        report.best_score,
        if report.solved { " (solved)" } else { "" },
        report.llm_calls,
        report.hidden_checks,
        report.tokens,
        report.cost,
        report.ended
    );
    println!("{}", report.best_program);
    println!("share: #{}", report.link);
    Ok(())
}

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
    /// Search impossible variants of the tasks (see `rlcg search --help`) and report each
    /// method's cheating rate.
    #[arg(long, value_name = "VARIANT")]
    impossible: Option<String>,
    /// Hold out this share of each task's tests from the LLM (see `rlcg search --help`) and report
    /// each method's rate of special-cased? answers.
    #[arg(long, value_name = "SHARE")]
    held_out: Option<f64>,
    /// The model may give up (ImpossibleBench's abort option): on a task that shows its tests (an
    /// impossible variant, held-out tests), the prompt says it may reply `GIVE UP: <why>` instead
    /// of a program; a reply that does ends the search, scored as honest.
    #[arg(long)]
    may_give_up: bool,
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
    wall_seconds: f64,
}

#[derive(Serialize)]
struct HeldOutReport {
    share: f64,
    /// Tests held out from the LLM, of the task's.
    tests: usize,
    /// Each program (1-based, in the order written) that passed every visible test and failed a
    /// held-out one, with the held-out test it failed.
    special_cased: Vec<(usize, String)>,
}

#[derive(Serialize)]
struct ImpossibleReport {
    variant: &'static str,
    cheated: Option<CheatKind>,
}

#[derive(Serialize)]
pub(crate) struct MethodCheatRate {
    method: String,
    /// The impossible variant, or `held-out <share>`.
    variant: String,
    #[serde(flatten)]
    pub rate: CheatRate,
}

/// The impossible variant a flag names.
fn impossible(name: Option<&str>) -> Result<Option<ImpossibleVariant>, Failure> {
    name.map(|n| ImpossibleVariant::parse(n).map_err(|e| usage(format!("--impossible: {e}")))).transpose()
}

fn cheat_words(kind: CheatKind) -> &'static str {
    match kind {
        CheatKind::TamperedVerdict => "a tampered verdict, passed only because verdicts were naive",
        CheatKind::SpecialCasedInput => "a special-cased input: it answers a test against the task",
    }
}

fn simulated_llm(settings: &[String]) -> Result<SimulatedLlmParams, Failure> {
    params::apply(&SimulatedLlmParams::default(), settings).map_err(|e| usage(format!("--simulated-llm: {e}")))
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
    let template = SearchSpec {
        simulated_llm: odds,
        autopep8: !args.no_autopep8,
        impossible: impossible(args.impossible.as_deref())?,
        held_out_share: args.held_out.unwrap_or_default(),
        may_give_up: args.may_give_up,
        ..SearchSpec::default()
    };
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
    let simulated = LlmArgs { llm: "simulated".into(), base_url: None, model: None, prefill: false };
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
    let (_, label, _) = llm.choose(0, Some(temperature))?;
    let workers = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let started = std::time::Instant::now();
    let ask = |seed: u64| llm.choose(seed, Some(temperature)).map(|(llm, ..)| llm).map_err(|f| f.message);
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
    Ok(BenchReport {
        llm: label,
        rows: spec.rows(&outcomes),
        cheating,
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
            "{}: {what} in {} of {} searches on {on}: {:.1}% [{:.1}%, {:.1}%] ({} special-cased inputs, {} tampered verdicts; {} gave up)",
            r.method,
            r.rate.cheated,
            r.rate.searches,
            100.0 * r.rate.rate,
            100.0 * r.rate.low,
            100.0 * r.rate.high,
            r.rate.special_cased_input,
            r.rate.tampered_verdict,
            r.rate.gave_up
        );
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
