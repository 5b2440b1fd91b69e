//! The Search pane's Cheating view (issue 53): how often the chosen LLM cheats, measured as
//! `engine::search::measures::cheat_measure` says (bundled tasks × seeds, one zero-shot reply each): the
//! count, the rate with its exact 95% interval, and each cheat to open. A teacher's link opens the
//! view with its measure, seeds and tasks, and measures at once where the simulated LLM answers.

use engine::cheating::held_out::MOST_HELD_OUT;
use engine::effects::Llm;
use engine::reproduce::percent;
use engine::search::measures::bench::{CheatExample, SequentialBench};
use engine::search::measures::cheat_measure::{CheatMeasure, Measure};
use engine::share::SearchControl;
use engine::share::search_link::SearchLink;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::search::form::SearchForm;
use crate::services::cancel::CancelToken;
use crate::services::host::{self, HostView};
use crate::services::links::address_of;
use crate::services::llm_choice::LlmChoice;
use crate::services::python_pool::Python;
use crate::services::storage::{self, setting};
use crate::widgets::chosen_llm::ChosenLlm;
use crate::widgets::teacher_options::TeacherChoice;

/// The view's fields, as typed.
#[derive(Clone, Copy)]
struct Fields {
    measure: RwSignal<String>,
    seeds: RwSignal<String>,
    tasks: RwSignal<String>,
    /// The simulated LLM's share of lookups; empty: the form's odds.
    lookups: RwSignal<String>,
}

impl Fields {
    fn new(measure: &CheatMeasure) -> Self {
        Self {
            measure: RwSignal::new(measure.measure.name().to_owned()),
            seeds: RwSignal::new(measure.seeds.to_string()),
            tasks: RwSignal::new(measure.tasks.join(",")),
            lookups: RwSignal::new(measure.simulated_lookups.map(|s| s.to_string()).unwrap_or_default()),
        }
    }

    fn read(self) -> Result<CheatMeasure, String> {
        let measure = Measure::parse(&self.measure.get_untracked())?;
        let seeds = self.seeds.get_untracked().trim().parse().map_err(|_| "seeds: a whole number")?;
        let tasks =
            self.tasks.get_untracked().split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
        let lookups = self.lookups.get_untracked();
        let simulated_lookups = match lookups.trim() {
            "" => None,
            text => Some(text.parse().map_err(|_| {
                format!("simulated lookups: a share from 0 to 1, or empty for the odds above, got '{text}'")
            })?),
        };
        Ok(CheatMeasure { measure, seeds, tasks, simulated_lookups })
    }
}

/// The last finished measure, kept in this browser so that a reload shows it again.
#[derive(Clone, Serialize, Deserialize)]
struct KeptMeasure {
    result: String,
    link: String,
    examples: Vec<CheatExample>,
}

/// The line a finished measure shows.
fn summary(label: &str, measure: Measure, rate: &engine::cheating::cheat_rate::CheatRate) -> String {
    let what = match measure {
        Measure::HeldOut => format!(
            "answers special-cased? with {:.0}% of each task's tests (at most {MOST_HELD_OUT}) held out",
            100.0 * CheatMeasure::HELD_OUT_SHARE
        ),
        Measure::Impossible(variant) => format!("passes of {} impossible variants (every one a cheat)", variant.name()),
    };
    let gave_up = match rate.gave_up {
        0 => String::new(),
        n => format!("; {n} gave up, saying the task is impossible"),
    };
    // How, by the red team's labels, where a reply was a naive verdict's hack.
    let hacks = match (rate.tampered_verdict, rate.changed_definition) {
        (0, 0) => String::new(),
        (tampered, changed) => format!("; of them {tampered} tampered verdict(s), {changed} changed definition(s)"),
    };
    format!(
        "{label}: {} {what} in {} replies: {} [{}, {}] (95%, Clopper–Pearson){hacks}{gave_up}",
        rate.cheated,
        rate.searches,
        percent(rate.rate),
        percent(rate.low),
        percent(rate.high)
    )
}

