//! The playground page. Training happens in the worker (`worker/`); this thread only renders and
//! exchanges protocol messages with it, so the page never waits on a run.

mod about;
mod live;
mod nav;
mod python;
mod results;
mod search;
mod services;
mod stepcoder;
mod train;
mod widgets;

use engine::device::GpuAdapter;
use engine::protocol::FromWorker;
use engine::share::Pane;
use leptos::prelude::*;

use crate::about::About;
use crate::live::LivePanel;
use crate::nav::{PaneNav, Shown};
use crate::python::PythonPane;
use crate::results::ResultsPane;
use crate::search::SearchPane;
use crate::services::links::OpenedLink;
use crate::services::llm_choice::LlmChoice;
use crate::services::model::RunData;
use crate::services::offline;
use crate::services::python_pool::Python;
use crate::services::run_book::RunBook;
use crate::services::storage::ImportedTasks;
use crate::services::worker_bridge::WorkerBridge;
use crate::stepcoder::StepcoderPane;
use crate::train::TrainPane;
use crate::train::share_panel::Sharing;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let (ready, set_ready) = signal(false);
    // The worker's WebGPU adapter, or why it has none; `None` while it is being brought up.
    let (webgpu, set_webgpu) = signal(None::<Result<GpuAdapter, String>>);
    let error = RwSignal::new(None::<String>);
    let opened = OpenedLink::read(error);
    let shown = Shown::provide(&opened);
    let hidden = move |pane: Pane| move || !shown.shows(pane);
    let OpenedLink { run: link, search: search_link, ablation: ablation_link, training: training_link } = opened;

    let runs = RwSignal::new(Vec::<RunData>::new());
    let bridge = WorkerBridge::provide(runs, error, move |message| match message {
        FromWorker::Ready => set_ready.set(true),
        FromWorker::WebGpu { adapter } => set_webgpu.set(Some(adapter.clone())),
        FromWorker::Failed { run_id, message } => error.set(Some(match run_id {
            Some(id) => format!("run #{id}: {message}"),
            None => message.clone(),
        })),
        _ => {}
    });
    let book = RunBook::provide(runs, bridge, error);
    Sharing::provide(book);
    LlmChoice::provide();

    let update_ready = RwSignal::new(false);
    let isolation_ready = RwSignal::new(false);
    offline::register(update_ready, isolation_ready);
    Python::provide();
    ImportedTasks::provide(error);
    let shared_results = link.as_ref().and_then(|l| Some((l.spec.clone(), l.results.clone()?)));

    view! {
        <p id="update" class="banner" role="status" hidden=move || !update_ready.get()>
            "A new version of the playground is ready. "
            <button type="button" id="apply-update" on:click=|_| offline::apply_update()>"Reload to update"</button>
        </p>
        <p id="isolation" class="banner" role="status" hidden=move || !isolation_ready.get()>
            "After a reload this page can interrupt a runaway Python program instead of restarting Python. "
            <button type="button" id="apply-isolation" on:click=|_| drop(window().location().reload())>"Reload"</button>
        </p>
        <header>
            <h1>"RL for LLM code generation"</h1>
            <p class="tagline">
                "Train agents that decide how to drive a code-writing LLM: when to generate, test, debug or search, "
                "and which agent to call next. Everything runs in your browser, in a background worker."
            </p>
        </header>
        <PaneNav />
        <p id="focus-note" class="banner" role="status" hidden=move || shown.focus.get().is_none()>
            {move || shown.focus.get().map(|pane| match pane {
                Pane::Train => "This link shows the Train pane and its results alone. ".to_owned(),
                _ => format!("This link shows the {} pane alone. ", pane.label()),
            })}
            <button type="button" id="show-everything" on:click=move |_| shown.focus.set(None)>"Show the other panes"</button>
        </p>
        <main>
            <div data-pane=Pane::Train.name() hidden=hidden(Pane::Train)><TrainPane link=link ready=ready webgpu=webgpu error=error /></div>
            <div data-pane=Pane::Results.name() hidden=hidden(Pane::Results)><ResultsPane shared=shared_results error=error /></div>
            <div data-pane=Pane::Python.name() hidden=hidden(Pane::Python)><PythonPane /></div>
            <div data-pane=Pane::Live.name() hidden=hidden(Pane::Live)><LivePanel /></div>
            <div data-pane=Pane::Search.name() hidden=hidden(Pane::Search)><SearchPane link=search_link /></div>
            <div data-pane=Pane::Stepcoder.name() hidden=hidden(Pane::Stepcoder)><StepcoderPane link=ablation_link training_link=training_link webgpu=webgpu /></div>
            <div data-pane=Pane::About.name() hidden=hidden(Pane::About)><About /></div>
        </main>
    }
}
