//! Browser failures in words. A `JsValue` printed with `{:?}` shows `JsValue(…)` wrappers and
//! `undefined`; users get the error's own message instead.

use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// The message of an `Error` or `DOMException` (with its name when that says more, as
/// `QuotaExceededError` does), the text of a thrown string, or a plain "no reason".
pub fn describe(error: &JsValue) -> String {
    let field = |key: &str| Reflect::get(error, &key.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    let (name, message) = (field("name"), field("message"));
    let text = match error.as_string() {
        Some(text) => text,
        None if name.is_empty() || name == "Error" => message,
        None if message.is_empty() => name,
        None => format!("{name}: {message}"),
    };
    let text = text.trim().trim_end_matches("undefined").trim().trim_end_matches('.').to_owned();
    if text.is_empty() { "the browser gave no reason".to_owned() } else { text }
}
