use rand::SeedableRng;

use super::*;
use crate::search::methods::own_tests::verdict_on;
use crate::search::scorer::Score;

const EPS: f64 = 1e-9;

fn node(parent: Option<usize>, children: &[usize], value: f64, visits: u32) -> LatsNode {
    LatsNode { parent, children: children.to_vec(), value, visits, ..LatsNode::default() }
}

#[test]
fn uct_value_and_backpropagation_follow_the_official_formulas_worked_by_hand() {
    // A root visited 3 times (value 1.5) with three children: a (2 visits, value 1.0), b (1 visit,
    // value 0.5) and c (never visited).
    let mut lats = Lats::new(LatsParams::default());
    lats.nodes = vec![
        node(None, &[1, 2, 3], 1.5, 3),
        node(Some(0), &[], 1.0, 2),
        node(Some(0), &[], 0.5, 1),
        node(Some(0), &[], 0.0, 0),
    ];
    // a: 1.0/2 + sqrt(ln 3 / 2) = 0.5 + sqrt(0.549306144) = 0.5 + 0.741151904 = 1.241151904.
    assert!((lats.uct(1) - 1.241_151_904).abs() < EPS, "{}", lats.uct(1));
    // b: 0.5/1 + sqrt(ln 3 / 1) = 0.5 + 1.048147074 = 1.548147074.
    assert!((lats.uct(2) - 1.548_147_074).abs() < EPS, "{}", lats.uct(2));
    // c: unvisited, its value (the official code returns it, not infinity).
    assert_eq!(lats.uct(3), 0.0);
    assert_eq!(lats.select_leaf(), 2, "b has the highest UCT and no children");
    // Backpropagation adds the reward to the node and every ancestor, and a visit to each.
    lats.backpropagate(2, 0.75);
    assert_eq!((lats.nodes[2].value, lats.nodes[2].visits), (1.25, 2));
    assert_eq!((lats.nodes[0].value, lats.nodes[0].visits), (2.25, 4));
    assert_eq!((lats.nodes[1].value, lats.nodes[1].visits), (1.0, 2), "a sibling is untouched");
    // The answer without a solved child: the root's child of highest (summed) value, b's 1.25.
    lats.absorbed = 4;
    lats.nodes[2].expansion = 2;
    assert_eq!(lats.answer(), Answering::Chosen(Some(2)));
    // Ties go to the first child, as Python's `max` gives them.
    lats.nodes[1].value = 1.25;
    assert_eq!(lats.answer(), Answering::Chosen(Some(0)), "a (expansion 0) comes first");
}

fn expanded(program: &str, hidden: f64) -> Expanded {
    Expanded {
        kind: ActionKind::Improve,
        program: program.into(),
        unformatted: None,
        score: Score { score: hidden, ..Score::default() },
        kept_prefix: None,
        llm_calls: 0,
    }
}

/// Drives a LATS of 2 iterations and 2 children: programs come with these hidden scores and
/// internal results, in order (a program run again gets its own result again).
fn scripted(mode: HiddenTests) -> (Lats, Vec<String>, Vec<String>) {
    let mut rng = RunRng::seed_from_u64(1);
    let mut lats = Lats::new(LatsParams { max_iters: 2, children: 2, tests: 2, exploration: 1.0, mode });
    // The root fails one test; child 1 fails both; child 2 passes both but not the hidden tests;
    // child 3 (under child 2, in the last iteration) fails one, and its hidden tests pass.
    let programs = [
        ("root", 0.5, [true, false]),
        ("c1", 0.0, [false, false]),
        ("c2", 0.5, [true, true]),
        ("c3", 1.0, [true, false]),
    ];
    let results = |program: &str| programs.iter().find(|p| p.0 == program).map(|p| p.2).unwrap();
    let (mut acts, mut histories) = (Vec::new(), Vec::new());
    let mut written = 0;
    while let Some(ask) = lats.next(&mut rng) {
        match ask {
            Ask::Text(text) => {
                acts.push(text.act.name().to_owned());
                lats.absorb_text(Some("assert f(0) == 0\nassert f(1) == 1"), &mut rng);
            }
            Ask::Program(expansion) => {
                let (name, hidden, _) = programs[written];
                written += 1;
                acts.push(format!("write {name}"));
                if expansion.kind == ActionKind::Improve {
                    histories.push(lats.prompt_values()[0].1.clone());
                }
                lats.absorb(&expanded(name, hidden), &mut rng);
            }
            Ask::Run { program, tests } => {
                assert_eq!(tests.len(), 2);
                acts.push(format!("run {program}"));
                lats.absorb_run(&verdict_on(&results(&program)), &mut rng);
            }
        }
    }
    (lats, acts, histories)
}

#[test]
fn the_official_loop_reruns_and_reflects_on_every_child_so_far_and_checks_hidden_tests_on_internal_passes() {
    let (lats, acts, histories) = scripted(HiddenTests::Official);
    let expected = [
        "write tests",
        "write root",
        "run root",
        "reflect",
        // Iteration 1, from the root: child 1 is run and reflected on; then child 2 comes, and the
        // loop runs child 1 again (and reflects again) before child 2, which passes: hidden check.
        "write tests",
        "write c1",
        "run c1",
        "reflect",
        "write c2",
        "run c1",
        "reflect",
        "run c2",
        // Iteration 2 (the last), from child 2 (UCT 1 + sqrt(ln 2) against child 1's sqrt(ln 2)):
        // child 3 fails, is reflected on, and its hidden tests are checked anyway: they pass.
        "write tests",
        "write c3",
        "run c3",
        "reflect",
    ];
    assert_eq!(acts, expected);
    assert_eq!(lats.hidden_checks(), 2, "child 2's and child 3's, the answer's");
    assert_eq!(lats.answer(), Answering::Chosen(Some(3)), "child 3, whose hidden tests passed");
    // Child 1 got reward 0, child 2 its internal 1.0 (its hidden tests failed: +0), backed up.
    assert_eq!((lats.nodes[1].value, lats.nodes[1].visits), (0.0, 1));
    assert_eq!((lats.nodes[2].value, lats.nodes[2].visits), (1.0, 1));
    assert_eq!((lats.nodes[0].value, lats.nodes[0].visits), (1.0, 2));
    assert_eq!(lats.nodes[3].parent, Some(2));
    // Child 3's prompt recalls the root's attempt and child 2's (which needed no reflection).
    let last = histories.last().unwrap();
    assert!(
        last.contains("[previous impl 1]:\n```python\nroot\n```")
            && last.contains("[previous impl 2]:\n```python\nc2\n```"),
        "{last}"
    );
    assert!(!last.contains("c1"), "child 1 is not on the path");
}

#[test]
fn the_strict_mode_never_looks_at_hidden_tests_and_answers_with_the_first_program_to_pass_its_own() {
    let (lats, acts, _) = scripted(HiddenTests::Strict);
    assert_eq!(acts.last().map(String::as_str), Some("run c2"), "it stops at child 2, which passes its tests");
    assert_eq!(lats.checks, 0);
    assert_eq!(lats.hidden_checks(), 1, "the final answer's");
    assert!(lats.nodes.iter().all(|n| n.hidden.is_none()));
    assert_eq!(
        lats.answer(),
        Answering::Chosen(Some(2)),
        "child 2, whose hidden tests fail: the cost of its own tests"
    );
}
