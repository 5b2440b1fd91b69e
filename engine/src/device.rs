//! Where the DQN computes, and how its values come back: the backend choice, WebGPU's
//! initialisation, and the bridges from the engine's futures to callers that cannot wait. Kept apart
//! from the algorithm (as burn's web example keeps its device in a file of its own), so that
//! `agents/dqn.rs` reads as the seed's listings.

use burn::tensor::{Device, TensorData};
use serde::{Deserialize, Serialize};

/// Where the networks run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// burn's NdArray backend on the CPU, natively and in wasm.
    #[default]
    Ndarray,
    /// burn's Wgpu backend (WebGPU in the browser); builds with the engine's `wgpu` feature.
    Wgpu,
}

impl Backend {
    pub const ALL: [Backend; 2] = [Backend::Ndarray, Backend::Wgpu];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Ndarray => "ndarray",
            Backend::Wgpu => "wgpu",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| format!("unknown backend '{name}'; valid: ndarray, wgpu"))
    }

    /// The training device (with autodiff), or why this build cannot offer it.
    pub fn device(self) -> Result<Device, String> {
        match self {
            // burn 0.22 deprecates NdArray in favour of Flex; NdArray is the CPU backend measured here.
            #[allow(deprecated)]
            Backend::Ndarray => Ok(Device::ndarray().autodiff()),
            #[cfg(all(feature = "wgpu", not(target_family = "wasm")))]
            Backend::Wgpu => native_wgpu().map(|device| device.autodiff()),
            // The browser's worker has brought WebGPU up with `init_webgpu` before any run starts.
            #[cfg(all(feature = "wgpu", target_family = "wasm"))]
            Backend::Wgpu => Ok(Device::wgpu(Default::default()).autodiff()),
            #[cfg(not(feature = "wgpu"))]
            Backend::Wgpu => {
                Err("backend 'wgpu' is not in this build (build the engine with its 'wgpu' feature)".into())
            }
        }
    }
}

/// The native Wgpu device, brought up once per process: a machine without a usable adapter gets
/// a message here, instead of burn's panic at the first tensor.
#[cfg(all(feature = "wgpu", not(target_family = "wasm")))]
fn native_wgpu() -> Result<Device, String> {
    static DEVICE: std::sync::OnceLock<Result<Device, String>> = std::sync::OnceLock::new();
    DEVICE
        .get_or_init(|| match Device::wgpu_options().init() {
            Ok(device) => Ok(device),
            // Brought up already (by `init_webgpu`, or a tensor made on the lazy device): use it.
            Err(burn::tensor::wgpu::WgpuInitError::Registration { .. }) => Ok(Device::wgpu(Default::default())),
            Err(problem) => Err(format!(
                "no WebGPU/Vulkan adapter was found ({problem}); `--backend ndarray` trains every agent on the CPU"
            )),
        })
        .clone()
}

/// Brings WebGPU up for [`Backend::Wgpu`], asynchronously as browsers require before any tensor is
/// made there; returns the adapter's description.
#[cfg(feature = "wgpu")]
pub async fn init_webgpu() -> Result<String, String> {
    let (_, setup) = Device::wgpu_options().init_with_setup_async().await.map_err(|e| e.to_string())?;
    let info = setup.adapter.get_info();
    // Browsers may leave the adapter's names empty, for privacy.
    let names: Vec<&str> = [info.name.as_str(), info.driver.as_str()].into_iter().filter(|n| !n.is_empty()).collect();
    Ok(match names.is_empty() {
        true => format!("an unnamed {:?} adapter", info.backend),
        false => format!("{} ({:?})", names.join(", "), info.backend),
    })
}

/// The output of an engine future, for callers that cannot wait: every computation on the CPU, and
/// natively on a GPU, completes at once. A browser cannot block on its GPU, so the training worker
/// drives a WebGPU run through the `_async` methods and reads its policy from a CPU copy.
pub fn completed<F: Future>(future: F) -> F::Output {
    burn::tensor::try_read_sync(future)
        .expect("a WebGPU run in the browser is driven through the engine's async methods, which never block")
}

/// [`completed`] for a computation that fails only when its device does.
pub(crate) fn resolved<T>(future: impl Future<Output = Result<T, String>>) -> T {
    completed(future).unwrap_or_else(|problem| panic!("{problem}"))
}

/// A read-back's values as f32.
pub(crate) fn f32_values(data: Result<TensorData, burn::tensor::ExecutionError>) -> Result<Vec<f32>, String> {
    let data = data.map_err(|e| format!("cannot read values back from the device: {e:?}"))?;
    data.try_into_vec::<f32>().map_err(|e| format!("the device returned values that are not f32: {e:?}"))
}
