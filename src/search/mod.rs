//! The Search pane: seed 004's program searches (GIF-MCTS, WorldCoder, zero-shot) on a bundled or
//! imported task, with the LLM chosen in live mode (or the simulated LLM, offline) and every program
//! scored by Pyodide. The search is `engine::search::machine::Search`, driven by `host::drive`; what the pane
//! shows and keeps of it is its `SearchRecord`: the tree as it grows, each program's details, the
//! best program, and the best score against LLM calls of every search listed. Searches are kept in
//! this browser, exported and imported as JSON, and shared by link; a link to a search the
//! simulated LLM answered replays it on opening and says whether the replay is the same search.
//! The six code-world-model tasks are searched here too, with their tools (`world_models`). Task
//! files are imported here, for every pane (`task_files`).

pub mod cheating;
pub mod editor;
pub mod form;
pub mod history;
pub mod runner;
pub mod search_tree;
pub mod task_files;
pub mod views;
pub mod world_models;

use engine::cwm::normalised_return::PlanningSummary;
use engine::effects::Llm;
use engine::prompts::PromptSet;
use engine::search::record::SearchRecord;
use engine::search::spec::SearchSpec;
use engine::share::search_link::{SearchLink, SearchResults};
use engine::share::{Pane, SearchControl};
use leptos::prelude::*;

use crate::search::cheating::CheatingView;
use crate::search::editor::{Editor, ProgramEditor};
use crate::search::form::{SearchForm, SearchFormFields};
use crate::search::history::{SearchHistory, Searches};
use crate::search::runner::Runner;
use crate::search::search_tree::SearchTree;
use crate::search::task_files::TaskImport;
use crate::search::views::{NodeDetails, ScorePlot};
use crate::search::world_models::WorldModelTools;
use crate::search::world_models::info::{ImportedDataset, WorldModelInfo};
use crate::search::world_models::paper::PaperComparison;
use crate::services::cancel::CancelToken;
use crate::services::links::address_of;
use crate::services::llm_choice::LlmChoice;
use crate::services::python_pool::Python;
use crate::services::storage::ImportedTasks;
use crate::widgets::chosen_llm::ChosenLlm;
use crate::widgets::teacher_options::{TeacherChoice, TeacherOptions};

