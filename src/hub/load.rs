//! Load runs on live connections (the window's Load test…): one at a time per connection, each
//! stoppable from outside the call that started it.
//!
//! Owns: the table of running loads by connection, starting one on a live session (refused
//! while another runs on that connection) and stopping it. Refuses: pacing, measuring and the
//! report (the core's `load`), and drawing the run (the window's).

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Hub, HubError};
use crate::load::{run_load, LoadControl, LoadError, LoadPlan, LoadReport, LoadSecond};
use crate::sync::Lock;

/// The loads running now, by connection.
#[derive(Default)]
pub struct Loads(Mutex<HashMap<u64, LoadControl>>);

/// Takes a connection's entry out of the table when its run ends, however it ends.
struct Running<'h> {
    loads: &'h Loads,
    id: u64,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.loads.0.locked().remove(&self.id);
    }
}

impl Hub {
    /// Runs `plan` on connection `id`, telling `on_second` each second's record; refused while
    /// another load runs there. A tool of the plan the server does not list is refused too.
    pub async fn load(
        &self,
        id: u64,
        plan: &LoadPlan,
        on_second: impl FnMut(&LoadSecond) + Send,
    ) -> Result<LoadReport, HubError> {
        let session = self.session(id)?;
        let control = LoadControl::new();
        {
            let mut running = self.loads.0.locked();
            if running.contains_key(&id) {
                return Err(HubError::Load(format!("a load run is already going on connection {id}")));
            }
            running.insert(id, control.clone());
        }
        let _running = Running { loads: &self.loads, id };
        match run_load(std::slice::from_ref(&session), plan, &control, on_second).await {
            Ok(report) => Ok(report),
            Err(LoadError::NotListed { name, .. }) => {
                Err(HubError::Load(format!("the server does not list {name:?}")))
            }
            Err(LoadError::Request(e)) => Err(e.into()),
        }
    }

    /// Stops the load running on connection `id`: sending ends, what is in flight is waited for,
    /// and its report comes back to the caller of [`Hub::load`]. False when none runs there.
    pub fn stop_load(&self, id: u64) -> bool {
        match self.loads.0.locked().get(&id) {
            Some(control) => {
                control.stop();
                true
            }
            None => false,
        }
    }
}
