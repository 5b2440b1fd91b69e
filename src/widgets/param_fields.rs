//! A folded section of hyperparameter inputs, one per field of an engine parameter struct: the run
//! form, the search form and the StepCoder form show their parameters with it.

use engine::params::{Field, Kind};
use leptos::prelude::*;

/// A folded section with one input per parameter field, explained by its doc comment; `texts`
/// holds what is typed.
#[component]
pub fn ParamFields(
    id: &'static str,
    title: &'static str,
    /// Where the defaults come from, in words.
    defaults: &'static str,
    /// Prefix of the inputs' element ids.
    id_prefix: &'static str,
    fields: Memo<Vec<Field>>,
    texts: RwSignal<Vec<String>>,
    hidden: bool,
    locked: bool,
) -> impl IntoView {
    let field_view = move |(index, field): (usize, Field)| {
        let id = format!("{id_prefix}-{}", field.name().replace('.', "-"));
        let value = move || texts.with(|t| t.get(index).cloned().unwrap_or_default());
        let set = move |text: String| {
            texts.update(|t| {
                if let Some(slot) = t.get_mut(index) {
                    *slot = text
                }
            })
        };
        let input = if field.kind == Kind::Bool {
            view! {
                <input type="checkbox" id=id.clone() prop:checked=move || value() == "true"
                    on:change=move |ev| set(event_target_checked(&ev).to_string()) />
            }
            .into_any()
        } else {
            let mode = if matches!(field.kind, Kind::Number | Kind::SingleNumber) { "decimal" } else { "numeric" };
            view! {
                <input id=id.clone() inputmode=mode autocomplete="off" prop:value=value
                    on:input=move |ev| set(event_target_value(&ev)) />
            }
            .into_any()
        };
        view! {
            <div class="param">
                <label for=id>{field.name()}</label>
                {input}
                <small>{field.description.clone()}</small>
            </div>
        }
    };
    view! {
        <details id=id hidden=hidden>
            <summary>{format!("{title} ({defaults})")}</summary>
            <fieldset class="params" disabled=locked>
                <legend class="visually-hidden">{title}</legend>
                {move || fields.get().into_iter().enumerate().map(field_view).collect_view()}
            </fieldset>
        </details>
    }
}
