//! The settings both front ends read: `settings.json` in the config directory
//! (`$XDG_CONFIG_HOME/sonde` on Linux).
//!
//! Owns: the file (written whole, keys this version does not know kept as they were, so an
//! older Sonde never drops what a newer one wrote), the sessions budget with its defaults,
//! turning the budget into numbers for a sessions folder, the window's theme and its layout (where
//! the person left its splitter and panels), and the collector the window sends spans to.
//! Refuses: pruning (`log::budget` does, given a [`Budget`]) and presenting the settings.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::log::{Budget, KEEP_SESSIONS, MAX_BYTES};

/// The sessions budget as the settings file holds it: a value left out takes its default.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionsSettings {
    /// How many sessions are kept; default [`KEEP_SESSIONS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<u64>,
    /// How many bytes the sessions take at most; default the smaller of [`MAX_BYTES`] and a
    /// tenth of the disk's free space when Sonde starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// Keys this version does not know, kept.
    #[cfg_attr(feature = "bindings", specta(skip))]
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The window's colours: the system's preference (GTK's, in the desktop), or one of the two.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    System,
    #[default]
    Dark,
    Light,
}

/// Where the window's panes are, as the person left them; a value left out takes its default.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Layout {
    /// The share of the main area's height the server's panels take, above the log (kept between
    /// [`Layout::SPLIT_MIN`] and [`Layout::SPLIT_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<f64>,
    /// Whether the server-question panel is folded to its one-line header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_folded: Option<bool>,
    /// The timeline's height in pixels, as the person last dragged it (kept between
    /// [`Layout::TIMELINE_MIN`] and [`Layout::TIMELINE_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline_height: Option<f64>,
    /// The width of the log's entry detail (the bytes pane) in pixels, as the person last
    /// dragged it (kept between [`Layout::DETAIL_MIN`] and [`Layout::DETAIL_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_width: Option<f64>,
    /// Keys this version does not know, kept.
    #[cfg_attr(feature = "bindings", specta(skip))]
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Layout {
    /// The smallest and largest share of the height the panels may take: either pane keeps room
    /// for a few rows.
    pub const SPLIT_MIN: f64 = 0.15;
    pub const SPLIT_MAX: f64 = 0.85;
    /// The smallest and largest height the timeline may be given, in pixels.
    pub const TIMELINE_MIN: f64 = 80.0;
    pub const TIMELINE_MAX: f64 = 2000.0;
    /// The narrowest and widest the entry detail may be made, in pixels.
    pub const DETAIL_MIN: f64 = 240.0;
    pub const DETAIL_MAX: f64 = 3000.0;
}

/// The whole settings file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    #[serde(default)]
    pub sessions: SessionsSettings,
    /// The window's theme; dark when the file does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    #[serde(default)]
    pub layout: Layout,
    /// The OpenTelemetry collector the window sends spans to (its base URL, as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` takes it); the environment's when not set.
    #[serde(default, rename = "otelEndpoint", skip_serializing_if = "Option::is_none")]
    pub otel_endpoint: Option<String>,
    /// Keys this version does not know (or that another part of Sonde owns), kept.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Why the settings file could not be read or written, or a value could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A value the person gave that cannot be used; the words say why.
    #[error("{0}")]
    Value(String),
    #[error("{path} is not a settings file: {error}")]
    Invalid { path: String, error: serde_json::Error },
    #[error("{path}: {error}")]
    Io { path: String, error: io::Error },
}

impl SettingsError {
    /// The stable code a front end shows with the message.
    pub fn code(&self) -> crate::ErrorCode {
        match self {
            SettingsError::Value(_) => crate::ErrorCode::BadInput,
            SettingsError::Invalid { .. } | SettingsError::Io { .. } => crate::ErrorCode::Io,
        }
    }
}

/// The settings file at a path.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    path: PathBuf,
}

impl SettingsFile {
    pub fn at(path: impl Into<PathBuf>) -> SettingsFile {
        SettingsFile { path: path.into() }
    }

