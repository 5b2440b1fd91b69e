//! What the Search pane draws of a search record: its tree, a node's details, and the best score
//! against LLM calls of every search listed.

use engine::search::method::ActionKind;
use engine::search::record::SearchRecord;
use engine::search::scorer::Score;
use engine::search::tree::SearchTreeNode;
use engine::search::tree::SelfTestedNode;
use leptos::prelude::*;

/// Where each node sits: depth down, leaves left to right, a parent over its children's middle.
fn layout(tree: &[SearchTreeNode]) -> Vec<(f64, f64)> {
    let children = |p: usize| (0..tree.len()).filter(move |&c| tree[c].parent == Some(p));
    fn place(n: usize, depth: f64, next: &mut f64, pos: &mut [(f64, f64)], kids: &dyn Fn(usize) -> Vec<usize>) -> f64 {
        let ks = kids(n);
        let x = if ks.is_empty() {
            *next += 1.0;
            *next - 1.0
        } else {
            let xs: Vec<f64> = ks.iter().map(|&k| place(k, depth + 1.0, next, pos, kids)).collect();
            (xs[0] + xs[xs.len() - 1]) / 2.0
        };
        pos[n] = (x, depth);
        x
    }
    let mut pos = vec![(0.0, 0.0); tree.len()];
    if !tree.is_empty() {
        place(0, 0.0, &mut 0.0, &mut pos, &|n| children(n).collect());
    }
    pos
}

/// The tree (with the programs edited by hand, dashed, under the nodes they came from): node area
/// grows with visits, colour runs from red (0) to green (1), buggy nodes are ringed and show their
/// temporary value, hacked ones (passed only by naive verdicts) are crossed, special-cased ones
/// (every visible test passed, a held-out one failed) carry a question mark; edges carry the
/// action. `selected` is an index of `SearchRecord::nodes`.
#[component]
pub fn SearchTree(record: Signal<Option<SearchRecord>>, selected: RwSignal<Option<usize>>) -> impl IntoView {
    let (dx, dy) = (44.0, 56.0);
    view! {
        <div class="scroll" tabindex="0">{move || record.with(|s| {
            let Some(s) = s else { return ().into_any() };
            let tree = s.nodes();
            let pos = layout(&tree);
            let width = pos.iter().map(|p| p.0).fold(0.0, f64::max) * dx + 2.0 * dx;
            let height = pos.iter().map(|p| p.1).fold(0.0, f64::max) * dy + 2.0 * dy;
            let at = |i: usize| (pos[i].0 * dx + dx, pos[i].1 * dy + dy / 2.0);
            let edges = tree.iter().enumerate().filter_map(|(i, n)| n.parent.map(|p| (p, i, n.label.clone()))).map(|(p, i, label)| {
                let ((x1, y1), (x2, y2)) = (at(p), at(i));
                view! { <g class="edge"><line x1=x1 y1=y1 x2=x2 y2=y2 /><text x=(x1 + x2) / 2.0 y=(y1 + y2) / 2.0>{label}</text></g> }
            }).collect_view();
            let nodes = tree.iter().enumerate().map(|(i, n)| {
                let (x, y) = at(i);
                let r = 6.0 + 2.0 * f64::from(n.visits).sqrt();
                let fill = format!("hsl({:.0}, 70%, 45%)", 120.0 * n.value.clamp(0.0, 1.0));
                let class = match (n.bug, n.hacked, n.special_cased.is_some()) {
                    (true, ..) => "node bug",
                    (_, true, _) => "node hacked",
                    (_, _, true) => "node special-cased",
                    _ => "node",
                };
                let class = if n.edit.is_some() { format!("{class} edited") } else { class.to_owned() };
                let expansion = n.expansion;
                // The root holds no program to show.
                let pick = (n.expansion.is_some() || n.edit.is_some()).then_some(i);
                let note = match (n.bug, n.hacked, &n.special_cased) {
                    (true, ..) => " · bug (temporary value)".to_owned(),
                    (_, true, _) => " · hacked: passed only because verdicts are naive".to_owned(),
                    (_, _, Some(test)) => format!(" · special-cased? it fails held-out test {test}"),
                    _ => String::new(),
                };
                let title = format!("{} · value {:.2} · visits {}{note}", n.label, n.value, n.visits);
                view! {
                    <g class=class data-call=expansion.map(|e| e + 1) data-edit=n.edit.map(|k| k + 1) on:click=move |_| selected.set(pick)>
                        <circle cx=x cy=y r=r fill=fill><title>{title}</title></circle>
                        {n.bug.then(|| view! { <text class="bug-value" x=x + r + 2.0 y=y>{format!("{:.2}", n.value)}</text> })}
                        {n.hacked.then(|| view! { <text class="hacked-mark" x=x y=y + 4.0 text-anchor="middle">"✗"</text> })}
                        {n.special_cased.is_some().then(|| view! { <text class="special-mark" x=x y=y + 4.0 text-anchor="middle">"?"</text> })}
                    </g>
                }
            }).collect_view();
            view! { <svg id="search-tree" width=width height=height>{edges}{nodes}</svg> }.into_any()
        })}</div>
    }
}

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

