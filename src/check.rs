//! A map held against limits: the CI gate behind `check`.

use serde::Serialize;

use crate::error::Result;
use crate::model::{FunctionMap, MemoryMap, SpaceUsage};

/// Limits a map must stay within (`check`).
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Highest occupancy allowed, in percent of capacity.
    pub max_occupancy: Option<f64>,
    pub deny_conflicts: bool,
    /// Highest high-water mark allowed per space, in bytes.
    pub max_hwm: Vec<(String, i64)>,
}

/// One broken limit.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub function: String,
    pub space: String,
    pub rule: &'static str,
    pub figure: String,
    pub limit: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {} {} exceeds {}", self.function, self.space, self.rule, self.figure, self.limit)
    }
}

/// Every limit `map` breaks, function by function.
pub fn check(map: &MemoryMap, limits: &Limits) -> Vec<Violation> {
    let mut out = Vec::new();
    for f in &map.functions {
        for s in &f.spaces {
            let occupancy = if s.limit > 0 { s.hwm as f64 / s.limit as f64 * 100.0 } else { 0.0 };
            if let Some(max) = limits.max_occupancy
                && occupancy > max
            {
                out.push(violation(f, s, "occupancy", format!("{occupancy:.1}%"), format!("{max}%")));
            }
            for (space, max) in &limits.max_hwm {
                if *space == s.space && s.hwm > *max {
                    out.push(violation(f, s, "high-water mark", format!("{} B", s.hwm), format!("{max} B")));
                }
            }
            let conflicts = f.blocks.iter().filter(|b| b.tile.space == s.space && b.conflict).count();
            if limits.deny_conflicts && conflicts > 0 {
                out.push(violation(f, s, "conflicting boxes", conflicts.to_string(), "0".into()));
            }
        }
    }
    out
}

fn violation(f: &FunctionMap, s: &SpaceUsage, rule: &'static str, figure: String, limit: String) -> Violation {
    Violation { function: f.name.clone(), space: s.space.clone(), rule, figure, limit }
}

/// `Vec=96KB` or `Vec=98304` for `--max-hwm`.
pub fn parse_max_hwm(s: &str) -> Result<(String, i64)> {
    crate::units::parse_space_bytes(s, "--max-hwm")
}
