//! What live mode needs from an environment: a task to solve, and the environment's own rules
//! applied to real outcomes.
//!
//! An environment with a live mode has a small adapter next to its simulator (`live.rs` in its
//! folder). The adapter says what each action asks of the world (an LLM call, a test run, or
//! nothing), turns the reply or verdict into the environment's typed outcome, and applies the same
//! rule function the simulator applies to its drawn outcomes. So a reward or rule changed in the
//! environment's file changes training and live mode alike. [`crate::live::LiveEpisode`] does the
//! rest (prompts, the blackboard, the steps) for every environment.

use serde::{Deserialize, Serialize};

use super::Observation;
use crate::cheating::held_out::split;
use crate::cheating::{TestsInstruction, with_tests_shown};
use crate::env::tasks::{executive_tasks, seed003_tasks};
use crate::python::{TaskCode, TestCase};
use crate::rng::{RunRng, held_out_rng};
use crate::task_import::{ImportedTask, TaskFormat};

/// A task live mode can solve: what to ask for, the tests, and what the offline LLM writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveTask {
    pub id: String,
    pub prompt: String,
    pub tests: Vec<TestCase>,
    /// What the tests' names mean, for an imported HumanEval task (see [`TaskCode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_code: Option<TaskCode>,
    pub offline: OfflineAnswers,
    /// Tests the LLM never sees, run after `tests` ([`LiveTask::holding_out`]); none by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out: Vec<TestCase>,
}

/// The programs the offline LLM answers with, per call (seed 000's simulated LLM for the bundled
/// tasks; a failing first draft and the reference for imported ones).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OfflineAnswers {
    pub generate: String,
    pub debug: String,
    pub debug_after_search: String,
}

impl LiveTask {
    /// Seed 000's three executive tasks.
    pub fn bundled() -> Vec<LiveTask> {
        executive_tasks()
            .iter()
            .map(|task| {
                let llm = &task.simulated_llm;
                LiveTask {
                    id: task.task_id.clone(),
                    prompt: task.prompt.clone(),
                    tests: task.tests.iter().cloned().map(TestCase::Statement).collect(),
                    task_code: None,
                    offline: OfflineAnswers {
                        generate: task.code_of(&llm.generate).to_owned(),
                        debug: task.code_of(&llm.debug).to_owned(),
                        debug_after_search: task.code_of(&llm.debug_after_search).to_owned(),
                    },
                    held_out: Vec::new(),
                }
            })
            .collect()
    }

    /// Seed 003 §5.2's five tasks; the offline LLM's first draft is the task's faulty one, and
    /// debugging writes the reference.
    pub fn seed003() -> Vec<LiveTask> {
        seed003_tasks()
            .iter()
            .map(|task| LiveTask {
                id: task.id.clone(),
                prompt: task.prompt.clone(),
                tests: task.tests.iter().cloned().map(TestCase::Statement).collect(),
                task_code: None,
                offline: OfflineAnswers {
                    generate: task.draft.clone(),
                    debug: task.reference.clone(),
                    debug_after_search: task.reference.clone(),
                },
                held_out: Vec::new(),
            })
            .collect()
    }

    /// An imported task; the offline first draft fails (it raises, or prints nothing).
    pub fn from_imported(task: &ImportedTask) -> LiveTask {
        let stdin_problem = task.tests.iter().any(|t| matches!(t, TestCase::Io { .. }));
        let draft = if stdin_problem || task.format == TaskFormat::Apps && task.starter_code.trim().is_empty() {
            "print()\n".to_owned()
        } else {
            format!("{}\n    raise NotImplementedError\n", task.starter_code.trim_end())
        };
        LiveTask {
            id: task.id.clone(),
            prompt: task.prompt.clone(),
            tests: task.tests.clone(),
            task_code: task.task_code(),
            offline: OfflineAnswers {
                generate: draft,
                debug: task.solution.clone(),
                debug_after_search: task.solution.clone(),
            },
            held_out: Vec::new(),
        }
    }

