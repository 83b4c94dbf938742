//! The command line: a thin shell over the library's pipeline.
#![forbid(unsafe_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use pto_memory_map::render::{Format, json};
use pto_memory_map::{Error, ErrorKind, MemoryMap, Result, dump, load};

/// Draws the on-chip memory map of a PyPTO pass dump.
#[derive(Parser, Debug)]
#[command(name = "pto-memory-map", version, about)]
struct Cli {
    /// A pass dump (.py), a passes_dump/ folder, or a case folder that holds one.
    path: PathBuf,
    /// Where to write; `-` for standard output. Default: next to the dump, `<stem>.memory_map.<ext>`.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The pass whose dump to pick when PATH is a folder.
    #[arg(short, long = "pass-name", default_value = dump::DEFAULT_PASS)]
    pass_name: String,
    /// Backend whose capacities scale the panels (Ascend910B, Ascend950). Default: detected from the
    /// case's ptoas/*.pto, else Ascend910B, marked assumed.
    #[arg(short, long)]
    backend: Option<String>,
    /// Output format (json). Default: from the extension of -o, else json.
    #[arg(short, long)]
    format: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(if err.kind == ErrorKind::Usage { 2 } else { 1 })
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    let format = match (&cli.format, &cli.output) {
        (Some(f), _) => f.parse()?,
        (None, Some(out)) => Format::from_extension(out).unwrap_or(Format::Json),
        (None, None) => Format::Json,
    };
    let map = load(&cli.path, &cli.pass_name, cli.backend.as_deref())?;
    let bytes = render(&map, format);
    let target = match &cli.output {
        Some(out) => out.clone(),
        None => default_output(&cli.path, &cli.pass_name, format)?,
    };
    write_output(&target, &bytes)
}

fn render(map: &MemoryMap, format: Format) -> Vec<u8> {
    match format {
        Format::Json => json::render(map).into_bytes(),
    }
}

/// `<dump stem>.memory_map.<ext>` beside the dump.
fn default_output(path: &Path, pass: &str, format: Format) -> Result<PathBuf> {
    let dump = dump::resolve(path, pass)?;
    let stem = dump.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(dump.with_file_name(format!("{stem}.memory_map.{}", format.extension())))
}

fn write_output(target: &Path, bytes: &[u8]) -> Result<()> {
    if target == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot write to standard output: {e}")));
    }
    std::fs::write(target, bytes)
        .map_err(|e| Error::new(ErrorKind::Io, format!("{}: cannot write: {e}", target.display())))?;
    println!("wrote {}", target.display());
    Ok(())
}
