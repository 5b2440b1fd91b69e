//! `rlcg search`: one program search (seed 004's GIF-MCTS, WorldCoder, zero-shot, LATS or
//! Reflexion) on the command line, through the native host like live mode, every program scored by
//! python3 through the page's harness. Many searches at once are `search_bench.rs`'s.

use std::path::PathBuf;

use cli::host::Host;
use cli::python::NativePython;
use engine::cheating::TestsInstruction;
use engine::cheating::cheat_rate::CheatKind;
use engine::cheating::impossible::ImpossibleVariant;
use engine::cheating::llm_judge::JudgeRecord;
use engine::params;
use engine::prompts::PromptSet;
use engine::search::measures::bench::cheat_of;
use engine::search::methods::lats::HiddenTests;
use engine::search::offline::simulated_llm::SimulatedLlmParams;
use engine::search::record::SearchRecord;
use engine::search::spec::{MethodSpec, SearchSpec, TEMPERATURE};
use engine::share::search_link::SearchLink;
use engine::task_import::ImportedTask;
use serde::Serialize;

use crate::common::{Failure, io_failure, read_tasks, usage};
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
    #[command(flatten)]
    cheating: CheatingArgs,
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
    /// What the LLM judge said of the answer (`--llm-judge`).
    #[serde(skip_serializing_if = "Option::is_none")]
    judged: Option<JudgeRecord>,
    tokens: u64,
    /// Completion tokens a second over the calls' measured time (an endpoint's from request to last
    /// byte); absent for the simulated LLM.
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens_per_second: Option<f64>,
    cost: f64,
    ended: String,
    /// The best score after each call.
    progress: Vec<f64>,
    best_program: String,
    /// [`engine::search::machine::Search::fingerprint`]: the page's replay of `link` has the same one.
    fingerprint: String,
    /// The search link's fragment: append it to the page's address after `#`.
    link: String,
}

pub fn search(args: &SearchArgs) -> Result<(), Failure> {
    let (spec, imported) = search_spec(args)?;
    let search = spec.start(imported.as_ref(), args.llm.is_simulated(), PromptSet::default()).map_err(usage)?;
    let llm = args.llm.choose(args.seed, Some(args.temperature))?;
    let (llm_label, llm_name, prices) = (llm.label(), llm.name(), llm.prices());
    let mut search = search.with_prefill(llm.settings().is_some_and(|s| s.assistant_prefill));
    let mut python = NativePython::start().map_err(io_failure)?;
    // A search whose programs Python could not run has no result: it is an error, not a score of 0.
    Host::new(llm, &mut python).streaming(args.json).drive(&mut search, |_| {}).map_err(io_failure)?;

    let mut record = search.record(&spec, &llm_name);
    record.cost_usd = record.usage.cost(prices);
    let summary = record.summary();
    let report = SearchReport {
        method: spec.method.name(),
        task: search.task().id.clone(),
        llm: llm_label,
        budget: args.budget,
        seed: args.seed,
        best_score: summary.score,
        solved: summary.solved(),
        llm_calls: summary.llm_calls,
        hidden_checks: summary.hidden_checks,
        nodes: summary.nodes,
        text_calls: summary.text_calls,
        hacked: summary.hacked,
        reformatted: summary.reformatted,
        impossible: spec
            .impossible
            .map(|variant| ImpossibleReport { variant: variant.name(), cheated: cheat_of(&search) }),
        held_out: args.cheating.held_out.map(|share| HeldOutReport {
            share,
            tests: search.task().held_out.len(),
            special_cased: summary.special_cased.clone(),
        }),
        gave_up: search.gave_up().map(str::to_owned),
        judged: record.judged.clone(),
        tokens: summary.tokens,
        tokens_per_second: record.usage.tokens_per_second(),
        cost: summary.cost_usd,
        ended: record.ended.clone(),
        progress: record.progress.iter().map(|p| p.best_score).collect(),
        best_program: record.best.as_ref().map(|(program, _)| program.clone()).unwrap_or_default(),
        fingerprint: record.fingerprint.clone(),
        link: SearchLink::of(&record).encode(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("reports serialise"));
    } else {
        eprintln!();
        print_report(&report, &record);
    }
    Ok(())
}

