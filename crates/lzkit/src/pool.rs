//! The job pool, codec-neutral: what parallel encoders and decoders share.
//! The thread count, the worker [`Pool`], and [`Ordered`], a queue of jobs
//! running on the pool whose results come back in submission order.
//!
//! Without the `parallel` feature (rayon) no pool can be started:
//! [`Pool::new`] returns `None` and every caller does its work on the
//! calling thread, with the same results.
//!
//! Jobs never depend on each other's output, so any number of them may run
//! at once; the caller bounds how many are queued (and so the memory held)
//! and consumes results strictly in order, which keeps the output, and the
//! position of any error in it, the same as serial processing.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Mutex, PoisonError};
use std::thread;

/// Jobs queued per worker thread: one running and one ready to start, so a
/// worker never waits for the caller between jobs, while memory stays at
/// about two jobs per thread.
pub(crate) const IN_FLIGHT_PER_THREAD: usize = 2;

/// Most worker threads one encoder or decoder starts: far more than jobs
/// can keep busy, low enough that a mistaken count cannot exhaust the
/// system's threads.
const MAX_THREADS: usize = 256;

/// The number of worker threads `requested` means: 0 is one per core (as
/// reported by [`std::thread::available_parallelism`], 1 if unknown),
/// anything else is itself, up to 256.
pub fn effective_threads(requested: usize) -> usize {
    let n = if requested == 0 {
        thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        requested
    };
    n.min(MAX_THREADS)
}

/// A pool of worker threads.
pub(crate) struct Pool {
    #[cfg(feature = "parallel")]
    inner: rayon::ThreadPool,
    /// Without the `parallel` feature a pool cannot exist.
    #[cfg(not(feature = "parallel"))]
    never: std::convert::Infallible,
}

/// Jobs spawned in a [`Pool::in_place_scope`]: they may borrow from the
/// caller's stack, and all have finished when the scope returns.
pub(crate) struct Scope<'a, 's> {
    #[cfg(feature = "parallel")]
    inner: &'a rayon::Scope<'s>,
    #[cfg(not(feature = "parallel"))]
    never: (
        std::convert::Infallible,
        std::marker::PhantomData<&'a &'s ()>,
    ),
}

impl Pool {
    /// A pool of `threads` workers, or `None` if the system would not start
    /// them or the `parallel` feature is off (callers then do the work on
    /// the calling thread, with the same result).
    pub(crate) fn new(threads: usize) -> Option<Pool> {
        #[cfg(feature = "parallel")]
        {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("lzkit-{i}"))
                .build()
                .ok()
                .map(|inner| Pool { inner })
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = threads;
            None
        }
    }

    /// Run `job` on a worker.
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        #[cfg(feature = "parallel")]
        self.inner.spawn(job);
        #[cfg(not(feature = "parallel"))]
        {
            let _ = job;
            match self.never {}
        }
    }

    /// Run `f` on the calling thread with a [`Scope`] whose jobs run on the
    /// workers; returns when `f` and every job spawned in the scope are done
    /// (re-raising a job's panic).
    pub(crate) fn in_place_scope<'s, R>(&self, f: impl FnOnce(&Scope<'_, 's>) -> R) -> R {
        #[cfg(feature = "parallel")]
        {
            self.inner.in_place_scope(|s| f(&Scope { inner: s }))
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = f;
            match self.never {}
        }
    }
}

impl<'s> Scope<'_, 's> {
    /// Run `job` on a worker of the scope's pool.
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 's) {
        #[cfg(feature = "parallel")]
        self.inner.spawn(move |_| job());
        #[cfg(not(feature = "parallel"))]
        {
            let _ = job;
            match self.never.0 {}
        }
    }
}

/// A job's result, or the panic it ended with.
type Outcome<T> = thread::Result<T>;

/// One queued result: still running, or already known. (The receiver is
/// behind a lock only so that encoders and decoders holding a queue stay
/// `Sync`; it is never contended.)
enum Slot<T> {
    Running(Mutex<Receiver<Outcome<T>>>),
    Ready(T),
}

