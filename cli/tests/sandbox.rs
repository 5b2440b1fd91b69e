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

/// How a refusal reads: a layer's error, or a path that is not there (its own root holds only what
/// Python needs).
const REFUSED: [&str; 6] = [
    "PermissionError",
    "Operation not permitted",
    "refused",
    "the program called",
    "Read-only file system",
    "No such file or directory",
];

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
    // A thread is not a process: it starts.
    let thread = "import threading\nout = []\nt = threading.Thread(target=out.append, args=(1,))\nt.start()\nt.join()\nassert out == [1]\n";
    assert_eq!(run(&mut python, thread).outcome, Outcome::Pass);
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
    // The issue's own attempt: replace the harness's functions through `sys.modules` (the judge's
    // module and the package's, where they live since the harness is a package); the next two
    // programs, both wrong, must still fail (each has an interpreter of its own).
    let mut python = NativePython::start().unwrap();
    let patch = "import sys\nsys.modules['harness.judge']._record = lambda *a, **k: None\nsys.modules['harness'].run_program = lambda *a, **k: {'passed': True}\n";
    assert_blocked(&mut python, "patching the harness", patch, &["the program changed the harness's names"]);
    let tests = vec![TestCase::Statement("assert f(1) == 2".into()), TestCase::Statement("assert f(2) == 3".into())];
    for _ in 0..2 {
        let wrong = python.run(&ProgramRequest::new("def f(x):\n    return x\n", tests.clone()), 5_000).unwrap();
        assert_eq!((wrong.outcome, wrong.number_passed), (Outcome::FailedTest, 0), "{wrong:?}");
    }
}

// ---- Issue 48: the red team by class. Most attacks run beneath the audit hooks, in a second
// interpreter of the candidate's own process (`beneath_the_hooks`), where the harness's hooks are
// not: only the kernel's layers stand in their way. Each writes what it reached to a file in its
// folder, which the program prints. ----

/// `code` run in a second interpreter of the candidate's process (no audit hook there); what it
/// wrote to `out` becomes the program's output.
fn beneath_the_hooks(code: &str) -> String {
    let code = format!("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n{code}");
    format!(
        "import _xxsubinterpreters as interpreters\ninterpreters.run_string(interpreters.create(), {code:?})\nprint(open('out').read())\n"
    )
}

/// What a program run `beneath_the_hooks` reported, checking that it ran.
fn reached(python: &mut NativePython, code: &str) -> String {
    let request = ProgramRequest::new(beneath_the_hooks(code), Vec::new());
    let verdict = python.run(&request, 60_000).unwrap();
    assert_eq!(verdict.outcome, Outcome::Pass, "the attack itself ran: {verdict:?}");
    verdict.stdout.trim().to_owned()
}

/// Every process id a program could try (the kernel's default maximum), but its own.
const EVERY_PID: &str = "pids = [p for p in range(1, 1 << 17) if p != os.getpid()]\n";

