//! A search's tree as the Search pane draws it, with a legend in words and a line that accounts
//! for every LLM call: a node per program, its colour its value, its size its visits, and the
//! edge into it drawn by the action that made it. Nodes take focus and open with Enter or Space.

use engine::search::method::ActionKind;
use engine::search::record::SearchRecord;
use engine::search::tree::SearchTreeNode;
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

/// How the edge into a node is drawn: by the action that made its program, or by hand. Edges
/// carry no text, so that no two labels can overlap; the legend says what each stroke means.
fn edge_class(record: &SearchRecord, node: &SearchTreeNode) -> &'static str {
    match node.expansion.and_then(|e| record.expansions.get(e)) {
        Some(e) => match e.kind {
            ActionKind::Generate => "edge generate",
            ActionKind::Improve => "edge improve",
            ActionKind::Fix => "edge fix",
        },
        None => "edge by-hand",
    }
}

/// A node's value, named the same wherever it is shown: the mean of what its visits backed up
/// (GIF-MCTS, LATS) or, visited once, its score.
pub fn value_words(node: &SearchTreeNode) -> String {
    if node.bug {
        format!("temporary value {:.2} (a bug's, until a fix is scored)", node.value)
    } else if node.visits > 1 {
        format!("value {:.2} (the mean of what its {} visits backed up)", node.value, node.visits)
    } else {
        format!("value {:.2}", node.value)
    }
}

/// The tree (with the programs edited by hand, dashed, under the nodes they came from): node area
/// grows with visits, colour runs from red (0) to green (1), buggy nodes are ringed and show their
/// temporary value, hacked ones (passed only by naive verdicts) are crossed, special-cased ones
/// (every visible test passed, a held-out one failed) carry a question mark. `selected` is an
/// index of `SearchRecord::nodes`.
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
            let edges = tree.iter().enumerate().filter_map(|(i, n)| n.parent.map(|p| (p, i, n))).map(|(p, i, n)| {
                let ((x1, y1), (x2, y2)) = (at(p), at(i));
                view! { <line class=edge_class(s, n) x1=x1 y1=y1 x2=x2 y2=y2 /> }
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
                // The root holds no program to show, and takes no focus.
                let pick = (n.expansion.is_some() || n.edit.is_some()).then_some(i);
                let note = match (n.hacked, &n.special_cased) {
                    (true, _) => " · hacked: passed only because verdicts are naive".to_owned(),
                    (_, Some(test)) => format!(" · special-cased? it fails held-out test {test}"),
                    _ => String::new(),
                };
                let made_by = match expansion {
                    // Numbered as the node's details are: by LLM calls, text calls included.
                    Some(e) => format!("call {} · {}", s.expansions.get(e).map_or(0, |x| x.llm_calls), n.label),
                    None if n.edit.is_some() => "edited by hand".to_owned(),
                    None => "the root (no program yet)".to_owned(),
                };
                let title = format!("{made_by} · {} · visits {}{note}", value_words(n), n.visits);
                let label = title.clone();
                let open = move |ev: leptos::ev::KeyboardEvent| {
                    if matches!(ev.key().as_str(), "Enter" | " ") {
                        ev.prevent_default();
                        selected.set(pick);
                    }
                };
                view! {
                    <g class=class data-call=expansion.map(|e| e + 1) data-edit=n.edit.map(|k| k + 1)
                        tabindex=if pick.is_some() { "0" } else { "-1" } role="button" aria-label=label
                        on:click=move |_| selected.set(pick) on:keydown=open>
                        <circle cx=x cy=y r=r fill=fill><title>{title}</title></circle>
                        {n.bug.then(|| view! { <text class="bug-value" x=x + r + 2.0 y=y>{format!("{:.2}", n.value)}</text> })}
                        {n.hacked.then(|| view! { <text class="hacked-mark" x=x y=y + 4.0 text-anchor="middle">"✗"</text> })}
                        {n.special_cased.is_some().then(|| view! { <text class="special-mark" x=x y=y + 4.0 text-anchor="middle">"?"</text> })}
                    </g>
                }
            }).collect_view();
            view! {
                <svg id="search-tree" width=width height=height>{edges}{nodes}</svg>
            }.into_any()
        })}</div>
        <p id="search-tree-calls">{move || record.with(|s| s.as_ref().map(SearchRecord::calls_explained))}</p>
        <p id="search-answered">{move || record.with(|s| s.as_ref().map(SearchRecord::answered_by))}</p>
        <TreeLegend record=record />
    }
}

/// What the tree's colours, rings, sizes and strokes mean, in words; an edge kind is listed only
/// when the shown tree has one.
#[component]
fn TreeLegend(record: Signal<Option<SearchRecord>>) -> impl IntoView {
    let strokes = move || {
        record.with(|s| {
            let Some(s) = s else { return Vec::new() };
            let tree = s.nodes();
            let kinds = [
                ("generate", "solid: generate (continue the program's first lines)"),
                ("improve", "dashed: improve (rewrite it from a failing test; LATS and Reflexion: from its own tests and a reflection)"),
                ("fix", "dotted: fix (rewrite it from the error it raised)"),
                ("by-hand", "thin dashes: edited by hand here"),
            ];
            kinds
                .into_iter()
                .filter(|(kind, _)| tree.iter().filter(|n| n.parent.is_some()).any(|n| edge_class(s, n).ends_with(kind)))
                .map(|(kind, words)| view! { <li><svg width="28" height="10" aria-hidden="true"><line class=format!("edge {kind}") x1="1" y1="5" x2="27" y2="5" /></svg>{words}</li> })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <details id="search-tree-legend" hidden=move || record.with(Option::is_none)>
            <summary>"What the tree shows"</summary>
            <ul>
                <li>"A node is a program; its colour runs from red (value 0) to green (value 1); its area grows with its visits. A node's value is the mean of what its visits backed up (GIF-MCTS, LATS), or, visited once, its score: the share of tests passed."</li>
                <li>"Ringed in red, with a number beside: a bug (it does not run); the number is its temporary value until a fix is scored."</li>
                <li>"✗ on a dashed black ring: hacked, it passed only because verdicts were naive."</li>
                <li>"? on an orange ring: special-cased? It passed every visible test and failed a held-out one."</li>
                <li>"An edge leads to a program from the one it came from; its stroke says the LLM call that made it:"
                    <ul>{strokes}</ul>
                </li>
                <li>"Tab to a node and press Enter, or click it, to see its program, prompt and reply."</li>
            </ul>
        </details>
    }
}
