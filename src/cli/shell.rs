//! `sselint completions SHELL` and `sselint man`: the files a packaged
//! tool installs beside its binary, written from the same clap definitions
//! the command line is parsed with, so they never fall behind it.
//!
//! Both print to stdout; where a file goes is the packager's choice
//! (`sselint completions bash > /usr/share/bash-completion/completions/sselint`,
//! `sselint man > sselint.1`).

use clap::CommandFactory as _;
use std::io::Write as _;
use std::process::ExitCode;

/// `sselint completions`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  sselint completions bash > ~/.local/share/bash-completion/completions/sselint
  sselint completions zsh > ~/.zfunc/_sselint      (with fpath+=~/.zfunc before compinit)
  sselint completions fish > ~/.config/fish/completions/sselint.fish")]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `sselint man`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  sselint man > sselint.1 && man ./sselint.1
  sselint man | gzip > /usr/local/share/man/man1/sselint.1.gz")]
pub struct ManArgs {}

/// Writes the completion script for `a.shell` to stdout.
pub fn completions(a: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "sselint", &mut out);
    super::write_report(None, &out)
}

/// Writes the man page (roff, section 1) to stdout: the synopsis, every
/// command with its options, and the exit codes.
pub fn man(_a: ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = super::Cli::command();
    let mut out = Vec::new();
    let page = clap_mangen::Man::new(cmd.clone());
    page.render_title(&mut out)?;
    page.render_name_section(&mut out)?;
    page.render_synopsis_section(&mut out)?;
    page.render_description_section(&mut out)?;
    page.render_options_section(&mut out)?;
    // The commands, each pointing at its section below: clap_mangen's own
    // list names one page per command (sselint-check(1)), which this single
    // page does not ship.
    writeln!(out, ".SH COMMANDS")?;
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        writeln!(
            out,
            ".TP\n\\fBsselint {}\\fR\n{} (see \\fBSSELINT {}\\fR below)",
            sub.get_name(),
            roff_text(&about),
            sub.get_name().to_uppercase()
        )?;
    }
    // Each command's own options, which the commands section only names.
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = sub.get_name();
        writeln!(out, ".SH \"SSELINT {}\"", name.to_uppercase())?;
        let sub = sub.clone().bin_name(format!("sselint {name}"));
        let sub_page = clap_mangen::Man::new(sub);
        sub_page.render_synopsis_section(&mut out)?;
        sub_page.render_options_section(&mut out)?;
    }
    page.render_extra_section(&mut out)?;
    page.render_version_section(&mut out)?;
    super::write_report(None, roff_ascii(&String::from_utf8_lossy(&out)).as_bytes())
}

/// Escapes `s` for a roff text line: backslashes, hyphens (so `man` does
/// not hyphenate option names), and a leading `.` or `'`, which roff would
/// read as a request.
fn roff_text(s: &str) -> String {
    let mut t = s.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with('.') || t.starts_with('\'') {
        t.insert_str(0, "\\&");
    }
    t
}

/// Writes every character outside ASCII as groff's `\[uXXXX]` escape, so
/// the page renders the same (an ellipsis, a dash) whether or not the
/// formatter is told the input's encoding (`groff` without `-k` is not).
fn roff_ascii(s: &str) -> String {
    let mut t = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            t.push(c);
        } else {
            t.push_str(&format!("\\[u{:04X}]", c as u32));
        }
    }
    t
}
