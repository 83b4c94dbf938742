//! The HTTP rendering service: post a dump, get a map back.

use std::path::PathBuf;

/// How the service is started (`pto-memory-map serve ...`).
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub bind: String,
    pub data_dir: PathBuf,
    pub max_body_bytes: usize,
    pub render_threads: usize,
}

/// Runs the service until it is stopped.
pub fn serve(config: ServeConfig) -> std::io::Result<()> {
    let _ = config;
    Err(std::io::Error::other("the HTTP service is not built yet"))
}
