//! The default command: a dump, a case or a folder of cases drawn in one format, whole or one
//! file per function, with the notes said after it. The largest command, so it has its own file.

use std::path::Path;

use pto_memory_map::error::{Detail, Misuse, Named};
use pto_memory_map::option_table::{self as table, Shell};
use pto_memory_map::{
    Error, ErrorKind, Format, RenderOptions, Result, ViewOptions, budget, dump, load_with, render_map, render_map_to,
    tree,
};

use super::args::{InputArgs, RenderArgs};
use super::output::{default_output, inputs_read, refuse_to_overwrite, split_output, write_output, write_with};
use super::say::{QUIET, say, say_err};
use super::usage::refuse_misspelt_command;

pub fn render(args: &RenderArgs) -> Result<()> {
    QUIET.store(args.quiet, std::sync::atomic::Ordering::Relaxed);
    let path = args.path.as_deref().unwrap_or(Path::new("."));
    refuse_misspelt_command(path)?;
    let chosen = args.view.chosen()?;
    let is_tree = tree::is_tree(path, &args.input.pass_name);
    if let Some(out) = args.output.as_deref().filter(|o| is_tree && o.extension().is_some() && !o.is_dir()) {
        return Err(Error::misuse(Misuse::TreeToFile {
            tree: path.display().to_string(),
            output: out.display().to_string(),
        }));
    }
    let format = match (chosen.format, &args.output) {
        (Some(f), _) => f,
        (None, Some(out)) => match out.extension().and_then(|e| e.to_str()) {
            // `-o map.text` names no format: say so rather than write HTML under that name.
            Some(ext) if Format::from_extension(out).is_none() => {
                let known = Format::ALL.iter().map(|f| f.extension());
                return Err(Error::unknown(Named::Extension { output: out.display().to_string() }, ext, known));
            }
            _ => Format::from_extension(out).unwrap_or(Format::CLI_DEFAULT),
        },
        (None, None) => Format::CLI_DEFAULT,
    };
    let opts = chosen.render_options(format);
    if is_tree && args.export_csv.is_some() {
        return Err(Error::misuse(Misuse::ExportTree));
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
pub fn summarize(map: &pto_memory_map::MemoryMap, view: &ViewOptions, quiet: bool) {
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

/// A folder of cases: one page per case into the folder `-o` names, an index, and a last line that
/// says what was drawn, skipped and failed. Exit 1 when any case failed (after drawing the others).
pub fn draw_tree(path: &Path, args: &RenderArgs, render: RenderOptions) -> Result<()> {
    let Some(out) = args.output.as_deref().filter(|o| *o != Path::new("-")) else {
        return Err(Error::misuse(Misuse::TreeWithoutFolder { tree: path.display().to_string() }));
    };
    if args.split {
        return Err(Error::misuse(Misuse::SplitTree));
    }
    let backends = args.input.backends()?;
    let threads = budget::threads().unwrap_or(0); // 0: every core
    let quiet = QUIET.load(std::sync::atomic::Ordering::Relaxed);
    let opts = tree::TreeOptions { pass_name: &args.input.pass_name, backends: &backends, render, threads, quiet };
    let report = tree::draw(path, out, &opts)?;
    say(format_args!("{}", report.summary()));
    match report.failed() {
        0 => Ok(()),
        count => Err(Error::of(ErrorKind::Unreadable, Detail::CasesFailed { count })),
    }
}

/// A static picture many panels wide is correct (one byte scale) but rarely what a user wanted:
/// say which small space caused it and how to get a narrower one.
pub fn warn_if_wide(map: &pto_memory_map::MemoryMap, view: &ViewOptions) {
    let spaces: Vec<String> =
        pto_memory_map::plan::width::widening_spaces(map, view).into_iter().map(str::to_string).collect();
    if !spaces.is_empty() && !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        say_err(format_args!("note: {}", table::widening_note(&spaces, Shell::Cli)));
    }
}

pub fn load_input(path: &Path, input: &InputArgs, backend: Option<&str>) -> Result<pto_memory_map::MemoryMap> {
    load_with(path, &input.pass_name, backend, &input.backends()?)
}
