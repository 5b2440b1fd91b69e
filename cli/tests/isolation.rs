//! The judge's red team, round 3 (issue 67), by class, through python3 as every command runs it: a
//! program ends with its verdict and leaves nothing behind for the next (no process, no file, no
//! lock, nothing of the page cache it could read back), sees nothing of the machine but what Python
//! needs, keeps no capability as root, starts a bounded number of threads, and cannot make a reply
//! unreadable. Each class failed on 032946b. CI runs this as root, the harder case.
#![cfg(target_os = "linux")]

use std::process::Command;

use cli::python::NativePython;
use engine::python::{Outcome, ProgramRequest, ProgramVerdict, TestCase};

fn run(python: &mut NativePython, code: &str) -> ProgramVerdict {
    python.run(&ProgramRequest::new(code, vec![TestCase::Statement("assert True".into())]), 30_000).unwrap()
}

/// `code` run in a second interpreter of the candidate's process, where no audit hook is.
fn beneath_the_hooks(code: &str) -> String {
    format!("import _xxsubinterpreters as interpreters\ninterpreters.run_string(interpreters.create(), {code:?})\n")
}

/// The threads of every process on the machine named `name` (a thread's name, as `prctl` sets it).
fn threads_named(name: &str) -> usize {
    let tasks = std::fs::read_dir("/proc").unwrap().flatten().flat_map(|process| {
        std::fs::read_dir(process.path().join("task")).into_iter().flatten().flatten().collect::<Vec<_>>()
    });
    tasks.filter(|task| std::fs::read_to_string(task.path().join("comm")).is_ok_and(|c| c.trim() == name)).count()
}

#[test]
fn a_program_that_keeps_running_after_its_verdict_is_ended_with_it() {
    let name = format!("rlcg-left-{:05}", std::process::id() % 100_000);
    // It rebinds its way out (the candidate's last act, `os._exit`, does nothing) and leaves a
    // thread spinning, named beneath the hooks; it returns only once the thread has its name.
    let mark = beneath_the_hooks(&format!("import ctypes\nctypes.CDLL(None).prctl(15, b'{name}', 0, 0, 0)\n"));
    let code = format!(
        "import os, threading\nos._exit = lambda *a: None\nnamed = threading.Event()\ndef spin():\n    {}\n    named.set()\n    while True:\n        pass\nthreading.Thread(target=spin).start()\nnamed.wait(10)\n",
        mark.trim_end().replace('\n', "\n    ")
    );
    let mut python = NativePython::start().unwrap();
    let verdict = run(&mut python, &code);
    assert_ne!(verdict.outcome, Outcome::Timeout, "{verdict:?}");
    assert_eq!(threads_named(&name), 0, "its thread outlived its verdict: {verdict:?}");
    let honest = run(&mut python, "x = sum(range(10 ** 6))\n");
    assert_eq!(honest.outcome, Outcome::Pass, "{honest:?}");
}

