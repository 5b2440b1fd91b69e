//! A teacher's options for a pane's links (`engine::share::teaching`): whether the link opens the
//! page on this pane alone, and which controls of the pane's form it hides or locks.

use engine::share::{FormControl, Pane, Teaching};
use leptos::prelude::*;

/// The options the next link of a pane carries, as the teacher sets them.
#[derive(Clone, Copy)]
pub struct TeacherChoice<C: FormControl + Send + Sync> {
    focus: RwSignal<bool>,
    hidden: RwSignal<Vec<C>>,
    locked: RwSignal<Vec<C>>,
    pane: Pane,
}

impl<C: FormControl + Send + Sync> TeacherChoice<C> {
    /// Nothing chosen yet, for the links of `pane`.
    pub fn new(pane: Pane) -> Self {
        Self { focus: RwSignal::new(false), hidden: RwSignal::new(Vec::new()), locked: RwSignal::new(Vec::new()), pane }
    }

    /// What a link made now carries (tracked, so that a shown link follows the choice).
    pub fn teaching(self) -> Teaching<C> {
        Teaching { focus: self.focus.get().then_some(self.pane), hidden: self.hidden.get(), locked: self.locked.get() }
    }
}

/// The options, in a `<details>` with id `{prefix}teacher`; each checkbox's id is
/// `{prefix}focus`, `{prefix}hide-{control}` or `{prefix}lock-{control}`.
#[component]
pub fn TeacherOptions<C: FormControl + Send + Sync>(
    choice: TeacherChoice<C>,
    prefix: &'static str,
    /// What the options apply to ("Links made with a run's Share button").
    applies_to: &'static str,
) -> impl IntoView {
    let toggles = move |list: RwSignal<Vec<C>>, kind: &'static str| {
        C::ALL
            .iter()
            .map(|&c| {
                view! {
                    <label class="inline">
                        <input type="checkbox" id=format!("{prefix}{kind}-{}", c.name()) on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            list.update(|l| { l.retain(|x| *x != c); if on { l.push(c) } });
                        } />
                        {c.name()}
                    </label>
                }
            })
            .collect_view()
    };
    let focus = choice.focus;
    view! {
        <details id=format!("{prefix}teacher") class="teacher">
            <summary>"Share options for teachers"</summary>
            <p class="hint">{applies_to}" will open the page as set here, for a reduced demo."</p>
            <label class="inline">
                <input type="checkbox" id=format!("{prefix}focus") on:change=move |ev| focus.set(event_target_checked(&ev)) />
                {format!("Show the {} pane alone (the rest folded away behind one button)", choice.pane.label())}
            </label>
            <fieldset><legend>"Hide"</legend>{toggles(choice.hidden, "hide")}</fieldset>
            <fieldset><legend>"Lock"</legend>{toggles(choice.locked, "lock")}</fieldset>
        </details>
    }
}
