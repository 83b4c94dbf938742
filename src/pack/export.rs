//! A dump's spaces as MiniMalloc instances (`--export-csv`): what `spaces[].packing` packs, one CSV
//! per function and space, so the placement can be checked with `pto-memory-map pack` or handed to
//! MiniMalloc and any solver that reads its format.

use std::path::{Path, PathBuf};

use super::csv::{Instance, write_instance};
use crate::analyze::{reserved_blocks, slot_allocations};
use crate::error::{Error, FileOp, Result};
use crate::model::{Block, FunctionMap, MemoryMap};

/// The blocks the packer places for `space` of `f`, as the map's packing took them: the boxes, the
/// placed reserved windows, and each declared slotted allocation whole.
pub fn space_blocks(f: &FunctionMap, space: &str) -> Vec<Block> {
    let tiles: Vec<&Block> = f.blocks.iter().filter(|b| b.tile.space == space).collect();
    let mut out: Vec<Block> = tiles.iter().map(|b| (*b).clone()).collect();
    out.extend(reserved_blocks(&f.reserved, space, (f.src_start, f.src_end)));
    out.extend(slot_allocations(&tiles));
    out
}

/// Every space of every function of `map` with something to pack: `(function, space, instance)`.
pub fn instances(map: &MemoryMap) -> Vec<(String, String, Instance)> {
    let mut out = Vec::new();
    for f in &map.functions {
        for s in &f.spaces {
            let blocks = space_blocks(f, &s.space);
            let refs: Vec<&Block> = blocks.iter().collect();
            if let Some(instance) = super::space::instance(&refs) {
                out.push((f.name.clone(), s.space.clone(), instance));
            }
        }
    }
    out
}

/// A name as a file name: letters, digits, `_`, `-` and `.` kept, anything else `_`.
fn file_part(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "_-.".contains(c) { c } else { '_' }).collect()
}

/// Writes each instance of `map` to `dir/<function>.<space>.csv` (the folder made if need be);
/// returns the files written.
pub fn write_all(map: &MemoryMap, dir: &Path) -> Result<Vec<PathBuf>> {
    let io = |path: &Path, e: std::io::Error| Error::file(Some(path), FileOp::Write, &e);
    std::fs::create_dir_all(dir).map_err(|e| Error::file(Some(dir), FileOp::CreateFolder, &e))?;
    let mut written = Vec::new();
    for (function, space, instance) in instances(map) {
        let path = dir.join(format!("{}.{}.csv", file_part(&function), file_part(&space)));
        let mut text = Vec::new();
        write_instance(&mut text, &instance).map_err(|e| io(&path, e))?;
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_part("qk_matmul.v2"), "qk_matmul.v2");
        assert_eq!(file_part("../a b/c"), ".._a_b_c");
    }
}
