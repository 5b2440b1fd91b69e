//! A teacher's options for a share link: which controls of the form the link hides or locks.

use engine::share::Control;
use leptos::prelude::*;

use crate::train::share_panel::Sharing;

/// What a shared link hides or locks: for handing out a reduced demo.
#[component]
pub fn TeacherOptions() -> impl IntoView {
    let Sharing { hidden, locked, .. } = expect_context::<Sharing>();
    let toggles = move |list: RwSignal<Vec<Control>>, kind: &'static str| {
        Control::ALL
            .iter()
            .map(|&c| {
                view! {
                    <label class="inline">
                        <input type="checkbox" id=format!("{kind}-{}", c.name()) on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            list.update(|l| { l.retain(|x| *x != c); if on { l.push(c) } });
                        } />
                        {c.name()}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <details id="teacher">
            <summary>"Share options for teachers"</summary>
            <p class="hint">"Links made with the Share button of a run will hide or lock these controls, for a reduced demo."</p>
            <fieldset><legend>"Hide"</legend>{toggles(hidden, "hide")}</fieldset>
            <fieldset><legend>"Lock"</legend>{toggles(locked, "lock")}</fieldset>
        </details>
    }
}
