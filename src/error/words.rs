//! The words of an error, made from its data in one place: what went wrong ([`Detail`]'s
//! `Display`) and what to do about it ([`Detail::remedy`]), as every shell shows them (the shells
//! add their own names for what the user can change, `option_table::describe`).

use std::fmt;

use super::{Detail, Empty, FileOp, FileProblem, Missing, Misuse, Named, PackProblem, SocProblem, Task};

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileProblem::Io { reason, .. } => f.write_str(reason),
            FileProblem::IsFolder => f.write_str("it is a folder; give a file name"),
            FileProblem::IsSocket => f.write_str("it is a socket, which cannot be written as a file"),
            FileProblem::LinkLoop => f.write_str("too many levels of symbolic links"),
            FileProblem::NoFileName => f.write_str("not a file name"),
            FileProblem::NoFolder { folder, exists } => write!(
                f,
                "the folder {folder} {}; create it first (mkdir -p {folder}) or write elsewhere",
                if *exists { "is not a folder" } else { "does not exist" }
            ),
            FileProblem::NotRegular => f.write_str("not a regular file (a device, a pipe or a folder)"),
            FileProblem::TooLarge { limit } => write!(f, "larger than the limit of {limit} bytes"),
            FileProblem::NotUtf8 => f.write_str("not UTF-8 text"),
        }
    }
}

impl Detail {
    /// What to do about it, when the data says more than the kind's general remedy; the message
    /// ends with it. Shell-specific knobs (flags, parameters) are the shells' to word instead.
    pub fn remedy(&self) -> Option<String> {
        Some(match self {
            Detail::Missing { what: Missing::Path, .. } => {
                "give a pass dump (.py), a passes_dump/ folder or a case folder".into()
            }
            Detail::Missing { what: Missing::PassDump { present, .. }, .. } if !present.is_empty() => {
                "pick one with -p/--pass-name, or dump every pass with RunConfig(dump_passes=PassDumpLevel.EXPLICIT)"
                    .into()
            }
            Detail::Missing { what: Missing::PassDump { .. }, .. } => {
                "compile the kernel with RunConfig(dump_passes=PassDumpLevel.EXPLICIT) (compile(), not lower(): \
                 lower() writes no dumps), or pick another pass with -p/--pass-name"
                    .into()
            }
            Detail::Missing { what: Missing::CaseFolder, .. } => "point at a folder that holds case folders".into(),
            Detail::NothingToDraw { why: Empty::EmptyFile, .. } => {
                "a pass dump is the Python text PyPTO writes to passes_dump/NN_after_<Pass>.py".into()
            }
            Detail::NothingToDraw { why: Empty::NotPassDump, .. } => {
                "pass the passes_dump/NN_after_AllocateMemoryAddr.py file PyPTO writes".into()
            }
            Detail::NothingToDraw { why: Empty::NoMemRef, .. } => {
                "use the dump after AllocateMemoryAddr (or a later one); earlier passes have no addresses. If the \
                 kernel was compiled with memory_planner=PTOAS, the compiler skips AllocateMemoryAddr and ptoas owns \
                 addressing: that is not a failure, compare end to end instead"
                    .into()
            }
            Detail::NothingToDraw { why: Empty::Unassigned { later }, .. } => {
                format!("check {}", later.as_deref().unwrap_or("the dump after AllocateMemoryAddr"))
            }
            Detail::Soc { problem: SocProblem::NotDescription(_), .. } => {
                "write name = \"...\", arch = \"...\" and a capacities table of bytes per space (Vec, Mat, ...)".into()
            }
            Detail::Soc { problem: SocProblem::BuiltinName { builtin, .. }, .. } => {
                format!("give it a name of its own (name = \"{builtin}-custom\") and pick it with -b")
            }
            Detail::Soc { .. } => "correct the SoC file".into(),
            Detail::Unknown { what, known, .. } => {
                let known = known.join(", ");
                match what {
                    Named::Command => format!("did you mean `{known}`? (pto-memory-map {known} --help)"),
                    Named::Extension { .. } => format!("use one of .{} or give -f FORMAT", known.replace(", ", ", .")),
                    Named::Backend => format!("give one of the known backends: {known}"),
                    Named::FindingCode => format!("give one of the codes: {known}"),
                    Named::Space => format!("give one of its spaces: {known}"),
                    Named::FitSpace { .. } => format!("give one of the spaces: {known}"),
                    Named::Function => format!("give one of its functions: {known}"),
                    Named::FunctionWithoutMap { .. } => format!("give one of the functions drawn: {known}"),
                    Named::GateSpace { .. } => format!("give one of the known spaces: {known}"),
                }
            }
            Detail::File { problem: FileProblem::NoFolder { .. } | FileProblem::IsFolder, .. } => return None,
            Detail::File { problem: FileProblem::NotUtf8 | FileProblem::NotRegular, op: FileOp::Read(_), .. } => {
                "give the file itself, as it was written".into()
            }
            Detail::Pack(PackProblem::FixedOverlap { .. }) => "move one of them".into(),
            Detail::Pack(_) => "pack a smaller instance".into(),
            Detail::Misuse(m) => match m {
                Misuse::OutputIsInput { instance: false, .. } => {
                    "choose another output name (or leave out -o to write <stem>.memory_map.<ext> beside the dump)"
                        .into()
                }
                Misuse::OutputIsInput { .. } => "choose another output name".into(),
                Misuse::SplitToStdout => "give -o a file name, not -".into(),
                Misuse::SplitTree | Misuse::ExportTree => "draw one case folder at a time".into(),
                Misuse::TreeToFile { .. } => "give -o a folder (such as site/)".into(),
                Misuse::TreeWithoutFolder { .. } => {
                    "give -o FOLDER for their pages and index, or draw one case folder at a time (check takes the \
                     whole tree)"
                        .into()
                }
                Misuse::TooManyCases { .. } => "point at a smaller folder".into(),
                Misuse::TreeAgainstDump => "give two trees or two dumps".into(),
                Misuse::TreeDiffPicture => {
                    "write it as Markdown or JSON (-f md or -f json); for a picture, diff one case's folders".into()
                }
                Misuse::DeniedAndAllowed { code } => format!("give one of --deny {code}, --allow {code}"),
                Misuse::FitLines { functions, .. } => format!("ask about the lines of one: {}", functions.join(", ")),
                Misuse::PublicUrl { .. } => {
                    "give the service's address as users reach it, such as https://maps.example.com".into()
                }
            },
            Detail::Failed { task: Task::Parse { .. } | Task::Worker, .. } => {
                "give the pass dump PyPTO wrote, unedited; if it is one, report this input".into()
            }
            Detail::Failed { task: Task::EncodePng, .. } => "report this input: it is a bug".into(),
            Detail::NoRoomFor { .. } => "draw a smaller picture: fewer functions, or a lower pixel ratio".into(),
            Detail::CasesFailed { .. } => "see each case's error above".into(),
            _ => return None,
        })
    }
}

