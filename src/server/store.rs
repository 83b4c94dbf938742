//! Where stored dumps live: content-addressed by the SHA-256 of their bytes.
//!
//! The service only needs put/get/count, so that is the trait; the default implementation is files
//! on local disk (no setup), and a shared object store can take its place when several instances
//! serve one set of links. Content addressing makes every write idempotent and every link
//! permanent while the map is kept: an id names exactly one dump, forever.
//!
//! The disk is bounded (`--max-store-bytes`): storing a map past the quota evicts the least recently
//! used maps first, and a map larger than the whole quota is refused (`StorageFull`, answered 507).
//! A map is every file of its shard named `<id>` or `<id>.<anything>` (the dump and anything kept
//! beside it): it is counted, and evicted, as one unit.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// Storage for dumps by id (64 lowercase hex digits).
///
/// Whatever decides what a client is told (201 or 200, 404, 503, what a memory cache may keep)
/// lives above this trait and reads only its answers, so every store behaves alike to clients.
/// An error is never "not found": absent is `Ok(None)` / `Ok(false)`, and a store that could not
/// answer is an `Err` (`is_unavailable` when it may answer later).
pub trait MapStore: Send + Sync {
    /// Stores `bytes` (a unit from `encode`, or a bare dump) under `id`, unless `id` is already
    /// stored; `Created` for exactly one of any number of puts of an id, however they race (the
    /// store decides atomically). Evicts past the quota; `StorageFull` when no room can be made.
    /// Once this returns, the bytes are complete and durable; a put cut short leaves nothing.
    fn put(&self, id: &str, bytes: &[u8]) -> io::Result<Put>;
    /// The bytes stored under `id`, or `None`; bytes that do not match `id` are an error.
    fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>>;
    /// How many dumps are stored (a shared store: as of its last full listing).
    fn count(&self) -> usize;
    /// Whether `id` is stored; stores that can answer without reading the bytes should.
    fn contains(&self, id: &str) -> io::Result<bool> {
        Ok(self.get(id)?.is_some())
    }
    /// Whether the store answers at all (`/healthz`).
    fn check(&self) -> io::Result<()> {
        Ok(())
    }
    /// Where the maps live, for the log (never a secret).
    fn describe(&self) -> String;
    /// Whether a call may wait on the network: such calls are kept off the async workers.
    fn remote(&self) -> bool {
        false
    }
}

/// What a put did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Put {
    /// This call stored the map.
    Created,
    /// The map was already stored (by an earlier call, or one that won a race).
    Existed,
}

/// What went wrong in a store, as data: the `io::Error` the trait returns carries one, of the kind
/// [`StoreError::kind`] picks, and the service decides what to answer by the variant, never by
/// the words. The words (which may name the endpoint, the bucket or the object) go to the log.
#[derive(Debug)]
pub enum StoreError {
    /// A string that is not a map id was asked for.
    NotAnId,
    /// A map of `size` bytes, larger than the whole store's quota of `quota` bytes (answered 507).
    OverQuota { size: u64, quota: u64 },
    /// The stored `object` does not match its id (altered or damaged).
    Mismatch { object: String },
    /// The stored `object` is `size` bytes, more than the largest map this service stores (`max`);
    /// it was not read.
    ObjectTooLarge { object: String, size: u64, max: u64 },
    /// The store did not answer, or answered with a failure of its own (down, slow): the client is
    /// told to retry (503), never that the map does not exist. The detail, in the client's words.
    Unavailable(String),
    /// The store answered, and refused: bad credentials, no such bucket, no room. Asking again
    /// will not help until its operator acts, so the client is told so (502, no `Retry-After`).
    Refused(String),
    /// `--store URL` names no store this service can open.
    BadUrl { url: String, why: UrlProblem },
    /// The data directory `dir` cannot be opened.
    DataDir { dir: PathBuf, source: io::Error },
}

/// Why a `--store` URL names no store.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(feature = "s3"), allow(dead_code))]
pub enum UrlProblem {
    /// `file://` with no path.
    NoFolder,
    /// A scheme other than `file://` and `s3://`.
    Scheme,
    /// `s3://` in a build without the `s3` feature.
    NoS3,
    /// An S3 store's URL that does not start with `s3://`.
    NotS3,
    /// `s3://` with no bucket.
    NoBucket,
    /// A bucket name with characters bucket names do not use.
    BucketName,
    /// `s3://BUCKET` with no prefix.
    NoPrefix,
    /// A prefix with an empty, `.` or `..` segment.
    PrefixSegment,
    /// A prefix the S3 client does not take as a path: its words.
    PrefixPath(String),
    /// The S3 client cannot be built from the URL and the environment: its words.
    Client(String),
}

