//! The search pane's world-model tools (seed 004's CWMB): for a search on one of the six Gymnasium
//! environments, what the LLM is given (the description) and what scores its models (the dataset);
//! a model's transition table, ✓/✗ per part with the first misclassified transition marked;
//! planning with a model against the oracle and random actions (the quick protocol); Q-learning
//! inside the model, evaluated on the real environment beside Q-learning on the real one; and the
//! kept searches beside the paper's Tables 9 and 10.

use std::sync::Arc;

use engine::cwm::normalised_return::{Episode, PlanningPolicy, PlanningRun, PlanningSummary, Protocol};
use engine::cwm::paper_results::{paper_environments, paper_results};
use engine::cwm::tabulated::TabulatedModel;
use engine::effects::OfflineLlm;
use engine::env::EnvSpec;
use engine::env::gym::GymParams;
use engine::gym::GymId;
use engine::gym::accuracy::Accuracy;
use engine::gym::dataset::{dataset, from_json_lines, to_json_lines};
use engine::gym::transitions::Transition;
use engine::python::{DEFAULT_TIME_LIMIT_MS, Prediction};
use engine::rng::gym_rng;
use engine::search::Scorer;
use engine::search::record::SearchRecord;
use engine::search::world_model::{WorldModelScorer, python_repr};
use engine::search::world_model_tasks::world_model_task;
use engine::{AgentId, EnvId, RunSpec};
use leptos::prelude::*;

use crate::services::host::{self, HostView, Llm};
use crate::services::llm_client::CancelToken;
use crate::services::python_pool::Python;
use crate::services::run_book::RunBook;
use crate::widgets::gym_canvas::GymCanvas;
use crate::{widgets::download, widgets::upload};

/// Rows of the transition table shown before the first misclassified one.
const ROWS_SHOWN: usize = 40;

/// An accuracy and an R(CWM) as the comparison shows them.
fn accuracy_and_return(accuracy: f64, normalised: Option<f64>) -> String {
    format!("{accuracy:.2} / {}", normalised.map_or("N/A".to_owned(), |r| format!("{r:.2}")))
}

pub fn gym_of(task: &str) -> Option<GymId> {
    GymId::parse(task).ok()
}

/// The dataset a search of `record` scores on.
fn dataset_of(record: &SearchRecord, env: GymId) -> Vec<Transition> {
    dataset(env, &mut gym_rng(record.spec.world_model.dataset_seed))
}

/// Transitions a person imported (an exported dataset, or one recorded from Gymnasium): the
/// world-model tools score on them instead of the generated dataset; a search still scores on its
/// own.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedDataset {
    pub env: GymId,
    pub file: String,
    pub transitions: Vec<Transition>,
}

