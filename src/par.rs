//! Independent work spread over the cores: a dump is a class of independent functions, so parsing,
//! analysis, planning and drawing each take one function at a time on every core.
//!
//! The jobs run on `rayon`'s pools, kept for the process (see `pool`); each job carries the run's
//! [`budget`](crate::budget), so limits and the deadline hold on a worker as on the caller's thread.

use std::sync::{Arc, Mutex};

use crate::error::{Error, ErrorKind, Result, Task};

/// Fewer jobs than this run on the calling thread: starting a thread costs more than they do.
const MIN_PARALLEL_JOBS: usize = 4;

/// The threads to use: the run's own bound (the service's renders take one each), or the cores (at
/// most eight: past that the stages wait on memory, not on work).
pub fn cores() -> usize {
    crate::budget::threads().unwrap_or_else(machine_cores).max(1)
}

/// The machine's cores (at most eight), asked once: the answer reads the cgroup's files each time.
fn machine_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(8))
}

/// Stack of every worker thread. Parsing needs the most: the guard bounds a syntax tree's depth,
/// and walking and dropping it recurses once per level; this leaves ample room for that bound in
/// unoptimized builds. Pages are only touched as a walk goes deep.
pub const STACK_BYTES: usize = 512 * 1024 * 1024;

/// Why a spread did not finish.
enum Failure {
    /// The threads could not be started.
    Spawn(std::io::Error),
    /// A job panicked, with this payload.
    Panic(Box<dyn std::any::Any + Send>),
}

/// The pool of `threads` workers, started on first use and kept for the process: starting threads
/// for every stage (each with its stack, allocator heap and random keys) cost a small dump a tenth
/// of its time. A run bounded to fewer threads than the machine has gets a pool of its own size.
fn pool(threads: usize) -> std::result::Result<Arc<rayon::ThreadPool>, Failure> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(STACK_BYTES)
        .thread_name(|_| "pmm-worker".into())
        .build()
        .map_err(|e| Failure::Spawn(std::io::Error::other(e)))?;
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

/// `job(i)` for every `i` in `0..count`, in order, on up to `threads` workers. With `deep`, the
/// jobs always run on a worker (their stack is [`STACK_BYTES`]), never on the caller's thread;
/// without, few jobs run on the caller's thread.
fn spread<T: Send>(
    threads: usize,
    count: usize,
    deep: bool,
    job: &(impl Fn(usize) -> T + Sync),
) -> std::result::Result<Vec<T>, Failure> {
    let threads = threads.max(1);
    let parallel = threads > 1 && count >= MIN_PARALLEL_JOBS;
    if !deep && !parallel {
        return Ok((0..count).map(job).collect());
    }
    let budget = crate::budget::current();
    let one = |i: usize| crate::budget::run(budget.clone(), || job(i));
    // One at a time on a worker of the machine's pool (shared with other runs on one thread each,
    // as the service's are), or spread over a pool of `threads` (one pool per bound a process
    // asks for: the command asks for one, the service for none).
    let pool = pool(if parallel { threads } else { machine_cores() })?;
    let all = || -> Vec<T> {
        if parallel {
            use rayon::prelude::*;
            (0..count).into_par_iter().map(one).collect()
        } else {
            (0..count).map(one).collect()
        }
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(all))).map_err(Failure::Panic)
}

/// `a()` and `b()`, at once on the machine's pool when `at_once`, each with the run's budget: two
/// passes over a large dump that need not wait for each other (the guard's scan and the line
/// index) take the longer one's time rather than both. In order on this thread when not
/// `at_once` (work too small to be worth a thread), on one core, in a run bounded to one thread,
/// or when no worker can be started.
pub fn both<A: Send, B: Send>(at_once: bool, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    let pool = match pool(machine_cores()) {
        Ok(pool) if at_once && machine_cores() > 1 && crate::budget::threads() != Some(1) => pool,
        _ => return (a(), b()),
    };
    let budget = crate::budget::current();
    let budget_b = budget.clone();
    pool.join(move || crate::budget::run(budget, a), move || crate::budget::run(budget_b, b))
}

/// Drops `value` on a worker rather than on this thread: the plan of a page of hundreds of cards is
/// some hundred thousand strings, 3% of the run to free, and a command's process ends meanwhile
/// (the service's workers free it between requests).
pub fn drop_later<T: Send + 'static>(value: T) {
    match pool(machine_cores()) {
        Ok(pool) => pool.spawn(move || drop(value)),
        Err(_) => drop(value),
    }
}

