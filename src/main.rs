//! The command line: a thin shell over the library's pipeline.
#![forbid(unsafe_code)]

use std::io::Write;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Parser, Subcommand};
use pto_memory_map::backend::Backends;
use pto_memory_map::budget::{self, Budget, Limits as WorkLimits};
use pto_memory_map::check::{self, Gate};
use pto_memory_map::compare::{self, tree as diff_tree};
use pto_memory_map::option_table::{self as table, Chosen, OPTIONS, OptionSpec, Shell};
use pto_memory_map::server::{self, ServeConfig};
use pto_memory_map::{
    DiffFormat, Error, ErrorKind, Format, RenderOptions, Result, ViewOptions, dump, load_with, render_diff, render_map,
    render_map_to, tree,
};

/// Draws the on-chip memory map of a PyPTO pass dump.
#[derive(Parser, Debug)]
#[command(
    name = "pto-memory-map",
    version,
    about = "Draws the on-chip memory map of a PyPTO pass dump: what each kernel keeps in on-chip memory, \
             where, and for how long.",
    override_usage = "pto-memory-map [OPTIONS] <PATH>\n       pto-memory-map <COMMAND> [ARGS]",
    after_help = formats_help(),
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    render: RenderArgs,
    /// Print the option table as JSON (names, values, defaults, help) for programs that drive the CLI.
    #[arg(long = "list-options", hide = true, exclusive = true)]
    list_options: bool,
    /// How an error is printed on standard error: `text` (`error: FILE:LINE:COL: ...`) or `json`, one
    /// object on one line (code, file, line, column, message, remedy) for editors and CI.
    #[arg(long = "error-format", value_name = "text|json", default_value = "text", global = true,
          value_parser = ["text", "json"])]
    error_format: String,
}

/// The formats, listed under the top-level help from the format table.
fn formats_help() -> String {
    let mut out = String::from("Formats (-f, or the extension of -o):\n");
    for f in pto_memory_map::render::FORMATS {
        let default = if f.format == Format::CLI_DEFAULT { " (default)" } else { "" };
        out.push_str(&format!("  {:<6}{}{default}\n", f.extension, f.what));
    }
    out.push_str(
        "\nExamples:\n  pto-memory-map examples/demo_case -o demo.html\n  pto-memory-map build_output/ -o site/\n  \
         pto-memory-map diff base_case head_case -o diff.md\n  pto-memory-map check build_output/ --deny warnings",
    );
    out
}

