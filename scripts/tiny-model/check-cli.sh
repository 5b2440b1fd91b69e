#!/usr/bin/env bash
# The CLI with the model file that the page runs in the tab, through an OpenAI-compatible local
# server (llama-cpp-python's, from PyPI; docs/guide.md): seed 003's validation and calibration
# and a GIF-MCTS search, every program written by the fixture, must pass. Not part of
# scripts/test: pip compiles llama.cpp from source here (about 12 minutes on 2 cores).
#   scripts/tiny-model/check-cli.sh [RLCG]    RLCG: the rlcg binary (default: the debug build)
# LLAMA_VENV (default /tmp/llama-cpp-python): where llama-cpp-python is, or is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
rlcg=${1:-$CARGO_TARGET_DIR/debug/rlcg}
venv=${LLAMA_VENV:-/tmp/llama-cpp-python}
if ! "$venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
  python3 -m venv "$venv"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF" \
    "$venv/bin/pip" install -q 'llama-cpp-python[server]==0.3.36'
fi
port=8789
"$venv/bin/python" -m llama_cpp.server --model e2e/fixtures/tiny-coder.gguf --port $port --n_ctx 4096 \
  >"${TMPDIR:-/tmp}/llama-server.log" 2>&1 &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 1; done
llm=(--llm custom --base-url "http://127.0.0.1:$port/v1" --model tiny-coder)

echo "seed 003's validation, calibrated and validated again (rlcg live --recalibrate):"
"$rlcg" live --env orchestrator --tasks seed003 --recalibrate "${llm[@]}" | tail -n 1 | tee /dev/stderr \
  | grep -q '^seed 003 §6.2: live success of the learned policy 100% → 100%'
echo "GIF-MCTS on binary_search (rlcg search):"
"$rlcg" search --no-autopep8 --method gif-mcts --task binary_search --budget 8 "${llm[@]}" --json \
  | python3 -c 'import json, sys; r = json.load(sys.stdin); print("best score", r["best_score"]); sys.exit(r["best_score"] != 1.0)'
echo "the fixture served by llama-cpp-python wrote every program: pass"
