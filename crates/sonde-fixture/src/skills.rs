//! `--skills`: the Skills extension (`io.modelcontextprotocol/skills`) with `directoryRead`, four
//! skills listed one per page: `refunds` under a prefixed path (`skill://acme/billing/`) with a
//! directory of scripts, served as listed; `pdf`, one of whose files is served tampered (other
//! bytes, the same size); `sizes`, one of whose files is served a byte longer than listed; and
//! `notes`, whose SKILL.md's frontmatter says another description than its entry. With
//! `--skills-no-cache`, 2026-07-28 results leave out `ttlMs` and `cacheScope`.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// A file of a skill: its path in the skill, the bytes its entry describes, and the bytes served.
struct File {
    path: &'static str,
    listed: &'static str,
    served: &'static str,
}

struct Skill {
    /// The skill's path: a prefix, then its name.
    path: &'static str,
    name: &'static str,
    description: &'static str,
    files: &'static [File],
}

const REFUNDS_MD: &str = "---\nname: refunds\ndescription: Refund a charge to a customer.\nmetadata:\n  owner: billing\n---\n# Refunds\n\nRun `scripts/refund.sh` with the charge id.\n";
const PDF_MD: &str =
    "---\nname: pdf\ndescription: Fill and read PDF forms.\n---\n# PDF\n\nSee [the reference](reference.md) for the flags.\n";
const SIZES_MD: &str = "---\nname: sizes\ndescription: A skill whose data file grew.\n---\n# Sizes\n";
const NOTES_MD: &str = "---\nname: notes\ndescription: What SKILL.md says.\n---\n# Notes\n";

const SKILLS: &[Skill] = &[
    Skill {
        path: "acme/billing/refunds",
        name: "refunds",
        description: "Refund a charge to a customer.",
        files: &[
            File { path: "SKILL.md", listed: REFUNDS_MD, served: REFUNDS_MD },
            File {
                path: "scripts/refund.sh",
                listed: "#!/bin/sh\necho refund \"$1\"\n",
                served: "#!/bin/sh\necho refund \"$1\"\n",
            },
            File {
                path: "scripts/README.txt",
                listed: "Scripts of the refunds skill.\n",
                served: "Scripts of the refunds skill.\n",
            },
        ],
    },
    Skill {
        path: "pdf",
        name: "pdf",
        description: "Fill and read PDF forms.",
        files: &[
            File { path: "SKILL.md", listed: PDF_MD, served: PDF_MD },
            File {
                path: "reference.md",
                listed: "Use pdftk to fill forms.\n",
                served: "Use pdftk to FILL forms.\n",
            },
        ],
    },
    Skill {
        path: "sizes",
        name: "sizes",
        description: "A skill whose data file grew.",
        files: &[
            File { path: "SKILL.md", listed: SIZES_MD, served: SIZES_MD },
            File { path: "data.txt", listed: "1,2,3\n", served: "1,2,3,4\n" },
        ],
    },
    Skill {
        path: "notes",
        name: "notes",
        description: "What the entry says.",
        files: &[File { path: "SKILL.md", listed: NOTES_MD, served: NOTES_MD }],
    },
];

/// The capabilities a skills server declares: `resources`, and the extension with its setting.
pub fn capabilities(mut caps: Value) -> Value {
    caps["resources"] = json!({});
    caps["extensions"] = json!({ EXTENSION: { "directoryRead": true } });
    caps
}