/// A LATS or Reflexion node's own tests: what the model wrote, what they said, its reflection, and
/// whether the method looked at the task's tests (the score above is the task's, which strict LATS
/// and Reflexion never see before their answer).
fn self_tested(own: SelfTestedNode) -> impl IntoView {
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
            {own.value.map(|v| view! { <p>{format!("Backed-up value {v:.2}")}</p> })}
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
            let heading = match &expanded {
                // LATS's and Reflexion's labels (simple, child, retry) say more than the action.
                Some((_, e)) if n.self_tested.is_some() => format!("Call {} · {} · score {:.3}", e.llm_calls, n.label, ev.score),
                Some((_, e)) => format!("Call {} · {} · score {:.3}", e.llm_calls, e.kind.name(), ev.score),
                None => format!("Edited by hand · score {:.3}", ev.score),
            };
            let call = expanded.as_ref().map(|(i, _)| s.calls.get(*i).cloned().unwrap_or_default());
            Some(view! {
                <h3>{heading}</h3>
                <p id="search-node-feedback">{feedback(&ev)}</p>
                {ev.held_out.clone().map(|h| view! {
                    <p id="search-node-held-out">{format!("Held-out tests (never shown to the LLM, scoring nothing): {} of {} passed", h.passed, h.total)}</p>
                })}
                {ev.special_cased().map(|test| view! {
                    <p id="search-node-special-cased">{format!("special-cased? It passed every visible test and fails the held-out test {test}: it may answer the tests it was shown rather than the task, or have a bug that only a held-out test reaches.")}</p>
                })}
                {n.self_tested.clone().map(self_tested)}
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
pub fn ScorePlot(curves: Signal<Vec<(String, Vec<f64>)>>) -> impl IntoView {
    let (w, h) = (480.0, 200.0);
    view! {
        <h3>"Best score against LLM calls"</h3>
        // Drawn in its own units and scaled to the width there is (a phone's 390 px included).
        <svg id="search-plot" viewBox=format!("0 0 {} {}", w + 40.0, h + 30.0) hidden=move || curves.with(Vec::is_empty)>
            <line x1=30 y1=h x2=w + 30.0 y2=h class="axis" /><line x1=30 y1=0 x2=30 y2=h class="axis" />
            {move || {
                let curves = curves.get();
                let longest = curves.iter().map(|(_, c)| c.len()).max().unwrap_or(1).max(2) as f64;
                curves.into_iter().enumerate().map(|(k, (label, points))| {
                    let line: Vec<String> = points.iter().enumerate()
                        .map(|(i, s)| format!("{:.1},{:.1}", 30.0 + w * (i as f64) / (longest - 1.0), h * (1.0 - s)))
                        .collect();
                    let colour = format!("hsl({}, 65%, 45%)", (k * 67) % 360);
                    view! { <polyline class="curve" points=line.join(" ") stroke=colour.clone() fill="none"><title>{label.clone()}</title></polyline>
                        <text x=w - 150.0 y=14.0 + 14.0 * k as f64 fill=colour>{label}</text> }
                }).collect_view()
            }}
        </svg>
    }
}
