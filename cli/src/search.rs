//! `rlcg search`: one program search (seed 004's GIF-MCTS, WorldCoder, zero-shot, LATS or
//! Reflexion) on the command line, through the native host like live mode, every program scored by
//! python3 through the page's harness. Many searches at once are `search_bench.rs`'s.

use std::path::PathBuf;

use cli::host::Host;
use cli::python::NativePython;
use engine::cheating::cheat_rate::CheatKind;
use engine::cheating::impossible::ImpossibleVariant;
use engine::params;
use engine::prompts::PromptSet;
use engine::search::bench::cheat_of;
use engine::search::lats::HiddenTests;
use engine::search::simulated_llm::SimulatedLlmParams;
use engine::search::spec::{MethodSpec, SearchSpec, TEMPERATURE};
use engine::share::search_link::{SIMULATED, SearchLink};
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
        held_out: args.cheating.held_out.map(|share| HeldOutReport {
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
            Some(kind) => println!("on the {variant} impossible variant: cheated ({})", kind.words()),
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
}

impl CheatingArgs {
    pub(crate) fn apply(&self, spec: &mut SearchSpec) -> Result<(), Failure> {
        spec.impossible = impossible(self.impossible.as_deref())?;
        spec.held_out_share = self.held_out.unwrap_or_default();
        spec.may_give_up = self.may_give_up;
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