impl StoreError {
    /// The `io::ErrorKind` this error travels as.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            StoreError::NotAnId | StoreError::BadUrl { .. } => io::ErrorKind::InvalidInput,
            StoreError::OverQuota { .. } => io::ErrorKind::StorageFull,
            StoreError::Mismatch { .. } | StoreError::ObjectTooLarge { .. } => io::ErrorKind::InvalidData,
            StoreError::Unavailable(_) => io::ErrorKind::Other,
            StoreError::Refused(_) => io::ErrorKind::PermissionDenied,
            StoreError::DataDir { source, .. } => source.kind(),
        }
    }

    /// The store error `err` carries, if any.
    pub fn of(err: &io::Error) -> Option<&StoreError> {
        err.get_ref().and_then(|inner| inner.downcast_ref())
    }
}

impl From<StoreError> for io::Error {
    fn from(err: StoreError) -> io::Error {
        io::Error::new(err.kind(), err)
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotAnId => write!(f, "not a map id"),
            StoreError::OverQuota { size, quota } => {
                write!(f, "a map of {size} bytes is larger than the whole store ({quota} bytes)")
            }
            StoreError::Mismatch { object } => write!(f, "{object}: the stored contents do not match its id"),
            StoreError::ObjectTooLarge { object, size, max } => write!(
                f,
                "{object}: an object of {size} bytes, more than the largest map this service stores ({max} bytes); not read"
            ),
            StoreError::Unavailable(detail) => write!(f, "the map store is unavailable: {detail}"),
            StoreError::Refused(detail) => write!(f, "the map store refuses: {detail}"),
            StoreError::BadUrl { url, why } => {
                let why = match why {
                    UrlProblem::NoFolder => {
                        return write!(f, "--store {url}: it names no folder (expected file://PATH)");
                    }
                    UrlProblem::Scheme => return write!(f, "--store {url}: use file://PATH or s3://BUCKET/PREFIX"),
                    UrlProblem::NoS3 => {
                        return write!(
                            f,
                            "--store {url}: this build has no S3 store (built without the `s3` feature); use file://PATH"
                        );
                    }
                    UrlProblem::NotS3 => "it must start with s3://".to_string(),
                    UrlProblem::NoBucket => "it names no bucket".to_string(),
                    UrlProblem::BucketName => {
                        "the bucket name may hold only letters, digits, '.', '-' and '_'".to_string()
                    }
                    UrlProblem::NoPrefix => "it names no prefix (the folder of the bucket the maps go in)".to_string(),
                    UrlProblem::PrefixSegment => "the prefix has an empty, '.' or '..' segment".to_string(),
                    UrlProblem::PrefixPath(e) => format!("the prefix is not a plain path: {e}"),
                    UrlProblem::Client(e) => e.clone(),
                };
                write!(
                    f,
                    "--store {url}: {why} (expected s3://BUCKET/PREFIX, with AWS_ENDPOINT_URL for a store other than AWS)"
                )
            }
            StoreError::DataDir { dir, source } => {
                write!(f, "cannot open the data directory {}: {source}", dir.display())
            }
        }
    }
}

impl std::error::Error for StoreError {}

/// A [`StoreError::Unavailable`] as the `io::Error` the trait returns.
pub fn unavailable(detail: impl std::fmt::Display) -> io::Error {
    StoreError::Unavailable(detail.to_string()).into()
}

/// A [`StoreError::Refused`] as the `io::Error` the trait returns.
pub fn refused(detail: impl std::fmt::Display) -> io::Error {
    StoreError::Refused(detail.to_string()).into()
}

/// Whether `err` is a store that refused (see [`StoreError::Refused`]).
pub fn is_refused(err: &io::Error) -> bool {
    matches!(StoreError::of(err), Some(StoreError::Refused(_)))
}

/// Whether `err` is a store that may answer later (unreachable, timed out, refusing for now).
pub fn is_unavailable(err: &io::Error) -> bool {
    use io::ErrorKind as K;
    matches!(StoreError::of(err), Some(StoreError::Unavailable(_)))
        || matches!(
            err.kind(),
            K::TimedOut
                | K::ConnectionRefused
                | K::ConnectionReset
                | K::ConnectionAborted
                | K::NotConnected
                | K::BrokenPipe
                | K::HostUnreachable
                | K::NetworkUnreachable
                | K::ResourceBusy
        )
}

