//! The nested training worker with burn's Wgpu backend, started by the page's worker for runs on
//! WebGPU (see the library).

fn main() {
    worker::start();
}
