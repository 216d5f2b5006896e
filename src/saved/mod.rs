//! The saved configuration: what Sonde keeps between runs about the servers a person uses.
//!
//! Owns: the saved servers (`servers.json`) and importing other clients' configs, the launches
//! each saved server was approved to run (`launches.json`), and the era remembered per server
//! (`era-cache.json`), and the settings both front ends read (`settings.json`: the sessions
//! budget), each in the config directory and written atomically.
//! Refuses: running anything (the hub starts servers from a [`crate::ServerConfig`]), and the
//! session log, which is the record of what happened rather than configuration.

pub mod era_cache;
pub mod launches;
pub mod on_change;
pub mod servers;
pub mod settings;