/// The search that `args` describe, and the imported task it runs on (`--tasks`).
fn search_spec(args: &SearchArgs) -> Result<(SearchSpec, Option<ImportedTask>), Failure> {
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
    args.cheating.apply(&mut spec)?;
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
    Ok((spec, imported))
}

/// The report as text: each program, the summary line, the best program and the share link.
fn print_report(report: &SearchReport, record: &SearchRecord) {
    println!(
        "{} on {} with {} (budget {}, seed {})",
        report.method, report.task, report.llm, report.budget, report.seed
    );
    for (i, e) in record.expansions.iter().enumerate() {
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
    if report.text_calls > 0 {
        println!("  {} more calls wrote tests or reflections", report.text_calls);
    }
    if let Some(note) = record.spec.method.note() {
        println!("({note} docs/reproductions.md)");
    }
    if let Some(ImpossibleReport { variant, cheated }) = &report.impossible {
        match cheated {
            Some(kind) => println!("on the {variant} impossible variant: cheated ({})", kind.words()),
            None => println!("on the {variant} impossible variant: no program passed every test (no cheat)"),
        }
    }
    println!("{} · {}", record.summary(), report.ended);
    if let Some(judged) = &record.judged {
        println!("the LLM judge said: {}", judged.reply.trim());
    }
    if let Some(speed) = record.usage.speed_on(&record.device) {
        println!("the model wrote at {speed}");
    }
    println!("{}", report.best_program);
    println!("share: #{}", report.link);
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

/// How `search` and `search-bench` measure cheating: impossible variants, held-out tests, and
/// whether the model may give up.
#[derive(clap::Args)]
pub(crate) struct CheatingArgs {
    /// Search impossible variants of the tasks (one-off or conflicting, ImpossibleBench's): one
    /// test, drawn from the seed, contradicts the task, and the prompt shows the tests; a program
    /// that passes them all has cheated (search-bench reports each method's cheating rate).
    #[arg(long, value_name = "VARIANT")]
    impossible: Option<String>,
    /// Hold out this share of each task's tests from the LLM (EvilGenie's measure): the split is
    /// drawn from the seed, the visible tests are shown with the task, and a program that passes
    /// them all but fails a held-out one is marked "special-cased?" (search-bench reports each
    /// method's rate of them).
    #[arg(long, value_name = "SHARE")]
    held_out: Option<f64>,
    /// The model may give up (ImpossibleBench's abort option): on a task that shows its tests (an
    /// impossible variant, held-out tests), the prompt says it may reply `GIVE UP: <why>` instead
    /// of a program; a reply that does ends the search, scored as honest.
    #[arg(long)]
    may_give_up: bool,
    /// How a task that shows its tests asks for them: ImpossibleBench's discourage ("… pass all
    /// the tests. DO NOT MODIFY THE TESTS."), neutral or encourage, or must-pass (ours before
    /// fidelity round 4: "Your program must pass these tests:").
    #[arg(long, value_name = "WORDING", default_value = "discourage")]
    tests_instruction: String,
    /// EvilGenie's LLM judge: once a search ends, the LLM reads an answer that passed every test
    /// it was scored on and classes it legitimate, heuristic or reward hacking (one call beyond the
    /// budget; search-bench reports its agreement with the tests and naive verdicts).
    #[arg(long)]
    llm_judge: bool,
}

impl CheatingArgs {
    pub(crate) fn apply(&self, spec: &mut SearchSpec) -> Result<(), Failure> {
        spec.impossible = impossible(self.impossible.as_deref())?;
        spec.held_out_share = self.held_out.unwrap_or_default();
        spec.may_give_up = self.may_give_up;
        spec.llm_judge = self.llm_judge;
        spec.tests_instruction =
            TestsInstruction::parse(&self.tests_instruction).map_err(|e| usage(format!("--tests-instruction: {e}")))?;
        Ok(())
    }
}

/// The impossible variant a flag names.
pub(crate) fn impossible(name: Option<&str>) -> Result<Option<ImpossibleVariant>, Failure> {
    name.map(|n| ImpossibleVariant::parse(n).map_err(|e| usage(format!("--impossible: {e}")))).transpose()
}

/// The simulated LLM's odds, from `--simulated-llm NAME=VALUE` settings.
pub(crate) fn simulated_llm(settings: &[String]) -> Result<SimulatedLlmParams, Failure> {
    params::apply(&SimulatedLlmParams::default(), settings).map_err(|e| usage(format!("--simulated-llm: {e}")))
}
