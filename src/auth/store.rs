//! Credentials kept between runs, keyed by authorization-server issuer and resource. They live
//! in the Secret Service when one answers on the session bus (`keychain`), else in
//! `credentials.json` in Sonde's config directory, readable by the user only (0600 in a 0700
//! directory; both are tightened when found looser).
//!
//! Owns: where the records are kept, keeping them there, and [`StoreError`], the code a front
//! end shows when that fails. Refuses: the record itself and its form (`credential`), talking
//! to the Secret Service (`keychain`), and the flow (which decides when a record is used or
//! replaced).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::credential::Credential;
use super::keychain::KeychainError;
use crate::error_code::ErrorCode;
use crate::sync::Lock;

/// Why credentials could not be read, kept or forgotten: the Secret Service's refusal, or the
/// file's.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Keychain(#[from] KeychainError),
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl StoreError {
    /// The stable code a front end shows with the message: either way, the place credentials
    /// are kept could not be read or written.
    pub fn code(&self) -> ErrorCode {
        match self {
            StoreError::Keychain(_) | StoreError::Io(_) => ErrorCode::Io,
        }
    }
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    credentials: Vec<Credential>,
}

/// Where credentials are kept.
#[derive(Debug, Clone, PartialEq)]
enum Place {
    Keychain,
    File(PathBuf),
    /// For this process only.
    Memory,
}

/// The credentials of a user (the Secret Service, or a private file), or of one process.
#[derive(Debug)]
pub struct CredentialStore {
    place: Place,
    memory: Mutex<Vec<Credential>>,
}

impl CredentialStore {
    pub fn at(path: impl Into<PathBuf>) -> CredentialStore {
        CredentialStore { place: Place::File(path.into()), memory: Mutex::default() }
    }

    /// The Secret Service when one answers, else `credentials.json` in Sonde's config directory.
    pub fn default_location() -> io::Result<CredentialStore> {
        if super::keychain::available().is_ok() {
            return Ok(CredentialStore { place: Place::Keychain, memory: Mutex::default() });
        }
        Ok(CredentialStore::at(crate::files::config_dir()?.join("credentials.json")))
    }

    /// Credentials that last as long as the process (the conformance client's).
    pub fn in_memory() -> CredentialStore {
        CredentialStore { place: Place::Memory, memory: Mutex::default() }
    }

    /// The file, when credentials are kept in one.
    pub fn path(&self) -> Option<&Path> {
        match &self.place {
            Place::File(path) => Some(path),
            _ => None,
        }
    }

    /// Where they are kept, in words.
    pub fn describe(&self) -> String {
        match &self.place {
            Place::Keychain => "the Secret Service (the desktop's keyring)".into(),
            Place::File(path) => path.display().to_string(),
            Place::Memory => "this run only".into(),
        }
    }

    pub fn list(&self) -> Result<Vec<Credential>, StoreError> {
        match &self.place {
            Place::Memory => Ok(self.memory.locked().clone()),
            Place::File(path) => Ok(read(path)?),
            Place::Keychain => Ok(super::keychain::list(true)?),
        }
    }

    /// The newest credential for `resource`. A locked keyring is not unlocked for it: finding
    /// happens on every connect, and asking for the keyring's password then is not wanted.
    pub fn find(&self, resource: &str) -> Result<Option<Credential>, StoreError> {
        let all = match &self.place {
            Place::Keychain => super::keychain::list(false)?,
            _ => self.list()?,
        };
        Ok(all.into_iter().rev().find(|c| c.resource == resource))
    }

    /// Keeps `credential`, replacing the one of the same issuer and resource.
    pub fn save(&self, credential: Credential) -> Result<(), StoreError> {
        if self.place == Place::Keychain {
            return Ok(super::keychain::save(credential)?);
        }
        Ok(self.change(|all| {
            all.retain(|c| !(c.issuer == credential.issuer && c.resource == credential.resource));
            all.push(credential);
        })?)
    }

    /// Forgets the credentials of `resource`, or all of them; returns those forgotten.
    pub fn remove(&self, resource: Option<&str>) -> Result<Vec<Credential>, StoreError> {
        if self.place == Place::Keychain {
            return Ok(super::keychain::remove(resource.map(str::to_owned))?);
        }
        let mut removed = Vec::new();
        self.change(|all| {
            let (gone, kept) =
                std::mem::take(all).into_iter().partition(|c| resource.is_none_or(|r| c.resource == r));
            removed = gone;
            *all = kept;
        })?;
        Ok(removed)
    }

    fn change(&self, edit: impl FnOnce(&mut Vec<Credential>)) -> io::Result<()> {
        let Place::File(path) = &self.place else {
            edit(&mut self.memory.locked());
            return Ok(());
        };
        // One writer at a time within the process; the rename keeps readers whole.
        let _guard = self.memory.locked();
        let mut all = read(path)?;
        edit(&mut all);
        crate::files::write_json(path, &File { credentials: all })
    }
}

fn read(path: &Path) -> io::Result<Vec<Credential>> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<File>(&bytes).map(|f| f.credentials).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not Sonde's credentials file: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn credential(issuer: &str, resource: &str, token: &str) -> Credential {
        Credential {
            issuer: issuer.into(),
            resource: resource.into(),
            token_endpoint: format!("{issuer}/token"),
            client_id: "c".into(),
            client_secret: Some("s3cret".into()),
            auth_method: "client_secret_basic".into(),
            access_token: token.into(),
            refresh_token: Some("r".into()),
            expires_at: Some(10),
            scope: None,
        }
    }

    #[test]
    fn credentials_are_private_keyed_by_issuer_and_resource_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sonde/credentials.json");
        let store = CredentialStore::at(&path);
        store.save(credential("https://as", "http://s/mcp", "t1")).unwrap();
        store.save(credential("https://as", "http://s/mcp", "t2")).unwrap();
        store.save(credential("https://as", "http://other/mcp", "t3")).unwrap();
        assert_eq!(store.list().unwrap().len(), 2, "the same issuer and resource is replaced");
        assert_eq!(store.find("http://s/mcp").unwrap().unwrap().access_token, "t2");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert!(!format!("{:?}", store.list().unwrap()).contains("s3cret"));
        let gone = store.remove(Some("http://s/mcp")).unwrap();
        assert_eq!(gone.len(), 1);
        assert!(store.find("http://s/mcp").unwrap().is_none());
        assert_eq!(store.remove(None).unwrap().len(), 1);
        assert!(store.list().unwrap().is_empty());
        assert!(credential("a", "b", "c").expired(10) && !credential("a", "b", "c").expired(9));
    }
}
