//! Offline use: registers the service worker (`static/sw.js`) and tells the page when a newer build
//! is installed and waiting, so the user can switch to it.

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
        let controlled = move || window().navigator().service_worker().controller().is_some();
        if registration.waiting().is_some() && controlled() {
            update_ready.set(true);
        }
        let watched = registration.clone();
        let on_update = Closure::<dyn Fn()>::new(move || {
            let Some(installing) = watched.installing() else { return };
            let worker = installing.clone();
            let on_state = Closure::<dyn Fn()>::new(move || {
                if worker.state() == ServiceWorkerState::Installed && controlled() {
                    update_ready.set(true);
                }
            });
            installing.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
            on_state.forget();
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
    });
}
