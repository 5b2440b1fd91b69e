#!/usr/bin/env python3
"""Serves a built page (dist/) the way it should be hosted: with the cross-origin isolation headers
that let the page interrupt a runaway Python program (COOP same-origin, COEP require-corp), and the
MIME types of JavaScript modules and wasm. `--no-isolation` leaves the headers out, to test the page
as it behaves on a host that cannot send them.

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
