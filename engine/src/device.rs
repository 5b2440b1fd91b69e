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
        self.inference_device().map(|device| device.autodiff())
    }

    /// The device without autodiff (a language model's generation), or why this build cannot
    /// offer it.
    pub fn inference_device(self) -> Result<Device, String> {
        match self {
            // burn 0.22 deprecates NdArray in favour of Flex; NdArray is the CPU backend measured here.
            #[allow(deprecated)]
            Backend::Ndarray => Ok(Device::ndarray()),
            #[cfg(all(feature = "wgpu", not(target_family = "wasm")))]
            Backend::Wgpu => native_wgpu(),
            // The browser's worker has brought WebGPU up with `init_webgpu` before any run starts.
            #[cfg(all(feature = "wgpu", target_family = "wasm"))]
            Backend::Wgpu => Ok(Device::wgpu(Default::default())),
            #[cfg(not(feature = "wgpu"))]
            Backend::Wgpu => {
                Err("backend 'wgpu' is not in this build (build the engine with its 'wgpu' feature)".into())
            }
        }
    }

    /// The backend the measurements favour for a learn step of `multiply_adds` (one forward pass
    /// of its batch through the trunk, `AgentSpec::learn_step_multiply_adds`), where the only GPU
    /// there may be is `adapter`: WebGPU from [`WGPU_PAYS_FROM_MULTIPLY_ADDS`] on, on a hardware
    /// adapter only (a software one emulates the GPU on the CPU, far slower than the CPU backend).
    pub fn preferred(multiply_adds: u64, adapter: Option<&GpuAdapter>) -> Backend {
        match adapter {
            Some(gpu) if !gpu.software && multiply_adds >= WGPU_PAYS_FROM_MULTIPLY_ADDS => Backend::Wgpu,
            _ => Backend::Ndarray,
        }
    }
}

/// Where burn's Wgpu backend starts to pay, in multiply-adds of one forward pass of a batch through
/// the trunk (docs/benchmarks.md, "At larger batches"): natively on an H200 against two CPU cores, a
/// learn step tied at 46 M (the seed's network at batch 64: 27 ms against 25) and was 4.7× faster
/// at 371 M (batch 512). WebGPU is preferred from twice the tie. A browser's own overheads were not
/// measured on a GPU (no browser could be brought to one).
pub const WGPU_PAYS_FROM_MULTIPLY_ADDS: u64 = 92_000_000;

/// A WebGPU adapter as the training worker found it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuAdapter {
    /// Its names as the browser or the driver gives them.
    pub description: String,
    /// A software adapter (SwiftShader, llvmpipe: WebGPU's fallback adapters).
    pub software: bool,
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
/// made there; returns the adapter.
#[cfg(feature = "wgpu")]
pub async fn init_webgpu() -> Result<GpuAdapter, String> {
    let (_, setup) = Device::wgpu_options().init_with_setup_async().await.map_err(|e| e.to_string())?;
    let info = setup.adapter.get_info();
    // Browsers may leave the adapter's names empty, for privacy.
    let names: Vec<&str> = [info.name.as_str(), info.driver.as_str()].into_iter().filter(|n| !n.is_empty()).collect();
    let description = match names.is_empty() {
        true => format!("an unnamed {:?} adapter", info.backend),
        false => format!("{} ({:?})", names.join(", "), info.backend),
    };
    Ok(GpuAdapter { description, software: info.device_type == burn::tensor::wgpu::wgpu::DeviceType::Cpu })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webgpu_is_preferred_past_the_measured_crossover_on_a_hardware_adapter_only() {
        let gpu = GpuAdapter { description: "NVIDIA H200".into(), software: false };
        let swiftshader = GpuAdapter { description: "google swiftshader".into(), software: true };
        // The seed's network: 1158 inputs, trunk [512, 256]: 723,968 multiply-adds a transition.
        let (seed_64, seed_128, seed_512) = (723_968 * 64, 723_968 * 128, 723_968 * 512);
        assert_eq!(Backend::preferred(seed_64, Some(&gpu)), Backend::Ndarray, "46 M: the measured tie");
        assert_eq!(Backend::preferred(seed_128, Some(&gpu)), Backend::Wgpu, "93 M: past twice the tie");
        assert_eq!(Backend::preferred(seed_512, Some(&gpu)), Backend::Wgpu);
        assert_eq!(Backend::preferred(seed_512, Some(&swiftshader)), Backend::Ndarray);
        assert_eq!(Backend::preferred(seed_512, None), Backend::Ndarray);
        // The playground's network at the page's largest batch: 5504 × 1024 = 5.6 M.
        assert_eq!(Backend::preferred(5504 * 1024, Some(&gpu)), Backend::Ndarray);
    }
}
