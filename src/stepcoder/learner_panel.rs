//! The StepCoder pane's learner: Table 1's ablation (vanilla, +CCCS, +FGO, StepCoder) on the
//! line-bank learner, every program run in Pyodide, sampled pass@1 at the full task plotted against
//! executions with its 95% interval over seeds. The ablation is driven by the page's host, which
//! sends the bank's programs to Pyodide in batches, all in one interpreter: they are the
//! playground's own programs, not an LLM's.

use engine::effects::Llm;
use engine::python::Outcome;
use engine::share::ablation_link::AblationLink;
use engine::share::{AblationControl, Pane, Teaching};
use engine::stepcoder::ablation::{Ablation, AblationReport, AblationSpec, ArmSummary};
use engine::stepcoder::learner_params::Arm;
use engine::stepcoder::policy_gradient;
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::host::{self, HostView};
use crate::services::links::address_of;
use crate::services::model::palette_colour;
use crate::services::python_pool::Python;
use crate::services::storage::{self, setting};
use crate::stepcoder::ablation_form::{AblationForm, AblationFormFields};
use crate::stepcoder::ablation_table::AblationTable;
use crate::stepcoder::kept_reports::{KeptReports, Reports, described};
use crate::stepcoder::masked_program::MaskedProgram;
use crate::widgets::chart::{Axis, Chart, Series, SvgChart, Ticks};
use crate::widgets::teacher_options::{TeacherChoice, TeacherOptions};

/// The page's address with `report`'s link, as a teacher set it.
fn link_to(report: &AblationReport, teaching: Teaching<AblationControl>) -> String {
    address_of(&AblationLink { spec: report.spec.clone(), fingerprint: Some(report.fingerprint.clone()), teaching })
}

/// Training executions a second of the page's ablation at its defaults (163,840 in about 53 s,
/// docs/benchmarks.md, "StepCoder's ablation back under a minute"): the estimate said before a run.
const EXECUTIONS_PER_SECOND: f64 = 3_000.0;

/// What the form asks for, said before it runs: the executions and about how long they take.
fn size_sentence(executions: u64) -> String {
    let seconds = executions as f64 / EXECUTIONS_PER_SECOND;
    let time = if seconds < 90.0 { format!("{:.0} s", seconds.max(1.0)) } else { format!("{:.0} min", seconds / 60.0) };
    format!(
        "{} training executions (arms × seeds × tasks × executions per task), every new program run in Pyodide: about {time} on a two-core laptop.",
        thousands(executions)
    )
}

/// `n` with commas between thousands: 163,840.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// How the shown ablation sampled its training rollouts, as a sentence.
fn rollout_rule_sentence(params: &engine::stepcoder::learner_params::LearnerParams) -> String {
    let rule = params.rollout_rule();
    let mut letters = rule.chars();
    letters.next().map_or(String::new(), |first| format!("{}{}.", first.to_uppercase(), letters.as_str()))
}

