//! GIF-MCTS against numbers worked by hand: each test drives [`GifMcts`] through `next` and
//! `absorb` with chosen scores, as [`crate::search::machine::Search`] does with real ones.

use rand::SeedableRng;

use super::*;

const EPS: f64 = 1e-9;

fn program(lines: usize) -> String {
    (1..=lines).map(|i| format!("x{i} = {i}")).collect::<Vec<_>>().join("\n") + "\n"
}

fn outcome(kind: ActionKind, lines: usize, score: f64, bug: bool) -> Expanded {
    let score =
        Score { score, bug, error: bug.then(|| "SyntaxError: invalid syntax (line 3)".into()), ..Score::default() };
    Expanded { kind, program: program(lines), unformatted: None, score, kept_prefix: None, llm_calls: 0 }
}

/// `next`, checked to be `kind`, then `absorb` of a program with `lines` lines and `score`.
fn step(search: &mut GifMcts, rng: &mut RunRng, kind: ActionKind, lines: usize, score: f64, bug: bool) -> Expansion {
    let expansion = search.next(rng).and_then(Ask::program).expect("an action is left");
    assert_eq!(expansion.kind, kind, "{expansion:?}");
    search.absorb(&outcome(kind, lines, score, bug), rng);
    expansion
}

fn children(search: &GifMcts, node: usize) -> Vec<(ActionKind, u32)> {
    search.nodes()[node].children.iter().map(|&c| search.nodes()[c].action.unwrap()).collect()
}

#[test]
fn a_first_generate_its_value_model_update_and_the_uct_scores_at_the_root() {
    let mut rng = RunRng::seed_from_u64(1);
    let mut search = GifMcts::new(GifMctsParams::default());
    // The root offers generate only; its UCT is the prior 0.5 (ln 1 = 0: no exploration).
    assert_eq!(children(&search, 0), [(ActionKind::Generate, 1)]);
    assert!((search.uct(0, 1) - 0.5).abs() < EPS);
    let first = step(&mut search, &mut rng, ActionKind::Generate, 10, 0.4, false);
    assert_eq!(first.code, "", "the root's state is empty");
    // Choosing g1 offered g2 at the root; g1 offers generate and improve.
    assert_eq!(children(&search, 0), [(ActionKind::Generate, 1), (ActionKind::Generate, 2)]);
    let g1 = search.nodes()[1].clone();
    assert_eq!(children(&search, 1), [(ActionKind::Generate, 1), (ActionKind::Improve, 1)]);
    assert_eq!((g1.visits, g1.value()), (1, 0.4));
    assert_eq!((search.nodes()[0].visits, search.nodes()[0].value_sum), (2, 0.4));
    // Its state: the first 2 + L = 4 lines (the root's state counts 2 lines, the quirk).
    assert_eq!(g1.state, program(4).trim_end());
    // The value model saw v_G = 0.5 and v_L = 0 (g1 counted at value 0), target 0.4: prediction
    // 0.25, so w_G = 0.5 + (1/3)·2·0.15·0.25 = 0.525 and w_L = 0.475.
    let model = &search.models[ActionKind::Generate.index()];
    assert!((model.w_global - 0.525).abs() < EPS && (model.w_local - 0.475).abs() < EPS, "{model:?}");
    assert!((search.globals[0].mean() - 1.4 / 3.0).abs() < EPS);
    // UCT(g1) = 0.4 + 0.1·√(ln 2 / 2) = 0.458871; UCT(g2) = (0.525·1.4/3 + 0.475·0.4) + 0.1·√(ln 2 / 1) — one
    // expanded generate sibling, so n = 1 — = 0.435 + 0.058871 = 0.493871.
    let bonus = 0.1 * (2f64.ln() / 2.0).sqrt();
    assert!((search.uct(0, 1) - (0.4 + bonus)).abs() < EPS);
    assert!((search.uct(0, 2) - (0.435 + bonus)).abs() < EPS, "{}", search.uct(0, 2));
    // So the next call is a second generate from the root.
    let second = search.next(&mut rng).and_then(Ask::program).unwrap();
    assert_eq!((second.kind, second.code.as_str()), (ActionKind::Generate, ""));
}

