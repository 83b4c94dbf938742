//! The command line: a thin shell over the library's pipeline.
#![forbid(unsafe_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use pto_memory_map::backend::Backends;
use pto_memory_map::budget::{self, Budget, Limits as WorkLimits};
use pto_memory_map::check::{self, Limits};
use pto_memory_map::layout::{RULES, Theme, XAxis};
use pto_memory_map::server::{self, ServeConfig};
use pto_memory_map::{
    DiffFormat, Error, ErrorKind, Format, RenderOptions, Result, ViewOptions, dump, load_with, render_diff, render_map,
};

/// Draws the on-chip memory map of a PyPTO pass dump.
#[derive(Parser, Debug)]
#[command(
    name = "pto-memory-map",
    version,
    about,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Work limits (see `budget::Limits`); the defaults are far above any real dump.
#[derive(Args, Debug)]
struct LimitArgs {
    /// Most tiles one function may bind.
    #[arg(long = "max-tiles", global = true, value_name = "N")]
    max_tiles: Option<usize>,
    /// Most lines one function may span.
    #[arg(long = "max-lines", global = true, value_name = "N")]
    max_lines: Option<usize>,
    /// Most tokens (names, numbers, operators) in one statement of the dump.
    #[arg(long = "max-statement-tokens", global = true, value_name = "N")]
    max_statement_tokens: Option<usize>,
    /// Most tokens in the whole dump.
    #[arg(long = "max-tokens", global = true, value_name = "N")]
    max_tokens: Option<usize>,
    /// Largest output, in bytes.
    #[arg(long = "max-output-bytes", global = true, value_name = "N")]
    max_output_bytes: Option<usize>,
}