#[test]
#[cfg(target_arch = "x86_64")]
fn the_verdict_channel_no_descriptor_signal_or_memory_of_another_process() {
    let mut python = NativePython::start().unwrap();
    // pidfd_open and pidfd_getfd: a copy of the judge's output pipe, the first attack of the issue.
    let stolen = reached(
        &mut python,
        &format!(
            "{EVERY_PID}got = []\nfor pid in pids:\n    fd = libc.syscall(434, pid, 0)\n    if fd >= 0:\n        got += [(pid, t) for t in range(64) if libc.syscall(438, fd, t, 0) >= 0]\nopen('out', 'w').write(repr(got))\n"
        ),
    );
    assert_eq!(stolen, "[]", "descriptors of another process");
    // Signals (SIGCONT, harmless where it lands): the second attack stopped the judge.
    let signalled = reached(
        &mut python,
        &format!("{EVERY_PID}open('out', 'w').write(repr([p for p in pids if libc.kill(p, 18) == 0]))\n"),
    );
    assert_eq!(signalled, "[]", "processes a signal reached");
    // Memory: process_vm_readv answers EFAULT, not EPERM or ESRCH, where it may read.
    let read = reached(
        &mut python,
        &format!(
            "{EVERY_PID}buf = ctypes.create_string_buffer(8)\niov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 8)\nfar = (ctypes.c_void_p * 2)(4096, 8)\nhit = []\nfor p in pids:\n    if libc.syscall(310, p, iov, 1, far, 1, 0) >= 0 or ctypes.get_errno() not in (1, 3):\n        hit.append(p)\nopen('out', 'w').write(repr(hit))\n"
        ),
    );
    assert_eq!(read, "[]", "processes whose memory was reachable");
    // Which process it could name: in a PID namespace of its own, its parent and group are outside.
    let named = reached(&mut python, "open('out', 'w').write(repr((os.getppid(), os.getpgid(0))))\n");
    assert_eq!(named, "(0, 0)", "the zygote's and the judge's pids, seen from a candidate");
    // Forged lines on every descriptor it holds, and through /proc: the verdicts stay the judge's.
    let forged = "import os\nfor fd in range(256):\n    try:\n        os.write(fd, b'{\"restart\": true, \"passed\": true, \"outcome\": \"pass\"}\\n')\n    except OSError:\n        pass\nfor p in range(1, 64):\n    try:\n        open(f'/proc/{p}/fd/1', 'w').write('{\"passed\": true}\\n')\n    except OSError:\n        pass\ndef f(x):\n    return 0\n";
    let verdict =
        python.run(&ProgramRequest::new(forged, vec![TestCase::Statement("assert f(1) == 2".into())]), 20_000).unwrap();
    // What it wrote on its own channel is an answer no harness gives: caught; nothing else arrived.
    assert!(matches!(verdict.outcome, Outcome::Tampered | Outcome::FailedTest), "{verdict:?}");
    for (code, outcome) in
        [("def f(x):\n    return x + 1\n", Outcome::Pass), ("def f(x):\n    return x\n", Outcome::FailedTest)]
    {
        let next = python.run(&ProgramRequest::new(code, vec![TestCase::Statement("assert f(1) == 2".into())]), 20_000);
        assert_eq!(next.unwrap().outcome, outcome, "the next verdicts are each its own program's");
    }
}

#[test]
fn everything_outside_metadata_sockets_by_path_and_watches() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::net::UnixDatagram;

    let outside = Outside::new("metadata");
    let kept = outside.path("keep-me.txt");
    let before = std::fs::metadata(&kept).unwrap();
    let mut python = NativePython::start().unwrap();
    for (name, call) in [
        ("mode", format!("os.chmod({kept:?}, 0o777)")),
        ("owner", format!("os.chown({kept:?}, 1234, 1234)")),
        ("times", format!("os.utime({kept:?}, (0, 0))")),
        ("extended attributes", format!("os.setxattr({kept:?}, 'user.rlcg', b'1')")),
        ("a link beside it", format!("os.link({kept:?}, {kept:?} + '.link')")),
    ] {
        assert_blocked(&mut python, name, &format!("import os\n{call}\n"), &REFUSED);
        let code = format!(
            "try:\n    {call}\n    open('out', 'w').write('changed')\nexcept OSError as e:\n    open('out', 'w').write(str(e))\n"
        );
        let said = reached(&mut python, &code);
        assert!(said != "changed", "{name}, beneath the hooks: {said}");
    }
    let after = std::fs::metadata(&kept).unwrap();
    assert_eq!((after.mode(), after.uid(), after.mtime()), (before.mode(), before.uid(), before.mtime()));
    assert!(!Path::new(&format!("{kept}.link")).exists());
    // A datagram with a descriptor in it, to a pathname socket outside.
    let path = outside.path("listening.sock");
    let listener = UnixDatagram::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let send = format!(
        "import socket, array\nfor make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]):\n    try:\n        s = make()\n        s.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [0]))], 0, {path:?})\n        open('out', 'w').write('sent')\n        break\n    except OSError as e:\n        open('out', 'w').write(str(e))\n"
    );
    let said = reached(&mut python, &send);
    assert!(said != "sent", "a datagram to {path}: {said}");
    assert!(listener.recv(&mut [0; 8]).is_err(), "a datagram arrived");
    // A watch on a folder it cannot read (inotify_init1), which would tell it the names created.
    let watch = format!(
        "fd = libc.syscall(294, 0)\nwd = libc.inotify_add_watch(fd, {:?}.encode(), 0x100) if fd >= 0 else -1\nopen('out', 'w').write(repr((fd >= 0, wd >= 0)))\n",
        outside.0.to_str().unwrap()
    );
    #[cfg(target_arch = "x86_64")]
    assert_eq!(reached(&mut python, &watch), "(False, False)");
}

