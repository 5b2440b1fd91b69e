//! The native Python sandbox (issues 33, 48 and 67). `rlcg` runs code that a remote LLM wrote, or
//! that a task file holds, so the harness's python3 (the judge), its zygote and every candidate
//! interpreter it forks run confined by the kernel, set up in the child between fork and exec, and
//! again in each candidate (harness/confinement.py, `_confine`) before it runs anything:
//! - **mounts** (nix, in a mount namespace, and a user namespace where the CLI is not root): every
//!   mount read-only, so nothing outside the scratch folder changes, metadata included; the scratch
//!   folder a tmpfs of its own with a quota. The zygote then enters a root of its own, made of
//!   read-only bind mounts of what Python needs (`read_paths`), so a program finds nothing else of
//!   the machine, and each candidate works in a tmpfs of its own in a mount namespace of its own,
//!   which goes when it ends: nothing it wrote outlives it;
//! - **files** (landlock): the judge reads what Python needs and writes only the scratch folder;
//!   its ruleset is built here and entered by the judge once it has forked the zygote (which must
//!   mount). Each candidate enters a domain of its own: it reads what Python needs, writes only in
//!   its folder, and its signals, ptrace and abstract sockets reach no process outside it;
//! - **processes**: each candidate in a PID namespace of its own, where no other process has a pid,
//!   and ended with its verdict through a pidfd, which names one process in every namespace;
//! - **identity**: each candidate in a user namespace of its own, with no capability (a root's
//!   candidate runs as `nobody` first), and at most `THREADS_LIMIT` threads;
//! - **system calls** (seccompiler): an allowlist (`ALLOWED`), so a call that is not on it, a new
//!   kernel's included, fails; candidates, on top, start no process, exec nothing, make no socket
//!   but use their channel, change no other process's limits, priority or CPU set, and take no lock,
//!   lease or readahead hint and make no non-blocking read (each would tell one program what
//!   another did);
//! - **resources** (nix): address space, file size, open files, no core dumps; a candidate sets its
//!   own after its fork, with a CPU-time backstop, and the wall clock kills the whole process group;
//! - an empty environment, so no key of the user's is there to read.
//!
//! Where the kernel lacks a layer, the CLI says once what is not enforced (`rlcg check --json`
//! reports the layers); `--unsafe-python` runs without any, deliberately. docs/guide.md, "What a
//! verdict guarantees", lists what each layer stops and the test that shows it.

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
/// The scratch folder's size (a tmpfs of its own, where the kernel allows one), and each program's
/// folder's (a tmpfs of its own too, gone with the program).
const SCRATCH_QUOTA_BYTES: u64 = 128 << 20;
/// The threads a candidate may have, its main thread included (the kernel counts them in the
/// candidate's own user namespace).
const THREADS_LIMIT: u32 = 64;
/// Who a root's candidate runs as (`nobody`): the kernel bounds no root's threads.
const ROOTS_CANDIDATE_UID: u32 = 65534;

/// What the interpreter needs to read: its prefixes and the directories of its `sys.path`.
pub struct Interpreter {
    pub executable: PathBuf,
    pub read: Vec<PathBuf>,
}

/// A scratch folder for one judge and the programs it runs, removed with it. They work in its
/// `work` folder, where the mount layer puts a tmpfs: Landlock's rule is on the folder above, since
/// Landlock does not look at a rule on a folder that a mount hides.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new() -> Result<Self, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("rlcg-python-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(path.join("work"))
            .map_err(|e| format!("could not make the scratch folder {}: {e}", path.display()))?;
        Ok(Self(path))
    }

    /// The folder Landlock lets the judge and its programs write beneath.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Where they work (the judge's working directory, the programs' folders).
    pub fn work(&self) -> PathBuf {
        self.0.join("work")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the zygote and its candidates are told of their confinement (`RLCG_CONFINEMENT`, read by
/// harness/confinement.py).
#[cfg(target_os = "linux")]
#[derive(serde::Serialize)]
struct CandidateConfinement {
    /// The candidates' seccomp filters, in hex, installed in order.
    seccomp: Vec<String>,
    /// What Python needs to read: the zygote's own root holds these, and candidates read them.
    read: Vec<PathBuf>,
    /// The judge's Landlock ruleset, left open for the judge to enter once it has forked the zygote.
    landlock_fd: Option<i32>,
    /// Each program's folder's size.
    quota_bytes: u64,
    /// Who a candidate runs as, where the CLI is root.
    uid: Option<u32>,
    /// The threads a candidate may have.
    threads: u32,
}

/// Confines `command` (the judge: python3 on the harness) to `scratch` as the module comment says,
/// unless `--unsafe-python` was given. Everything is built here, in the parent; the child only
/// makes system calls.
#[cfg(target_os = "linux")]
pub fn confine(command: &mut Command, interpreter: &Interpreter, scratch: &Scratch) -> Result<(), String> {
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;

    command.current_dir(scratch.work());
    if UNCONFINED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let (judge, candidate) = linux::filters()?;
    let namespaces = linux::Namespaces::new(&scratch.work())?;
    let ruleset: Option<OwnedFd> = linux::ruleset(interpreter, scratch.path())?.into();
    let landlock_fd = ruleset.as_ref().map(AsRawFd::as_raw_fd);
    let confinement = CandidateConfinement {
        seccomp: candidate,
        read: linux::read_paths(interpreter),
        landlock_fd,
        quota_bytes: SCRATCH_QUOTA_BYTES,
        uid: roots_candidate_uid(),
        threads: THREADS_LIMIT,
    };
    command.env("RLCG_CONFINEMENT", serde_json::to_string(&confinement).map_err(|e| e.to_string())?);
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
            namespaces.enter();
            // The ruleset's descriptor stays open across exec, for the judge to enter.
            if let Some(fd) = &ruleset
                && libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, 0) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            judge.iter().try_for_each(|filter| seccompiler::apply_filter(filter).map_err(std::io::Error::other))
        });
    }
    Ok(())
}

