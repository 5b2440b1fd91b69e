//! The Search pane: seed 004's program searches (GIF-MCTS, WorldCoder, zero-shot) on a bundled or
//! imported task, with the LLM chosen in live mode (or the simulated LLM, offline) and every program
//! scored by Pyodide. The search is `engine::search::Search`, driven by `host::drive`; what the pane
//! shows and keeps of it is its `SearchRecord`: the tree as it grows, each program's details, the
//! best program, and the best score against LLM calls of every search listed. Searches are kept in
//! this browser, exported and imported as JSON, and shared by link; a link to a search the
//! simulated LLM answered replays it on opening and says whether the replay is the same search.
//! The six code-world-model tasks are searched here too, with their tools (`world_models`).

pub mod views;

use engine::cwm::normalised_return::PlanningSummary;
use engine::effects::OfflineLlm;
use engine::llm::ProviderSettings;
use engine::params::{self, Parameters};
use engine::prompts::PromptSet;
use engine::search::bank::search_tasks;
use engine::search::record::SearchRecord;
use engine::search::simulated_llm::SimulatedLlmParams;
use engine::search::spec::{MethodSpec, ProgramSearch, SearchSpec};
use engine::search::world_model_tasks::world_model_tasks;
use engine::share::search_link::{SIMULATED, SearchLink, SearchResults};
use engine::task_import::ImportedTask;
use leptos::prelude::*;

use crate::search::views::{NodeDetails, ScorePlot, SearchTree};
use crate::services::host::{self, HostView, Llm};
use crate::services::llm_client::CancelToken;
use crate::services::python_pool::Python;
use crate::services::storage;
use crate::train::controls::ParamFields;
use crate::widgets::llm_settings::LlmChoice;
use crate::world_models::{ImportedDataset, PaperComparison, WorldModelInfo, WorldModelTools};
use crate::{widgets::download, widgets::upload};

/// Imported tasks are offered under this prefix, apart from the bundled ones.
const IMPORTED: &str = "imported:";

/// Every search kept in this browser or run on this page, by number, and the one shown.
#[derive(Clone, Copy)]
struct Searches {
    list: RwSignal<Vec<(u32, SearchRecord)>>,
    shown: RwSignal<Option<u32>>,
}

impl Searches {
    fn next_id(self) -> u32 {
        self.list.with_untracked(|l| l.iter().map(|(id, _)| id + 1).max().unwrap_or(1))
    }

    fn put(self, id: u32, record: SearchRecord) {
        self.list.update(|list| match list.iter_mut().find(|(i, _)| *i == id) {
            Some(entry) => entry.1 = record,
            None => list.push((id, record)),
        });
    }

    fn shown_record(self) -> Signal<Option<SearchRecord>> {
        Signal::derive(move || {
            let id = self.shown.get()?;
            self.list.with(|l| l.iter().find(|(i, _)| *i == id).map(|(_, r)| r.clone()))
        })
    }
}

/// What a finished replay of a shared search says about it.
fn replay_verdict(record: &SearchRecord, sent: &SearchResults) -> String {
    if record.fingerprint == sent.fingerprint {
        format!(
            "This replay is the shared search exactly: the same {} LLM calls and programs, best score {:.3} (fingerprint {}).",
            record.llm_calls(),
            record.best_score(),
            record.fingerprint
        )
    } else {
        format!(
            "This replay differs from the shared search: {} LLM calls and best score {:.3} here, {} and {:.3} in the link (fingerprints {} and {}). The page that made the link may be another version of the playground.",
            record.llm_calls(),
            record.best_score(),
            sent.llm_calls,
            sent.best_score,
            record.fingerprint,
            sent.fingerprint
        )
    }
}

