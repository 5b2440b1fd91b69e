//! The native Python sandbox (issue 33). `rlcg` runs code that a remote LLM wrote, or that a task
//! file holds, so the harness's python3 (the judge), its zygote and every candidate interpreter it
//! forks run confined by the kernel, set up in the child between fork and exec:
//! - **files** (landlock): the interpreter's own files and the system's libraries read-only; writes
//!   only beneath a scratch folder of the judge's, where each program gets a folder of its own,
//!   deleted after it; nothing else (`~/.ssh` and the user's home included); signals only within
//!   the sandbox; TCP bind and connect refused;
//! - **system calls** (seccompiler): no socket at all (the zygote's socket pairs stay), no ptrace or
//!   reading another process's memory, no namespaces, mounts, modules, keyrings, BPF or io_uring, no
//!   new session or process group (a program would leave the group the wall clock kills);
//!   candidates, on top, cannot start a process or exec one: that filter is compiled here and
//!   installed by the zygote in each child (`harness.py`, `_confine`);
//! - **resources** (nix): address space, file size, open files, no core dumps; a candidate also has a
//!   CPU-time backstop, and the wall clock kills the whole process group;
//! - an empty environment, so no key of the user's is there to read.
//!
//! Root stays root inside (CI runs as root), but every door it would use is shut by the two layers.
//! Where the kernel lacks a layer, the CLI says once what is not enforced; `--unsafe-python` runs
//! without any, deliberately.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Set by `--unsafe-python`: programs run with the user's own rights.
static UNCONFINED: AtomicBool = AtomicBool::new(false);

/// Runs every later harness unconfined (`--unsafe-python`), saying so.
pub fn run_unconfined() {
    UNCONFINED.store(true, Ordering::Relaxed);
    eprintln!(
        "warning: --unsafe-python: Python programs (an LLM's, a task file's) run with your own rights: they can read and \
         write your files, use the network and start processes"
    );
}

/// The address space a harness process may map, unless RLCG_MEMORY_LIMIT_BYTES says otherwise.
const MEMORY_LIMIT_BYTES: u64 = 2 << 30;
/// The largest file a program may write.
const FILE_SIZE_LIMIT_BYTES: u64 = 64 << 20;
const OPEN_FILES_LIMIT: u64 = 256;

/// What the interpreter needs to read: its prefixes and the directories of its `sys.path`.
pub struct Interpreter {
    pub executable: PathBuf,
    pub read: Vec<PathBuf>,
}

