//! The command line: a thin shell over the library's pipeline.
#![forbid(unsafe_code)]

mod cli;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use cli::args::{Cli, Command};
use cli::commands::{check, diff, explain, in_range, pack, serve};
use cli::render::render;
use cli::say::{say, say_err};
use cli::usage::{args_in_order, error_json, usage_error};
use pto_memory_map::ErrorKind;
use pto_memory_map::budget::{self, Budget};
use pto_memory_map::option_table::{self as table, Shell};

/// The most threads `--threads` takes.
const MAX_THREADS: usize = 256;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = args_in_order(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(err, &args),
    };
    let json_errors = cli.error_format == "json";
    if cli.list_options {
        say(format_args!("{}", table::options_json()));
        return ExitCode::SUCCESS;
    }
    let run = match &cli.command {
        None => Some(&cli.render.run),
        Some(Command::Diff(a)) => Some(&a.run),
        Some(Command::Check(a)) => Some(&a.run),
        Some(Command::Serve(_) | Command::Explain(_) | Command::Pack(_)) => None,
    };
    let limits = match &cli.command {
        Some(Command::Serve(a)) => a.limits.limits(),
        _ => run.map(|r| r.limits.limits()).unwrap_or_default(),
    };
    let threads = run.and_then(|r| r.threads);
    // A time limit too far to represent is none.
    let deadline =
        run.and_then(|r| r.time_limit_ms).and_then(|ms| Instant::now().checked_add(Duration::from_millis(ms)));
    let result = budget::run(Budget { limits, threads, deadline, ..Budget::default() }, || match cli.command {
        _ if threads.is_some_and(|n| !(1..=MAX_THREADS).contains(&n)) => {
            in_range("--threads", threads.unwrap_or(0), 1, MAX_THREADS).map(|_| ExitCode::SUCCESS)
        }
        Some(Command::Serve(args)) => serve(args, limits).map(|()| ExitCode::SUCCESS),
        Some(Command::Diff(args)) => diff(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::Check(args)) => {
            check(&args).map(|passed| if passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Some(Command::Explain(args)) => explain(args.code.as_deref()).map(|()| ExitCode::SUCCESS),
        Some(Command::Pack(args)) => pack(&args).map(|fits| if fits { ExitCode::SUCCESS } else { ExitCode::from(1) }),
        None => render(&cli.render).map(|()| ExitCode::SUCCESS),
    });
    match result {
        Ok(code) => code,
        Err(err) if json_errors => {
            say_err(format_args!("{}", error_json(&err)));
            ExitCode::from(if err.kind == ErrorKind::Usage { 2 } else { 1 })
        }
        Err(err) => {
            say_err(format_args!("error: {}", table::describe(&err, Shell::Cli)));
            ExitCode::from(if err.kind == ErrorKind::Usage { 2 } else { 1 })
        }
    }
}
