//! The model bank's books on disk, so a restart of the server it runs in
//! finds the consents, mandates and payments it had: a real bank does not
//! forget a payer's VRP consent because its client restarted. The books
//! are written whole (JSON, to a temporary file, flushed, then renamed
//! over the last) a quarter of a second after a request that may have
//! changed them, so a crash loses at most that quarter second — a model
//! of a bank, not a bank: lendhub's own records are what must not lose an
//! acknowledged write.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use super::Books;

/// How long after a change the books are written.
const SETTLE: Duration = Duration::from_millis(250);

/// The books kept in `path`, if it holds any; empty books otherwise.
pub(super) fn load(path: &Path) -> std::io::Result<Books> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: not the model bank's books: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Books::default()),
        Err(e) => Err(e),
    }
}

pub(super) fn write(path: &Path, books: &Mutex<Books>) -> std::io::Result<()> {
    use std::io::Write as _;
    let bytes = serde_json::to_vec(&*books.lock())?;
    let temporary = path.with_extension("json.tmp");
    let mut file = std::fs::File::create(&temporary)?;
    file.write_all(&bytes)?;
    file.sync_data()?;
    std::fs::rename(&temporary, path)
}

/// Writes the books to their file a quarter second after a change, and
/// once more when told to stop, so a graceful stop loses nothing.
pub struct Keeper {
    pub(super) path: PathBuf,
    pub(super) books: Arc<Mutex<Books>>,
    pub(super) changed: Arc<AtomicBool>,
    /// The bank's: what has lapsed is forgotten before each write.
    pub(super) clock: Arc<dyn lendhub_domain::clock::Clock>,
}

impl Keeper {
    pub async fn run(self, stop: impl std::future::Future<Output = ()>) {
        tokio::pin!(stop);
        loop {
            let stopping = tokio::select! {
                () = tokio::time::sleep(SETTLE) => false,
                () = &mut stop => true,
            };
            if self.changed.swap(false, Ordering::AcqRel) {
                self.books.lock().forget_lapsed(self.clock.now());
                let (path, books) = (self.path.clone(), self.books.clone());
                let written = tokio::task::spawn_blocking(move || write(&path, &books)).await;
                match written {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e, "the model bank could not keep its books")
                    }
                    Err(e) => tracing::warn!(error = %e, "the model bank's book writer stopped"),
                }
            }
            if stopping {
                return;
            }
        }
    }
}