/// Who a candidate runs as where `rlcg` is root: `nobody`, where this user namespace maps it (the
/// machine's own always does; one that maps root alone, as `unshare --map-root-user` makes, does not,
/// and its root is not the machine's).
#[cfg(target_os = "linux")]
fn roots_candidate_uid() -> Option<u32> {
    if !nix::unistd::getuid().is_root() {
        return None;
    }
    let map = std::fs::read_to_string("/proc/self/uid_map").ok()?;
    let maps = |line: &str| {
        let numbers: Vec<u64> = line.split_whitespace().filter_map(|n| n.parse().ok()).collect();
        let uid = u64::from(ROOTS_CANDIDATE_UID);
        matches!(numbers[..], [inside, _, count] if inside <= uid && uid < inside + count)
    };
    map.lines().any(maps).then_some(ROOTS_CANDIDATE_UID)
}

#[cfg(not(target_os = "linux"))]
pub fn confine(command: &mut Command, _interpreter: &Interpreter, scratch: &Scratch) -> Result<(), String> {
    command.current_dir(scratch.work());
    Ok(())
}

/// What the judge found confining it, tried rather than assumed (its first line).
#[derive(Clone, Debug, Default, serde::Deserialize, serde::Serialize)]
pub struct Layers {
    /// Files outside what Python needs can be neither read nor written (Landlock).
    pub files: bool,
    /// No socket to anywhere (seccomp).
    pub network: bool,
    /// A candidate starts no process (its own seccomp filter).
    pub processes: bool,
    /// Every mount outside the scratch folder is read-only: no file's data or metadata changes.
    #[serde(default)]
    pub read_only_outside: bool,
    /// The scratch folder is a filesystem of its own of this many bytes.
    #[serde(default)]
    pub quota_bytes: Option<u64>,
    /// Candidates see a root of their own that holds only what Python needs, and each writes in a
    /// filesystem of its own that goes with it.
    #[serde(default)]
    pub own_root: bool,
    /// Why candidates have no root of their own, where they have none.
    #[serde(default)]
    pub own_root_problem: Option<String>,
}

static LAYERS: std::sync::OnceLock<Layers> = std::sync::OnceLock::new();

/// The layers the first judge of this run found (`rlcg check --json` reports them).
pub fn layers() -> Option<Layers> {
    LAYERS.get().cloned()
}

/// Says once per run of the CLI what is not enforced.
pub fn report(found: Layers) {
    if LAYERS.set(found.clone()).is_err() || UNCONFINED.load(Ordering::Relaxed) {
        return;
    }
    let mut missing = Vec::new();
    if !found.files {
        missing.push("file access (reading your home, writing outside a scratch folder)");
    }
    if !found.network {
        missing.push("the network");
    }
    if !found.processes {
        missing.push("starting processes");
    }
    if !found.read_only_outside {
        missing.push("changing file metadata outside the scratch folder (no mount namespace)");
    }
    if found.quota_bytes.is_none() {
        missing.push("filling the disk beyond the scratch folder's quota (no mount namespace)");
    }
    let own_root = format!(
        "seeing which paths exist on this machine, or leaving files to later programs (no root of their own: {})",
        found.own_root_problem.as_deref().unwrap_or("not made")
    );
    if !found.own_root {
        missing.push(own_root.as_str());
    }
    if missing.is_empty() {
        return;
    }
    let platform = if cfg!(target_os = "linux") { "this kernel" } else { "this system (the sandbox needs Linux)" };
    eprintln!(
        "note: on {platform}, Python programs are not kept from {}; each still runs in an interpreter of its own, and \
         no program writes its own verdict",
        missing.join(", ")
    );
}

#[cfg(target_os = "linux")]
mod linux;
