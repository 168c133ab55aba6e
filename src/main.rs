//! The `wikiwit` command line: argument parsing and printing only; the work is done by
//! the `wikiwit` library.

mod cli;

/// The parser allocates many small strings per page; mimalloc's thread-local free lists
/// cut the allocator's share of a build by about half compared to glibc's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    no_huge_pages();
    cli::main()
}

/// Asks Linux not to back this process's anonymous memory with transparent huge pages.
/// mimalloc advises huge pages for its arenas; each first touch of a 2 MiB range then has
/// the kernel zero all of it, and as mimalloc hands freed memory back and takes fresh
/// ranges the zeroing recurs (15 % of an audit's profile; figures in docs/performance.md).
/// A kernel without the call keeps its default: not an error.
fn no_huge_pages() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}