fn digest(bytes: &str) -> String {
    let hex: String = Sha256::digest(bytes.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn entry(skill: &Skill) -> Value {
    let uri = |path: &str| format!("skill://{}/{path}", skill.path);
    let mut frontmatter = json!({"name": skill.name, "description": skill.description});
    if skill.name == "refunds" {
        frontmatter["metadata"] = json!({"owner": "billing"});
    }
    let resources: Vec<Value> = skill
        .files
        .iter()
        .map(|f| json!({"uri": uri(f.path), "digest": digest(f.listed), "size": f.listed.len()}))
        .collect();
    json!({"uri": uri("SKILL.md"), "frontmatter": frontmatter, "resources": resources})
}

/// Whether the fixture answers `method` as a skills server.
pub fn answers(method: &str) -> bool {
    matches!(
        method,
        "skills/list"
            | "skills/get"
            | "resources/read"
            | "resources/directory/read"
            | "resources/list"
            | "resources/templates/list"
    )
}

/// The result of a skills method, or its error.
pub fn answer(method: &str, params: &Value, modern: bool, no_cache: bool) -> Result<Value, Value> {
    // 2026-07-28 results say how long they may be kept; `--skills-no-cache` leaves it out of
    // the skills methods' alone.
    let kept = |mut result: Value, skills: bool| {
        if modern && !(skills && no_cache) {
            result["ttlMs"] = json!(60_000);
            result["cacheScope"] = json!("public");
        }
        result
    };
    let cache = |result: Value| kept(result, true);
    let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default();
    match method {
        "skills/list" => {
            // One skill a page: the cursor is the next skill's index.
            let at: usize =
                params.get("cursor").and_then(Value::as_str).and_then(|c| c.parse().ok()).unwrap_or(0);
            let mut result = json!({"skills": SKILLS.get(at).map(|s| vec![entry(s)]).unwrap_or_default()});
            if at + 1 < SKILLS.len() {
                result["nextCursor"] = json!((at + 1).to_string());
            }
            Ok(cache(result))
        }
        "skills/get" => match SKILLS.iter().find(|s| format!("skill://{}/SKILL.md", s.path) == uri) {
            Some(skill) => Ok(cache(json!({"skill": entry(skill)}))),
            None => Err(invalid(format!("No skill is served at {uri}"))),
        },
        "resources/read" => {
            let file = SKILLS
                .iter()
                .flat_map(|s| s.files.iter().map(move |f| (s, f)))
                .find(|(s, f)| format!("skill://{}/{}", s.path, f.path) == uri);
            match file {
                Some((_, f)) => {
                    let mime = if f.path.ends_with(".md") { "text/markdown" } else { "text/plain" };
                    Ok(kept(json!({"contents": [{"uri": uri, "mimeType": mime, "text": f.served}]}), false))
                }
                None => Err(invalid(format!("Resource not found: {uri}"))),
            }
        }
        "resources/directory/read" => {
            directory(uri).map(|d| kept(d, false)).ok_or_else(|| invalid(format!("Not a directory: {uri}")))
        }
        "resources/templates/list" => Ok(kept(json!({"resourceTemplates": []}), false)),
        // The skill files are not in the resources list (the spec allows either).
        _ => Ok(kept(json!({"resources": []}), false)),
    }
}

/// The direct children of a skill directory: files, and subdirectories as `inode/directory`.
fn directory(uri: &str) -> Option<Value> {
    let dir = uri.strip_prefix("skill://")?.trim_end_matches('/');
    let skill = SKILLS.iter().find(|s| dir == s.path || dir.starts_with(&format!("{}/", s.path)))?;
    let within = dir.strip_prefix(skill.path)?.trim_start_matches('/');
    let mut children: Vec<Value> = Vec::new();
    for f in skill.files {
        let rest = if within.is_empty() { Some(f.path) } else { f.path.strip_prefix(&format!("{within}/")) };
        let Some(rest) = rest else { continue };
        let child = match rest.split_once('/') {
            Some((sub, _)) => {
                json!({"uri": format!("{uri}/{sub}"), "name": sub, "mimeType": "inode/directory"})
            }
            None => json!({"uri": format!("skill://{}/{}", skill.path, f.path), "name": rest}),
        };
        if !children.contains(&child) {
            children.push(child);
        }
    }
    (!children.is_empty() || within.is_empty()).then(|| json!({"resources": children}))
}

/// What a server with broken skills answers, where it differs from the sound one: `list-error`
/// answers `skills/list` with an internal error; `bad-input` lists `yaml` (its frontmatter, in
/// SKILL.md and the entry, is not YAML) and `crowded` (513 files listed, past the limit), then
/// gives the same cursor back on every page after.
pub fn broken(kind: &str, method: &str, params: &Value) -> Option<Result<Value, Value>> {
    const YAML_MD: &str = "---\nname: yaml\ndescription: [unclosed\n---\n# Yaml\n";
    const CROWDED_MD: &str = "---\nname: crowded\ndescription: Too many files.\n---\n# Crowded\n";
    let listed = |name: &str, description: &str, text: &str, more: usize| {
        let uri = format!("skill://{name}/SKILL.md");
        let mut resources = vec![json!({"uri": uri, "digest": digest(text), "size": text.len()})];
        resources.extend(
            (0..more).map(
                |i| json!({"uri": format!("skill://{name}/f{i}.txt"), "digest": digest("x"), "size": 1}),
            ),
        );
        json!({"uri": uri, "frontmatter": {"name": name, "description": description}, "resources": resources})
    };
    let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default();
    match (kind, method) {
        ("list-error", "skills/list") => {
            Some(Err(json!({"code": -32603, "message": "the skills index is corrupt"})))
        }
        ("bad-input", "skills/list") => Some(Ok(match params.get("cursor") {
            None => {
                json!({"skills": [listed("yaml", "[unclosed", YAML_MD, 0), listed("crowded", "Too many files.", CROWDED_MD, 512)], "nextCursor": "again"})
            }
            Some(_) => json!({"skills": [], "nextCursor": "again"}),
        })),
        ("bad-input", "skills/get") if uri == "skill://yaml/SKILL.md" => {
            Some(Ok(json!({"skill": listed("yaml", "[unclosed", YAML_MD, 0)})))
        }
        ("bad-input", "skills/get") if uri == "skill://crowded/SKILL.md" => {
            Some(Ok(json!({"skill": listed("crowded", "Too many files.", CROWDED_MD, 512)})))
        }
        ("bad-input", "resources/read") if uri == "skill://yaml/SKILL.md" => {
            Some(Ok(json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": YAML_MD}]})))
        }
        _ => None,
    }
}

fn invalid(message: String) -> Value {
    json!({"code": -32602, "message": message})
}
