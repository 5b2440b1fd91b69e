"""Native candidates (the page's is the worker's second Pyodide): a zygote forked before the first
request, in a root of its own that holds only what Python needs, forks one confined process per
program, under the limits and filters the CLI's sandbox asks for (cli/src/sandbox.rs, passed as the
JSON of RLCG_CONFINEMENT), and ends it with its verdict; and what confines the judge, tried.

A candidate's life, each step a mechanism rather than a check of known attacks:
- it is forked into a PID namespace of its own, as its init: when it is killed, every thread and
  process it has goes with it;
- it works in a tmpfs mounted in a mount namespace of its own: when it ends, the namespace and the
  tmpfs go, whatever it wrote there, however deep; nothing is walked or removed;
- it sees the zygote's root, built of read-only bind mounts of what Python needs (`_enter_own_root`),
  so `stat` finds nothing else of the machine;
- it has a user namespace of its own and no capability, root or not (a root's candidate runs as
  `nobody` first), and a limit of `threads` tasks, which the kernel counts per user namespace;
- Landlock: it reads what Python needs, writes only its folder and `/dev/null`, and no signal,
  ptrace or abstract socket of its reaches a process outside it;
- seccomp: no process, no exec, no socket but its channel, no lock, lease, readahead hint or
  non-blocking read that would tell it what another program read;
- the judge ends it through the zygote, by a pidfd (which names this process in every namespace),
  and waits until it has ended before the verdict goes out."""

import gc
import json
import os
import secrets
import signal
import socket
import sys

from .candidate import candidate_server
from .link import CandidateGone, Link

WORK = "/program"
"""A candidate's folder in the zygote's own root: each candidate mounts a tmpfs of its own there."""

RETIRE_WAIT_MS = 2_000
"""How long the zygote waits for a killed candidate to end (it takes microseconds; one that does not,
in an uninterruptible sleep, makes the host start a fresh judge)."""


class Zygote:
    """Native candidates: a process forked before the judge reads its first request, so it holds no
    test, that forks a fresh candidate interpreter for each program (one kept ready ahead) and ends it
    when the judge is done with it. Its channel carries one message per command: `f` (fork one),
    answered by the candidate's channel and its folder; `k` (end the oldest candidate handed out and
    still running), answered `k` once it has ended or `l` if it lingers."""

    def __init__(self, confinement):
        self.socket, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:
            self.socket.close()
            _zygote_loop(child, confinement)
        child.close()
        status = self.socket.recv(256)
        self.own_root = status == b"r"
        self.own_root_problem = None if self.own_root else status[1:].decode("utf-8", "replace") or "the zygote ended"
        self.lingering = False
        self.ready = None  # a forked candidate's message, read while waiting for something else
        self.ahead = False  # a fork asked for and not yet read
        self._ask_fork()

    def ended(self):
        """Whether the zygote has ended or stopped, or a candidate outlived its program (no program
        should be able to do any; if one did, the host starts a fresh judge, see `main`)."""
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return True
        return pid != 0 or self.lingering

    def _ask_fork(self):
        self.socket.send(b"f")
        self.ahead = True

    def _forked(self):
        """The next forked candidate's message and descriptors."""
        if self.ready is not None:
            forked, self.ready = self.ready, None
            return forked
        if not self.ahead:
            self._ask_fork()
        self.ahead = False
        message, fds, _, _ = socket.recv_fds(self.socket, 4096, 1)
        if not fds:
            raise CandidateGone("the zygote that forks candidate interpreters has ended")
        return message, fds

    def connect(self):
        message, fds = self._forked()
        if self.ready is None and not self.ahead:
            self._ask_fork()  # the next one forks while this one runs
        channel = socket.socket(fileno=fds[0])
        reader, writer = channel.makefile("rb"), channel.makefile("wb")
        channel.close()
        folder = message.decode()

        def retire():
            """The candidate ends with its program: the zygote kills it, and what it wrote goes with
            its mount namespace (without one, its folder is removed here)."""
            for stream in (reader, writer):
                try:
                    stream.close()
                except OSError:
                    pass
            self._end_oldest()
            if folder:
                import shutil  # noqa: PLC0415  (only where the kernel gave no mount namespace)

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

        return Link(exchange, retire)

    def _end_oldest(self):
        """Asks the zygote to end the oldest candidate handed out, and waits until it has (a zygote
        that ended, stopped or does not answer in time leaves it to the host, see `ended`)."""
        if self.ended():
            self.lingering = True
            return
        self.socket.settimeout(2 * RETIRE_WAIT_MS / 1000)
        try:
            if self.ahead:
                self.ready = self._forked()
            self.socket.send(b"k")
            answer = self.socket.recv(1)
        except (OSError, CandidateGone):
            answer = b""
        finally:
            self.socket.settimeout(None)
        if answer != b"k":
            self.lingering = True


