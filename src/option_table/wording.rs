//! How each shell words an error: an error carries what the user can change as data
//! ([`Detail`]), and here that becomes a flag on the command line (`--scale 1`), a parameter over
//! HTTP (`scale=1`) or a field's label on the upload form, named from the option table's rows.

use super::{FUNCTION, OptionSpec};
use crate::error::{Advice, Detail, Error, Limit};

/// Who an error is worded for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// The command line (and the Python package, which runs it): flags.
    Cli,
    /// The HTTP service: query parameters and form fields.
    Http,
    /// The upload form, read by a person: the fields' labels.
    Form,
}

/// The command line's flag for each work limit; the service's operator sets them when starting it.
pub const LIMIT_FLAGS: [(Limit, &str); 5] = [
    (Limit::Tiles, "max-tiles"),
    (Limit::Lines, "max-lines"),
    (Limit::StatementTokens, "max-statement-tokens"),
    (Limit::Tokens, "max-tokens"),
    (Limit::OutputBytes, "max-output-bytes"),
];

/// How `shell` names the option whose key is `key`.
fn option_name(key: &str, shell: Shell) -> String {
    let row = OptionSpec::find(key);
    match (shell, row.and_then(|o| o.cli)) {
        (Shell::Cli, Some(flag)) => format!("--{flag}"),
        (Shell::Form, _) => row.map_or_else(|| key.to_string(), |o| format!("“{}”", o.label)),
        _ => key.to_string(),
    }
}

/// How `shell` says "give this option this value".
fn setting(key: &str, value: &str, shell: Shell) -> String {
    match shell {
        Shell::Cli => format!("{} {value}", option_name(key, shell)),
        Shell::Http => format!("{key}={value}"),
        // A placeholder (`NAME`) is the person's to fill in.
        Shell::Form if value.chars().all(|c| c.is_ascii_uppercase()) => {
            format!("fill in {}", option_name(key, shell))
        }
        Shell::Form => format!("set {} to {value}", option_name(key, shell)),
    }
}

/// Most functions a message names when it offers a choice of them.
const MAX_NAMED: usize = 12;

/// Keeps a user's string short enough to quote in a message.
pub(crate) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(64).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// The error in `shell`'s words, its place first when it has one: the error's own words, with
/// what to change named as `shell` names it where the error's data says what that is.
pub fn describe(err: &Error, shell: Shell) -> String {
    match &err.location {
        Some(at) => format!("{at}: {}", describe_unplaced(err, shell)),
        None => describe_unplaced(err, shell),
    }
}

/// [`describe`] without the place, which JSON errors give in fields of their own.
pub fn describe_unplaced(err: &Error, shell: Shell) -> String {
    match &*err.detail {
        Detail::BadValue { option, value, expected } => {
            let value = clip(value);
            let value =
                if value.is_empty() || value.contains(char::is_whitespace) { format!("'{value}'") } else { value };
            format!("{} {value} is not accepted; it takes {expected}", option_name(option, shell))
        }
        Detail::OverLimit { .. } => format!("{}. {}", err.message(), advice(err, shell).unwrap_or_default()),
        Detail::Deadline => match advice(err, shell) {
            Some(way) => format!("{}; {way}", err.message()),
            None => err.message(),
        },
        Detail::PictureTooLarge { widening, .. } => {
            let why = if widening.is_empty() { String::new() } else { format!(" ({})", widened(widening)) };
            match advice(err, shell) {
                Some(ways) => format!("{}{why}; {ways}", err.message()),
                None => format!("{}{why}", err.message()),
            }
        }
        _ => err.message(),
    }
}

