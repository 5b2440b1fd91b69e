//! Link flags for the page's wasm binaries (the app and its two workers).

fn main() {
    // Without this, cargo would run the script again, and rebuild the page, when any file of the
    // repository changed.
    println!("cargo::rerun-if-changed=build.rs");
    // Cargo.toml's `page` profile strips them (`strip = "symbols"`: the wasm `name` section, every
    // function's name, is 1.9 MB that visitors would download for nothing), which would also drop
    // the `target_features` section that wasm-bindgen reads to know which wasm features the module
    // uses (reference types). The linker keeps that one section.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-bins=--keep-section=target_features");
    }
}
