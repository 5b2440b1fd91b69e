//! Reflexion (Shinn et al., 2023), LATS's baseline, as the same repository's `programming/
//! reflexion.py` runs it (`run_reflexion.sh`: 8 iterations; `number_of_tests` 6, `main.py`'s
//! default): the LLM writes unit tests once and a first "simple" solution; then, while the
//! program fails its internal tests, it reflects on the failure and writes the program again, up to
//! `max_iters` programs in all. The task's own tests judge the last program once, when it passes its
//! internal tests or at the last iteration: pass@1.
//!
//! Ours, where the official code differs (labelled where the page shows it): the retry sends the
//! previous program, its test results and the reflection (the Reflexion paper's prompt, the
//! repository's `reflexion` strategy), where `reflexion.py` asks with the `simple` strategy, so its
//! model sees the test results after the task but neither the reflection it paid a call for nor
//! the program it reflects on.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prompts::id;
use crate::python::ProgramVerdict;
use crate::rng::RunRng;
use crate::search::method::{ActionKind, Answering, Ask, Expanded, Expansion, Method, TextAct, TextAsk};
use crate::search::methods::own_tests::{Attempt, SelfTested, history, reflect, rewrite, tests_in};
use crate::search::tree::SearchTreeNode;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ReflexionParams {
    /// Programs written at most, the first included (`max_iters`): 8 in the official run.
    pub max_iters: u32,
    /// Internal tests sampled from the set the LLM writes (`number_of_tests`, `main.py`'s default 6).
    pub tests: u32,
}

impl Default for ReflexionParams {
    fn default() -> Self {
        Self { max_iters: 8, tests: 6 }
    }
}

impl ReflexionParams {
    /// The Reflexion paper's own code (noahshinn/reflexion) for its GPT-4 HumanEval figure (91.0%):
    /// `run_reflexion.sh`'s `max_iters 2` and one internal test (`internal_tests(…, 1)`), sampled
    /// at T 0. The default is the LATS repository's copy, behind the LATS paper's 68.1%.
    pub const NOAHSHINN: Self = Self { max_iters: 2, tests: 1 };

    /// The LATS repository's settings with as many internal tests as LATS samples in its GPT-4
    /// run (2): Reflexion and LATS compared at equal tests. Ours, not a setting of either paper.
    pub const LATS_TESTS: Self = Self { max_iters: 8, tests: 2 };
}

/// One program and what its internal tests said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReflexionAttempt {
    /// Its place among the search's expansions.
    pub expansion: usize,
    pub program: String,
    /// Its run on the internal tests (none until it ran).
    pub tested: Option<SelfTested>,
    /// The reflection on it (none for a program that passed, or the last).
    pub reflection: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Tests,
    Program,
    Run,
    Reflect,
    Done,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reflexion {
    pub params: ReflexionParams,
    /// The internal tests, written once.
    pub tests: Vec<String>,
    attempts: Vec<ReflexionAttempt>,
    phase: Phase,
    ended: String,
}

impl Reflexion {
    pub fn new(params: ReflexionParams) -> Self {
        Self { params, tests: Vec::new(), attempts: Vec::new(), phase: Phase::Tests, ended: String::new() }
    }

    fn finish(&mut self, why: &str) {
        self.phase = Phase::Done;
        self.ended = why.to_owned();
    }
}

impl Method for Reflexion {
    fn next(&mut self, _rng: &mut RunRng) -> Option<Ask> {
        match self.phase {
            Phase::Tests => Some(Ask::Text(TextAsk {
                act: TextAct::WriteTests,
                code: String::new(),
                feedback: String::new(),
                failing: None,
            })),
            Phase::Program => Some(Ask::Program(match self.attempts.last() {
                None => Expansion { kind: ActionKind::Generate, code: String::new(), parent: None },
                Some(last) => rewrite(&last.program, last.tested.as_ref()),
            })),
            Phase::Run => {
                let last = self.attempts.last().expect("a program to run");
                Some(Ask::Run { program: last.program.clone(), tests: self.tests.clone() })
            }
            Phase::Reflect => {
                let last = self.attempts.last().expect("a program to reflect on");
                Some(reflect(&last.program, last.tested.as_ref()))
            }
            Phase::Done => None,
        }
    }

    fn absorb(&mut self, expanded: &Expanded, _rng: &mut RunRng) {
        let expansion = self.attempts.len();
        self.attempts.push(ReflexionAttempt { expansion, program: expanded.program.clone(), ..Default::default() });
        self.phase = Phase::Run;
    }

