//! The pace of a run, for a class to watch it learn: full speed, or so many episodes a second.
//! Chosen in the run form for the runs it starts, and changed on any run while it trains.

use engine::pace::Pace;
use leptos::prelude::*;

use crate::services::run_book::RunBook;

/// A select of [`Pace::CHOICES`]: run `id`'s pace, or with no `id` the pace new runs start at.
#[component]
pub fn PaceChoice(#[prop(optional)] id: Option<u32>, #[prop(optional, into)] hidden: Signal<bool>) -> impl IntoView {
    let book = expect_context::<RunBook>();
    let current = move || match id {
        Some(id) => book.runs.with(|runs| runs.iter().find(|r| r.id == id).map_or(Pace::Full, |r| r.pace)),
        None => book.pace.get(),
    };
    let choose = move |ev: leptos::ev::Event| {
        let Ok(pace) = Pace::parse(&event_target_value(&ev)) else { return };
        match id {
            Some(id) => book.set_pace(id, pace),
            None => book.pace.set(pace),
        }
    };
    let label = id.map_or_else(|| "Pace of new runs".to_owned(), |id| format!("Pace of run #{id}"));
    view! {
        <select class="pace" id=id.is_none().then_some("pace") aria-label=label title="Episodes a second, to watch the run learn; the records are the same at any pace"
            hidden=hidden prop:value=move || current().key() on:change=choose>
            {Pace::CHOICES.iter().map(|p| view! { <option value=p.key()>{p.label()}</option> }).collect_view()}
        </select>
    }
}