#[test]
fn a_fresh_healthy_node_is_first_improved_and_states_grow_by_l_plus_the_quirks_line() {
    let mut rng = RunRng::seed_from_u64(1);
    let mut search = GifMcts::new(GifMctsParams { generate_prior: 0.1, ..GifMctsParams::default() });
    step(&mut search, &mut rng, ActionKind::Generate, 20, 0.9, false);
    // At g1 (one visit, ln 1 = 0) generate's estimate v_G = (0.2 + 0.9)/3 = 0.367 loses to improve's
    // prior 0.55: the improve prompt gets g1's whole program.
    let improve = step(&mut search, &mut rng, ActionKind::Improve, 20, 0.95, false);
    assert_eq!(improve.code, program(20));
    // The improved program's state: g1's state counts 4 + 1 lines, so 5 + 2 = 7 lines.
    let improved =
        search.nodes()[1].children.iter().find(|&&c| search.nodes()[c].action == Some((ActionKind::Improve, 1)));
    assert_eq!(search.nodes()[*improved.unwrap()].state.lines().count(), 7);

    let mut plain = GifMcts::new(GifMctsParams { quirk_state_newline: false, ..GifMctsParams::default() });
    step(&mut plain, &mut rng, ActionKind::Generate, 20, 0.9, false);
    assert_eq!(plain.nodes()[1].state.lines().count(), 2, "without the quirk: L lines, then 2L");
}

#[test]
fn a_short_reply_is_terminal_and_its_score_is_the_parents_reward() {
    let mut rng = RunRng::seed_from_u64(1);
    let mut search = GifMcts::new(GifMctsParams::default());
    step(&mut search, &mut rng, ActionKind::Generate, 3, 0.5, false);
    let g1 = &search.nodes()[1];
    // 3 lines < the 4 a child's state needs: a finished program.
    assert!(g1.terminal && g1.children.is_empty());
    assert_eq!((g1.reward, g1.value_sum, g1.visits), (0.5, 0.0, 1));
    // Backpropagation: v = reward + γ·0 = 0.5 reaches the root.
    assert_eq!((search.nodes()[0].value_sum, search.nodes()[0].visits), (0.5, 2));
}

#[test]
fn a_bug_takes_temporary_values_as_its_fixes_fail_and_ancestors_only_count_visits() {
    let mut rng = RunRng::seed_from_u64(1);
    let mut search = GifMcts::new(GifMctsParams::default());
    assert_eq!(search.bug_values, [0.0, 0.33, 0.66, 0.99]);
    step(&mut search, &mut rng, ActionKind::Generate, 10, 0.0, true);
    let g1 = search.nodes()[1].clone();
    // A fresh bug: 0.99 with 3 fixes left, offering fix only; the root's mean is untouched.
    assert_eq!((g1.bug, g1.fixes_left, g1.visits, g1.value()), (true, 3, 1, 0.99));
    assert_eq!(children(&search, 1), [(ActionKind::Fix, 1)]);
    assert_eq!((search.nodes()[0].value_sum, search.nodes()[0].visits), (0.0, 2));

    // UCT(g1) = 0.99 + 0.0589 beats a new generate, and a buggy node is only fixed: the fix
    // prompt gets its program and its error.
    let fix = step(&mut search, &mut rng, ActionKind::Fix, 10, 0.0, true);
    assert_eq!(fix.code, program(10));
    assert!(fix.parent.unwrap().error.unwrap().contains("line 3"));
    // Still buggy: the fix takes 0.66 (2 left), and g1 too, over its 2 visits; no sibling fix.
    let f1 = search.nodes()[1].children[0];
    assert_eq!((search.nodes()[f1].fixes_left, search.nodes()[f1].value()), (2, 0.66));
    assert!((search.nodes()[1].value_sum - 1.32).abs() < EPS && !search.nodes()[1].bug);
    assert_eq!(children(&search, 1), [(ActionKind::Fix, 1)]);

    // g1: 0.66 + 0.1·√(ln 3 / 3) = 0.7205 against a new generate's 0.5844: the chain goes on.
    step(&mut search, &mut rng, ActionKind::Fix, 10, 0.0, true);
    // 0.33 now for both fix nodes and g1, over their visits: 2 and 3.
    assert!((search.nodes()[f1].value_sum - 0.66).abs() < EPS);
    assert!((search.nodes()[1].value_sum - 0.99).abs() < EPS);
    // g1 at 0.33 + 0.0589 now loses to a new generate at 0.3315 + 0.0833.
    step(&mut search, &mut rng, ActionKind::Generate, 10, 0.2, false);
}

