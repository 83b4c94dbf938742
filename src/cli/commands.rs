//! The subcommands other than drawing: `serve`, `diff`, `check`, `explain` and `pack`, each reading
//! its arguments into the library's call and saying its result. Each is short; together they are
//! what the command line does besides the default drawing.

use std::path::{Path, PathBuf};

use pto_memory_map::budget::Limits as WorkLimits;
use pto_memory_map::check::{self, Gate};
use pto_memory_map::compare::{self, tree as diff_tree};
use pto_memory_map::error::{Detail, FileOp, FileProblem, Misuse, Named, Task};
use pto_memory_map::option_table::{self as table, Shell};
use pto_memory_map::server::{self, ServeConfig};
use pto_memory_map::{DiffFormat, Error, ErrorKind, Format, Result, dump, render_diff, tree};

use super::args::{CheckArgs, DiffArgs, PackArgs, ServeArgs};
use super::output::{inputs_read, refuse_to_overwrite, same_file, write_output, write_with};
use super::render::load_input;
use super::say::{QUIET, say_err};

/// Bounds of the service's numeric options: beyond them a value is a typo, not a configuration.
pub const MAX_RENDER_THREADS: usize = 256;
pub const MAX_QUEUE_DEPTH: usize = 100_000;
pub const MAX_RENDER_TIMEOUT_MS: u64 = 3_600_000;
pub const MAX_READ_TIMEOUT_MS: u64 = 600_000;

pub fn in_range<T: PartialOrd + std::fmt::Display>(option: &'static str, value: T, low: T, high: T) -> Result<T> {
    if value < low || value > high {
        return Err(Error::bad_value(option, &value.to_string(), format!("a number in {low}..={high}")));
    }
    Ok(value)
}

pub fn serve(args: ServeArgs, limits: WorkLimits) -> Result<()> {
    let threads = match args.render_threads {
        Some(n) => in_range("--render-threads", n, 1, MAX_RENDER_THREADS)?,
        None => std::thread::available_parallelism().map_or(2, |n| n.get()).min(MAX_RENDER_THREADS),
    };
    let ms = std::time::Duration::from_millis;
    let config = ServeConfig {
        bind: args.bind,
        data_dir: args.data_dir,
        store: args.store,
        max_body_bytes: in_range("--max-body-bytes", args.max_body_bytes, 1, 1 << 40)?,
        render_threads: threads,
        queue_depth: in_range("--queue-depth", args.queue_depth, 1, MAX_QUEUE_DEPTH)?,
        render_timeout: ms(in_range("--render-timeout-ms", args.render_timeout_ms, 1, MAX_RENDER_TIMEOUT_MS)?),
        read_timeout: ms(in_range("--read-timeout-ms", args.read_timeout_ms, 1, MAX_READ_TIMEOUT_MS)?),
        cache_bytes: args.cache_bytes,
        max_store_bytes: args.max_store_bytes,
        max_answer_bytes: in_range("--max-answer-bytes", args.max_answer_bytes, 1, usize::MAX)?,
        limits,
        write_token: std::env::var("PMM_WRITE_TOKEN").ok().filter(|t| !t.is_empty()),
        public_url: args.public_url.as_deref().map(server::PublicUrl::parse).transpose()?,
        trusted_proxies: args.trusted_proxy,
    };
    server::serve(config).map_err(|e| Error::failed(ErrorKind::Io, Task::Serve, Some(e.to_string())))
}

