//! The runs table: every run with its status, progress and results, and the buttons that pause,
//! step, resume, stop, pace, share, export or discard it; runs files are imported here too.

use engine::protocol::ToWorker;
use leptos::prelude::*;

use crate::services::model::{Status, css_colour};
use crate::services::run_book::RunBook;
use crate::services::worker_bridge::WorkerBridge;
use crate::train::pace_choice::PaceChoice;
use crate::train::share_panel::Sharing;
use crate::widgets::percent;
use crate::widgets::upload;

#[component]
pub fn RunsTable() -> impl IntoView {
    let book = expect_context::<RunBook>();
    let (runs, selected) = (book.runs, book.selected);
    let sharing = expect_context::<Sharing>();
    let bridge = expect_context::<WorkerBridge>();
    let send = move |message: ToWorker| bridge.send(message);
    // Rows are keyed by run and built once; only their texts and visibilities follow the run, so a
    // button is never replaced between a press and its release while progress streams in.
    let row = move |id: u32| {
        let live = Memo::new(move |_| {
            runs.with(|r| {
                r.iter().find(|r| r.id == id).map(|r| (r.status.clone(), r.records.len() as u32, r.success_last100()))
            })
        });
        let status = move || live.get().map(|l| l.0).unwrap_or(Status::Training);
        let done = move || live.get().map_or(0, |l| l.1);
        // A row is made for a run in the list; one removed meanwhile gets an empty row, not a panic.
        let (label, colour, total, shown) = runs.with_untracked(|r| {
            r.iter().find(|r| r.id == id).map_or((format!("#{id}"), (0, 0, 0), 0, false), |run| {
                (run.label(), run.colour, run.spec.episodes, run.shown)
            })
        });
        let failure = move || if let Status::Failed(message) = status() { message } else { String::new() };
        view! {
            <tr id=format!("run-{id}") class:selected=move || selected.get() == Some(id)>
                <td><input type="checkbox" class="show" aria-label=format!("Show run #{id} in the plot") prop:checked=shown
                    on:change=move |ev| { let shown = event_target_checked(&ev); runs.update(|r| if let Some(r) = r.iter_mut().find(|r| r.id == id) { r.shown = shown }) } />
                    <span class="swatch" style=format!("background: {}", css_colour(colour))></span></td>
                <td><button type="button" class="link select" on:click=move |_| selected.set(Some(id))>{label}</button></td>
                <td class="status" title=failure>{move || status().label().to_owned()}</td>
                <td><span class="done">{done}</span>" / "{total}<progress max=total value=done></progress></td>
                <td class="success">{move || percent(live.get().map_or(0.0, |l| l.2))}</td>
                <td class="actions">
                    <button type="button" class="pause" hidden=move || status() != Status::Training on:click=move |_| send(ToWorker::Pause { run_id: id })>"Pause"</button>
                    // A paused run is still in the worker; an interrupted one must be started again from its records.
                    <button type="button" class="resume" hidden=move || !matches!(status(), Status::Paused | Status::Interrupted)
                        on:click=move |_| if status() == Status::Interrupted { book.resume(id) } else { send(ToWorker::Resume { run_id: id }) }>"Resume"</button>
                    <button type="button" class="step" hidden=move || status() != Status::Paused title="Train one episode" on:click=move |_| send(ToWorker::Step { run_id: id })>"Step"</button>
                    <PaceChoice id=id hidden=Signal::derive(move || !matches!(status(), Status::Training | Status::Paused)) />
                    <button type="button" class="stop" hidden=move || !matches!(status(), Status::Training | Status::Paused) title="End training now and evaluate"
                        on:click=move |_| send(ToWorker::Stop { run_id: id })>"Stop"</button>
                    <button type="button" class="share" title="Copy a link that trains this run again" on:click=move |_| sharing.share(id)>"Share"</button>
                    <button type="button" class="remove" aria-label=format!("Remove run #{id}") on:click=move |_| {
                        send(ToWorker::Discard { run_id: id });
                        runs.update(|r| r.retain(|r| r.id != id));
                        if selected.get_untracked() == Some(id) { selected.set(None) }
                    }>"Remove"</button>
                </td>
            </tr>
        }
    };
    let ids = move || runs.with(|r| r.iter().map(|r| r.id).collect::<Vec<_>>());
    view! {
        <section aria-labelledby="runs-heading" class="panel">
            <h2 id="runs-heading">"Runs"</h2>
            <label class="inline">"Import runs exported as JSON "
                <input type="file" id="import-runs" accept=".json,application/json" on:change=move |ev| {
                    if let Some(file) = upload::picked(&ev) {
                        upload::read_text(file, move |name, text| book.import(&name, text));
                    }
                } />
            </label>
            <p hidden=move || runs.with(|r| !r.is_empty())>"No runs yet: choose an environment and an agent above and press Train. Runs you start are kept here to compare."</p>
            <div class="scroll" tabindex="0">
                <table id="runs" hidden=move || runs.with(|r| r.is_empty())>
                    <thead><tr><th scope="col">"Plot"</th><th scope="col">"Run"</th><th scope="col">"Status"</th><th scope="col">"Episodes"</th>
                        <th scope="col">"Success (last 100)"</th><th scope="col">"Control"</th></tr></thead>
                    <tbody><For each=ids key=|id| *id children=row /></tbody>
                </table>
            </div>
        </section>
    }
}
