//! The CI page's jobs (docs/ci.md), run as far as this machine can: every `run:` step of the
//! GitHub Actions job and every `script:` line of the GitLab job, as the page has them, in a
//! project of their own with the committed snapshot and suite, `sonde` installed from the
//! tarball `scripts/dist.sh` makes (the page's `SONDE_DIST`, here a `file://` URL) and the
//! fixture as `SERVER`. Only the server's own build is not run; each file a `uses:` action or
//! GitLab's `artifacts` uploads must be there, the SARIF passing Microsoft's Multitool and the
//! JUnit reports holding their cases. A server whose interface lost a tool fails the job at
//! its Interface step, exit 5, as the page's table says.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::*;

/// The page's YAML blocks, parsed: the GitHub job (the one with `jobs:`) and the GitLab one.
fn jobs() -> (Value, Value) {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/ci.md")).unwrap();
    let blocks: Vec<Value> = page
        .split("```yaml\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .map(|yaml| {
            serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("a YAML block of ci.md: {e}\n{yaml}"))
        })
        .collect();
    let github = blocks.iter().find(|b| b.get("jobs").is_some()).expect("the GitHub Actions job").clone();
    let gitlab = blocks.iter().find(|b| b.get("sonde").is_some()).expect("the GitLab job").clone();
    (github, gitlab)
}

/// A runner's home and a checked-out project holding the committed snapshot (of `server`) and
/// suite, with `sonde` on no PATH.
struct Runner {
    home: PathBuf,
    project: PathBuf,
    dist: String,
}

impl Runner {
    fn new(name: &str, server: &[&str]) -> Runner {
        let root = data_home(name);
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(project.join("tests")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/dist.sh");
        let made = Command::new(script).args([SONDE, root.join("dist").to_str().unwrap()]).output().unwrap();
        assert!(made.status.success(), "dist.sh: {made:?}");
        let tarball = String::from_utf8_lossy(&made.stdout).lines().last().unwrap().to_owned();
        let snapshot = project.join("tests/interface.json");
        let mut args = vec!["-q", "snapshot", "--out", snapshot.to_str().unwrap(), "--"];
        args.extend(server);
        let took = sonde(&root, &args);
        assert!(took.status.success(), "{took:?}");
        let suite = "tests:\n  - name: echoes\n    call: echo\n    args: {text: hi}\n    expect:\n      isError: false\n      text: hi\n";
        std::fs::write(project.join("tests/suite.yaml"), suite).unwrap();
        Runner { home, project, dist: format!("file://{tarball}") }
    }

    /// `script` in bash (`-e`, `-o pipefail`, as both CI systems run a step), in the project,
    /// with the job's variables (`SONDE_DIST` and `SERVER` set to this machine's), `path`
    /// before the system's, and the runner's home.
    fn run(&self, script: &str, vars: &Value, server: &str, path: &[String]) -> (i32, String) {
        let mut command = Command::new("bash");
        command.args(["-eo", "pipefail", "-c", script]).current_dir(&self.project).env_clear();
        for (name, value) in vars.as_object().into_iter().flatten() {
            command.env(name, value.as_str().unwrap());
        }
        let mut dirs = path.to_vec();
        dirs.push("/usr/local/bin:/usr/bin:/bin".into());
        command
            .env("SONDE_DIST", &self.dist)
            .env("SERVER", server)
            .env("HOME", &self.home)
            .env("PATH", dirs.join(":"))
            .env("GITHUB_PATH", self.home.join("github_path"));
        let out = command.output().unwrap();
        let said =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code().unwrap_or(-1), said)
    }

    /// What the steps so far added to `$GITHUB_PATH`, newest first (as Actions puts them).
    fn github_path(&self) -> Vec<String> {
        let added = std::fs::read_to_string(self.home.join("github_path")).unwrap_or_default();
        added.lines().rev().map(str::to_owned).collect()
    }