/// How one run may spread and how much it may do: taken by the commands that read dumps.
#[derive(Args, Debug)]
struct RunArgs {
    /// Threads to spread one run over: a dump's functions, a tree's cases [default: every core].
    #[arg(short = 'j', long = "threads", value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Work limits (see `budget::Limits`); the defaults are far above any real dump.
#[derive(Args, Debug)]
struct LimitArgs {
    /// Most tiles one function may bind [default: 250000].
    #[arg(long = "max-tiles", value_name = "N")]
    max_tiles: Option<usize>,
    /// Most lines one function may span [default: 250000].
    #[arg(long = "max-lines", value_name = "N")]
    max_lines: Option<usize>,
    /// Most tokens (names, numbers, operators) in one statement of the dump [default: 20000].
    #[arg(long = "max-statement-tokens", value_name = "N")]
    max_statement_tokens: Option<usize>,
    /// Most tokens in one function of the dump [default: 5000000].
    #[arg(long = "max-tokens", value_name = "N")]
    max_tokens: Option<usize>,
    /// Largest output, in bytes [default: 536870912, 512 MiB].
    #[arg(long = "max-output-bytes", value_name = "N")]
    max_output_bytes: Option<usize>,
    /// Most milliseconds the packer searches one space for `spaces[].packing` [default: 50, within
    /// the map's packing budget; given, the map's budget is at least this].
    #[arg(long = "pack-deadline", value_name = "MS")]
    pack_deadline: Option<u64>,
}

impl LimitArgs {
    fn limits(&self) -> WorkLimits {
        let d = WorkLimits::default();
        WorkLimits {
            tiles_per_function: self.max_tiles.unwrap_or(d.tiles_per_function),
            lines_per_function: self.max_lines.unwrap_or(d.lines_per_function),
            tokens_per_statement: self.max_statement_tokens.unwrap_or(d.tokens_per_statement),
            tokens_per_function: self.max_tokens.unwrap_or(d.tokens_per_function),
            output_bytes: self.max_output_bytes.unwrap_or(d.output_bytes),
            pack_deadline_ms: self.pack_deadline,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compare two dumps (or two folders of cases): what did the change do to on-chip memory?
    Diff(DiffArgs),
    /// Exit 1 with one line per violation when a dump (or a folder of cases) has error findings or
    /// breaks the given limits; lists every warning either way.
    Check(CheckArgs),
    /// Say what a finding's code means and what to do about it (`explain overflow`; `explain` lists them).
    Explain(ExplainArgs),
    /// Serve maps over HTTP: an upload page at /, POST a dump to /render, or store it with POST /maps.
    Serve(ServeArgs),
    /// Pack blocks live over intervals as low as possible (MiniMalloc's CSV: id,lower,upper,size, live
    /// on [lower, upper)); writes the CSV back with an offset column and says whether it is optimal.
    Pack(PackArgs),
}

#[derive(Args, Debug)]
struct PackArgs {
    /// The instance: a CSV with a header `id,lower,upper,size` (an `offset` column pins the rows
    /// that give one).
    instance: PathBuf,
    /// Where to write the placement [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Stop as soon as the peak fits in BYTES (exit 1 when it cannot) rather than minimise it.
    #[arg(long, value_name = "BYTES")]
    capacity: Option<u64>,
    /// Offsets are multiples of N, and sizes are rounded up to it.
    #[arg(long, value_name = "N", default_value_t = 1)]
    align: u64,
    /// Stop the exact search after MS milliseconds and write the best placement found [default:
    /// none: run until it is proven optimal, or found to fit or not].
    #[arg(long, value_name = "MS")]
    deadline: Option<u64>,
}

#[derive(Args, Debug)]
struct ExplainArgs {
    /// A finding code (overflow, conflict, pressure, ...); none lists every code.
    code: Option<String>,
}

#[derive(Args, Debug)]
struct RenderArgs {
    /// A pass dump (.py), a passes_dump/ folder, a case folder that holds one, or a folder of cases
    /// (drawn as a site: a page per case and an index, into the folder -o names).
    #[arg(required = true)]
    path: Option<PathBuf>,
    /// Where to write: a file, `-` for standard output, or a folder for a folder of cases.
    /// Default: beside the dump, `<stem>.memory_map.<ext>`.
    #[arg(short, long, value_name = "FILE|FOLDER")]
    output: Option<PathBuf>,
    /// One file per function: `<stem>.<function>.<ext>`.
    #[arg(long)]
    split: bool,
    /// Print nothing on success: no `wrote` lines, no summary (errors still go to standard error).
    #[arg(short, long)]
    quiet: bool,
    /// Instead of drawing, write each function's spaces as MiniMalloc instances (what the packing
    /// packs), `<function>.<space>.csv` in FOLDER, for `pto-memory-map pack` or MiniMalloc.
    #[arg(long = "export-csv", value_name = "FOLDER")]
    export_csv: Option<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    view: TableArgs<RenderTakes>,
    #[command(flatten)]
    run: RunArgs,
}

/// Which dump to read from a folder, and the chips described in files.
#[derive(Args, Debug, Clone)]
struct InputArgs {
    /// The pass whose dump to pick when PATH is a folder.
    #[arg(short, long = "pass-name", default_value = dump::DEFAULT_PASS)]
    pass_name: String,
    /// A chip described in a file (TOML or JSON: name, arch, capacities per space), usable with
    /// -b and matched by its arch like the built-in backends (repeatable).
    #[arg(long = "soc", value_name = "FILE")]
    soc: Vec<PathBuf>,
}

impl InputArgs {
    /// The built-in backends and the `--soc` files' chips.
    fn backends(&self) -> Result<Backends> {
        let mut backends = Backends::builtin();
        for soc in &self.soc {
            backends = backends.with_soc_file(soc)?;
        }
        Ok(backends)
    }
}

/// Which rows of the option table a command takes as flags.
trait Takes {
    fn takes(o: &OptionSpec) -> bool;
}

/// Drawing one dump or a folder of cases: every option with a flag.
#[derive(Debug)]
struct RenderTakes;
impl Takes for RenderTakes {
    fn takes(_: &OptionSpec) -> bool {
        true
    }
}

/// `diff`: every option but the format, which a diff has its own of (Markdown too).
#[derive(Debug)]
struct DiffTakes;
impl Takes for DiffTakes {
    fn takes(o: &OptionSpec) -> bool {
        o.http != table::FORMAT.http
    }
}

/// `check`: only the backend; it draws nothing.
#[derive(Debug)]
struct CheckTakes;
impl Takes for CheckTakes {
    fn takes(o: &OptionSpec) -> bool {
        o.http == table::BACKEND.http
    }
}

/// The option table's flags a command takes, as given on the command line, in order. clap builds
/// them from the table (names, help, values, default) and keeps the text; the table's own code
/// reads each value ([`TableArgs::chosen`]), as the service's does.
#[derive(Debug)]
struct TableArgs<T> {
    given: Vec<(&'static OptionSpec, String)>,
    takes: PhantomData<T>,
}

impl<T: Takes> TableArgs<T> {
    /// What the flags say, each value read by its row of the table.
    fn chosen(&self) -> Result<Chosen> {
        let mut chosen = Chosen::default();
        for (o, value) in &self.given {
            o.apply(&mut chosen, value)?;
        }
        Ok(chosen)
    }

    fn rows() -> impl Iterator<Item = (&'static OptionSpec, &'static str)> {
        OPTIONS.iter().filter(|o| T::takes(o)).filter_map(|o| Some((o, o.cli?)))
    }
}

/// The flag of one row of the table: its values as the placeholder, its help with its default.
fn flag(o: &OptionSpec, name: &'static str) -> Arg {
    let default = if o.default.is_empty() { String::new() } else { format!(" [default: {}]", o.default) };
    let more = if o.repeatable { " (repeatable)" } else { "" };
    let arg = Arg::new(name)
        .long(name)
        .value_name(o.values())
        .help(format!("{}{more}{default}", capitalized(o.help)))
        .action(if o.repeatable { ArgAction::Append } else { ArgAction::Set });
    match o.short {
        Some(c) => arg.short(c),
        None => arg,
    }
}

/// `text` with its first letter in capitals, as clap's own help lines are.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

impl<T: Takes> clap::FromArgMatches for TableArgs<T> {
    fn from_arg_matches(matches: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut args = TableArgs { given: Vec::new(), takes: PhantomData };
        args.update_from_arg_matches(matches)?;
        Ok(args)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> std::result::Result<(), clap::Error> {
        for (o, name) in Self::rows() {
            if matches.value_source(name) != Some(ValueSource::CommandLine) {
                continue;
            }
            let values = matches.get_many::<String>(name).into_iter().flatten();
            self.given.extend(values.map(|v| (o, v.clone())));
        }
        Ok(())
    }
}

impl<T: Takes> Args for TableArgs<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        Self::rows().fold(cmd, |cmd, (o, name)| cmd.arg(flag(o, name)))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// `diff OLD NEW`: what a change did to on-chip memory.
#[derive(Args, Debug)]
struct DiffArgs {
    /// The dump before the change (any path form), or a folder of cases (a `build_output/`).
    old: PathBuf,
    /// The dump after the change, or a folder of cases.
    new: PathBuf,
    /// Where to write; default `-` (standard output).
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Output format [default: the extension of -o, else md].
    #[arg(short, long, value_name = "md|svg|png|html|json")]
    format: Option<String>,
    /// Print nothing on success (errors still go to standard error).
    #[arg(short, long)]
    quiet: bool,
    /// Backend for OLD when it differs from NEW's (-b), e.g. the same kernel on two chips.
    #[arg(long = "old-backend", value_name = "NAME")]
    old_backend: Option<String>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    view: TableArgs<DiffTakes>,
    #[command(flatten)]
    run: RunArgs,
}

/// `check PATH`: a gate for CI.
#[derive(Args, Debug)]
struct CheckArgs {
    /// A pass dump (any path form), or a tree of case folders (a build_output/).
    path: PathBuf,
    /// Fail when a space is more than this full (percent of capacity, 0-100).
    #[arg(long = "max-occupancy", value_name = "PCT")]
    max_occupancy: Option<f64>,
    /// Fail on any cross-base conflict (the default already does; kept for old scripts).
    #[arg(long = "deny-conflicts")]
    deny_conflicts: bool,
    /// Fail when a space's high-water mark is above BYTES (`Vec=96KB`; repeatable).
    #[arg(long = "max-hwm", value_name = "SPACE=BYTES")]
    max_hwm: Vec<String>,
    /// Fail when a space's high-water mark is more than BYTES above its packing (`Vec=4KB`; repeatable).
    #[arg(long = "max-waste", value_name = "SPACE=BYTES")]
    max_waste: Vec<String>,
    /// Also fail on `warnings`, on `notes`, or on one code (repeatable). Errors always fail.
    #[arg(long = "deny", value_name = "warnings|notes|CODE")]
    deny: Vec<String>,
    /// Never fail on this code (repeatable), e.g. `--allow conflict`.
    #[arg(long = "allow", value_name = "CODE")]
    allow: Vec<String>,
    /// `text` (one line per violation and per warning), `json`, `sarif` (SARIF 2.1.0) or
    /// `codequality` (a GitLab Code Quality report, paths relative to the working folder).
    #[arg(long = "format", value_name = "text|json|sarif|codequality", default_value = "text")]
    format: String,
    /// Also list the notes in the text report (they are counted either way).
    #[arg(long = "show", value_name = "notes")]
    show: Option<String>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    table: TableArgs<CheckTakes>,
    #[command(flatten)]
    run: RunArgs,
}

/// What `serve --help` says after the options: the environment it reads.
const SERVE_ENVIRONMENT: &str = "Environment:
  PMM_WRITE_TOKEN        when set, POST /maps needs `Authorization: Bearer <token>` (401 without it);
                         rendering stays open. Unset: anyone who reaches the service may store maps
  AWS_ENDPOINT_URL       with --store s3://...: the S3-compatible endpoint (default: AWS S3)
  AWS_ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY  with --store s3://...: the credentials
  AWS_REGION             with --store s3://...: the region (default: us-east-1)

Links in answers are absolute: from --public-url when given, else from a trusted proxy's
X-Forwarded-Proto and X-Forwarded-Host, else from the request's Host. See docs/deploy.md.

Example:
  PMM_WRITE_TOKEN=secret pto-memory-map serve --bind 0.0.0.0:8080 --public-url https://maps.example.com";

#[derive(Args, Debug)]
#[command(after_help = SERVE_ENVIRONMENT)]
struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free one, printed on standard output).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    bind: String,
    /// Folder where stored maps live (made when missing).
    #[arg(long = "data-dir", value_name = "FOLDER", default_value = "pto-memory-map-data")]
    data_dir: PathBuf,
    /// Where stored maps live, as a URL: file://PATH (the same as --data-dir PATH) or
    /// s3://BUCKET/PREFIX, a bucket many instances share (AWS_* variables below; see docs/deploy.md)
    /// [default: --data-dir].
    #[arg(long = "store", value_name = "URL", conflicts_with = "data_dir")]
    store: Option<String>,
    /// The service's address as its users reach it (https://maps.example.com, or with a path
    /// prefix): the start of every link in its answers [default: from the request].
    #[arg(long = "public-url", value_name = "URL")]
    public_url: Option<String>,
    /// A proxy whose X-Forwarded-Host and X-Forwarded-Proto are believed, by its IP address as this
    /// service sees it (repeatable) [default: none: those headers are ignored].
    #[arg(long = "trusted-proxy", value_name = "IP")]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// Largest accepted request body in bytes, on the wire and after gunzip [default: 33554432, 32 MiB].
    #[arg(long = "max-body-bytes", value_name = "BYTES", default_value_t = 32 * 1024 * 1024, hide_default_value = true)]
    max_body_bytes: usize,
    /// Threads that render, each with a large stack (1-256) [default: the number of cores].
    #[arg(long = "render-threads", value_name = "N")]
    render_threads: Option<usize>,
    /// Renders that may wait for a thread before requests are answered 503 (1-100000).
    #[arg(long = "queue-depth", value_name = "N", default_value_t = 64)]
    queue_depth: usize,
    /// Milliseconds a request waits for its render, queue included, before it is answered 504.
    #[arg(long = "render-timeout-ms", value_name = "MS", default_value_t = 30_000)]
    render_timeout_ms: u64,
    /// Memory in bytes for recent renders of stored maps [default: 67108864, 64 MiB].
    #[arg(long = "cache-bytes", value_name = "BYTES", default_value_t = 64 * 1024 * 1024, hide_default_value = true)]
    cache_bytes: usize,
    /// Milliseconds a client may take to send its request headers, and then its whole body, before
    /// it is answered 408.
    #[arg(long = "read-timeout-ms", value_name = "MS", default_value_t = 10_000)]
    read_timeout_ms: u64,
    /// Bytes of stored maps; past it the least recently used maps are evicted (507 when a map
    /// alone is larger). With s3://, the least recently stored maps under the prefix, swept by
    /// whichever instance stores; 0 leaves the bucket to its lifecycle rules [default: 1073741824, 1 GiB].
    #[arg(long = "max-store-bytes", value_name = "BYTES", default_value_t = 1024 * 1024 * 1024,
          hide_default_value = true)]
    max_store_bytes: u64,
    /// Bytes the answers to all clients may hold at once (pictures on their way out); past it a
    /// request is answered 503 with Retry-After [default: 268435456, 256 MiB].
    #[arg(long = "max-answer-bytes", value_name = "BYTES", default_value_t = 256 * 1024 * 1024, hide_default_value = true)]
    max_answer_bytes: usize,
    #[command(flatten)]
    limits: LimitArgs,
}

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
    let result = budget::run(Budget { limits, threads, ..Budget::default() }, || match cli.command {
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

/// The error as one JSON object on one line (`--error-format json`): its kind's code, where it is
/// (`null` when it points into no file), the message without that place, and what to do: the
/// advice the error carries, worded for the command line, or else its kind's general way out.
fn error_json(err: &Error) -> serde_json::Value {
    let at = err.location.as_deref();
    // The words the terminal shows (advice included), without the place, which has its own fields.
    let described = table::describe(err, Shell::Cli);
    let message = match at {
        Some(at) => described.strip_prefix(&format!("{at}: ")).unwrap_or(&described).to_string(),
        None => described.clone(),
    };
    serde_json::json!({
        "code": err.kind.code(),
        "file": at.map(|a| a.file.as_str()),
        "line": at.map(|a| a.line),
        "column": at.map(|a| a.column),
        "message": message,
        "remedy": table::advice(err, Shell::Cli).unwrap_or_else(|| err.kind.remedy().to_string()),
    })
}

/// Flags people reach for that the command line spells otherwise: clap's own guess (the nearest
/// spelling) would point at an unrelated flag, so these say which one does the job.
const FLAG_WORDS: &[(&str, &str)] = &[
    ("--colour", "colours are chosen with --theme light|dark"),
    ("--color", "colours are chosen with --theme light|dark"),
    ("--colours", "colours are chosen with --theme light|dark"),
    ("--colors", "colours are chosen with --theme light|dark"),
    ("--dark", "the dark colours are --theme dark"),
    ("--pass", "the pass is chosen with -p/--pass-name NAME"),
    ("--chip", "the chip is chosen with -b/--backend NAME"),
    ("--out", "the output is named with -o/--output FILE"),
];

/// The arguments with a leading `--error-format X` moved after the subcommand that follows it:
/// the option is global, but before a subcommand clap would take it for the drawing's and refuse
/// the subcommand.
fn args_in_order(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let first = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let n = if first == "--error-format" { 2 } else { usize::from(first.starts_with("--error-format=")) };
    if n > 0 && args.get(1 + n).and_then(|a| a.to_str()).is_some_and(|c| COMMANDS.contains(&c)) {
        args[1..=1 + n].rotate_right(1);
    }
    args
}

/// A command line clap refused (or help and version, which it prints as they are): in text, clap's
/// message, or ours for a misspelt command or a flag of [`FLAG_WORDS`]; in JSON when
/// `--error-format json` was given.
fn usage_error(err: clap::Error, args: &[std::ffi::OsString]) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind as Clap};
    if matches!(err.kind(), Clap::DisplayHelp | Clap::DisplayVersion | Clap::DisplayHelpOnMissingArgumentOrSubcommand) {
        err.exit();
    }
    let json = error_format_json(args.iter().cloned());
    // `chek PATH`: clap reads the word as the drawing's PATH and PATH as a subcommand.
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let first = words
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with('-') && (*i == 0 || words[i - 1] != "--error-format"))
        .map(|(_, a)| *a);
    if let Some(Err(misspelt)) = first.map(|word| refuse_misspelt_command(Path::new(word))) {
        match json {
            true => say_err(format_args!("{}", error_json(&misspelt))),
            false => say_err(format_args!("error: {}", misspelt.message)),
        }
        return ExitCode::from(2);
    }
    let unknown = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) if err.kind() == Clap::UnknownArgument => Some(arg.clone()),
        _ => None,
    };
    let flag = unknown.as_deref().map(|a| a.split_once('=').map_or(a, |(f, _)| f));
    let ours = flag.and_then(|f| FLAG_WORDS.iter().find(|(w, _)| *w == f));
    if !json && ours.is_none() {
        err.exit();
    }
    let (message, remedy) = match ours {
        Some((word, way)) => (format!("there is no {word} option"), way.to_string()),
        None => {
            let text = err.render().to_string();
            let first = text.lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
            let tip = text.lines().find_map(|l| l.trim().strip_prefix("tip: ")).map(str::to_string);
            (first, tip.unwrap_or_else(|| "see pto-memory-map --help".to_string()))
        }
    };
    let error = Error::new(ErrorKind::Usage, message.clone());
    if json {
        let mut value = error_json(&error);
        value["remedy"] = remedy.into();
        say_err(format_args!("{value}"));
    } else {
        say_err(format_args!("error: {message}; {remedy}\n\nFor more information, try '--help'."));
    }
    ExitCode::from(2)
}

