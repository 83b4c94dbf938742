//! The render threads: a fixed number of OS threads with large stacks, fed through a bounded queue.
//!
//! Why not the async workers: a render is CPU work from tens of milliseconds to seconds, and walking
//! a deep syntax tree needs a large stack; on an async worker it would stall every other connection
//! that worker serves. Why a bounded queue: under overload the service should say "busy" (503) at
//! once rather than pile up requests, each holding its body in memory, until memory runs out. Why a
//! time limit: the client gets an answer (504) even when a render is pathologically slow. The render
//! runs under a [`Budget`] whose deadline is the client's, and which is cancelled when the client is
//! answered 504, so it stops at its next checkpoint (parse, analysis, layout, rasterizing) and frees
//! its thread; a job whose client has gone is never started.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::budget::{self, Budget, Limits};

use super::errors::{ApiError, Busy};

/// Stack of each render thread. The parser has its own big-stack thread; this covers layout and
/// the back ends, which recurse over the same shapes.
const STACK_BYTES: usize = 64 * 1024 * 1024;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Counters the metrics page reads.
#[derive(Debug, Default)]
pub struct PoolStats {
    pub queued: AtomicUsize,
    pub running: AtomicUsize,
}

/// A handle to the render threads; cheap to share between async workers.
pub struct RenderPool {
    sender: SyncSender<Job>,
    pub stats: Arc<PoolStats>,
    pub capacity: usize,
    pub timeout: Duration,
    /// Work limits every render runs under.
    pub limits: Limits,
    /// Turns for renders of large dumps: all threads but one, so that a small render always finds
    /// a thread, and a few large pictures (each up to hundreds of MB while it is made) are made at
    /// once, not one per thread.
    large: Arc<tokio::sync::Semaphore>,
}

/// Dump bytes past which a render is large (see [`RenderPool::run_sized`]): below it, its output is
/// at most the service's output floor (`answer::within_output_for`).
pub const LARGE_INPUT: usize = 512 * 1024;

impl RenderPool {
    /// Starts `threads` render threads behind a queue of `capacity` waiting jobs.
    pub fn start(threads: usize, capacity: usize, timeout: Duration, limits: Limits) -> std::io::Result<RenderPool> {
        let (sender, receiver) = mpsc::sync_channel::<Job>(capacity);
        let receiver = Arc::new(Mutex::new(receiver));
        let stats = Arc::new(PoolStats::default());
        for i in 0..threads.max(1) {
            let receiver = receiver.clone();
            std::thread::Builder::new()
                .name(format!("render-{i}"))
                .stack_size(STACK_BYTES)
                .spawn(move || work(&receiver))?;
        }
        let large = Arc::new(tokio::sync::Semaphore::new(threads.max(2) - 1));
        Ok(RenderPool { sender, stats, capacity, timeout, limits, large })
    }

    /// [`RenderPool::run`] for a render of `input` dump bytes: a large one (past [`LARGE_INPUT`])
    /// takes one of the large renders' turns, or is answered 503 at once when they are all taken.
    pub async fn run_sized<T, F>(&self, input: usize, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let _turn = match input > LARGE_INPUT {
            true => Some(self.large.clone().try_acquire_owned().map_err(|_| ApiError::Busy(Busy::Queue))?),
            false => None,
        };
        self.run(f).await
    }

    /// Runs `f` on a render thread and waits for it without blocking the async worker.
    ///
    /// Errors: 503 when the queue is full, 504 past the time limit (counted from the moment the job
    /// is queued: that is what the client waits), 500 if `f` panicked. `f` runs under a budget with
    /// the same deadline, cancelled on the 504 (or when the client goes away), so it stops too.
    pub async fn run<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<std::thread::Result<T>>();
        let stats = self.stats.clone();
        let cancelled = Arc::new(AtomicBool::new(false));
        let budget = Budget {
            limits: self.limits,
            deadline: Instant::now().checked_add(self.timeout),
            cancelled: cancelled.clone(),
            threads: Some(1),
        };
        // Dropped with this future, whether it ends in an answer, a 504 or a client that went away.
        let _cancel_on_drop = CancelOnDrop(cancelled);
        let job: Job = Box::new(move || {
            stats.queued.fetch_sub(1, Ordering::Relaxed);
            if reply.is_closed() {
                return; // the client timed out or went away while the job waited
            }
            stats.running.fetch_add(1, Ordering::Relaxed);
            let result = catch_unwind(AssertUnwindSafe(|| budget::run(budget, f)));
            stats.running.fetch_sub(1, Ordering::Relaxed);
            let _ = reply.send(result);
        });
        self.stats.queued.fetch_add(1, Ordering::Relaxed);
        if let Err(err) = self.sender.try_send(job) {
            self.stats.queued.fetch_sub(1, Ordering::Relaxed);
            return Err(match err {
                TrySendError::Full(_) => ApiError::Busy(Busy::Queue),
                TrySendError::Disconnected(_) => ApiError::internal("the render threads have stopped"),
            });
        }
        match actix_web::rt::time::timeout(self.timeout, answer).await {
            Err(_) => Err(ApiError::RenderTimeout(self.timeout)),
            Ok(Err(_)) => Err(ApiError::internal("a render thread dropped its job")),
            Ok(Ok(Err(panic))) => Err(ApiError::internal(format!("a render panicked: {}", panic_message(&panic)))),
            Ok(Ok(Ok(value))) => Ok(value),
        }
    }
}