/// The summary line of a record: calls, best score, tokens and, for an endpoint, the cost.
fn summary(record: &SearchRecord) -> String {
    let cost = if record.cost_usd > 0.0 { format!(" · ${:.4}", record.cost_usd) } else { String::new() };
    let hacked = record.expansions.iter().filter(|e| e.evaluation.hacked).count();
    let verdicts = match (record.spec.naive_verdicts, hacked) {
        (false, _) => String::new(),
        (true, 0) => " · naive verdicts".to_owned(),
        (true, n) => format!(" · naive verdicts: {n} hacked program(s) passed that the real verdict refuses"),
    };
    let reformatted = record.expansions.iter().filter(|e| e.unformatted.is_some()).count();
    let verdicts = match (record.spec.autopep8, reformatted) {
        (false, _) => format!("{verdicts} · without autopep8"),
        (true, 0) => verdicts,
        (true, n) => format!("{verdicts} · autopep8 changed {n} program(s)"),
    };
    format!(
        "{} LLM calls · best score {:.3} · {} tokens{cost}{verdicts}",
        record.llm_calls(),
        record.best_score(),
        record.usage.total()
    )
}

#[component]
pub fn SearchPane(python: Python, imported: RwSignal<Vec<ImportedTask>>, link: Option<SearchLink>) -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let python = StoredValue::new_local(python);
    let defaults = link.as_ref().map_or_else(
        || {
            SearchSpec::new(
                MethodSpec::parse(MethodSpec::NAMES[0]).expect("a known method"),
                &search_tasks()[0].id,
                20,
                1,
            )
        },
        |l| l.spec.clone(),
    );
    let task = RwSignal::new(defaults.task.clone());
    // A dataset of transitions imported for the world-model tools, instead of the generated one.
    let dataset = RwSignal::new(None::<ImportedDataset>);
    let method = RwSignal::new(defaults.method.name().to_owned());
    let budget = RwSignal::new(defaults.budget.to_string());
    let seed = RwSignal::new(defaults.seed.to_string());
    // The simulated LLM's odds, as the run form's parameters are edited.
    let odds_fields = Memo::new(|_| params::fields(&SimulatedLlmParams::default().params_schema()));
    let odds_texts = RwSignal::new(params::texts(&defaults.simulated_llm, &odds_fields.get_untracked()));
    let naive = RwSignal::new(defaults.naive_verdicts);
    let autopep8 = RwSignal::new(defaults.autopep8);
    let problem = RwSignal::new(None::<String>);
    let (status, stream) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let searches = Searches { list: RwSignal::new(Vec::new()), shown: RwSignal::new(None) };
    let shown = searches.shown_record();
    let selected = RwSignal::new(None::<usize>);
    let running = RwSignal::new(false);
    // The search being driven now, by number: it cannot be removed.
    let in_flight = RwSignal::new(None::<u32>);
    // The kept searches are read back before any search starts, so that numbers never collide.
    let loaded = RwSignal::new(false);
    let cancel = StoredValue::new_local(CancelToken::default());
    let replay = RwSignal::new(None::<String>);

    // The spec in the form, and the imported task it names (none for a bundled one).
    let read_form = move || -> Result<(SearchSpec, Option<ImportedTask>), String> {
        let method = MethodSpec::parse(&method.get_untracked())?;
        let budget = budget.get_untracked().trim().parse().map_err(|_| "budget: a whole number of LLM calls")?;
        let seed = seed.get_untracked().trim().parse().map_err(|_| "seed: a whole number")?;
        let task_id = task.get_untracked();
        let mut spec = SearchSpec::new(method, &task_id, budget, seed);
        let odds =
            params::build(&SimulatedLlmParams::default(), &odds_fields.get_untracked(), &odds_texts.get_untracked());
        spec.simulated_llm = odds.map_err(|e| format!("simulated LLM: {e}"))?;
        spec.naive_verdicts = naive.get_untracked();
        spec.autopep8 = autopep8.get_untracked();
        let imported_task = match task_id.strip_prefix(IMPORTED) {
            None => None,
            Some(id) => {
                let found = imported.with_untracked(|tasks| tasks.iter().find(|t| t.id == id).cloned());
                Some(found.ok_or_else(|| format!("task: no imported task '{id}' in this browser"))?)
            }
        };
        Ok((spec, imported_task))
    };

    // Runs `search`, made from `spec`, with `llm`; `sent` is what a shared link said it came to.
    let launch = move |search: ProgramSearch,
                       spec: SearchSpec,
                       mut llm: Llm,
                       settings: Option<ProviderSettings>,
                       sent: Option<SearchResults>| {
        let mut search = search.with_prefill(settings.as_ref().is_some_and(|s| s.assistant_prefill));
        let llm_name = match &mut llm {
            // Seed 004 samples at temperature 1; the offline LLM draws from the search's seed.
            Llm::Remote { settings, .. } => {
                settings.temperature = 1.0;
                settings.model.clone()
            }
            Llm::Offline(offline) => {
                **offline = OfflineLlm::new(spec.seed);
                SIMULATED.to_owned()
            }
        };
        let record = move |search: &ProgramSearch| {
            let mut record = search.record(&spec, &llm_name);
            record.cost_usd = settings.as_ref().map_or(0.0, |s| record.usage.cost(s));
            record
        };
        let id = searches.next_id();
        searches.put(id, record(&search));
        searches.shown.set(Some(id));
        in_flight.set(Some(id));
        selected.set(None);
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        leptos::task::spawn_local(async move {
            let decide = async |_| Err("a search takes no policy decisions".to_owned());
            let view = HostView { status, stream };
            // A search Python failed ends with the reason, which its status line shows.
            let _ = host::drive(&mut search, &mut llm, &python, &token, decide, view, |s| searches.put(id, record(s)))
                .await;
            status.set(format!("Search over: {}.", search.ended()));
            let kept = record(&search);
            if let Some(sent) = sent {
                replay.set(Some(replay_verdict(&kept, &sent)));
            }
            searches.put(id, kept.clone());
            running.set(false);
            in_flight.set(None);
            if let Err(refused) = storage::save_search(id, &kept).await {
                problem.set(Some(refused));
            }
        });
    };

    // Runs the form's search; `simulated` forces the simulated LLM (a shared search's replay). On
    // an imported task the simulated LLM first needs a bank, which Pyodide makes by mutation.
    let start = move |simulated: bool, sent: Option<SearchResults>| {
        let prompts: PromptSet = llm_choice.prompts.get_untracked();
        let llm = if simulated {
            Ok((Llm::Offline(Box::new(OfflineLlm::new(0))), None))
        } else {
            llm_choice.llm(0).map(|(llm, _, settings)| (llm, settings))
        };
        let (spec, imported_task, llm, settings) = match read_form().and_then(|(spec, task)| Ok((spec, task, llm?))) {
            Ok((spec, task, (llm, settings))) => (spec, task, llm, settings),
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        running.set(true);
        let fail = move |message: String| {
            problem.set(Some(message));
            running.set(false);
        };
        // An imported task offline first has its bank made by mutating its reference in Pyodide:
        // the search's first need.
        if imported_task.is_some() && matches!(llm, Llm::Offline(_)) {
            status.set("Making the simulated LLM's bank: mutating the task's reference solution…".into());
        }
        match spec.start(imported_task.as_ref(), matches!(llm, Llm::Offline(_)), prompts) {
            Ok(search) => launch(search, spec, llm, settings, sent),
            Err(message) => fail(message),
        }
    };

    // How the shown search's best model planned, kept in its record (not while it still searches:
    // its best may change, and its next record would drop it).
    let on_planned = Callback::new(move |summary: PlanningSummary| {
        let Some(id) = searches.shown.get_untracked().filter(|&id| in_flight.get_untracked() != Some(id)) else {
            return;
        };
        searches.list.update(|list| {
            if let Some((_, record)) = list.iter_mut().find(|(i, _)| *i == id) {
                record.planned = Some(summary);
            }
        });
        let Some(record) = searches.list.with_untracked(|l| l.iter().find(|(i, _)| *i == id).map(|(_, r)| r.clone()))
        else {
            return;
        };
        leptos::task::spawn_local(async move {
            if let Err(refused) = storage::save_search(id, &record).await {
                problem.set(Some(refused));
            }
        });
    });

    let link_replay = link.as_ref().filter(|l| l.replays_exactly()).map(|l| l.results.clone());
    if let Some(link) = link.as_ref().filter(|l| !l.replays_exactly()) {
        replay.set(Some(format!(
            "The shared search was answered by {}; an LLM answers differently each time, so it is not replayed here. Press Search to run it with the LLM chosen in Live mode.",
            link.llm
        )));
    }
    leptos::task::spawn_local(async move {
        let (kept, problems) = storage::load_searches().await;
        searches.list.set(kept);
        if !problems.is_empty() {
            problem.set(Some(problems.join("; ")));
        }
        loaded.set(true);
        if let Some(sent) = link_replay {
            replay.set(Some("Replaying the shared search with the simulated LLM…".into()));
            start(true, sent);
        }
    });

    let import = move |ev: leptos::ev::Event| {
        let Some(file) = upload::picked(&ev) else { return };
        upload::read_text(file, move |name, text| {
            let records = text.and_then(|text| SearchRecord::import(&text).map_err(|e| format!("{name}: {e}")));
            match records {
                Err(message) => problem.set(Some(message)),
                Ok(records) => {
                    problem.set(None);
                    for record in records {
                        let id = searches.next_id();
                        searches.put(id, record.clone());
                        searches.shown.set(Some(id));
                        leptos::task::spawn_local(async move {
                            if let Err(refused) = storage::save_search(id, &record).await {
                                problem.set(Some(refused));
                            }
                        });
                    }
                }
            }
        });
    };
    let export = move |_| {
        let records: Vec<SearchRecord> = searches.list.with_untracked(|l| l.iter().map(|(_, r)| r.clone()).collect());
        if let Err(message) = download::text("searches.json", "application/json", &SearchRecord::export(&records)) {
            problem.set(Some(message));
        }
    };
    let share_url = move || {
        shown.with(|r| {
            let record = r.as_ref().filter(|r| !r.ended.is_empty())?;
            let location = window().location();
            let base = format!("{}{}", location.origin().ok()?, location.pathname().ok()?);
            Some(format!("{base}#{}", SearchLink::of(record).encode()))
        })
    };
    let curves = Signal::derive(move || {
        searches.list.with(|l| {
            l.iter()
                .map(|(id, r)| (format!("#{id} {}", r.label()), r.progress.iter().map(|p| p.best_score).collect()))
                .collect()
        })
    });

    view! {
        <section aria-labelledby="search-heading" class="panel" id="search">
            <h2 id="search-heading">"Search: GIF-MCTS, WorldCoder and zero-shot CoT (seed 004)"</h2>
            <p class="hint">"A tree search over programs: each node is a program, each edge one LLM call that generates (continues the node's first lines), improves (from a failing test) or fixes (from an error). The LLM is the one chosen in Live mode; offline, the simulated LLM answers from each bundled task's bank of correct and faulty code, and its results are the simulated LLM's, not the paper's. Every program runs in Pyodide."</p>
            <p id="search-replay" role="status" hidden=move || replay.get().is_none()>{move || replay.get()}</p>
            <div class="form-grid">
                <label>"Task"<select id="search-task" prop:value=move || task.get() on:change=move |ev| task.set(event_target_value(&ev))>
                    {search_tasks().iter().map(|t| view! { <option value=t.id.clone()>{t.id.clone()}</option> }).collect_view()}
                    <optgroup label="World models (seed 004's CWMB)">
                        {world_model_tasks().iter().map(|t| view! { <option value=t.id.clone()>{t.id.clone()}</option> }).collect_view()}
                    </optgroup>
                    {move || imported.with(|tasks| tasks.iter().map(|t| {
                        let value = format!("{IMPORTED}{}", t.id);
                        view! { <option value=value.clone()>{value.clone()}</option> }
                    }).collect_view())}
                </select></label>
                <label>"Method"<select id="search-method" prop:value=move || method.get() on:change=move |ev| method.set(event_target_value(&ev))>
                    {MethodSpec::NAMES.iter().map(|m| view! { <option value=*m>{*m}</option> }).collect_view()}
                </select></label>
                <label>"Budget (LLM calls)"<input id="search-budget" prop:value=move || budget.get() on:change=move |ev| budget.set(event_target_value(&ev)) /></label>
                <label>"Seed"<input id="search-seed" prop:value=move || seed.get() on:change=move |ev| seed.set(event_target_value(&ev)) /></label>
                <label title="The tests run in the program's own interpreter and an exit with status 0 is a pass, as in common graders: reward hacks pass, and the tree crosses each one the real verdict refuses (About: reward hacking)">
                    <input type="checkbox" id="search-naive" prop:checked=move || naive.get() on:change=move |ev| naive.set(event_target_checked(&ev)) />
                    " Naive verdicts"
                </label>
                <label title="Each program runs through autopep8.fix_code before it is scored, as seed 004's official code does: indentation slips are repaired and long lines reflowed; the node view shows what it changed">
                    <input type="checkbox" id="search-autopep8" prop:checked=move || autopep8.get() on:change=move |ev| autopep8.set(event_target_checked(&ev)) />
                    " autopep8"
                </label>
            </div>
            <WorldModelInfo task=task imported=dataset />
            <ParamFields id="search-odds" title="The simulated LLM's odds" defaults="the playground's defaults" id_prefix="odds"
                fields=odds_fields texts=odds_texts hidden=false locked=false />
            <p class="actions">
                <button type="button" id="search-go" disabled=move || running.get() || !loaded.get() on:click=move |_| start(false, None)>"Search"</button>
                <button type="button" id="search-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="search-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="search-status" role="status">{move || status.get()}</p>
            <p id="search-summary">{move || shown.with(|r| r.as_ref().map(summary))}</p>
            <p hidden=move || share_url().is_none()>
                <label>"Link to this search "<input id="search-link" readonly size="60" prop:value=move || share_url().unwrap_or_default() /></label>
            </p>
            <SearchTree record=shown selected=selected />
            <NodeDetails record=shown selected=selected />
            <WorldModelTools python=python record=shown selected=selected imported=dataset on_planned=on_planned />
            <h3>"Best program"</h3>
            <pre id="search-best">{move || shown.with(|r| r.as_ref().and_then(|r| r.best.as_ref()).map(|(p, s)| format!("# score {s:.3}\n{p}")).unwrap_or_default())}</pre>
            <ScorePlot curves=curves />
            <PaperComparison list=Signal::derive(move || searches.list.with(|l| l.iter().map(|(_, r)| r.clone()).collect())) />
            <h3>"Searches kept in this browser"</h3>
            <table id="search-history">
                <thead><tr><th>"#"</th><th>"Search"</th><th>"Best score"</th><th>"LLM calls"</th><th>"Ended"</th><th></th></tr></thead>
                <tbody>{move || searches.list.with(|list| list.iter().map(|(id, r)| {
                    let id = *id;
                    view! { <tr>
                        <td>{id}</td><td>{r.label()}</td><td>{format!("{:.3}", r.best_score())}</td><td>{r.llm_calls()}</td><td>{r.ended.clone()}</td>
                        <td>
                            <button type="button" class="search-show" on:click=move |_| { selected.set(None); searches.shown.set(Some(id)) }>"Show"</button>
                            <button type="button" class="search-remove" disabled=move || in_flight.get() == Some(id) on:click=move |_| {
                                // The row goes once the browser has forgotten it, so that it never comes back on a reload.
                                leptos::task::spawn_local(async move {
                                    match storage::forget_search(id).await {
                                        Ok(()) => searches.list.update(|l| l.retain(|(i, _)| *i != id)),
                                        Err(message) => problem.set(Some(message)),
                                    }
                                });
                            }>"Remove"</button>
                        </td>
                    </tr> }
                }).collect_view())}</tbody>
            </table>
            <p class="actions">
                <button type="button" id="search-export" on:click=export>"Export searches (JSON)"</button>
                <label>"Import searches "<input type="file" id="search-import" accept=".json,application/json" on:change=import /></label>
            </p>
        </section>
    }
}
