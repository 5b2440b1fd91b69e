//! The Search pane: seed 004's program searches (GIF-MCTS, WorldCoder, zero-shot) on a bundled task,
//! with the LLM chosen in live mode (or the simulated LLM, offline) and every program scored by
//! Pyodide. The search is `engine::search::Search`, driven by `host::drive`; this pane shows its
//! tree as it grows, each program's details, the best program, and the best score against LLM
//! calls for every search run here.

use engine::params::{self, Parameters};
use engine::prompts::PromptSet;
use engine::search::bank::search_tasks;
use engine::search::simulated_llm::SimulatedLlmParams;
use engine::search::spec::{MethodSpec, ProgramSearch, SearchSpec, TreeNode};
use engine::search::{CallRecord, Expanded};
use leptos::prelude::*;

use crate::controls::ParamFields;
use crate::host::{self, HostView, Llm};
use crate::llm_client::CancelToken;
use crate::llm_settings::LlmChoice;
use crate::python::Python;

/// What the pane shows of a search: its tree, its programs and calls, its best score over calls.
#[derive(Clone, Debug, Default, PartialEq)]
struct Snapshot {
    tree: Vec<TreeNode>,
    expansions: Vec<Expanded>,
    calls: Vec<CallRecord>,
    progress: Vec<f64>,
    best: Option<(String, f64)>,
    summary: String,
}

impl Snapshot {
    fn of(search: &ProgramSearch) -> Self {
        Self {
            tree: search.tree(),
            expansions: search.expansions().to_vec(),
            calls: search.calls().to_vec(),
            progress: search.progress().iter().map(|p| p.best_score).collect(),
            best: search.best().map(|(p, s)| (p.to_owned(), s)),
            summary: format!(
                "{} LLM calls · best score {:.3} · {} tokens",
                search.llm_calls(),
                search.best().map_or(0.0, |(_, s)| s),
                search.usage().total()
            ),
        }
    }
}

