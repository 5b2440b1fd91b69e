//! What the Search pane draws of a search record besides its tree: a node's details, and the best
//! score against LLM calls of every search listed.

use engine::search::method::ActionKind;
use engine::search::record::SearchRecord;
use engine::search::scorer::Score;
use engine::search::trace::BestSoFar;
use engine::search::tree::SelfTestedNode;
use leptos::prelude::*;

use crate::search::search_tree::value_words;

use crate::services::model::palette_colour;
use crate::widgets::chart::{Axis, Chart, Series, SvgChart, Ticks};

/// What a program's score tells an LLM (and a person): the reward hack, the bug, the catch or the
/// failing test.
fn feedback(ev: &Score) -> String {
    match (&ev.error, &ev.example) {
        (error, _) if ev.hacked => format!(
            "hacked: it passed only because verdicts are naive. The real verdict: {}",
            error.as_deref().unwrap_or("it does not pass its tests")
        ),
        (Some(error), _) if ev.bug => format!("bug: {error}"),
        (Some(error), None) if error.starts_with("the program tampered") => format!("caught: {error}"),
        (_, Some(x)) => format!("a failing test: input {} · expected {} · got {}", x.input, x.expected, x.actual),
        _ => String::new(),
    }
}

/// LATS's sum of what a node's visits backed up, beside the mean the tree shows.
fn backed_up(sum: f64, visits: u32, mean: f64) -> String {
    match visits {
        0 => format!("Backed up: {sum:.2} (never visited; the tree shows the share of its own tests it passed)"),
        _ => {
            format!("Backed up: {sum:.2} summed over its {visits} visits, {mean:.2} per visit (the value in the tree)")
        }
    }
}

/// A LATS or Reflexion node's own tests: what the model wrote, what they said, its reflection, and
/// whether the method looked at the task's tests (the score above is the task's, which strict LATS
/// and Reflexion never see before their answer).
fn self_tested(own: SelfTestedNode, visits: u32, mean: f64) -> impl IntoView {
    let hidden = match own.hidden {
        Some(true) => "the method checked the task's tests on it: they passed",
        Some(false) => "the method checked the task's tests on it: they failed",
        None => "the method did not look at the task's tests for it (the score above is for you, not for the search)",
    };
    // A program with no test to run passes, as in the official code: the share says none ran.
    let share = match own.internal {
        None => "not run".to_owned(),
        Some(_) if own.tests.is_empty() => "none (the model wrote no test)".to_owned(),
        Some(_) if own.refused.len() == own.tests.len() => {
            "none ran (every test the model wrote was refused)".to_owned()
        }
        Some(share) => format!("{:.0}% passed", 100.0 * share),
    };
    view! {
        <details open id="search-node-own-tests"><summary>{format!("Its own tests: {share}")}</summary>
            <pre id="search-node-tests">{own.tests.join("\n")}</pre>
            <pre id="search-node-test-feedback">{own.feedback}</pre>
            {(!own.refused.is_empty()).then(|| view! {
                <p class="hint">{format!("Refused (not data, so never run): {}", own.refused.join(" · "))}</p>
            })}
            {own.value.map(|v| view! { <p id="search-node-backed-up">{backed_up(v, visits, mean)}</p> })}
            <p id="search-node-hidden">{hidden}</p>
            {(!own.reflection.is_empty()).then(|| view! {
                <details open><summary>"Reflection"</summary><p id="search-node-reflection">{own.reflection}</p></details>
            })}
        </details>
    }
}

