//! What the selected run learned: its results (with seed 003's fixed pipeline beside them on the
//! orchestrator), the value table of a tabular agent as a heatmap, and a step-through of one greedy
//! episode per task with the agent's values and the legal actions at each step (on a Gymnasium
//! environment, each state drawn on a canvas).

use engine::gym::GymId;
use engine::policy_view::{GreedyTrace, PolicyView, StateRow};
use engine::protocol::Finished;
use engine::{AgentId, EnvId, RunSpec};
use leptos::prelude::*;

use crate::services::run_book::RunBook;
use crate::widgets::gym_canvas::GymCanvas;
use crate::widgets::percent;

/// Background of a value cell: white for the row's lowest value to blue for its highest.
fn heat(value: f64, low: f64, high: f64) -> String {
    let t = if high - low > 1e-12 { (value - low) / (high - low) } else { 1.0 };
    let mix = |white: f64, blue: f64| (white + (blue - white) * t).round();
    format!("background: rgb({}, {}, {})", mix(255.0, 120.0), mix(255.0, 170.0), mix(255.0, 220.0))
}

fn results_view(spec: &RunSpec, finished: &Finished, fingerprint: String) -> impl IntoView + use<> {
    let (summary, greedy) = (&finished.summary, &finished.greedy);
    let speed = match finished.learn_steps {
        Some(steps) if finished.train_ms > 0.0 => {
            let per_second = f64::from(steps) / finished.train_ms * 1000.0;
            // A software GPU manages under one a second; show it rather than "0".
            let digits = if per_second < 10.0 { 2 } else { 0 };
            format!("{steps} learn steps, {per_second:.digits$} per second")
        }
        _ => String::new(),
    };
    let comparison = finished.fixed_pipeline.map(|fixed| {
        let reduction = 1.0 - greedy.mean_agent_calls / fixed.mean_agent_calls;
        view! {
            <table id="comparison">
                <caption>"Learned policy vs seed 003's fixed pipeline (planner → coder → tester → debugger → tester) on the same "
                    {greedy.episodes} " episodes"</caption>
                <thead><tr><th scope="col">"Policy"</th><th scope="col">"Success"</th><th scope="col">"Agent calls per task"</th><th scope="col">"Fewer calls"</th></tr></thead>
                <tbody>
                    <tr><th scope="row">"Learned (this run)"</th><td id="learned-success">{percent(greedy.success_rate)}</td>
                        <td id="learned-calls">{format!("{:.2}", greedy.mean_agent_calls)}</td><td id="call-reduction">{percent(reduction)}</td></tr>
                    <tr><th scope="row">"Fixed pipeline (this run)"</th><td>{percent(fixed.success_rate)}</td>
                        <td>{format!("{:.2}", fixed.mean_agent_calls)}</td><td></td></tr>
                    <tr class="reported"><th scope="row">"Learned (seed 003, 5 real tasks)"</th><td>"100%"</td><td>"2.0"</td><td>"56.5%"</td></tr>
                    <tr class="reported"><th scope="row">"Fixed pipeline (seed 003)"</th><td>"100%"</td><td>"4.6"</td><td></td></tr>
                </tbody>
            </table>
        }
    });
    let learned_in = if summary.episodes < spec.episodes {
        format!("Stopped after {} of {} episodes", summary.episodes, spec.episodes)
    } else {
        format!("Finished {} episodes", summary.episodes)
    };
    view! {
        <table id="summary">
            <caption>{learned_in} " in " {format!("{:.0} ms", finished.train_ms)} " of training"</caption>
            <tr><th scope="row">"Success over the last 100 training episodes"</th><td id="final-success-last100">{percent(summary.success_last100)}</td></tr>
            <tr><th scope="row">"Best success over 100 episodes"</th><td id="best-success-last100">{percent(summary.best_success_last100)}</td></tr>
            <tr><th scope="row">"Greedy policy success (" {greedy.episodes} " fresh episodes)"</th><td id="greedy-success">{percent(greedy.success_rate)}</td></tr>
            <tr><th scope="row">"Greedy mean return"</th><td id="greedy-mean-return">{format!("{:.2}", greedy.mean_return)}</td></tr>
            <tr><th scope="row">"Greedy mean agent calls"</th><td>{format!("{:.2}", greedy.mean_agent_calls)}</td></tr>
            <tr hidden=speed.is_empty()><th scope="row">"Network training"</th><td id="learn-speed">{speed.clone()}</td></tr>
            <tr><th scope="row" title="A digest of every episode's return, success and actions: equal fingerprints, identical training">"Fingerprint of the training records"</th>
                <td id="fingerprint"><code>{fingerprint}</code></td></tr>
            <tr><th scope="row">"Backend"</th><td id="backend-used">{if spec.agent.id().uses_backend() { spec.backend.name() } else { "none (tabular)" }}</td></tr>
        </table>
        {comparison}
    }
}