impl Detail {
    /// What went wrong, without the remedy.
    fn what(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::Text(text) => f.write_str(text),
            Detail::OverLimit { what, count, allowed, .. } => {
                write!(f, "{what}: {count} is over the limit of {allowed}; no real pass dump comes near it")
            }
            Detail::PictureTooLarge { width, height, max_pixels, at_least, .. } => write!(
                f,
                "the picture would be {}{width} x {height} px ({:.0} Mpx), over the {:.0} Mpx limit",
                if *at_least { "at least " } else { "" },
                (*width as f64) * (*height as f64) / 1e6,
                *max_pixels as f64 / 1e6
            ),
            Detail::NoRoomFor { width, height } => write!(f, "cannot allocate a {width} x {height} px picture"),
            Detail::BadValue { option, value, expected } => {
                write!(f, "{option} '{value}' is not accepted; it takes {expected}")
            }
            Detail::Unknown { what, name, .. } => match what {
                Named::Backend => write!(f, "unknown backend '{name}'"),
                Named::FindingCode => write!(f, "no finding code '{name}'"),
                Named::Space => write!(f, "no space '{name}' in this dump"),
                Named::FitSpace { backend } => write!(f, "fit: no space '{name}' in this dump or in {backend}"),
                Named::Function => write!(f, "no compute function '{name}' in this dump"),
                Named::FunctionWithoutMap { ftype } => write!(
                    f,
                    "'{name}' is an {ftype} function of this dump that places nothing in on-chip memory (no tile \
                     bound to a MemRef), so it has no map"
                ),
                Named::GateSpace { option, backends, near } => {
                    write!(f, "{option}: no space '{name}' in this map or its backend ({})", backends.join(", "))?;
                    match near {
                        Some(near) => write!(f, " (did you mean {near}?)"),
                        None => Ok(()),
                    }
                }
                Named::Command => write!(f, "{name}: no such file or folder, and no command '{name}'"),
                Named::Extension { output } => write!(f, "-o {output}: '.{name}' is not an output format"),
            },
            Detail::File { path, op, problem } => {
                let path = path.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
                match (op, problem) {
                    (FileOp::Read(what), FileProblem::NotRegular) => write!(
                        f,
                        "{path}{what} must be a regular file, and this is not one (a device, a pipe or a folder)"
                    ),
                    (FileOp::Read(what), FileProblem::TooLarge { limit }) => {
                        write!(f, "{path}{what} is larger than the limit of {limit} bytes; no real one comes near it")
                    }
                    (FileOp::Read(what), FileProblem::NotUtf8) => write!(f, "{path}{what} is not UTF-8 text"),
                    (FileOp::Read(what), problem) => write!(f, "{path}cannot read {what}: {problem}"),
                    (FileOp::Write, problem) => write!(f, "{path}cannot write: {problem}"),
                    (FileOp::CreateFolder, problem) => write!(f, "{path}cannot create the folder: {problem}"),
                }
            }
            Detail::Missing { path, what } => match what {
                Missing::Path => write!(f, "{path}: no such file or folder"),
                Missing::PassDump { pass, present } if !present.is_empty() => write!(
                    f,
                    "{path}: no '*_after_{pass}.py' dump here or in its passes_dump/; the passes dumped here are: {}",
                    present.join(", ")
                ),
                Missing::PassDump { pass, .. } => {
                    write!(f, "{path}: no '*_after_{pass}.py' dump here or in its passes_dump/")
                }
                Missing::CaseFolder => write!(f, "{path}: no case folder (one holding passes_dump/) here"),
            },
            Detail::NothingToDraw { file, why } => match why {
                Empty::EmptyFile => write!(f, "{file}: the file is empty"),
                Empty::NotPassDump => {
                    write!(
                        f,
                        "{file}: this is Python, but not a pass dump: it has no @pl.program class and no @pl.function"
                    )
                }
                Empty::NoMemRef => write!(
                    f,
                    "{file}: no AIC/AIV/InCore function binds a tile with a MemRef, so there is nothing to draw"
                ),
                Empty::Unassigned { .. } => write!(
                    f,
                    "{file}: addresses are not assigned yet in this dump (a pass before AllocateMemoryAddr), so \
                     there is nothing to gate on"
                ),
            },
            Detail::Soc { file, problem } => match problem {
                SocProblem::NotDescription(why) => write!(f, "{file}: not a SoC description: {why}"),
                SocProblem::BuiltinName { name, .. } => {
                    write!(f, "{file}: the SoC file names its chip '{name}', which is a built-in backend")
                }
                SocProblem::Capacity { space, bytes } => write!(
                    f,
                    "{file}: capacity of {space} must be positive and at most {} bytes (1 TiB), not {bytes}",
                    crate::units::MAX_BYTES
                ),
                SocProblem::Physical { space, bytes } => write!(
                    f,
                    "{file}: physical size of {space} ({bytes}) must be a space of the capacities table, at least \
                     its usable capacity and at most {} bytes (1 TiB)",
                    crate::units::MAX_BYTES
                ),
                SocProblem::Unnamed => write!(f, "{file}: name and arch must not be empty"),
            },
            Detail::Pack(problem) => match problem {
                PackProblem::BlockTooLarge { block, max } => {
                    write!(f, "block {block}: a size, offset or alignment above {max} bytes is not packed")
                }
                PackProblem::FixedOverlap { blocks: (i, j), first: (oi, ti), second: (oj, tj) } => write!(
                    f,
                    "blocks {i} and {j} both have fixed offsets, are live at once and share bytes ({oi}..{ti} and \
                     {oj}..{tj}): no placement exists"
                ),
                PackProblem::TooManyPairs { max } => {
                    write!(f, "more than {max} pairs of blocks are live at once: the instance is too large to pack")
                }
            },
            Detail::Misuse(m) => match m {
                Misuse::OutputIsInput { output, input, instance: false } => {
                    write!(f, "-o {output} is the input {input}: writing it would destroy the dump")
                }
                Misuse::OutputIsInput { output, input, instance: true } => {
                    write!(f, "-o {output} is the instance {input}")
                }
                Misuse::SplitToStdout => f.write_str("--split writes one file per function"),
                Misuse::SplitTree => f.write_str("--split draws one case; a folder of cases gets a page per case"),
                Misuse::ExportTree => f.write_str("--export-csv takes one dump or case folder, not a folder of cases"),
                Misuse::TreeToFile { tree, output } => write!(
                    f,
                    "{tree} is a folder of cases, drawn as a page per case and an index, not into the file {output}"
                ),
                Misuse::TreeWithoutFolder { tree } => write!(f, "{tree} holds many cases"),
                Misuse::TooManyCases { root, max } => write!(f, "{root}: more than {max} cases"),
                Misuse::TreeAgainstDump => {
                    f.write_str("one side is a tree of cases (a folder of case folders) and the other is not")
                }
                Misuse::TreeDiffPicture => f.write_str("a diff of two trees is not a picture"),
                Misuse::DeniedAndAllowed { code } => write!(f, "'{code}' is both denied and allowed"),
                Misuse::FitLines { lines: (a, z), .. } => write!(f, "fit: lines {a}-{z} cross no compute function"),
                Misuse::PublicUrl { text, why } => write!(f, "--public-url '{text}' {why}"),
            },
            Detail::Failed { task, reason } => {
                match task {
                    Task::StartThread => f.write_str("cannot start a worker thread")?,
                    Task::Worker => f.write_str("a worker thread failed on this input")?,
                    Task::Parse { file } => write!(f, "{file}: the parser failed on this input")?,
                    Task::EncodePng => f.write_str("cannot encode the PNG")?,
                    Task::Digest => f.write_str("the digest of this dump is too large")?,
                    Task::Serve => f.write_str("the service stopped")?,
                }
                match reason {
                    Some(reason) => write!(f, ": {reason}"),
                    None => Ok(()),
                }
            }
            Detail::Deadline => f.write_str("the render passed its time limit and was stopped"),
            Detail::CasesFailed { count: n } => {
                write!(f, "{n} case{} could not be drawn (see above)", crate::units::plural(*n))
            }
        }
    }
}

/// The words of what went wrong, then what to do when the data says it.
impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.what(f)?;
        match self.remedy() {
            Some(remedy) => write!(f, "; {remedy}"),
            None => Ok(()),
        }
    }
}
