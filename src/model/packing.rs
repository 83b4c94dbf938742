//! A space's packing as the map carries it: the packer's placement of the same boxes over the
//! same lifetimes (`pack::space`), apart from the rest of the model because only the packer makes it.

use serde::{Deserialize, Serialize};

/// A space's packing, as the JSON writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpacePacking {
    /// The packing's peak: its largest `offset + size`.
    pub bytes: i64,
    /// No placement of these units over these lifetimes has a lower peak.
    pub lower_bound: i64,
    /// Whether `bytes` is proven optimal.
    pub proven_optimal: bool,
    /// Microseconds the packer took, written as milliseconds (`ms`).
    #[serde(rename = "ms", serialize_with = "micros_as_ms", deserialize_with = "ms_as_micros")]
    pub us: u64,
    /// Every box of the space by name, at its offset in the packing.
    pub placement: Vec<Placed>,
    /// Cross-pipe handovers of the placement: its second aim, the fewest found at `bytes`.
    #[serde(default)]
    pub cross_pipe: usize,
}

impl SpacePacking {
    /// How sure the packing is, in the reports' words: `optimal` or `best found`.
    pub fn verdict(&self) -> &'static str {
        if self.proven_optimal { "optimal" } else { "best found" }
    }
}

fn micros_as_ms<S: serde::Serializer>(us: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(*us as f64 / 1000.0)
}

fn ms_as_micros<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let ms = f64::deserialize(d)?;
    Ok((ms * 1000.0).round().max(0.0) as u64)
}

/// One box's place in a packing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    /// The box's name.
    pub name: String,
    /// Its offset in the packing.
    pub offset: i64,
}
