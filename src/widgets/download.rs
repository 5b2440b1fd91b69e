//! Saving files from the page: a temporary link with a `download` name, clicked.

use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

fn failed(what: &str, error: wasm_bindgen::JsValue) -> String {
    format!("{what} could not be saved: {}.", crate::services::js_error::describe(&error))
}

/// Saves `contents` as a file named `filename`.
pub fn text(filename: &str, mime: &str, contents: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&contents.into());
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|e| failed(filename, e))?;
    let href = Url::create_object_url_with_blob(&blob).map_err(|e| failed(filename, e))?;
    let saved = url(filename, &href);
    // Revoked later: the download may still be reading the blob when the click returns.
    leptos::prelude::set_timeout(move || drop(Url::revoke_object_url(&href)), std::time::Duration::from_secs(10));
    saved
}

/// Saves what `href` (an object or data URL) holds as a file named `filename`.
pub fn url(filename: &str, href: &str) -> Result<(), String> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("the page has no document")?;
    let link: HtmlAnchorElement = document.create_element("a").map_err(|e| failed(filename, e))?.unchecked_into();
    link.set_href(href);
    link.set_download(filename);
    link.click();
    Ok(())
}
