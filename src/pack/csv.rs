//! MiniMalloc's CSV, so that its users can swap the packer in: a header, then one block per row,
//! `id,lower,upper,size`, live on the half-open interval `[lower, upper)`. An `offset` column, when
//! present, pins the rows that give one (an empty cell or `-1` leaves the row free), as MiniMalloc
//! reads it. MiniMalloc's other names for the columns are read too (`buffer` or `buffer_id` for
//! `id`, `start` or `begin` for `lower`, and `end` for an inclusive upper end, one less than
//! `upper`). Its `alignment`, `hint` and `gaps` columns are refused rather than ignored.
//!
//! The solution is written back as `id,lower,upper,size,offset`, the rows in the order read.

use std::io::Write;

use super::Block;
use crate::error::{Error, ErrorKind, Location, Result};

/// Rows an instance may have: far above any real one (MiniMalloc's largest has 454), and a bound
/// on the work a hostile file can ask for.
pub const MAX_ROWS: usize = 1_000_000;

/// Largest size or offset read: the packer's own limit.
pub const MAX_BYTES: u64 = super::MAX_BYTES;

/// An instance read from CSV: each block with the id its row gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Each row's `id`, as written.
    pub ids: Vec<String>,
    /// Each row's block.
    pub blocks: Vec<Block>,
}

/// The columns a file may have, after MiniMalloc's aliases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Id,
    Lower,
    Upper,
    /// An inclusive end: `upper` is one more.
    End,
    Size,
    Offset,
}

/// Reads an instance from `text`; `name` (the file's path) starts every error's `name:line:col`.
pub fn read(text: &str, name: &str) -> Result<Instance> {
    let bad = |line: usize, column: usize, what: String| {
        Error::at(ErrorKind::Unreadable, Location { file: name.to_string(), line, column }, what)
    };
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)));
    let Some((header_line, header)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(bad(1, 1, "the file is empty; expected a header such as id,lower,upper,size".into()));
    };
    let mut columns: Vec<Column> = Vec::new();
    for (col, field) in fields(header) {
        let column = match field.trim() {
            "id" | "buffer" | "buffer_id" => Column::Id,
            "lower" | "start" | "begin" => Column::Lower,
            "upper" => Column::Upper,
            "end" => Column::End,
            "size" => Column::Size,
            "offset" => Column::Offset,
            other => {
                return Err(bad(
                    header_line,
                    col,
                    format!(
                        "column '{other}' is not understood; the packer reads id, lower, upper (or end), size \
                         and offset"
                    ),
                ));
            }
        };
        let same = |c: Column| {
            matches!((c, column), (Column::Upper | Column::End, Column::Upper | Column::End)) || c == column
        };
        if columns.iter().any(|&c| same(c)) {
            return Err(bad(header_line, col, format!("column '{}' is given twice", field.trim())));
        }
        columns.push(column);
    }
    let has = |c: Column| columns.contains(&c);
    for (needed, what) in [(Column::Id, "id"), (Column::Lower, "lower"), (Column::Size, "size")] {
        if !has(needed) {
            return Err(bad(
                header_line,
                1,
                format!("the header has no '{what}' column; expected id,lower,upper,size"),
            ));
        }
    }
    if !has(Column::Upper) && !has(Column::End) {
        return Err(bad(header_line, 1, "the header has no 'upper' column; expected id,lower,upper,size".into()));
    }
    let mut out = Instance { ids: Vec::new(), blocks: Vec::new() };
    for (line, row) in lines {
        if row.trim().is_empty() {
            continue;
        }
        if out.blocks.len() == MAX_ROWS {
            return Err(bad(line, 1, format!("more than {MAX_ROWS} rows: the instance is too large to pack")));
        }
        let cells: Vec<(usize, &str)> = fields(row).collect();
        if cells.len() != columns.len() {
            return Err(bad(
                line,
                cells.last().map_or(1, |c| c.0),
                format!("this row has {} fields and the header {}", cells.len(), columns.len()),
            ));
        }
        let (mut id, mut lower, mut upper, mut size, mut fixed) = (String::new(), 0i64, 0i64, 0u64, None);
        for (&column, &(col, cell)) in columns.iter().zip(&cells) {
            let cell = cell.trim();
            let int = |what: &str| -> Result<i64> {
                cell.parse::<i64>().map_err(|_| bad(line, col, format!("{what} '{cell}' is not an integer")))
            };
            let bytes = |what: &str| -> Result<u64> {
                let v = int(what)?;
                if !(0..=MAX_BYTES as i64).contains(&v) {
                    return Err(bad(line, col, format!("{what} {v} is outside 0..={MAX_BYTES}")));
                }
                Ok(v as u64)
            };
            match column {
                Column::Id => id = cell.to_string(),
                Column::Lower => lower = int("lower")?,
                Column::Upper => upper = int("upper")?,
                Column::End => {
                    upper = int("end")?
                        .checked_add(1)
                        .ok_or_else(|| bad(line, col, format!("end '{cell}' is too large")))?
                }
                Column::Size => size = bytes("size")?,
                Column::Offset if cell.is_empty() || cell == "-1" => {}
                Column::Offset => fixed = Some(bytes("offset")?),
            }
        }
        if upper < lower {
            let col = cells[columns.iter().position(|&c| matches!(c, Column::Upper | Column::End)).unwrap_or(0)].0;
            return Err(bad(line, col, format!("the block ends ({upper}) before it starts ({lower})")));
        }
        out.ids.push(id);
        out.blocks.push(Block { lower, upper, size, fixed });
    }
    Ok(out)
}