impl LimitArgs {
    fn limits(&self) -> WorkLimits {
        let d = WorkLimits::default();
        WorkLimits {
            tiles_per_function: self.max_tiles.unwrap_or(d.tiles_per_function),
            lines_per_function: self.max_lines.unwrap_or(d.lines_per_function),
            tokens_per_statement: self.max_statement_tokens.unwrap_or(d.tokens_per_statement),
            tokens_per_dump: self.max_tokens.unwrap_or(d.tokens_per_dump),
            output_bytes: self.max_output_bytes.unwrap_or(d.output_bytes),
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve maps over HTTP: POST a dump to /render, or store it with POST /maps.
    Serve(ServeArgs),
    /// Compare two dumps: what did the change do to on-chip memory?
    Diff(DiffArgs),
    /// Exit 1 with one line per violation when a dump breaks the given limits.
    Check(CheckArgs),
}

#[derive(Args, Debug)]
struct RenderArgs {
    /// A pass dump (.py), a passes_dump/ folder, or a case folder that holds one.
    #[arg(required = true)]
    path: Option<PathBuf>,
    /// Where to write; `-` for standard output. Default: beside the dump, `<stem>.memory_map.<ext>`.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output format: svg, png, html or json. Default: from the extension of -o, else html.
    #[arg(short, long)]
    format: Option<String>,
    /// One file per function: `<stem>.<function>.<ext>`.
    #[arg(long)]
    split: bool,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    view: ViewArgs,
}

/// Which dump to read from a folder, and whose capacities scale it.
#[derive(Args, Debug)]
struct InputArgs {
    /// The pass whose dump to pick when PATH is a folder.
    #[arg(short, long = "pass-name", default_value = dump::DEFAULT_PASS)]
    pass_name: String,
    /// Backend whose capacities scale the panels (Ascend910B, Ascend950). Default: detected from the
    /// case's ptoas/*.pto, else Ascend910B, marked assumed.
    #[arg(short, long)]
    backend: Option<String>,
    /// A chip described in a file (TOML or JSON: name, arch, capacities per space), usable with
    /// -b and matched by its arch like the built-in backends.
    #[arg(long = "soc", value_name = "FILE")]
    soc: Vec<PathBuf>,
}

/// How to draw.
#[derive(Args, Debug)]
struct ViewArgs {
    /// Lane span: `limit` (0 to capacity) or `used` (0 to the high-water mark).
    #[arg(long = "x-axis", default_value = "limit")]
    x_axis: String,
    /// Multiplies the byte scale (0.2 to 64).
    #[arg(long, default_value_t = 1.0)]
    zoom: f64,
    /// A memory space not to draw (repeatable).
    #[arg(long = "hide", value_name = "SPACE")]
    hide: Vec<String>,
    /// Draw only this function (repeatable).
    #[arg(long = "function", value_name = "NAME")]
    function: Vec<String>,
    /// Colours: light or dark.
    #[arg(long, default_value = "light")]
    theme: String,
    /// Width in px that the lanes fill at zoom 1.
    #[arg(long, default_value_t = RULES.panel_px)]
    width: f64,
    /// PNG device pixel ratio (1 to 4).
    #[arg(long, default_value_t = 2.0)]
    scale: f64,
    /// Would a new buffer fit, and where? `SPACE=BYTES[@LINE-LINE]`, e.g. `Vec=32KB@120-180` (repeatable).
    #[arg(long = "fit", value_name = "SPACE=BYTES[@LINE-LINE]")]
    fit: Vec<String>,
}

/// `diff OLD NEW`: what a change did to on-chip memory.
#[derive(Args, Debug)]
struct DiffArgs {
    /// The dump before the change (any path form).
    old: PathBuf,
    /// The dump after the change.
    new: PathBuf,
    /// Where to write; default `-` (standard output).
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// svg, png, html, md or json. Default: from the extension of -o, else md.
    #[arg(short, long)]
    format: Option<String>,
    /// Backend for OLD when it differs from NEW's (-b), e.g. the same kernel on two chips.
    #[arg(long = "old-backend", value_name = "NAME")]
    old_backend: Option<String>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    view: ViewArgs,
}

/// `check PATH`: a gate for CI.
#[derive(Args, Debug)]
struct CheckArgs {
    /// A pass dump (any path form).
    path: PathBuf,
    /// Fail when a space is more than this full (percent of capacity).
    #[arg(long = "max-occupancy", value_name = "PCT")]
    max_occupancy: Option<f64>,
    /// Fail on any cross-base conflict.
    #[arg(long = "deny-conflicts")]
    deny_conflicts: bool,
    /// Fail when a space's high-water mark is above BYTES (`Vec=96KB`; repeatable).
    #[arg(long = "max-hwm", value_name = "SPACE=BYTES")]
    max_hwm: Vec<String>,
    /// `text` (one line per violation) or `json`.
    #[arg(long = "format", default_value = "text")]
    format: String,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args, Debug)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: String,
    /// Where stored maps live.
    #[arg(long = "data-dir", default_value = "pto-memory-map-data")]
    data_dir: PathBuf,
    /// Largest accepted request body, also after gunzip.
    #[arg(long = "max-body-bytes", default_value_t = 32 * 1024 * 1024)]
    max_body_bytes: usize,
    /// Threads that render (each with a large stack); default: the number of cores.
    #[arg(long = "render-threads")]
    render_threads: Option<usize>,
    /// Renders that may wait for a thread before requests are answered 503.
    #[arg(long = "queue-depth", default_value_t = 64)]
    queue_depth: usize,
    /// Milliseconds a request waits for its render, queue included, before it is answered 504.
    #[arg(long = "render-timeout-ms", default_value_t = 30_000)]
    render_timeout_ms: u64,
    /// Memory for recent renders of stored maps.
    #[arg(long = "cache-bytes", default_value_t = 64 * 1024 * 1024)]
    cache_bytes: usize,
    /// Milliseconds a client may take to send its request headers, and then its whole body, before
    /// it is answered 408.
    #[arg(long = "read-timeout-ms", default_value_t = 10_000)]
    read_timeout_ms: u64,
    /// Disk for stored maps; past it the least recently used maps are evicted (507 when a map
    /// alone is larger).
    #[arg(long = "max-store-bytes", default_value_t = 1024 * 1024 * 1024)]
    max_store_bytes: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let limits = cli.limits.limits();
    let result = budget::run(Budget { limits, ..Budget::default() }, || match cli.command {
        Some(Command::Serve(args)) => serve(args, limits).map(|()| ExitCode::SUCCESS),
        Some(Command::Diff(args)) => diff(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::Check(args)) => {
            check(&args).map(|passed| if passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        None => render(&cli.render).map(|()| ExitCode::SUCCESS),
    });
    match result {
        Ok(code) => code,
        Err(err) => {
            say_err(format_args!("error: {err}"));
            ExitCode::from(if err.kind == ErrorKind::Usage { 2 } else { 1 })
        }
    }
}

/// A line on standard output. A reader that went away (`| head`, `| true`) is not a failure of the
/// run, so a closed pipe is ignored rather than a panic.
fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stdout(), "{line}");
}

/// A line on standard error, ignoring a closed pipe as [`say`] does.
fn say_err(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Bounds of the service's numeric options: beyond them a value is a typo, not a configuration.
const MAX_RENDER_THREADS: usize = 256;
const MAX_QUEUE_DEPTH: usize = 100_000;
const MAX_RENDER_TIMEOUT_MS: u64 = 3_600_000;
const MAX_READ_TIMEOUT_MS: u64 = 600_000;

fn in_range<T: PartialOrd + std::fmt::Display>(option: &str, value: T, low: T, high: T) -> Result<T> {
    if value < low || value > high {
        return Err(Error::new(ErrorKind::Usage, format!("{option} {value} is outside {low}..={high}")));
    }
    Ok(value)
}

fn serve(args: ServeArgs, limits: WorkLimits) -> Result<()> {
    let threads = match args.render_threads {
        Some(n) => in_range("--render-threads", n, 1, MAX_RENDER_THREADS)?,
        None => std::thread::available_parallelism().map_or(2, |n| n.get()).min(MAX_RENDER_THREADS),
    };
    let ms = std::time::Duration::from_millis;
    let config = ServeConfig {
        bind: args.bind,
        data_dir: args.data_dir,
        max_body_bytes: in_range("--max-body-bytes", args.max_body_bytes, 1, 1 << 40)?,
        render_threads: threads,
        queue_depth: in_range("--queue-depth", args.queue_depth, 1, MAX_QUEUE_DEPTH)?,
        render_timeout: ms(in_range("--render-timeout-ms", args.render_timeout_ms, 1, MAX_RENDER_TIMEOUT_MS)?),
        read_timeout: ms(in_range("--read-timeout-ms", args.read_timeout_ms, 1, MAX_READ_TIMEOUT_MS)?),
        cache_bytes: args.cache_bytes,
        max_store_bytes: args.max_store_bytes,
        limits,
        write_token: std::env::var("PMM_WRITE_TOKEN").ok().filter(|t| !t.is_empty()),
    };
    server::serve(config).map_err(|e| Error::new(ErrorKind::Io, format!("the service stopped: {e}")))
}

fn render(args: &RenderArgs) -> Result<()> {
    let path = args.path.as_deref().unwrap_or(Path::new("."));
    let format = match (&args.format, &args.output) {
        (Some(f), _) => f.parse()?,
        (None, Some(out)) => Format::from_extension(out).unwrap_or(Format::Html),
        (None, None) => Format::Html,
    };
    let view = view_options(&args.view)?;
    let map = load_input(path, &args.input)?;
    let opts = RenderOptions { format, backend: args.input.backend.clone(), view, scale: args.view.scale };
    if matches!(format, Format::Svg | Format::Png) {
        warn_if_wide(&map, &opts.view);
    }
    let pass = &args.input.pass_name;
    let inputs = inputs_read(&[path], &args.input)?;
    if !args.split {
        let target = match &args.output {
            Some(out) => out.clone(),
            None => default_output(path, pass, None, format)?,
        };
        refuse_to_overwrite(&target, &inputs)?;
        return write_output(&target, &render_map(&map, &opts)?);
    }
    opts.view.validate(&map)?;
    let names: Vec<String> = map
        .functions
        .iter()
        .map(|f| f.name.clone())
        .filter(|n| opts.view.functions.is_empty() || opts.view.functions.contains(n))
        .collect();
    let targets = names
        .iter()
        .map(|name| split_output(path, pass, args.output.as_deref(), name, format))
        .collect::<Result<Vec<_>>>()?;
    for target in &targets {
        refuse_to_overwrite(target, &inputs)?;
    }
    for (name, target) in names.into_iter().zip(targets) {
        let one = RenderOptions { view: ViewOptions { functions: vec![name], ..opts.view.clone() }, ..opts.clone() };
        write_output(&target, &render_map(&map, &one)?)?;
    }
    Ok(())
}

/// Every file a run reads: the dumps `paths` resolve to, the SoC files, and the `ptoas/*.pto` files
/// the backend may be detected from. No output may be one of them.
fn inputs_read(paths: &[&Path], input: &InputArgs) -> Result<Vec<PathBuf>> {
    let mut files = input.soc.clone();
    for path in paths {
        let dump = dump::resolve(path, &input.pass_name)?;
        if let Some(ptoas) = dump.parent().and_then(Path::parent).map(|case| case.join("ptoas"))
            && let Ok(entries) = std::fs::read_dir(ptoas)
        {
            files.extend(
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "pto")),
            );
        }
        files.push(dump);
    }
    Ok(files)
}

