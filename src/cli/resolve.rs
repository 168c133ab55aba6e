//! `wikiwit resolve TITLE…`.

use std::io::Write;

use wikiwit::resolve::{Resolved, Status, resolve};

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Titles to resolve (as a link would be written: `ural river`, `Danube#Delta`).
    #[arg(required = true)]
    titles: Vec<String>,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open_pages()?;
    let mut out = std::io::stdout().lock();
    let mut all_found = true;
    for t in &args.titles {
        let r = resolve(&index, t)?;
        all_found &= r.status.found();
        if args.out.json {
            super::print_json(&mut out, &r)?;
        } else {
            print_text(&mut out, &r)?;
        }
    }
    Ok(if all_found {
        Outcome::Success
    } else {
        Outcome::NotFound
    })
}

fn print_text(out: &mut dyn Write, r: &Resolved) -> anyhow::Result<()> {
    let frag = r
        .fragment
        .as_deref()
        .map(|f| format!("#{f}"))
        .unwrap_or_default();
    match r.status {
        Status::Page => {
            let p = r.page.as_ref().expect("page status has a page");
            writeln!(out, "{}\t{}{frag}\tpage {}", r.query, p.title, p.page_id)?;
        }
        Status::Redirect => {
            let t = r.target.as_ref().expect("redirect status has a target");
            writeln!(
                out,
                "{}\t{}{frag}\tpage {}\tvia {}",
                r.query,
                t.title,
                t.page_id,
                r.chain.join(" → ")
            )?;
        }
        Status::Invalid => writeln!(
            out,
            "{}\tinvalid title: {}",
            r.query,
            r.reason.as_deref().unwrap_or("")
        )?,
        Status::Missing => writeln!(
            out,
            "{}\t{}{frag}\tmissing",
            r.query,
            r.title.as_deref().unwrap_or("")
        )?,
        Status::Interwiki => writeln!(
            out,
            "{}\t{}{frag}\tinterwiki",
            r.query,
            r.title.as_deref().unwrap_or("")
        )?,
        Status::BrokenRedirect => {
            writeln!(out, "{}\tbroken redirect: {}", r.query, r.chain.join(" → "))?
        }
        Status::RedirectLoop => {
            writeln!(out, "{}\tredirect loop: {}", r.query, r.chain.join(" → "))?
        }
    }
    Ok(())
}
