//! The sandbox's Linux layers (see the parent module): the namespaces entered before exec, the
//! judge's Landlock ruleset, and the seccomp allowlists of the judge and of its candidates.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

use super::Interpreter;

/// Libraries and the files the loader and Python read at start.
const SYSTEM_READ: [&str; 9] = [
    "/usr/lib",
    "/usr/lib64",
    "/lib",
    "/lib64",
    "/usr/share/zoneinfo",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/dev/urandom",
    "/dev/random",
];

/// The system calls CPython makes running the harness and programs (measured with seccomp's log
/// over the whole test suite, docs/guide.md): what every process in the sandbox may call.
/// Everything that reaches outside the process is missing on purpose: sockets (but for the
/// channels' own calls), other processes (ptrace, pidfds, process_vm_*), metadata (chmod, chown,
/// utime, xattrs), watches (inotify, fanotify), mounts, namespaces, keys, BPF, io_uring, clocks.
const ALLOWED: &[i64] = &[
    // Memory.
    libc::SYS_brk,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mprotect,
    libc::SYS_mremap,
    libc::SYS_madvise,
    libc::SYS_msync,
    libc::SYS_membarrier,
    // Reading and writing open files (Landlock decides what opens).
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_pread64,
    libc::SYS_pwrite64,
    libc::SYS_preadv,
    libc::SYS_pwritev,
    libc::SYS_preadv2,
    libc::SYS_pwritev2,
    libc::SYS_lseek,
    libc::SYS_close,
    libc::SYS_close_range,
    libc::SYS_dup,
    libc::SYS_dup3,
    libc::SYS_fcntl,
    libc::SYS_fsync,
    libc::SYS_fdatasync,
    libc::SYS_ftruncate,
    libc::SYS_fallocate,
    libc::SYS_pipe2,
    libc::SYS_sendfile,
    libc::SYS_copy_file_range,
    libc::SYS_memfd_create,
    // Paths (Landlock decides which; outside the scratch folder nothing changes).
    libc::SYS_openat,
    libc::SYS_newfstatat,
    libc::SYS_fstat,
    libc::SYS_statx,
    libc::SYS_statfs,
    libc::SYS_fstatfs,
    libc::SYS_getdents64,
    libc::SYS_faccessat,
    libc::SYS_faccessat2,
    libc::SYS_readlinkat,
    libc::SYS_getcwd,
    libc::SYS_chdir,
    libc::SYS_fchdir,
    libc::SYS_mkdirat,
    libc::SYS_unlinkat,
    libc::SYS_renameat,
    libc::SYS_renameat2,
    libc::SYS_umask,
    // Threads and the process's own end.
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_wait4,
    libc::SYS_waitid,
    libc::SYS_set_tid_address,
    libc::SYS_set_robust_list,
    libc::SYS_get_robust_list,
    libc::SYS_rseq,
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_getpriority,
    libc::SYS_getrlimit,
    libc::SYS_setrlimit,
    libc::SYS_getrusage,
    libc::SYS_times,
    // Who it is.
    libc::SYS_getpid,
    libc::SYS_getppid,
    libc::SYS_gettid,
    libc::SYS_getuid,
    libc::SYS_geteuid,
    libc::SYS_getgid,
    libc::SYS_getegid,
    libc::SYS_getgroups,
    libc::SYS_getresuid,
    libc::SYS_getresgid,
    libc::SYS_getpgid,
    libc::SYS_getsid,
    libc::SYS_capget,
    // Signals (Landlock scopes them to the sender's own domain).
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_rt_sigsuspend,
    libc::SYS_rt_sigtimedwait,
    libc::SYS_rt_sigpending,
    libc::SYS_sigaltstack,
    libc::SYS_kill,
    libc::SYS_tgkill,
    libc::SYS_tkill,
    // Time, read and waited for (never set).
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_clock_nanosleep,
    libc::SYS_nanosleep,
    libc::SYS_gettimeofday,
    libc::SYS_getitimer,
    libc::SYS_setitimer,
    libc::SYS_timer_create,
    libc::SYS_timer_settime,
    libc::SYS_timer_gettime,
    libc::SYS_timer_delete,
    libc::SYS_timerfd_create,
    libc::SYS_timerfd_settime,
    libc::SYS_timerfd_gettime,
    // Waiting on descriptors (asyncio, selectors).
    libc::SYS_ppoll,
    libc::SYS_pselect6,
    libc::SYS_epoll_create1,
    libc::SYS_epoll_ctl,
    libc::SYS_epoll_pwait,
    libc::SYS_epoll_pwait2,
    libc::SYS_eventfd2,
    // The channel to the judge, already connected: receiving, and facts about it.
    libc::SYS_recvfrom,
    libc::SYS_getsockname,
    libc::SYS_getpeername,
    libc::SYS_getsockopt,
    libc::SYS_shutdown,
    // The machine, read only.
    libc::SYS_uname,
    libc::SYS_sysinfo,
    libc::SYS_getrandom,
    libc::SYS_getcpu,
    libc::SYS_restart_syscall,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_arch_prctl,
    // x86_64's older names for calls above.
    #[cfg(target_arch = "x86_64")]
    libc::SYS_open,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_stat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_lstat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_access,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_readlink,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_mkdir,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_rmdir,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_unlink,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_rename,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_dup2,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_pipe,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_getdents,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_poll,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_select,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_epoll_wait,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_epoll_create,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_alarm,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_time,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_getpgrp,
];

