//! Moving between the page's panes. When the address's fragment holds a share link, in-page links
//! scroll to their pane without replacing it, so a reload of the address still reopens the shared
//! run; otherwise they are ordinary anchors.

use engine::share::{Pane, is_link_fragment};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The links to the panes; it also makes every in-page link (`#seed-000`) keep a share link in the
/// address.
#[component]
pub fn PaneNav(
    /// While a teacher's link shows one pane alone.
    hidden: Signal<bool>,
) -> impl IntoView {
    window_event_listener(leptos::ev::click, |ev| {
        if !is_link_fragment(&window().location().hash().unwrap_or_default()) {
            return;
        }
        let Some(link) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("a[href^='#']").ok().flatten())
        else {
            return;
        };
        let id = link.get_attribute("href").unwrap_or_default();
        if let Some(target) = document().get_element_by_id(id.trim_start_matches('#')) {
            ev.prevent_default();
            target.scroll_into_view();
        }
    });
    view! {
        <nav id="panes" aria-label="Panes" hidden=hidden>
            {Pane::ALL.iter().map(|&pane| view! { <a href=format!("#{}", pane.name())>{pane.label()}</a> }).collect_view()}
        </nav>
    }
}
