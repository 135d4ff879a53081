//! The `sselint` binary: parse arguments, run, map the outcome to an exit
//! code (0 clean, 1 findings at or above `--fail-on`, 2 usage or input
//! error). A broken pipe (`sselint check x | head -1`) is not an error.

use std::process::ExitCode;

fn main() -> ExitCode {
    match sselint_cli::run() {
        Ok(code) => code,
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            // A closed stderr loses the message, never panics.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "sselint: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[path = "cli/mod.rs"]
mod sselint_cli;
