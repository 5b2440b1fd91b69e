//! The program editor: a world model of your own for any of the six environments (pasted, written,
//! or started from the bank's correct model or a search's node), which the world-model tools then
//! score, plan with and train inside; and any node of a search, changed and scored again as a new
//! node "by hand" of that search (`engine::search::hand_edit`).

use engine::gym::GymId;
use engine::python::DEFAULT_TIME_LIMIT_MS;
use engine::search::hand_edit::HandEditing;
use engine::search::world_model_tasks::world_model_task;
use leptos::prelude::*;

use crate::search::history::Searches;
use crate::search::world_models::info::gym_of;
use crate::services::python_pool::Python;
use crate::services::storage::ImportedTasks;

/// What the editor holds, shared with the node details (which open a node in it) and the
/// world-model tools (which work with the model of your own).
#[derive(Clone, Copy)]
pub struct Editor {
    pub code: RwSignal<String>,
    /// The environment a world model written here is for.
    pub env: RwSignal<Option<GymId>>,
    /// The search and the node (of `SearchRecord::nodes`) the code was opened from.
    pub from: RwSignal<Option<(u32, usize)>>,
    /// The world model of your own that the tools work with, once chosen.
    pub own: RwSignal<Option<(GymId, String)>>,
    pub open: RwSignal<bool>,
}

impl Editor {
    pub fn new() -> Self {
        Self {
            code: RwSignal::new(String::new()),
            env: RwSignal::new(None),
            from: RwSignal::new(None),
            own: RwSignal::new(None),
            open: RwSignal::new(false),
        }
    }

    /// Opens node `node` of search `id`, whose program is `program`, on task `task`.
    pub fn open_node(self, id: u32, node: usize, program: String, task: &str) {
        self.code.set(program);
        self.from.set(Some((id, node)));
        if let Some(env) = gym_of(task) {
            self.env.set(Some(env));
        }
        self.open.set(true);
    }
}

/// The editor's panel; `selected` moves to a node scored here.
#[component]
pub fn ProgramEditor(editor: Editor, searches: Searches, selected: RwSignal<Option<usize>>) -> impl IntoView {
    let Editor { code, env, from, own, open } = editor;
    let python = Python::from_context();
    let imported = ImportedTasks::from_context();
    let (busy, problem, status) = (RwSignal::new(false), RwSignal::new(None::<String>), RwSignal::new(String::new()));

    let score_as_node = move |_| {
        let Some((id, node)) = from.get_untracked() else { return };
        if searches.in_flight.get_untracked() == Some(id) {
            return problem.set(Some(format!("Search #{id} is still running: edit its nodes once it is over.")));
        }
        let Some(record) = searches.record(id) else {
            return problem.set(Some(format!("Search #{id} is no longer here.")));
        };
        let task = imported.with_untracked(|tasks| tasks.iter().find(|t| t.id == record.spec.task).cloned());
        let editing = match HandEditing::new(&record, task.as_ref(), node, code.get_untracked()) {
            Ok(editing) => editing,
            Err(message) => return problem.set(Some(message)),
        };
        problem.set(None);
        busy.set(true);
        status.set(format!("Scoring the edited program as search #{id} scores its programs…"));
        python.get_value().run(editing.request(), DEFAULT_TIME_LIMIT_MS, move |verdict| {
            busy.set(false);
            status.set(String::new());
            // The record as it is now (planning may have added to it meanwhile).
            match verdict
                .map(|verdict| searches.record(id).map(|mut record| (editing.finish(&mut record, &verdict), record)))
            {
                Ok(Some((node, record))) => {
                    searches.put(id, record.clone());
                    searches.keep(id, record);
                    searches.shown.set(Some(id));
                    selected.set(Some(node));
                    from.set(Some((id, node)));
                    status.set(format!("Scored: node {node} of search #{id}, edited by hand."));
                }
                Ok(None) => problem.set(Some(format!("Search #{id} is no longer here."))),
                Err(message) => problem.set(Some(message)),
            }
        });
    };
    let start_correct = move |_| {
        if let Some(env) = env.get_untracked() {
            code.set(world_model_task(env).reference());
            from.set(None);
        }
    };
    let use_own = move |_| match env.get_untracked() {
        Some(env) => {
            problem.set(None);
            own.set(Some((env, code.get_untracked())));
        }
        None => problem.set(Some("Choose the environment the model is for.".into())),
    };
    let from_note = move || {
        from.get().map(|(id, node)| {
            format!("Opened from node {node} of search #{id}: scoring it adds a node \"by hand\" to that search.")
        })
    };

    view! {
        <details id="editor" prop:open=move || open.get() on:toggle=move |ev| open.set(event_target::<web_sys::Element>(&ev).has_attribute("open"))>
            <summary>"Edit a program: a world model of your own, or any node of a search"</summary>
            <p class="hint">"Write or paste a class `Environment` for one of the six environments (or start from the bank's correct model, or open a search's node with \"Edit this program\"), then work with it as a world model: score it, plan with it and train an agent inside it. A node of a search, changed here, can be scored again as a new node of that search."</p>
            <div class="form-grid">
                <label>"Environment"<select id="edit-env" prop:value=move || env.get().map_or("", GymId::name) on:change=move |ev| env.set(gym_of(&event_target_value(&ev)))>
                    <option value="">"none (a program of a task)"</option>
                    {GymId::ALL.map(|g| view! { <option value=g.name()>{g.name()}</option> }).to_vec()}
                </select></label>
                <button type="button" id="edit-start-correct" disabled=move || env.get().is_none() on:click=start_correct>"Start from the bank's correct model"</button>
            </div>
            <p id="edit-from" class="hint" hidden=move || from.get().is_none()>{from_note}</p>
            <textarea id="edit-code" aria-label="The program" spellcheck="false" autocomplete="off" wrap="off" rows="16"
                prop:value=move || code.get() on:input=move |ev| code.set(event_target_value(&ev))></textarea>
            <p class="actions">
                <button type="button" id="edit-use" disabled=move || env.get().is_none() on:click=use_own>"Work with it as a world model"</button>
                <button type="button" id="edit-score-node" hidden=move || from.get().is_none() disabled=move || busy.get() on:click=score_as_node>
                    {move || from.get().map(|(id, _)| format!("Score it as a new node of search #{id}"))}
                </button>
            </p>
            <p id="edit-status" role="status">{move || status.get()}</p>
            <p id="edit-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
        </details>
    }
}