/// Whether the arguments ask for JSON errors, read from the raw arguments: when clap refused
/// them, its result (which would say) is not there.
fn error_format_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).take_while(|a| a != "--").collect();
    args.iter().any(|a| a == "--error-format=json")
        || args.windows(2).any(|w| w[0] == "--error-format" && w[1] == "json")
}

/// A line on standard output. A reader that went away (`| head`, `| true`) is not a failure of the
/// run, so a closed pipe is ignored rather than a panic.
fn say(line: std::fmt::Arguments) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(std::io::stdout(), "{line}");
    }
}

/// `-q`: nothing on standard output or error but errors. Set once, before anything is written.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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
    server::serve(config).map_err(|e| Error::new(ErrorKind::Io, format!("the service stopped: {e}")))
}

fn render(args: &RenderArgs) -> Result<()> {
    QUIET.store(args.quiet, std::sync::atomic::Ordering::Relaxed);
    let path = args.path.as_deref().unwrap_or(Path::new("."));
    refuse_misspelt_command(path)?;
    let chosen = args.view.chosen()?;
    let is_tree = tree::is_tree(path, &args.input.pass_name);
    if let Some(out) = args.output.as_deref().filter(|o| is_tree && o.extension().is_some() && !o.is_dir()) {
        return Err(Error::new(
            ErrorKind::Usage,
            format!(
                "{} is a folder of cases, drawn as a page per case and an index: give -o a folder (such as site/), \
                 not the file name {}",
                path.display(),
                out.display()
            ),
        ));
    }
    let format = match (chosen.format, &args.output) {
        (Some(f), _) => f,
        (None, Some(out)) => match out.extension().and_then(|e| e.to_str()) {
            // `-o map.text` names no format: say so rather than write HTML under that name.
            Some(ext) if Format::from_extension(out).is_none() => {
                let known: Vec<&str> = Format::ALL.iter().map(|f| f.extension()).collect();
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!(
                        "-o {}: '.{ext}' is not an output format; use one of .{} or give -f FORMAT",
                        out.display(),
                        known.join(", .")
                    ),
                ));
            }
            _ => Format::from_extension(out).unwrap_or(Format::CLI_DEFAULT),
        },
        (None, None) => Format::CLI_DEFAULT,
    };
    let opts = chosen.render_options(format);
    if is_tree && args.export_csv.is_some() {
        return Err(Error::new(ErrorKind::Usage, "--export-csv takes one dump or case folder, not a folder of cases"));
    }
    if is_tree {
        return draw_tree(path, args, opts);
    }
    let map = load_input(path, &args.input, opts.backend.as_deref())?;
    if let Some(dir) = &args.export_csv {
        let written = pto_memory_map::pack::export::write_all(&map, dir)?;
        if !args.quiet {
            say_err(format_args!("wrote {} instances to {}", written.len(), dir.display()));
        }
        return Ok(());
    }
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
        write_with(&target, |out| render_map_to(&map, &opts, out))?;
        summarize(&map, &opts.view, args.quiet);
        if format == Format::Png && pto_memory_map::render::digest::took_digest() && !args.quiet {
            say_err(format_args!(
                "note: the whole map is past a PNG's size limit, so this PNG is its digest: a row per function, \
                 worst first, then the worst cards that fit. For every card: -f svg or -f html (no size limit), \
                 --function NAME for one function's PNG, or --split for one PNG per function"
            ));
        }
        // The process ends here: freeing a large map tile by tile would only delay the exit.
        std::mem::forget(map);
        return Ok(());
    }
    opts.view.validate(&map)?;
    let names: Vec<String> = map.functions.iter().map(|f| f.name.clone()).filter(|n| opts.view.draws(n)).collect();
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
    summarize(&map, &opts.view, args.quiet);
    Ok(())
}