fn table_view(view: &PolicyView, agent: AgentId) -> impl IntoView + use<> {
    let value_name = agent.value_label();
    let flag_names: Vec<String> =
        view.table.first().map(|r| r.flags.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default();
    let actions = view.action_names.clone();
    let row = move |row: StateRow| {
        let legal_values = row.values.iter().zip(&row.legal).filter(|(_, l)| **l).map(|(v, _)| *v);
        let (low, high) = legal_values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        view! {
            <tr>
                {row.flags.into_iter().map(|(_, v)| view! { <td class="flag">{v}</td> }).collect_view()}
                <td class="visits">{row.visits}</td>
                {row.values.iter().enumerate().map(|(a, &v)| {
                    let greedy = a == row.greedy;
                    if row.legal[a] {
                        view! { <td class:greedy=greedy style=heat(v, low, high) title=if greedy { "greedy action" } else { "" }>{format!("{v:.2}")}</td> }.into_any()
                    } else {
                        view! { <td class="illegal" title="illegal here, so never updated">{format!("{v:.2}")}</td> }.into_any()
                    }
                }).collect_view()}
            </tr>
        }
    };
    view! {
        <table id="q-table" class="heatmap">
            <caption>"Learned " {value_name} " per visited state (most visited first); bold: the greedy action; grey: illegal here, never updated, shown as 0.00 as seed 003 §6.1 shows them"</caption>
            <thead><tr>
                {flag_names.into_iter().map(|n| view! { <th scope="col">{n}</th> }).collect_view()}
                <th scope="col">"visits"</th>
                {actions.into_iter().map(|a| view! { <th scope="col">{a}</th> }).collect_view()}
            </tr></thead>
            <tbody>{view.table.clone().into_iter().map(row).collect_view()}</tbody>
        </table>
    }
}

/// The exact values of the start state's legal actions (value iteration on the environment's own
/// rules), beside which the learned values can be read, and what they say of the seed's values.
fn optimal_view(view: &PolicyView, gamma: Option<f64>, note: Option<&'static str>) -> Option<impl IntoView + use<>> {
    let (optimal, gamma) = (view.optimal_start.as_ref()?, gamma?);
    let legal = &view.traces.first()?.steps.first()?.legal;
    let values: Vec<String> = view
        .action_names
        .iter()
        .zip(optimal)
        .zip(legal)
        .filter(|(_, legal)| **legal)
        .map(|((name, q), _)| format!("{name} {q:.2}"))
        .collect();
    Some(view! {
        <p id="optimal-start" class="hint">
            {format!("Value iteration on this environment's rules (γ = {gamma}): Q*(start) = {}. ", values.join(", "))}
            {note}
        </p>
    })
}

/// One greedy episode step by step; on a Gymnasium environment (`gym`) each state is drawn, and
/// one more step shows where the episode ended.
fn trace_view(trace: GreedyTrace, actions: Vec<String>, gym: Option<GymId>) -> impl IntoView {
    let step = RwSignal::new(0usize);
    let last = if gym.is_some() { trace.steps.len() } else { trace.steps.len().saturating_sub(1) };
    let frames: Vec<Vec<f64>> =
        trace.steps.iter().map(|s| s.observation.clone()).chain([trace.end_observation.clone()]).collect();
    let drawn = gym.map(|env| {
        let observation = Signal::derive(move || frames.get(step.get()).cloned().unwrap_or_default());
        view! { <GymCanvas env observation /> }
    });
    let verdict = format!(
        "{} steps, return {:.2}, {}",
        trace.steps.len(),
        trace.episode_return,
        if trace.success { "success" } else { "no success" }
    );
    let ended = format!("The episode ended after {verdict}.");
    let sequence: Vec<String> = trace.steps.iter().map(|s| actions[s.action].clone()).collect();
    let steps = trace.steps.clone();
    let current = move || {
        let Some(s) = steps.get(step.get()).cloned() else {
            return Some(view! { <div class="trace-step"><p id="trace-end">{ended.clone()}</p></div> }.into_any());
        };
        let (low, high) =
            s.values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let actions = actions.clone();
        Some(view! {
            <div class="trace-step">
                <p>"Step " {step.get() + 1} ": " <strong id="trace-action">{actions[s.action].clone()}</strong>
                   ", reward " {format!("{:+.2}", s.reward)}</p>
                <p class="flags">{s.flags.iter().map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>().join(" · ")}</p>
                <table class="values">
                    <caption>"Values of the actions in this state"</caption>
                    {s.values.iter().enumerate().map(|(a, &v)| {
                        let width = if high - low > 1e-12 { 5.0 + 95.0 * (v - low) / (high - low) } else { 100.0 };
                        view! {
                            <tr class:illegal=!s.legal[a] class:greedy=a == s.action>
                                <th scope="row">{actions[a].clone()}</th>
                                <td class="bar"><span style=format!("width: {width:.0}%")></span></td>
                                <td>{format!("{v:.3}")}{if s.legal[a] { "" } else { " (masked)" }}</td>
                            </tr>
                        }
                    }).collect_view()}
                </table>
                {s.texts.into_iter().filter(|(_, t)| !t.is_empty()).map(|(name, text)| view! {
                    <details open=name != "prompt"><summary>{name.clone()}</summary><pre>{text}</pre></details>
                }).collect_view()}
            </div>
        }.into_any())
    };
    view! {
        <div class="trace">
            <p><strong>{trace.task.clone()}</strong>": " {sequence.join(" → ")} " (" {verdict} ")"</p>
            <div class="row">
                <button type="button" class="trace-prev" disabled=move || step.get() == 0 on:click=move |_| step.update(|s| *s = s.saturating_sub(1))>"◀ Previous step"</button>
                <button type="button" class="trace-next" disabled=move || { step.get() >= last } on:click=move |_| step.update(|s| *s = (*s + 1).min(last))>"Next step ▶"</button>
            </div>
            {drawn}
            {current}
        </div>
    }
}

#[component]
pub fn PolicyPanel() -> impl IntoView {
    let RunBook { runs, selected: selected_run, .. } = expect_context::<RunBook>();
    let run = Memo::new(move |_| {
        let id = selected_run.get()?;
        // Only what the panel shows: records arrive constantly and would re-render it for nothing.
        runs.with(|runs| {
            runs.iter()
                .find(|r| r.id == id)
                .map(|r| (r.id, r.spec.clone(), r.policy.clone(), r.finished.clone(), r.fingerprint.clone()))
        })
    });
    let task = RwSignal::new(0usize);
    view! {
        <section aria-labelledby="policy-heading" class="panel">
            <h2 id="policy-heading">"What the agent learned"</h2>
            {move || {
                let Some((id, spec, policy, finished, fingerprint)) = run.get() else {
                    return view! { <p>"Select a run to see its results and policy."</p> }.into_any();
                };
                let Some(policy) = policy else {
                    return view! { <p>"The policy appears when run #" {id} " is paused or finished."</p> }.into_any();
                };
                let results = finished.map(|f| results_view(&spec, &f, fingerprint.unwrap_or_default()));
                let table = (!policy.table.is_empty()).then(|| table_view(&policy, spec.agent.id()));
                let optimal = optimal_view(&policy, spec.agent.discount(), spec.env.id().start_values_note());
                let tasks: Vec<String> = policy.traces.iter().map(|t| t.task.clone()).collect();
                let traces = policy.traces.clone();
                let actions = policy.action_names.clone();
                let many_tasks = tasks.len() > 1;
                let gym = match spec.env.id() {
                    EnvId::Gym(env) => Some(env),
                    _ => None,
                };
                view! {
                    {results}
                    <h3>"Greedy episode, step by step"</h3>
                    <label hidden=!many_tasks>"Task "
                        <select id="trace-task" on:change=move |ev| task.set(event_target_value(&ev).parse().unwrap_or(0))>
                            {tasks.into_iter().enumerate().map(|(i, t)| view! { <option value=i.to_string()>{t}</option> }).collect_view()}
                        </select>
                    </label>
                    {move || traces.get(task.get()).cloned().map(|t| trace_view(t, actions.clone(), gym))}
                    {table.map(|t| view! { <h3>"Value table"</h3> <div class="scroll" tabindex="0">{t}</div> })}
                    {optimal}
                    <p class="hint" hidden=spec.env.id().canonical_paths().is_none()>{spec.env.id().canonical_paths()}</p>
                }
                .into_any()
            }}
        </section>
    }
}
