//! The hash maps and sets of the analysis, the plan and the pictures, keyed by names from the dump.
//!
//! The walk, the lifetimes, the alias merge, the overlaps and the plan look up the same short names
//! (tiles, bases, spaces) again and again: with std's SipHash that was about 3 % of the decode
//! case's JSON report and 1 % of its page (`docs/benchmarks.md`). foldhash (already built for
//! actix) keeps a random seed per map and per process, so no dump collides its names in every run,
//! and a hash is never shown or stored. The service's maps, which live across requests, keep std's.

/// A hash map with [`foldhash`]'s randomly seeded hasher.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set with [`foldhash`]'s randomly seeded hasher.
pub type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