    fn absorb_text(&mut self, reply: Option<&str>, rng: &mut RunRng) {
        let reply = reply.unwrap_or_default();
        match self.phase {
            Phase::Tests => {
                self.tests = tests_in(reply, self.params.tests as usize, rng);
                self.phase = Phase::Program;
            }
            Phase::Reflect => {
                if let Some(last) = self.attempts.last_mut() {
                    last.reflection = reply.trim().to_owned();
                }
                self.phase = Phase::Program;
            }
            _ => {}
        }
    }

    fn absorb_run(&mut self, verdict: &ProgramVerdict, _rng: &mut RunRng) {
        let tested = SelfTested::of(&self.tests, verdict);
        let why = tested.passes().then(|| tested.why_the_answer("the program"));
        let Some(last) = self.attempts.last_mut() else { return };
        last.tested = Some(tested);
        if let Some(why) = why {
            return self.finish(&why);
        }
        if self.attempts.len() >= self.params.max_iters.max(1) as usize {
            return self.finish("the iterations are done: the last program is the answer");
        }
        self.phase = Phase::Reflect;
    }

    fn prompt_id(&self, kind: ActionKind) -> &'static str {
        if kind == ActionKind::Generate { id::LATS_SIMPLE } else { id::LATS_IMPROVE }
    }

    fn prompt_values(&self) -> Vec<(&'static str, String)> {
        match (self.phase, self.attempts.last()) {
            (Phase::Program, Some(last)) => {
                let feedback = last.tested.as_ref().map(SelfTested::feedback).unwrap_or_default();
                vec![(
                    "history",
                    history(&[Attempt { program: &last.program, feedback, reflection: &last.reflection }]),
                )]
            }
            _ => Vec::new(),
        }
    }

    fn answer(&self) -> Answering {
        Answering::Chosen(self.attempts.last().map(|a| a.expansion))
    }

    fn why_done(&self) -> String {
        self.ended.clone()
    }

    /// Only its final answer's.
    fn hidden_test_looks(&self, _programs: usize, answered: bool) -> u32 {
        u32::from(answered)
    }

    /// Each program under the one it rewrote, valued by its share of the tests it wrote.
    fn tree(&self, programs: &[Expanded]) -> Vec<SearchTreeNode> {
        let mut tree = SearchTreeNode::programs(programs, |i| i);
        for (node, attempt) in tree.iter_mut().skip(1).zip(&self.attempts) {
            node.label = if attempt.expansion == 0 { "simple".into() } else { "retry".into() };
            node.value = attempt.tested.as_ref().map_or(0.0, SelfTested::fraction);
            node.self_tested = Some(SelfTested::node(attempt.tested.as_ref(), &attempt.reflection, None, None));
        }
        tree
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::search::methods::own_tests::verdict_on;
    use crate::search::scorer::Score;

    fn expanded(program: &str) -> Expanded {
        Expanded {
            kind: ActionKind::Generate,
            program: program.into(),
            unformatted: None,
            score: Score { ..Score::default() },
            kept_prefix: None,
            llm_calls: 0,
        }
    }

    #[test]
    fn it_writes_tests_once_then_program_run_reflect_until_a_program_passes_or_max_iters_are_written() {
        let mut rng = RunRng::seed_from_u64(1);
        let mut method = Reflexion::new(ReflexionParams { max_iters: 3, tests: 6 });
        let mut acts = Vec::new();
        let mut programs = 0;
        while let Some(ask) = method.next(&mut rng) {
            match ask {
                Ask::Text(text) => {
                    acts.push(text.act.name());
                    method.absorb_text(Some("assert f(0) == 0\nassert f(1) == 1"), &mut rng);
                }
                Ask::Program(expansion) => {
                    acts.push(if expansion.kind == ActionKind::Generate { "simple" } else { "retry" });
                    programs += 1;
                    method.absorb(&expanded(&format!("p{programs}")), &mut rng);
                }
                Ask::Run { tests, .. } => {
                    assert_eq!(tests, ["assert f(0) == 0", "assert f(1) == 1"]);
                    acts.push("run");
                    method.absorb_run(&verdict_on(&[true, false]), &mut rng);
                }
            }
        }
        assert_eq!(acts, ["write tests", "simple", "run", "reflect", "retry", "run", "reflect", "retry", "run"]);
        assert_eq!(method.answer(), Answering::Chosen(Some(2)), "the last program");
        assert_eq!(method.attempts[0].tested.as_ref().map(SelfTested::fraction), Some(0.5));
        // A program that passes ends it at once.
        let mut method = Reflexion::new(ReflexionParams::default());
        method.next(&mut rng);
        method.absorb_text(Some("assert f(0) == 0"), &mut rng);
        method.next(&mut rng);
        method.absorb(&expanded("p1"), &mut rng);
        method.next(&mut rng);
        method.absorb_run(&verdict_on(&[true]), &mut rng);
        assert_eq!(method.next(&mut rng), None);
        assert_eq!(method.answer(), Answering::Chosen(Some(0)));
    }
}