/// Refuses an output that is one of `inputs`, by name or through a link, a hard link or a case-folding
/// file system: the same file is the same (device, inode). Checked before anything is written.
fn refuse_to_overwrite(target: &Path, inputs: &[PathBuf]) -> Result<()> {
    if target == Path::new("-") {
        return Ok(());
    }
    let Ok(out) = std::fs::metadata(target) else { return Ok(()) }; // a new file cannot be an input
    for input in inputs {
        if std::fs::metadata(input).is_ok_and(|m| same_file(&m, &out)) {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "-o {} is the input {}: writing it would destroy the dump; choose another output name \
                     (or leave out -o to write <stem>.memory_map.<ext> beside the dump)",
                    target.display(),
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.created().ok() == b.created().ok()
}

/// A static picture many panels wide is correct (one byte scale) but rarely what a user wanted:
/// say which small space caused it and how to get a narrower one.
fn warn_if_wide(map: &pto_memory_map::MemoryMap, view: &ViewOptions) {
    if let Some(hint) = pto_memory_map::widening_hint(map, view) {
        say_err(format_args!("note: {hint}"));
    }
}

fn view_options(v: &ViewArgs) -> Result<ViewOptions> {
    if !(1.0..=4.0).contains(&v.scale) {
        return Err(Error::new(ErrorKind::Usage, format!("scale {} is outside 1..4", v.scale)));
    }
    Ok(ViewOptions {
        x_axis: v.x_axis.parse::<XAxis>()?,
        zoom: v.zoom,
        hidden: v.hide.clone(),
        functions: v.function.clone(),
        theme: v.theme.parse::<Theme>()?,
        width: v.width,
        fits: v.fit.iter().map(|f| f.parse()).collect::<Result<_>>()?,
    })
}

fn load_input(path: &Path, input: &InputArgs) -> Result<pto_memory_map::MemoryMap> {
    let mut backends = Backends::builtin();
    for soc in &input.soc {
        backends = backends.with_soc_file(soc)?;
    }
    load_with(path, &input.pass_name, input.backend.as_deref(), &backends)
}

fn diff(args: &DiffArgs) -> Result<()> {
    let format: DiffFormat = match &args.format {
        Some(f) => f.parse()?,
        None => args
            .output
            .extension()
            .and_then(|e| e.to_str())
            .and_then(|e| e.parse().ok())
            .unwrap_or(DiffFormat::Markdown),
    };
    let view = view_options(&args.view)?;
    let old_input = InputArgs {
        pass_name: args.input.pass_name.clone(),
        backend: args.old_backend.clone().or_else(|| args.input.backend.clone()),
        soc: args.input.soc.clone(),
    };
    let mut old = load_input(&args.old, &old_input)?;
    let mut new = load_input(&args.new, &args.input)?;
    refuse_to_overwrite(&args.output, &inputs_read(&[&args.old, &args.new], &args.input)?)?;
    if old.dump == new.dump {
        // Base and head dumps usually share a file name: name each by as much of its path as tells
        // them apart, so the report says which is which.
        let old_path = dump::resolve(&args.old, &old_input.pass_name)?;
        let new_path = dump::resolve(&args.new, &args.input.pass_name)?;
        (old.dump, new.dump) = distinguishing_names(&old_path, &new_path);
    }
    write_output(&args.output, &render_diff(&old, &new, format, &view, args.view.scale)?)
}

/// The shortest trailing parts of two paths that differ (`base/passes_dump/32_after_X.py` and
/// `head/passes_dump/32_after_X.py`); the file names alone when the paths are the same.
fn distinguishing_names(a: &Path, b: &Path) -> (String, String) {
    let (pa, pb): (Vec<_>, Vec<_>) = (a.components().rev().collect(), b.components().rev().collect());
    let shared = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    let keep = if shared >= pa.len().min(pb.len()) { 1 } else { shared + 1 };
    let tail = |parts: &[std::path::Component]| {
        let mut kept: Vec<_> = parts.iter().take(keep).map(|c| c.as_os_str().to_string_lossy()).collect();
        kept.reverse();
        kept.join("/")
    };
    (tail(&pa), tail(&pb))
}

/// Prints the violations; `Ok(false)` when there are any.
fn check(args: &CheckArgs) -> Result<bool> {
    let limits = Limits {
        max_occupancy: args.max_occupancy,
        deny_conflicts: args.deny_conflicts,
        max_hwm: args.max_hwm.iter().map(|s| check::parse_max_hwm(s)).collect::<Result<_>>()?,
    };
    if let Some(p) = limits.max_occupancy
        && !(0.0..=1000.0).contains(&p)
    {
        return Err(Error::new(ErrorKind::Usage, format!("--max-occupancy {p} is not a percentage")));
    }
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        other => return Err(Error::new(ErrorKind::Usage, format!("unknown check format '{other}'; use text or json"))),
    };
    let map = load_input(&args.path, &args.input)?;
    let violations = check::check(&map, &limits);
    if json {
        let report = serde_json::json!({"dump": map.dump, "passed": violations.is_empty(), "violations": violations});
        say(format_args!("{report}"));
    } else if violations.is_empty() {
        say(format_args!("ok: {} functions within the limits", map.functions.len()));
    } else {
        for v in &violations {
            say(format_args!("{v}"));
        }
    }
    Ok(violations.is_empty())
}

/// `<dump stem>.memory_map.<ext>` beside the dump.
fn default_output(path: &Path, pass: &str, function: Option<&str>, format: Format) -> Result<PathBuf> {
    let dump = dump::resolve(path, pass)?;
    let stem = dump.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let middle = function.map(|f| format!(".{f}")).unwrap_or_default();
    Ok(dump.with_file_name(format!("{stem}.memory_map{middle}.{}", format.extension())))
}

/// With `--split`, `-o map.svg` gives `map.<function>.svg`; without `-o`, the default name per function.
fn split_output(path: &Path, pass: &str, output: Option<&Path>, function: &str, format: Format) -> Result<PathBuf> {
    match output {
        Some(out) if out == Path::new("-") => {
            Err(Error::new(ErrorKind::Usage, "--split writes one file per function; give -o a file name, not -"))
        }
        Some(out) => {
            let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            Ok(out.with_file_name(format!("{stem}.{function}.{}", format.extension())))
        }
        None => default_output(path, pass, Some(function), format),
    }
}

/// Writes `bytes` to `target` (`-`: standard output, where a reader that went away ends the run
/// quietly, as other tools do). A file is written beside its final name and renamed over it, so a
/// failed run leaves no half-written file.
fn write_output(target: &Path, bytes: &[u8]) -> Result<()> {
    if target == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return match out.write_all(bytes).and_then(|_| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(Error::new(ErrorKind::Io, format!("cannot write to standard output: {e}")))
            }
            _ => Ok(()),
        };
    }
    write_atomically(target, bytes)
        .map_err(|e| Error::new(ErrorKind::Io, format!("{}: cannot write: {e}", target.display())))?;
    say(format_args!("wrote {}", target.display()));
    Ok(())
}

fn write_atomically(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().ok_or_else(|| std::io::Error::other("not a file name"))?;
    let temp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
