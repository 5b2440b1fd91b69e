"""Native candidates (the page's is the worker's second Pyodide): a zygote forked before the first
request forks one confined process per program, in a folder of its own, under the limits and
filters the CLI's sandbox asks for (cli/src/sandbox.rs); and what confines the judge, tried."""

import gc
import json
import os
import shutil
import socket
import sys

from .candidate import candidate_server
from .link import CandidateGone, _Link


class _Zygote:
    """Native candidates: a process forked before the judge reads its first request, so it holds no
    test, and that forks a fresh candidate interpreter for each program, one kept ready ahead, each in
    a folder the zygote makes with a name no program can guess."""

    def __init__(self):
        self.socket, child = socket.socketpair()
        self.pid = os.fork()
        if self.pid == 0:
            self.socket.close()
            _zygote_loop(child)
        child.close()
        self.socket.sendall(b"f")  # the first candidate forks while the judge waits for its request

    def ended(self):
        """Whether the zygote has ended or stopped (no program should be able to do either; if one
        did, the host starts a fresh judge, see `main`)."""
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return True
        return pid != 0

    def connect(self):
        message, fds, _, _ = socket.recv_fds(self.socket, 256, 1)
        if not fds:
            raise CandidateGone("the zygote that forks candidate interpreters has ended")
        self.socket.sendall(b"f")  # the next one forks while this one runs
        channel = socket.socket(fileno=fds[0])
        reader, writer = channel.makefile("rb"), channel.makefile("wb")
        channel.close()
        pid, folder = message.decode().split(" ", 1)
        pid = int(pid)

        def retire():
            """The candidate ends with its program, whatever it left running, and its folder goes."""
            for stream in (reader, writer):
                try:
                    stream.close()
                except OSError:
                    pass
            try:
                os.kill(pid, 9)
            except OSError:
                pass
            shutil.rmtree(folder, ignore_errors=True)

        def exchange(text):
            try:
                writer.write(text.encode() + b"\n")
                writer.flush()
                line = reader.readline(64 << 20)
            except OSError:
                line = b""
            if not line.endswith(b"\n"):
                raise CandidateGone("the program ended the Python interpreter")
            return line.decode("utf-8", "replace")

        return _Link(exchange, retire)


def _zygote_loop(channel):
    """The zygote: stdin and stdout at /dev/null and no other descriptor but its channel, then one
    candidate per byte asked for, each in a PID namespace of its own where the kernel allows one (no
    other process is visible to it: its parent and its group are outside, pid 0)."""
    import secrets  # noqa: PLC0415  (native only)
    import signal  # noqa: PLC0415  (native only)

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    keep = {0, 1, 2, channel.fileno()}
    for fd in range(3, 256):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # candidates are reaped as they end
    # Objects from before the fork stay out of the candidates' collections, which would otherwise
    # touch, and so copy, every page the zygote shares with them.
    gc.collect()
    gc.freeze()
    filters = [bytes.fromhex(f) for f in os.environ.get("RLCG_CANDIDATE_SECCOMP", "").split(",") if f]
    namespaces = _PidNamespaces() if filters else None
    settings = _Settings()
    try:
        while channel.recv(1):
            mine, theirs = socket.socketpair()
            folder = os.path.join(os.getcwd(), f"program-{secrets.token_hex(16)}")
            os.mkdir(folder, 0o700)
            if namespaces is not None:
                namespaces.next_child()
            pid = os.fork()
            if pid == 0:
                channel.close()
                theirs.close()
                if namespaces is not None:
                    namespaces.close()
                _confine(filters, folder, settings)
                _serve_forked(mine)
            socket.send_fds(channel, [f"{pid} {folder}".encode()], [theirs.fileno()])
            mine.close()
            theirs.close()
    finally:
        os._exit(0)


class _PidNamespaces:
    """A fresh PID namespace for each child the zygote forks: setns back to its own, then unshare (a
    process may unshare a PID namespace only while its children's is its own). Both need
    CAP_SYS_ADMIN over the zygote's own PID namespace, which the sandbox gives by starting it in one
    that its user namespace owns (cli/src/sandbox.rs, `Namespaces`); where the kernel refuses,
    children share the zygote's, and Landlock's scopes still keep their signals and ptrace from
    every other process."""

    CLONE_NEWPID = 0x20000000

    def __init__(self):
        import ctypes  # noqa: PLC0415  (native only)

        self.libc = ctypes.CDLL(None, use_errno=True)
        try:
            self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            self.on = True
        except OSError:
            self.on = False

    def close(self):
        """In a child: it keeps no way into the zygote's namespace."""
        if self.on:
            os.close(self.own)

    def next_child(self):
        if self.on and (self.libc.setns(self.own, self.CLONE_NEWPID) or self.libc.unshare(self.CLONE_NEWPID)):
            self.on = False
            self.libc.setns(self.own, self.CLONE_NEWPID)


