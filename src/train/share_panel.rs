//! Sharing a run: the teacher's choice of what a link focuses, hides or locks, the link of a run (its
//! spec and its results so far, copied to the clipboard), and the panel that shows it.

use engine::share::{Control, Link, Pane, ShareLink, SharedResults};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use crate::services::links::address_with;
use crate::services::run_book::RunBook;
use crate::widgets::teacher_options::TeacherChoice;

/// What the next link focuses, hides and locks, and the last link made; a context service.
#[derive(Clone, Copy)]
pub struct Sharing {
    pub teacher: TeacherChoice<Control>,
    url: RwSignal<Option<String>>,
    /// What the link had to leave out to stay short, and why.
    note: RwSignal<Option<String>>,
    book: RunBook,
}

impl Sharing {
    /// Provides sharing for the runs of `book` as context.
    pub fn provide(book: RunBook) -> Sharing {
        let sharing = Sharing {
            teacher: TeacherChoice::new(Pane::Train),
            url: RwSignal::new(None),
            note: RwSignal::new(None),
            book,
        };
        provide_context(sharing);
        sharing
    }

    /// Makes the link of run `id` and copies it.
    pub fn share(self, id: u32) {
        let Some((spec, results)) = self.book.runs.with_untracked(|r| {
            let run = r.iter().find(|r| r.id == id)?;
            let finished = run.finished.as_deref();
            let table = finished.map_or(&[][..], |f| &f.policy.table[..]);
            Some((run.spec.clone(), SharedResults::of(&run.records, finished.map(|f| &f.greedy), table)))
        }) else {
            return;
        };
        if spec.env.trains_inside_a_model() {
            self.url.set(None);
            return self.note.set(Some(format!(
                "Run #{id} trained inside a code world model, which a link cannot carry (the model is a table over every state): export the run instead."
            )));
        }
        let link = ShareLink { teaching: untrack(|| self.teacher.teaching()), results, ..ShareLink::of(spec) };
        let (fragment, left_out) = link.encode_within_budget();
        let url = address_with(ShareLink::PANE, &fragment);
        copy_to_clipboard(&url);
        self.url.set(Some(url));
        self.note.set(left_out);
    }
}

/// The last link made, to copy by hand where the clipboard refused.
#[component]
pub fn SharePanel() -> impl IntoView {
    let Sharing { url, note, .. } = expect_context::<Sharing>();
    view! {
        <div id="share" class="panel" hidden=move || url.get().is_none() && note.get().is_none()>
            <label hidden=move || url.get().is_none()>"Link to this run (copied to the clipboard): it restores the form, shows the run's results so far and trains the same run again"
                <input id="share-link" readonly prop:value=move || url.get().unwrap_or_default()
                    on:focus=move |ev| { if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { input.select() } } />
            </label>
            <p id="share-note" hidden=move || note.get().is_none()>{move || note.get()}</p>
        </div>
    }
}

/// Copies `text`; a refusal (no permission, no secure context) leaves the link on screen to copy.
fn copy_to_clipboard(text: &str) {
    let ignore_refusal = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| {});
    let _ = window().navigator().clipboard().write_text(text).catch(&ignore_refusal);
    // The promise settles later; the (empty) handler must outlive this call.
    ignore_refusal.forget();
}
