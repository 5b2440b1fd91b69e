//! Whether this worker has WebGPU, asked asynchronously as browsers require: the CPU worker only
//! asks for an adapter (the nested worker brings burn up on it when a run first needs it), the
//! WebGPU worker brings burn's Wgpu backend up.

use engine::device::GpuAdapter;
use wasm_bindgen::prelude::*;
#[cfg(not(feature = "wgpu"))]
use wasm_bindgen_futures::JsFuture;
use web_sys::DedicatedWorkerGlobalScope;

#[cfg(not(feature = "wgpu"))]
use crate::js_error::describe;

/// Brings up WebGPU in this worker, asynchronously as browsers require: the adapter's description,
/// or why there is none.
#[cfg(feature = "wgpu")]
pub(crate) async fn init_webgpu(scope: &DedicatedWorkerGlobalScope) -> Result<GpuAdapter, String> {
    navigator_gpu(scope)?;
    engine::device::init_webgpu().await
}

/// This worker's `navigator.gpu`, or why there is none.
fn navigator_gpu(scope: &DedicatedWorkerGlobalScope) -> Result<JsValue, String> {
    let gpu = js_sys::Reflect::get(&scope.navigator(), &"gpu".into()).unwrap_or(JsValue::UNDEFINED);
    match gpu.is_undefined() {
        true => Err("navigator.gpu is missing in workers (WebGPU is off or unsupported in this browser)".into()),
        false => Ok(gpu),
    }
}

/// Asks the browser for a WebGPU adapter (the nested worker brings burn up on it when first
/// needed); the adapter, or why there is none.
#[cfg(not(feature = "wgpu"))]
pub(crate) async fn init_webgpu(scope: &DedicatedWorkerGlobalScope) -> Result<GpuAdapter, String> {
    let gpu = navigator_gpu(scope)?;
    let request_adapter: js_sys::Function = js_sys::Reflect::get(&gpu, &"requestAdapter".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("navigator.gpu has no requestAdapter")?;
    let promise = request_adapter.call0(&gpu).map_err(|e| format!("requestAdapter failed: {}", describe(&e)))?;
    let adapter = JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| format!("requestAdapter failed: {}", describe(&e)))?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err("the browser offers WebGPU but no adapter (no usable GPU, or it is blocklisted)".into());
    }
    let info = js_sys::Reflect::get(&adapter, &"info".into()).unwrap_or(JsValue::UNDEFINED);
    let field =
        |name: &str| js_sys::Reflect::get(&info, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    let names: Vec<String> =
        ["vendor", "architecture", "description"].into_iter().map(field).filter(|n| !n.is_empty()).collect();
    let description = match names.is_empty() {
        true => "an unnamed adapter".into(),
        false => names.join(" "),
    };
    let software = js_sys::Reflect::get(&info, &"isFallbackAdapter".into()).is_ok_and(|v| v.is_truthy());
    Ok(GpuAdapter { description, software })
}
