//! The `wikiwit` command line: argument parsing and printing only; the work is done by
//! the `wikiwit` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