/// The judge's and the zygote's own, on top of `ALLOWED`: the interpreter's start, forks and
/// threads, the zygote's own root and a candidate's confinement (before its own filter), ending a
/// candidate through its pidfd, and the zygote's channels. Landlock refuses every mount to a process
/// in a domain, which the judge and each candidate enter: only the zygote, which runs the harness
/// alone, mounts. What tells one program of another's reads (locks, readahead hints, the page
/// cache's residency) is here too, out of the candidates' reach.
const JUDGE_ONLY: &[i64] = &[
    libc::SYS_execve,
    libc::SYS_clone,
    libc::SYS_clone3,
    libc::SYS_setpriority,
    libc::SYS_sched_setaffinity,
    libc::SYS_seccomp,
    libc::SYS_landlock_create_ruleset,
    libc::SYS_landlock_add_rule,
    libc::SYS_landlock_restrict_self,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_setgroups,
    libc::SYS_setresuid,
    libc::SYS_setresgid,
    libc::SYS_capset,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_sendto,
    libc::SYS_sendmsg,
    libc::SYS_recvmsg,
    libc::SYS_flock,
    libc::SYS_fadvise64,
    libc::SYS_mincore,
];

/// fcntl's commands for a candidate: descriptors' flags and copies, and a memfd's seals; no lock
/// (`F_SETLK`, `F_OFD_SETLK` …), lease or directory notice, which another process could see.
const CANDIDATE_FCNTL: [u64; 9] = [
    libc::F_DUPFD as u64,
    libc::F_DUPFD_CLOEXEC as u64,
    libc::F_GETFD as u64,
    libc::F_SETFD as u64,
    libc::F_GETFL as u64,
    libc::F_SETFL as u64,
    libc::F_GETPIPE_SZ as u64,
    libc::F_ADD_SEALS as u64,
    libc::F_GET_SEALS as u64,
];

/// prctl's options for the judge: a child's death signal, its name, and installing a filter.
const JUDGE_PRCTL: [u64; 6] = [
    libc::PR_SET_PDEATHSIG as u64,
    libc::PR_SET_NAME as u64,
    libc::PR_GET_NAME as u64,
    libc::PR_SET_SECCOMP as u64,
    libc::PR_SET_NO_NEW_PRIVS as u64,
    libc::PR_GET_NO_NEW_PRIVS as u64,
];

/// prctl's options for a candidate: a thread's name.
const CANDIDATE_PRCTL: [u64; 2] = [libc::PR_SET_NAME as u64, libc::PR_GET_NAME as u64];

/// The namespaces, entered in the child before exec: a mount namespace of its own (with a user
/// namespace where the CLI is not root, mapping the user to root inside, so that it may mount),
/// every mount read-only, and a tmpfs of `SCRATCH_QUOTA_BYTES` on the scratch folder: outside
/// it, nothing changes, metadata included, whatever Landlock does not handle. Then a PID
/// namespace for the judge's children. Best effort: where the kernel refuses a step the layer is
/// off, and the judge's first line says so.
pub struct Namespaces {
    scratch: CString,
    tmpfs: CString,
    uid_map: CString,
    gid_map: CString,
    root: bool,
}

/// `struct mount_attr` (linux/mount.h).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;

impl Namespaces {
    pub fn new(scratch: &Path) -> Result<Self, String> {
        let text = |text: String| CString::new(text).map_err(|e| format!("the scratch folder's path: {e}"));
        let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
        Ok(Self {
            scratch: CString::new(scratch.as_os_str().as_encoded_bytes())
                .map_err(|e| format!("the scratch folder's path: {e}"))?,
            tmpfs: text(format!("size={},mode=0700", super::SCRATCH_QUOTA_BYTES))?,
            uid_map: text(format!("0 {uid} 1"))?,
            gid_map: text(format!("0 {gid} 1"))?,
            root: uid.is_root(),
        })
    }

