"""The harness's cost per verdict, before and after a change, side by side in one run: the 10 bundled
search tasks' references with 10 tests each, through python3 as `cli/src/python.rs` drives it (one
process, one request per line; no sandbox, which only the CLI sets up), best of 5.
Usage: python3 bench/harness_cost.py [BEFORE_REVISION] (default 989d1c0, the harness before issue 32)."""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = 10


def requests():
    tasks = json.loads((ROOT / "tasks" / "search.json").read_text())["tasks"]
    return [
        {
            "code": "".join(slot["correct"] for slot in task["slots"]),
            "tests": [task["tests"][i % len(task["tests"])] for i in range(TESTS)],
            "coverage": False,
            "analysis": False,
        }
        for task in tasks
    ]


def package_command(folder):
    """python3 on the harness package in `folder` (`static/python`, or a revision's copy of it)."""
    return [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(folder)!r}); import harness; harness.main()"]


def measure(command, label):
    best_wall, best_inside = float("inf"), float("inf")
    # A folder to run in: without the CLI's sandbox (whose folders are on a tmpfs of their own),
    # the harness makes each program's folder in its working directory.
    scratch = tempfile.TemporaryDirectory()
    for _ in range(5):
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=scratch.name)

        def ask(request):
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
            while line.startswith('{"sandbox"'):  # the harness's first line, since issue 33
                line = process.stdout.readline()
            return json.loads(line)

        ask({"code": "x = 1", "tests": ["assert x == 1"]})  # started and warm
        started, inside = time.perf_counter(), 0.0
        for request in requests():
            verdict = ask(request)
            assert verdict["passed"], verdict
            inside += verdict["duration_ms"]
        best_wall = min(best_wall, (time.perf_counter() - started) * 1000)
        best_inside = min(best_inside, inside)
        process.stdin.close()
        process.wait()
    scratch.cleanup()
    print(f"{label}: {len(requests())} search tasks x {TESTS} tests: wall {best_wall:.1f} ms, inside the harness {best_inside:.1f} ms")


def main(before):
    single = subprocess.run(["git", "show", f"{before}:static/python/harness.py"], cwd=ROOT, capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as copy:
        if single.returncode == 0:  # the harness was one file until issue 50
            old = [sys.executable, "-I", "-c", single.stdout]
        else:
            archive = subprocess.run(["git", "archive", before, "static/python/harness"], cwd=ROOT, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", copy], input=archive, check=True)
            old = package_command(Path(copy) / "static" / "python")
        measure(old, f"before ({before})")
    measure(package_command(ROOT / "static" / "python"), "after")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "989d1c0")