/// `job(i)` for every `i` in `0..count`, in order, on up to `threads` workers (always on a worker,
/// with its deep stack, when `deep`). Workers that cannot be started are an [`ErrorKind::Io`]
/// error; a job that panicked, an [`ErrorKind::Unreadable`] one (the input it was given is the
/// likely cause).
pub fn run_on<T: Send>(threads: usize, count: usize, deep: bool, job: impl Fn(usize) -> T + Sync) -> Result<Vec<T>> {
    spread(threads, count, deep, &job).map_err(|failure| match failure {
        Failure::Spawn(e) => Error::failed(ErrorKind::Io, Task::StartThread, Some(e.to_string())),
        Failure::Panic(_) => Error::failed(ErrorKind::Unreadable, Task::Worker, None),
    })
}

/// `f` of every item, in order, on every core. As dependable as a loop: when no thread can be
/// started the items are done here, and a job's panic goes on on this thread.
pub fn map_ref<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    let job = |i: usize| f(&items[i]);
    match spread(cores(), items.len(), false, &job) {
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

/// [`map_ref`], the items of most `weight` started first, the answers in the items' order. The
/// pool splits its range of jobs in halves, so a core may meet the largest item last and finish
/// it alone; here each job takes the heaviest item not yet taken, so the cores run out of work on
/// the lightest ones, together (the decode case's page: the largest card, rope_qkv, is its 36th
/// of 38).
pub fn map_ref_heavy_first<T: Sync, U: Send>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&items[i])));
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Every job runs once, so the jobs take the order's places one each.
    let taken = map_ref(&order, |_| {
        let i = order[next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)];
        (i, f(&items[i]))
    });
    let mut slots: Vec<Option<U>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, u) in taken {
        slots[i] = Some(u);
    }
    slots.into_iter().flatten().collect()
}

/// [`map_ref_heavy_first`], moving each item into its job.
pub fn map_heavy_first<T: Send, U: Send>(
    items: Vec<T>,
    weight: impl Fn(&T) -> usize,
    f: impl Fn(T) -> U + Sync,
) -> Vec<U> {
    let slots: Vec<(usize, Mutex<Option<T>>)> = items.into_iter().map(|t| (weight(&t), Mutex::new(Some(t)))).collect();
    let take = |slot: &Mutex<Option<T>>| slot.lock().ok().and_then(|mut slot| slot.take());
    map_ref_heavy_first(&slots, |(w, _)| *w, |(_, slot)| take(slot).map(&f)).into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_give_both_answers_each_with_the_budget() {
        let limits = crate::budget::Limits { tiles_per_function: 9, ..Default::default() };
        let seen = crate::budget::run(crate::budget::Budget { limits, ..Default::default() }, || {
            both(true, || crate::budget::limits().tiles_per_function, || crate::budget::limits().tiles_per_function + 1)
        });
        assert_eq!(seen, (9, 10));
    }

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
    fn the_heaviest_items_start_first_and_the_answers_keep_their_order() {
        let weights: Vec<usize> = (0..200).map(|i| (i * 37) % 101).collect();
        let started = Mutex::new(Vec::new());
        let job = |&w: &usize| {
            started.lock().unwrap().push(w);
            w * 2
        };
        // On every core: the answers in the items' order, each item taken once.
        assert_eq!(map_ref_heavy_first(&weights, |&w| w, job), weights.iter().map(|w| w * 2).collect::<Vec<_>>());
        let mut once = std::mem::take(&mut *started.lock().unwrap());
        once.sort();
        assert_eq!(once, {
            let mut w = weights.clone();
            w.sort();
            w
        });
        // On one thread, the order they start in is the weights', heaviest first.
        let one = crate::budget::Budget { threads: Some(1), ..Default::default() };
        crate::budget::run(one, || map_ref_heavy_first(&weights, |&w| w, job));
        let mut by_weight = weights.clone();
        by_weight.sort_by(|a, b| b.cmp(a));
        assert_eq!(*started.lock().unwrap(), by_weight);
        let moved =
            map_heavy_first(vec![String::from("a"), String::from("bbb"), String::from("cc")], String::len, |s| {
                s.to_uppercase()
            });
        assert_eq!(moved, ["A", "BBB", "CC"]);
    }

    #[test]
    fn a_panicking_job_is_an_error_not_a_crash() {
        if cores() < 2 {
            return; // on one core the job runs on this thread, where a panic is the test's
        }
        let err = run_on(2, 64, false, |i| assert!(i != 40, "job 40")).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unreadable, "{err}");
        let caught = std::panic::catch_unwind(|| map_ref(&[0; 64], |&i: &i32| assert!(i != 0, "every job")));
        assert!(caught.is_err(), "map_ref's panic goes on on the caller's thread");
    }

    #[test]
    fn a_value_dropped_later_is_dropped_on_a_worker() {
        struct Told(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Told {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (tx, rx) = std::sync::mpsc::channel();
        drop_later(Told(tx));
        let on = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("dropped");
        assert_ne!(on, std::thread::current().id());
    }
}
