//! The build progress bar: indicatif on stderr, hidden when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new(quiet: bool) -> Bar {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        Bar { bar }
    }
}

impl wikiwit::indexer::Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        self.bar.reset();
        self.bar.set_length(total);
        self.bar.set_style(
            ProgressStyle::with_template(
                "{msg:>14} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        self.bar.set_message(name.to_string());
    }

    fn advance(&self, done: u64) {
        self.bar.set_position(done);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