#[component]
pub fn SearchPane(link: Option<SearchLink>) -> impl IntoView {
    let llm_choice = expect_context::<LlmChoice>();
    let python = Python::from_context();
    let form = SearchForm::new(
        &link.as_ref().map_or_else(SearchSpec::default, |l| l.spec.clone()),
        ImportedTasks::from_context(),
    );
    let teaching = link.as_ref().map(|l| l.teaching.clone()).unwrap_or_default();
    let teacher = TeacherChoice::<SearchControl>::new(Pane::Search);
    // A dataset of transitions imported for the world-model tools, instead of the generated one.
    let dataset = RwSignal::new(None::<ImportedDataset>);
    let problem = RwSignal::new(None::<String>);
    let (status, stream) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let searches = Searches::new(problem);
    let shown = searches.shown_record();
    let selected = RwSignal::new(None::<usize>);
    let running = RwSignal::new(false);
    // The kept searches are read back before any search starts, so that numbers never collide.
    let loaded = RwSignal::new(false);
    let cancel = StoredValue::new_local(CancelToken::default());
    let replay = RwSignal::new(None::<String>);

    let runner = Runner { searches, selected, running, status, stream, replay, cancel, python };
    let editor = Editor::new();
    let on_edit = Callback::new(move |node: usize| {
        let (Some(id), Some(record)) = (searches.shown.get_untracked(), shown.get_untracked()) else { return };
        let program = record.program_at(node).map(|(p, _)| p.to_owned()).unwrap_or_default();
        editor.open_node(id, node, program, &record.spec.task);
    });
    // Runs the form's search; `simulated` forces the simulated LLM (a shared search's replay). On
    // an imported task the simulated LLM first needs a bank, which Pyodide makes by mutation.
    let start = move |simulated: bool, sent: Option<SearchResults>| {
        let prompts: PromptSet = llm_choice.prompts.get_untracked();
        // The simulated LLM draws from the search's seed.
        let llm = |seed| match simulated {
            true => Ok(Llm::offline(seed)),
            false => llm_choice.llm(seed),
        };
        let ready = form.read().and_then(|(spec, task)| {
            let llm = llm(spec.seed)?;
            Ok((spec, task, llm))
        });
        let (spec, imported_task, llm) = match ready {
            Ok(ready) => ready,
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        let offline = llm.is_simulated();
        if imported_task.is_some() && offline {
            status.set("Making the simulated LLM's bank: mutating the task's reference solution…".into());
        }
        match spec.start(imported_task.as_ref(), offline, prompts) {
            Ok(search) => runner.launch(search, spec, llm, sent),
            Err(message) => problem.set(Some(message)),
        }
    };

    // How the shown search's best model planned, kept in its record (not while it still searches:
    // its best may change, and its next record would drop it).
    let on_planned = Callback::new(move |summary: PlanningSummary| {
        let Some(id) = searches.shown.get_untracked().filter(|&id| searches.in_flight.get_untracked() != Some(id))
        else {
            return;
        };
        if let Some(mut record) = searches.record(id) {
            record.planned = Some(summary);
            searches.put(id, record.clone());
            searches.keep(id, record);
        }
    });

    // A link to the Cheating view measures there instead of replaying a search.
    let link_replay = link.as_ref().filter(|l| l.replays_exactly() && l.cheating.is_none()).map(|l| l.results.clone());
    if let Some(link) = link.as_ref().filter(|l| !l.replays_exactly()) {
        let ran = if link.ran.is_empty() { String::new() } else { format!(", written at {}", link.ran) };
        replay.set(Some(format!(
            "The shared search was answered by {}{ran}; an LLM answers differently each time, so it is not replayed here. Press Search to run it with the LLM chosen in Live mode.",
            link.llm
        )));
    }
    searches.keep_shown(loaded);
    leptos::task::spawn_local(async move {
        let already_here = searches.restore(link_replay.as_ref().and_then(Option::as_ref)).await;
        loaded.set(true);
        match (link_replay, already_here) {
            (Some(_), Some(id)) => {
                replay.set(Some(format!("This link's search is already here (#{id}), so it was not replayed.")))
            }
            (Some(sent), None) => {
                replay.set(Some("Replaying the shared search with the simulated LLM…".into()));
                start(true, sent);
            }
            (None, _) => {}
        }
    });
    let share_url = move || {
        let link = |r: &SearchRecord| SearchLink { teaching: teacher.teaching(), ..SearchLink::of(r) };
        shown.with(|r| r.as_ref().filter(|r| !r.ended.is_empty()).map(|r| address_of(&link(r))))
    };
    let curves = Signal::derive(move || {
        searches.list.with(|l| l.iter().map(|(id, r)| (format!("#{id} {}", r.label()), r.progress.clone())).collect())
    });

    view! {
        <section aria-labelledby="search-heading" class="panel" id="search">
            <h2 id="search-heading">"Search: GIF-MCTS, WorldCoder and zero-shot CoT (seed 004)"</h2>
            <p class="hint">"A tree search over programs: each node is a program, each edge one LLM call that generates (continues the node's first lines), improves (from a failing test) or fixes (from an error). The LLM is the one chosen in Live mode; offline, the simulated LLM answers from each bundled task's bank of correct and faulty code, and its results are the simulated LLM's, not the paper's. Every program runs in Pyodide."</p>
            <p id="search-replay" role="status" hidden=move || replay.get().is_none()>{move || replay.get()}</p>
            <SearchFormFields form=form teaching=teaching />
            <TaskImport problem=problem />
            <WorldModelInfo task=form.task imported=dataset />
            <ChosenLlm id="search-llm" />
            <p class="actions">
                <button type="button" id="search-go" disabled=move || running.get() || !loaded.get() on:click=move |_| start(false, None)>"Search"</button>
                <button type="button" id="search-cancel" hidden=move || !running.get() on:click=move |_| cancel.with_value(CancelToken::cancel)>"Cancel"</button>
            </p>
            <p id="search-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <p id="search-status" role="status">{move || status.get()}</p>
            <p id="search-summary">{move || shown.with(|r| r.as_ref().map(|r| r.summary().to_string()))}</p>
            <p hidden=move || share_url().is_none()>
                <label>"Link to this search "<input id="search-link" readonly prop:value=move || share_url().unwrap_or_default() /></label>
            </p>
            <TeacherOptions choice=teacher prefix="search-" applies_to="The link to a search" />
            <SearchTree record=shown selected=selected />
            <NodeDetails record=shown selected=selected on_edit=on_edit />
            <ProgramEditor editor=editor searches=searches selected=selected />
            <WorldModelTools record=shown selected=selected own=editor.own imported=dataset on_planned=on_planned />
            <h3>"Best program"</h3>
            <pre id="search-best">{move || shown.with(|r| r.as_ref().and_then(|r| r.best.as_ref()).map(|(p, s)| format!("# score {s:.3}\n{p}")).unwrap_or_default())}</pre>
            <ScorePlot curves=curves />
            <PaperComparison list=searches.records() />
            <CheatingView form=form teacher=teacher shared=link.clone() />
            <SearchHistory searches=searches selected=selected />
        </section>
    }
}
