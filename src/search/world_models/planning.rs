//! Planning with a world model (the quick protocol) against the oracle and random actions, through
//! the page's host, and watching a planned episode on its canvas.

use std::sync::Arc;

use engine::cwm::normalised_return::{Episode, PlanningPolicy, PlanningRun, PlanningSummary, Protocol};
use engine::cwm::tabulated::TabulatedModel;
use engine::effects::Llm;
use engine::gym::GymId;
use engine::search::world_model_tasks::world_model_task;
use leptos::prelude::*;

use super::ModelAtHand;
use crate::services::cancel::CancelToken;
use crate::services::host::{self, HostView};
use crate::services::python_pool::Python;
use crate::widgets::gym_canvas::GymCanvas;

/// The planning button, how the three policies did, and their episodes to watch; `model` gets
/// the tabulated model, which agents can train inside.
#[component]
pub fn PlanTool(
    at: ModelAtHand,
    model: RwSignal<Option<Arc<TabulatedModel>>>,
    /// Hears how the best model planned, for the search's record.
    on_planned: Callback<PlanningSummary>,
) -> impl IntoView {
    let ModelAtHand { env, program, search_best, busy, problem, status, .. } = at;
    let python = Python::from_context();
    let plan = RwSignal::new(None::<PlanningSummary>);
    // The planned episodes, to be watched once all are played.
    let played = RwSignal::new(Vec::<Episode>::new());
    Effect::new(move |_| {
        program.track();
        plan.set(None);
        played.set(Vec::new());
    });
    let plan_with = move |_| {
        let (Some(env), Some((_, code))) = (env.get_untracked(), program.get_untracked()) else { return };
        // The search's record keeps how its best model planned, whichever node shows it.
        let best = search_best.with_untracked(|best| best.as_ref() == Some(&code));
        let python = python.get_value();
        busy.set(true);
        problem.set(None);
        leptos::task::spawn_local(async move {
            let reference = world_model_task(env).reference();
            match PlanningRun::new(env, code, reference, Protocol::quick(), 1) {
                Ok(run) => {
                    let summary = play(run, &python, plan, played, model, status, problem).await;
                    if let Some(summary) = summary.filter(|_| best) {
                        on_planned.run(summary);
                    }
                }
                Err(message) => problem.set(Some(message)),
            }
            status.set(String::new());
            busy.set(false);
        });
    };

    let plan_line = move || {
        plan.with(|p| {
            p.as_ref().map(|summary| {
                let mean = |m: Option<f64>| m.map_or("…".to_owned(), |m| format!("{m:.1}"));
                let r = summary.normalised.map_or(
                    "N/A until every episode is played, or when the oracle does no better than random".to_owned(),
                    |r| format!("{r:.3}"),
                );
                let python = if env.get().is_some_and(PlanningRun::plans_in_python) {
                    format!(" The model was stepped {} times in Pyodide.", summary.model_steps)
                } else {
                    String::new()
                };
                format!(
                    "Quick protocol ({} episodes each, rollouts of {} steps; `rlcg cwm plan` runs the paper's): mean return random {} · oracle {} · this model {} · R(CWM) = {r}.{python}",
                    summary.protocol.episodes,
                    summary.protocol.planner.rollout_steps,
                    mean(summary.random),
                    mean(summary.oracle),
                    mean(summary.model)
                )
            })
        })
    };
    let in_python = move || env.get().is_some_and(PlanningRun::plans_in_python);
    view! {
        <button type="button" id="cwm-plan" disabled=move || busy.get() on:click=plan_with>"Plan with it"</button>
        <p class="hint" id="cwm-plan-note">{move || if in_python() {
            "A model of a continuous environment cannot be tabulated: each planning episode is one run in Pyodide, where the same planner steps the model and the real environment is the bank's reference model (checked against Gymnasium's transitions). The random and oracle episodes play there too, so that all three meet the same environment."
        } else {
            "The model is tabulated over every state and action in one run in Pyodide; the planner then steps the table here, and agents can train inside it."
        }}</p>
        <p id="cwm-returns">{plan_line}</p>
        {move || env.get().filter(|_| !played.with(Vec::is_empty)).map(|env| view! { <PlannedEpisode env played /> })}
    }
}