/// One line on standard error after a render: what was drawn and what was found; and for a dump
/// from before AllocateMemoryAddr, a note that its offsets are not addresses.
fn summarize(map: &pto_memory_map::MemoryMap, view: &ViewOptions, quiet: bool) {
    if quiet {
        return;
    }
    eprintln!("{}", pto_memory_map::findings::summary_line(map, &view.functions, &view.hidden));
    if map.addresses == pto_memory_map::model::Addresses::Unassigned {
        let there = map.addresses_in.as_deref().unwrap_or(dump::DEFAULT_PASS);
        eprintln!(
            "note: addresses are not assigned yet in {} (a pass before AllocateMemoryAddr): drawn as a bases view, \
             one column per MemRef base, not at addresses; draw {there} for the addresses",
            map.dump
        );
    }
}

/// The subcommands, for telling a misspelt one from a dump's name.
const COMMANDS: [&str; 5] = ["diff", "check", "explain", "serve", "pack"];

/// A PATH that does not exist and reads like a misspelt subcommand (`chek`): said so, rather than
/// "no such file".
fn refuse_misspelt_command(path: &Path) -> Result<()> {
    let Some(word) = path.to_str().filter(|w| !path.exists() && w.chars().all(|c| c.is_ascii_alphabetic())) else {
        return Ok(());
    };
    // The command itself is no misspelling (clap refused something else about it).
    let near =
        COMMANDS.iter().find(|c| (1..=2.min(c.len() / 2)).contains(&edit_distance(&word.to_ascii_lowercase(), c)));
    match near {
        Some(command) => Err(Error::new(
            ErrorKind::Usage,
            format!(
                "{word}: no such file or folder, and no command '{word}'; did you mean `{command}`? \
                 (pto-memory-map {command} --help)"
            ),
        )),
        None => Ok(()),
    }
}

