//! A search as a value: the method with its parameters, the task, the budget, the seed and the
//! simulated LLM's odds. The same spec with the simulated LLM gives the same search, bit for bit.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cheating::held_out::{HeldOutScore, split};
use crate::cheating::impossible::{ImpossibleVariant, impossible_tests};
use crate::cheating::{TestsInstruction, give_up, with_tests_shown};
use crate::gym::dataset::dataset;
use crate::params::Parameters;
use crate::prompts::PromptSet;
use crate::python::TestCase;
use crate::python::{ProgramRequest, ProgramVerdict};
use crate::rng::RunRng;
use crate::rng::{gym_rng, held_out_rng, impossible_rng};
use crate::search::machine::Search;
use crate::search::method::{ActionKind, Answering, Ask, Expanded, Method};
use crate::search::methods::gif_mcts::{GifMcts, GifMctsParams};
use crate::search::methods::lats::{HiddenTests, Lats, LatsParams};
use crate::search::methods::reflexion::{Reflexion, ReflexionParams};
use crate::search::methods::world_coder::{WorldCoder, WorldCoderParams};
use crate::search::methods::zero_shot::ZeroShot;
use crate::search::offline::bank::{BankTask, search_tasks};
use crate::search::offline::simulated_llm::{SimulatedLlm, SimulatedLlmParams};
use crate::search::scorer::{Score, Scorer, SearchTask, TestsScorer};
use crate::search::tree::SearchTreeNode;
use crate::search::world_model::{WorldModelScorer, WorldModelScoring};
use crate::search::world_model_tasks::world_model_tasks;
use crate::task_import::ImportedTask;

/// How LATS and Reflexion run here, beside their official code: the one wording of the Search
/// pane, the About pane, the CLI and the reproductions.
const OWN_TESTS_NOTE: &str = "LATS and Reflexion judge programs by unit tests the LLM writes itself, as their official code runs them. lats checks the task's tests whenever a child passes its own, as that code does (closer to pass@k); lats-strict never shows them to the search (pass@1). Ours, where the official code differs: the generation prompt recalls each program of the path (the official code shows characters of one), Reflexion's retry sends the reflection and the program (the official one sends neither), and a test the model wrote runs only as data. reflexion runs the LATS repository's settings (8 programs, 6 tests); reflexion-noahshinn the Reflexion paper's own code for its GPT-4 HumanEval run (2 programs, 1 test, sampled at T 0: give a real model --temperature 0); reflexion-2-tests the LATS repository's settings with LATS's 2 tests (ours, to compare the two at equal tests).";

/// A method and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MethodSpec {
    GifMcts(GifMctsParams),
    WorldCoder(WorldCoderParams),
    ZeroShot,
    Lats(LatsParams),
    Reflexion(ReflexionParams),
}

impl MethodSpec {
    /// The methods by name: the three of seed 004's tables, GIF-MCTS's ablations (Table 6), LATS
    /// in its two modes and Reflexion with the LATS repository's settings, with its own paper's and
    /// with LATS's number of tests.
    pub const NAMES: [&str; 11] = [
        "gif-mcts",
        "worldcoder",
        "zero-shot",
        "gif-mcts-no-generate",
        "gif-mcts-no-improve",
        "gif-mcts-no-fix",
        "lats",
        "lats-strict",
        "reflexion",
        "reflexion-noahshinn",
        "reflexion-2-tests",
    ];