/// Plays `run` to its end through the page's host: a small environment's model is tabulated in
/// Pyodide, then its episodes are played here with a pause between them so that the page draws;
/// a continuous one's episodes are one run in Pyodide each (the model's with a fresh interpreter,
/// the playground's own random and oracle episodes in a kept one). Its summary, or none when
/// Python could not run.
async fn play(
    mut run: PlanningRun,
    python: &Python,
    plan: RwSignal<Option<PlanningSummary>>,
    played: RwSignal<Vec<Episode>>,
    model: RwSignal<Option<Arc<TabulatedModel>>>,
    status: RwSignal<String>,
    problem: RwSignal<Option<String>>,
) -> Option<PlanningSummary> {
    let total = 3 * run.protocol.episodes;
    let in_python = PlanningRun::plans_in_python(run.env);
    let mut llm = Llm::Absent;
    let view = HostView { status, stream: RwSignal::new(String::new()) };
    let decide = async |_| Err("planning takes no policy decisions".to_owned());
    let show = |run: &PlanningRun| {
        plan.set(Some(run.summary()));
        if in_python {
            status.set(format!(
                "Planning in Pyodide: {} of {total} episodes played (the planner and the real environment run there)…",
                run.episodes.len()
            ));
        } else if run.table().is_some() {
            status.set(format!("Planning: {} of {total} episodes played…", run.episodes.len()));
        }
    };
    if !in_python {
        status.set("Tabulating the model over every state and action in Pyodide…".into());
    }
    let driven = host::drive(&mut run, &mut llm, python, &CancelToken::default(), decide, view, show).await;
    model.set(run.table().cloned().map(Arc::new));
    let summary = run.summary();
    plan.set(Some(summary.clone()));
    if let Some(error) = &run.error {
        problem.set(Some(format!("The model could not plan: {error}")));
    }
    played.set(run.episodes);
    driven.ok().map(|()| summary)
}

/// One planned episode on the real environment, step by step on its canvas: random, the planner
/// with the true environment (oracle), or the planner with the world model.
#[component]
fn PlannedEpisode(env: GymId, played: RwSignal<Vec<Episode>>) -> impl IntoView {
    let policy = RwSignal::new(PlanningPolicy::Model);
    let index = RwSignal::new(0u32);
    let step = RwSignal::new(0usize);
    let episode = Memo::new(move |_| {
        let (policy, index) = (policy.get(), index.get());
        played.with(|p| p.iter().find(|e| e.policy == policy && e.index == index).cloned())
    });
    let last = move || episode.with(|e| e.as_ref().map_or(0, |e| e.observations.len().saturating_sub(1)));
    let count = move || played.with(|p| p.iter().filter(|e| e.policy == policy.get()).count() as u32);
    let observation = Signal::derive(move || {
        episode.with(|e| e.as_ref().and_then(|e| e.observations.get(step.get()).cloned()).unwrap_or_default())
    });
    let name = |p: PlanningPolicy| match p {
        PlanningPolicy::Random => "random",
        PlanningPolicy::Oracle => "the planner with the true environment (oracle)",
        PlanningPolicy::Model => "the planner with this model",
    };
    let summary = move || {
        episode.with(|e| {
            e.as_ref().map(|e| {
                format!(
                    "Step {} of {}: this episode's return is {:.1} in {} steps.",
                    step.get(),
                    e.steps,
                    e.reward,
                    e.steps
                )
            })
        })
    };
    view! {
        <div id="cwm-watch">
            <h4>"Watch a planned episode"</h4>
            <div class="row">
                <label>"Who acts "<select id="cwm-watch-policy" on:change=move |ev| {
                    policy.set(match event_target_value(&ev).as_str() { "random" => PlanningPolicy::Random, "oracle" => PlanningPolicy::Oracle, _ => PlanningPolicy::Model });
                    index.set(0);
                    step.set(0);
                }>
                    <option value="model" selected>{name(PlanningPolicy::Model)}</option>
                    <option value="oracle">{name(PlanningPolicy::Oracle)}</option>
                    <option value="random">{name(PlanningPolicy::Random)}</option>
                </select></label>
                <label>"Episode "<select id="cwm-watch-episode" on:change=move |ev| {
                    index.set(event_target_value(&ev).parse().unwrap_or(0));
                    step.set(0);
                }>
                    {move || (0..count()).map(|i| view! { <option value=i.to_string() selected=move || index.get() == i>{i + 1}</option> }).collect_view()}
                </select></label>
            </div>
            <div class="row">
                <button type="button" id="cwm-watch-prev" disabled=move || step.get() == 0 on:click=move |_| step.update(|s| *s = s.saturating_sub(1))>"◀ Previous step"</button>
                <input type="range" id="cwm-watch-step" min="0" max=move || last().to_string() prop:value=move || step.get().to_string() on:input=move |ev| step.set(event_target_value(&ev).parse().unwrap_or(0)) aria-label="Step" />
                <button type="button" id="cwm-watch-next" disabled=move || { step.get() >= last() } on:click=move |_| step.update(|s| *s = (*s + 1).min(last()))>"Next step ▶"</button>
            </div>
            <p id="cwm-watch-summary">{summary}</p>
            <GymCanvas env observation />
        </div>
    }
}