/// `link` is a shared ablation: its spec fills the form and runs at once, and its fingerprint is
/// compared with the one the page gets. Finished ablations are kept in this browser (the last
/// `kept_reports::KEPT`), exported and imported as the reports `rlcg stepcoder learn --json` prints.
#[component]
pub fn LearnerPanel(link: Option<AblationLink>) -> impl IntoView {
    let python = Python::from_context();
    let form = AblationForm::new(link.as_ref().map_or_else(AblationSpec::default, |l| l.spec.clone()));
    let teaching = link.as_ref().map(|l| l.teaching.clone()).unwrap_or_default();
    let teacher = TeacherChoice::<AblationControl>::new(Pane::Stepcoder);
    let sent = link.as_ref().and_then(|l| l.fingerprint.clone());
    let running = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let progress = RwSignal::new((0u64, 0u64));
    let status = RwSignal::new(String::new());
    // The report whose table, plot and link are shown, and the reports kept, newest first.
    let shown = RwSignal::new(None::<AblationReport>);
    let reports = Reports { kept: RwSignal::new(Vec::new()), shown, status, problem };
    let kept = reports.kept;
    let cancel = StoredValue::new_local(CancelToken::default());
    // The ablation run on this visit, whose learners' rollouts can be opened; `finished` counts them.
    let ablation_done = StoredValue::new_local(None::<Ablation>);
    let finished = RwSignal::new(0u32);

    let start = move |sent: Option<String>| {
        let mut ablation = match form.read().and_then(Ablation::new) {
            Ok(ablation) => ablation,
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        shown.set(None);
        running.set(true);
        progress.set(ablation.progress());
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        let started = js_sys::Date::now();
        leptos::task::spawn_local(async move {
            let mut llm = Llm::Absent;
            let view = HostView { status, stream: RwSignal::new(String::new()) };
            let decide = async |_| Err("an ablation takes no policy decisions".to_owned());
            let show = |a: &Ablation| progress.set(a.progress());
            let driven = host::drive(&mut ablation, &mut llm, &python, &token, decide, view, show).await;
            match driven.and_then(|()| ablation.error.clone().map_or(Ok(()), Err)) {
                Ok(()) => {
                    let report = ablation.report((js_sys::Date::now() - started) / 1000.0);
                    let compared = match sent {
                        Some(sent) if sent == report.fingerprint => " Identical to the shared ablation.".to_owned(),
                        Some(sent) => format!(" Not the same as the shared ablation, whose fingerprint is {sent}."),
                        None => String::new(),
                    };
                    status.set(format!(
                        "Done in {:.1} s: {} distinct programs ran (the rest were the same programs again); fingerprint {}.{compared}",
                        report.wall_seconds, report.distinct_programs, report.fingerprint,
                    ));
                    shown.set(Some(report.clone()));
                    reports.add(vec![report]);
                    ablation_done.set_value(Some(ablation));
                    finished.update(|n| *n += 1);
                }
                Err(message) => problem.set(Some(message)),
            }
            running.set(false);
        });
    };

    leptos::task::spawn_local(async move {
        let stored = storage::load_setting(setting::STEPCODER_ABLATIONS).await;
        let reports = match stored.map(|text| AblationReport::parse(&text)) {
            None => Vec::new(),
            Some(Ok(reports)) => reports,
            Some(Err(message)) => {
                problem.set(Some(format!("The ablations kept in this browser could not be read ({message}).")));
                Vec::new()
            }
        };
        // A link reopened (a reload, a bookmark) finds its ablation among the kept ones.
        let already_here = sent.as_ref().and_then(|sent| reports.iter().find(|r| &r.fingerprint == sent).cloned());
        kept.set(reports);
        if let Some(report) = already_here {
            status.set(format!(
                "This link's ablation is already here: {}, fingerprint {}, so it was not run again.",
                described(&report),
                report.fingerprint
            ));
            shown.set(Some(report));
        } else if link.is_some() {
            // A shared ablation runs as soon as the pane is there.
            start(sent);
        } else if let Some(latest) = kept.with_untracked(|k| k.first().cloned()) {
            status.set(format!(
                "Kept from an earlier visit: {}, fingerprint {}.",
                described(&latest),
                latest.fingerprint
            ));
            shown.set(Some(latest));
        }
    });

    let overall = move || {
        shown.with(|s| s.iter().flat_map(|r| &r.rows).filter(|r| r.task.is_none()).cloned().collect::<Vec<_>>())
    };
    // The rollouts are there for the ablation run on this visit only.
    let live = move || {
        finished.track();
        let fingerprint = shown.with(|s| s.as_ref().map(|r| r.fingerprint.clone()));
        ablation_done.with_value(|a| a.as_ref().is_some_and(|a| Some(a.fingerprint()) == fingerprint))
    };
    view! {
        <h3>"What CCCS and FGO do to a learner that learns"</h3>
        <p class="hint">"A softmax per line over the bundled line banks (four small functions; each free line offers the canonical line and three mutants, each of which alone fails a test), trained by REINFORCE on 16 rollouts per update, sampled as §4.2 samples them (T 0.8, top-p 0.9). The four arms differ only by CCCS and FGO, with the same seeds, random streams and budget of executions; pass@1 is measured at the full task on visible and hidden tests, sampled as the policy is (T 1) and decoded as Table 1 decodes (T 0.2, top-p 0.95). The starting policy, ours, favours a mistake in one line, so its greedy program fails. These are a different quantity on a toy, not a reproduction of Table 1."</p>
        <AblationFormFields form=form teaching=teaching />
        <p id="stepcoder-learn-size" class="hint">{move || form.watch().map_or_else(|problem| problem, |spec| size_sentence(spec.executions()))}</p>
        <p class="actions">
            <button type="button" id="stepcoder-learn" disabled=move || running.get() on:click=move |_| start(None)>"Run the arms"</button>
            <button type="button" id="stepcoder-learn-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
        </p>
        <p id="stepcoder-learn-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
        <p id="stepcoder-learn-status" role="status">{move || {
            let (spent, total) = progress.get();
            if running.get() { format!("{spent} of {total} executions…") } else { status.get() }
        }}</p>
        <p hidden=move || shown.with(Option::is_none)>
            <label>"Link to this ablation "<input id="stepcoder-learn-link" readonly
                prop:value=move || shown.with(|s| s.as_ref().map(|r| link_to(r, teacher.teaching())).unwrap_or_default()) /></label>
        </p>
        <TeacherOptions choice=teacher prefix="stepcoder-learn-" applies_to="The link to an ablation" />
        <div hidden=move || shown.with(Option::is_none)>
            <CurvePlot rows=Signal::derive(overall) />
            <AblationTable rows=Signal::derive(overall) />
            <p id="stepcoder-rollout-rule" class="hint">{move || shown.with(|s| s.as_ref().map(|r| rollout_rule_sentence(&r.spec.params)))}</p>
            {move || if live() {
                view! { <Rollouts ablation=ablation_done finished /> }.into_any()
            } else {
                view! { <p id="stepcoder-rollouts-summary" class="hint">"The rollouts behind an ablation are there on the visit that ran it: run it again (or open its link) to see them."</p> }.into_any()
            }}
        </div>
        <KeptReports reports=reports />
    }
}

/// The rollouts one learner learned from (an arm, a task and a seed; its first or latest update),
/// each program as its masks read it.
#[component]
fn Rollouts(ablation: StoredValue<Option<Ablation>, LocalStorage>, finished: RwSignal<u32>) -> impl IntoView {
    let arm = RwSignal::new(Arm::StepCoder.name().to_owned());
    let task = RwSignal::new(0usize);
    let seed = RwSignal::new("1".to_owned());
    let latest = RwSignal::new(false);
    let choices = move || {
        finished.track();
        ablation.with_value(|a| {
            a.as_ref().map(|a| {
                let arms: Vec<&str> = a.spec.arms.iter().map(|arm| arm.name()).collect();
                let tasks: Vec<String> = a.tasks.iter().map(|t| t.id.clone()).collect();
                (arms, tasks, a.spec.seeds)
            })
        })
    };
    let shown = move || {
        finished.track();
        let chosen = Arm::parse(&arm.get()).ok();
        let seed: Option<u32> = seed.get().trim().parse().ok();
        let (task, latest) = (task.get(), latest.get());
        ablation.with_value(|a| {
            let learner = a.as_ref()?.learner(task, chosen?, seed?)?;
            let update = if latest { &learner.last_update } else { &learner.first_update };
            update.clone().map(|update| (learner.arm, update))
        })
    };
    view! {
        <h4>"The rollouts a learner learned from"</h4>
        <div class="form-grid">
            <label>"Arm"<select id="stepcoder-rollouts-arm" on:change=move |ev| arm.set(event_target_value(&ev))>
                {move || choices().map(|(arms, _, _)| arms.into_iter().map(|name| {
                    view! { <option value=name selected=move || arm.get() == name>{name}</option> }
                }).collect_view())}
            </select></label>
            <label>"Task"<select id="stepcoder-rollouts-task" on:change=move |ev| task.set(event_target_value(&ev).parse().unwrap_or(0))>
                {move || choices().map(|(_, tasks, _)| tasks.into_iter().enumerate().map(|(i, id)| {
                    view! { <option value=i.to_string() selected=move || task.get() == i>{id}</option> }
                }).collect_view())}
            </select></label>
            <label>{move || format!("Seed (1 to {})", choices().map_or(1, |c| c.2))}
                <input id="stepcoder-rollouts-seed" prop:value=move || seed.get() on:input=move |ev| seed.set(event_target_value(&ev)) /></label>
            <label>"Update"<select id="stepcoder-rollouts-update" on:change=move |ev| latest.set(event_target_value(&ev) == "latest")>
                <option value="first">"its first"</option>
                <option value="latest">"its latest"</option>
            </select></label>
        </div>
        {move || match shown() {
            None => view! { <p id="stepcoder-rollouts-summary">"No such learner: the seed is a number from 1 to the ablation's seeds."</p> }.into_any(),
            Some((arm, update)) => view! { <UpdateView arm update /> }.into_any(),
        }}
    }
}

/// One update's rollouts with their outcomes, advantages and masks.
#[component]
fn UpdateView(arm: Arm, update: policy_gradient::Update) -> impl IntoView {
    let passed = update.rollouts.iter().filter(|r| r.outcome == Outcome::Pass).count();
    let stage = update.stage.map_or(String::new(), |stage| format!(", curriculum stage {stage}"));
    let fgo = if arm.uses_fgo() {
        "FGO leaves the struck-through lines out of the loss."
    } else {
        "This arm does not use FGO: the struck-through lines are what FGO would remove, and they stay in its loss."
    };
    let summary = format!(
        "The update after {} executions{stage}: {passed} of {} rollouts passed the visible tests. Grey lines were given by the curriculum and are not in the loss. {fgo}",
        update.executions,
        update.rollouts.len(),
    );
    let rollouts = update
        .rollouts
        .into_iter()
        .enumerate()
        .map(|(i, rollout)| {
            let header = format!("Rollout {}: {}, advantage {:+.2}", i + 1, rollout.outcome.label(), rollout.advantage);
            view! {
                <div class="rollout">
                    <p>{header}</p>
                    <MaskedProgram program=rollout.program mask=rollout.mask />
                </div>
            }
        })
        .collect_view();
    view! {
        <p id="stepcoder-rollouts-summary">{summary}</p>
        <div id="stepcoder-rollouts">{rollouts}</div>
    }
}

/// Each arm's mean pass@1 against executions, with its 95% interval as a band.
#[component]
fn CurvePlot(rows: Signal<Vec<ArmSummary>>) -> impl IntoView {
    let chart = Signal::derive(move || {
        let rows = rows.get();
        let last = rows.iter().flat_map(|r| r.curve.last()).map(|p| p.executions).max().unwrap_or(1).max(1);
        let series = rows
            .iter()
            .enumerate()
            .map(|(k, row)| Series {
                label: row.arm.name().to_owned(),
                colour: palette_colour(k),
                points: row.curve.iter().map(|p| (f64::from(p.executions), p.mean)).collect(),
                band: row.curve.iter().map(|p| (f64::from(p.executions), p.low, p.high)).collect(),
            })
            .collect();
        Chart {
            x: Axis { title: "Training executions per task".into(), range: 0.0..f64::from(last), ticks: Ticks::Whole },
            y: Axis { title: "Sampled pass@1 (T = 1, full task)".into(), range: 0.0..1.0, ticks: Ticks::Percent },
            series,
            width: 560,
            plot_height: 300,
        }
    });
    view! {
        <SvgChart id="stepcoder-learn-plot" label="Sampled pass@1 against executions, per arm, with 95% intervals" chart=chart />
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_is_said_with_its_estimate() {
        assert_eq!(thousands(163_840), "163,840");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(
            size_sentence(163_840),
            "163,840 training executions (arms × seeds × tasks × executions per task), every new program run in Pyodide: about 55 s on a two-core laptop."
        );
        assert!(size_sentence(4 * 100 * 4 * 1024).ends_with("about 9 min on a two-core laptop."));
    }
}
