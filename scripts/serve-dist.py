#!/usr/bin/env python3
"""Serves a built page (dist/) the way it should be hosted: with the cross-origin isolation headers
that let the page interrupt a runaway Python program (COOP same-origin, COEP require-corp), a
Content-Security-Policy that shuts the Python worker in (depth only: the worker locks itself down on
any host), and the MIME types of JavaScript modules and wasm. `--no-isolation` sends no headers at
all, to test the page as it behaves on a plain static host.

    python3 scripts/serve-dist.py [--port 8765] [--directory dist] [--no-isolation]
"""

import argparse
import functools
import http.server

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}

# For the Python worker's files: Pyodide evaluates its own glue code and compiles wasm as it loads,
# and fetches its files from this origin; nothing else. No other origin, no data: or blob: code, no
# nested workers, no fonts.
PYTHON_WORKER_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'; connect-src 'self'; "
    "worker-src 'none'; font-src 'none'; img-src 'none'; object-src 'none'"
)


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".webmanifest": "application/manifest+json",
        ".json": "application/json",
        ".py": "text/x-python; charset=utf-8",
    }
    isolation = True

    def end_headers(self):
        if self.isolation:
            for name, value in ISOLATION_HEADERS.items():
                self.send_header(name, value)
            if self.path.startswith("/python/"):
                self.send_header("Content-Security-Policy", PYTHON_WORKER_POLICY)
        super().end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--directory", default="dist")
    parser.add_argument("--no-isolation", action="store_true")
    args = parser.parse_args()
    Handler.isolation = not args.no_isolation
    handler = functools.partial(Handler, directory=args.directory)
    with http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
