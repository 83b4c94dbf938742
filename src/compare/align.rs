//! Which line of one function is which line of the other: the two functions' source aligned with a
//! histogram diff, so a tile's lifetime can be compared statement by statement rather than by line
//! number. Lines added or removed elsewhere then change nothing.

use std::hash::Hash;

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

use crate::model::FunctionMap;

/// Old dump lines mapped to new dump lines, for the lines both functions share.
#[derive(Debug, Clone)]
pub struct Alignment {
    old_start: u32,
    new_start: u32,
    /// Indexed by old line minus `old_start`: the new line's index, where the line is kept.
    to_new: Vec<Option<u32>>,
    /// Lines only in the new function, and only in the old one.
    pub inserted: usize,
    pub removed: usize,
}

impl Alignment {
    /// Aligns `old`'s lines with `new`'s: first on their text (indentation aside), then, inside each
    /// stretch that differs, on their [`statement_key`]. Exact text first keeps unrolled copies of one
    /// block (`c_t1_a`, `c_t2_a`, identical up to numbers) on their own copy; the keys then pair the
    /// statements that only a renumbering or a new slot changed.
    pub fn of(old: &FunctionMap, new: &FunctionMap) -> Alignment {
        fn text(f: &FunctionMap) -> Vec<&str> {
            f.source.iter().map(|l| l.trim()).collect()
        }
        let keys = |f: &FunctionMap| f.source.iter().map(statement_key).collect::<Vec<String>>();
        let (ta, tb) = (text(old), text(new));
        let mut a = Alignment {
            old_start: old.src_start,
            new_start: new.src_start,
            to_new: vec![None; ta.len()],
            inserted: 0,
            removed: 0,
        };
        let (ka, kb) = (keys(old), keys(new));
        for op in diff_lines(&ta, &tb) {
            match op {
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    let (ra, rb) = (&ka[old_index..old_index + old_len], &kb[new_index..new_index + new_len]);
                    for inner in diff_lines(ra, rb) {
                        a.record(inner, old_index, new_index);
                    }
                }
                op => a.record(op, 0, 0),
            }
        }
        a
    }

    /// Notes one step of an alignment whose indices start at `old_base` and `new_base`.
    fn record(&mut self, op: DiffOp, old_base: usize, new_base: usize) {
        match op {
            DiffOp::Equal { old_index, new_index, len } => {
                for i in 0..len {
                    self.to_new[old_base + old_index + i] = Some((new_base + new_index + i) as u32);
                }
            }
            DiffOp::Delete { old_len, .. } => self.removed += old_len,
            DiffOp::Insert { new_len, .. } => self.inserted += new_len,
            DiffOp::Replace { old_len, new_len, .. } => {
                self.removed += old_len;
                self.inserted += new_len;
            }
        }
    }

    /// The new dump line holding the statement at old dump line `line`; `None` when that statement
    /// is not in the new function.
    pub fn new_line(&self, line: u32) -> Option<u32> {
        let i = line.checked_sub(self.old_start)? as usize;
        self.to_new.get(i).copied().flatten().map(|j| j + self.new_start)
    }
}

/// Myers' diff (similar's): a shortest edit script, so lines only inserted leave every old line
/// paired with its own, even among repeated statements. Two long functions with little in common
/// cost Myers time proportional to their lengths times their differences; past the run's deadline
/// similar settles for a coarser script at once, and the comparison's next checkpoint stops the run.
fn diff_lines<T: Eq + Hash>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    capture_diff_slices_deadline(Algorithm::Myers, old, new, crate::budget::deadline())
}

/// What a line is aligned on: its text without indentation, with every run of digits read as one
/// placeholder. SSA renumbering (`t__tile_3` -> `t__tile_4`, `mem_vec_2` -> `mem_vec_5`) and new
/// offsets, sizes or shapes leave a statement the same statement; what a tile's slot is, is compared
/// separately, so aligning on it would only hide which statement moved.
pub fn statement_key(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_number = false;
    for c in line.trim().chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('0');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::statement_key;

    #[test]
    fn numbers_and_indentation_do_not_matter() {
        assert_eq!(
            statement_key("    t__tile_3: pl.Tile[[16, 256], pl.MemRef(mem_vec_2, 8192, 4096)] = pl.tile.load(x)"),
            statement_key("t__tile_14: pl.Tile[[32, 256], pl.MemRef(mem_vec_5, 0, 16384)] = pl.tile.load(x)"),
        );
        assert_ne!(statement_key("a = pl.tile.add(b, c)"), statement_key("a = pl.tile.mul(b, c)"));
    }
}
