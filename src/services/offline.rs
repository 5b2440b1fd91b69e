//! Offline use: registers the service worker (`static/sw.js`) and tells the page when a newer build
//! is installed and waiting, so the user can switch to it.

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ServiceWorker, ServiceWorkerRegistration, ServiceWorkerState};

/// Registers the service worker; `update_ready` turns true when a new version waits to take over.
pub fn register(update_ready: RwSignal<bool>) {
    let container = window().navigator().service_worker();
    leptos::task::spawn_local(async move {
        // A failure here (no service workers in a private window, a plain-http host) only costs
        // offline use; the page works without it.
        let Ok(registration) = JsFuture::from(container.register("./sw.js")).await else { return };
        let registration: ServiceWorkerRegistration = registration.unchecked_into();
        // A new worker is offered while it waits, and no longer once it took over (or failed).
        let watch = move |worker: ServiceWorker| {
            let controlled = || window().navigator().service_worker().controller().is_some();
            let watched = worker.clone();
            let on_state = Closure::<dyn Fn()>::new(move || match watched.state() {
                ServiceWorkerState::Installed => update_ready.set(controlled()),
                ServiceWorkerState::Activated | ServiceWorkerState::Redundant => update_ready.set(false),
                _ => {}
            });
            worker.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
            on_state.forget();
        };
        if let Some(waiting) = registration.waiting() {
            update_ready.set(window().navigator().service_worker().controller().is_some());
            watch(waiting);
        }
        let watched = registration.clone();
        let on_update = Closure::<dyn Fn()>::new(move || {
            if let Some(installing) = watched.installing() {
                watch(installing);
            }
        });
        registration.set_onupdatefound(Some(on_update.as_ref().unchecked_ref()));
        on_update.forget();
    });
}

/// Asks the waiting service worker to take over; the page reloads when it has.
pub fn apply_update() {
    let container = window().navigator().service_worker();
    // Once the new worker controls the page, load the page it serves. (Only now: on a first visit
    // the worker also takes control, and that must not reload the page.)
    let reload = Closure::<dyn Fn()>::new(|| drop(window().location().reload()));
    container.set_oncontrollerchange(Some(reload.as_ref().unchecked_ref()));
    reload.forget();
    leptos::task::spawn_local(async move {
        let Ok(registration) = JsFuture::from(container.get_registration()).await else { return };
        let waiting: Option<ServiceWorker> =
            registration.dyn_into::<ServiceWorkerRegistration>().ok().and_then(|r| r.waiting());
        if let Some(waiting) = waiting {
            let _ = waiting.post_message(&JsValue::from_str("skip_waiting"));
        }
        // Chromium activates the new worker only once the old one has no request in flight, and a
        // request of this page can keep it waiting; reloading ends them, and the reloaded page is
        // then handed over (or offered the update again).
        TimeoutFuture::new(5_000).await;
        drop(window().location().reload());
    });
}