def _zygote_loop(channel, confinement):
    """The zygote: stdin and stdout at /dev/null and no other descriptor but its channel, its own root
    where the kernel allows one, then one candidate per `f` and one end per `k` (see `Zygote`), each
    candidate in a PID namespace of its own where the kernel allows one (no other process is visible
    to it: its parent and its group are outside, pid 0)."""
    try:
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
        kernel = None
        if confinement is not None:
            from .kernel import Kernel  # noqa: PLC0415  (native only)

            kernel = Kernel()
        namespaces = _PidNamespaces(kernel) if kernel is not None else None  # reads /proc: first
        problem = _enter_own_root(kernel, confinement["read"]) if kernel is not None else "no confinement asked for"
        own_root = problem is None
        channel.send(b"r" if own_root else b"-" + problem.encode()[:200])
        # Objects from before the fork stay out of the candidates' collections, which would otherwise
        # touch, and so copy, every page the zygote shares with them.
        gc.collect()
        gc.freeze()
        settings = _Settings()
        running = []
        while command := channel.recv(1):
            if command == b"k":
                channel.send(b"k" if running and _ended(running.pop(0)) else b"l")
                continue
            mine, theirs = socket.socketpair()
            folder = "" if own_root else os.path.join(os.getcwd(), f"program-{secrets.token_hex(16)}")
            if folder:
                os.mkdir(folder, 0o700)
            if namespaces is not None:
                namespaces.next_child()
            pid = os.fork()
            if pid == 0:
                channel.close()
                theirs.close()
                if namespaces is not None:
                    namespaces.close()
                for pidfd in running:
                    os.close(pidfd)
                _confine(kernel, confinement, folder or WORK, own_root, settings)
                _serve_forked(mine)
            running.append(os.pidfd_open(pid))
            socket.send_fds(channel, [folder.encode()], [theirs.fileno()])
            mine.close()
            theirs.close()
    finally:
        os._exit(0)


def _ended(pidfd):
    """Kills a candidate through its pidfd and waits until it has ended."""
    import select  # noqa: PLC0415  (native only)

    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except ProcessLookupError:
        pass  # it had ended
    waiting = select.poll()
    waiting.register(pidfd, select.POLLIN)
    ended = bool(waiting.poll(RETIRE_WAIT_MS))
    os.close(pidfd)
    return ended