/// Jobs on a pool, consumed in the order they were submitted. The pool is
/// started with the first job submitted (so work that turns out to need no
/// pool starts no threads); if it cannot be started, jobs run on the
/// calling thread when submitted, with the same results.
pub(crate) struct Ordered<T> {
    threads: usize,
    pool: Option<Pool>,
    /// The pool could not be started: run jobs here.
    inline: bool,
    queue: VecDeque<Slot<T>>,
}

impl<T: Send + 'static> Ordered<T> {
    /// A queue for a pool of `threads` workers.
    pub(crate) fn new(threads: usize) -> Self {
        Ordered {
            threads,
            pool: None,
            inline: false,
            queue: VecDeque::new(),
        }
    }

    /// Results submitted and not yet taken.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Run `job` on the pool; its result comes after everything queued before.
    pub(crate) fn submit(&mut self, job: impl FnOnce() -> T + Send + 'static) {
        if self.pool.is_none() && !self.inline {
            self.pool = Pool::new(self.threads);
            self.inline = self.pool.is_none();
        }
        let Some(pool) = &self.pool else {
            self.push_ready(job());
            return;
        };
        let (tx, rx) = mpsc::sync_channel(1);
        pool.spawn(move || {
            // A panic is carried back to the caller, who re-raises it in
            // order, rather than aborting the process from a pool thread.
            let outcome = panic::catch_unwind(AssertUnwindSafe(job));
            // The receiver is gone only if the caller was dropped, in which
            // case nobody wants the result.
            let _ = tx.send(outcome);
        });
        self.queue.push_back(Slot::Running(Mutex::new(rx)));
    }

    /// Queue a result that needs no work, after everything queued before.
    pub(crate) fn push_ready(&mut self, value: T) {
        self.queue.push_back(Slot::Ready(value));
    }

    /// The oldest result, waiting for it if `wait`; `None` if the queue is
    /// empty, or if the oldest job is still running and `wait` is false.
    pub(crate) fn next(&mut self, wait: bool) -> Option<T> {
        let outcome = match self.queue.front_mut()? {
            Slot::Ready(_) => match self.queue.pop_front() {
                Some(Slot::Ready(v)) => return Some(v),
                _ => unreachable!("front was a ready slot"),
            },
            Slot::Running(rx) => {
                let rx = rx.get_mut().unwrap_or_else(PoisonError::into_inner);
                if wait {
                    rx.recv()
                } else {
                    match rx.try_recv() {
                        Ok(outcome) => Ok(outcome),
                        Err(TryRecvError::Empty) => return None,
                        Err(TryRecvError::Disconnected) => Err(mpsc::RecvError),
                    }
                }
            }
        };
        self.queue.pop_front();
        // The job always sends (its panics are caught), and the pool lives
        // as long as this queue, so the channel cannot close empty.
        match outcome.expect("a pool job ended without sending its result") {
            Ok(v) => Some(v),
            Err(payload) => panic::resume_unwind(payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_submission_order() {
        let mut q = Ordered::new(3);
        for i in 0..20u64 {
            if i % 5 == 4 {
                q.push_ready(i);
            } else {
                q.submit(move || {
                    // Later jobs finish first.
                    thread::sleep(std::time::Duration::from_millis(20 - i));
                    i
                });
            }
        }
        assert_eq!(q.len(), 20);
        let got: Vec<u64> = std::iter::from_fn(|| q.next(true)).collect();
        assert_eq!(got, (0..20).collect::<Vec<_>>());
        assert!(q.next(false).is_none());
    }

    #[test]
    fn a_panicking_job_panics_the_caller_in_order() {
        let mut q = Ordered::new(2);
        q.submit(|| 1);
        q.submit(|| panic!("job failed"));
        assert_eq!(q.next(true), Some(1));
        let r = panic::catch_unwind(AssertUnwindSafe(|| q.next(true)));
        assert!(r.is_err());
    }

    #[test]
    fn zero_means_every_core() {
        assert!(effective_threads(0) >= 1);
        assert_eq!(effective_threads(3), 3);
        assert_eq!(effective_threads(usize::MAX), MAX_THREADS);
    }
}