#[test]
fn rlcg_inside_a_pid_namespace_judges_a_right_program_right() {
    // In a container, the pid a candidate has in its zygote's namespace can be the judge's own in
    // the judge's: a kill by that number ended the judge, and a right program got a runtime error.
    let task = |id: &str| {
        serde_json::json!({
            "task_id": id, "prompt": "", "canonical_solution": "def f(x):\n    return x + 1\n", "entry_point": "f",
            "test": "def check(candidate):\n    assert candidate(1) == 2\n",
        })
        .to_string()
    };
    let path = std::env::temp_dir().join(format!("rlcg-pidns-{}.jsonl", std::process::id()));
    std::fs::write(&path, [task("first"), task("second")].join("\n")).unwrap();
    let root = nix::unistd::getuid().is_root();
    let mut unshare = Command::new("unshare");
    unshare.args(if root { &["--pid", "--fork"][..] } else { &["--user", "--map-root-user", "--pid", "--fork"][..] });
    let output = unshare
        .arg(env!("CARGO_BIN_EXE_rlcg"))
        .args(["check", "--tasks", path.to_str().unwrap(), "--json", "--verbose"])
        .output()
        .expect("unshare (util-linux) runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("\"pass\":2"), "{stdout}");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn what_a_program_writes_goes_with_it_however_deep() {
    let mut python = NativePython::start().unwrap();
    // Folders nested deeper than a remover has descriptors, 60 MiB at the bottom.
    let deep = "import os\nfor _ in range(600):\n    os.mkdir('d')\n    os.chdir('d')\nwith open('data', 'wb') as f:\n    f.write(b'x' * (60 << 20))\n";
    assert_eq!(run(&mut python, deep).outcome, Outcome::Pass);
    // The next program has its whole folder: 100 MiB fit in it, and it finds nothing left.
    let next = "import os\nassert os.listdir('.') == [], os.listdir('.')\nfor name in 'ab':\n    with open(name, 'wb') as f:\n        f.write(b'x' * (50 << 20))\n";
    let verdict = run(&mut python, next);
    assert_eq!(verdict.outcome, Outcome::Pass, "{verdict:?}");
}

#[test]
fn no_lock_lease_readahead_hint_or_non_blocking_read_that_another_program_could_see() {
    let mut python = NativePython::start().unwrap();
    let code = "import fcntl, os, struct\nf = open(os.__file__, 'rb')\nlock = struct.pack('hhqqi', fcntl.F_RDLCK, 0, 0, 0, 0)\ntook = []\nfor name, attempt in [\n    ('flock', lambda: fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)),\n    ('lockf', lambda: fcntl.lockf(f, fcntl.LOCK_SH | fcntl.LOCK_NB)),\n    ('open file lock', lambda: fcntl.fcntl(f, 37, lock)),\n    ('lease', lambda: fcntl.fcntl(f, fcntl.F_SETLEASE, fcntl.F_RDLCK)),\n    ('directory notice', lambda: fcntl.fcntl(os.open('.', os.O_RDONLY), fcntl.F_NOTIFY, fcntl.DN_CREATE)),\n    ('readahead hint', lambda: os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_WILLNEED)),\n    ('eviction hint', lambda: os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)),\n    ('read that does not wait', lambda: os.preadv(f.fileno(), [bytearray(16)], 0, os.RWF_NOWAIT)),\n]:\n    try:\n        attempt()\n        took.append(name)\n    except OSError:\n        pass\nprint(took)\n";
    let verdict = python.run(&ProgramRequest::new(code, Vec::new()), 30_000).unwrap();
    assert_eq!(verdict.stdout.trim(), "[]", "{verdict:?}");
    // Which pages of a mapped file are cached, beneath the hooks.
    let residency = beneath_the_hooks(
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.mmap.restype = ctypes.c_void_p\npage = libc.mmap(None, 4096, 1, 1, os.open(os.__file__, os.O_RDONLY), 0)\nvec = ctypes.create_string_buffer(1)\nopen('out', 'w').write(repr(libc.mincore(ctypes.c_void_p(page), 4096, vec)))\n",
    );
    let verdict =
        python.run(&ProgramRequest::new(format!("{residency}print(open('out').read())\n"), Vec::new()), 30_000);
    assert_eq!(verdict.unwrap().stdout.trim(), "-1", "mincore answered");
}

#[test]
fn a_program_sees_no_path_of_the_machine_but_what_python_needs() {
    let elsewhere = ["/etc/passwd", "/etc/hostname", "/proc/self", "/var", "/home", "/boot", "/srv", "/sys"];
    let elsewhere: Vec<&str> = elsewhere.into_iter().filter(|p| std::path::Path::new(p).exists()).collect();
    assert!(elsewhere.len() >= 4, "the machine has these paths: {elsewhere:?}");
    let mut python = NativePython::start().unwrap();
    let code = format!("import os\nprint([p for p in {elsewhere:?} if os.path.lexists(p)])\nimport json, fractions\n");
    let verdict = python.run(&ProgramRequest::new(code, Vec::new()), 30_000).unwrap();
    assert_eq!((verdict.outcome, verdict.stdout.trim()), (Outcome::Pass, "[]"), "{verdict:?}");
}

