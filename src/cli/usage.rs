//! A command line the user got wrong: clap's refusal worded (or in JSON), a flag people reach for
//! that is spelt otherwise, a misspelt subcommand, and any error as one JSON object. Apart from
//! the commands because it runs before (or instead of) any of them.

use std::path::Path;
use std::process::ExitCode;

use pto_memory_map::error::Named;
use pto_memory_map::option_table::{self as table, Shell};
use pto_memory_map::{Error, ErrorKind, Result};

use super::say::say_err;

/// The error as one JSON object on one line (`--error-format json`): its kind's code, where it is
/// (`null` when it points into no file), the message without that place, and what to do: the
/// advice the error carries, worded for the command line, or else its kind's general way out.
pub fn error_json(err: &Error) -> serde_json::Value {
    let at = err.location.as_deref();
    // The words the terminal shows (advice included), without the place, which has its own fields.
    let message = table::describe_unplaced(err, Shell::Cli);
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
pub const FLAG_WORDS: &[(&str, &str)] = &[
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
pub fn args_in_order(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
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
pub fn usage_error(err: clap::Error, args: &[std::ffi::OsString]) -> ExitCode {
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
            false => say_err(format_args!("error: {misspelt}")),
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
    // Worded from clap's data (its kind, the argument and value it refused, what it suggests),
    // not from its rendered text.
    let text = |kind: ContextKind| match err.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) if !v.is_empty() => Some(v.join(", ")),
        _ => None,
    };
    let (message, remedy) = match ours {
        Some((word, way)) => (format!("there is no {word} option"), way.to_string()),
        None => {
            let what = err.kind().as_str().unwrap_or("the command line is not understood");
            let message = match (text(ContextKind::InvalidArg), text(ContextKind::InvalidValue)) {
                (Some(arg), _)
                    if err.kind() == Clap::ArgumentConflict && text(ContextKind::PriorArg) == Some(arg.clone()) =>
                {
                    format!("{arg} is given more than once")
                }
                (Some(arg), Some(value)) if value.is_empty() => format!("{arg} needs a value"),
                (Some(arg), Some(value)) => format!("{what}: {arg} '{value}'"),
                (Some(arg), None) => format!("{what}: {arg}"),
                (None, _) => what.to_string(),
            };
            let suggested = [ContextKind::SuggestedArg, ContextKind::SuggestedSubcommand, ContextKind::SuggestedValue]
                .into_iter()
                .find_map(text);
            let remedy = match (suggested, text(ContextKind::ValidValue)) {
                (Some(near), _) => format!("did you mean {near}? (see pto-memory-map --help)"),
                (None, Some(values)) => format!("give one of {values}"),
                (None, None) => "see pto-memory-map --help".to_string(),
            };
            (message, remedy)
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
pub fn error_format_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).take_while(|a| a != "--").collect();
    args.iter().any(|a| a == "--error-format=json")
        || args.windows(2).any(|w| w[0] == "--error-format" && w[1] == "json")
}

/// The subcommands, for telling a misspelt one from a dump's name.
pub const COMMANDS: [&str; 5] = ["diff", "check", "explain", "serve", "pack"];

/// A PATH that does not exist and reads like a misspelt subcommand (`chek`): said so, rather than
/// "no such file".
pub fn refuse_misspelt_command(path: &Path) -> Result<()> {
    let Some(word) = path.to_str().filter(|w| !path.exists() && w.chars().all(|c| c.is_ascii_alphabetic())) else {
        return Ok(());
    };
    // The command itself is no misspelling (clap refused something else about it).
    let near =
        COMMANDS.iter().find(|c| (1..=2.min(c.len() / 2)).contains(&edit_distance(&word.to_ascii_lowercase(), c)));
    match near {
        Some(command) => Err(Error::unknown(Named::Command, word, [*command])),
        None => Ok(()),
    }
}

/// Levenshtein distance between two short words.
pub fn edit_distance(a: &str, b: &str) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