#[component]
pub fn SearchPane(python: Python) -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let python = StoredValue::new_local(python);
    let task = RwSignal::new(search_tasks()[0].id.clone());
    let method = RwSignal::new(MethodSpec::NAMES[0].to_owned());
    let budget = RwSignal::new("20".to_owned());
    let seed = RwSignal::new("1".to_owned());
    // The simulated LLM's odds, as the run form's parameters are edited.
    let odds_fields = Memo::new(|_| params::fields(&SimulatedLlmParams::default().params_schema()));
    let odds_texts = RwSignal::new(params::texts(&SimulatedLlmParams::default(), &odds_fields.get_untracked()));
    let problem = RwSignal::new(None::<String>);
    let (status, stream) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let snapshot = RwSignal::new(Snapshot::default());
    let selected = RwSignal::new(None::<usize>);
    // Every finished search's label and best score after each call, for the plot.
    let curves = RwSignal::new(Vec::<(String, Vec<f64>)>::new());
    let running = RwSignal::new(false);
    let cancel = StoredValue::new_local(CancelToken::default());

    let start = move |_| {
        let spec = (|| {
            let method = MethodSpec::parse(&method.get_untracked())?;
            let budget = budget.get_untracked().trim().parse().map_err(|_| "budget: a whole number of LLM calls")?;
            let seed = seed.get_untracked().trim().parse().map_err(|_| "seed: a whole number")?;
            let mut spec = SearchSpec::new(method, &task.get_untracked(), budget, seed);
            let odds = params::build(
                &SimulatedLlmParams::default(),
                &odds_fields.get_untracked(),
                &odds_texts.get_untracked(),
            );
            spec.simulated_llm = odds.map_err(|e| format!("simulated LLM: {e}"))?;
            Ok::<_, String>(spec)
        })();
        let prompts: PromptSet = llm_choice.prompts.get_untracked();
        let built = spec.and_then(|spec| Ok((spec.build(prompts)?, spec)));
        let ((mut search, spec), (mut llm, llm_label, _)) = match built.and_then(|b| Ok((b, llm_choice.llm(0)?))) {
            Ok(ready) => ready,
            Err(message) => return problem.set(Some(message)),
        };
        match &mut llm {
            // Seed 004 samples at temperature 1; the offline LLM draws from the search's seed.
            Llm::Remote { settings, .. } => settings.temperature = 1.0,
            Llm::Offline(offline) => **offline = engine::effects::OfflineLlm::new(spec.seed),
        }
        problem.set(None);
        selected.set(None);
        running.set(true);
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        let label = format!("{} on {} (seed {}, {llm_label})", spec.method.name(), spec.task, spec.seed);
        leptos::task::spawn_local(async move {
            let decide = async |_| Err("a search takes no policy decisions".to_owned());
            let view = HostView { status, stream };
            host::drive(&mut search, &mut llm, &python, &token, decide, view, |s| snapshot.set(Snapshot::of(s))).await;
            status.set(format!("Search over: {}.", search.ended()));
            curves.update(|c| c.push((label, search.progress().iter().map(|p| p.best_score).collect())));
            running.set(false);
        });
    };

    view! {
        <section aria-labelledby="search-heading" class="panel" id="search">
            <h2 id="search-heading">"Search: GIF-MCTS, WorldCoder and zero-shot (seed 004)"</h2>
            <p class="hint">"A tree search over programs: each node is a program, each edge one LLM call that generates (continues the node's first lines), improves (from a failing test) or fixes (from an error). The LLM is the one chosen in Live mode; offline, the simulated LLM answers from each task's bank of correct and faulty code, and its results are the simulated LLM's, not the paper's. Every program runs in Pyodide."</p>
            <div class="form-grid">
                <label>"Task"<select id="search-task" on:change=move |ev| task.set(event_target_value(&ev))>
                    {search_tasks().iter().map(|t| view! { <option value=t.id.clone()>{t.id.clone()}</option> }).collect_view()}
                </select></label>
                <label>"Method"<select id="search-method" on:change=move |ev| method.set(event_target_value(&ev))>
                    {MethodSpec::NAMES.iter().map(|m| view! { <option value=*m>{*m}</option> }).collect_view()}
                </select></label>
                <label>"Budget (LLM calls)"<input id="search-budget" prop:value=move || budget.get() on:change=move |ev| budget.set(event_target_value(&ev)) /></label>
                <label>"Seed"<input id="search-seed" prop:value=move || seed.get() on:change=move |ev| seed.set(event_target_value(&ev)) /></label>
            </div>
            <ParamFields id="search-odds" title="The simulated LLM's odds" defaults="the playground's defaults" id_prefix="odds"
                fields=odds_fields texts=odds_texts hidden=false locked=false />
            <p class="actions">
                <button type="button" id="search-go" disabled=move || running.get() on:click=start>"Search"</button>
                <button type="button" id="search-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="search-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="search-status" role="status">{move || status.get()}</p>
            <p id="search-summary">{move || snapshot.with(|s| s.summary.clone())}</p>
            <SearchTree snapshot=snapshot selected=selected />
            <NodeDetails snapshot=snapshot selected=selected />
            <h3>"Best program"</h3>
            <pre id="search-best">{move || snapshot.with(|s| s.best.as_ref().map(|(p, s)| format!("# score {s:.3}\n{p}")).unwrap_or_default())}</pre>
            <ScorePlot curves=curves />
        </section>
    }
}

