# Sourced by the scripts: puts the npm-installed wasm-opt first on PATH (Debian's binaryen breaks
# wasm-bindgen 0.2.130 output) and tells Trunk to use the installed tools without asking GitHub.
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true

step() { printf '\n==> %s\n' "$*"; }
