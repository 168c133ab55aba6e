//! `wikiwit serve [--index DIR] [--addr 127.0.0.1:8080]`: the index over HTTP
//! (MediaWiki's Action API at `/w/api.php`, wikiwit's JSON at `/v1/`).

use std::net::SocketAddr;
use std::time::Duration;

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    index: IndexArg,
    /// Address to listen on (loopback by default; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Seconds a client has to send its request head (slowloris guard).
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    header_timeout: u64,
    /// Seconds a request may take, body and answer included.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    request_timeout: u64,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    let limits = wikiwit::serve::Limits {
        header_timeout: Duration::from_secs(args.header_timeout.max(1)),
        request_timeout: Duration::from_secs(args.request_timeout.max(1)),
        ..Default::default()
    };
    let state = wikiwit::serve::State::new(index, limits)?;
    wikiwit::serve::run(state, args.addr, |bound| {
        // The first line on stdout says where to connect (tests and scripts read it).
        println!("wikiwit serve: listening on http://{bound}/w/api.php");
    })?;
    Ok(Outcome::Success)
}
