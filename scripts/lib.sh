# Sourced by the scripts: puts the npm-installed wasm-opt first on PATH (Debian's binaryen breaks
# wasm-bindgen 0.2.130 output) and tells Trunk to use the installed tools without asking GitHub.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true

# Every script builds into one folder outside the clone, so that a developer's runs of serve and
# test warm CI's build (CI runs in a fresh clone on a machine kept between runs) and clones share it.
# A CARGO_TARGET_DIR set by the machine wins.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rlcg-playground/target}"
mkdir -p "$CARGO_TARGET_DIR"
# Each clone path adds its own copies of the project's crates; start anew before the disk fills.
if [ "$(df --output=avail -BG "$CARGO_TARGET_DIR" | tail -1 | tr -dc 0-9)" -lt 20 ]; then
  echo "less than 20 GB free: emptying the build folder $CARGO_TARGET_DIR"
  rm -rf "$CARGO_TARGET_DIR"
  mkdir -p "$CARGO_TARGET_DIR"
fi

# The page the end-to-end tests drive is built into a folder of its own, not dist/, which
# `trunk serve` (scripts/serve) writes with its live-reload script: the tests pass while the page is
# being served from the same clone. e2e/page-folder.mjs reads it.
export TEST_PAGE_DIR="build/test-page"

# The page's wasm builds go to a folder of their own inside it: cargo locks its whole build folder
# while it compiles, and the native tests must be able to run while Trunk builds the page.
export WASM_TARGET_DIR="$CARGO_TARGET_DIR/wasm"

# Each step says how long the calling script has run, so a slow CI run shows where its time went.
step() { printf '\n==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# Runs a command in the background with its output kept (`start_background NAME COMMAND…`);
# `finish_background NAME` waits for it, prints its output, and stops the script if it failed.
declare -A BACKGROUND_PID BACKGROUND_LOG
start_background() {
  local name=$1
  shift
  BACKGROUND_LOG[$name]=$(mktemp)
  "$@" >"${BACKGROUND_LOG[$name]}" 2>&1 &
  BACKGROUND_PID[$name]=$!
}
finish_background() {
  local status=0
  wait "${BACKGROUND_PID[$1]}" || status=$?
  cat "${BACKGROUND_LOG[$1]}"
  [ $status = 0 ] || { echo "$1 failed (exit $status)"; exit $status; }
}

# Builds the page with Trunk into a folder (`build_page DIR TRUNK_FLAGS…`): scripts/dist (and with it
# the GitHub Pages workflow) into dist/ with --release (wasm-opt), scripts/test into its own folder.
build_page() {
  local dist=$1
  shift
  CARGO_TARGET_DIR="$WASM_TARGET_DIR" trunk build --offline --dist "$dist" "$@"
}

# Builds the page's three wasm binaries the way Trunk does for index.html's `rel="rust"` links (same
# manifest, binary, features and profile, so Trunk then finds them built): serve and test run this
# while trunk and wasm-bindgen-cli are still compiling.
build_page_binaries() {
  local cargo_build=(env CARGO_TARGET_DIR="$WASM_TARGET_DIR" cargo build --locked --offline --target wasm32-unknown-unknown --profile "$1")
  "${cargo_build[@]}" --manifest-path Cargo.toml --bin rlcg-app
  "${cargo_build[@]}" --manifest-path Cargo.toml --bin worker
  "${cargo_build[@]}" --manifest-path Cargo.toml --bin webgpu_worker --features wgpu
}