    /// In the child, before exec: only system calls on what `new` built.
    pub fn enter(&self) {
        use nix::mount::{MsFlags, mount};
        use nix::sched::{CloneFlags, unshare};

        let flags =
            if self.root { CloneFlags::CLONE_NEWNS } else { CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWUSER };
        if unshare(flags).is_err() {
            return;
        }
        if !self.root {
            write(c"/proc/self/setgroups", c"deny");
            write(c"/proc/self/uid_map", &self.uid_map);
            write(c"/proc/self/gid_map", &self.gid_map);
        }
        // Nothing mounted here reaches the caller's namespace.
        if mount(None::<&CStr>, c"/", None::<&CStr>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&CStr>).is_err() {
            return;
        }
        let read_only = MountAttr { attr_set: MOUNT_ATTR_RDONLY, attr_clr: 0, propagation: 0, userns_fd: 0 };
        // SAFETY: mount_setattr(2) reads `read_only` for its size; nix has no wrapper for it.
        unsafe {
            libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                c"/".as_ptr(),
                libc::AT_RECURSIVE,
                &read_only as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            );
        }
        // The judge's children (the zygote) start a PID namespace owned by this user namespace,
        // in which the zygote may then start one for each candidate (harness/confinement.py, `_PidNamespaces`).
        let _ = unshare(CloneFlags::CLONE_NEWPID);
        let tmpfs = Some(c"tmpfs");
        if mount(
            tmpfs,
            self.scratch.as_c_str(),
            tmpfs,
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            Some(self.tmpfs.as_c_str()),
        )
        .is_ok()
        {
            // The working directory was the folder beneath; now it is the tmpfs.
            // SAFETY: a path that `new` made.
            unsafe { libc::chdir(self.scratch.as_ptr()) };
        }
    }
}

/// Writes `text` to `path` with system calls only (a user namespace's maps).
fn write(path: &CStr, text: &CStr) {
    // SAFETY: both are valid C strings; the descriptor is closed here.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd >= 0 {
            libc::write(fd, text.as_ptr().cast(), text.to_bytes().len());
            libc::close(fd);
        }
    }
}

/// What Python needs to read: the system's libraries and the files the loader and Python read at
/// start, the interpreter's prefixes and its `sys.path`. The judge's ruleset allows reading them, and
/// the zygote's own root holds them (harness/confinement.py).
pub fn read_paths(interpreter: &Interpreter) -> Vec<PathBuf> {
    SYSTEM_READ.iter().map(PathBuf::from).chain(interpreter.read.iter().cloned()).collect()
}

/// The judge's ruleset: read (and execute, for the loader and the interpreter) what Python
/// needs, read and write `/dev/null`, everything beneath `scratch`; nothing else.
pub fn ruleset(interpreter: &Interpreter, scratch: &Path) -> Result<RulesetCreated, String> {
    let abi = ABI::V6;
    let read = AccessFs::from_read(abi);
    let build = || -> Result<RulesetCreated, landlock::RulesetError> {
        landlock::Ruleset::default()
            .handle_access(AccessFs::from_all(abi))?
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .scope(Scope::Signal | Scope::AbstractUnixSocket)?
            .create()?
            .add_rules(path_beneath_rules(read_paths(interpreter), read))?
            .add_rules(path_beneath_rules(["/dev/null"], read | AccessFs::WriteFile))?
            .add_rules(path_beneath_rules([scratch], AccessFs::from_all(abi)))
    };
    build().map_err(|e| format!("could not build the Python sandbox's file rules: {e}"))
}

/// The judge's seccomp filters, and the candidates' (in hex, for the zygote). Each
/// is an allowlist (`ALLOWED`, narrowed by `judge_rules` and `candidate_rules`): any other call,
/// a new kernel's included, fails with EPERM. The candidates' filters stack on the judge's, so a
/// candidate may make only calls both allow.
pub fn filters() -> Result<(Vec<BpfProgram>, Vec<String>), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| format!("seccomp: {e}"))?;
    let compile = |rules: Rules, mismatch: SeccompAction, matched: SeccompAction| -> Result<BpfProgram, String> {
        let filter = SeccompFilter::new(rules, mismatch, matched, arch).map_err(|e| format!("seccomp: {e}"))?;
        filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
    };
    let eperm = SeccompAction::Errno(libc::EPERM as u32);
    // clone3 reads its flags from memory a filter cannot see: it answers "not implemented", and
    // the C library falls back to clone, whose flags the candidates' filter reads.
    let no_clone3 =
        || compile(only(&[libc::SYS_clone3]), SeccompAction::Allow, SeccompAction::Errno(libc::ENOSYS as u32));
    // The allowlist last: a filter is checked from the next call on, so the call that installs
    // the allowlist is still allowed by the filters before it.
    let judge = vec![no_clone3()?, compile(judge_rules()?, eperm.clone(), SeccompAction::Allow)?];
    let candidate = [no_clone3()?, compile(candidate_rules()?, eperm, SeccompAction::Allow)?];
    Ok((judge, candidate.iter().map(hex).collect()))
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