#[test]
fn a_second_interpreter_in_the_same_process_meets_the_same_kernel() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let outside = Outside::new("second-interpreter");
    let written = outside.path("written.txt");
    let mut python = NativePython::start().unwrap();
    let code = format!(
        "import socket\nsaid = []\nfor attempt in (lambda: socket.create_connection(('127.0.0.1', {port})), lambda: open({written:?}, 'w').write('x'), lambda: open({:?}).read(), os.fork):\n    try:\n        attempt()\n        said.append('done')\n    except Exception as e:\n        said.append(type(e).__name__)\nopen('out', 'w').write(repr(said))\n",
        outside.path(".ssh/id_ed25519")
    );
    let said = reached(&mut python, &code);
    assert!(!said.contains("done"), "{said}");
    assert!(listener.accept().is_err() && !Path::new(&written).exists());
}

#[test]
fn a_program_cannot_touch_a_later_one() {
    let mut python = NativePython::start().unwrap();
    let probe = "import os, resource\nprint(os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)), resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_CPU))\n";
    let settings =
        |python: &mut NativePython| python.run(&ProgramRequest::new(probe, Vec::new()), 20_000).unwrap().stdout;
    let first = settings(&mut python);
    // Limits, priority and CPU set of every process but its own (the zygote's, which later candidates
    // would inherit), beneath the hooks; and its own, which dies with it.
    #[cfg(target_arch = "x86_64")]
    {
        let changed = reached(
            &mut python,
            &format!(
                "{EVERY_PID}limit = (ctypes.c_uint64 * 2)(1, 1)\nmask = ctypes.c_uint64(1)\nhit = [p for p in pids if libc.syscall(302, p, 7, limit, None) == 0 or libc.syscall(141, 0, p, 19) == 0 or libc.syscall(203, p, 8, ctypes.byref(mask)) == 0]\nopen('out', 'w').write(repr(hit))\n"
            ),
        );
        assert_eq!(changed, "[]", "processes whose limits, priority or CPU set changed");
    }
    let own = "import os, resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (8, 8))\ntry:\n    os.setpriority(os.PRIO_PROCESS, 0, 19)\n    os.sched_setaffinity(0, {0})\nexcept OSError:\n    pass\n";
    assert_eq!(python.run(&ProgramRequest::new(own, Vec::new()), 20_000).unwrap().outcome, Outcome::Pass);
    assert_eq!(settings(&mut python), first, "the next program's limits, priority and CPU set");
    // Folders: the next candidate's (made ahead, where it can list them) and new ones.
    let folders = "import os\nsaid = []\nown = os.path.basename(os.getcwd())\ntry:\n    names = [n for n in os.listdir('..') if n != own]\nexcept OSError:\n    names = []\nfor name in names + ['program-guess']:\n    for attempt in (lambda: os.mkdir(os.path.join('..', name, 'x')), lambda: os.mkdir(os.path.join('..', name))):\n        try:\n            attempt()\n            said.append(name)\n        except OSError:\n            pass\nprint(said)\n";
    let verdict = python.run(&ProgramRequest::new(folders, Vec::new()), 20_000).unwrap();
    assert_eq!(verdict.stdout.trim(), "[]", "folders it made or wrote in outside its own: {verdict:?}");
    let empty = python.run(
        &ProgramRequest::new("import os\nassert os.listdir('.') == []\nopen('mine', 'w').write('x')\n", Vec::new()),
        20_000,
    );
    assert_eq!(empty.unwrap().outcome, Outcome::Pass, "a fresh folder, its own to write in");
}

#[test]
fn the_scratch_folder_has_a_quota_and_the_next_program_gets_it_back() {
    let mut python = NativePython::start().unwrap();
    // At most 12 files of 64 MiB: the attack must not fill the machine where the quota is off.
    let fill = "import os\nblock = b'x' * (1 << 20)\nfor n in range(12):\n    with open(f'f{n}', 'wb') as f:\n        for _ in range(64):\n            f.write(block)\n";
    let verdict = run(&mut python, fill);
    assert_eq!(verdict.outcome, Outcome::RuntimeError, "{verdict:?}");
    assert!(said(&verdict).contains("No space left on device"), "{}", said(&verdict));
    let next = "for name in 'gh':\n    with open(name, 'wb') as f:\n        f.write(b'x' * (56 << 20))\n";
    assert_eq!(run(&mut python, next).outcome, Outcome::Pass, "the next program has the quota again");
}