/// Where each node sits: depth down, leaves left to right, a parent over its children's middle.
fn layout(tree: &[TreeNode]) -> Vec<(f64, f64)> {
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

/// The tree: node area grows with visits, colour runs from red (0) to green (1), buggy nodes are
/// ringed and show their temporary value; edges carry the action.
#[component]
fn SearchTree(snapshot: RwSignal<Snapshot>, selected: RwSignal<Option<usize>>) -> impl IntoView {
    let (dx, dy) = (44.0, 56.0);
    view! {
        <div class="scroll">{move || snapshot.with(|s| {
            let pos = layout(&s.tree);
            let width = pos.iter().map(|p| p.0).fold(0.0, f64::max) * dx + 2.0 * dx;
            let height = pos.iter().map(|p| p.1).fold(0.0, f64::max) * dy + 2.0 * dy;
            let at = |i: usize| (pos[i].0 * dx + dx, pos[i].1 * dy + dy / 2.0);
            let edges = s.tree.iter().enumerate().filter_map(|(i, n)| n.parent.map(|p| (p, i, n.label.clone()))).map(|(p, i, label)| {
                let ((x1, y1), (x2, y2)) = (at(p), at(i));
                view! { <g class="edge"><line x1=x1 y1=y1 x2=x2 y2=y2 /><text x=(x1 + x2) / 2.0 y=(y1 + y2) / 2.0>{label}</text></g> }
            }).collect_view();
            let nodes = s.tree.iter().enumerate().map(|(i, n)| {
                let (x, y) = at(i);
                let r = 6.0 + 2.0 * f64::from(n.visits).sqrt();
                let fill = format!("hsl({:.0}, 70%, 45%)", 120.0 * n.value.clamp(0.0, 1.0));
                let class = if n.bug { "node bug" } else { "node" };
                let expansion = n.expansion;
                let title = format!("{} · value {:.2} · visits {}{}", n.label, n.value, n.visits, if n.bug { " · bug (temporary value)" } else { "" });
                view! {
                    <g class=class data-call=expansion.map(|e| e + 1) on:click=move |_| selected.set(expansion)>
                        <circle cx=x cy=y r=r fill=fill><title>{title}</title></circle>
                        {n.bug.then(|| view! { <text class="bug-value" x=x + r + 2.0 y=y>{format!("{:.2}", n.value)}</text> })}
                    </g>
                }
            }).collect_view();
            view! { <svg id="search-tree" width=width height=height>{edges}{nodes}</svg> }
        })}</div>
    }
}

/// A clicked node: its code, its diff to the program it came from, its score and test feedback,
/// and the call that made it.
#[component]
fn NodeDetails(snapshot: RwSignal<Snapshot>, selected: RwSignal<Option<usize>>) -> impl IntoView {
    view! {
        <div id="search-node" hidden=move || selected.get().is_none()>{move || selected.get().and_then(|i| snapshot.with(|s| {
            let e = s.expansions.get(i)?.clone();
            let call = s.calls.get(i).cloned().unwrap_or_default();
            let parent_program = s.tree.iter().find(|n| n.expansion == Some(i)).and_then(|n| n.parent)
                .and_then(|p| s.tree[p].expansion).and_then(|p| s.expansions.get(p)).map(|p| p.program.clone()).unwrap_or_default();
            let diff = similar::TextDiff::from_lines(&parent_program, &e.program).unified_diff().context_radius(2).to_string();
            let ev = &e.evaluation;
            let feedback = match (&ev.error, &ev.example) {
                (Some(error), _) if ev.bug => format!("bug: {error}"),
                (_, Some(x)) => format!("a failing test: input {} · expected {} · got {}", x.input, x.expected, x.actual),
                _ => String::new(),
            };
            Some(view! {
                <h3>{format!("Call {} · {} · score {:.3}", i + 1, e.kind.name(), ev.score)}</h3>
                <p id="search-node-feedback">{feedback}</p>
                <details open><summary>"Code"</summary><pre id="search-node-code">{e.program.clone()}</pre></details>
                <details><summary>"Diff to the program it came from"</summary><pre id="search-node-diff">{diff}</pre></details>
                <details><summary>"Prompt"</summary><pre>{call.prompt}</pre></details>
                <details><summary>"Raw reply"</summary><pre>{call.reply}</pre></details>
            })
        }))}</div>
    }
}

/// Best score against LLM calls, one line per search run here.
#[component]
fn ScorePlot(curves: RwSignal<Vec<(String, Vec<f64>)>>) -> impl IntoView {
    let (w, h) = (480.0, 200.0);
    view! {
        <h3>"Best score against LLM calls"</h3>
        <svg id="search-plot" width=w + 40.0 height=h + 30.0 hidden=move || curves.with(Vec::is_empty)>
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
