//! Where stored dumps live: content-addressed by the SHA-256 of their bytes.
//!
//! The service only needs put/get/count, so that is the trait; the default implementation is files
//! on local disk (no setup), and a shared object store can take its place when several instances
//! serve one set of links. Content addressing makes every write idempotent and every link
//! permanent: an id names exactly one dump, forever.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

/// Storage for dumps by id (64 lowercase hex digits).
pub trait MapStore: Send + Sync {
    /// Stores `bytes` (a unit from `encode`, or a bare dump) under `id`. Once this returns, the
    /// bytes survive a crash of the process.
    fn put(&self, id: &str, bytes: &[u8]) -> io::Result<()>;
    /// The bytes stored under `id`, or `None`.
    fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>>;
    /// How many dumps are stored.
    fn count(&self) -> usize;
    /// Whether `id` is stored; stores that can answer without reading the bytes should.
    fn contains(&self, id: &str) -> io::Result<bool> {
        Ok(self.get(id)?.is_some())
    }
}

/// What a map was stored with (`POST /maps?name=..&backend=..`), kept in the same stored unit as
/// its dump, so the map keeps them and goes as one unit.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MapMeta {
    pub name: Option<String>,
    pub backend: Option<String>,
}

/// A stored unit is this marker, the metadata as one line of JSON, then the dump. A Python comment,
/// so the unit is still a dump; the id stays the SHA-256 of the dump alone.
const META_MARK: &[u8] = b"#pto-memory-map ";

/// The unit stored for `dump` with `meta`.
pub fn encode(meta: &MapMeta, dump: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(meta).unwrap_or_else(|_| b"{}".to_vec());
    let mut unit = Vec::with_capacity(META_MARK.len() + json.len() + 1 + dump.len());
    unit.extend_from_slice(META_MARK);
    unit.extend_from_slice(&json);
    unit.push(b'\n');
    unit.extend_from_slice(dump);
    unit
}

/// A stored unit's metadata and dump, when the dump matches `id`; a unit stored without metadata (a
/// bare dump) has none.
pub fn decode<'a>(id: &str, unit: &'a [u8]) -> Option<(MapMeta, &'a [u8])> {
    if let Some(rest) = unit.strip_prefix(META_MARK)
        && let Some(end) = rest.iter().position(|b| *b == b'\n')
        && id_of(&rest[end + 1..]) == id
    {
        return Some((serde_json::from_slice(&rest[..end]).unwrap_or_default(), &rest[end + 1..]));
    }
    (id_of(unit) == id).then(|| (MapMeta::default(), unit))
}

/// The id of a dump: SHA-256 of its bytes, lowercase hex.
pub fn id_of(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `s` can be an id. Checked before any path is built from it, so an id can never walk out
/// of the data directory.
pub fn is_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Files under `<data dir>/maps/<first two hex digits>/<id>`. The two-digit fan-out keeps any one
/// directory small.
pub struct FsStore {
    root: PathBuf,
    count: AtomicUsize,
    /// Makes "is it new?" and the rename one step, so the count stays exact.
    publish: Mutex<()>,
    temp_serial: AtomicU64,
}

impl FsStore {
    /// Opens (creating if needed) the store under `data_dir`; removes temporary files that a crash
    /// left behind and counts what is stored.
    pub fn open(data_dir: &Path) -> io::Result<FsStore> {
        let root = data_dir.join("maps");
        fs::create_dir_all(&root)?;
        sync_dir(data_dir)?;
        let mut count = 0;
        for shard in fs::read_dir(&root)? {
            let shard = shard?;
            if !shard.file_type()?.is_dir() {
                continue;
            }
            for entry in fs::read_dir(shard.path())? {
                let entry = entry?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(".tmp-") {
                    let _ = fs::remove_file(entry.path());
                } else if is_id(&name) {
                    count += 1;
                }
            }
        }
        Ok(FsStore { root, count: AtomicUsize::new(count), publish: Mutex::new(()), temp_serial: AtomicU64::new(0) })
    }

    fn path_of(&self, id: &str) -> io::Result<PathBuf> {
        if !is_id(id) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a map id"));
        }
        Ok(self.root.join(&id[..2]).join(id))
    }
}

impl MapStore for FsStore {
    /// Temp file in the same directory, write, fsync, rename over the final name, fsync the
    /// directory: after a crash the map is either complete or absent, never half written.
    fn put(&self, id: &str, bytes: &[u8]) -> io::Result<()> {
        let target = self.path_of(id)?;
        if target.exists() {
            return Ok(()); // same id, same bytes
        }
        let dir = target.parent().unwrap_or(&self.root).to_path_buf();
        if !dir.is_dir() {
            fs::create_dir_all(&dir)?;
            sync_dir(&self.root)?;
        }
        let serial = self.temp_serial.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".tmp-{id}-{}-{serial}", std::process::id()));
        let written = (|| {
            let mut file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
            file.write_all(bytes)?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        let _guard = self.publish.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let fresh = !target.exists();
        if let Err(e) = fs::rename(&temp, &target) {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        sync_dir(&dir)?;
        if fresh {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Reads the unit and checks its dump against the id, so a damaged file is an error, not a wrong map.
    fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>> {
        let path = self.path_of(id)?;
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if decode(id, &bytes).is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: contents do not match the id", path.display()),
            ));
        }
        Ok(Some(bytes))
    }

    fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    fn contains(&self, id: &str) -> io::Result<bool> {
        match fs::metadata(self.path_of(id)?) {
            Ok(m) => Ok(m.is_file()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// Makes a rename or a new entry in `dir` durable.
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_count_and_reopen() {
        let dir = std::env::temp_dir().join(format!("pto-mm-store-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = FsStore::open(&dir).unwrap();
        let id = id_of(b"hello");
        assert_eq!(store.get(&id).unwrap(), None);
        store.put(&id, b"hello").unwrap();
        store.put(&id, b"hello").unwrap();
        assert_eq!(store.count(), 1);
        assert!(store.contains(&id).unwrap());
        fs::write(dir.join("maps").join(&id[..2]).join(".tmp-junk"), b"x").unwrap();
        let again = FsStore::open(&dir).unwrap();
        assert_eq!(again.count(), 1);
        assert_eq!(again.get(&id).unwrap().as_deref(), Some(&b"hello"[..]));
        assert!(!dir.join("maps").join(&id[..2]).join(".tmp-junk").exists());
        assert!(again.get("../../etc/passwd").is_err());
        let meta = MapMeta { name: Some("k.py".into()), backend: Some("Ascend950".into()) };
        let id2 = id_of(b"dump");
        again.put(&id2, &encode(&meta, b"dump")).unwrap();
        let unit = again.get(&id2).unwrap().unwrap();
        assert_eq!(decode(&id2, &unit), Some((meta, &b"dump"[..])));
        assert_eq!(decode(&id, b"hello"), Some((MapMeta::default(), &b"hello"[..])));
        assert_eq!(decode(&id2, b"#pto-memory-map {}\nother"), None);
        let _ = fs::remove_dir_all(&dir);
    }
}