/// The environment's description and dataset, while the form's task is a world model.
#[component]
pub fn WorldModelInfo(task: RwSignal<String>, imported: RwSignal<Option<ImportedDataset>>) -> impl IntoView {
    let env = Memo::new(move |_| gym_of(&task.get()));
    let problem = RwSignal::new(None::<String>);
    let import = move |ev: leptos::ev::Event| {
        let (Some(file), Some(env)) = (upload::picked(&ev), env.get_untracked()) else { return };
        upload::read_text(file, move |name, text| {
            match text.and_then(|text| from_json_lines(env, &text).map_err(|e| format!("{name}: {e}"))) {
                Err(message) => problem.set(Some(message)),
                Ok(transitions) => {
                    problem.set(None);
                    imported.set(Some(ImportedDataset { env, file: name, transitions }));
                }
            }
        });
    };
    let imported_note = move || {
        imported.with(|d| {
            d.as_ref().filter(|d| Some(d.env) == env.get()).map(|d| {
                format!(
                    "Imported {} transitions of {} from {}: \"Score it on the dataset\" scores on them (a search still scores on the generated dataset).",
                    d.transitions.len(),
                    d.env.name(),
                    d.file
                )
            })
        })
    };
    let summary = move || {
        let env = env.get()?;
        let transitions = dataset(env, &mut gym_rng(0));
        let mut rewards: Vec<f64> = transitions.iter().map(|t| t.reward).collect();
        rewards.sort_by(f64::total_cmp);
        rewards.dedup();
        let ends = transitions.iter().filter(|t| t.terminated).count();
        Some(format!(
            "Dataset: {} transitions of 5 random and 5 heuristic trajectories of at most 100 steps (seed 0), {ends} of them ending an episode; rewards {}.",
            transitions.len(),
            rewards.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ")
        ))
    };
    let save = move |_| {
        let Some(env) = env.get_untracked() else { return };
        let lines = to_json_lines(&dataset(env, &mut gym_rng(0)));
        if let Err(message) = download::text(&format!("{}-dataset.jsonl", env.name()), "application/jsonl", &lines) {
            problem.set(Some(message));
        }
    };
    view! {
        <div id="cwm-info" hidden=move || env.get().is_none()>
            <p class="hint">"A code world model: the LLM writes a Python class `Environment` that predicts the next state, reward and end of the environment; it is scored on recorded transitions by both the official code's accuracy (partial credit, each reward value weighing the same; the score the search maximises) and the paper's (a third each for state, reward and done). A truncation by the time limit is not counted as done."</p>
            <details><summary>"What the LLM is given"</summary>
                <pre id="cwm-description">{move || env.get().map(|e| world_model_task(e).description)}</pre>
            </details>
            <p id="cwm-dataset">{summary}</p>
            <p class="actions">
                <button type="button" id="cwm-dataset-download" on:click=save>"Download the dataset (JSON lines)"</button>
                <label>"Import transitions (JSON lines) "<input type="file" id="cwm-dataset-import" accept=".jsonl,.json,application/jsonl" on:change=import /></label>
            </p>
            <p hidden=move || imported_note().is_none()>
                <span id="cwm-dataset-imported">{imported_note}</span>" "
                <button type="button" id="cwm-dataset-forget" on:click=move |_| imported.set(None)>"Score on the generated dataset again"</button>
            </p>
            <p id="cwm-dataset-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
        </div>
    }
}

/// A model's scoring: its accuracy and its predictions, beside the transitions.
#[derive(Clone)]
struct Scored {
    accuracy: Accuracy,
    transitions: Vec<Transition>,
    predictions: Vec<Prediction>,
    error: Option<String>,
    /// The harness's own time for the run.
    python_ms: f64,
    /// The imported file scored on, if not the generated dataset.
    file: Option<String>,
}

/// A run of the comparison: an agent trained inside the model, or on the real environment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Compared {
    label: &'static str,
    run_id: u32,
    /// The real environment steps it used, when not its own episodes' (inside: the dataset's).
    real_steps: Option<u64>,
}