    /// The task with `share` of its tests held out from the LLM, as a search holds them out
    /// (`cheating::held_out`, EvilGenie's measure; the split drawn from `seed`): the prompt shows the
    /// visible tests, only they are fed back and rewarded, and the held-out ones run after them.
    pub fn holding_out(mut self, share: f64, seed: u64) -> Result<Self, String> {
        let (shown, held) =
            split(&self.tests, share, &mut held_out_rng(seed)).map_err(|why| format!("task {}: {why}", self.id))?;
        self.prompt = with_tests_shown(&self.prompt, &shown, TestsInstruction::default());
        (self.tests, self.held_out) = (shown, held);
        Ok(self)
    }

    /// The program the offline LLM considers correct.
    pub fn reference(&self) -> &str {
        &self.offline.debug_after_search
    }
}

/// An LLM call an action makes: its prompt, who makes it, and what its reply is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSpec {
    /// The prompt's id in the prompt set (one of [`crate::prompts::id`]).
    pub prompt_id: &'static str,
    /// The agent making the call (the blackboard's sender).
    pub agent: &'static str,
    pub answer: Answer,
}

/// What a reply is for, which decides where live mode keeps it and whom it is posted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A program, for the tester.
    Code,
    /// A plan, for the coder.
    Plan,
    /// Search hints, for the debugger.
    Hints,
    /// An analysis of failing tests, for the debugger.
    Analysis,
}

/// A reply as the rules see it.
#[derive(Clone, Copy, Debug)]
pub struct Reply<'a> {
    pub text: &'a str,
    /// The program the reply held, when the call asked for one and got one.
    pub code: Option<&'a str>,
}

/// What live mode must do next for the action under way.
#[derive(Clone, Debug, PartialEq)]
pub enum Move {
    Call(CallSpec),
    /// Run the task's tests on the current program.
    Test,
    /// The step is over.
    Settled(Settled),
}

/// A finished step, accounted for as in training.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settled {
    /// The step's whole reward: the action's, the step cost, penalties.
    pub reward: f64,
    /// Why the action did nothing (illegal or redundant), when it did nothing.
    pub note: Option<String>,
    /// The episode ended with this step: whether it succeeded, and why in words.
    pub end: Option<(bool, String)>,
    /// The simulator's probabilities this step drew in the real world.
    pub trials: Vec<Trial>,
}

/// One draw of a simulator probability that a live episode observed (seed 003 §6.2): the
/// probability's parameter in the environment's spec, and whether the event happened. Calibration
/// ([`crate::calibration`]) counts them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trial {
    pub odds: String,
    pub happened: bool,
}

/// What the offline LLM sees of the episode when it answers.
#[derive(Clone, Copy, Debug)]
pub struct OfflineContext<'a> {
    pub task: &'a LiveTask,
    pub code: &'a str,
    pub report: &'a str,
}

/// An environment's rules, driven by real outcomes.
pub trait LiveRules {
    fn observation(&self) -> Observation;
    /// The environment's own features of the current state ([`super::EnvInfo::feature_dim`] of them).
    fn features(&self) -> Vec<f32>;
    /// Whether a neural policy of this environment embeds the prompt, the code and the feedback.
    fn embeds_texts(&self) -> bool;
    /// Whether `action` counts as an agent call in training's statistics.
    fn is_agent_call(&self, action: usize) -> bool;
    /// Starts `action`.
    fn begin(&mut self, action: usize) -> Move;
    /// The pending call's reply, or `None` when the call failed (it then changes nothing).
    fn replied(&mut self, reply: Option<Reply<'_>>) -> Move;
    /// The verdict of the test run `begin` asked for.
    fn tested(&mut self, passed: bool) -> Move;
    /// The fixed pipeline's action after `steps` steps.
    fn pipeline_action(&self, steps: usize) -> usize;
    /// What the offline LLM answers to the pending call.
    fn offline_reply(&self, context: OfflineContext<'_>, rng: &mut RunRng) -> String;
}

/// A reply as a model writes one: a sentence and a fenced block.
pub(crate) fn fenced(code: &str) -> String {
    format!("Here is the code:\n\n```python\n{}\n```\n", code.trim_end())
}