/// Levenshtein distance between two short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A folder of cases: one page per case into the folder `-o` names, an index, and a last line that
/// says what was drawn, skipped and failed. Exit 1 when any case failed (after drawing the others).
fn draw_tree(path: &Path, args: &RenderArgs, render: RenderOptions) -> Result<()> {
    let Some(out) = args.output.as_deref().filter(|o| *o != Path::new("-")) else {
        return Err(Error::new(
            ErrorKind::Usage,
            format!(
                "{} holds many cases: give -o FOLDER for their pages and index, or draw one case folder at a time \
                 (check takes the whole tree)",
                path.display()
            ),
        ));
    };
    if args.split {
        return Err(Error::new(ErrorKind::Usage, "--split draws one case; a folder of cases gets a page per case"));
    }
    let backends = args.input.backends()?;
    let threads = budget::threads().unwrap_or(0); // 0: every core
    let quiet = QUIET.load(std::sync::atomic::Ordering::Relaxed);
    let opts = tree::TreeOptions { pass_name: &args.input.pass_name, backends: &backends, render, threads, quiet };
    let report = tree::draw(path, out, &opts)?;
    say(format_args!("{}", report.summary()));
    match report.failed() {
        0 => Ok(()),
        n => Err(Error::new(
            ErrorKind::Unreadable,
            format!("{n} case{} could not be drawn (see above)", if n == 1 { "" } else { "s" }),
        )),
    }
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
    let spaces: Vec<String> =
        pto_memory_map::plan::width::widening_spaces(map, view).into_iter().map(str::to_string).collect();
    if !spaces.is_empty() && !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        say_err(format_args!("note: {}", table::widening_note(&spaces, Shell::Cli)));
    }
}