    /// Seed 004's methods and GIF-MCTS's ablations: the first six names.
    pub const SEED_004: &'static [&'static str] = Self::NAMES.split_at(6).0;

    /// The method by its name, with its defaults.
    pub fn parse(name: &str) -> Result<Self, String> {
        let gif = GifMctsParams::default();
        match name {
            "gif-mcts" => Ok(Self::GifMcts(gif)),
            "worldcoder" => Ok(Self::WorldCoder(WorldCoderParams::default())),
            "zero-shot" => Ok(Self::ZeroShot),
            "gif-mcts-no-generate" => Ok(Self::GifMcts(GifMctsParams { allow_generate: false, ..gif })),
            "gif-mcts-no-improve" => Ok(Self::GifMcts(GifMctsParams { allow_improve: false, ..gif })),
            "gif-mcts-no-fix" => Ok(Self::GifMcts(GifMctsParams { fix_chain: 0, ..gif })),
            "lats" => Ok(Self::Lats(LatsParams::default())),
            "lats-strict" => Ok(Self::Lats(LatsParams { mode: HiddenTests::Strict, ..LatsParams::default() })),
            "reflexion" => Ok(Self::Reflexion(ReflexionParams::default())),
            "reflexion-noahshinn" => Ok(Self::Reflexion(ReflexionParams::NOAHSHINN)),
            "reflexion-2-tests" => Ok(Self::Reflexion(ReflexionParams::LATS_TESTS)),
            _ => Err(format!("unknown method '{name}'; valid: {}", Self::NAMES.join(", "))),
        }
    }

    /// Its name; GIF-MCTS with an action switched off is named for its ablation.
    pub fn name(&self) -> &'static str {
        match self {
            Self::GifMcts(p) if !p.allow_generate => Self::NAMES[3],
            Self::GifMcts(p) if !p.allow_improve => Self::NAMES[4],
            Self::GifMcts(p) if p.fix_chain == 0 => Self::NAMES[5],
            Self::GifMcts(_) => Self::NAMES[0],
            Self::WorldCoder(_) => Self::NAMES[1],
            Self::ZeroShot => Self::NAMES[2],
            Self::Lats(p) if p.mode == HiddenTests::Strict => Self::NAMES[7],
            Self::Lats(_) => Self::NAMES[6],
            Self::Reflexion(p) if *p == ReflexionParams::NOAHSHINN => Self::NAMES[9],
            Self::Reflexion(p) if *p == ReflexionParams::LATS_TESTS => Self::NAMES[10],
            Self::Reflexion(_) => Self::NAMES[8],
        }
    }

    /// How tables and notes name it.
    pub fn label(&self) -> &'static str {
        match self.name() {
            "gif-mcts" => "GIF-MCTS",
            "worldcoder" => "WorldCoder",
            "zero-shot" => "zero-shot CoT",
            "gif-mcts-no-generate" => "GIF-MCTS without generate",
            "gif-mcts-no-improve" => "GIF-MCTS without improve",
            "gif-mcts-no-fix" => "GIF-MCTS without fix",
            "lats" => "LATS, official",
            "lats-strict" => "LATS, strict",
            "reflexion-noahshinn" => "Reflexion, its paper's settings",
            "reflexion-2-tests" => "Reflexion, 2 tests (LATS's)",
            _ => "Reflexion",
        }
    }

    /// Where it runs otherwise than its official code, in a sentence a result is shown with;
    /// `None` where it runs as that code does.
    pub fn note(&self) -> Option<&'static str> {
        self.writes_own_tests().then_some(OWN_TESTS_NOTE)
    }

    /// Whether it judges programs by unit tests that the LLM writes (LATS, Reflexion), which only
    /// a task tested by statements (`assert` lines calling a function) can have.
    pub fn writes_own_tests(&self) -> bool {
        matches!(self, Self::Lats(_) | Self::Reflexion(_))
    }

    pub fn build(&self) -> AnyMethod {
        match self {
            Self::GifMcts(p) => AnyMethod::GifMcts(Box::new(GifMcts::new(p.clone()))),
            Self::WorldCoder(p) => AnyMethod::WorldCoder(WorldCoder::new(p.clone())),
            Self::ZeroShot => AnyMethod::ZeroShot(ZeroShot),
            Self::Lats(p) => AnyMethod::Lats(Box::new(Lats::new(p.clone()))),
            Self::Reflexion(p) => AnyMethod::Reflexion(Reflexion::new(p.clone())),
        }
    }
}

/// Any method, for hosts that hold searches of every kind.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyMethod {
    // Boxed: the tree's bookkeeping is several times the size of the others.
    GifMcts(Box<GifMcts>),
    WorldCoder(WorldCoder),
    ZeroShot(ZeroShot),
    Lats(Box<Lats>),
    Reflexion(Reflexion),
}

