//! The command line's shape: every subcommand, flag and argument as clap reads it, with the
//! option table's flags built from the table. Kept apart from what the commands do so the words a
//! user types can be read (and changed) without the work behind them.

use std::marker::PhantomData;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Parser, Subcommand};
use pto_memory_map::backend::Backends;
use pto_memory_map::budget::Limits as WorkLimits;
use pto_memory_map::option_table::{self as table, Chosen, OPTIONS, OptionKind, OptionSpec};
use pto_memory_map::{Format, Result, dump};

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
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub render: RenderArgs,
    /// Print the option table as JSON (names, values, defaults, help) for programs that drive the CLI.
    #[arg(long = "list-options", hide = true, exclusive = true)]
    pub list_options: bool,
    /// How an error is printed on standard error: `text` (`error: FILE:LINE:COL: ...`) or `json`, one
    /// object on one line (code, file, line, column, message, remedy) for editors and CI.
    #[arg(long = "error-format", value_name = "text|json", default_value = "text", global = true,
          value_parser = ["text", "json"])]
    pub error_format: String,
}

/// The formats, listed under the top-level help from the format table.
pub fn formats_help() -> String {
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
pub struct RunArgs {
    /// Threads to spread one run over: a dump's functions, a tree's cases [default: every core].
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Stop the run after MS milliseconds (exit 1, error code `cancelled`) [default: no limit]: a
    /// CI job's bound on a dump that takes too long.
    #[arg(long = table::TIME_LIMIT_FLAG, value_name = "MS")]
    pub time_limit_ms: Option<u64>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Work limits (see `budget::Limits`); the defaults are far above any real dump.
#[derive(Args, Debug)]
pub struct LimitArgs {
    /// Most tiles one function may bind [default: 250000].
    #[arg(long = "max-tiles", value_name = "N")]
    pub max_tiles: Option<usize>,
    /// Most lines one function may span [default: 250000].
    #[arg(long = "max-lines", value_name = "N")]
    pub max_lines: Option<usize>,
    /// Most tokens (names, numbers, operators) in one statement of the dump [default: 20000].
    #[arg(long = "max-statement-tokens", value_name = "N")]
    pub max_statement_tokens: Option<usize>,
    /// Most tokens in one function of the dump [default: 5000000].
    #[arg(long = "max-tokens", value_name = "N")]
    pub max_tokens: Option<usize>,
    /// Largest output, in bytes [default: 536870912, 512 MiB].
    #[arg(long = "max-output-bytes", value_name = "N")]
    pub max_output_bytes: Option<usize>,
    /// Most milliseconds the packer searches one space for `spaces[].packing` [default: 50, within
    /// the map's packing budget; given, the map's budget is at least this].
    #[arg(long = "pack-deadline", value_name = "MS")]
    pub pack_deadline: Option<u64>,
}

impl LimitArgs {
    pub fn limits(&self) -> WorkLimits {
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
pub enum Command {
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
pub struct PackArgs {
    /// The instance: a CSV with a header `id,lower,upper,size` (an `offset` column pins the rows
    /// that give one).
    pub instance: PathBuf,
    /// Where to write the placement [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Stop as soon as the peak fits in BYTES (exit 1 when it cannot) rather than minimise it.
    #[arg(long, value_name = "BYTES")]
    pub capacity: Option<u64>,
    /// Offsets are multiples of N, and sizes are rounded up to it.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub align: u64,
    /// Stop the exact search after MS milliseconds and write the best placement found [default:
    /// none: run until it is proven optimal, or found to fit or not].
    #[arg(long, value_name = "MS")]
    pub deadline: Option<u64>,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A finding code (overflow, conflict, pressure, ...); none lists every code.
    pub code: Option<String>,
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// A pass dump (.py), a passes_dump/ folder, a case folder that holds one, or a folder of cases
    /// (drawn as a site: a page per case and an index, into the folder -o names).
    #[arg(required = true)]
    pub path: Option<PathBuf>,
    /// Where to write: a file, `-` for standard output, or a folder for a folder of cases.
    /// Default: beside the dump, `<stem>.memory_map.<ext>`.
    #[arg(short, long, value_name = "FILE|FOLDER")]
    pub output: Option<PathBuf>,
    /// One file per function: `<stem>.<function>.<ext>`.
    #[arg(long)]
    pub split: bool,
    /// Print nothing on success: no `wrote` lines, no summary (errors still go to standard error).
    #[arg(short, long)]
    pub quiet: bool,
    /// Instead of drawing, write each function's spaces as MiniMalloc instances (what the packing
    /// packs), `<function>.<space>.csv` in FOLDER, for `pto-memory-map pack` or MiniMalloc.
    #[arg(long = "export-csv", value_name = "FOLDER")]
    pub export_csv: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub view: TableArgs<RenderTakes>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Which dump to read from a folder, and the chips described in files.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// The pass whose dump to pick when PATH is a folder.
    #[arg(short, long = "pass-name", default_value = dump::DEFAULT_PASS)]
    pub pass_name: String,
    /// A chip described in a file (TOML or JSON: name, arch, capacities per space), usable with
    /// -b and matched by its arch like the built-in backends (repeatable).
    #[arg(long = "soc", value_name = "FILE")]
    pub soc: Vec<PathBuf>,
}

impl InputArgs {
    /// The built-in backends and the `--soc` files' chips.
    pub fn backends(&self) -> Result<Backends> {
        let mut backends = Backends::builtin();
        for soc in &self.soc {
            backends = backends.with_soc_file(soc)?;
        }
        Ok(backends)
    }
}

/// Which rows of the option table a command takes as flags.
pub trait Takes {
    fn takes(o: &OptionSpec) -> bool;
}

/// Drawing one dump or a folder of cases: every option with a flag.
#[derive(Debug)]
pub struct RenderTakes;
impl Takes for RenderTakes {
    fn takes(_: &OptionSpec) -> bool {
        true
    }
}

/// `diff`: every option but the format, which a diff has its own of (Markdown too), and the
/// packed lanes, which a diff does not draw.
#[derive(Debug)]
pub struct DiffTakes;
impl Takes for DiffTakes {
    fn takes(o: &OptionSpec) -> bool {
        o.http != table::FORMAT.http && o.http != table::PACKED.http
    }
}

/// `check`: only the backend; it draws nothing.
#[derive(Debug)]
pub struct CheckTakes;
impl Takes for CheckTakes {
    fn takes(o: &OptionSpec) -> bool {
        o.http == table::BACKEND.http
    }
}

/// The option table's flags a command takes, as given on the command line, in order. clap builds
/// them from the table (names, help, values, default) and keeps the text; the table's own code
/// reads each value ([`TableArgs::chosen`]), as the service's does.
#[derive(Debug)]
pub struct TableArgs<T> {
    pub given: Vec<(&'static OptionSpec, String)>,
    pub takes: PhantomData<T>,
}

impl<T: Takes> TableArgs<T> {
    /// What the flags say, each value read by its row of the table.
    pub fn chosen(&self) -> Result<Chosen> {
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
pub fn flag(o: &OptionSpec, name: &'static str) -> Arg {
    let default = if o.default.is_empty() { String::new() } else { format!(" [default: {}]", o.default) };
    let more = if o.repeatable { " (repeatable)" } else { "" };
    let arg = Arg::new(name)
        .long(name)
        .value_name(o.values())
        .help(format!("{}{more}{default}", capitalized(o.help)))
        .action(if o.repeatable { ArgAction::Append } else { ArgAction::Set });
    // A switch is a bare flag (`--packed`); a value needs `=` (`--packed=no`), so the word after
    // the flag stays a path.
    let arg = match o.kind {
        OptionKind::Switch => arg.num_args(0..=1).require_equals(true).default_missing_value("yes"),
        _ => arg,
    };
    match o.short {
        Some(c) => arg.short(c),
        None => arg,
    }
}

/// `text` with its first letter in capitals, as clap's own help lines are.
pub fn capitalized(text: &str) -> String {
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
pub struct DiffArgs {
    /// The dump before the change (any path form), or a folder of cases (a `build_output/`).
    pub old: PathBuf,
    /// The dump after the change, or a folder of cases.
    pub new: PathBuf,
    /// Where to write; default `-` (standard output).
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Output format [default: the extension of -o, else md].
    #[arg(short, long, value_name = "md|svg|png|html|json")]
    pub format: Option<String>,
    /// Print nothing on success (errors still go to standard error).
    #[arg(short, long)]
    pub quiet: bool,
    /// Backend for OLD when it differs from NEW's (-b), e.g. the same kernel on two chips.
    #[arg(long = "old-backend", value_name = "NAME")]
    pub old_backend: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub view: TableArgs<DiffTakes>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `check PATH`: a gate for CI.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A pass dump (any path form), or a tree of case folders (a build_output/).
    pub path: PathBuf,
    /// Fail when a space is more than this full (percent of capacity, 0-100).
    #[arg(long = "max-occupancy", value_name = "PCT")]
    pub max_occupancy: Option<f64>,
    /// Fail on any cross-base conflict (the default already does; kept for old scripts).
    #[arg(long = "deny-conflicts")]
    pub deny_conflicts: bool,
    /// Fail when a space's high-water mark is above BYTES (`Vec=96KB`; repeatable).
    #[arg(long = "max-hwm", value_name = "SPACE=BYTES")]
    pub max_hwm: Vec<String>,
    /// Fail when a space's high-water mark is more than BYTES above its packing (`Vec=4KB`; repeatable).
    #[arg(long = "max-waste", value_name = "SPACE=BYTES")]
    pub max_waste: Vec<String>,
    /// Also fail on `warnings`, on `notes`, or on one code (repeatable). Errors always fail.
    #[arg(long = "deny", value_name = "warnings|notes|CODE")]
    pub deny: Vec<String>,
    /// Never fail on this code (repeatable), e.g. `--allow conflict`.
    #[arg(long = "allow", value_name = "CODE")]
    pub allow: Vec<String>,
    /// `text` (one line per violation and per warning), `json`, `sarif` (SARIF 2.1.0) or
    /// `codequality` (a GitLab Code Quality report, paths relative to the working folder).
    #[arg(long = "format", value_name = "text|json|sarif|codequality", default_value = "text")]
    pub format: String,
    /// Also list the notes in the text report (they are counted either way).
    #[arg(long = "show", value_name = "notes")]
    pub show: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub table: TableArgs<CheckTakes>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// What `serve --help` says after the options: the environment it reads.
pub const SERVE_ENVIRONMENT: &str = "Environment:
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
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free one, printed on standard output).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Folder where stored maps live (made when missing).
    #[arg(long = "data-dir", value_name = "FOLDER", default_value = "pto-memory-map-data")]
    pub data_dir: PathBuf,
    /// Where stored maps live, as a URL: file://PATH (the same as --data-dir PATH) or
    /// s3://BUCKET/PREFIX, a bucket many instances share (AWS_* variables below; see docs/deploy.md)
    /// [default: --data-dir].
    #[arg(long = "store", value_name = "URL", conflicts_with = "data_dir")]
    pub store: Option<String>,
    /// The service's address as its users reach it (https://maps.example.com, or with a path
    /// prefix): the start of every link in its answers [default: from the request].
    #[arg(long = "public-url", value_name = "URL")]
    pub public_url: Option<String>,
    /// A proxy whose X-Forwarded-Host and X-Forwarded-Proto are believed, by its IP address as this
    /// service sees it (repeatable) [default: none: those headers are ignored].
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxy: Vec<std::net::IpAddr>,
    /// Largest accepted request body in bytes, on the wire and after gunzip [default: 33554432, 32 MiB].
    #[arg(long = "max-body-bytes", value_name = "BYTES", default_value_t = 32 * 1024 * 1024, hide_default_value = true)]
    pub max_body_bytes: usize,
    /// Threads that render, each with a large stack (1-256) [default: the number of cores].
    #[arg(long = "render-threads", value_name = "N")]
    pub render_threads: Option<usize>,
    /// Renders that may wait for a thread before requests are answered 503 (1-100000).
    #[arg(long = "queue-depth", value_name = "N", default_value_t = 64)]
    pub queue_depth: usize,
    /// Milliseconds a request waits for its render, queue included, before it is answered 504.
    #[arg(long = "render-timeout-ms", value_name = "MS", default_value_t = 30_000)]
    pub render_timeout_ms: u64,
    /// Memory in bytes for recent renders of stored maps [default: 67108864, 64 MiB].
    #[arg(long = "cache-bytes", value_name = "BYTES", default_value_t = 64 * 1024 * 1024, hide_default_value = true)]
    pub cache_bytes: usize,
    /// Milliseconds a client may take to send its request headers, and then its whole body, before
    /// it is answered 408.
    #[arg(long = "read-timeout-ms", value_name = "MS", default_value_t = 10_000)]
    pub read_timeout_ms: u64,
    /// Bytes of stored maps; past it the least recently used maps are evicted (507 when a map
    /// alone is larger). With s3://, the least recently stored maps under the prefix, swept by
    /// whichever instance stores; 0 leaves the bucket to its lifecycle rules [default: 1073741824, 1 GiB].
    #[arg(long = "max-store-bytes", value_name = "BYTES", default_value_t = 1024 * 1024 * 1024,
          hide_default_value = true)]
    pub max_store_bytes: u64,
    /// Bytes the answers to all clients may hold at once (pictures on their way out); past it a
    /// request is answered 503 with Retry-After [default: 268435456, 256 MiB].
    #[arg(long = "max-answer-bytes", value_name = "BYTES", default_value_t = 256 * 1024 * 1024, hide_default_value = true)]
    pub max_answer_bytes: usize,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use pto_memory_map::option_table::{self as table, Chosen, OPTIONS, OptionSpec};

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
            ("packed", "yes"),
            ("scale", "1"),
            ("width", "900"),
            ("fit", "Vec=32KB@10-20"),
        ];
        for o in OPTIONS.iter().filter(|o| o.cli.is_some()) {
            assert!(samples.iter().any(|(f, _)| Some(*f) == o.cli), "--{:?} has a sample", o.cli);
        }
        let mut argv = vec!["pto-memory-map".to_string(), "d.py".to_string()];
        // `--flag=value`, the one form every flag takes (a switch takes no other).
        for (flag, value) in samples {
            argv.push(format!("--{flag}={value}"));
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
