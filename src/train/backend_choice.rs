//! The run form's backend: the CPU or WebGPU, chosen by the measured crossover until a person
//! picks one, with what the page knows of the adapter and why it chose.

use engine::device::{Backend, GpuAdapter, WGPU_PAYS_FROM_MULTIPLY_ADDS};
use leptos::prelude::*;

/// Why the page chose as it did, beside the adapter's description.
fn crossover_note(work: Option<u64>) -> String {
    let from = WGPU_PAYS_FROM_MULTIPLY_ADDS as f64 / 1e6;
    let here = work.map(|w| format!("A learn step here is {:.1} M multiply-adds through the trunk. ", w as f64 / 1e6));
    format!(
        "{}The page picks WebGPU from {from:.0} M, until you pick a backend: natively on an H200 a learn step tied with two CPU cores at 46 M \
         (the seed's network at batch 64, 27 ms against 25) and was 4.7× faster at 371 M (batch 512); at the page's default, 0.4 M, \
         the CPU was 12× faster (docs/benchmarks.md). A browser's own overheads on a GPU were not measured.",
        here.unwrap_or_default()
    )
}

#[component]
pub fn BackendChoice(
    backend: RwSignal<Backend>,
    /// The training worker's WebGPU adapter, or why it has none; `None` until it knows.
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
    /// The form's learn step in multiply-adds (`AgentSpec::learn_step_multiply_adds`); `None` for
    /// a tabular agent or hyperparameters that do not parse.
    work: Signal<Option<u64>>,
    /// Hidden for agents without a network.
    shown: Signal<bool>,
    /// A teacher's link hides or locks the choice.
    hidden: bool,
    locked: bool,
) -> impl IntoView {
    let picked = RwSignal::new(false);
    // As the hyperparameters change, the backend follows the measured crossover, until a person
    // picks one; the form's first values (a link's, the last run's) are kept as they are.
    Effect::new(move |previous: Option<Option<u64>>| {
        let now = work.get();
        if let (Some(before), Some(now)) = (previous, now)
            && before != Some(now)
            && !picked.get_untracked()
        {
            let adapter = webgpu.with_untracked(|w| w.as_ref().and_then(|found| found.as_ref().ok()).cloned());
            backend.set(Backend::preferred(now, adapter.as_ref()));
        }
        now
    });
    view! {
        <label hidden=move || !shown.get() || hidden>"Backend "
            <select id="backend" aria-describedby="backend-note" disabled=locked
                prop:value=move || backend.get().name() on:change=move |ev| {
                if let Ok(b) = Backend::parse(&event_target_value(&ev)) {
                    picked.set(true);
                    backend.set(b);
                }
            }>
                <option value="ndarray">"CPU (burn NdArray)"</option>
                <option value="wgpu" disabled=move || !matches!(webgpu.get(), Some(Ok(_)))>
                    {move || match webgpu.get() {
                        None => "WebGPU (checking…)",
                        Some(Ok(_)) => "WebGPU (burn Wgpu)",
                        Some(Err(_)) => "WebGPU (unavailable)",
                    }}
                </option>
            </select>
        </label>
    }
}

/// What the page knows of WebGPU here, and why the backend is what it is.
#[component]
pub fn BackendNote(
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
    work: Signal<Option<u64>>,
    shown: Signal<bool>,
) -> impl IntoView {
    view! {
        <p id="backend-note" class="hint" hidden=move || !shown.get()>
            {move || match webgpu.get() {
                None => "Looking for a WebGPU adapter in the training worker…".to_owned(),
                Some(Err(why)) => format!("WebGPU is unavailable here: {why}. The CPU backend trains every agent."),
                Some(Ok(adapter)) if adapter.software => format!(
                    "WebGPU adapter: {}, a software one (it runs the GPU's work on the CPU, far slower than the CPU backend), so the page keeps the CPU.",
                    adapter.description
                ),
                Some(Ok(adapter)) => format!("WebGPU adapter: {}. {}", adapter.description, crossover_note(work.get())),
            }}
        </p>
    }
}
