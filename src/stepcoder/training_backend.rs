//! "Train the model"'s backend: the training worker's CPU, or WebGPU in its nested worker. The
//! page picks by the run form's crossover rule (`Backend::preferred`) on one PPO batch of the
//! chosen model, until a person picks (a link's backend stands); the note says what the page knows
//! of the adapter and why it picked.

use engine::device::{Backend, GpuAdapter, WGPU_PAYS_FROM_MULTIPLY_ADDS};
use leptos::prelude::*;

/// What the page knows of WebGPU here, and why the backend is what it is.
fn note(webgpu: Option<Result<GpuAdapter, String>>, work: Option<u64>) -> String {
    let gpu = match webgpu {
        None => return "Looking for a WebGPU adapter in the training worker…".into(),
        Some(Err(why)) => return format!("WebGPU is unavailable here ({why}): the model trains on the CPU."),
        Some(Ok(gpu)) => gpu,
    };
    let software = match gpu.software {
        true => ", a software one (it runs the GPU's work on the CPU, slower than the CPU backend)",
        false => "",
    };
    let batch = work.map(|w| {
        format!("One PPO batch here is {:.0} M multiply-adds (parameters × rollouts × reply tokens). ", w as f64 / 1e6)
    });
    format!(
        "WebGPU adapter: {}{software}. {}The page picks WebGPU from {:.0} M on a hardware adapter, until you pick: the crossover \
         measured for the DQN's learn step (natively on an H200), not yet measured for a language model (no GPU was lent). \
         WebGPU computes in f32 as the CPU does, in another order: its records, and their fingerprint, are its own.",
        gpu.description,
        batch.unwrap_or_default(),
        WGPU_PAYS_FROM_MULTIPLY_ADDS as f64 / 1e6
    )
}

#[component]
pub fn TrainingBackend(
    backend: RwSignal<Backend>,
    /// The training worker's WebGPU adapter, or why it has none; `None` until it knows.
    webgpu: ReadSignal<Option<Result<GpuAdapter, String>>>,
    /// One PPO batch of the chosen model in multiply-adds (`ModelPpoParams::batch_multiply_adds`);
    /// `None` while a setting does not parse.
    work: Signal<Option<u64>>,
    /// Opened from a link: its backend stands until a person picks another.
    from_link: bool,
) -> impl IntoView {
    let picked = RwSignal::new(from_link);
    Effect::new(move |_| {
        let adapter = webgpu.with(|w| w.as_ref().and_then(|found| found.as_ref().ok()).cloned());
        if let Some(work) = work.get()
            && !picked.get_untracked()
        {
            backend.set(Backend::preferred(work, adapter.as_ref()));
        }
    });
    view! {
        <label>"Backend"
            <select id="model-train-backend" aria-describedby="model-train-backend-note" prop:value=move || backend.get().name()
                on:change=move |ev| {
                    if let Ok(picked_backend) = Backend::parse(&event_target_value(&ev)) {
                        picked.set(true);
                        backend.set(picked_backend);
                    }
                }>
                <option value="ndarray">"CPU (burn NdArray)"</option>
                <option value="wgpu" disabled=move || !matches!(webgpu.get(), Some(Ok(_)))>"WebGPU (burn Wgpu, in a nested worker)"</option>
            </select>
        </label>
        <p id="model-train-backend-note" class="hint">{move || note(webgpu.get(), work.get())}</p>
    }
}
