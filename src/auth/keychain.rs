//! Credentials in the Secret Service (GNOME Keyring, KWallet: `org.freedesktop.secrets` on the
//! session bus), one item per credential, labelled "Sonde: <server>" and found by its
//! attributes (`application=sonde`, the issuer and the resource). The item's secret is the
//! credential as JSON.
//!
//! Owns: talking to the service, each operation on a thread of its own with its own runtime, so
//! a caller may be async or not. Refuses: deciding when the service is used (`store` falls back
//! to its private file when there is none).

use std::time::Duration;

use super::credential::Credential;

const APPLICATION: (&str, &str) = ("application", "sonde");
const KIND: (&str, &str) = ("kind", "oauth-credential");
/// A bus that does not answer must not hold up a run.
const LIMIT: Duration = Duration::from_secs(5);

/// Runs `work` against the default collection on a thread of its own. A locked collection is
/// unlocked (the desktop asks the person) when `unlock`, else refused: merely connecting to a
/// server must not ask for the keyring's password.
fn with_keyring<T: Send + 'static>(
    unlock: bool,
    work: impl AsyncFnOnce(&oo7::Keyring) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("no runtime for the Secret Service: {e}"))?;
        runtime.block_on(async {
            let open = async {
                let keyring = oo7::Keyring::new().await.map_err(|e| e.to_string())?;
                if keyring.is_locked().await.map_err(|e| e.to_string())? {
                    if !unlock {
                        return Err("the keyring is locked".to_owned());
                    }
                    keyring.unlock().await.map_err(|e| format!("the keyring stays locked: {e}"))?;
                }
                Ok::<_, String>(keyring)
            };
            let keyring = tokio::time::timeout(LIMIT, open)
                .await
                .map_err(|_| "the Secret Service did not answer within 5 s".to_owned())??;
            tokio::time::timeout(LIMIT, work(&keyring))
                .await
                .map_err(|_| "the Secret Service did not answer within 5 s".to_owned())?
        })
    })
    .join()
    .unwrap_or_else(|_| Err("the Secret Service thread failed".into()))
}

/// Whether a Secret Service answers on the session bus (locked or not: nothing is asked).
pub fn available() -> Result<(), String> {
    match with_keyring(false, async |_| Ok(())) {
        Err(e) if e == "the keyring is locked" => Ok(()),
        other => other,
    }
}

/// Every credential of Sonde's; a locked keyring is unlocked only when `unlock`.
pub fn list(unlock: bool) -> Result<Vec<Credential>, String> {
    with_keyring(unlock, async |keyring| {
        let items = keyring.search_items(&[APPLICATION, KIND]).await.map_err(|e| e.to_string())?;
        let mut all = Vec::new();
        for item in items {
            let secret = item.secret().await.map_err(|e| e.to_string())?;
            // Another program's item with our attributes is not ours to read.
            if let Ok(credential) = serde_json::from_slice::<Credential>(secret.as_bytes()) {
                all.push(credential);
            }
        }
        Ok(all)
    })
}

pub fn save(credential: Credential) -> Result<(), String> {
    with_keyring(true, async move |keyring| {
        let label = format!("Sonde: {}", credential.resource);
        let json = serde_json::to_vec(&credential).expect("serializes");
        let attributes = [
            APPLICATION,
            KIND,
            ("issuer", credential.issuer.as_str()),
            ("resource", credential.resource.as_str()),
        ];
        keyring.create_item(&label, &attributes, json, true).await.map_err(|e| e.to_string())
    })
}

/// Deletes the credentials of `resource` (or all of Sonde's); returns those deleted.
pub fn remove(resource: Option<String>) -> Result<Vec<Credential>, String> {
    with_keyring(true, async move |keyring| {
        let items = keyring.search_items(&[APPLICATION, KIND]).await.map_err(|e| e.to_string())?;
        let mut removed = Vec::new();
        for item in items {
            let secret = item.secret().await.map_err(|e| e.to_string())?;
            let Ok(credential) = serde_json::from_slice::<Credential>(secret.as_bytes()) else { continue };
            if resource.as_deref().is_none_or(|r| r == credential.resource) {
                item.delete().await.map_err(|e| e.to_string())?;
                removed.push(credential);
            }
        }
        Ok(removed)
    })
}