/// The fields of a row with the 1-based column each starts at.
fn fields(row: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    row.split(',').map(move |f| {
        let start = at + 1 + (f.len() - f.trim_start().len());
        at += f.len() + 1;
        (start, f)
    })
}

/// Writes `instance` with each block's offset from `offsets`: `id,lower,upper,size,offset`.
pub fn write(out: &mut dyn Write, instance: &Instance, offsets: &[u64]) -> std::io::Result<()> {
    writeln!(out, "id,lower,upper,size,offset")?;
    for ((id, b), o) in instance.ids.iter().zip(&instance.blocks).zip(offsets) {
        writeln!(out, "{id},{},{},{},{o}", b.lower, b.upper, b.size)?;
    }
    Ok(())
}

/// Writes `instance` as an input: `id,lower,upper,size,offset`, the offset only where a block is
/// pinned (`fixed`), empty where the packer may place it.
pub fn write_instance(out: &mut dyn Write, instance: &Instance) -> std::io::Result<()> {
    writeln!(out, "id,lower,upper,size,offset")?;
    for (id, b) in instance.ids.iter().zip(&instance.blocks) {
        let offset = b.fixed.map(|o| o.to_string()).unwrap_or_default();
        writeln!(out, "{id},{},{},{},{offset}", b.lower, b.upper, b.size)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_minimallocs_columns_and_pins_offsets() {
        let text = "id,lower,upper,size,offset\r\na,0,4,32,\nb,2,6,64,128\n\n";
        let inst = read(text, "x.csv").unwrap();
        assert_eq!(inst.ids, ["a", "b"]);
        assert_eq!(inst.blocks, [Block::new(0, 4, 32), Block::fixed(2, 6, 64, 128)]);
        // `end` is inclusive: one less than `upper`.
        let inst = read("buffer,start,end,size\n7,1,3,10\n", "x.csv").unwrap();
        assert_eq!(inst.blocks, [Block::new(1, 4, 10)]);
    }

    #[test]
    fn bad_input_names_its_line_and_column() {
        let err = |text: &str| read(text, "in.csv").unwrap_err().to_string();
        assert!(err("id,lower,upper,size\n0,1,x,4\n").starts_with("in.csv:2:5: upper 'x' is not an integer"));
        assert!(err("id,lower,upper,size\n0,1,2\n").starts_with("in.csv:2:5: this row has 3 fields"));
        assert!(err("id,lower,upper,gaps\n").starts_with("in.csv:1:16: column 'gaps' is not understood"));
        assert!(err("id,lower,size\n").contains("no 'upper' column"));
        assert!(err("id,lower,upper,size\n0,5,2,4\n").starts_with("in.csv:2:5: the block ends (2) before"));
        assert!(err("id,lower,upper,size\n0,1,2,-4\n").starts_with("in.csv:2:7: size -4 is outside"));
        assert!(err("id,lower,upper,upper,size\n").contains("given twice"));
        assert!(err("\n\n").contains("the file is empty"));
    }

    #[test]
    fn writes_what_it_reads_with_offsets() {
        let text = "id,lower,upper,size\nx,0,2,8\ny,1,3,8\n";
        let inst = read(text, "x.csv").unwrap();
        let mut out = Vec::new();
        write(&mut out, &inst, &[0, 8]).unwrap();
        let written = String::from_utf8(out).unwrap();
        assert_eq!(written, "id,lower,upper,size,offset\nx,0,2,8,0\ny,1,3,8,8\n");
        // Read back, every row is pinned where it was written.
        let back = read(&written, "y.csv").unwrap();
        assert_eq!(back.blocks, [Block::fixed(0, 2, 8, 0), Block::fixed(1, 3, 8, 8)]);
    }
}
