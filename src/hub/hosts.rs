//! The hosts beside a connection: its tools judged against every host's limits, with the tools
//! of the other ready connections beside it (two servers a host would give one tool name).
//!
//! Owns: listing the tools of each ready connection for it. Refuses: the verdicts (`hosts`).

use serde_json::Value;

use super::{Hub, HubError};
use crate::hosts::{table, HostView, Served};
use crate::hub::states::ConnState;
use crate::session::listing::ListKind;

impl Hub {
    /// Every host beside connection `id`: its tools (listed now, every page), what it declares,
    /// and the tools of every other ready connection that is not a job.
    pub async fn hosts_table(&self, id: u64) -> Result<Vec<HostView>, HubError> {
        let session = self.session(id)?;
        let tools = session.list_all(ListKind::Tools).await?.items;
        let name = self.states.config(id).map_or_else(|| format!("server {id}"), |c| c.host_name());
        let mut others: Vec<(String, Vec<Value>)> = Vec::new();
        for event in self.states.snapshot() {
            let ready = matches!(event.state, ConnState::Ready { .. });
            if event.conn == id || event.job || !ready {
                continue;
            }
            let (Ok(other), Some(config)) = (self.session(event.conn), self.states.config(event.conn)) else {
                continue;
            };
            // A server that cannot list its tools now shadows nothing this table can show.
            if let Ok(listed) = other.list_all(ListKind::Tools).await {
                others.push((config.host_name(), listed.items));
            }
        }
        let others: Vec<Served<'_>> = others.iter().map(|(server, tools)| Served { server, tools }).collect();
        let this = Served { server: &name, tools: &tools };
        Ok(table(&this, &session.server.capabilities, &others))
    }
}
