//! The hash maps and sets of the analysis and the plan, keyed by names from the dump.
//!
//! std's SipHash was some 1.5 % of a page's CPU time, hashing the same short names again and
//! again. foldhash (already built for actix) is several times faster on short keys and keeps a
//! random seed per map and per process, so a dump cannot be written to collide in every run; a
//! name's hash is never shown or stored.

/// A hash map with [`foldhash`]'s randomly seeded hasher.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set with [`foldhash`]'s randomly seeded hasher.
pub type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