/// A scratch folder for one judge and the programs it runs, removed with it.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new() -> Result<Self, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("rlcg-python-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("could not make the scratch folder {}: {e}", path.display()))?;
        Ok(Self(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Confines `command` (the judge: python3 on the harness) to `scratch` as the module comment says,
/// unless `--unsafe-python` was given. Everything is built here, in the parent; the child only
/// makes system calls.
#[cfg(target_os = "linux")]
pub fn confine(command: &mut Command, interpreter: &Interpreter, scratch: &Scratch) -> Result<(), String> {
    use std::os::unix::process::CommandExt;

    command.current_dir(scratch.path());
    if UNCONFINED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let (judge, candidate) = linux::filters()?;
    command.env("RLCG_CANDIDATE_SECCOMP", candidate);
    let mut ruleset = Some(linux::ruleset(interpreter, scratch.path())?);
    let memory =
        std::env::var("RLCG_MEMORY_LIMIT_BYTES").ok().and_then(|m| m.parse().ok()).unwrap_or(MEMORY_LIMIT_BYTES);
    // SAFETY: the closure runs in the forked child before exec and only makes system calls on what
    // was built above (no allocation, no lock).
    unsafe {
        command.pre_exec(move || {
            use nix::sys::resource::{Resource, setrlimit};
            let limit = |resource, value| setrlimit(resource, value, value).map_err(std::io::Error::from);
            limit(Resource::RLIMIT_AS, memory)?;
            limit(Resource::RLIMIT_FSIZE, FILE_SIZE_LIMIT_BYTES)?;
            limit(Resource::RLIMIT_NOFILE, OPEN_FILES_LIMIT)?;
            limit(Resource::RLIMIT_CORE, 0)?;
            if let Some(ruleset) = ruleset.take() {
                ruleset.restrict_self().map_err(std::io::Error::other)?;
            }
            seccompiler::apply_filter(&judge).map_err(std::io::Error::other)
        });
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn confine(command: &mut Command, _interpreter: &Interpreter, scratch: &Scratch) -> Result<(), String> {
    command.current_dir(scratch.path());
    Ok(())
}

/// What the judge found confining it (its first line), said once per run of the CLI where something
/// is not enforced.
pub fn report(files: bool, network: bool, processes: bool) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if UNCONFINED.load(Ordering::Relaxed) || (files && network && processes) || SAID.swap(true, Ordering::Relaxed) {
        return;
    }
    let mut missing = Vec::new();
    if !files {
        missing.push("file access (reading your home, writing outside a scratch folder)");
    }
    if !network {
        missing.push("the network");
    }
    if !processes {
        missing.push("starting processes");
    }
    let platform = if cfg!(target_os = "linux") { "this kernel" } else { "this system (the sandbox needs Linux)" };
    eprintln!(
        "note: on {platform}, Python programs are not kept from {}; each still runs in an interpreter of its own, and \
         no program writes its own verdict",
        missing.join(", ")
    );
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::BTreeMap;
    use std::path::Path;

    use landlock::{
        ABI, Access, AccessFs, AccessNet, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
    };
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
        TargetArch,
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
                .add_rules(path_beneath_rules(SYSTEM_READ, read))?
                .add_rules(path_beneath_rules(&interpreter.read, read))?
                .add_rules(path_beneath_rules(["/dev/null"], read | AccessFs::WriteFile))?
                .add_rules(path_beneath_rules([scratch], AccessFs::from_all(abi)))
        };
        build().map_err(|e| format!("could not build the Python sandbox's file rules: {e}"))
    }

    /// The judge's seccomp filter, and the candidates' (hex, comma-separated, for the zygote).
    pub fn filters() -> Result<(BpfProgram, String), String> {
        let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| format!("seccomp: {e}"))?;
        let refused = |syscalls: &[i64]| syscalls.iter().map(|&s| (s, Vec::new())).collect::<BTreeMap<_, _>>();
        let errno = |errno: i32| SeccompAction::Errno(errno as u32);
        let compile = |rules, action| -> Result<BpfProgram, String> {
            let filter =
                SeccompFilter::new(rules, SeccompAction::Allow, action, arch).map_err(|e| format!("seccomp: {e}"))?;
            filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
        };
        let judge = compile(
            refused(&[
                libc::SYS_socket,
                libc::SYS_connect,
                libc::SYS_bind,
                libc::SYS_listen,
                libc::SYS_accept,
                libc::SYS_accept4,
                libc::SYS_ptrace,
                libc::SYS_process_vm_readv,
                libc::SYS_process_vm_writev,
                libc::SYS_mount,
                libc::SYS_umount2,
                libc::SYS_pivot_root,
                libc::SYS_chroot,
                libc::SYS_unshare,
                libc::SYS_setns,
                libc::SYS_init_module,
                libc::SYS_finit_module,
                libc::SYS_delete_module,
                libc::SYS_kexec_load,
                libc::SYS_reboot,
                libc::SYS_swapon,
                libc::SYS_swapoff,
                libc::SYS_settimeofday,
                libc::SYS_clock_settime,
                libc::SYS_adjtimex,
                libc::SYS_bpf,
                libc::SYS_perf_event_open,
                libc::SYS_keyctl,
                libc::SYS_add_key,
                libc::SYS_request_key,
                libc::SYS_userfaultfd,
                libc::SYS_io_uring_setup,
                libc::SYS_io_uring_enter,
                libc::SYS_io_uring_register,
                libc::SYS_setsid,
                libc::SYS_setpgid,
                libc::SYS_mknod,
                libc::SYS_mknodat,
                libc::SYS_acct,
                libc::SYS_syslog,
                libc::SYS_open_by_handle_at,
            ]),
            errno(libc::EPERM),
        )?;
        // A candidate starts no process: clone only for a thread, no fork, vfork or exec. clone3
        // reads its flags from memory a filter cannot see, so it answers "not implemented" and the
        // C library falls back to clone for threads.
        let mut no_process = refused(&[libc::SYS_fork, libc::SYS_vfork, libc::SYS_execve, libc::SYS_execveat]);
        let not_a_thread =
            SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64), 0)
                .and_then(|condition| SeccompRule::new(vec![condition]))
                .map_err(|e| format!("seccomp: {e}"))?;
        no_process.insert(libc::SYS_clone, vec![not_a_thread]);
        let candidate =
            [compile(no_process, errno(libc::EPERM))?, compile(refused(&[libc::SYS_clone3]), errno(libc::ENOSYS))?];
        let hex = candidate.iter().map(hex).collect::<Vec<_>>().join(",");
        Ok((judge, hex))
    }

    /// A BPF program as the kernel reads it (`struct sock_filter`, in this machine's byte order), in hex.
    fn hex(program: &BpfProgram) -> String {
        program
            .iter()
            .flat_map(|f| [f.code.to_ne_bytes().as_slice(), &[f.jt, f.jf], &f.k.to_ne_bytes()].concat())
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}