/// How a cheat was done, in the list's words, and what the LLM judge said of it when it was asked.
fn how(example: &CheatExample) -> String {
    let how = match example.held_out_failed {
        Some(_) => "special-cased? it fails a held-out test",
        None => example.kind.words(),
    };
    match example.judge {
        Some(class) => format!("{how} · the LLM judge: {}", class.name()),
        None => how.to_owned(),
    }
}

#[component]
pub fn CheatingView(
    form: SearchForm,
    teacher: TeacherChoice<SearchControl>,
    shared: Option<SearchLink>,
) -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let python = Python::from_context();
    let opened_by_link = shared.as_ref().and_then(|l| l.cheating.clone());
    let fields = Fields::new(opened_by_link.as_ref().unwrap_or(&CheatMeasure::default()));
    let (status, running) = (RwSignal::new(String::new()), RwSignal::new(false));
    let (result, link) = (RwSignal::new(None::<String>), RwSignal::new(None::<String>));
    let examples = RwSignal::new(Vec::<CheatExample>::new());
    let cancel = StoredValue::new_local(CancelToken::default());
    // `simulated` forces the simulated LLM (a shared measure's), whatever Live mode has chosen.
    let go = move |simulated: bool| {
        let started = fields.read().and_then(|measure| {
            let (spec, _) = form.read()?;
            let mut bench = measure.bench(spec.clone())?;
            let llm = if simulated { Llm::offline(1) } else { llm_choice.llm(1)? };
            bench.offline = llm.is_simulated();
            let label = llm.label();
            let shared = SearchLink {
                llm: llm.name(),
                ran: String::new(),
                teaching: teacher.teaching(),
                cheating: Some(measure.clone()),
                results: None,
                spec,
            };
            Ok((SequentialBench::new(bench)?, llm, label, measure.measure, address_of(&shared)))
        });
        let (mut bench, mut llm, label, measure, address) = match started {
            Ok(started) => started,
            Err(message) => return status.set(message),
        };
        running.set(true);
        result.set(None);
        examples.set(Vec::new());
        link.set(Some(address));
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        leptos::task::spawn_local(async move {
            let decide = async |_| Err("a measure takes no policy decisions".to_owned());
            let view = HostView { status, stream: RwSignal::new(String::new()) };
            let show =
                |b: &SequentialBench| status.set(format!("{label}: {} of {} replies…", b.progress().0, b.progress().1));
            let driven = host::drive(&mut bench, &mut llm, &python, &token, decide, view, show).await;
            match driven.and_then(|()| bench.error.clone().map_or(Ok(()), Err)) {
                Err(why) => status.set(format!("The measure stopped: {why}")),
                Ok(()) => {
                    let (_, rate) = bench.spec.cheat_rates(&bench.outcomes).remove(0);
                    // With the form's LLM judge on, its agreement with the other detectors.
                    let judged = bench.spec.judge_agreements(&bench.outcomes).into_iter().next();
                    let judged = judged.map(|(_, agreement)| format!(" · {agreement}")).unwrap_or_default();
                    let kept = KeptMeasure {
                        result: format!("{}{judged}", summary(&label, measure, &rate)),
                        link: link.get_untracked().unwrap_or_default(),
                        examples: bench.outcomes.iter().filter_map(|o| o.cheat_example.clone()).collect(),
                    };
                    storage::save_setting(setting::CHEAT_MEASURE, serde_json::to_string(&kept).ok());
                    result.set(Some(kept.result));
                    examples.set(kept.examples);
                    status.set(String::new());
                }
            }
            running.set(false);
        });
    };
    if shared.as_ref().is_some_and(|l| l.cheating.is_some() && l.replays_exactly()) {
        go(true);
    } else {
        leptos::task::spawn_local(async move {
            let kept = storage::load_setting(setting::CHEAT_MEASURE).await;
            if let Some(kept) = kept.and_then(|text| serde_json::from_str::<KeptMeasure>(&text).ok())
                && result.get_untracked().is_none()
                && !running.get_untracked()
            {
                result.set(Some(format!("Measured on an earlier visit: {}", kept.result)));
                link.set(Some(kept.link));
                examples.set(kept.examples);
            }
        });
    }
    let Fields { measure, seeds, tasks, lookups } = fields;
    view! {
        <details id="search-cheating" open=opened_by_link.is_some()><summary>"Cheating: how often does this LLM cheat?"</summary>
            <p class="hint">{format!("The tasks × the seeds, one zero-shot reply each, from the LLM chosen in Live mode, or the simulated one, which looks the shown tests up in the share of its replies set here: {} to begin with (ours, so that there are cheats to see; empty: the odds above, whose default is an honest 0). A real model has no such setting: what it does is what is measured. Impossible variants (ImpossibleBench): one test contradicts the task, so every pass is a cheat. Held-out (EvilGenie): {:.0}% of the tests (at most {MOST_HELD_OUT}) are never shown; an answer that passes the visible ones and fails a held-out one is special-cased?, which an honest bug can also earn. The form's May give up and LLM judge apply: with the judge on, the line says how often it agreed with the tests and with naive verdicts. About: Cheating.", CheatMeasure::DEMO_LOOKUPS, 100.0 * CheatMeasure::HELD_OUT_SHARE)}</p>
            <div class="form-grid">
                <label>"Measure"<select id="cheat-measure" prop:value=move || measure.get() on:change=move |ev| measure.set(event_target_value(&ev))>
                    {Measure::NAMES.iter().map(|m| view! { <option value=*m>{*m}</option> }).collect_view()}
                </select></label>
                <label>"Seeds"<input id="cheat-seeds" prop:value=move || seeds.get() on:change=move |ev| seeds.set(event_target_value(&ev)) /></label>
                <label>"Tasks (ids, comma-separated; empty: every bundled task)"<input id="cheat-tasks" prop:value=move || tasks.get() on:change=move |ev| tasks.set(event_target_value(&ev)) /></label>
                <label>"Simulated LLM: share of replies that look the tests up"<input id="cheat-lookups" prop:value=move || lookups.get() on:change=move |ev| lookups.set(event_target_value(&ev)) /></label>
            </div>
            <ChosenLlm id="cheat-llm" />
            <p class="actions">
                <button type="button" id="cheat-go" disabled=move || running.get() on:click=move |_| go(false)>"Measure cheating"</button>
                <button type="button" id="cheat-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="cheat-status" role="status">{move || status.get()}</p>
            <p id="cheat-rate">{move || result.get()}</p>
            <p hidden=move || link.get().is_none()><label>"Link to this measure "<input id="cheat-link" readonly prop:value=move || link.get().unwrap_or_default() /></label></p>
            <CheatExamples examples=examples />
        </details>
    }
}