/// What a map was stored with (`POST /maps?name=..&backend=..`), kept in the same stored unit as
/// its dump, so the map keeps them and goes as one unit.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MapMeta {
    pub name: Option<String>,
    pub backend: Option<String>,
}

/// A stored unit is this marker, the metadata as one line of JSON, then the dump. A Python comment,
/// so the unit is still a dump.
const META_MARK: &[u8] = b"#pto-memory-map ";

/// Longest metadata line a unit read back may have: a name and a backend of `MAX_NAME` bytes each
/// (escaped JSON at most 6 bytes a byte: 3 KiB together) fit within it.
const MAX_META_LINE: usize = 4096;

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

/// The id of a map: the SHA-256 of the dump alone when it has no name or backend, else of the whole
/// unit [`encode`] makes, so the id covers everything a picture is drawn from and a stored object
/// altered anywhere (its name or backend included) no longer matches its id.
pub fn map_id(meta: &MapMeta, dump: &[u8]) -> String {
    if *meta == MapMeta::default() { id_of(dump) } else { id_of(&encode(meta, dump)) }
}

/// A stored unit's metadata and dump, when the unit matches `id`; `None` for anything else (altered,
/// cut short, or a metadata line that is not what [`encode`] writes: too long, a name the service
/// would refuse at the door, an unknown backend).
///
/// A unit stored by an earlier version, whose id is the SHA-256 of its dump alone, is read with its
/// metadata left out: the id does not cover that line, so nothing in it is trusted.
pub fn decode<'a>(id: &str, unit: &'a [u8]) -> Option<(MapMeta, &'a [u8])> {
    if let Some(rest) = unit.strip_prefix(META_MARK) {
        let end = rest.iter().take(MAX_META_LINE + 1).position(|b| *b == b'\n')?;
        let dump = &rest[end + 1..];
        if id_of(unit) == id {
            let mut meta: MapMeta = serde_json::from_slice(&rest[..end]).ok()?;
            // A name stored before invisible characters were refused at the door keeps its map:
            // they are dropped here rather than the map refused.
            meta.name = meta.name.map(|n| n.chars().filter(|&c| !crate::option_table::unfit_in_name(c)).collect());
            let name_ok = meta.name.as_deref().is_none_or(|n| crate::option_table::check_name(n).is_ok());
            let backend_ok = meta.backend.as_deref().is_none_or(|b| crate::backend::by_name(b).is_ok());
            return (name_ok && backend_ok).then_some((meta, dump));
        }
        if id_of(dump) == id {
            return Some((MapMeta::default(), dump));
        }
        return None;
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
    max_bytes: u64,
    /// What is stored and in which order it was last used; one lock makes "make room, publish" a
    /// single step, so the count and the bytes stay exact.
    index: Mutex<Index>,
    temp_serial: AtomicU64,
}

/// Stored maps by id, with their bytes on disk and their place in the use order.
#[derive(Default)]
struct Index {
    maps: HashMap<String, (u64, u64)>,
    /// Use stamp to id: the first entry is the least recently used map.
    order: BTreeMap<u64, String>,
    bytes: u64,
    clock: u64,
}

impl Index {
    fn insert(&mut self, id: String, bytes: u64) {
        self.clock += 1;
        self.order.insert(self.clock, id.clone());
        if let Some((old_bytes, old_stamp)) = self.maps.insert(id, (bytes, self.clock)) {
            self.order.remove(&old_stamp);
            self.bytes -= old_bytes;
        }
        self.bytes += bytes;
    }

    fn touch(&mut self, id: &str) {
        self.clock += 1;
        if let Some((_, stamp)) = self.maps.get_mut(id) {
            self.order.remove(stamp);
            *stamp = self.clock;
            self.order.insert(self.clock, id.to_string());
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some((bytes, stamp)) = self.maps.remove(id) {
            self.order.remove(&stamp);
            self.bytes -= bytes;
        }
    }
}

impl FsStore {
    /// Opens (creating if needed) the store under `data_dir`, holding at most `max_bytes`; removes
    /// temporary files that a crash left behind and indexes what is stored (oldest first). A store
    /// already over a smaller quota is trimmed on the next put.
    pub fn open(data_dir: &Path, max_bytes: u64) -> io::Result<FsStore> {
        let root = data_dir.join("maps");
        fs::create_dir_all(&root)?;
        sync_dir(data_dir)?;
        let mut found: Vec<(std::time::SystemTime, String, u64)> = Vec::new();
        for shard in fs::read_dir(&root)? {
            let shard = shard?;
            if !shard.file_type()?.is_dir() {
                continue;
            }
            let mut sizes: HashMap<String, (std::time::SystemTime, u64)> = HashMap::new();
            for entry in fs::read_dir(shard.path())? {
                let entry = entry?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(".tmp-") {
                    let _ = fs::remove_file(entry.path());
                    continue;
                }
                let id = name.split('.').next().unwrap_or("");
                if is_id(id) {
                    let meta = entry.metadata()?;
                    let slot = sizes.entry(id.to_string()).or_insert((std::time::SystemTime::UNIX_EPOCH, 0));
                    slot.1 += meta.len();
                    if name == id {
                        slot.0 = meta.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH);
                    }
                }
            }
            found.extend(sizes.into_iter().map(|(id, (when, bytes))| (when, id, bytes)));
        }
        found.sort();
        let mut index = Index::default();
        for (_, id, bytes) in found {
            index.insert(id, bytes);
        }
        Ok(FsStore { root, max_bytes, index: Mutex::new(index), temp_serial: AtomicU64::new(0) })
    }

    fn path_of(&self, id: &str) -> io::Result<PathBuf> {
        if !is_id(id) {
            return Err(StoreError::NotAnId.into());
        }
        Ok(self.root.join(&id[..2]).join(id))
    }

    fn index(&self) -> std::sync::MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Removes the map `id`: its dump and every `<id>.*` file beside it.
    fn evict(&self, index: &mut Index, id: &str) -> io::Result<()> {
        let dump = self.path_of(id)?;
        let dir = dump.parent().unwrap_or(&self.root).to_path_buf();
        let prefix = format!("{id}.");
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == id || name.starts_with(&prefix) {
                match fs::remove_file(entry.path()) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
        index.remove(id);
        sync_dir(&dir)
    }

    /// The bytes stored, and the quota.
    pub fn usage(&self) -> (u64, u64) {
        (self.index().bytes, self.max_bytes)
    }
}

impl MapStore for FsStore {
    /// Temp file in the same directory, write, fsync, rename over the final name, fsync the
    /// directory: after a crash the map is either complete or absent, never half written. Room is
    /// made first, least recently used maps out.
    fn put(&self, id: &str, bytes: &[u8]) -> io::Result<Put> {
        let target = self.path_of(id)?;
        let size = bytes.len() as u64;
        if size > self.max_bytes {
            return Err(StoreError::OverQuota { size, quota: self.max_bytes }.into());
        }
        let mut index = self.index();
        if index.maps.contains_key(id) && target.exists() {
            index.touch(id);
            return Ok(Put::Existed); // same id, same bytes
        }
        while index.bytes + size > self.max_bytes {
            let Some(oldest) = index.order.values().next().cloned() else { break };
            self.evict(&mut index, &oldest)?;
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
            file.sync_all()?;
            fs::rename(&temp, &target)?;
            sync_dir(&dir)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        index.insert(id.to_string(), size);
        Ok(Put::Created)
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
            return Err(StoreError::Mismatch { object: path.display().to_string() }.into());
        }
        self.index().touch(id);
        Ok(Some(bytes))
    }

    fn count(&self) -> usize {
        self.index().maps.len()
    }

    fn contains(&self, id: &str) -> io::Result<bool> {
        match fs::metadata(self.path_of(id)?) {
            Ok(m) => Ok(m.is_file()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn check(&self) -> io::Result<()> {
        fs::read_dir(&self.root).map(drop)
    }

    fn describe(&self) -> String {
        format!("file://{}", self.root.parent().unwrap_or(&self.root).display())
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
        let store = FsStore::open(&dir, 1 << 20).unwrap();
        let id = id_of(b"hello");
        assert_eq!(store.get(&id).unwrap(), None);
        assert_eq!(store.put(&id, b"hello").unwrap(), Put::Created);
        assert_eq!(store.put(&id, b"hello").unwrap(), Put::Existed);
        assert_eq!(store.count(), 1);
        assert!(store.contains(&id).unwrap());
        fs::write(dir.join("maps").join(&id[..2]).join(".tmp-junk"), b"x").unwrap();
        let again = FsStore::open(&dir, 1 << 20).unwrap();
        assert_eq!(again.count(), 1);
        assert_eq!(again.get(&id).unwrap().as_deref(), Some(&b"hello"[..]));
        assert!(!dir.join("maps").join(&id[..2]).join(".tmp-junk").exists());
        assert!(again.get("../../etc/passwd").is_err());
        let meta = MapMeta { name: Some("k.py".into()), backend: Some("Ascend950".into()) };
        let id2 = map_id(&meta, b"dump");
        again.put(&id2, &encode(&meta, b"dump")).unwrap();
        let unit = again.get(&id2).unwrap().unwrap();
        assert_eq!(decode(&id2, &unit), Some((meta, &b"dump"[..])));
        assert_eq!(decode(&id, b"hello"), Some((MapMeta::default(), &b"hello"[..])));
        assert_eq!(decode(&id2, b"#pto-memory-map {}\nother"), None);
        // Altered on disk: refused, never read as another map.
        let path = dir.join("maps").join(&id2[..2]).join(&id2);
        fs::write(&path, encode(&MapMeta { name: Some("x.py".into()), ..MapMeta::default() }, b"dump")).unwrap();
        assert_eq!(again.get(&id2).unwrap_err().kind(), io::ErrorKind::InvalidData);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_name_stored_with_invisible_characters_keeps_its_map() {
        let meta = MapMeta { name: Some("k\u{202E}yp.py".into()), backend: None };
        let id = map_id(&meta, b"dump");
        let unit = encode(&meta, b"dump");
        let (read, dump) = decode(&id, &unit).expect("still read");
        assert_eq!((read.name.as_deref(), dump), (Some("kyp.py"), &b"dump"[..]));
    }

    #[test]
    fn the_id_covers_the_name_and_backend() {
        let dump = b"x = 1\n";
        let meta = MapMeta { name: Some("k.py".into()), backend: Some("Ascend950".into()) };
        let id = map_id(&meta, dump);
        assert_ne!(id, id_of(dump), "a named map's id is not its bare dump's");
        assert_eq!(map_id(&MapMeta::default(), dump), id_of(dump), "a map with nothing else is its dump's");
        assert_eq!(decode(&id, &encode(&meta, dump)), Some((meta.clone(), &dump[..])));
        // Any change to what is drawn, the name, the backend or the dump, and the id no longer matches.
        for altered in [
            MapMeta { name: Some("k2.py".into()), ..meta.clone() },
            MapMeta { backend: Some("Ascend910B".into()), ..meta.clone() },
            MapMeta { name: Some("k.py".repeat(10_000)), ..meta.clone() },
            MapMeta::default(),
        ] {
            assert_eq!(decode(&id, &encode(&altered, dump)), None, "{altered:?}");
        }
        assert_eq!(decode(&id, &encode(&meta, b"x = 2\n")), None);
        // A unit that matches its id and still holds what the service would refuse at the door (a
        // name too long, an unknown backend) is refused too.
        for bad in [
            MapMeta { name: Some("n".repeat(300)), backend: None },
            MapMeta { name: None, backend: Some("NoSuchChip".into()) },
        ] {
            assert_eq!(decode(&map_id(&bad, dump), &encode(&bad, dump)), None, "{bad:?}");
        }
        // A unit of an earlier version (its id is the dump's alone) is read without its metadata,
        // which that id does not cover.
        assert_eq!(decode(&id_of(dump), &encode(&meta, dump)), Some((MapMeta::default(), &dump[..])));
    }

    #[test]
    fn a_full_store_evicts_the_least_recently_used_map_with_its_files() {
        let dir = std::env::temp_dir().join(format!("pto-mm-quota-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = FsStore::open(&dir, 250).unwrap();
        let maps: Vec<Vec<u8>> = (0..3u8).map(|i| vec![i; 100]).collect();
        let ids: Vec<String> = maps.iter().map(|m| id_of(m)).collect();
        store.put(&ids[0], &maps[0]).unwrap();
        let beside = dir.join("maps").join(&ids[0][..2]).join(format!("{}.meta", ids[0]));
        fs::write(&beside, b"x").unwrap();
        store.put(&ids[1], &maps[1]).unwrap();
        store.get(&ids[0]).unwrap(); // 0 is now used more recently than 1
        store.put(&ids[2], &maps[2]).unwrap();
        assert_eq!(store.count(), 2);
        assert!(!store.contains(&ids[1]).unwrap(), "the least recently used map is evicted");
        assert!(store.contains(&ids[0]).unwrap() && store.contains(&ids[2]).unwrap());
        // Reopened, the index is rebuilt from disk (the file beside a map counts with it).
        let again = FsStore::open(&dir, 250).unwrap();
        assert_eq!(again.usage().0, 201);
        let err = again.put(&id_of(&[7; 300]), &[7; 300]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        again.put(&ids[1], &maps[1]).unwrap();
        assert!(!beside.exists(), "a map's files go together");
        let _ = fs::remove_dir_all(&dir);
    }
}