def _enter_own_root(kernel, read):
    """The zygote's own root, in a mount namespace of its own: a small tmpfs holding read-only bind
    mounts of `read` (what Python needs: its prefixes, `sys.path`, the system's libraries, a few
    devices) and `/dev/null` at their own paths, and the empty folder `WORK`, read-only itself. None,
    or why not where the kernel refuses a step (the zygote's root is then the judge's)."""
    try:
        kernel.unshare(kernel.CLONE_NEWNS)
        kernel.mount(None, "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
        root = os.path.join(os.getcwd(), f"root-{secrets.token_hex(8)}")
        os.mkdir(root, 0o755)
        kernel.mount("tmpfs", root, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV, "size=1m,mode=0755")
        bound = []
        wanted = {os.path.normpath(p) for p in [*read, os.devnull] if os.path.isabs(p) and os.path.exists(p)}
        for path in sorted(wanted, key=len):
            if any(path.startswith(above.rstrip("/") + "/") for above in bound):
                continue  # inside a folder bound already
            bound.append(path)
            inside = root + path
            if os.path.isdir(path):
                os.makedirs(inside, 0o755, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(inside), 0o755, exist_ok=True)
                os.close(os.open(inside, os.O_CREAT | os.O_WRONLY, 0o644))
            # Every mount it copies is read-only already (cli/src/sandbox.rs made them so).
            kernel.mount(path, inside, None, kernel.MS_BIND | kernel.MS_REC)
        os.mkdir(root + WORK, 0o755)  # FileExistsError where Python lives beneath it: no own root
        os.mkdir(root + "/old", 0o700)
        kernel.pivot_root(root, root + "/old")
        os.chdir("/")
        kernel.detach("/old")
        os.rmdir("/old")
        kernel.mount(None, "/", None, kernel.MS_BIND | kernel.MS_REMOUNT | kernel.MS_RDONLY | kernel.MS_NOSUID | kernel.MS_NODEV)
        return None
    except OSError as exc:
        return str(exc)


class _PidNamespaces:
    """A fresh PID namespace for each child the zygote forks: setns back to its own, then unshare (a
    process may unshare a PID namespace only while its children's is its own). Both need
    CAP_SYS_ADMIN over the zygote's own PID namespace, which the sandbox gives by starting it in one
    that its user namespace owns (cli/src/sandbox.rs, `Namespaces`); where the kernel refuses,
    children share the zygote's, and Landlock's scopes still keep their signals and ptrace from
    every other process."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.clone_newpid = kernel.CLONE_NEWPID
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
        if not self.on:
            return
        try:
            self.kernel.setns(self.own, self.clone_newpid)
            self.kernel.unshare(self.clone_newpid)
        except OSError:
            self.on = False
            try:
                self.kernel.setns(self.own, self.clone_newpid)
            except OSError:
                pass


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


def _confine(kernel, confinement, folder, own_root, settings):
    """A native candidate's confinement, set up before it runs anything (see the module docstring; a
    candidate that cannot confine itself ends first). Without `confinement` (`--unsafe-python`) only
    its folder and limits."""
    try:
        settings.apply()
        if confinement is None:
            os.chdir(folder)
            return
        kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
        uid = confinement.get("uid") if own_root else None
        if own_root:
            kernel.unshare(kernel.CLONE_NEWNS)
            owner = os.getuid() if uid is None else uid
            options = f"size={confinement['quota_bytes']},mode=0700,uid={owner},gid={owner}"
            kernel.mount("tmpfs", WORK, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC, options)
        os.chdir(folder)
        if uid is not None:
            # Root's candidate as `nobody`: the kernel counts a root's threads nowhere, anyone else's
            # per user namespace (its own root makes every file Python needs reachable to it).
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        try:
            kernel.unshare(kernel.CLONE_NEWUSER)
            threads = confinement["threads"]
        except OSError:
            threads = None  # no user namespace of its own: its threads are counted with others'
        kernel.drop_capabilities()
        if threads is not None:
            import resource  # noqa: PLC0415  (POSIX only)

            resource.setrlimit(resource.RLIMIT_NPROC, (threads, threads))
        kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
        abi = kernel.landlock_abi()
        if abi:
            rules = dict.fromkeys((p for p in confinement["read"] if os.path.exists(p)), kernel.LANDLOCK_READ)
            rules[os.devnull] = kernel.LANDLOCK_READ | kernel.LANDLOCK_WRITE_FILE
            rules[folder] = -1  # every right
            kernel.landlock(abi, rules, scoped=0b11)  # ABSTRACT_UNIX_SOCKET, SIGNAL
        for program in confinement["seccomp"]:
            kernel.seccomp(bytes.fromhex(program))
        # A program's `import ctypes` loads it afresh, and the audit hook hears it.
        for name in [n for n in sys.modules if n == "ctypes" or n.startswith("ctypes.") or n == f"{__package__}.kernel"]:
            del sys.modules[name]
        vars(sys.modules[__package__]).pop("kernel", None)
    except BaseException:
        os._exit(70)


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


def restrict_judge(confinement):
    """The judge's own Landlock domain (the CLI built its ruleset and left its descriptor open),
    entered once the zygote, which must mount, is forked: from here it reads what Python needs and
    writes only its scratch folder."""
    fd = (confinement or {}).get("landlock_fd")
    if fd is None:
        return
    from .kernel import Kernel  # noqa: PLC0415  (native only)

    try:
        Kernel().restrict(fd)
    except OSError:
        pass  # `confinement_report` finds the files layer off and says so
    os.close(fd)


def confinement_report(zygote, confinement):
    """What confines this process and its candidates, as its host reports it (cli/src/sandbox.rs),
    tried rather than assumed: files outside what Python needs, the network, new processes for
    candidates, read-only mounts outside the scratch folder, the scratch folder's quota, and whether
    candidates see a root of their own."""

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
        "processes": bool(confinement and confinement["seccomp"]),
        "read_only_outside": bool(os.statvfs("/").f_flag & os.ST_RDONLY),
        "quota_bytes": quota_bytes(),
        "own_root": zygote.own_root,
        "own_root_problem": zygote.own_root_problem,
    }