#[test]
fn a_fix_that_works_gives_the_chain_its_value_and_spent_fixes_end_it() {
    let mut rng = RunRng::seed_from_u64(1);
    let mut search = GifMcts::new(GifMctsParams::default());
    step(&mut search, &mut rng, ActionKind::Generate, 10, 0.0, true);
    step(&mut search, &mut rng, ActionKind::Fix, 10, 0.8, false);
    // The fix works: g1 takes its value (0.8) over its 2 visits and is healthy again.
    let g1 = &search.nodes()[1];
    assert!((g1.value() - 0.8).abs() < EPS && !g1.bug);

    // With one fix allowed, a failed fix spends it: the chain is worth 0 and ends.
    let mut one = GifMcts::new(GifMctsParams { fix_chain: 1, ..GifMctsParams::default() });
    assert_eq!(one.bug_values, [0.0, 0.99]);
    step(&mut one, &mut rng, ActionKind::Generate, 10, 0.0, true);
    step(&mut one, &mut rng, ActionKind::Fix, 10, 0.0, true);
    let g1 = &one.nodes()[1];
    assert!(g1.terminal && g1.value_sum == 0.0);
    let f1 = &one.nodes()[g1.children[0]];
    assert!(f1.bug && f1.children.is_empty() && f1.fixes_left == 0);
    // The search goes on from the root.
    step(&mut one, &mut rng, ActionKind::Generate, 10, 0.3, false);
}

#[test]
fn the_ablations_remove_their_action() {
    let mut rng = RunRng::seed_from_u64(1);
    let mut no_generate = GifMcts::new(GifMctsParams { allow_generate: false, ..GifMctsParams::default() });
    step(&mut no_generate, &mut rng, ActionKind::Generate, 10, 0.5, false);
    // The root keeps its one generate; nodes offer improve only.
    assert_eq!(children(&no_generate, 0), [(ActionKind::Generate, 1)]);
    assert_eq!(children(&no_generate, 1), [(ActionKind::Improve, 1)]);
    let mut no_fix = GifMcts::new(GifMctsParams { fix_chain: 0, ..GifMctsParams::default() });
    step(&mut no_fix, &mut rng, ActionKind::Generate, 10, 0.0, true);
    assert!(children(&no_fix, 1).is_empty(), "a bug is a dead end without fixes");
    // It is passed over: the next call generates again from the root.
    step(&mut no_fix, &mut rng, ActionKind::Generate, 10, 0.5, false);
}

#[test]
fn a_reexpanded_terminal_node_is_offered_its_initial_actions_afresh_or_beside_the_old_children() {
    // One fix allowed and no generate beyond the root's: g1 is a bug, its fix fails, so the chain
    // ends (g1 terminal, value 0) and g1, the root's only child, is selected and expanded again.
    let reexpanded = |official: bool| {
        let mut rng = RunRng::seed_from_u64(1);
        let params = GifMctsParams {
            fix_chain: 1,
            allow_generate: false,
            quirk_reexpansion_reoffers_initial_actions: official,
            ..GifMctsParams::default()
        };
        let mut search = GifMcts::new(params);
        step(&mut search, &mut rng, ActionKind::Generate, 10, 0.0, true);
        step(&mut search, &mut rng, ActionKind::Fix, 10, 0.0, true);
        let old_fix = search.nodes()[1].children[0];
        assert!(search.nodes()[1].terminal);
        assert_eq!(search.nodes()[1].initial_actions, InitialActions::FixOnly);
        // The re-expansion writes a healthy program.
        let again = step(&mut search, &mut rng, ActionKind::Generate, 10, 0.7, false);
        assert_eq!(again.code, "", "g1 is expanded again from the root's state");
        let g1 = &search.nodes()[1];
        assert!(!g1.terminal && !g1.bug);
        (children(&search, 1), g1.children.contains(&old_fix))
    };
    // Official: the fix-only `initial_actions` are rebuilt, a fresh fix in place of the old one.
    assert_eq!(reexpanded(true), (vec![(ActionKind::Fix, 1)], false));
    // Earlier rule: a healthy program's improve (generate is off), beside the old fix.
    assert_eq!(reexpanded(false), (vec![(ActionKind::Fix, 1), (ActionKind::Improve, 1)], true));
}

#[test]
fn a_nodes_state_and_terminal_test_come_from_the_reply_as_written_not_from_autopep8() {
    // A one-line reply that autopep8 made five lines long: the official parser reads the reply,
    // shorter than a first state (4 lines with the newline quirk), so the node is terminal.
    let four = "x1 = 1\nx2 = 2\nx3 = 3\nx4 = 4";
    for (from_raw, terminal, state) in [(true, true, "x1 = 1"), (false, false, four)] {
        let mut rng = RunRng::seed_from_u64(1);
        let mut search = GifMcts::new(GifMctsParams { state_from_raw_reply: from_raw, ..GifMctsParams::default() });
        search.next(&mut rng).expect("the root's generate");
        let mut formatted = outcome(ActionKind::Generate, 5, 0.5, false);
        formatted.unformatted = Some(program(1));
        search.absorb(&formatted, &mut rng);
        let node = &search.nodes()[1];
        assert_eq!((node.terminal, node.state.as_str(), node.program.as_str()), (terminal, state, program(5).as_str()));
    }
}