pub fn diff(args: &DiffArgs) -> Result<()> {
    QUIET.store(args.quiet, std::sync::atomic::Ordering::Relaxed);
    let format: DiffFormat = match &args.format {
        Some(f) => f.parse()?,
        None => args
            .output
            .extension()
            .and_then(|e| e.to_str())
            .and_then(|e| e.parse().ok())
            .unwrap_or(DiffFormat::Markdown),
    };
    let chosen = args.view.chosen()?;
    let new_backend = chosen.backend.as_deref();
    let old_backend = args.old_backend.as_deref().or(new_backend);
    let pass = &args.input.pass_name;
    if tree::is_tree(&args.old, pass) || tree::is_tree(&args.new, pass) {
        if !(args.old.is_dir() && args.new.is_dir()) {
            return Err(Error::misuse(Misuse::TreeAgainstDump));
        }
        return diff_trees(args, [old_backend, new_backend], format);
    }
    // The two sides are built at once, each on a core: a diff takes one map's time, not two.
    let (old, new) = pto_memory_map::par::both(
        true,
        || load_input(&args.old, &args.input, old_backend),
        || load_input(&args.new, &args.input, new_backend),
    );
    let (mut old, mut new) = (old?, new?);
    refuse_to_overwrite(&args.output, &inputs_read(&[&args.old, &args.new], &args.input)?)?;
    // Base and head dumps usually share a file name: name each by as much of its path as tells them
    // apart, and at least by its case folder, so the report says which is which.
    let old_path = dump::resolve(&args.old, &args.input.pass_name)?;
    let new_path = dump::resolve(&args.new, &args.input.pass_name)?;
    (old.dump, new.dump) = compare::side_names(&old_path, &new_path);
    write_output(&args.output, &render_diff(&old, &new, format, &chosen.view, chosen.scale)?)
}

/// `diff BASE HEAD` over two folders of cases: cases paired by name, each case's chosen dump compared.
pub fn diff_trees(args: &DiffArgs, [old_backend, new_backend]: [Option<&str>; 2], format: DiffFormat) -> Result<()> {
    let input = &args.input;
    let read = |root: &Path, backend: Option<&str>| -> Vec<diff_tree::Case> {
        pto_memory_map::cases::list(root)
            .into_iter()
            .map(|(name, dir)| diff_tree::Case {
                name,
                dump: dump::resolve(&dir, &input.pass_name).ok(),
                root: Some(dir.clone()),
                map: load_input(&dir, input, backend).map_err(|e| table::describe(&e, Shell::Cli)),
            })
            .collect()
    };
    let names = compare::side_names(&args.old, &args.new);
    let d = diff_tree::compare(names, read(&args.old, old_backend), read(&args.new, new_backend));
    let bytes = match format {
        DiffFormat::Markdown => pto_memory_map::render::md::render_tree(&d).into_bytes(),
        DiffFormat::Map(Format::Json) => {
            let mut out = serde_json::to_string_pretty(&d).unwrap_or_default();
            out.push('\n');
            out.into_bytes()
        }
        _ => {
            return Err(Error::misuse(Misuse::TreeDiffPicture));
        }
    };
    write_output(&args.output, &bytes)
}

/// Prints the verdict; `Ok(false)` when the gate fails.
pub fn check(args: &CheckArgs) -> Result<bool> {
    let mut gate = Gate {
        max_occupancy: args.max_occupancy,
        max_hwm: args.max_hwm.iter().map(|s| check::parse_max_hwm(s)).collect::<Result<_>>()?,
        max_waste: args.max_waste.iter().map(|s| check::parse_max_waste(s)).collect::<Result<_>>()?,
        ..Gate::default()
    };
    if args.deny_conflicts {
        gate.deny("conflict")?;
    }
    for d in &args.deny {
        gate.deny(d)?;
    }
    for a in &args.allow {
        gate.allow(a)?;
    }
    let format = args.format.as_str();
    if !["text", "json", "sarif", "codequality"].contains(&format) {
        return Err(Error::bad_value("--format", format, "text, json, sarif or codequality"));
    }
    let show_notes = match args.show.as_deref() {
        None => false,
        Some(s) if s.eq_ignore_ascii_case("notes") => true,
        Some(other) => {
            return Err(Error::bad_value("--show", other, "notes"));
        }
    };
    let backends = args.input.backends()?;
    let chosen = args.table.chosen()?;
    let input =
        check::Input { pass_name: &args.input.pass_name, backend: chosen.backend.as_deref(), backends: &backends };
    let report = check::run(&args.path, &input, &gate)?;
    let out = match format {
        "json" => format!("{}\n", report.json()),
        "sarif" => pto_memory_map::render::sarif::render(&report.results()),
        "codequality" => {
            let cwd = std::env::current_dir().ok();
            pto_memory_map::render::codequality::render(&report.results(), cwd.as_deref())
        }
        _ => report.text_showing(show_notes),
    };
    write_output(Path::new("-"), out.as_bytes())?;
    Ok(report.passed)
}

