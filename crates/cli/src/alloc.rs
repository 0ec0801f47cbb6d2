//! The allocator: mimalloc, set for a long-running server when serving.
//!
//! mimalloc keeps freed memory committed for a while and commits arenas eagerly, which is
//! right for the bench and for one-shot commands (the slice bench's p50 was ~15% lower
//! than with the system allocator) but holds memory a server never gives back. Measured
//! with `scripts/serve_rss.py 400` on GitHub (serve, structure ranker, 400 searches):
//! resident 215 MB with the defaults, 99 MB with immediate purging and lazy arena commit
//! (the system allocator: 132 MB).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc reads its options from the environment when the process starts (before
/// `main`, at the first allocation), and the first arena keeps the startup setting; set at
/// run time they gave 134–141 MB in the measurement above. So the server re-executes
/// itself once with the options in its environment (a few milliseconds), unless the user
/// set them.
const SERVER_OPTIONS: [(&str, &str); 2] = [
    ("MIMALLOC_PURGE_DELAY", "0"),
    ("MIMALLOC_ARENA_EAGER_COMMIT", "0"),
];

/// Re-execute this process with the server's allocator options, when they are not set
/// yet. Returns only when they are already in effect or the re-exec failed (then the
/// server runs with the defaults).
pub fn tune_for_server() {
    if SERVER_OPTIONS
        .iter()
        .any(|(k, _)| std::env::var_os(k).is_some())
    {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut cmd = std::process::Command::new(exe);
        cmd.args(std::env::args_os().skip(1));
        for (k, v) in SERVER_OPTIONS {
            cmd.env(k, v);
        }
        // exec only returns on failure.
        let _ = cmd.exec();
    }
}
