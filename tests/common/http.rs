//! HTTP servers for the integration tests: a peer started on a free port, or the HTTP fixture
//! (which says its port), each in its own process group that is killed when dropped.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sonde_core::{HttpTarget, ServerConfig};

pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    /// Starts `program` on a free port and waits (20 s at most) until it accepts connections:
    /// the port goes in `PORT`, and in place of `{port}` in `args`.
    pub fn peer(program: &str, args: &[&str], path: &str) -> HttpServer {
        let port = free_port();
        let args: Vec<String> = args.iter().map(|a| a.replace("{port}", &port.to_string())).collect();
        let child = Command::new(program)
            .args(&args)
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("start {program}: {e}"));
        let server = HttpServer { child, url: format!("http://127.0.0.1:{port}{path}") };
        wait_listening(port);
        server
    }

    /// The HTTP fixture with these knobs; it prints the port it bound.
    pub fn fixture(knobs: &[&str]) -> HttpServer {
        let bin = super::fixture_bin().with_file_name("sonde-fixture-http");
        let mut child = Command::new(&bin)
            .args(knobs)
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", bin.display()));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("the fixture says its port");
        let port = line.trim().strip_prefix("port ").expect("`port N`").to_owned();
        HttpServer { child, url: format!("http://127.0.0.1:{port}/mcp") }
    }

    pub fn config(&self) -> ServerConfig {
        let mut config = ServerConfig::http(HttpTarget::new(&self.url).unwrap());
        config.connect_timeout = Duration::from_secs(15);
        config.options.request_timeout = Duration::from_secs(10);
        config
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listened on port {port} within 20 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}