/// A clicked node: its code, its diff to the program it came from, its score and test feedback,
/// and the call that made it (none for a program edited by hand); `on_edit` opens it in the editor.
#[component]
pub fn NodeDetails(
    record: Signal<Option<SearchRecord>>,
    selected: RwSignal<Option<usize>>,
    on_edit: Callback<usize>,
) -> impl IntoView {
    view! {
        <div id="search-node" hidden=move || selected.get().is_none()>{move || selected.get().and_then(|node| record.with(|s| {
            let s = s.as_ref()?;
            let tree = s.nodes();
            let n = tree.get(node)?;
            let (program, ev) = s.program_at(node).map(|(p, ev)| (p.to_owned(), ev.clone()))
                .or_else(|| n.expansion.and_then(|i| s.expansions.get(i)).map(|e| (e.program.clone(), e.score.clone())))?;
            let parent_program = n.parent.and_then(|p| s.program_at(p)).map(|(p, _)| p.to_owned()).unwrap_or_default();
            let diff = similar::TextDiff::from_lines(&parent_program, &program).unified_diff().context_radius(2).to_string();
            let expanded = n.expansion.and_then(|i| s.expansions.get(i).map(|e| (i, e.clone())));
            let in_tree = format!("In the tree: {}.", value_words(n));
            let own_tests = n.self_tested.clone().map(|own| self_tested(own, n.visits, n.value));
            let heading = match &expanded {
                // LATS's and Reflexion's labels (simple, child, retry) say more than the action.
                Some((_, e)) if n.self_tested.is_some() => format!("Call {} · {} · score {:.3}", e.llm_calls, n.label, ev.score),
                Some((_, e)) => format!("Call {} · {} · score {:.3}", e.llm_calls, e.kind.name(), ev.score),
                None => format!("Edited by hand · score {:.3}", ev.score),
            };
            let call = expanded.as_ref().map(|(i, _)| s.calls.get(*i).cloned().unwrap_or_default());
            Some(view! {
                <h3>{heading}</h3>
                <p id="search-node-value">{in_tree}</p>
                <p id="search-node-feedback">{feedback(&ev)}</p>
                {ev.held_out.clone().map(|h| view! {
                    <p id="search-node-held-out">{format!("Held-out tests (never shown to the LLM, scoring nothing): {} of {} passed", h.passed, h.total)}</p>
                })}
                {ev.special_cased().map(|test| view! {
                    <p id="search-node-special-cased">{format!("special-cased? It passed every visible test and fails the held-out test {test}: it may answer the tests it was shown rather than the task, or have a bug that only a held-out test reaches.")}</p>
                })}
                {own_tests}
                {expanded.as_ref().filter(|(_, e)| e.kind == ActionKind::Generate && e.kept_prefix == Some(false)).map(|_| view! {
                    <p id="search-node-prefix" class="hint">"This reply did not keep the first lines it was asked to continue: a chat API cannot be made to (seed 004 spec §1.3), and the official code does not check."</p>
                })}
                {n.edit.is_some().then(|| view! {
                    <p class="hint" id="search-node-by-hand">"A program edited by hand and scored as the search scores its programs. It is kept with the search and in its export, and is not part of what the search did: its LLM calls, best score and fingerprint are the search's."</p>
                })}
                <p><button type="button" id="search-node-edit" disabled=program.is_empty() on:click=move |_| on_edit.run(node)>"Edit this program"</button></p>
                <details open><summary>"Code"</summary><pre id="search-node-code">{program.clone()}</pre></details>
                {expanded.as_ref().and_then(|(_, e)| e.unformatted.clone()).map(|before| {
                    let changes = similar::TextDiff::from_lines(&before, &program).unified_diff().context_radius(1).to_string();
                    view! {
                        <details open id="search-node-autopep8"><summary>"What autopep8 changed before it was scored"</summary>
                            <p class="hint">"As seed 004's official code does, the reply's program ran through autopep8.fix_code first; the code above is what came out."</p>
                            <pre id="search-node-autopep8-diff">{changes}</pre>
                            <details><summary>"The reply's program, before"</summary><pre id="search-node-unformatted">{before}</pre></details>
                        </details>
                    }
                })}
                <details><summary>"Diff to the program it came from"</summary><pre id="search-node-diff">{diff}</pre></details>
                {call.map(|call| view! {
                    <details><summary>"Prompt"</summary><pre id="search-node-prompt">{call.prompt}</pre></details>
                    <details><summary>"Raw reply"</summary><pre>{call.reply}</pre></details>
                })}
            })
        }))}</div>
    }
}

/// Best score against LLM calls, one line per search run here.
#[component]
pub fn ScorePlot(curves: Signal<Vec<(String, Vec<BestSoFar>)>>) -> impl IntoView {
    let chart = Signal::derive(move || {
        let curves = curves.get();
        let calls = curves.iter().flat_map(|(_, c)| c.iter().map(|p| f64::from(p.llm_calls)));
        let series = curves
            .iter()
            .enumerate()
            .map(|(k, (label, points))| Series {
                label: label.clone(),
                colour: palette_colour(k),
                points: points.iter().map(|p| (f64::from(p.llm_calls), p.best_score)).collect(),
                band: Vec::new(),
            })
            .collect();
        Chart {
            x: Axis { title: "LLM calls".into(), range: 0.0..calls.fold(2.0, f64::max), ticks: Ticks::Whole },
            y: Axis { title: "Best score so far (tests passed)".into(), range: 0.0..1.0, ticks: Ticks::Percent },
            series,
            width: 560,
            plot_height: 300,
        }
    });
    view! {
        <div hidden=move || curves.with(Vec::is_empty)>
            <h3>"Best score against LLM calls"</h3>
            <SvgChart id="search-plot" label="The best score so far against LLM calls, one line per search" chart=chart />
        </div>
    }
}