/// What to change to get past `err`, named as `shell` names it where that is an option, else the
/// error's own remedy (`None` when its data names none: its kind's general remedy holds).
pub fn advice(err: &Error, shell: Shell) -> Option<String> {
    match &*err.detail {
        Detail::Deadline => match shell {
            Shell::Cli => Some(format!("if this input is meant, give it more time with --{TIME_LIMIT_FLAG} MS")),
            Shell::Http | Shell::Form => None,
        },
        Detail::BadValue { option, expected, .. } => Some(format!("give {} {expected}", option_name(option, shell))),
        Detail::OverLimit { limit, .. } => Some(match shell {
            Shell::Cli => {
                let flag = LIMIT_FLAGS.iter().find(|(l, _)| l == limit).map_or("", |(_, f)| f);
                format!("If this input is meant, raise it with --{flag} N")
            }
            Shell::Http | Shell::Form => "The service's operator sets this limit".to_string(),
        }),
        Detail::PictureTooLarge { advice, functions, .. } => {
            // The functions to choose from, a few of them, where one is advised.
            let shown: Vec<&str> = functions.iter().take(MAX_NAMED).map(String::as_str).collect();
            let more = functions.len().saturating_sub(MAX_NAMED);
            let choices = match (shown.len(), more) {
                (0..=1, _) => String::new(),
                (_, 0) => format!(" (one of {})", shown.join(", ")),
                (_, more) => format!(" (one of {}, and {more} more)", shown.join(", ")),
            };
            let ways: Vec<String> = advice
                .iter()
                .filter_map(|a| match (a, shell) {
                    (Advice::Split, Shell::Cli) => Some("--split (one file per function)".to_string()),
                    (Advice::Split, Shell::Http | Shell::Form) => None,
                    (Advice::Set { option, value }, _) if *option == FUNCTION.http => {
                        Some(format!("{}{choices}", setting(option, value, shell)))
                    }
                    (Advice::Set { option, value }, _) => Some(setting(option, value, shell)),
                })
                .collect();
            let try_ = if shell == Shell::Form { "you can" } else { "try" };
            match ways.as_slice() {
                [] => None,
                [one] => Some(format!("{try_} {one}")),
                [some @ .., last] => Some(format!("{try_} {} or {last}", some.join(", "))),
            }
        }
        detail => detail.remedy(),
    }
}

/// The command line's flag for a drawing's time limit (the service's operator sets its own).
pub const TIME_LIMIT_FLAG: &str = "time-limit-ms";

/// The note for a static picture many panels wide because the small `spaces` set the byte scale.
pub fn widening_note(spaces: &[String], shell: Shell) -> String {
    format!(
        "{}; {} draws a narrower one, and unless {} such a lane is an inset at its own scale",
        widened(spaces),
        setting("hide", &spaces.join(","), shell),
        setting("scale_mode", "strict", shell),
    )
}

/// Why a picture is several panels wide: the small `spaces` set its byte scale.
fn widened(spaces: &[String]) -> String {
    let lanes = if spaces.len() == 1 { "lane sets" } else { "lanes set" };
    format!("the small {} {lanes} the byte scale, so the map is several panels wide", spaces.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::option_table::{Chosen, X_AXIS};

    #[test]
    fn each_shell_words_an_error_in_its_own_names() {
        let mut c = Chosen::default();
        let err = X_AXIS.apply(&mut c, "up").unwrap_err();
        assert_eq!(describe(&err, Shell::Cli), "--x-axis up is not accepted; it takes limit or used");
        assert_eq!(describe(&err, Shell::Http), "x_axis up is not accepted; it takes limit or used");
        // A picture of 1 x 1 px over a limit of 1 px, naming `functions` and `advice`.
        let too_large = |at_least: bool, functions: [&str; 2], advice: Vec<Advice>| {
            Error::of(
                crate::error::ErrorKind::TooLarge,
                Detail::PictureTooLarge {
                    at_least,
                    width: 1,
                    height: 1,
                    max_pixels: 1,
                    widening: Vec::new(),
                    functions: functions.map(String::from).to_vec(),
                    advice,
                },
            )
        };
        let big = too_large(false, ["a", "b"], vec![Advice::Split, Advice::Set { option: "scale", value: "1".into() }]);
        let pick = too_large(true, ["qk", "softmax"], vec![Advice::Set { option: "function", value: "NAME".into() }]);
        let cases = [
            (&big, Shell::Cli, "try --split (one file per function) or --scale 1"),
            (&big, Shell::Http, "try scale=1"),
            (&big, Shell::Form, "you can set “PNG pixel ratio” to 1"),
            (&pick, Shell::Cli, "try --function NAME (one of qk, softmax)"),
            (&pick, Shell::Form, "you can fill in “Only these functions” (one of qk, softmax)"),
        ];
        for (err, shell, advice) in cases {
            let size = if std::ptr::eq(err, &pick) { "at least 1 x 1" } else { "1 x 1" };
            assert_eq!(
                describe(err, shell),
                format!("the picture would be {size} px (0 Mpx), over the 0 Mpx limit; {advice}")
            );
        }
        let over = crate::budget::Limits::refuse("tiles in function f", 9, 2, Limit::Tiles);
        assert!(describe(&over, Shell::Cli).ends_with("raise it with --max-tiles N"));
        assert!(!describe(&over, Shell::Http).contains("--"));
        assert!(!widening_note(&["Acc".into()], Shell::Http).contains("--"));
    }
}