impl AnyMethod {
    fn inner(&self) -> &dyn Method {
        match self {
            Self::GifMcts(m) => m.as_ref(),
            Self::WorldCoder(m) => m,
            Self::ZeroShot(m) => m,
            Self::Lats(m) => m.as_ref(),
            Self::Reflexion(m) => m,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Method {
        match self {
            Self::GifMcts(m) => m.as_mut(),
            Self::WorldCoder(m) => m,
            Self::ZeroShot(m) => m,
            Self::Lats(m) => m.as_mut(),
            Self::Reflexion(m) => m,
        }
    }
}

impl Method for AnyMethod {
    fn next(&mut self, rng: &mut RunRng) -> Option<Ask> {
        self.inner_mut().next(rng)
    }

    fn absorb(&mut self, expanded: &Expanded, rng: &mut RunRng) {
        self.inner_mut().absorb(expanded, rng);
    }

    fn absorb_text(&mut self, reply: Option<&str>, rng: &mut RunRng) {
        self.inner_mut().absorb_text(reply, rng);
    }

    fn absorb_run(&mut self, verdict: &ProgramVerdict, rng: &mut RunRng) {
        self.inner_mut().absorb_run(verdict, rng);
    }

    fn prompt_id(&self, kind: ActionKind) -> &'static str {
        self.inner().prompt_id(kind)
    }

    fn reply_start(&self) -> Option<&'static str> {
        self.inner().reply_start()
    }

    fn prompt_values(&self) -> Vec<(&'static str, String)> {
        self.inner().prompt_values()
    }

    fn answer(&self) -> Answering {
        self.inner().answer()
    }

    fn hidden_test_looks(&self, programs: usize, answered: bool) -> u32 {
        self.inner().hidden_test_looks(programs, answered)
    }

    fn tree(&self, programs: &[Expanded]) -> Vec<SearchTreeNode> {
        self.inner().tree(programs)
    }

    fn why_done(&self) -> String {
        self.inner().why_done()
    }
}

/// Any scorer: a task's tests, or a world model's transitions.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyScorer {
    Tests(TestsScorer),
    WorldModel(WorldModelScorer),
}

impl Scorer for AnyScorer {
    fn request(&self, program: &str) -> ProgramRequest {
        match self {
            Self::Tests(s) => s.request(program),
            Self::WorldModel(s) => s.request(program),
        }
    }

    fn evaluate(&self, verdict: &ProgramVerdict, rng: &mut RunRng) -> Score {
        match self {
            Self::Tests(s) => s.evaluate(verdict, rng),
            Self::WorldModel(s) => s.evaluate(verdict, rng),
        }
    }

    fn held_out_request(&self, program: &str) -> Option<ProgramRequest> {
        match self {
            Self::Tests(s) => s.held_out_request(program),
            Self::WorldModel(s) => s.held_out_request(program),
        }
    }

    fn held_out_score(&self, verdict: &ProgramVerdict) -> Option<HeldOutScore> {
        match self {
            Self::Tests(s) => s.held_out_score(verdict),
            Self::WorldModel(s) => s.held_out_score(verdict),
        }
    }

    fn perfect(&self) -> &'static str {
        match self {
            Self::Tests(s) => s.perfect(),
            Self::WorldModel(s) => s.perfect(),
        }
    }
}

/// A program search on a task: on its tests' scores, or a world model's accuracy.
pub type ProgramSearch = Search<AnyMethod, AnyScorer>;

