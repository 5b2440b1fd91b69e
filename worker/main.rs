//! The page's training worker (CPU backend; WebGPU runs go to `webgpu_worker`, see the library).

fn main() {
    worker::start();
}
