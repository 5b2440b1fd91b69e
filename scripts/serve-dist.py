#!/usr/bin/env python3
"""Serves a built page (dist/) the way it should be hosted: with the cross-origin isolation headers
that let the page interrupt a runaway Python program (COOP same-origin, COEP require-corp), a
Content-Security-Policy that shuts the Python worker in (depth only: the worker locks itself down on
any host), and the MIME types of JavaScript modules and wasm. The headers are static/headers.json's.
`--no-isolation` sends no headers at all, as a plain static host does (the page's service worker then
adds them).

    python3 scripts/serve-dist.py [--port 8765] [--directory dist] [--no-isolation]
"""

import argparse
import functools
import http.server
import json
import pathlib

HEADERS = json.loads((pathlib.Path(__file__).parent.parent / "static" / "headers.json").read_text())


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
            headers = dict(HEADERS["everywhere"])
            if self.path.startswith("/python/"):
                headers.update(HEADERS["pythonWorker"])
            for name, value in headers.items():
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