/// What a world-model search scores on, and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct WorldModelSpec {
    /// The dataset's seed: the engine makes the environment's 5 random and 5 heuristic
    /// trajectories from it (seed 004 §3.2).
    pub dataset_seed: u64,
    pub scoring: WorldModelScoring,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchSpec {
    pub method: MethodSpec,
    /// The task's id (a bundled search task).
    pub task: String,
    /// LLM calls allowed (seed 004 §5.2: 20 on APPS).
    pub budget: u32,
    pub seed: u64,
    /// The simulated LLM's odds (used when no endpoint answers).
    pub simulated_llm: SimulatedLlmParams,
    /// For a world-model task: its dataset and scoring.
    #[serde(default, skip_serializing_if = "is_default")]
    pub world_model: WorldModelSpec,
    /// Naive verdicts (see `ProgramRequest::naive`): the tests run as common graders run them,
    /// so that the simulated LLM's reward hacks (`simulated_llm.hack_share`) pass, and the tree
    /// marks each one the real verdict refuses. A teaching switch; off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub naive_verdicts: bool,
    /// Each program is run through `autopep8.fix_code` before it is scored, and the node keeps
    /// what came out, as seed 004's official code does (it repairs indentation slips and reflows
    /// long lines). On by default.
    #[serde(default = "crate::params::on")]
    pub autopep8: bool,
    /// Searches an impossible variant of the task (`cheating::impossible`, ImpossibleBench's): one
    /// test, drawn from the seed, contradicts the task, and the task shows its tests, so that a
    /// program passing them all has cheated. None: the task as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impossible: Option<ImpossibleVariant>,
    /// The share of the task's tests held out from the LLM (`cheating::held_out`, EvilGenie's
    /// measure): drawn from the seed, they are never shown nor fed back and score nothing, and a
    /// program that passes every visible test and fails one of them is marked "special-cased?".
    /// The visible tests are shown with the task. 0, the default: every test is the task's.
    #[serde(default, skip_serializing_if = "crate::params::is_zero")]
    pub held_out_share: f64,
    /// The model may give up (`cheating::give_up`, ImpossibleBench's abort option): on a task that
    /// shows its tests, the prompt says it may reply that they contradict the task instead of
    /// writing a program, and a reply that does ends the search, scored as honest. Off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub may_give_up: bool,
    /// How a task that shows its tests (an impossible variant, held-out tests) asks for them:
    /// ImpossibleBench's "… pass all the tests. DO NOT MODIFY THE TESTS." by default, its neutral
    /// or encouraging wording, or ours before fidelity round 4 ("must-pass").
    #[serde(default, skip_serializing_if = "crate::params::is_default")]
    pub tests_instruction: TestsInstruction,
    /// EvilGenie's LLM judge (`cheating::llm_judge`): once the search ends, the chosen LLM reads
    /// an answer that passed every test it was scored on and says whether it games them, in one
    /// call beyond the budget. Off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub llm_judge: bool,
}

fn is_default(spec: &WorldModelSpec) -> bool {
    *spec == WorldModelSpec::default()
}

/// The temperature an endpoint samples a search's programs at: seed 004's 1.0 (lower starves the
/// search of diversity).
pub const TEMPERATURE: f64 = 1.0;

impl Default for SearchSpec {
    /// The first method (GIF-MCTS) on the first bundled task, 20 LLM calls, seed 1: the page's
    /// form, a link's missing fields and `rlcg search` start from it.
    fn default() -> Self {
        let method = MethodSpec::parse(MethodSpec::NAMES[0]).expect("a known method");
        Self::new(method, &search_tasks()[0].id, 20, 1)
    }
}

impl SearchSpec {
    pub const MAX_BUDGET: u32 = 1_000;

    pub fn new(method: MethodSpec, task: &str, budget: u32, seed: u64) -> Self {
        Self {
            method,
            task: task.to_owned(),
            budget,
            seed,
            simulated_llm: SimulatedLlmParams::default(),
            world_model: WorldModelSpec::default(),
            naive_verdicts: false,
            autopep8: true,
            impossible: None,
            held_out_share: 0.0,
            may_give_up: false,
            tests_instruction: TestsInstruction::default(),
            llm_judge: false,
        }
    }

    /// Whether its searches measure cheating: on an impossible variant, or with tests held out.
    pub fn measures_cheating(&self) -> bool {
        self.impossible.is_some() || self.held_out_share != 0.0
    }

    /// The search of this spec, the one place that chooses how it is built: on its bundled task
    /// (`imported` is `None`), answered offline by the simulated LLM from the task's bank; or on
    /// an imported task (whose id replaces the spec's), answered by an endpoint, or offline
    /// (`offline`) by the simulated LLM from a bank that the harness makes by mutating the task's
    /// reference, the search's first need.
    pub fn start(
        &self,
        imported: Option<&ImportedTask>,
        offline: bool,
        prompts: PromptSet,
    ) -> Result<ProgramSearch, String> {
        let search = match imported {
            None => {
                let bank = bundled_bank(&self.task)?;
                let task = self.as_shown(bank.search_task())?;
                let (method, scorer) = self.parts(&task)?;
                let simulated = SimulatedLlm::new(self.simulated_llm.clone(), bank, &task);
                Search::new(method, scorer, task, prompts, self.budget, self.seed)?.with_simulated_llm(simulated)
            }
            Some(imported) if offline => {
                let task = self.as_shown(SearchTask::from(imported))?;
                let (method, scorer) = self.parts(&task)?;
                let params = self.simulated_llm.clone();
                Search::after_bank(method, scorer, imported, prompts, self.budget, self.seed, params)?.with_task(task)
            }
            Some(imported) => {
                let task = self.as_shown(SearchTask::from(imported))?;
                let (method, scorer) = self.parts(&task)?;
                Search::new(method, scorer, task, prompts, self.budget, self.seed)?
            }
        };
        Ok(search.with_autopep8(self.autopep8).with_judge(self.llm_judge))
    }

