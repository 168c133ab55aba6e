//! An ordered parallel pipeline: items are taken from a source in order, worked on by a
//! fixed set of threads, and handed to a consumer in the source's order.
//!
//! A sliding window bounds how far workers may run ahead of the consumer, so memory stays
//! at `window` pieces whatever the dump size, and — unlike processing fixed groups with a
//! barrier between them — no worker waits for the slowest piece of a group.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::error::DumpError;

struct State<O> {
    ready: BTreeMap<usize, Result<O, DumpError>>,
    consumed: usize,
    /// Number of items, known once the source is exhausted.
    total: Option<usize>,
    stop: bool,
}

/// Locks, ignoring poisoning: workers never panic while holding a lock (their work runs
/// under `catch_unwind` outside of it).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs the pipeline on `threads` worker threads; `consume` runs on the calling thread.
/// Each worker makes its own state with `init` on its own thread (so the state need not
/// be `Send`: a template expander with its caches) and hands it to every `work` call.
pub(crate) fn ordered<I, O, S, W, C, St, Init>(
    threads: usize,
    window: usize,
    source: S,
    init: Init,
    work: W,
    mut consume: C,
    cancel: &AtomicBool,
) -> Result<(), DumpError>
where
    I: Send,
    O: Send,
    S: Iterator<Item = Result<I, DumpError>> + Send,
    Init: Fn() -> St + Sync,
    W: Fn(&mut St, I) -> Result<O, DumpError> + Sync,
    C: FnMut(O) -> Result<(), DumpError>,
{
    let threads = threads.max(1);
    let window = window.max(threads);
    let source = Mutex::new((source, 0usize));
    let state = Mutex::new(State {
        ready: BTreeMap::new(),
        consumed: 0,
        total: None,
        stop: false,
    });
    let cv = Condvar::new();

    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut worker_state: Option<St> = None;
                loop {
                    let claimed = {
                        let mut src = lock(&source);
                        if lock(&state).stop {
                            return;
                        }
                        let idx = src.1;
                        match src.0.next() {
                            None => {
                                let mut st = lock(&state);
                                st.total = Some(idx);
                                cv.notify_all();
                                return;
                            }
                            Some(item) => {
                                src.1 += 1;
                                (idx, item)
                            }
                        }
                    };
                    let (idx, item) = claimed;
                    {
                        let mut st = lock(&state);
                        while !st.stop && idx >= st.consumed + window {
                            st = cv.wait(st).unwrap_or_else(|p| p.into_inner());
                        }
                        if st.stop {
                            return;
                        }
                    }
                    let out = item.and_then(|it| {
                        catch_unwind(AssertUnwindSafe(|| {
                            let ws = worker_state.get_or_insert_with(&init);
                            work(ws, it)
                        }))
                        .unwrap_or_else(|panic| {
                            let message = panic
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| panic.downcast_ref::<String>().cloned())
                                .unwrap_or_else(|| "unknown panic".to_string());
                            Err(DumpError::Internal { message })
                        })
                    });
                    let mut st = lock(&state);
                    st.ready.insert(idx, out);
                    cv.notify_all();
                }
            });
        }

        let result = (|| loop {
            let out = {
                let mut st = lock(&state);
                loop {
                    if cancel.load(Ordering::Relaxed) {
                        return Err(DumpError::Interrupted);
                    }
                    let next = st.consumed;
                    if let Some(out) = st.ready.remove(&next) {
                        st.consumed += 1;
                        cv.notify_all();
                        break out;
                    }
                    if st.total == Some(next) {
                        return Ok(());
                    }
                    let (g, _) = cv
                        .wait_timeout(st, std::time::Duration::from_millis(100))
                        .unwrap_or_else(|p| p.into_inner());
                    st = g;
                }
            };
            consume(out?)?;
        })();
        let mut st = lock(&state);
        st.stop = true;
        cv.notify_all();
        drop(st);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_whatever_the_timing() {
        let items = (0..200).map(Ok);
        let mut seen = Vec::new();
        ordered(
            4,
            8,
            items,
            || (),
            |_: &mut (), i: u64| {
                std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 300));
                Ok(i * 2)
            },
            |o| {
                seen.push(o);
                Ok(())
            },
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(seen, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn first_error_in_order_wins_and_stops() {
        let items = (0..100).map(Ok);
        let mut seen = 0;
        let r = ordered(
            3,
            6,
            items,
            || (),
            |_: &mut (), i: u64| {
                if i == 40 || i == 70 {
                    Err(DumpError::Internal {
                        message: format!("item {i}"),
                    })
                } else {
                    Ok(i)
                }
            },
            |_| {
                seen += 1;
                Ok(())
            },
            &AtomicBool::new(false),
        );
        assert!(matches!(r, Err(DumpError::Internal { message }) if message == "item 40"));
        assert_eq!(seen, 40);
    }

    #[test]
    fn a_panicking_worker_becomes_an_error() {
        let r = ordered(
            2,
            4,
            (0..10).map(Ok),
            || (),
            |_: &mut (), i: u64| {
                if i == 3 {
                    panic!("boom");
                }
                Ok(i)
            },
            |_| Ok(()),
            &AtomicBool::new(false),
        );
        assert!(matches!(r, Err(DumpError::Internal { message }) if message.contains("boom")));
    }
}