/// `explain CODE`: the code table's words; without a code, every code in one line each.
pub fn explain(code: Option<&str>) -> Result<()> {
    use pto_memory_map::findings::{CODES, info};
    let Some(code) = code else {
        for c in CODES {
            println!("{:<17} {:<8} {}", c.code, c.severity.as_str(), c.title);
        }
        return Ok(());
    };
    let c = info(code).ok_or_else(|| {
        let codes: Vec<&str> = CODES.iter().map(|c| c.code).collect();
        Error::unknown(Named::FindingCode, code, codes)
    })?;
    println!("{} ({}): {}\n\n{}\n\nWhat to do: {}", c.code, c.severity.as_str(), c.title, c.meaning, c.remedy);
    Ok(())
}

/// `pack`: reads the instance, packs it, writes the placement and says on standard error how good
/// it is. `Ok(false)` when a capacity was given and the blocks do not fit in it (nothing written).
pub fn pack(args: &PackArgs) -> Result<bool> {
    use pto_memory_map::pack;
    in_range("--align", args.align, 1, pack::csv::MAX_BYTES)?;
    let name = args.instance.display().to_string();
    // The instance is read whole: refuse what no instance needs before reading it.
    if std::fs::metadata(&args.instance).is_ok_and(|m| m.len() > MAX_INSTANCE_BYTES) {
        let problem = FileProblem::TooLarge { limit: MAX_INSTANCE_BYTES };
        let detail = Detail::File { path: Some(name), op: FileOp::Read(INSTANCE), problem };
        return Err(Error::of(ErrorKind::Refused, detail));
    }
    let text = std::fs::read_to_string(&args.instance)
        .map_err(|e| Error::file(Some(&args.instance), FileOp::Read(INSTANCE), &e))?;
    let instance = pack::csv::read(&text, &name)?;
    let target = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    if let (Ok(a), Ok(b)) = (std::fs::metadata(&target), std::fs::metadata(&args.instance))
        && same_file(&a, &b)
    {
        return Err(Error::misuse(Misuse::OutputIsInput {
            output: target.display().to_string(),
            input: name,
            instance: true,
        }));
    }
    let options = pack::PackOptions {
        align: args.align,
        capacity: args.capacity,
        deadline: args.deadline.map(std::time::Duration::from_millis),
    };
    let p = pack::pack(&instance.blocks, &options)?;
    let ms = p.elapsed.as_secs_f64() * 1000.0;
    let optimal = if p.proven_optimal { "proven optimal" } else { "not proven optimal" };
    let facts = format!("lower bound {}, {optimal}, {ms:.2} ms, {} search nodes", p.lower_bound, p.nodes);
    if let (Some(capacity), Some(false) | None) = (args.capacity, p.fits) {
        let why = match p.fits {
            _ if capacity < p.lower_bound => format!("more than that is live at once ({})", p.lower_bound),
            Some(_) => format!("no placement exists (an exhaustive search, {} nodes, {ms:.2} ms)", p.nodes),
            None => format!("none found before the deadline (best found {}, {ms:.2} ms)", p.peak),
        };
        say_err(format_args!("does not fit in {capacity}: {why}; nothing written"));
        return Ok(false);
    }
    write_with(&target, |out| pack::csv::write(out, &instance, &p.offsets).map_err(|e| Error::io(&e)))?;
    say_err(format_args!("peak {}, {facts}", p.peak));
    Ok(true)
}

/// The packing instance, as messages name it.
const INSTANCE: &str = "the instance";

/// The largest instance file `pack` reads (a million rows of MiniMalloc's CSV are about 40 MB).
pub const MAX_INSTANCE_BYTES: u64 = 256 << 20;
