//! The StepCoder pane (seed 002): the curriculum inspector (a task's conditional statements, its
//! stages and the exact prompt of each), the curriculum and its difficulty profile put to the LLM
//! chosen in live mode or to the simulated one (a model that does not learn, as the pane says),
//! the FGO mask of every completion, the ablation on the line-bank learner, and a real language
//! model trained by StepCoder's PPO in this tab (`train_model.rs`).

pub mod ablation_form;
pub mod ablation_table;
pub mod kept_reports;
pub mod learner_panel;
pub mod masked_program;
pub mod train_model;
pub mod training_backend;
pub mod training_controls;
pub mod training_plots;

use engine::device::GpuAdapter;
use engine::params::{self, Parameters};
use engine::prompts::{PromptSet, id};
use engine::python::Outcome;
use engine::share::ablation_link::AblationLink;
use engine::share::training_link::TrainingLink;
use engine::stepcoder::completion::{Completion, CompletionMode, CompletionRun, CompletionTask};
use engine::stepcoder::completion_params::CompletionParams;
use engine::stepcoder::curriculum::{Curriculum, CurriculumParams, ScopeKinds};
use engine::stepcoder::fgo::KeptByOutcome;
use engine::task_import::{ImportedTask, apps_plus_sample};
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::host::{self, HostView};
use crate::services::llm_choice::LlmChoice;
use crate::services::python_pool::Python;
use crate::services::storage::ImportedTasks;
use crate::stepcoder::learner_panel::LearnerPanel;
use crate::stepcoder::masked_program::MaskedProgram;
use crate::stepcoder::train_model::TrainTheModel;
use crate::widgets::chosen_llm::ChosenLlm;
use crate::widgets::param_fields::ParamFields;

const IMPORTED: &str = "imported:";

fn bundled_tasks() -> Vec<ImportedTask> {
    apps_plus_sample()
}

fn parse_kinds(text: &str) -> ScopeKinds {
    if text == "control_flow" { ScopeKinds::ControlFlow } else { ScopeKinds::All }
}