#[test]
fn a_candidate_keeps_no_capability_root_or_not_and_starts_a_bounded_number_of_threads() {
    let mut python = NativePython::start().unwrap();
    // Its capability sets, and a page mapped at address 0 (which needs CAP_SYS_RAWIO).
    let probe = beneath_the_hooks(
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nheader = (ctypes.c_uint32 * 2)(0x20080522, 0)\ndata = (ctypes.c_uint32 * 6)()\nlibc.capget(header, data)\nlibc.mmap.restype = ctypes.c_ssize_t\nzero = libc.mmap(ctypes.c_void_p(0), 4096, 3, 0x32, -1, 0)\nopen('out', 'w').write(repr((list(data), zero == 0)))\n",
    );
    let verdict = python.run(&ProgramRequest::new(format!("{probe}print(open('out').read())\n"), Vec::new()), 30_000);
    assert_eq!(verdict.unwrap().stdout.trim(), "([0, 0, 0, 0, 0, 0], False)");
    let threads = "import threading, time\nstarted = 0\ntry:\n    while started < 10_000:\n        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n        started += 1\nexcept RuntimeError:\n    pass\nprint(started)\n";
    let verdict = python.run(&ProgramRequest::new(threads, Vec::new()), 30_000).unwrap();
    let started: u32 = verdict.stdout.trim().parse().unwrap_or_else(|_| panic!("{verdict:?}"));
    assert!(started < 64, "{started} threads");
}

#[test]
fn no_output_or_error_makes_a_verdict_unreadable_and_errors_are_cut_where_said() {
    let mut python = NativePython::start().unwrap();
    let tests = vec![TestCase::Statement("assert f(1) == 2".into())];
    for code in [
        "print('\\ud800')\ndef f(x):\n    return x + 1\n",
        "import sys\nsys.stderr.write('\\udfff')\ndef f(x):\n    return x + 1\n",
        "def f(x):\n    raise ValueError('\\ud800' * 3)\n",
        "def f(x):\n    raise ValueError('x' * 12_000_000)\n",
    ] {
        let verdict = python.run(&ProgramRequest::new(code, tests.clone()), 30_000).unwrap();
        let expected = if code.contains("raise") { Outcome::RuntimeError } else { Outcome::Pass };
        assert_eq!(verdict.outcome, expected, "{code}: {verdict:?}");
        let said = verdict.tests[0].error.clone().unwrap_or_default() + &verdict.stdout + &verdict.stderr;
        assert!(code.contains("12_000_000") || said.contains('\u{fffd}'), "the surrogate shown replaced: {said}");
        if code.contains("12_000_000") {
            let error = verdict.tests[0].error.as_deref().unwrap();
            assert!(error.len() < 2_100 && error.ends_with("more characters cut)"), "{}", &error[error.len() - 60..]);
        }
    }
    // `rlcg check` gives every task its verdict, beside a program that prints a lone surrogate.
    let task = |id: &str, solution: &str| {
        serde_json::json!({"task_id": id, "prompt": "", "canonical_solution": solution, "entry_point": "f",
            "test": "def check(candidate):\n    assert candidate(1) == 2\n"})
        .to_string()
    };
    let path = std::env::temp_dir().join(format!("rlcg-surrogate-{}.jsonl", std::process::id()));
    let lines = [
        task("loud", "print('\\ud800')\ndef f(x):\n    return x + 1\n"),
        task("right", "def f(x):\n    return x + 1\n"),
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let output =
        Command::new(env!("CARGO_BIN_EXE_rlcg")).args(["check", "--tasks", path.to_str().unwrap(), "--json"]).output();
    let output = output.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success() && stdout.contains("\"pass\":2"), "{stdout}");
    std::fs::remove_file(path).unwrap();
}