    fn uploaded(&self, file: &str) -> PathBuf {
        let path = self.project.join(file);
        assert!(path.is_file(), "{file} is to be uploaded but was not written");
        path
    }
}

/// Each `run:` step of the GitHub job but the server's build, in order, until one fails:
/// (the step's name, its exit code, what it printed).
fn github_steps(runner: &Runner, job: &Value, server: &str) -> Vec<(String, i32, String)> {
    let vars = &job["env"];
    let mut ran = Vec::new();
    for step in job["steps"].as_array().unwrap() {
        let (Some(name), Some(script)) = (step["name"].as_str(), step["run"].as_str()) else { continue };
        if name == "Build the server" {
            continue;
        }
        let (code, said) = runner.run(script, vars, server, &runner.github_path());
        ran.push((name.to_owned(), code, said));
        if code != 0 {
            break;
        }
    }
    ran
}

#[test]
fn the_github_job_runs_installs_sonde_from_the_tarball_and_uploads_what_it_names() {
    let fixture = fixture_bin();
    let server = [fixture.to_str().unwrap(), "--tools", "2"];
    let runner = Runner::new("ci-github", &server);
    let (github, _) = jobs();
    let job = &github["jobs"]["sonde"];
    let ran = github_steps(&runner, job, &server.join(" "));
    let names: Vec<&str> = ran.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["Install sonde", "Check-up", "Interface", "Tests"]);
    for (name, code, said) in &ran {
        assert_eq!(*code, 0, "{name}: {said}");
    }
    // The sonde that ran is the one the tarball put on the runner's PATH.
    let (_, which) = runner.run("command -v sonde", &job["env"], "", &runner.github_path());
    assert_eq!(which.trim(), runner.home.join(".local/bin/sonde").to_str().unwrap());
    for step in job["steps"].as_array().unwrap() {
        let with = &step["with"];
        if let Some(sarif) = with["sarif_file"].as_str() {
            assert_eq!(multitool_errors(&runner.uploaded(sarif)), Vec::<String>::new());
        }
        for file in with["path"].as_str().unwrap_or_default().lines().filter(|l| !l.trim().is_empty()) {
            runner.uploaded(file.trim());
        }
    }
    let junit = std::fs::read_to_string(runner.uploaded("report.xml")).unwrap();
    assert!(junit.contains("<testcase") && junit.contains("name=\"echoes\""), "{junit}");

    // The same job on a build that lost a tool: the Interface step fails it, exit 5.
    let lost = [fixture.to_str().unwrap(), "--tools", "1"];
    let broken = github_steps(&runner, job, &lost.join(" "));
    let (name, code, said) = broken.last().unwrap();
    assert_eq!((name.as_str(), *code), ("Interface", 5), "{said}");
    assert!(said.contains("filler_2"), "the removed tool is named: {said}");
}

#[test]
fn the_gitlab_job_runs_and_leaves_its_junit_reports() {
    let fixture = fixture_bin();
    let server = [fixture.to_str().unwrap(), "--tools", "2"];
    let runner = Runner::new("ci-gitlab", &server);
    let (_, gitlab) = jobs();
    let job = &gitlab["sonde"];
    let lines: Vec<&str> = job["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .filter(|l| !l.starts_with("cargo build"))
        .collect();
    assert_eq!(lines.len(), 6, "{lines:?}");
    let (code, said) = runner.run(&lines.join("\n"), &job["variables"], &server.join(" "), &[]);
    assert_eq!(code, 0, "{said}");
    for report in job["artifacts"]["reports"]["junit"].as_array().unwrap() {
        let xml = std::fs::read_to_string(runner.uploaded(report.as_str().unwrap())).unwrap();
        assert!(xml.contains("<testsuite") && xml.contains("<testcase"), "{xml}");
    }
    let doctor = std::fs::read_to_string(runner.uploaded("doctor.xml")).unwrap();
    assert!(doctor.contains("name=\"handshake"), "each check a case: {doctor}");
}