#[component]
pub fn StepcoderPane(
    link: Option<AblationLink>,
    training_link: Option<TrainingLink>,
    /// The training worker's WebGPU adapter, or why it has none; `None` until it knows.
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
) -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let (python, imported) = (Python::from_context(), ImportedTasks::from_context());
    let bundled = StoredValue::new(bundled_tasks());
    let task_id = RwSignal::new(bundled.with_value(|t| t.first().map(|t| t.id.clone()).unwrap_or_default()));
    let kinds = RwSignal::new("all".to_owned());
    let mode = RwSignal::new("curriculum".to_owned());
    let fields = Memo::new(|_| params::fields(&CompletionParams::default().params_schema()));
    let texts = RwSignal::new(params::texts(&CompletionParams::default(), &fields.get_untracked()));
    let problem = RwSignal::new(None::<String>);
    let (status, stream) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let running = RwSignal::new(false);
    let cancel = StoredValue::new_local(CancelToken::default());
    let shown = RwSignal::new(None::<CompletionRun>);
    let picked = RwSignal::new(None::<usize>);

    // The task the form names: bundled, or imported (then with its own `scope` if the file had one).
    let task = Memo::new(move |_| {
        let id = task_id.get();
        match id.strip_prefix(IMPORTED) {
            Some(id) => imported.with(|tasks| tasks.iter().find(|t| t.id == id).cloned()),
            None => bundled.with_value(|tasks| tasks.iter().find(|t| t.id == id).cloned()),
        }
    });
    let curriculum = Memo::new(move |_| {
        let params = CurriculumParams { kinds: parse_kinds(&kinds.get()), ..CurriculumParams::default() };
        task.get().and_then(|t| t.scope.map(|scope| Curriculum::new(&scope, params)))
    });

    let start = move |_| {
        let Some(task) = task.get_untracked() else {
            return problem.set(Some("task: choose one".into()));
        };
        let built = params::build(&CompletionParams::default(), &fields.get_untracked(), &texts.get_untracked());
        let mut params = match built {
            Ok(params) => params,
            Err(message) => return problem.set(Some(message)),
        };
        params.curriculum.kinds = parse_kinds(&kinds.get_untracked());
        let mode = if mode.get_untracked() == "profile" { CompletionMode::Profile } else { CompletionMode::Curriculum };
        let prompts: PromptSet = llm_choice.prompts.get_untracked();
        let run = CompletionRun::new(mode, vec![CompletionTask::from(&task)], params, prompts);
        let (mut run, mut llm) = match run.and_then(|run| Ok((run, llm_choice.llm(1)?))) {
            Ok(ready) => ready,
            Err(message) => return problem.set(Some(message)),
        };
        if let Some(settings) = llm.settings_mut() {
            settings.temperature = params.temperature;
            settings.top_p = params.top_p;
        }
        problem.set(None);
        running.set(true);
        picked.set(None);
        shown.set(Some(run.clone()));
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        leptos::task::spawn_local(async move {
            let decide = async |_| Err("a completion run takes no policy decisions".to_owned());
            let view = HostView { status, stream };
            // A run Python failed ends with the reason, which its status shows.
            let _ =
                host::drive(&mut run, &mut llm, &python, &token, decide, view, |r| shown.set(Some(r.clone()))).await;
            status.set(format!("Done: {}.", run.ended));
            running.set(false);
        });
    };

    view! {
        <section aria-labelledby="stepcoder-heading" class="panel" id="stepcoder">
            <h2 id="stepcoder-heading">"StepCoder: the curriculum and the fine-grained mask (seed 002)"</h2>
            <p class="hint">"StepCoder trains an LLM with PPO, starting it near the end of a canonical solution (CCCS) and leaving code the tests never ran out of the loss (FGO). This pane shows the curriculum exactly, puts it to a model that does not learn, shows the mask of every program that model writes, runs Table 1's ablation on a learner that stands in for the model, and, under Train the model, trains a small real language model by StepCoder's PPO in this tab."</p>
            <div class="form-grid">
                <label>"Task"<select id="stepcoder-task" prop:value=move || task_id.get() on:change=move |ev| task_id.set(event_target_value(&ev))>
                    {bundled.with_value(|tasks| tasks.iter().map(|t| view! { <option value=t.id.clone()>{format!("{} (sample in APPS+'s format, written here)", t.id)}</option> }).collect_view())}
                    {move || imported.with(|tasks| tasks.iter().filter(|t| t.scope.is_some()).map(|t| {
                        let value = format!("{IMPORTED}{}", t.id);
                        view! { <option value=value.clone()>{value.clone()}</option> }
                    }).collect_view())}
                </select></label>
                <label>"Conditional statements"<select id="stepcoder-kinds" prop:value=move || kinds.get() on:change=move |ev| kinds.set(event_target_value(&ev))>
                    <option value="all">"all of APPS+'s twelve kinds"</option>
                    <option value="control_flow">"control flow only (if, for, while, try, except)"</option>
                </select></label>
            </div>
            <Inspector task=task curriculum=curriculum />
            <h3>"Put the curriculum to an LLM"</h3>
            <p class="hint" id="stepcoder-frozen">"The model does not learn here: its weights never change, so a stage that advances says how easy that stage is for this model, not what CCCS does to training. The simulated LLM writes the rest of the canonical solution and gets each remaining conditional statement's header wrong with the chance set below, so its difficulty profile is built in: it follows eq. 1 by construction."</p>
            <div class="form-grid">
                <label>"Run"<select id="stepcoder-mode" prop:value=move || mode.get() on:change=move |ev| mode.set(event_target_value(&ev))>
                    <option value="curriculum">"the curriculum: rounds of completions at the current stage"</option>
                    <option value="profile">"the difficulty profile: completions at every stage"</option>
                </select></label>
            </div>
            <ParamFields id="stepcoder-params" title="Settings" defaults="seed 002's sampling; α and ρ_t are not in the paper" id_prefix="stepcoder-param"
                fields=fields texts=texts hidden=false locked=false />
            <ChosenLlm id="stepcoder-llm" />
            <p class="actions">
                <button type="button" id="stepcoder-run" disabled=move || running.get() on:click=start>"Run"</button>
                <button type="button" id="stepcoder-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="stepcoder-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="stepcoder-status" role="status">{move || status.get()}</p>
            <RunResults run=shown picked=picked />
            <LearnerPanel link=link />
            <TrainTheModel link=training_link webgpu=webgpu />
        </section>
    }
}