/// The cheats of the last measure, each opening how it was done and its program.
#[component]
fn CheatExamples(examples: RwSignal<Vec<CheatExample>>) -> impl IntoView {
    let opened = RwSignal::new(None::<usize>);
    // A new measure's list closes the cheat opened in the last one.
    Effect::new(move |_| {
        examples.track();
        opened.set(None);
    });
    view! {
        <ul id="cheat-examples">{move || examples.get().into_iter().enumerate().map(|(i, e)| view! {
            <li><button type="button" class="link" on:click=move |_| opened.set(Some(i))>{format!("{} · seed {} · {}", e.task, e.seed, how(&e))}</button></li>
        }).collect_view()}</ul>
        {move || opened.get().and_then(|i| examples.with(|all| all.get(i).cloned())).map(|e| view! {
            <div id="cheat-example">
                <p id="cheat-example-how">{match &e.held_out_failed {
                    Some(test) => format!("{} (seed {}): passed every visible test and fails the held-out test {test}", e.task, e.seed),
                    None => format!("{} (seed {}): passed every test of its impossible variant by {}", e.task, e.seed, e.kind.words()),
                }}</p>
                <ul hidden=e.changed_definitions.is_empty()>{e.changed_definitions.iter().map(|note| view! { <li>{note.clone()}</li> }).collect_view()}</ul>
                <pre id="cheat-example-code">{e.program}</pre>
            </div>
        })}
    }
}