fn load_input(path: &Path, input: &InputArgs, backend: Option<&str>) -> Result<pto_memory_map::MemoryMap> {
    load_with(path, &input.pass_name, backend, &input.backends()?)
}

fn diff(args: &DiffArgs) -> Result<()> {
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
            return Err(Error::new(
                ErrorKind::Usage,
                "one side is a tree of cases (a folder of case folders) and the other is not; give two trees or \
                 two dumps",
            ));
        }
        return diff_trees(args, [old_backend, new_backend], format);
    }
    let mut old = load_input(&args.old, &args.input, old_backend)?;
    let mut new = load_input(&args.new, &args.input, new_backend)?;
    refuse_to_overwrite(&args.output, &inputs_read(&[&args.old, &args.new], &args.input)?)?;
    // Base and head dumps usually share a file name: name each by as much of its path as tells them
    // apart, and at least by its case folder, so the report says which is which.
    let old_path = dump::resolve(&args.old, &args.input.pass_name)?;
    let new_path = dump::resolve(&args.new, &args.input.pass_name)?;
    (old.dump, new.dump) = compare::side_names(&old_path, &new_path);
    write_output(&args.output, &render_diff(&old, &new, format, &chosen.view, chosen.scale)?)
}

/// `diff BASE HEAD` over two folders of cases: cases paired by name, each case's chosen dump compared.
fn diff_trees(args: &DiffArgs, [old_backend, new_backend]: [Option<&str>; 2], format: DiffFormat) -> Result<()> {
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
            return Err(Error::new(
                ErrorKind::Usage,
                "a diff of two trees is written as Markdown or JSON (-f md or -f json); for a picture, diff one \
                 case's folders",
            ));
        }
    };
    write_output(&args.output, &bytes)
}

