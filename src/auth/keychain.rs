//! Credentials in the Secret Service (GNOME Keyring, KWallet: `org.freedesktop.secrets` on the
//! session bus), one item per credential, labelled "Sonde: <server>" and found by its
//! attributes (`application=sonde`, the issuer and the resource). The item's secret is the
//! credential as JSON.
//!
//! Owns: talking to the service, each operation on a thread of its own with its own runtime, so
//! a caller may be async or not, and [`KeychainError`], which says a locked keyring apart from
//! one that does not answer. Refuses: deciding when the service is used (`store` falls back to
//! its private file when there is none).

use std::time::Duration;

use super::credential::Credential;

/// Why the Secret Service could not be used. [`available`] tells `Locked` (a service is there)
/// from the rest (none to use). The service's own errors are boxed: they are large, and rare.
#[derive(Debug, thiserror::Error)]
pub enum KeychainError {
    /// The collection is locked, and this operation may not ask the person to unlock it.
    #[error("the keyring is locked")]
    Locked,
    /// Unlocking was asked for and the collection stayed locked.
    #[error("the keyring stays locked: {0}")]
    StaysLocked(Box<oo7::Error>),
    #[error("the Secret Service did not answer within 5 s")]
    NoAnswer,
    /// The service, or the bus to it, answered with an error.
    #[error("{0}")]
    Service(Box<oo7::Error>),
    #[error("no runtime for the Secret Service: {0}")]
    NoRuntime(std::io::Error),
    #[error("the Secret Service thread failed")]
    ThreadFailed,
}

impl From<oo7::Error> for KeychainError {
    fn from(e: oo7::Error) -> Self {
        KeychainError::Service(Box::new(e))
    }
}

const APPLICATION: (&str, &str) = ("application", "sonde");
const KIND: (&str, &str) = ("kind", "oauth-credential");
/// A bus that does not answer must not hold up a run.
const LIMIT: Duration = Duration::from_secs(5);

/// Runs `work` against the default collection on a thread of its own. A locked collection is
/// unlocked (the desktop asks the person) when `unlock`, else refused: merely connecting to a
/// server must not ask for the keyring's password.
fn with_keyring<T: Send + 'static>(
    unlock: bool,
    work: impl AsyncFnOnce(&oo7::Keyring) -> Result<T, KeychainError> + Send + 'static,
) -> Result<T, KeychainError> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(KeychainError::NoRuntime)?;
        runtime.block_on(async {
            let open = async {
                let keyring = oo7::Keyring::new().await?;
                if keyring.is_locked().await? {
                    if !unlock {
                        return Err(KeychainError::Locked);
                    }
                    keyring.unlock().await.map_err(|e| KeychainError::StaysLocked(Box::new(e)))?;
                }
                Ok(keyring)
            };
            let keyring = tokio::time::timeout(LIMIT, open).await.map_err(|_| KeychainError::NoAnswer)??;
            tokio::time::timeout(LIMIT, work(&keyring)).await.map_err(|_| KeychainError::NoAnswer)?
        })
    })
    .join()
    .unwrap_or(Err(KeychainError::ThreadFailed))
}

/// Whether a Secret Service answers on the session bus (locked or not: nothing is asked).
pub fn available() -> Result<(), KeychainError> {
    match with_keyring(false, async |_| Ok(())) {
        Err(KeychainError::Locked) => Ok(()),
        other => other,
    }
}

/// Every credential of Sonde's; a locked keyring is unlocked only when `unlock`.
pub fn list(unlock: bool) -> Result<Vec<Credential>, KeychainError> {
    with_keyring(unlock, async |keyring| {
        let items = keyring.search_items(&[APPLICATION, KIND]).await?;
        let mut all = Vec::new();
        for item in items {
            let secret = item.secret().await?;
            // Another program's item with our attributes is not ours to read.
            if let Ok(credential) = serde_json::from_slice::<Credential>(secret.as_bytes()) {
                all.push(credential);
            }
        }
        Ok(all)
    })
}

pub fn save(credential: Credential) -> Result<(), KeychainError> {
    with_keyring(true, async move |keyring| {
        let label = format!("Sonde: {}", credential.resource);
        let json = serde_json::to_vec(&credential).expect("serializes");
        let attributes = [
            APPLICATION,
            KIND,
            ("issuer", credential.issuer.as_str()),
            ("resource", credential.resource.as_str()),
        ];
        Ok(keyring.create_item(&label, &attributes, json, true).await?)
    })
}

/// Deletes the credentials of `resource` (or all of Sonde's); returns those deleted.
pub fn remove(resource: Option<String>) -> Result<Vec<Credential>, KeychainError> {
    with_keyring(true, async move |keyring| {
        let items = keyring.search_items(&[APPLICATION, KIND]).await?;
        let mut removed = Vec::new();
        for item in items {
            let secret = item.secret().await?;
            let Ok(credential) = serde_json::from_slice::<Credential>(secret.as_bytes()) else { continue };
            if resource.as_deref().is_none_or(|r| r == credential.resource) {
                item.delete().await?;
                removed.push(credential);
            }
        }
        Ok(removed)
    })
}