/// E, k and s of a task, its canonical solution with the statements that count, and each stage's
/// start and prompt.
#[component]
fn Inspector(task: Memo<Option<ImportedTask>>, curriculum: Memo<Option<Curriculum>>) -> impl IntoView {
    let prompts = PromptSet::default();
    move || {
        let Some(task) = task.get() else { return view! { <p>"Choose a task."</p> }.into_any() };
        let Some(curriculum) = curriculum.get() else {
            return view! { <p id="stepcoder-inspector">"This task has no APPS+ scope: import it in the APPS+ format to see its curriculum."</p> }.into_any();
        };
        let starts = curriculum.starts.clone();
        let lines: Vec<(usize, String, bool)> = task
            .solution
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_owned(), starts.contains(&(i as u32 + 1))))
            .collect();
        let stages = curriculum.stage_views(&task.solution);
        let rows = stages
            .into_iter()
            .map(|stage| {
                let prefix = curriculum.prefix_at(&task.solution, stage.stage);
                let prompt = prompts
                    .render(id::STEPCODER_COMPLETE, &[("task", &task.prompt), ("prefix", prefix)])
                    .map(|m| m.last().map(|m| m.content.clone()).unwrap_or_default())
                    .unwrap_or_else(|e| e);
                let start = stage.start_line.map_or("the whole program".to_owned(), |l| format!("line {l}"));
                view! { <tr>
                    <td>{stage.stage}</td><td>{start}</td><td>{stage.prefix_lines}</td>
                    <td>{format!("{:.0}%", 100.0 * stage.share_given)}</td>
                    <td><details><summary>"prompt"</summary><pre class="stepcoder-prompt" tabindex="0">{prompt}</pre></details></td>
                </tr> }
            })
            .collect_view();
        view! {
            <div id="stepcoder-inspector">
                <p id="stepcoder-numbers">{format!(
                    "E = {} conditional statements, k = ⌈√E⌉ = {} stages, stride s = ⌈E/k⌉ = {}.",
                    curriculum.statements(), curriculum.stages, curriculum.stride
                )}</p>
                <pre class="stepcoder-code">{lines.into_iter().map(|(n, text, start)| {
                    let (class, mark) = if start { ("line statement-start", "◆") } else { ("line", " ") };
                    view! { <span class=class>{format!("{n:>3} {mark} {text}\n")}</span> }
                }).collect_view()}</pre>
                <table id="stepcoder-stages">
                    <thead><tr><th>"Stage c"</th><th>"The policy writes from"</th><th>"Lines given"</th><th>"Share given"</th><th>"Prompt"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

/// The rounds (or the profile), the share of generated tokens FGO keeps per outcome, and the mask
/// of a completion.
#[component]
fn RunResults(run: RwSignal<Option<CompletionRun>>, picked: RwSignal<Option<usize>>) -> impl IntoView {
    let rounds = move || {
        run.with(|r| {
            r.as_ref().map(|r| {
                r.rounds
                    .iter()
                    .map(|round| {
                        let moved = if round.advanced { "→ next stage" } else { "" };
                        let marked = match round.special_cased {
                            0 => String::new(),
                            n => format!(", {n} special-cased?"),
                        };
                        view! { <tr>
                            <td>{round.round + 1}</td><td>{round.stage}</td>
                            <td>{format!("{} of {}{marked}", round.passes, round.samples)}</td>
                            <td>{format!("{:.3}", round.rho)}</td><td>{moved}</td>
                        </tr> }
                    })
                    .collect_view()
            })
        })
    };
    let profile = move || {
        run.with(|r| {
            r.as_ref().map(|r| {
                r.profile()
                    .into_iter()
                    .map(|cell| view! { <tr>
                        <td>{cell.stage}</td><td>{format!("{:.0}%", 100.0 * cell.share_given)}</td>
                        <td>{format!("{:.2}", cell.pass_at_1)}</td><td>{format!("{} of {}", cell.passes, cell.samples)}</td>
                    </tr> })
                    .collect_view()
            })
        })
    };
    let shares = move || {
        run.with(|r| {
            let r = r.as_ref()?;
            let mut kept = KeptByOutcome::default();
            r.completions.iter().filter_map(|c| c.mask.as_ref()).for_each(|m| kept.add(m));
            let trimmed = r.completions.iter().filter(|c| c.trimmed).count();
            let text: Vec<String> = kept
                .0
                .iter()
                .map(|(outcome, counts)| {
                    let share = counts.share().map_or("-".to_owned(), |s| format!("{:.0}%", 100.0 * s));
                    format!("{}: {share} of generated tokens kept", outcome.label())
                })
                .collect();
            Some(format!("{}. Replies that repeated the prefix, which was cut off: {trimmed}.", text.join("; ")))
        })
    };
    let completion = move || {
        run.with(|r| {
            let r = r.as_ref()?;
            let index = picked.get().unwrap_or(r.completions.len().checked_sub(1)?);
            r.completions.get(index).cloned().map(|c| (index, r.completions.len(), c))
        })
    };
    view! {
        <div id="stepcoder-results" hidden=move || run.with(|r| r.is_none())>
            <table id="stepcoder-rounds" hidden=move || run.with(|r| r.as_ref().is_none_or(|r| r.mode != CompletionMode::Curriculum))>
                <thead><tr><th>"Round"</th><th>"Stage"</th><th>"Passed"</th><th>"ρ after"</th><th>"Curriculum"</th></tr></thead>
                <tbody>{rounds}</tbody>
            </table>
            <table id="stepcoder-profile" hidden=move || run.with(|r| r.as_ref().is_none_or(|r| r.mode != CompletionMode::Profile))>
                <thead><tr><th>"Stage"</th><th>"Share of the solution given"</th><th>"pass@1"</th><th>"Passed"</th></tr></thead>
                <tbody>{profile}</tbody>
            </table>
            <p id="stepcoder-shares">{shares}</p>
            {move || completion().map(|(index, count, c)| view! {
                <p class="actions">
                    <button type="button" id="stepcoder-previous" disabled={index == 0} on:click=move |_| picked.set(Some(index.saturating_sub(1)))>"Previous"</button>
                    {format!(" completion {} of {count} ", index + 1)}
                    <button type="button" id="stepcoder-next" disabled={index + 1 >= count} on:click=move |_| picked.set(Some(index + 1))>"Next"</button>
                </p>
                <MaskView completion=c />
            })}
        </div>
    }
}

/// One completion: its stage, outcome and reward, and its program as the mask reads it.
#[component]
fn MaskView(completion: Completion) -> impl IntoView {
    let outcome = completion.outcome.map_or("the LLM call failed", Outcome::label);
    let header = format!(
        "Stage {}: {outcome}, reward {:+.1}{}",
        completion.stage,
        completion.reward,
        if completion.trimmed { "; the reply repeated the prefix, which was cut off" } else { "" }
    );
    let lines = completion.mask.clone().map(|mask| view! { <MaskedProgram program=completion.program.clone() mask /> });
    let held_out = completion
        .held_out
        .as_ref()
        .map(|h| format!("Held-out tests (never shown, no reward): {} of {} passed.", h.passed, h.total));
    let special_cased = completion.special_cased().map(str::to_owned);
    view! {
        <div id="stepcoder-mask">
            <p>{header}</p>
            {held_out.map(|text| view! { <p id="stepcoder-held-out">{text}</p> })}
            {special_cased.map(|test| view! { <p id="stepcoder-special-cased" class="special-cased">"special-cased? It passes every visible test and fails the held-out "<code>{test}</code></p> })}
            {lines}
            <p class="hint">{completion.error.clone().unwrap_or_else(|| "Grey: given by the curriculum. Green: written and run, in the loss. Struck through: written and never run, masked by FGO (a program that does not compile runs nothing).".into())}</p>
        </div>
    }
}
