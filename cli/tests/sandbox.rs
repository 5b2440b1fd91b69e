//! The native sandbox's red team (issue 33): programs that try to leave the sandbox `rlcg` runs
//! Python in (cli/src/sandbox.rs), through python3 as every command runs it. Each attempt must be
//! blocked, named in its verdict, and leave no trace; the next honest program still passes. Linux
//! only: elsewhere the sandbox says what it cannot enforce. CI runs this as root, which the sandbox
//! must hold against too.
#![cfg(target_os = "linux")]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cli::python::NativePython;
use engine::python::{Outcome, ProgramRequest, ProgramVerdict, TestCase};

/// A folder outside the sandbox's scratch folder, standing for the user's files.
struct Outside(PathBuf);

impl Outside {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("rlcg-outside-{}-{name}", std::process::id()));
        std::fs::create_dir_all(path.join(".ssh")).unwrap();
        std::fs::write(path.join(".ssh").join("id_ed25519"), "SECRET KEY").unwrap();
        std::fs::write(path.join("keep-me.txt"), "still here").unwrap();
        Self(path)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(python: &mut NativePython, code: &str) -> ProgramVerdict {
    let request = ProgramRequest::new(code, vec![TestCase::Statement("assert True".into())]);
    python.run(&request, 20_000).unwrap()
}

/// Everything the verdict says about what stopped the program.
fn said(verdict: &ProgramVerdict) -> String {
    let tests = verdict.tests.iter().filter_map(|t| t.error.clone());
    verdict.error.iter().cloned().chain(verdict.caught.iter().cloned()).chain(tests).collect::<Vec<_>>().join(" | ")
}

fn assert_blocked(python: &mut NativePython, name: &str, code: &str, named: &[&str]) {
    let verdict = run(python, code);
    assert_ne!(verdict.outcome, Outcome::Pass, "{name} was not blocked: {verdict:?}");
    let said = said(&verdict);
    assert!(named.iter().any(|n| said.contains(n)), "{name}: the verdict does not name the block ({named:?}): {said}");
    let honest = run(python, "x = 1");
    assert_eq!(honest.outcome, Outcome::Pass, "after {name}: {honest:?}");
}

const REFUSED: [&str; 4] = ["PermissionError", "Operation not permitted", "refused", "the program called"];

#[test]
fn no_network_neither_a_socket_to_this_machine_nor_a_name_lookup() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut python = NativePython::start().unwrap();
    let connect = format!("import socket\ns = socket.create_connection(('127.0.0.1', {port}))\ns.sendall(b'hello')\n");
    assert_blocked(&mut python, "a socket to 127.0.0.1", &connect, &REFUSED);
    let raw = format!("import _socket\ns = _socket.socket(2, 1)\ns.connect(('127.0.0.1', {port}))\n");
    assert_blocked(&mut python, "a socket below the socket module", &raw, &REFUSED);
    let lookup = "import socket\nsocket.getaddrinfo('example.com', 80)\n";
    assert_blocked(&mut python, "a DNS lookup", lookup, &REFUSED);
    std::thread::sleep(Duration::from_millis(200));
    assert!(listener.accept().is_err(), "a program connected to the test's port");
}

#[test]
fn no_file_outside_the_scratch_folder_read_written_or_deleted() {
    let outside = Outside::new("files");
    let mut python = NativePython::start().unwrap();
    let key = outside.path(".ssh/id_ed25519");
    assert_blocked(&mut python, "reading ~/.ssh", &format!("print(open({key:?}).read())\n"), &REFUSED);
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    assert_blocked(
        &mut python,
        "listing the home folder",
        &format!("import os\nprint(os.listdir({home:?}))\n"),
        &REFUSED,
    );
    assert_blocked(&mut python, "reading /etc/passwd", "print(open('/etc/passwd').read())\n", &REFUSED);
    let written = outside.path("written.txt");
    assert_blocked(&mut python, "writing outside", &format!("open({written:?}, 'w').write('x')\n"), &REFUSED);
    assert!(!Path::new(&written).exists());
    let kept = outside.path("keep-me.txt");
    assert_blocked(&mut python, "deleting a file", &format!("import os\nos.remove({kept:?})\n"), &REFUSED);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "still here");
    // The program's own folder is writable, and the next program does not find what it left.
    let verdict =
        run(&mut python, "open('notes.txt', 'w').write('left here')\nimport os\nassert os.path.exists('notes.txt')\n");
    assert_eq!(verdict.outcome, Outcome::Pass, "{verdict:?}");
    let verdict = run(&mut python, "import os\nassert not os.path.exists('notes.txt'), os.listdir('.')\n");
    assert_eq!(verdict.outcome, Outcome::Pass, "{verdict:?}");
}