class _Settings:
    """What a candidate inherits from its zygote that a process could change for its children: its
    resource limits, priority and CPU set, as the zygote had them before any candidate existed. Each
    candidate sets them again after its fork (with CPU_BACKSTOP_S on top), so that nothing a program
    did to the zygote, had it found a way, reaches the next one."""

    CPU_BACKSTOP_S = 120  # a candidate's CPU time; its judge's host keeps the wall clock

    def __init__(self):
        import resource  # noqa: PLC0415  (POSIX only)

        self.limits = {getattr(resource, n): resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")}
        hard = self.limits[resource.RLIMIT_CPU][1]
        cpu = self.CPU_BACKSTOP_S if hard == resource.RLIM_INFINITY else min(self.CPU_BACKSTOP_S, hard)
        self.limits[resource.RLIMIT_CPU] = (cpu, cpu)
        self.priority = os.getpriority(os.PRIO_PROCESS, 0)
        self.affinity = os.sched_getaffinity(0)

    def apply(self):
        import resource  # noqa: PLC0415  (POSIX only)

        for kind, limit in self.limits.items():
            resource.setrlimit(kind, limit)
        os.setpriority(os.PRIO_PROCESS, 0, self.priority)
        os.sched_setaffinity(0, self.affinity)


def _confine(filters, folder, settings):
    """A native candidate's own confinement on top of its judge's, set up before it runs anything (a
    candidate that cannot confine itself ends first):
    - its limits, priority and CPU set (`_Settings`), set here after the fork;
    - it dies with the zygote;
    - its folder (made by the zygote) as its working directory;
    - a Landlock domain of its own, nested in the judge's: it writes only in its folder, and no
      signal, ptrace or abstract socket of its reaches a process outside it (the judge, the zygote,
      another candidate);
    - seccomp filters (cli/src/sandbox.rs compiles them with seccompiler, and passes them here as hex
      in RLCG_CANDIDATE_SECCOMP): no process, no exec, no socket but its channel. Installing one is a
      single prctl, which Python's standard library has no call for, hence ctypes here."""
    try:
        settings.apply()
        os.chdir(folder)
        if filters:
            import ctypes  # noqa: PLC0415  (native only)

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig, pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 1, 38, 22, 2
            if libc.prctl(pr_set_pdeathsig, 9, 0, 0, 0):
                os._exit(70)
            _nested_landlock(libc, folder)

            class SockFprog(ctypes.Structure):
                _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

            for program in filters:
                code = ctypes.create_string_buffer(program, len(program))
                fprog = SockFprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
                if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) or libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0):
                    os._exit(70)
            # A program's `import ctypes` loads it afresh, and the audit hook hears it.
            for name in [n for n in sys.modules if n == "ctypes" or n.startswith("ctypes.")]:
                del sys.modules[name]
    except BaseException:
        os._exit(70)


def _nested_landlock(libc, folder):
    """The candidate's own Landlock domain (see `_confine`): the rights that change files, handled and
    allowed beneath `folder` only (reading stays as the judge's domain allows), and every scope the
    kernel has. Nothing where the kernel has no Landlock (the judge's domain is then absent too)."""
    import ctypes  # noqa: PLC0415  (native only)

    create, add_rule, restrict_self = 444, 445, 446  # the same numbers on every architecture
    abi = libc.syscall(create, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return
    # WRITE_FILE, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR … MAKE_SYM; REFER (ABI 2), TRUNCATE (3), IOCTL_DEV (5).
    handled = (1 << 1) | sum(1 << bit for bit in range(4, 13))
    handled |= (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0) | (1 << 15 if abi >= 5 else 0)
    scoped = 0b11 if abi >= 6 else 0  # ABSTRACT_UNIX_SOCKET, SIGNAL

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(handled, 0, scoped)
    size = ctypes.sizeof(RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(create, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        os._exit(70)
    for path, rights in ((folder, handled), (os.devnull, 1 << 1)):
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        if libc.syscall(add_rule, ruleset, 1, ctypes.byref(PathBeneath(rights, fd)), 0):
            os._exit(70)
        os.close(fd)
    if libc.syscall(restrict_self, ruleset, 0):
        os._exit(70)
    os.close(ruleset)

WARM_UP_PROGRAM = "def f(values):\n    return sorted(values)[:1] + [len(values)]\n"


def _serve_forked(channel):
    """A native candidate: questions and answers over its channel until the judge hangs up."""
    try:
        reader, writer = channel.makefile("rb"), channel.makefile("wb")
        serve = candidate_server(interrupts=False)
        # A program of the playground's own while the judge has not asked yet: the pages that every
        # program touches are copied from the zygote now, not on the judge's clock.
        serve(json.dumps({"op": "load", "code": WARM_UP_PROGRAM, "coverage": True}))
        serve(json.dumps({"op": "call", "target": 0, "args": [[1, 2]], "kwargs": {"t": "dict", "v": []}}))
        serve(json.dumps({"op": "finish"}))
        for line in reader:
            writer.write(serve(line.decode("utf-8", "replace")).encode() + b"\n")
            writer.flush()
    finally:
        os._exit(0)


def _confinement():
    """What confines this process, as its host reports it (cli/src/sandbox.rs), tried rather than
    assumed: files outside what Python needs, the network, new processes for candidates, read-only
    mounts outside the scratch folder, and the scratch folder's quota."""

    def refused(attempt):
        try:
            attempt()
        except PermissionError:
            return True
        except OSError:
            return False
        return False

    def network():
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()

    def files():
        with open("/etc/passwd", "rb"):
            pass

    def quota_bytes():
        """The scratch folder's size where it is a filesystem of its own (the mount layer's tmpfs)."""
        if os.stat(".").st_dev == os.stat("..").st_dev:
            return None
        found = os.statvfs(".")
        return found.f_blocks * found.f_frsize

    return {
        "files": refused(files),
        "network": refused(network),
        "processes": bool(os.environ.get("RLCG_CANDIDATE_SECCOMP")),
        "read_only_outside": bool(os.statvfs("/").f_flag & os.ST_RDONLY),
        "quota_bytes": quota_bytes(),
    }