    pub fn default_location() -> io::Result<SettingsFile> {
        Ok(SettingsFile::at(crate::files::config_dir()?.join("settings.json")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The settings; all defaults when there is no file yet.
    pub fn load(&self) -> Result<Settings, SettingsError> {
        let path = || self.path.display().to_string();
        match std::fs::read(&self.path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|error| SettingsError::Invalid { path: path(), error })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(error) => Err(SettingsError::Io { path: path(), error }),
        }
    }

    /// Replaces the sessions budget, keeping every other key of the file as it is. A budget
    /// that would keep no session, or less than a mebibyte of them, is refused.
    pub fn set_sessions(&self, sessions: SessionsSettings) -> Result<Settings, SettingsError> {
        if sessions.keep == Some(0) {
            return Err(SettingsError::Value("the sessions folder keeps at least one session".into()));
        }
        if sessions.max_bytes.is_some_and(|max| max < 1 << 20) {
            return Err(SettingsError::Value("the sessions folder may hold no less than 1 MiB".into()));
        }
        let mut settings = self.load()?;
        // What the caller did not know of the section is kept too.
        let mut other = std::mem::take(&mut settings.sessions.other);
        other.extend(sessions.other);
        settings.sessions = SessionsSettings { other, ..sessions };
        self.save(&settings)?;
        Ok(settings)
    }
}

impl SettingsFile {
    /// Writes `settings` whole.
    fn save(&self, settings: &Settings) -> Result<(), SettingsError> {
        crate::files::write_json(&self.path, settings)
            .map_err(|error| SettingsError::Io { path: self.path.display().to_string(), error })
    }

    /// Sets (or, with `None`, clears) the collector the window sends spans to, keeping every
    /// other key of the file as it is.
    pub fn set_otel_endpoint(&self, endpoint: Option<String>) -> Result<Settings, SettingsError> {
        let mut settings = self.load()?;
        settings.otel_endpoint = endpoint;
        self.save(&settings)?;
        Ok(settings)
    }

    /// Sets the window's theme, keeping every other key of the file as it is.
    pub fn set_theme(&self, theme: Theme) -> Result<Settings, SettingsError> {
        let mut settings = self.load()?;
        settings.theme = Some(theme);
        self.save(&settings)?;
        Ok(settings)
    }
}

impl SettingsFile {
    /// Changes the window's layout: each value given replaces the saved one, a value left out
    /// keeps it (the window saves the splitter and the question panel apart), and every other key
    /// of the file is kept. A split out of bounds is brought within them.
    pub fn set_layout(&self, change: Layout) -> Result<Settings, SettingsError> {
        if change.split.is_some_and(|s| !s.is_finite()) {
            return Err(SettingsError::Value("the split is a share of the height, between 0 and 1".into()));
        }
        if [change.timeline_height, change.detail_width].iter().flatten().any(|px| !px.is_finite()) {
            return Err(SettingsError::Value("a pane's size is a number of pixels".into()));
        }
        let mut settings = self.load()?;
        let layout = &mut settings.layout;
        if let Some(split) = change.split {
            layout.split = Some(split.clamp(Layout::SPLIT_MIN, Layout::SPLIT_MAX));
        }
        if let Some(folded) = change.question_folded {
            layout.question_folded = Some(folded);
        }
        if let Some(height) = change.timeline_height {
            layout.timeline_height = Some(height.clamp(Layout::TIMELINE_MIN, Layout::TIMELINE_MAX));
        }
        if let Some(width) = change.detail_width {
            layout.detail_width = Some(width.clamp(Layout::DETAIL_MIN, Layout::DETAIL_MAX));
        }
        layout.other.extend(change.other);
        self.save(&settings)?;
        Ok(settings)
    }
}

impl SessionsSettings {
    /// The budget for a sessions folder on a disk with `free` bytes free now.
    pub fn budget(&self, free: u64) -> Budget {
        Budget {
            keep: self.keep.unwrap_or(KEEP_SESSIONS),
            max_bytes: self.max_bytes.unwrap_or(MAX_BYTES.min(free / 10)),
        }
    }
}

/// The free space of the disk that holds `dir` (or its nearest existing parent), in bytes;
/// `u64::MAX` when it cannot be told, so the default budget falls back to [`MAX_BYTES`].
pub fn free_space(dir: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let existing = dir.ancestors().find(|d| d.exists()).unwrap_or(dir);
    let Ok(path) = std::ffi::CString::new(existing.as_os_str().as_bytes()) else { return u64::MAX };
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string and `stat` a valid place for the answer.
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return u64::MAX;
    }
    (stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64)
}

/// The sessions budget for `dir` from the settings file at its default place; the defaults when
/// the file cannot be read (a broken settings file never stops a session from being recorded).
pub fn sessions_budget(dir: &Path) -> Budget {
    let settings = SettingsFile::default_location().ok().and_then(|f| f.load().ok()).unwrap_or_default();
    settings.sessions.budget(free_space(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> SettingsFile {
        let dir = std::env::temp_dir().join(format!("sonde-settings-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        SettingsFile::at(dir.join("settings.json"))
    }

    #[test]
    fn no_file_is_every_default() {
        let settings = file("none").load().unwrap();
        assert_eq!(settings.sessions.budget(100 << 30), Budget { keep: 500, max_bytes: 2 << 30 });
        // A tenth of the free space when that is less than 2 GiB.
        assert_eq!(settings.sessions.budget(5 << 30).max_bytes, (5 << 30) / 10);
    }

    #[test]
    fn a_change_keeps_the_keys_it_does_not_know() {
        let settings = file("keep");
        std::fs::create_dir_all(settings.path().parent().unwrap()).unwrap();
        std::fs::write(
            settings.path(),
            r#"{"theme":"light","sessions":{"keep":9,"pins":"future"},"panes":[1,2]}"#,
        )
        .unwrap();
        let changed = settings
            .set_sessions(SessionsSettings { max_bytes: Some(5 << 20), ..Default::default() })
            .unwrap();
        assert_eq!(changed.sessions.budget(0), Budget { keep: 500, max_bytes: 5 << 20 });
        let back: Value = serde_json::from_slice(&std::fs::read(settings.path()).unwrap()).unwrap();
        assert_eq!(back["theme"], "light");
        assert_eq!(back["panes"], serde_json::json!([1, 2]));
        assert_eq!(back["sessions"]["pins"], "future");
        assert_eq!(back["sessions"]["maxBytes"], 5 << 20);
        assert!(back["sessions"].get("keep").is_none(), "{back}");
    }

    #[test]
    fn the_theme_is_dark_until_chosen_and_kept_beside_the_rest() {
        let settings = file("theme");
        assert_eq!(settings.load().unwrap().theme.unwrap_or_default(), Theme::Dark);
        settings.set_sessions(SessionsSettings { keep: Some(7), ..Default::default() }).unwrap();
        settings.set_theme(Theme::Light).unwrap();
        let back: Value = serde_json::from_slice(&std::fs::read(settings.path()).unwrap()).unwrap();
        assert_eq!(back["theme"], "light");
        assert_eq!(back["sessions"]["keep"], 7);
        assert_eq!(settings.load().unwrap().theme, Some(Theme::Light));
    }

    #[test]
    fn the_layout_is_kept_within_bounds_beside_the_rest() {
        let settings = file("layout");
        settings.set_theme(Theme::Light).unwrap();
        let dragged = Layout { split: Some(0.99), question_folded: Some(true), ..Default::default() };
        let saved = settings.set_layout(dragged).unwrap();
        assert_eq!(saved.layout.split, Some(Layout::SPLIT_MAX));
        assert_eq!(settings.load().unwrap().layout.question_folded, Some(true));
        assert_eq!(settings.load().unwrap().theme, Some(Theme::Light));
        let back: Value = serde_json::from_slice(&std::fs::read(settings.path()).unwrap()).unwrap();
        assert_eq!(back["layout"], serde_json::json!({"split": 0.85, "questionFolded": true}));
        assert!(settings.set_layout(Layout { split: Some(f64::NAN), ..Default::default() }).is_err());
        // A change names what changed; the rest is kept.
        let dragged = settings.set_layout(Layout { split: Some(0.0), ..Default::default() }).unwrap();
        assert_eq!((dragged.layout.split, dragged.layout.question_folded), (Some(0.15), Some(true)));
        let tall = settings.set_layout(Layout { timeline_height: Some(5.0), ..Default::default() }).unwrap();
        assert_eq!(
            (tall.layout.timeline_height, tall.layout.split),
            (Some(Layout::TIMELINE_MIN), Some(0.15))
        );
        assert!(settings
            .set_layout(Layout { timeline_height: Some(f64::INFINITY), ..Default::default() })
            .is_err());
        let wide = settings.set_layout(Layout { detail_width: Some(640.0), ..Default::default() }).unwrap();
        assert_eq!(
            (wide.layout.detail_width, wide.layout.timeline_height),
            (Some(640.0), Some(Layout::TIMELINE_MIN))
        );
    }

    #[test]
    fn a_budget_that_keeps_nothing_is_refused() {
        let settings = file("refused");
        let zero = SessionsSettings { keep: Some(0), ..Default::default() };
        assert_eq!(settings.set_sessions(zero).unwrap_err().code(), crate::ErrorCode::BadInput);
        let tiny = SessionsSettings { max_bytes: Some(1000), ..Default::default() };
        assert!(settings.set_sessions(tiny).unwrap_err().to_string().contains("no less than 1 MiB"));
        assert!(!settings.path().exists(), "a refused budget was written");
    }

    #[test]
    fn a_broken_file_is_said_with_its_path() {
        let settings = file("broken");
        std::fs::create_dir_all(settings.path().parent().unwrap()).unwrap();
        std::fs::write(settings.path(), "{not json").unwrap();
        let error = settings.load().unwrap_err().to_string();
        assert!(error.contains("settings.json is not a settings file"), "{error}");
    }
}