#[test]
fn no_process_started_whichever_way() {
    let outside = Outside::new("processes");
    let mut python = NativePython::start().unwrap();
    let marker = outside.path("ran");
    let attempts = [
        ("subprocess", format!("import subprocess\nsubprocess.run(['touch', {marker:?}])\n")),
        ("os.system", format!("import os\nos.system('touch {marker}')\n")),
        ("os.fork", "import os\nif os.fork() == 0:\n    os._exit(0)\n".to_owned()),
        (
            "fork_exec below subprocess",
            format!(
                "import _posixsubprocess, os\nr, w = os.pipe()\n_posixsubprocess.fork_exec([b'/usr/bin/touch', {marker:?}.encode()], [b'/usr/bin/touch'], True, (), None, None, -1, -1, -1, -1, -1, -1, r, w, True, False, 0, None, None, None, -1, None, False)\n"
            ),
        ),
        ("ctypes calling libc", format!("import ctypes\nctypes.CDLL(None).system(b'touch {marker}')\n")),
    ];
    for (name, code) in attempts {
        assert_blocked(&mut python, name, &code, &REFUSED);
        assert!(!Path::new(&marker).exists(), "{name} ran a process");
    }
}

#[test]
fn resource_bombs_end_in_verdicts_and_the_next_program_runs() {
    let mut python = NativePython::start().unwrap();
    let fork_bomb = "import os\nwhile True:\n    os.fork()\n";
    assert_blocked(&mut python, "a fork bomb", fork_bomb, &REFUSED);
    let disk =
        "block = b'x' * (1 << 20)\nwith open('big', 'wb') as f:\n    for _ in range(4096):\n        f.write(block)\n";
    assert_blocked(&mut python, "filling the disk", disk, &["File too large", "OSError"]);
    let threads = "import threading, time\nthreads = []\nwhile True:\n    t = threading.Thread(target=time.sleep, args=(30,))\n    t.start()\n    threads.append(t)\n";
    assert_blocked(
        &mut python,
        "a thread bomb",
        threads,
        &["can't start new thread", "RuntimeError", "MemoryError", "Resource"],
    );
    let memory = "x = bytearray(8 << 30)\n";
    assert_blocked(&mut python, "8 GiB at once", memory, &["MemoryError"]);
}

#[test]
fn nothing_of_the_callers_environment_reaches_a_program() {
    // The test runner's environment (PATH, HOME, CARGO_*, and an API key where a user has one)
    // stays out: only the sandbox's own variables and the locale Python sets for itself.
    assert!(std::env::vars().count() > 3);
    let mut python = NativePython::start().unwrap();
    let own = "{'RLCG_CANDIDATE_SECCOMP', 'RLCG_MEMORY_LIMIT_BYTES', 'LC_CTYPE'}";
    let verdict = run(&mut python, &format!("import os\nassert set(os.environ) <= {own}, sorted(os.environ)\n"));
    assert_eq!(verdict.outcome, Outcome::Pass, "{verdict:?}");
}

#[test]
fn a_program_that_patches_the_harness_reaches_no_later_verdict() {
    // The issue's own attempt: replace a harness function through `sys.modules["__main__"]`; the
    // next two programs, both wrong, must still fail (each has an interpreter of its own).
    let mut python = NativePython::start().unwrap();
    let patch = "import sys\nsys.modules['__main__']._record = lambda *a, **k: None\nsys.modules['__main__'].run_program = lambda *a, **k: {'passed': True}\n";
    assert_blocked(&mut python, "patching the harness", patch, &["the program changed the harness's names"]);
    let tests = vec![TestCase::Statement("assert f(1) == 2".into()), TestCase::Statement("assert f(2) == 3".into())];
    for _ in 0..2 {
        let wrong = python.run(&ProgramRequest::new("def f(x):\n    return x\n", tests.clone()), 5_000).unwrap();
        assert_eq!((wrong.outcome, wrong.number_passed), (Outcome::FailedTest, 0), "{wrong:?}");
    }
}
