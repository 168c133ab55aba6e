//! `wikiwit info`.

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
    /// Also recompute every file's checksum.
    #[arg(long)]
    verify: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open_pages()?;
    if args.verify {
        index.verify()?;
    }
    let mut out = std::io::stdout().lock();
    let m = index.manifest();
    if args.out.json {
        super::print_json(&mut out, m)?;
    } else {
        use std::io::Write;
        super::build::summary(&mut out, index.dir(), m)?;
        writeln!(
            out,
            "  source      {} ({} bytes, sha256 {})",
            m.source.path, m.source.size, m.source.sha256
        )?;
        writeln!(
            out,
            "  format      wikiwit index v{} (built by wikiwit {} at {})",
            m.format_version, m.wikiwit_version, m.built_at
        )?;
        if args.verify {
            writeln!(out, "  checksums   ok")?;
        }
    }
    Ok(Outcome::Success)
}