/// Prints the verdict; `Ok(false)` when the gate fails.
fn check(args: &CheckArgs) -> Result<bool> {
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
        return Err(Error::new(
            ErrorKind::Usage,
            format!("unknown check format '{format}'; use text, json, sarif or codequality"),
        ));
    }
    let show_notes = match args.show.as_deref() {
        None => false,
        Some(s) if s.eq_ignore_ascii_case("notes") => true,
        Some(other) => {
            return Err(Error::new(ErrorKind::Usage, format!("--show takes notes, not '{other}'")));
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
fn explain(code: Option<&str>) -> Result<()> {
    use pto_memory_map::findings::{CODES, info};
    let Some(code) = code else {
        for c in CODES {
            println!("{:<17} {:<8} {}", c.code, c.severity.as_str(), c.title);
        }
        return Ok(());
    };
    let c = info(code).ok_or_else(|| {
        let codes: Vec<&str> = CODES.iter().map(|c| c.code).collect();
        Error::new(ErrorKind::Usage, format!("no finding code '{code}'; codes: {}", codes.join(", ")))
    })?;
    println!("{} ({}): {}\n\n{}\n\nWhat to do: {}", c.code, c.severity.as_str(), c.title, c.meaning, c.remedy);
    Ok(())
}

/// `pack`: reads the instance, packs it, writes the placement and says on standard error how good
/// it is. `Ok(false)` when a capacity was given and the blocks do not fit in it (nothing written).
fn pack(args: &PackArgs) -> Result<bool> {
    use pto_memory_map::pack;
    in_range("--align", args.align, 1, pack::csv::MAX_BYTES)?;
    let name = args.instance.display().to_string();
    // The instance is read whole: refuse what no instance needs before reading it.
    if std::fs::metadata(&args.instance).is_ok_and(|m| m.len() > MAX_INSTANCE_BYTES) {
        return Err(Error::new(
            ErrorKind::Refused,
            format!("{name}: larger than {MAX_INSTANCE_BYTES} bytes; the packer reads instances up to that size"),
        ));
    }
    let text = std::fs::read_to_string(&args.instance).map_err(|e| {
        let kind = if e.kind() == std::io::ErrorKind::NotFound { ErrorKind::NotFound } else { ErrorKind::Io };
        Error::new(kind, format!("{name}: cannot read: {e}"))
    })?;
    let instance = pack::csv::read(&text, &name)?;
    let target = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    if let (Ok(a), Ok(b)) = (std::fs::metadata(&target), std::fs::metadata(&args.instance))
        && same_file(&a, &b)
    {
        return Err(Error::new(
            ErrorKind::Usage,
            format!("-o {} is the instance {name}: choose another output name", target.display()),
        ));
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
    write_with(&target, |out| {
        pack::csv::write(out, &instance, &p.offsets).map_err(|e| Error::new(ErrorKind::Io, e.to_string()))
    })?;
    say_err(format_args!("peak {}, {facts}", p.peak));
    Ok(true)
}

/// The largest instance file `pack` reads (a million rows of MiniMalloc's CSV are about 40 MB).
const MAX_INSTANCE_BYTES: u64 = 256 << 20;

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

/// Writes `bytes` to `target` (see [`write_with`]).
fn write_output(target: &Path, bytes: &[u8]) -> Result<()> {
    write_with(target, |out| out.write_all(bytes).map_err(|e| Error::new(ErrorKind::Io, e.to_string())))
}

/// Writes what `write` makes to `target` as it makes it (`-`: standard output, where a reader that
/// went away ends the run quietly, as other tools do). A file is written as
/// [`pto_memory_map::output`] says: beside its final name, then renamed, so a failed run leaves no
/// half-written file; a device or FIFO is written through, never replaced.
fn write_with(target: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    if target == Path::new("-") {
        let mut out = Sink { out: std::io::BufWriter::new(std::io::stdout().lock()), broken: false };
        let written = write(&mut out).and_then(|()| {
            out.flush().map_err(|e| Error::new(ErrorKind::Io, format!("cannot write to standard output: {e}")))
        });
        return match written {
            Err(_) if out.broken => Ok(()),
            Err(e) if e.kind == ErrorKind::Io => {
                Err(Error::new(ErrorKind::Io, format!("cannot write to standard output: {}", e.message)))
            }
            other => other,
        };
    }
    pto_memory_map::output::write_file(target, write)?;
    say(format_args!("wrote {}", target.display()));
    Ok(())
}

/// Standard output, remembering whether its reader went away.
struct Sink<W: Write> {
    out: W,
    broken: bool,
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(buf);
        self.broken |= written.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = self.out.flush();
        self.broken |= flushed.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
        flushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The command line follows the option table: each option the table gives a flag is a flag of
    /// the render command with the table's help, values and default, and the limits' flags are the
    /// ones errors name.
    #[test]
    fn the_flags_follow_the_option_table() {
        let cmd = Cli::command();
        let args: Vec<&clap::Arg> = cmd.get_arguments().collect();
        for o in OPTIONS {
            let Some(flag) = o.cli else { continue };
            let arg = args.iter().find(|a| a.get_long() == Some(flag)).unwrap_or_else(|| panic!("--{flag} is missing"));
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(help.starts_with(&capitalized(o.help)), "--{flag} help: {help}");
            assert!(o.default.is_empty() || help.ends_with(&format!("[default: {}]", o.default)), "--{flag}: {help}");
            let names: Vec<String> = arg.get_value_names().unwrap_or_default().iter().map(|n| n.to_string()).collect();
            assert_eq!(names, [o.values()], "--{flag} values");
            assert_eq!(arg.get_short(), o.short, "--{flag}");
        }
        let diff = cmd.find_subcommand("diff").unwrap();
        for (_, flag) in table::LIMIT_FLAGS {
            assert!(diff.get_arguments().any(|a| a.get_long() == Some(flag)), "--{flag}");
        }
    }

    /// The flags and the query parameters read a value the same way: the same rows, the same code.
    #[test]
    fn every_option_reads_the_same_from_flags_and_from_a_query() {
        let samples = [
            ("format", "png"),
            ("backend", "ascend950"),
            ("x-axis", "used"),
            ("zoom", "2.5"),
            ("hide", "Left,Right"),
            ("function", "main"),
            ("theme", "DARK"),
            ("scale-mode", "strict"),
            ("scale", "1"),
            ("width", "900"),
            ("fit", "Vec=32KB@10-20"),
        ];
        for o in OPTIONS.iter().filter(|o| o.cli.is_some()) {
            assert!(samples.iter().any(|(f, _)| Some(*f) == o.cli), "--{:?} has a sample", o.cli);
        }
        let mut argv = vec!["pto-memory-map".to_string(), "d.py".to_string()];
        for (flag, value) in samples {
            argv.extend([format!("--{flag}"), value.to_string()]);
        }
        let cli = Cli::try_parse_from(&argv).unwrap();
        let from_flags = cli.render.view.chosen().unwrap();
        let query: Vec<(String, String)> = samples
            .iter()
            .map(|(f, v)| (OptionSpec::find(f).map(|o| o.http).unwrap().to_string(), v.to_string()))
            .collect();
        let from_query = pto_memory_map::server::Params::from_pairs(&query).unwrap();
        assert_eq!(from_flags, from_query);
        assert_ne!(from_flags, Chosen::default());
    }

    /// Every kind's JSON error: its own code, the place as numbers when it has one, a remedy.
    #[test]
    fn every_kind_of_error_has_its_json() {
        let mut codes = std::collections::BTreeSet::new();
        for kind in ErrorKind::ALL {
            let v = error_json(&Error::new(kind, "what went wrong"));
            assert_eq!(v["code"], kind.code());
            assert!(codes.insert(kind.code()), "{} twice", kind.code());
            assert_eq!(v["message"], "what went wrong");
            assert_eq!(v["remedy"], kind.remedy());
            assert!(v["file"].is_null() && v["line"].is_null() && v["column"].is_null());
        }
        let at = pto_memory_map::error::Location { file: "d.py".into(), line: 3, column: 9 };
        let v = error_json(&Error::at(ErrorKind::Unreadable, at, "not valid Python"));
        assert_eq!((v["file"].as_str(), v["line"].as_u64(), v["column"].as_u64()), (Some("d.py"), Some(3), Some(9)));
        assert_eq!(v["message"], "not valid Python");
        // An error that carries its way out as data gives it, in the command line's words.
        let v = error_json(&Error::bad_value("zoom", "100", "a number in 0.2..64"));
        assert_eq!(v["remedy"], "give --zoom a number in 0.2..64");
        assert!(v.to_string().lines().count() == 1);
    }

    #[test]
    fn misspelt_commands_and_json_errors_are_told_from_the_arguments() {
        assert_eq!(edit_distance("chek", "check"), 1);
        assert_eq!(edit_distance("serv", "serve"), 1);
        assert!(refuse_misspelt_command(Path::new("chek")).is_err());
        assert!(refuse_misspelt_command(Path::new("x")).is_ok(), "a short name is near nothing");
        assert!(refuse_misspelt_command(Path::new("serve")).is_ok(), "a command is no misspelling");
        assert!(refuse_misspelt_command(Path::new("demo.py")).is_ok());
        let args = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>().into_iter();
        assert!(error_format_json(args(&["pmm", "--error-format", "json", "x"])));
        assert!(error_format_json(args(&["pmm", "x", "--error-format=json"])));
        assert!(!error_format_json(args(&["pmm", "--", "--error-format", "json"])), "after --, a path");
        assert!(!error_format_json(args(&["pmm", "x"])));
    }

    /// `--list-options` needs no PATH and lists every option of the table, each flag the CLI has.
    #[test]
    fn list_options_is_the_table_as_json() {
        let cli = Cli::try_parse_from(["pto-memory-map", "--list-options"]).expect("no PATH needed");
        assert!(cli.list_options);
        assert!(Cli::try_parse_from(["pto-memory-map", "--list-options", "x.py"]).is_err(), "it stands alone");
        let json = table::options_json();
        let rows = json["options"].as_array().unwrap();
        assert_eq!(rows.len(), OPTIONS.len());
        let cmd = Cli::command();
        for (row, o) in rows.iter().zip(OPTIONS) {
            assert_eq!(row["name"], o.http);
            assert_eq!(row["default"], o.default);
            if let Some(flag) = row["cli"].as_str() {
                let long = flag.strip_prefix("--").unwrap();
                assert!(cmd.get_arguments().any(|a| a.get_long() == Some(long)), "{flag} is not a flag");
            }
        }
        let zoom = rows.iter().find(|r| r["name"] == "zoom").unwrap();
        assert_eq!((zoom["kind"]["min"].as_f64(), zoom["kind"]["max"].as_f64()), (Some(0.2), Some(64.0)));
        assert!(json["formats"].as_array().unwrap().iter().any(|f| f == "svg"));
    }
}
