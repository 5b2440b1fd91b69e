# Sourced by the scripts: puts the npm-installed wasm-opt first on PATH (Debian's binaryen breaks
# wasm-bindgen 0.2.130 output) and tells Trunk to use the installed tools without asking GitHub.
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true

# Each step says how long the calling script has run, so a slow CI run shows where its time went.
step() { printf '\n==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
