//! What a search method is: the kinds of LLM call it can ask for (seed 004 §4), what it asks for
//! next ([`Method::next`]: a program, or for LATS and Reflexion also text it reads itself and runs
//! on tests of its own) and what it learns from the outcome ([`Method::absorb`] and the rest).

use std::hash::Hash;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::llm::extract_code;
use crate::prompts::id;
use crate::python::ProgramVerdict;
use crate::rng::RunRng;
use crate::search::scorer::Score;
use crate::search::tree::SearchTreeNode;

/// What one LLM call does to a program (seed 004 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Continue the program from its first lines.
    Generate,
    /// Rewrite it from a failing test: its input, expected and actual output.
    Improve,
    /// Rewrite it from the error it raised.
    Fix,
}

impl ActionKind {
    pub const ALL: [ActionKind; 3] = [ActionKind::Generate, ActionKind::Improve, ActionKind::Fix];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        ["generate", "improve", "fix"][self.index()]
    }

    fn prompt_id(self) -> &'static str {
        [id::GIF_MCTS_GENERATE, id::GIF_MCTS_IMPROVE, id::GIF_MCTS_FIX][self.index()]
    }
}

/// An LLM call a method asks for: `kind` on `code` (the prefix to continue for generate, the whole
/// program for improve and fix), with that program's score for the prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expansion {
    pub kind: ActionKind,
    pub code: String,
    pub parent: Option<Score>,
}

/// What came of an expansion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expanded {
    pub kind: ActionKind,
    /// The program the reply held (empty when it held none), as autopep8 made it when the search
    /// runs it (the program that was scored).
    pub program: String,
    /// The reply's program before autopep8, when autopep8 changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unformatted: Option<String>,
    /// Kept and exported as `evaluation`, its name before.
    #[serde(rename = "evaluation")]
    pub score: Score,
    /// For generate: whether the reply kept the prefix it was asked to continue.
    pub kept_prefix: Option<bool>,
    /// LLM calls made so far, this one included.
    pub llm_calls: u32,
}

/// What a method asks for next.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    /// An LLM call that writes a program, which the search scores on the task's tests.
    Program(Expansion),
    /// An LLM call whose reply the method reads itself: tests or a reflection.
    Text(TextAsk),
    /// A program run on tests the method holds (tests a model wrote, never the task's): the judge
    /// runs them as data only (`ProgramRequest::data_tests`).
    Run { program: String, tests: Vec<String> },
}

impl Ask {
    /// The expansion, when this asks for a program.
    pub fn program(self) -> Option<Expansion> {
        match self {
            Self::Program(expansion) => Some(expansion),
            _ => None,
        }
    }
}

/// What a text call asks the LLM to write (LATS's and Reflexion's acts besides programs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextAct {
    /// Unit tests for the task, as `assert` lines.
    WriteTests,
    /// A few sentences on why a program fails its tests.
    Reflect,
}

impl TextAct {
    pub fn name(self) -> &'static str {
        match self {
            Self::WriteTests => "write tests",
            Self::Reflect => "reflect",
        }
    }

    pub fn prompt_id(self) -> &'static str {
        match self {
            Self::WriteTests => id::LATS_TESTS,
            Self::Reflect => id::LATS_REFLECT,
        }
    }
}

/// A text call: its act, and for a reflection the program, its test results and the first test it
/// failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextAsk {
    pub act: TextAct,
    pub code: String,
    pub feedback: String,
    pub failing: Option<String>,
}

/// Which program a search answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answering {
    /// The best-scoring one, and a perfect score ends the search: seed 004's methods, whose reward
    /// is the task's tests.
    BestScore,
    /// The one the method chose (by expansion; none yet), whatever the task's tests say of the
    /// others: LATS and Reflexion, which judge programs by tests of their own.
    Chosen(Option<usize>),
}

/// A search method: what to ask next, and what to learn from the answer.
pub trait Method {
    /// What to ask next; `None` when the method is done.
    fn next(&mut self, rng: &mut RunRng) -> Option<Ask>;
    /// The outcome of the expansion `next` asked for.
    fn absorb(&mut self, expanded: &Expanded, rng: &mut RunRng);
    /// The reply to the text call `next` asked for (none when the call failed).
    fn absorb_text(&mut self, _reply: Option<&str>, _rng: &mut RunRng) {}
    /// The verdict of the run `next` asked for.
    fn absorb_run(&mut self, _verdict: &ProgramVerdict, _rng: &mut RunRng) {}
    /// The values of the method's own placeholders in the prompt of the call `next` just asked
    /// for; they take the place of the search's own (`task` among them).
    fn prompt_values(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// Which program the search answers with.
    fn answer(&self) -> Answering {
        Answering::BestScore
    }
    /// How many times the method looked at the task's own tests, of the `programs` the search
    /// scored and whether it has an answer: by default every program, as for seed 004's methods,
    /// whose reward they are.
    fn hidden_test_looks(&self, programs: usize, _answered: bool) -> u32 {
        programs as u32
    }
    /// Its tree as views draw it, from the programs the search scored (in its order): by default
    /// each under the root, as zero-shot's independent samples.
    fn tree(&self, programs: &[Expanded]) -> Vec<SearchTreeNode> {
        SearchTreeNode::programs(programs, |_| 0)
    }
    /// Why the method is done, once `next` gave `None`.
    fn why_done(&self) -> String {
        "the method has nothing left to try".into()
    }
    /// The prompt of an expansion of `kind`: the action's own, unless the method has one.
    fn prompt_id(&self, kind: ActionKind) -> &'static str {
        kind.prompt_id()
    }
    /// The start of every reply, sent as the assistant's turn (zero-shot CoT's "Let's think step
    /// by step.").
    fn reply_start(&self) -> Option<&'static str> {
        None
    }
}

/// The program out of a reply: improve and fix replies hold a critique before `## Correct code`,
/// which may quote code, so the program is looked for after that heading when there is one.
pub fn program_of(kind: ActionKind, reply: &str) -> Option<String> {
    const HEADING: &str = "## Correct code";
    let tail = match (kind, reply.find(HEADING)) {
        (ActionKind::Improve | ActionKind::Fix, Some(at)) => &reply[at + HEADING.len()..],
        _ => reply,
    };
    extract_code(tail)
}

/// Whether a generate reply continued the prefix it was given: chat APIs cannot be made to, and
/// the official code does not check (seed 004 spec §1.3); a search records it per node.
pub fn keeps_prefix(prefix: &str, program: &str) -> bool {
    program.trim_start().starts_with(prefix.trim())
}

/// The trees of methods that draw their programs one under another (each method's own file).
impl SearchTreeNode {
    /// The root, then each program under node `parent_of(i)` (0 is the root) valued by its score.
    pub fn programs(expansions: &[Expanded], parent_of: impl Fn(usize) -> usize) -> Vec<Self> {
        let children = expansions.iter().enumerate().map(|(i, e)| Self {
            parent: Some(parent_of(i)),
            label: e.kind.name().into(),
            expansion: Some(i),
            edit: None,
            visits: 1,
            value: e.score.score,
            bug: e.score.bug,
            hacked: e.score.hacked,
            special_cased: e.score.special_cased().map(str::to_owned),
            self_tested: None,
        });
        std::iter::once(Self::root()).chain(children).collect()
    }
}
