//! The page's routes: one pane on screen at a time, named in the address (`#/search`, read by
//! `engine::share::route`) with the link the page was opened with kept after it, so that reloading
//! or bookmarking any pane reopens that pane with the same link and starts nothing. The browser's
//! back and forward buttons move between the panes visited.

use engine::share::Pane;
use engine::share::route::Route;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::services::links::OpenedLink;

/// Which pane the page shows, from context.
#[derive(Clone, Copy)]
pub struct Shown {
    /// The pane the address's route names.
    pub route: RwSignal<Pane>,
    /// A teacher's link's pane, shown alone and without the nav until the user asks for the rest.
    pub focus: RwSignal<Option<Pane>>,
    /// The link in the address, carried from route to route.
    link: RwSignal<String>,
}

fn address_fragment() -> String {
    window().location().hash().unwrap_or_default()
}

impl Shown {
    /// Reads the route from the address, writes it back in its current form (older addresses were a
    /// bare link or `#search`), and follows the address from then on.
    pub fn provide(opened: &OpenedLink) -> Self {
        let route = Route::parse(&address_fragment());
        let focus = opened.focus();
        let pane = route.pane.or(focus).unwrap_or_else(|| opened.pane());
        let shown = Self { route: RwSignal::new(pane), focus: RwSignal::new(focus), link: RwSignal::new(route.link) };
        if address_fragment() != shown.href(pane)
            && let Ok(history) = window().history()
        {
            drop(history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&shown.href(pane))));
        }
        window_event_listener(leptos::ev::hashchange, move |_| shown.follow_address());
        window_event_listener(leptos::ev::click, move |ev| shown.follow_anchor(&ev));
        provide_context(shown);
        shown
    }

    /// Whether `pane` is on screen.
    pub fn shows(self, pane: Pane) -> bool {
        self.focus.get().unwrap_or(self.route.get()).shows(pane)
    }

    /// The address of `pane`'s route, carrying the page's link.
    fn href(self, pane: Pane) -> String {
        format!("#{}", self.link.with(|link| Route::fragment(pane, link)))
    }

    fn follow_address(self) {
        let route = Route::parse(&address_fragment());
        if !route.link.is_empty() && route.link != self.link.get_untracked() {
            // A link edited in the address bar is a fresh start, as if it had been opened.
            return drop(window().location().reload());
        }
        self.link.set(route.link);
        if let Some(pane) = route.pane.filter(|&pane| pane != self.route.get_untracked()) {
            self.route.set(pane);
            window().scroll_to_with_x_and_y(0.0, 0.0);
        }
    }

    /// An in-page anchor (`#seed-000`) is not a route: it shows the pane that holds its target, as
    /// a new entry in the history, and scrolls to the target.
    fn follow_anchor(self, ev: &web_sys::MouseEvent) {
        let Some(anchor) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("a[href^='#']").ok().flatten())
        else {
            return;
        };
        let href = anchor.get_attribute("href").unwrap_or_default();
        if href.starts_with("#/") {
            return;
        }
        let Some(target) = document().get_element_by_id(&href[1..]) else { return };
        ev.prevent_default();
        let holder = target.closest("[data-pane]").ok().flatten().and_then(|e| e.get_attribute("data-pane"));
        if let Some(pane) = holder.and_then(|name| Pane::named(&name))
            && let Ok(history) = window().history()
        {
            drop(history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&untrack(|| self.href(pane)))));
            self.route.set(pane);
        }
        request_animation_frame(move || target.scroll_into_view());
    }
}

/// The links to the panes, which stay on screen; the current one is marked for screen readers.
#[component]
pub fn PaneNav() -> impl IntoView {
    let shown = expect_context::<Shown>();
    view! {
        <nav id="panes" aria-label="Panes" hidden=move || shown.focus.get().is_some()>
            {Pane::ALL
                .iter()
                .map(|&pane| {
                    let current = move || (shown.route.get() == pane).then_some("page");
                    view! {
                        <a href=move || shown.href(pane) data-route=pane.name() aria-current=current>
                            {pane.label()}
                        </a>
                    }
                })
                .collect_view()}
        </nav>
    }
}