/// Sets the flag when dropped: the render's waiter has stopped waiting.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One render thread: takes jobs until the pool is dropped. A panicking job is caught inside the job,
/// so the thread lives on.
fn work(receiver: &Mutex<Receiver<Job>>) {
    loop {
        let job = {
            let Ok(guard) = receiver.lock() else { return };
            match guard.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        job();
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_queue_is_busy_and_a_panic_is_an_error() {
        actix_web::rt::System::new().block_on(async {
            let pool = Arc::new(RenderPool::start(1, 1, Duration::from_secs(5), Limits::default()).unwrap());
            assert_eq!(pool.run(|| 2 + 2).await.unwrap(), 4);
            let err = pool.run(|| -> u8 { panic!("boom") }).await.unwrap_err();
            assert_eq!(err.code(), "internal");
            // The thread survived the panic.
            assert_eq!(pool.run(|| 7).await.unwrap(), 7);
            let tasks: Vec<_> = (0..3)
                .map(|_| {
                    let pool = pool.clone();
                    actix_web::rt::spawn(
                        async move { pool.run(|| std::thread::sleep(Duration::from_millis(300))).await },
                    )
                })
                .collect();
            let mut busy = 0;
            for task in tasks {
                if task.await.unwrap().is_err_and(|e| e.code() == "busy") {
                    busy += 1;
                }
            }
            assert!(busy >= 1);
        });
    }

    #[test]
    fn large_renders_leave_a_thread_to_small_ones() {
        actix_web::rt::System::new().block_on(async {
            let pool = Arc::new(RenderPool::start(2, 8, Duration::from_secs(5), Limits::default()).unwrap());
            let (go, wait) = std::sync::mpsc::channel::<()>();
            let busy = pool.clone();
            let large = actix_web::rt::spawn(async move {
                busy.run_sized(LARGE_INPUT + 1, move || wait.recv_timeout(Duration::from_secs(5)).is_ok()).await
            });
            while pool.stats.running.load(Ordering::Relaxed) == 0 {
                actix_web::rt::time::sleep(Duration::from_millis(5)).await;
            }
            // The other thread is the small renders': a second large one is refused at once...
            let err = pool.run_sized(LARGE_INPUT + 1, || ()).await.unwrap_err();
            assert_eq!(err.code(), "busy");
            // ...and a small one runs.
            let started = Instant::now();
            assert_eq!(pool.run_sized(1000, || 7).await.unwrap(), 7);
            assert!(started.elapsed() < Duration::from_secs(1));
            go.send(()).unwrap();
            assert!(large.await.unwrap().unwrap());
            // Its turn is given back.
            assert_eq!(pool.run_sized(LARGE_INPUT + 1, || 8).await.unwrap(), 8);
        });
    }

    #[test]
    fn slow_job_times_out() {
        actix_web::rt::System::new().block_on(async {
            let pool = RenderPool::start(1, 4, Duration::from_millis(50), Limits::default()).unwrap();
            let err = pool.run(|| std::thread::sleep(Duration::from_millis(400))).await.unwrap_err();
            assert_eq!(err.code(), "render_timeout");
        });
    }

    #[test]
    fn a_timed_out_job_is_cancelled_and_frees_its_thread() {
        actix_web::rt::System::new().block_on(async {
            let pool = RenderPool::start(1, 4, Duration::from_millis(100), Limits::default()).unwrap();
            let spun = Arc::new(AtomicUsize::new(0));
            let counter = spun.clone();
            // A job that would spin for a minute, but checks its budget as the stages do.
            let err = pool
                .run(move || -> Result<(), ApiError> {
                    let started = Instant::now();
                    while started.elapsed() < Duration::from_secs(60) {
                        budget::checkpoint()?; // past the deadline: the render's own 504
                        counter.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(())
                })
                .await
                .and_then(|r| r)
                .unwrap_err();
            assert_eq!(err.code(), "render_timeout");
            // The thread is free again well within a second.
            let started = Instant::now();
            let pool = RenderPool { timeout: Duration::from_secs(5), ..pool };
            assert_eq!(pool.run(|| 7).await.unwrap(), 7);
            assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        });
    }
}
