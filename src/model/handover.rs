//! What the price of reuse is made of: the op calls that touch a tile (with the memory spaces they
//! read and write, from which the hardware pipe they run on follows), and the handovers between
//! tiles that take the same bytes one after the other.
//!
//! A handover is where a tile's bytes pass to the next tile placed on them once the first's live
//! range is over: the second's first write must wait for the first's last access (a write after
//! read). When the two ops run on different pipes, the kernel needs a cross-pipe sync there; on one
//! pipe, the pipe's own order is enough. Fewer cross-pipe handovers is the packer's second aim.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A memory space as PyPTO's pipe inference tells them apart; `Ddr` is a tensor's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mem {
    Ddr,
    Vec,
    Mat,
    Left,
    Right,
    Acc,
    Bias,
    LeftScale,
    RightScale,
    ScalarLocal,
}

impl Mem {
    /// The space of `pl.Mem.NAME` (or a tile's `space`).
    pub fn parse(name: &str) -> Option<Mem> {
        Some(match name {
            "DDR" => Mem::Ddr,
            "Vec" => Mem::Vec,
            "Mat" => Mem::Mat,
            "Left" => Mem::Left,
            "Right" => Mem::Right,
            "Acc" => Mem::Acc,
            "Bias" => Mem::Bias,
            "LeftScale" => Mem::LeftScale,
            "RightScale" => Mem::RightScale,
            "ScalarLocal" => Mem::ScalarLocal,
            _ => return None,
        })
    }

    const ALL: [Mem; 10] = [
        Mem::Ddr,
        Mem::Vec,
        Mem::Mat,
        Mem::Left,
        Mem::Right,
        Mem::Acc,
        Mem::Bias,
        Mem::LeftScale,
        Mem::RightScale,
        Mem::ScalarLocal,
    ];

    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// Whether it is one of the cube unit's L0 buffers.
    pub fn is_l0(self) -> bool {
        matches!(self, Mem::Left | Mem::Right | Mem::Acc | Mem::Bias | Mem::LeftScale | Mem::RightScale)
    }
}

/// A set of memory spaces: what an op reads is a set, since the pipe depends on which spaces its
/// inputs are in and never on how many inputs share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mems(u16);

impl Mems {
    pub fn insert(&mut self, m: Mem) {
        self.0 |= m.bit();
    }

    pub fn contains(self, m: Mem) -> bool {
        self.0 & m.bit() != 0
    }

    /// The spaces in it.
    pub fn iter(self) -> impl Iterator<Item = Mem> {
        Mem::ALL.into_iter().filter(move |m| self.contains(*m))
    }
}

/// A hardware pipe of an Ascend core, as PyPTO names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Pipe {
    /// Mat to the L0 buffers.
    Mte1,
    /// DDR to Vec or Mat (loads).
    Mte2,
    /// Vec or Mat to DDR (stores), and Vec to Mat where the chip has that route.
    Mte3,
    /// The vector unit.
    V,
    /// The cube unit (matmul).
    M,
    /// Acc out (fixpipe).
    Fix,
    /// The scalar unit.
    S,
}

impl Pipe {
    pub fn as_str(self) -> &'static str {
        match self {
            Pipe::Mte1 => "MTE1",
            Pipe::Mte2 => "MTE2",
            Pipe::Mte3 => "MTE3",
            Pipe::V => "V",
            Pipe::M => "M",
            Pipe::Fix => "FIX",
            Pipe::S => "S",
        }
    }
}

/// `MTE2`, or `?` for a pipe the dump does not let us infer.
pub fn pipe_name(p: Option<Pipe>) -> &'static str {
    p.map_or("?", Pipe::as_str)
}

/// One op call that accesses a tile's bytes, with what its pipe depends on: the op, the spaces of
/// its positional arguments (tiles in theirs, tensors in DDR) and the space of its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The statement's first line.
    pub line: u32,
    /// The op without `pl.` (`tile.load`).
    pub op: String,
    /// The spaces of its tile and tensor arguments.
    pub inputs: Mems,
    /// How many arguments have a space (`tile.move` takes exactly one).
    pub input_count: u8,
    /// The one space of its result (a tuple's, where all its members share one); `None` where the
    /// result has no space (a scalar, nothing) or several.
    pub result: Option<Mem>,
    /// The pipe it runs on, once the backend is known (`analyze`); `None` where it cannot be told.
    pub pipe: Option<Pipe>,
}

/// The first and the last op call that access a tile (or a box: over all its names). The first is
/// the write that takes the bytes, the last the access after which they may pass on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Accesses {
    // Boxed: every tile carries these, and most tiles are small.
    pub first: Option<Box<Access>>,
    pub last: Option<Box<Access>>,
}

impl Accesses {
    /// Folds in another name's accesses of the same bytes (an alias of the box).
    pub fn absorb(&mut self, other: &Accesses) {
        if let Some(f) = &other.first
            && self.first.as_ref().is_none_or(|s| f.line < s.line)
        {
            self.first = Some(f.clone());
        }
        if let Some(l) = &other.last
            && self.last.as_ref().is_none_or(|s| l.line > s.line)
        {
            self.last = Some(l.clone());
        }
    }
}

/// A space's handovers, as the JSON writes them (`spaces[].handovers`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Handovers {
    /// How many pairs of boxes pass bytes from one to the next.
    pub count: usize,
    /// How many of them pass between ops on different pipes: a cross-pipe sync each.
    pub cross_pipe: usize,
    /// The handovers, cross-pipe first, then by line; at most [`HANDOVERS_LISTED`] of them
    /// (`count` is exact, `left_off` says how many are not listed).
    pub list: Vec<Handover>,
    /// Handovers not in `list`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub left_off: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The most handovers a space lists in the JSON; the count is exact whatever their number.
pub const HANDOVERS_LISTED: usize = 100;

/// One handover: `from`'s bytes pass to `to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handover {
    /// The box whose bytes are taken, by name (shared with its other handovers: a box with a long
    /// name and many handovers holds its name once).
    pub from: Arc<str>,
    /// The box that takes them.
    pub to: Arc<str>,
    /// The line of `to`'s first access: the write that must wait.
    pub line: u32,
    /// The line of `from`'s last access: what the write waits for.
    pub from_line: u32,
    /// The pipe of `from`'s last access; `null` where the dump does not tell it.
    pub from_pipe: Option<Pipe>,
    /// The pipe of `to`'s first access.
    pub to_pipe: Option<Pipe>,
}

impl Handover {
    /// Whether the two ops run on different pipes (both known).
    pub fn cross_pipe(&self) -> bool {
        crosses(self.from_pipe, self.to_pipe)
    }
}

/// Whether bytes let go by an access on pipe `from` and taken by a write on pipe `to` need a
/// cross-pipe sync: both pipes known, and not the same. The one rule the analysis, the packer and
/// the tooltips read.
pub fn crosses(from: Option<Pipe>, to: Option<Pipe>) -> bool {
    matches!((from, to), (Some(a), Some(b)) if a != b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_is_written_in_the_json_as_it_is_named_in_words() {
        for p in [Pipe::Mte1, Pipe::Mte2, Pipe::Mte3, Pipe::V, Pipe::M, Pipe::Fix, Pipe::S] {
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        assert!(crosses(Some(Pipe::V), Some(Pipe::Mte2)));
        assert!(!crosses(Some(Pipe::V), Some(Pipe::V)) && !crosses(None, Some(Pipe::V)));
    }
}
