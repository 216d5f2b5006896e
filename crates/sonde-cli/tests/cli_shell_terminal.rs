//! `sonde shell` at a terminal (a pseudo-terminal, its controlling tty), as a person types at it
//! (issue 33, item 7): Tab completes a tool's name and its argument keys, Ctrl-C stops the
//! command running and gives the prompt back with the server still there, lines typed ahead or
//! pasted all run, Ctrl-D leaves, and the lines typed are in the history file.

mod support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{wait_for, SONDE};

/// A pseudo-terminal: the master kept here, the slave given to the shell.
fn open_pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills both descriptors, which are then owned here.
    let opened = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: just opened, owned by nothing else.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// What the terminal has shown so far, read on a thread of its own (answering the editor's
/// cursor-position question as a terminal does).
struct Screen {
    seen: Arc<Mutex<Vec<u8>>>,
    keys: File,
}

impl Screen {
    fn new(master: OwnedFd) -> Screen {
        let mut reader = File::from(master.try_clone().unwrap());
        let mut answer = File::from(master.try_clone().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shown = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = answer.write_all(b"\x1b[1;1R");
                }
                shown.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Screen { seen, keys: File::from(master) }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    /// Waits until `what` has been shown `times` times in all.
    fn until(&self, what: &str, times: usize) {
        let shown =
            wait_for(Duration::from_secs(20), || (self.text().matches(what).count() >= times).then_some(()));
        assert!(shown.is_some(), "waited for {what:?} ×{times}; the terminal shows:\n{}", self.text());
    }

    fn type_keys(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
    }
}

#[test]
fn tab_completes_ctrl_c_stops_a_command_and_ctrl_d_leaves() {
    let home = support::data_home("shell-terminal");
    let (master, slave) = open_pty();
    let tty = slave.as_raw_fd();
    let mut shell = Command::new(SONDE);
    shell
        .args(["shell", "--", SONDE, "demo-server"])
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    // SAFETY: between fork and exec, only async-signal-safe calls: a session of its own whose
    // controlling terminal is the pty, as a terminal emulator starts a shell.
    unsafe {
        shell.pre_exec(move || {
            if libc::setsid() < 0 || libc::ioctl(tty, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = shell.spawn().expect("start sonde shell");
    let mut screen = Screen::new(master);
    screen.until("sonde> ", 1);

    // Tab: the tool's name, then its argument keys from the schema.
    screen.type_keys("call sl\t");
    screen.until("call slow ", 1);
    screen.type_keys("sec\t");
    screen.until("seconds=", 1);
    screen.type_keys("30\r");
    // Ctrl-C while it runs (its first progress shown, the terminal given back to the
    // command): cancelled, and the prompt is back on the same server.
    screen.until("progress 1/5", 1);
    screen.type_keys("\x03");
    screen.until("interrupted; the command was cancelled", 1);
    screen.until("sonde> ", 2);
    screen.type_keys("tools\r");
    screen.until("Adds two numbers", 1);
    screen.until("sonde> ", 3);
    // A line typed while a command runs is run after it, not dropped.
    screen.type_keys("call slow seconds=2 steps=2\r");
    screen.until("progress 1/2", 1);
    screen.type_keys("tools\r");
    screen.until("done after 2 s in 2 steps", 1);
    screen.until("Adds two numbers", 2);
    // Lines typed faster than they run, or pasted at the prompt, all run, in order.
    screen.until("sonde> ", 5);
    screen.type_keys("info\rprompts\r");
    screen.until("sonde: 2 prompts", 1);
    screen.type_keys("\x1b[200~templates\rresources\r\x1b[201~\r");
    screen.until("sonde: 1 resource template", 1);
    screen.until("sonde: 4 resources", 1);
    // Ctrl-D leaves, and the server is stopped as ever.
    screen.type_keys("\x04");
    let status =
        wait_for(Duration::from_secs(20), || child.try_wait().unwrap()).expect("the shell left on Ctrl-D");
    assert!(status.success(), "{status:?}\n{}", screen.text());
    let history = std::fs::read_to_string(home.join("sonde/shell-history")).unwrap();
    assert!(history.contains("call slow seconds=30") && history.contains("tools"), "{history}");
}