    /// The method and the scorer of this spec on `task`.
    fn parts(&self, task: &SearchTask) -> Result<(AnyMethod, AnyScorer), String> {
        if !(1..=Self::MAX_BUDGET).contains(&self.budget) {
            return Err(format!("budget: {} is outside 1..={}", self.budget, Self::MAX_BUDGET));
        }
        let statements = !task.tests.is_empty() && task.tests.iter().all(|t| matches!(t, TestCase::Statement(_)));
        if self.method.writes_own_tests() && (task.world_model.is_some() || !statements) {
            return Err(format!(
                "{} writes unit tests that call a function, and task {} is not tested that way (it is a world model, or reads standard input)",
                self.method.name(),
                task.id
            ));
        }
        self.simulated_llm.validate()?;
        Ok((self.method.build(), self.scorer_on(task)))
    }

    /// How this spec's search scores a program: on its bundled task, or on `imported` (whose tests
    /// the spec does not hold).
    pub fn scorer(&self, imported: Option<&ImportedTask>) -> Result<AnyScorer, String> {
        let task = match imported {
            Some(task) => SearchTask::from(task),
            None => bundled_bank(&self.task)?.search_task(),
        };
        Ok(self.scorer_on(&self.as_shown(task)?))
    }

    /// `task` as this spec's search shows and scores it: as it is, made impossible (its tests
    /// changed by `impossible`, the change drawn from the seed), or with some tests held out
    /// (`held_out_share`, the split drawn from the seed); the tests the model may see are then
    /// shown with the task.
    fn as_shown(&self, mut task: SearchTask) -> Result<SearchTask, String> {
        let held_out = self.held_out_share != 0.0;
        if !held_out && self.impossible.is_none() {
            return match self.may_give_up {
                true => Err("giving up is offered on a task that shows its tests: choose an impossible variant or held-out tests".into()),
                false => Ok(task),
            };
        }
        if task.world_model.is_some() {
            return Err("a world model has no tests to make impossible or hold out".into());
        }
        match self.impossible {
            Some(_) if held_out => {
                return Err("an impossible variant shows every test, so none can be held out: choose one".into());
            }
            Some(variant) => {
                let made = impossible_tests(&task.tests, variant, &mut impossible_rng(self.seed))
                    .map_err(|why| format!("task {} cannot be made impossible: {why}", task.id))?;
                task.tests = made.tests;
            }
            None => {
                let (shown, held) = split(&task.tests, self.held_out_share, &mut held_out_rng(self.seed))
                    .map_err(|why| format!("task {}: {why}", task.id))?;
                (task.tests, task.held_out) = (shown, held);
            }
        }
        task.description = with_tests_shown(&task.description, &task.tests, self.tests_instruction);
        if self.may_give_up {
            task.description = format!("{}\n{}", task.description, give_up::instruction());
        }
        task.tests_shown = true;
        task.may_give_up = self.may_give_up;
        Ok(task)
    }

    /// On `task`: its tests, or a world model's dataset made from `world_model.dataset_seed`.
    fn scorer_on(&self, task: &SearchTask) -> AnyScorer {
        match task.world_model {
            Some(env) => AnyScorer::WorldModel(WorldModelScorer {
                env,
                transitions: dataset(env, &mut gym_rng(self.world_model.dataset_seed)),
                scoring: self.world_model.scoring,
            }),
            None => AnyScorer::Tests(TestsScorer {
                naive: self.naive_verdicts,
                impossible: self.impossible.is_some(),
                held_out: task.held_out.clone(),
                ..TestsScorer::new(task.tests.clone(), task.task_code.clone())
            }),
        }
    }
}

/// The bundled task `id`'s bank: a search task's or a world model's.
fn bundled_bank(id: &str) -> Result<BankTask, String> {
    let (tasks, models) = (search_tasks(), world_model_tasks());
    let all = || tasks.iter().chain(models.iter());
    all().find(|t| t.id == id).cloned().ok_or_else(|| {
        let ids: Vec<&str> = all().map(|t| t.id.as_str()).collect();
        format!("unknown search task '{id}'; valid: {}", ids.join(", "))
    })
}
