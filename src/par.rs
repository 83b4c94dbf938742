//! Independent work spread over the cores: a dump is a class of independent functions, so parsing,
//! analysis, planning and drawing each take one function at a time on every core.
//!
//! Plain scoped threads rather than a thread-pool crate: each stage is one short burst of jobs, and
//! a pool would be one more dependency to build for a loop of twenty lines. Each thread carries the
//! run's [`budget`](crate::budget), so limits and the deadline hold on it as on the caller's.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, ErrorKind, Result};

/// Fewer jobs than this run on the calling thread: starting a thread costs more than they do.
const MIN_PARALLEL_JOBS: usize = 4;

/// The threads to use: the run's own bound (the service's renders take one each), or the cores (at
/// most eight: past that the stages wait on memory, not on work).
pub fn cores() -> usize {
    let machine = || std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    crate::budget::threads().unwrap_or_else(machine).max(1)
}

/// Why a spread did not finish.
enum Failure {
    /// A thread could not be started.
    Spawn(std::io::Error),
    /// A job panicked, with this payload.
    Panic(Box<dyn std::any::Any + Send>),
}

/// `job(i)` for every `i` in `0..count`, in order, on up to `threads` threads of `stack` bytes
/// each. With a `stack`, the jobs always run on threads of that size (one at least), never on the
/// caller's; without, few jobs run on the caller's thread.
fn spread<T: Send>(
    threads: usize,
    count: usize,
    stack: Option<usize>,
    job: &(impl Fn(usize) -> T + Sync),
) -> std::result::Result<Vec<T>, Failure> {
    let threads = threads.max(1).min(count);
    if stack.is_none() && (threads <= 1 || count < MIN_PARALLEL_JOBS) {
        return Ok((0..count).map(job).collect());
    }
    let budget = crate::budget::current();
    let next = AtomicUsize::new(0);
    let work = || {
        crate::budget::run(budget.clone(), || {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    return done;
                }
                done.push((i, job(i)));
            }
        })
    };
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for _ in 0..threads {
            let mut builder = std::thread::Builder::new().name("pmm-worker".into());
            if let Some(bytes) = stack {
                builder = builder.stack_size(bytes);
            }
            // Threads started so far finish the jobs between them before the scope returns.
            handles.push(builder.spawn_scoped(scope, work).map_err(Failure::Spawn)?);
        }
        let mut out: Vec<Option<T>> = std::iter::repeat_with(|| None).take(count).collect();
        for handle in handles {
            for (i, result) in handle.join().map_err(Failure::Panic)? {
                out[i] = Some(result);
            }
        }
        Ok(out.into_iter().flatten().collect())
    })
}

/// `job(i)` for every `i` in `0..count`, in order, on up to `threads` threads of `stack` bytes each
/// (always on such threads, one at least, when `stack` is given). A thread that cannot be started
/// is an [`ErrorKind::Io`] error; a job that panicked, an [`ErrorKind::Unreadable`] one (the input
/// it was given is the likely cause).
pub fn run_on<T: Send>(
    threads: usize,
    count: usize,
    stack: Option<usize>,
    job: impl Fn(usize) -> T + Sync,
) -> Result<Vec<T>> {
    spread(threads, count, stack, &job).map_err(|failure| match failure {
        Failure::Spawn(e) => Error::new(ErrorKind::Io, format!("cannot start a worker thread: {e}")),
        Failure::Panic(_) => Error::new(ErrorKind::Unreadable, "a worker thread failed on this input".to_string()),
    })
}

/// `f` of every item, in order, on every core. As dependable as a loop: when no thread can be
/// started the items are done here, and a job's panic goes on on this thread.
pub fn map_ref<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    let job = |i: usize| f(&items[i]);
    match spread(cores(), items.len(), None, &job) {
        Ok(out) => out,
        Err(Failure::Spawn(_)) => (0..items.len()).map(job).collect(),
        Err(Failure::Panic(payload)) => std::panic::resume_unwind(payload),
    }
}

/// [`map_ref`], moving each item into its job.
pub fn map<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let take = |slot: &Mutex<Option<T>>| slot.lock().ok().and_then(|mut slot| slot.take());
    map_ref(&slots, |slot| take(slot).map(&f)).into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_and_the_budget_travels() {
        let squares = map((0..1000u64).collect(), |i| i * i);
        assert_eq!(squares, (0..1000u64).map(|i| i * i).collect::<Vec<_>>());
        let limits = crate::budget::Limits { tiles_per_function: 7, ..Default::default() };
        let seen = crate::budget::run(crate::budget::Budget { limits, ..Default::default() }, || {
            map_ref(&[0; 64], |_| crate::budget::limits().tiles_per_function)
        });
        assert!(seen.iter().all(|&n| n == 7), "{seen:?}");
    }

    #[test]
    fn a_panicking_job_is_an_error_not_a_crash() {
        if cores() < 2 {
            return; // on one core the job runs on this thread, where a panic is the test's
        }
        let err = run_on(2, 64, None, |i| assert!(i != 40, "job 40")).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unreadable, "{err}");
        let caught = std::panic::catch_unwind(|| map_ref(&[0; 64], |&i: &i32| assert!(i != 0, "every job")));
        assert!(caught.is_err(), "map_ref's panic goes on on the caller's thread");
    }
}
