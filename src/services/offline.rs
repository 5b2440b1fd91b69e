//! Offline use: registers the service worker (`static/sw.js`) and tells the page when a newer build
//! is installed and waiting, so the user can switch to it. On a host that sends no cross-origin
//! isolation headers the worker adds them, which takes effect on the page's next load.

use std::cell::Cell;
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ServiceWorker, ServiceWorkerRegistration, ServiceWorkerState};

use crate::services::python_worker::cross_origin_isolated;

/// The tab session's mark that the page reloaded itself once for isolation.
const RELOADED_FOR_ISOLATION: &str = "rlcg-reloaded-for-isolation";

/// Registers the service worker; `update_ready` turns true when a new version waits to take over,
/// and `isolation_ready` when a reload would make the page cross-origin isolated.
pub fn register(update_ready: RwSignal<bool>, isolation_ready: RwSignal<bool>) {
    let container = window().navigator().service_worker();
    if !cross_origin_isolated() && container.controller().is_none() {
        isolate_once_controlled(isolation_ready);
    }
    leptos::task::spawn_local(async move {
        // A failure here (no service workers in a private window, a plain-http host) only costs
        // offline use; the page works without it.
        // (Playwright's blocked service workers resolve to undefined.)
        let Ok(Ok(registration)) =
            JsFuture::from(container.register("./sw.js")).await.map(|r| r.dyn_into::<ServiceWorkerRegistration>())
        else {
            return;
        };
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

/// When the service worker first takes control of a page that the host did not isolate, the page
/// reloads to get the headers the worker adds, unless the user has begun using it: then it offers
/// the reload (`isolation_ready`). Once per tab session, so that a browser which cannot isolate the
/// page is not reloaded again and again.
fn isolate_once_controlled(isolation_ready: RwSignal<bool>) {
    let session = window().session_storage().ok().flatten();
    if session.as_ref().is_some_and(|s| s.get_item(RELOADED_FOR_ISOLATION).ok().flatten().is_some()) {
        return;
    }
    let begun = Rc::new(Cell::new(false));
    for event in ["pointerdown", "keydown"] {
        let begun = begun.clone();
        let on_use = Closure::<dyn Fn()>::new(move || begun.set(true));
        drop(window().add_event_listener_with_callback(event, on_use.as_ref().unchecked_ref()));
        on_use.forget();
    }
    let on_control = Closure::<dyn Fn()>::new(move || {
        if begun.get() {
            isolation_ready.set(true);
        } else {
            if let Some(session) = &session {
                drop(session.set_item(RELOADED_FOR_ISOLATION, "yes"));
            }
            drop(window().location().reload());
        }
    });
    window().navigator().service_worker().set_oncontrollerchange(Some(on_control.as_ref().unchecked_ref()));
    on_control.forget();
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
