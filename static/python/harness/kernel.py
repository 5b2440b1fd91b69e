"""The Linux system calls of the native confinement (`confinement`) that Python's standard library has
no function for, made through ctypes: namespaces and mounts (a candidate's root and its folder),
identities and capabilities, Landlock and seccomp. Each raises OSError naming the call that failed.
Native only: the page never imports it."""

import ctypes
import os

class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


class Kernel:
    """The calls, on the C library of this process, and their constants."""

    CLONE_NEWNS = 0x00020000
    CLONE_NEWUSER = 0x10000000
    CLONE_NEWPID = 0x20000000

    MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
    MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
    MNT_DETACH = 0x2

    PR_SET_PDEATHSIG, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 1, 22, 38
    SECCOMP_MODE_FILTER = 2

    # pivot_root has no C library wrapper; the Landlock calls have the same numbers everywhere.
    PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine)
    LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446

    # Landlock's file rights (linux/landlock.h): reading is EXECUTE, READ_FILE and READ_DIR.
    LANDLOCK_READ = (1 << 0) | (1 << 2) | (1 << 3)
    LANDLOCK_WRITE_FILE = 1 << 1
    # What a rule on a file (not a folder) may allow: EXECUTE, WRITE_FILE, READ_FILE, TRUNCATE, IOCTL_DEV.
    LANDLOCK_FILE_RIGHTS = 0b111 | (1 << 14) | (1 << 15)

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)

    def _checked(self, result, call):
        if result < 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"{call}: {os.strerror(errno)}")
        return result

    def unshare(self, flags):
        self._checked(self.libc.unshare(flags), "unshare")

    def setns(self, fd, kind):
        self._checked(self.libc.setns(fd, kind), "setns")

    def mount(self, source, target, fstype, flags, data=None):
        encode = lambda text: None if text is None else os.fsencode(text)
        result = self.libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data))
        self._checked(result, f"mount {target}")

    def detach(self, target):
        """Unmounts `target` lazily: it goes once nothing uses it."""
        self._checked(self.libc.umount2(os.fsencode(target), self.MNT_DETACH), f"umount {target}")

    def pivot_root(self, new_root, put_old):
        if self.PIVOT_ROOT is None:
            raise OSError(38, "pivot_root: not known on this architecture")
        self._checked(self.libc.syscall(self.PIVOT_ROOT, os.fsencode(new_root), os.fsencode(put_old)), "pivot_root")

    def prctl(self, option, value):
        self._checked(self.libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")

    def drop_capabilities(self):
        """No capability left, effective, permitted or inheritable (version 3: both 32-bit halves)."""
        header = _CapHeader(0x20080522, 0)
        data = (_CapData * 2)()
        self._checked(self.libc.capset(ctypes.byref(header), data), "capset")

    @staticmethod
    def landlock_rights(abi):
        """Every file right Landlock ABI `abi` handles: the first 13 since ABI 1, then REFER (2),
        TRUNCATE (3) and IOCTL_DEV (5)."""
        rights = (1 << 13) - 1
        return rights | (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0) | (1 << 15 if abi >= 5 else 0)

    def landlock_abi(self):
        """Landlock's ABI version, or 0 where the kernel has none."""
        return max(self.libc.syscall(self.LANDLOCK_CREATE_RULESET, None, 0, 1), 0)

    def landlock(self, abi, rules, scoped):
        """A Landlock domain of this thread's own, nested in any it has: every file right `abi` knows
        handled, and allowed only beneath each path of `rules` ({path: rights}); `scoped` the
        scopes (ABSTRACT_UNIX_SOCKET 1, SIGNAL 2, from ABI 6)."""
        attr = _RulesetAttr(self.landlock_rights(abi), 0, scoped if abi >= 6 else 0)
        size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
        ruleset = self._checked(self.libc.syscall(self.LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0), "landlock_create_ruleset")
        try:
            for path, rights in rules.items():
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:
                    rights &= self.landlock_rights(abi) & (-1 if os.path.isdir(path) else self.LANDLOCK_FILE_RIGHTS)
                    rule = _PathBeneath(rights, fd)
                    self._checked(self.libc.syscall(self.LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0), f"landlock_add_rule {path}")
                finally:
                    os.close(fd)
            self.restrict(ruleset)
        finally:
            os.close(ruleset)

    def restrict(self, ruleset):
        """Enforces the Landlock ruleset behind descriptor `ruleset` on this thread (nested in any it has)."""
        self._checked(self.libc.syscall(self.LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")

    def seccomp(self, program):
        """Installs one seccomp filter (a BPF program as the kernel reads it)."""
        code = ctypes.create_string_buffer(program, len(program))
        fprog = _SockFprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
        self.prctl(self.PR_SET_NO_NEW_PRIVS, 1)
        self._checked(self.libc.prctl(self.PR_SET_SECCOMP, self.SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")