/// Every call in `calls`, whatever its arguments.
fn only(calls: &[i64]) -> Rules {
    calls.iter().map(|&call| (call, Vec::new())).collect()
}

/// A rule that holds when argument `index` equals one of `values`.
fn argument_in(index: u8, values: &[u64]) -> Result<Vec<SeccompRule>, String> {
    values
        .iter()
        .map(|&value| {
            SeccompCondition::new(index, SeccompCmpArgLen::Qword, SeccompCmpOp::Eq, value)
                .and_then(|condition| SeccompRule::new(vec![condition]))
                .map_err(|e| format!("seccomp: {e}"))
        })
        .collect()
}

/// A rule that holds when argument `index` has every bit of `mask` set (`set`) or none (not `set`).
fn argument_has(index: u8, mask: u64, set: bool) -> Result<Vec<SeccompRule>, String> {
    let value = if set { mask } else { 0 };
    let condition = SeccompCondition::new(index, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(mask), value)
        .map_err(|e| format!("seccomp: {e}"))?;
    Ok(vec![SeccompRule::new(vec![condition]).map_err(|e| format!("seccomp: {e}"))?])
}

/// `ALLOWED`, and ioctl for a terminal's questions (`isatty`, its size), bytes waiting, and
/// non-blocking or close-on-exec descriptors only.
fn common_rules() -> Result<Rules, String> {
    let mut rules = only(ALLOWED);
    let requests = [libc::TCGETS, libc::TIOCGWINSZ, libc::FIONREAD, libc::FIOCLEX, libc::FIONCLEX, libc::FIONBIO];
    rules.insert(libc::SYS_ioctl, argument_in(1, &requests)?);
    // Its own limits only: no process changes another's (a zygote's, which later candidates
    // would inherit).
    rules.insert(libc::SYS_prlimit64, argument_in(0, &[0])?);
    Ok(rules)
}

/// The judge's and the zygote's calls: `ALLOWED`, plus starting the interpreter, forking
/// candidates into PID namespaces of their own, confining them and talking to them.
fn judge_rules() -> Result<Rules, String> {
    let mut rules = common_rules()?;
    rules.extend(only(JUDGE_ONLY));
    rules.insert(libc::SYS_prctl, argument_in(0, &JUDGE_PRCTL)?);
    let namespaces = [libc::CLONE_NEWPID, libc::CLONE_NEWNS, libc::CLONE_NEWUSER].map(|flag| flag as u64);
    rules.insert(libc::SYS_unshare, argument_in(0, &namespaces)?);
    rules.insert(libc::SYS_setns, argument_in(1, &[libc::CLONE_NEWPID as u64])?);
    rules.insert(libc::SYS_socketpair, argument_in(0, &[libc::AF_UNIX as u64])?);
    Ok(rules)
}

/// A candidate's calls: `ALLOWED`, threads but no process, and sending on its own channel only.
fn candidate_rules() -> Result<Rules, String> {
    let mut rules = common_rules()?;
    rules.insert(libc::SYS_clone, argument_has(0, libc::CLONE_THREAD as u64, true)?);
    rules.insert(libc::SYS_fcntl, argument_in(1, &CANDIDATE_FCNTL)?);
    // A read that fails rather than wait for the disk tells which pages another program read.
    let no_wait = libc::RWF_NOWAIT as u64;
    rules.insert(libc::SYS_preadv2, argument_has(5, no_wait, false)?);
    rules.insert(libc::SYS_pwritev2, argument_has(5, no_wait, false)?);
    // Allowed here so that the other filter's ENOSYS is what the C library sees (of two errno
    // answers the kernel keeps the later filter's).
    rules.insert(libc::SYS_clone3, Vec::new());
    rules.insert(libc::SYS_prctl, argument_in(0, &CANDIDATE_PRCTL)?);
    // `send` on its connected channel, never to an address (a Unix socket by path).
    rules.insert(libc::SYS_sendto, argument_in(4, &[0])?);
    Ok(rules)
}

/// A BPF program as the kernel reads it (`struct sock_filter`, in this machine's byte order), in hex.
fn hex(program: &BpfProgram) -> String {
    program
        .iter()
        .flat_map(|f| [f.code.to_ne_bytes().as_slice(), &[f.jt, f.jf], &f.k.to_ne_bytes()].concat())
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