/// The tools for the shown search's models, when it is a world-model search.
#[component]
pub fn WorldModelTools(
    python: StoredValue<Python, LocalStorage>,
    record: Signal<Option<SearchRecord>>,
    selected: RwSignal<Option<usize>>,
    imported: RwSignal<Option<ImportedDataset>>,
    /// Hears how the best model planned, for the search's record.
    on_planned: Callback<PlanningSummary>,
) -> impl IntoView {
    let env = Memo::new(move |_| record.with(|r| r.as_ref().and_then(|r| gym_of(&r.spec.task))));
    // The selected node's program, else the best one.
    let program = Memo::new(move |_| {
        record.with(|r| {
            let r = r.as_ref()?;
            match selected.get().and_then(|i| r.expansions.get(i)) {
                Some(e) if !e.program.is_empty() => Some(("the selected node's model", e.program.clone())),
                _ => r.best.as_ref().map(|(p, _)| ("the best model", p.clone())),
            }
        })
    });
    let scored = RwSignal::new(None::<Scored>);
    let plan = RwSignal::new(None::<PlanningSummary>);
    let model = RwSignal::new(None::<Arc<TabulatedModel>>);
    let book = expect_context::<RunBook>();
    let trained = RwSignal::new(Vec::<Compared>::new());
    // The planned episodes, to be watched once all are played.
    let played = RwSignal::new(Vec::<Episode>::new());
    let (busy, problem, status) = (RwSignal::new(false), RwSignal::new(None::<String>), RwSignal::new(String::new()));
    // A new search or node shows nothing old.
    Effect::new(move |_| {
        program.track();
        scored.set(None);
        plan.set(None);
        played.set(Vec::new());
        model.set(None);
        trained.set(Vec::new());
    });

    let score = move |_| {
        let (Some(env), Some((_, code)), Some(r)) =
            (env.get_untracked(), program.get_untracked(), record.get_untracked())
        else {
            return;
        };
        let chosen = imported.with_untracked(|d| d.as_ref().filter(|d| d.env == env).cloned());
        let file = chosen.as_ref().map(|d| d.file.clone());
        let transitions = chosen.map_or_else(|| dataset_of(&r, env), |d| d.transitions);
        let scorer = WorldModelScorer { env, transitions, scoring: r.spec.world_model.scoring };
        busy.set(true);
        status.set("Scoring the model in Pyodide…".into());
        python.with_value(|python| {
            python.run(scorer.request(&code), DEFAULT_TIME_LIMIT_MS, move |verdict| {
                busy.set(false);
                status.set(String::new());
                match verdict {
                    Err(message) => problem.set(Some(message)),
                    Ok(verdict) => {
                        problem.set(None);
                        scored.set(Some(Scored {
                            accuracy: scorer.accuracy(&verdict),
                            predictions: verdict.predictions.clone().unwrap_or_default(),
                            error: (verdict.outcome != engine::python::Outcome::Pass)
                                .then(|| verdict.error.clone().unwrap_or_default()),
                            transitions: scorer.transitions,
                            python_ms: verdict.duration_ms,
                            file: file.clone(),
                        }));
                    }
                }
            })
        });
    };

    let plan_with = move |_| {
        let (Some(env), Some((_, code))) = (env.get_untracked(), program.get_untracked()) else { return };
        // The search's record keeps how its best model planned, whichever node shows it.
        let best = record.with_untracked(|r| r.as_ref().and_then(|r| r.best.as_ref()).is_some_and(|(p, _)| *p == code));
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

    let train_inside = move |_| {
        let (Some(env), Some(table), Some(r)) = (env.get_untracked(), model.get_untracked(), record.get_untracked())
        else {
            return;
        };
        // Two runs of the run book, trained by the worker like any other: their plots, episode
        // trees and greedy step-throughs are in the Train pane; their greedy evaluation is on the
        // real environment either way.
        let real = RunSpec::new(EnvId::Gym(env), AgentId::QLearning, 1, EnvId::Gym(env).default_episodes(false));
        let mut inside = real.clone();
        inside.env = EnvSpec::Gym(GymParams { model: Some(table), ..GymParams::new(env) });
        let dataset_steps = dataset_of(&r, env).len() as u64;
        let mut compared = Vec::new();
        for (label, spec, real_steps) in [
            ("Q-learning inside the model", inside, Some(dataset_steps)),
            ("Q-learning on the real environment", real, None),
        ] {
            let run_id = book.find(&spec).unwrap_or_else(|| book.start(spec));
            compared.push(Compared { label, run_id, real_steps });
        }
        trained.set(compared);
    };
    // The comparison's rows, from the runs as the worker trains them.
    let compared_rows = move || {
        let compared = trained.get();
        book.runs.with(|runs| {
            compared
                .iter()
                .map(|c| {
                    let run = runs.iter().find(|r| r.id == c.run_id);
                    let used: u64 =
                        run.map_or(0, |r| r.records.iter().map(|e| u64::from(e.outcome.length)).sum::<u64>());
                    let (success, mean) = match run.and_then(|r| r.finished.as_ref()).map(|f| &f.greedy) {
                        Some(g) => (
                            format!("{:.0}% of {}", 100.0 * g.success_rate, g.episodes),
                            format!("{:.2}", g.mean_return),
                        ),
                        None => ("training…".to_owned(), "training…".to_owned()),
                    };
                    (
                        format!("{} (run #{})", c.label, c.run_id),
                        c.real_steps.unwrap_or(used).to_string(),
                        success,
                        mean,
                    )
                })
                .collect::<Vec<_>>()
        })
    };

    let rows = move || {
        scored.with(|s| {
            let s = s.as_ref()?;
            let first = s.accuracy.first_miss;
            let shown: Vec<usize> =
                (0..s.transitions.len().min(ROWS_SHOWN)).chain(first.filter(|&i| i >= ROWS_SHOWN)).collect();
            let mark = |ok: bool| if ok { "✓" } else { "✗" };
            Some(
                shown
                    .into_iter()
                    .map(|i| {
                        let (t, part) = (&s.transitions[i], &s.accuracy.transitions[i]);
                        let p = s.predictions.get(i);
                        let predicted = p.map_or_else(
                            || "not predicted".to_owned(),
                            |p| format!("{} · {} · {}", python_repr(&p.next_obs), python_repr(&p.reward), python_repr(&p.done)),
                        );
                        let class = if Some(i) == first { "first-miss" } else { "" };
                        view! { <tr class=class>
                            <td>{i}</td><td>{python_repr(&t.obs)}</td><td>{t.action}</td>
                            <td>{format!("{} · {:?} · {}", python_repr(&t.next_obs), t.reward, if part.done_label { "True" } else { "False" })}</td>
                            <td>{predicted}</td>
                            <td>{mark(part.next_obs_matches())}</td><td>{mark(part.reward)}</td><td>{mark(part.done)}</td>
                        </tr> }
                    })
                    .collect_view(),
            )
        })
    };
    let accuracy_line = move || {
        scored.with(|s| {
            s.as_ref().map(|s| {
                let right = s.accuracy.transitions.iter().filter(|t| t.predicted && !t.misclassified()).count();
                let error = s.error.as_ref().map(|e| format!(" The model raised, so the search scores it 0: {e}")).unwrap_or_default();
                format!(
                    "Accuracy {:.3} (official) · {:.3} (paper's formula) · {right} of {} transitions right in every part{}.{error}",
                    s.accuracy.official,
                    s.accuracy.paper,
                    s.transitions.len(),
                    s.file.as_ref().map_or(String::new(), |f| format!(" (on {f})"))
                )
            })
        })
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
        <div id="cwm-tools" hidden=move || env.get().is_none() || program.get().is_none()>
            <h3>"The world model"</h3>
            <p>{move || program.get().map(|(which, _)| format!("Working with {which}."))}</p>
            <p class="actions">
                <button type="button" id="cwm-score" disabled=move || busy.get() on:click=score>"Score it on the dataset"</button>
                <button type="button" id="cwm-plan" disabled=move || busy.get() on:click=plan_with>"Plan with it"</button>
                <button type="button" id="cwm-train" disabled=move || busy.get() || model.get().is_none() on:click=train_inside>"Train Q-learning inside it"</button>
            </p>
            <p class="hint" id="cwm-plan-note">{move || if in_python() {
                "A model of a continuous environment cannot be tabulated: each planning episode is one run in Pyodide, where the same planner steps the model and the real environment is the bank's reference model (checked against Gymnasium's transitions). The random and oracle episodes play there too, so that all three meet the same environment."
            } else {
                "The model is tabulated over every state and action in one run in Pyodide; the planner then steps the table here, and agents can train inside it."
            }}</p>
            <p role="status">{move || status.get()}</p>
            <p role="alert" class="error" id="cwm-error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="cwm-accuracy">{accuracy_line}</p>
            <p class="hint" hidden=move || scored.with(|s| s.is_none())>"Scored in "<span id="cwm-python-ms">{move || scored.with(|s| s.as_ref().map(|s| format!("{:.1}", s.python_ms)))}</span>" ms inside Python."</p>
            <table id="cwm-transitions" hidden=move || scored.with(|s| s.is_none())>
                <thead><tr><th>"#"</th><th>"state"</th><th>"action"</th><th>"recorded: next · reward · done"</th><th>"the model's"</th><th>"next"</th><th>"reward"</th><th>"done"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <p id="cwm-returns">{plan_line}</p>
            {move || env.get().filter(|_| !played.with(Vec::is_empty)).map(|env| view! { <PlannedEpisode env played /> })}
            <table id="cwm-agents" hidden=move || trained.with(Vec::is_empty)>
                <thead><tr><th>"agent"</th><th>"real environment steps used"</th><th>"greedy success (real environment)"</th><th>"mean return"</th></tr></thead>
                <tbody>{move || compared_rows().into_iter().map(|(label, steps, success, mean)| view! {
                    <tr><td>{label}</td><td>{steps}</td><td>{success}</td><td>{mean}</td></tr>
                }).collect_view()}</tbody>
            </table>
            <p class="hint" hidden=move || trained.with(Vec::is_empty)>"The agent inside the model used no real steps beyond the dataset the model was scored on; both train in the background worker as runs of the Train pane (with their plots, episode trees and greedy step-throughs there) and are evaluated greedily on the real environment."</p>
        </div>
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
    let mut llm = Llm::Offline(Box::new(OfflineLlm::new(0)));
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

/// The kept world-model searches' best accuracies, and R(CWM) where their best model was planned
/// with, beside the paper's Tables 9 and 10.
#[component]
pub fn PaperComparison(list: Signal<Vec<SearchRecord>>) -> impl IntoView {
    let ours = move |env: GymId, method: &'static str| {
        list.with(|l| {
            let kept: Vec<&SearchRecord> =
                l.iter().filter(|r| r.spec.task == env.name() && r.spec.method.name() == method).collect();
            if kept.is_empty() {
                return "–".to_owned();
            }
            let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
            let accuracies: Vec<f64> = kept.iter().map(|r| r.best_score()).collect();
            let planned: Vec<&PlanningSummary> = kept.iter().filter_map(|r| r.planned.as_ref()).collect();
            let returns: Vec<f64> = planned.iter().filter_map(|p| p.normalised).collect();
            let r = match (planned.len(), returns.len()) {
                (0, _) => "–".to_owned(),
                (_, 0) => "N/A".to_owned(),
                _ => format!("{:.2}", mean(&returns)),
            };
            let mut llms: Vec<&str> = kept.iter().map(|r| r.llm.as_str()).collect();
            llms.dedup();
            format!(
                "{:.2} / {r} ({} search{}, {}; R of {} planned)",
                mean(&accuracies),
                kept.len(),
                if kept.len() == 1 { "" } else { "es" },
                llms.join(", "),
                planned.len()
            )
        })
    };
    let any = move || list.with(|l| l.iter().any(|r| gym_of(&r.spec.task).is_some()));
    view! {
        <div hidden=move || !any()>
            <h3>"World models against the paper"</h3>
            <p class="hint">"Accuracy / R(CWM): the mean best accuracy of the searches kept here, and the mean R(CWM) of those whose best model was planned with (the quick protocol; \"Plan with it\" on the best model records it), labelled by who answered them (simulated: the simulated LLM, not the paper's models), beside seed 004's Tables 9 (Llama 3 70B, 50 calls) and 10 (GPT-4 Turbo, 10 calls). N/A: the oracle did no better than random."</p>
            <table id="cwm-comparison">
                <thead><tr><th>"environment"</th><th>"GIF-MCTS here"</th><th>"WorldCoder here"</th><th>"Llama GIF-MCTS"</th><th>"Llama WorldCoder"</th><th>"GPT-4 GIF-MCTS"</th><th>"GPT-4 WorldCoder"</th></tr></thead>
                <tbody>{paper_environments().map(|env| view! {
                    <tr><td>{env.name()}</td><td>{move || ours(env, "gif-mcts")}</td><td>{move || ours(env, "worldcoder")}</td>
                    {paper_results(env).iter().map(|p| view! { <td>{accuracy_and_return(p.accuracy, p.normalised)}</td> }).collect_view()}</tr>
                }).collect_view()}</tbody>
            </table>
        </div>
    }
}
