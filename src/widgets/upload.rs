//! Reading files the user picks or drops (task files, exported runs).

use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlInputElement};

/// The file chosen in a file input; the input is cleared so that choosing the same file again is
/// a new choice.
pub fn picked(ev: &leptos::ev::Event) -> Option<File> {
    let input: HtmlInputElement = event_target(ev);
    let file = input.files().and_then(|files| files.get(0));
    input.set_value("");
    file
}

/// Reads `file` as text; `on_text` gets its name and its text, or why it could not be read.
pub fn read_text(file: File, on_text: impl FnOnce(String, Result<String, String>) + 'static) {
    let name = file.name();
    leptos::task::spawn_local(async move {
        let text = JsFuture::from(file.text())
            .await
            .map(|text| text.as_string().unwrap_or_default())
            .map_err(|e| format!("{name} could not be read: {}.", crate::services::js_error::describe(&e)));
        on_text(name, text);
    });
}
