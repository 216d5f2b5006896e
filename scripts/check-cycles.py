#!/usr/bin/env python3
"""Fails on a module cycle in Sonde's Rust crates or in its UI (issue 40).

Usage: check-cycles.py [REPO]   (REPO defaults to the repository this script sits in)

Prints one line, "no module cycles (N Rust folders, M UI folders checked)", and exits 0 when
there is none; otherwise lists each cycle as `a → b → a`, with each module's file and, for every
edge inside the cycle's component, the first line that makes it, and exits 1. Python 3's
standard library only, so it runs in `make test` on a fresh machine.

Rust. Each crate of the workspace (the root crate's `src/`, `src-tauri/src/`, `crates/*/src/`)
is read from its roots (`lib.rs`, `main.rs`, `bin/*.rs`) by following `mod` declarations, so a
module is what rustc sees: a file `x.rs`, or a folder `x/` with `x.rs` or `x/mod.rs`. For every
module with submodules (a "folder") the graph has its direct submodules as nodes and an edge
a → b when code anywhere in a, its submodules included, names sibling b. Names are read from:
  - `use` trees (`use crate::{a, b::c}`, `use super::b as c`, `use self::...`, globs);
  - paths in code that start with `crate::`, `super::`, `self::` or `$crate::`, and plain paths
    whose first segment is a submodule, a `use`d name or a glob-imported name of the module;
  - calls of a `macro_rules!` macro, which count as naming the module that defines it.
A path is followed through `use` declarations (re-exports included) to the module that defines
the item, so `crate::hub::ServerConfig`, re-exported by `hub` from `server_config`, names
`server_config`, not `hub`. A segment that takes generics (`crate::f::<T>()`) or ends a path in
code is an item, never a module. Ignored: `#[cfg(test)]` items, `mod tests` (inline or a file),
files under `tests/`, comments and string literals.

UI. `ui/src`'s top-level entries are the nodes: each folder (`components/`, `panels/`, …), and
each top-level file (`App.tsx`, `main.tsx`), since a cycle through `App.tsx` is as real as one
through a folder. A file named like a folder (`panels.tsx` beside `panels/`) belongs to that
folder's node, as `x.rs` belongs with `x/` in Rust. An edge a → b is a relative `import`,
`export … from` or `import("…")` in a file of a that reaches a file of b, except type-only ones
(`import type …`, `export type …`, and `{ type X, type Y }` with every name a type), which
TypeScript erases. Test files (`*.test.*`, `*.spec.*`) and declaration files are not read.

Each strongly connected component of more than one node is reported, with one shortest cycle
through its first node.
"""

import os
import re
import sys
from collections import defaultdict, deque

# ---------------------------------------------------------------------------------------------
# Rust tokens


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind  # "id", "p" (punctuation), "str", "lit"
        self.text = text
        self.line = line

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


_RUST_TOKEN = re.compile(
    r"""
      (?P<ws>\s+)
    | (?P<line_comment>//[^\n]*)
    | (?P<block_comment>/\*)
    | (?P<raw>(?:b|c)?r(?P<hashes>\#*)")
    | (?P<str>(?:b|c)?"(?:\\.|[^"\\])*")
    | (?P<char>b?'(?:\\(?:u\{[0-9A-Fa-f_]*\}|x[0-9A-Fa-f]{2}|.)|[^\\'\n])')
    | (?P<lifetime>'[A-Za-z_]\w*)
    | (?P<dollar_crate>\$crate\b)
    | (?:r\#)?(?P<id>[A-Za-z_]\w*)
    | (?P<num>[0-9]\w*)
    | (?P<p>::|->|=>|!=|==|<=|>=|&&|\|\||\.\.|.)
    """,
    re.X | re.S,
)
_BLOCK_COMMENT_EDGE = re.compile(r"/\*|\*/")
_PATH_IN_STRING = re.compile(r"(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+$")


def rust_tokens(text):
    """The tokens of a Rust file, without comments; `$crate` comes out as `crate`."""
    toks = []
    pos, n, line = 0, len(text), 1
    while pos < n:
        m = _RUST_TOKEN.match(text, pos)
        kind = m.lastgroup
        end = m.end()
        if kind == "block_comment":  # they nest
            depth = 1
            while depth:
                edge = _BLOCK_COMMENT_EDGE.search(text, end)
                if edge is None:
                    end = n
                    break
                depth += 1 if edge.group(0) == "/*" else -1
                end = edge.end()
        elif kind == "raw":
            close = text.find('"' + m.group("hashes"), end)
            close = n if close < 0 else close
            toks.append(Tok("str", text[end:close], line))
            end = min(n, close + 1 + len(m.group("hashes")))
        elif kind == "str":
            toks.append(Tok("str", m.group(0), line))
        elif kind == "id":
            toks.append(Tok("id", m.group("id"), line))
        elif kind == "dollar_crate":
            toks.append(Tok("id", "crate", line))  # `$crate` in a macro: this crate's root
        elif kind == "p":
            toks.append(Tok("p", m.group(0), line))
        elif kind in ("char", "lifetime", "num"):
            toks.append(Tok("lit", m.group(0), line))
        if kind in ("ws", "block_comment", "raw", "str"):
            line += text.count("\n", pos, end)
        pos = end
    return toks


# ---------------------------------------------------------------------------------------------
# Rust modules

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}
_KEYWORDS = {
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
    "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true",
    "type", "unsafe", "use", "where", "while", "union", "macro_rules",
}
# Items whose end is a `;` or their first top-level `{ … }`.
_BLOCK_ITEMS = {"fn", "mod", "struct", "enum", "union", "impl", "trait", "macro_rules", "extern",
                "unsafe", "async"}
# Items whose end is a `;` (a `{ … }` may sit inside them).
_SEMI_ITEMS = {"use", "let", "const", "static", "type"}


class Module:
    """One Rust module: a file, a folder with its file, or an inline `mod x { … }`."""

    def __init__(self, path, file, children_dir, inline):
        self.path = path  # segments from the crate root
        self.file = file  # the file that holds its contents
        self.children_dir = children_dir  # where `mod x;` inside it looks for x.rs / x/mod.rs
        self.inline = inline  # declared by `mod x { … }` inside its parent's file
        self.children = {}  # name → Module
        self.imports = defaultdict(list)  # name → [segments], relative to this module
        self.globs = []  # [segments] of `use …::*`
        # (segments, items, line, file, shown): a name used here, whose last `items` segments
        # name an item (a `use` leaf may be a module: 0; a path in code ends in an item: 1).
        self.refs = []
        self.macros = set()  # macro_rules! names defined here
        self.macro_calls = []  # (name, line, file)


def _match(toks, i):
    """The index of the bracket closing the one at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind != "p":
            continue
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def _is_cfg_test(attr):
    """True for `cfg(test)` and `cfg(all(test, …))`: code that only a test build has."""
    words = [t.text for t in attr]
    if words[:2] != ["cfg", "("]:
        return False
    if words[2:4] == ["test", ")"]:
        return True
    return words[2:5] == ["all", "(", "test"]


def _skip_item(toks, i):
    """The index after the item, field or statement starting at toks[i] (after attributes)."""
    j = i
    if j < len(toks) and toks[j].text == "pub":
        j += 1
        if j < len(toks) and toks[j].text == "(":
            j = _match(toks, j) + 1
    first = toks[j].text if j < len(toks) else ""
    depth = 0
    while j < len(toks):
        t = toks[j]
        if t.kind == "p" and t.text in _OPEN:
            depth += 1
        elif t.kind == "p" and t.text in _CLOSE:
            if depth == 0:
                return j  # the end of what holds it: leave that to the caller
            depth -= 1
            if depth == 0 and t.text == "}" and first in _BLOCK_ITEMS:
                return j + 1
        elif depth == 0 and t.text == ";":
            return j + 1
        elif depth == 0 and t.text == "," and first not in _BLOCK_ITEMS | _SEMI_ITEMS:
            return j + 1
        j += 1
    return j


def _use_tree(toks, i, prefix, out):
    """Reads a use tree at toks[i]; appends (segments, name or None, glob) to out."""
    segs = list(prefix)
    while i < len(toks):
        t = toks[i]
        if t.text == "{":
            end = _match(toks, i)
            j = i + 1
            while j < end:
                j = _use_tree(toks, j, segs, out)
                if j < end and toks[j].text == ",":
                    j += 1
            return end + 1
        if t.text == "*":
            out.append((segs, None, True))
            return i + 1
        if t.kind == "id":
            if t.text == "self" and segs and toks[i - 1].text != "::":
                name = segs[-1]  # `{self}`: the prefix itself
            else:
                segs = segs + [t.text]
                name = t.text
            i += 1
            if i < len(toks) and toks[i].text == "::":
                i += 1
                continue
            if i + 1 < len(toks) and toks[i].text == "as":
                name = toks[i + 1].text
                i += 2
            out.append((segs, None if name == "_" else name, False))
            return i
        if t.text == "::" and not segs:
            # `use ::foo` names an extern crate: nothing in this crate.
            i += 1
            segs = ["::"]
            continue
        return i + 1
    return i


class Crate:
    """The module tree of one crate root (lib.rs, main.rs or a bin)."""

    def __init__(self, repo, root_file):
        self.repo = repo
        self.root_file = root_file
        self.label = os.path.relpath(root_file, repo)
        self.modules = {}  # path tuple → Module
        self._names = {}  # (path tuple, name) → where an imported name leads (see _name)
        self._glob_modules = {}  # path tuple → the modules it glob-imports
        root = Module((), root_file, os.path.dirname(root_file), inline=False)
        self.modules[()] = root
        self._read_file(root, root_file, file_level=True)

    # -- reading

    def _read_file(self, module, path, file_level):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return False
        toks = rust_tokens(text)
        if file_level and self._inner_cfg_test(toks):
            return False
        self._read_tokens(module, toks, 0, len(toks), path)
        return True

    @staticmethod
    def _inner_cfg_test(toks):
        i = 0
        while i + 2 < len(toks) and toks[i].text == "#" and toks[i + 1].text == "!":
            end = _match(toks, i + 2)
            if _is_cfg_test(toks[i + 3 : end]):
                return True
            i = end + 1
        return False

    def _child_file(self, scope, name, attr_path, file):
        if attr_path is not None:
            # `#[path]` is relative to the file's folder, or inside `mod x { … }` to x's.
            base = scope.children_dir if scope.inline else os.path.dirname(file)
            cand = os.path.join(base, attr_path)
            return cand if os.path.isfile(cand) else None
        for cand in (os.path.join(scope.children_dir, name + ".rs"),
                     os.path.join(scope.children_dir, name, "mod.rs")):
            if os.path.isfile(cand):
                return cand
        return None

    def _read_tokens(self, scope, toks, i, end, file):
        attrs = []
        while i < end:
            t = toks[i]
            prev = toks[i - 1].text if i > 0 else ""
            nxt = toks[i + 1].text if i + 1 < end else ""
            if t.text == "#" and nxt in ("[", "!"):
                j = i + 1 + (nxt == "!")
                if j < end and toks[j].text == "[":
                    close = _match(toks, j)
                    attr = toks[j + 1 : close]
                    if nxt == "!":
                        if _is_cfg_test(attr):
                            return  # `#![cfg(test)]` inside an inline module
                    else:
                        attrs.append(attr)
                        self._attr_paths(scope, toks, j + 1, close, file)
                    i = close + 1
                    continue
            if attrs and any(_is_cfg_test(a) for a in attrs):
                attrs = []
                i = _skip_item(toks, i)
                continue
            if t.text == "pub":
                i += 1
                if i < end and toks[i].text == "(":
                    i = _match(toks, i) + 1  # pub(crate), pub(in crate::x): not a use of x
                continue
            path_attr = None
            for a in attrs:
                if len(a) == 3 and a[0].text == "path" and a[1].text == "=" and a[2].kind == "str":
                    path_attr = a[2].text.strip('"')
            attrs = []
            if t.text == "mod" and t.kind == "id" and i + 2 < end and toks[i + 1].kind == "id":
                name, after = toks[i + 1].text, toks[i + 2].text
                if after == ";":
                    i += 3
                    if name == "tests":
                        continue
                    child_file = self._child_file(scope, name, path_attr, file)
                    if child_file is None or _under_tests(self.repo, child_file):
                        continue
                    child_dir = (os.path.dirname(child_file)
                                 if os.path.basename(child_file) == "mod.rs" else child_file[:-3])
                    child = Module(scope.path + (name,), child_file, child_dir, inline=False)
                    if self._read_file(child, child_file, file_level=True):
                        scope.children[name] = child
                        self.modules[child.path] = child
                    continue
                if after == "{":
                    close = _match(toks, i + 2)
                    if name != "tests":
                        child_dir = os.path.join(scope.children_dir, name)
                        child = Module(scope.path + (name,), file, child_dir, inline=True)
                        scope.children[name] = child
                        self.modules[child.path] = child
                        self._read_tokens(child, toks, i + 3, close, file)
                    i = close + 1
                    continue
            if t.text == "use" and t.kind == "id" and prev != "::":
                out = []
                j = _use_tree(toks, i + 1, [], out)
                while j < end and toks[j].text != ";":
                    j += 1
                for segs, name, glob in out:
                    if not segs or segs[0] == "::":
                        continue
                    if glob:
                        scope.globs.append(segs)
                    elif name:
                        scope.imports[name].append(segs)
                    shown = "use " + "::".join(segs) + ("::*" if glob else "")
                    scope.refs.append((segs, 0, t.line, file, shown))
                i = j + 1
                continue
            if t.text == "macro_rules" and nxt == "!" and i + 2 < end:
                scope.macros.add(toks[i + 2].text)
                i += 3
                continue
            if t.kind == "id" and nxt == "!" and prev not in ("::", ".") and t.text not in _KEYWORDS:
                scope.macro_calls.append((t.text, t.line, file))
                i += 2
                continue
            if t.kind == "id" and prev not in ("::", ".") and t.text not in ("Self",):
                if nxt == "::" or (t.text not in _KEYWORDS and (t.text[:1].isupper() or nxt == "(")):
                    i = self._path(scope, toks, i, end, file)
                    continue
            i += 1

    def _attr_paths(self, scope, toks, i, end, file):
        """Records the paths an attribute names: `#[crate::x::attr]`, `derive(super::y::D)`, or
        serde's `with = "crate::z"` (a path in a string)."""
        while i < end:
            t = toks[i]
            if t.kind == "id" and t.text in ("crate", "super", "self") and toks[i + 1].text == "::":
                i = self._path(scope, toks, i, end, file)
                continue
            if t.kind == "str":
                text = t.text.strip('"')
                if _PATH_IN_STRING.match(text):
                    scope.refs.append((text.split("::"), 1, t.line, file, f'"{text}"'))
            i += 1

    def _path(self, scope, toks, i, end, file):
        """Records the path in code starting at toks[i]; returns the index after it."""
        segs = [toks[i].text]
        line = toks[i].line
        j = i + 1
        generic = False
        while j + 1 < end and toks[j].text == "::":
            if toks[j + 1].text == "<":
                generic = True  # the segment before `::<` is an item, not a module
                break
            if toks[j + 1].kind != "id":
                break
            segs.append(toks[j + 1].text)
            j += 2
        # The last segment names an item (code has no module values); with `::<` after it, it
        # is the last one taken.
        shown = "::".join(segs) + ("::<…>" if generic else "")
        scope.refs.append((segs, 1, line, file, shown))
        return j

    # -- resolving

    def absolute(self, scope_path, segs):
        """segs, written in the module at scope_path, from the crate root; None if outside it."""
        if not segs:
            return None
        first = segs[0]
        if first == "crate":
            return list(segs[1:])
        if first in ("self", "super"):
            base = list(scope_path)
            k = 1 if first == "self" else 0
            while k < len(segs) and segs[k] == "super":
                if not base:
                    return None
                base.pop()
                k += 1
            return base + list(segs[k:])
        scope = self.modules.get(tuple(scope_path))
        if scope is None:
            return None
        if first in scope.children and len(segs) > 1:
            return list(scope_path) + list(segs)
        base = self._name(scope.path, first)
        if base is not None:
            return base + list(segs[1:])
        if len(segs) > 1:
            for glob in self._globs(scope.path):
                if first in glob.children:
                    return list(glob.path) + list(segs)
        return None

    def _name(self, scope_path, name):
        """Where a name that the module at scope_path imports (by `use`, or by a glob from a
        module that imports it) leads, from the crate root; None if nowhere in this crate."""
        key = (scope_path, name)
        if key in self._names:
            return self._names[key]
        self._names[key] = None  # a name that leads back to itself leads nowhere
        found = None
        for target in self.modules[scope_path].imports.get(name, ()):
            if target != [name]:  # `use serde;`: an extern crate
                found = self.absolute(scope_path, target)
                if found is not None:
                    break
        if found is None:
            for glob in self._globs(scope_path):
                found = self._name(glob.path, name)
                if found is not None:
                    break
        self._names[key] = found
        return found

    def _globs(self, scope_path):
        """The modules that the module at scope_path imports with `use …::*`."""
        if scope_path not in self._glob_modules:
            self._glob_modules[scope_path] = []
            found = []
            for glob in self.modules[scope_path].globs:
                base = self.absolute(scope_path, glob)
                module = self.modules.get(tuple(base)) if base is not None else None
                if module is not None and module.path != scope_path:
                    found.append(module)
            self._glob_modules[scope_path] = found
        return self._glob_modules[scope_path]

    def resolve(self, segs, items, depth=0):
        """The module that defines what the absolute path segs names (a path tuple); its last
        `items` segments name items, not modules."""
        cur = ()
        for i, seg in enumerate(segs):
            module_ok = i < len(segs) - items
            if module_ok and seg in self.modules[cur].children:
                cur = cur + (seg,)
                continue
            if depth < 16:
                base = self._name(cur, seg)
                if base is not None:
                    return self.resolve(base + list(segs[i + 1 :]), items, depth + 1)
                for glob in self._globs(cur) if module_ok else ():
                    if seg in glob.children:
                        return self.resolve(list(glob.path) + list(segs[i:]), items, depth + 1)
            break
        return cur

    def edges(self):
        """{folder path: {(a, b): (file, line, shown)}}: the first reference making each edge."""
        macro_home = {}
        for path, mod in self.modules.items():
            for name in mod.macros:
                macro_home[name] = None if name in macro_home else path
        found = defaultdict(dict)
        for path, mod in self.modules.items():
            for segs, items, line, file, shown in mod.refs:
                abs_segs = self.absolute(path, segs)
                if abs_segs is None:
                    continue
                target = self.resolve(abs_segs, items)
                _add_edge(found, path, target, (os.path.relpath(file, self.repo), line, shown))
            for name, line, file in mod.macro_calls:
                target = macro_home.get(name)
                if target is not None:
                    _add_edge(found, path, target, (os.path.relpath(file, self.repo), line, name + "!"))
        return found

    def folders(self):
        return {p: m for p, m in self.modules.items() if m.children}


def _add_edge(found, source, target, why):
    k = 0
    while k < len(source) and k < len(target) and source[k] == target[k]:
        k += 1
    if k < len(source) and k < len(target):
        found[source[:k]].setdefault((source[k], target[k]), why)


def _under_tests(repo, path):
    return "tests" in os.path.relpath(path, repo).split(os.sep)[:-1]


def crate_roots(repo):
    """Every crate root file of the workspace: lib.rs, main.rs and src/bin/* of each crate."""
    dirs = [repo, os.path.join(repo, "src-tauri")]
    crates = os.path.join(repo, "crates")
    if os.path.isdir(crates):
        dirs += [os.path.join(crates, d) for d in sorted(os.listdir(crates))]
    roots = []
    for d in dirs:
        src = os.path.join(d, "src")
        for name in ("lib.rs", "main.rs"):
            if os.path.isfile(os.path.join(src, name)):
                roots.append(os.path.join(src, name))
        bin_dir = os.path.join(src, "bin")
        if os.path.isdir(bin_dir):
            for name in sorted(os.listdir(bin_dir)):
                full = os.path.join(bin_dir, name)
                if name.endswith(".rs"):
                    roots.append(full)
                elif os.path.isfile(os.path.join(full, "main.rs")):
                    roots.append(os.path.join(full, "main.rs"))
    return roots


def rust_graphs(repo):
    """[(label, {node: file}, {(a, b): why})]: one graph per Rust folder."""
    graphs = []
    for root in crate_roots(repo):
        crate = Crate(repo, root)
        found = crate.edges()
        for path, folder in sorted(crate.folders().items()):
            if not path:
                label = crate.label  # the crate root's folder, named by its root file
            elif os.path.isdir(folder.children_dir):
                label = os.path.relpath(folder.children_dir, repo) + "/"
            else:
                label = f"{os.path.relpath(folder.file, repo)} (mod {'::'.join(path)})"
            nodes = {}
            for name, child in folder.children.items():
                shown = os.path.relpath(child.file, repo)
                nodes[name] = shown + (f" (inline mod {name})" if child.inline else "")
            graphs.append((label, nodes, found.get(path, {})))
    return graphs


# ---------------------------------------------------------------------------------------------
# TypeScript

_TS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs")
_TS_STR = re.compile(r"""'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*\"""")
_TS_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_TS_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}
_TS_BEFORE_EXPR = {"return", "typeof", "case", "in", "of", "delete", "void", "throw", "new", "else",
                   "do", "yield", "await", "instanceof"}


def ts_tokens(text):
    """Identifiers, strings (unquoted) and punctuation of a TS file; comments, templates and
    regular expressions are left out."""
    toks = []
    i, n, line = 0, len(text), 1
    last = ""

    def template(i):
        # From after the opening backtick to after the closing one, skipping ${ … } bodies.
        depth = 0
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if depth == 0 and c == "`":
                return i + 1
            if c == "$" and text.startswith("${", i):
                depth += 1
                i += 2
                continue
            if depth and c == "}":
                depth -= 1
            elif depth and c == "`":
                i = template(i + 1)
                continue
            i += 1
        return i

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        if c in "'\"":
            m = _TS_STR.match(text, i)
            if m:
                toks.append(Tok("str", m.group(0)[1:-1], line))
                last = "s"
                i = m.end()
                continue
        if c == "`":
            j = template(i + 1)
            line += text.count("\n", i, j)
            toks.append(Tok("tpl", "", line))
            last = "s"
            i = j
            continue
        if c == "/" and last in _TS_REGEX_BEFORE:
            j, in_class = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            i = j + 1
            while i < n and (text[i].isalnum()):
                i += 1
            last = "s"
            continue
        m = _TS_IDENT.match(text, i)
        if m:
            toks.append(Tok("id", m.group(0), line))
            # After these words a `/` starts a regular expression, not a division.
            last = "" if m.group(0) in _TS_BEFORE_EXPR else "i"
            i = m.end()
            continue
        if c.isdigit():
            j = i
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            toks.append(Tok("lit", text[i:j], line))
            last = "i"
            i = j
            continue
        toks.append(Tok("p", c, line))
        last = c if c not in ")]}" else "i"
        i += 1
    return toks


def _type_only(clause):
    """True when an import/export clause brings in types only."""
    words = [t.text for t in clause]
    if not words:
        return False
    if words[0] == "type" and len(words) > 1 and words[1] not in (",", "from", "="):
        return True  # import type X / import type { … } / export type * / export type { … }
    if words[0] != "{" or words[-1] != "}":
        return False
    specs, cur = [], []
    for w in words[1:-1]:
        if w == ",":
            specs.append(cur)
            cur = []
        else:
            cur.append(w)
    specs.append(cur)
    specs = [s for s in specs if s]
    if not specs:
        return False  # `import {} from` still runs the module
    # `type X` and `type X as Y` are types; `type` and `type as Y` import a value named type.
    return all(s[0] == "type" and len(s) >= 2 and s[1:2] + s[3:] != ["as"] for s in specs)


def ts_imports(text):
    """[(specifier, line, shown)] of the value imports and re-exports of a TS file."""
    toks = ts_tokens(text)
    out = []
    n = len(toks)
    for i, t in enumerate(toks):
        if t.kind != "id" or t.text not in ("import", "export"):
            continue
        prev = toks[i - 1].text if i else ""
        if prev == ".":
            continue
        nxt = toks[i + 1] if i + 1 < n else None
        if nxt is None:
            continue
        if t.text == "import" and nxt.text == "(":
            if i + 2 < n and toks[i + 2].kind == "str":
                out.append((toks[i + 2].text, t.line, f'import("{toks[i + 2].text}")'))
            continue
        if t.text == "import" and nxt.kind == "str":
            out.append((nxt.text, t.line, f'import "{nxt.text}"'))
            continue
        if t.text == "export" and nxt.text not in ("*", "{", "type"):
            continue  # export const / function / default …: no module named
        # Up to `from "…"`; a clause holds no `;` and no string before its `from`.
        j, depth = i + 1, 0
        while j < n:
            w = toks[j]
            if w.text == "{":
                depth += 1
            elif w.text == "}":
                depth -= 1
            elif depth == 0 and w.text == "from" and j + 1 < n and toks[j + 1].kind == "str":
                break
            elif w.text == ";" or w.kind == "str" or depth < 0:
                j = n
                break
            elif depth == 0 and t.text == "export" and toks[j - 1].text == "}" and w.kind == "id":
                j = n  # `export { a }` and then more code, no `from`: a local export
                break
            j += 1
        if j >= n:
            continue
        clause = toks[i + 1 : j]
        if _type_only(clause):
            continue
        spec = toks[j + 1].text
        out.append((spec, t.line, " ".join(w.text for w in toks[i : j + 1]) + f' "{spec}"'))
    return out


def _ts_resolve(from_file, spec):
    base = os.path.normpath(os.path.join(os.path.dirname(from_file), spec))
    stem, ext = os.path.splitext(base)
    if ext not in (".js", ".jsx", ".mjs") or os.path.isfile(base):
        stem = base  # `./x.js` may name x.ts; `./x.test` names x.test.ts
    cands = [base] + [stem + e for e in _TS_EXTS] + [os.path.join(base, "index" + e) for e in _TS_EXTS]
    for c in cands:
        if os.path.isfile(c):
            return c
    return base


def _ts_source(name):
    if not name.endswith(_TS_EXTS) or name.endswith(".d.ts"):
        return False
    return not re.search(r"\.(test|spec)\.[mc]?[jt]sx?$", name)


def ui_graph(repo):
    """(label, {node: shown path}, {(a, b): why}, folders): the graph of ui/src's top level."""
    src = os.path.join(repo, "ui", "src")
    if not os.path.isdir(src):
        return None
    entries = sorted(os.listdir(src))
    folders = {e for e in entries if os.path.isdir(os.path.join(src, e))}

    def node_of(path):
        rel = os.path.relpath(path, src)
        if rel.startswith(".."):
            return None
        first = rel.split(os.sep)[0]
        if first in folders:
            return first + "/"
        stem = first.split(".")[0]
        return stem + "/" if stem in folders else first

    nodes = {}
    for e in entries:
        full = os.path.join(src, e)
        if e in folders:
            nodes[e + "/"] = os.path.relpath(full, repo) + "/"
        elif _ts_source(e) and node_of(full) == e:
            nodes[e] = os.path.relpath(full, repo)
    for e in entries:
        full = os.path.join(src, e)
        stem = e.split(".")[0]
        if e not in folders and stem in folders and _ts_source(e):
            nodes[stem + "/"] += " + " + os.path.relpath(full, repo)
    edges = {}
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for name in sorted(filenames):
            if not _ts_source(name):
                continue
            full = os.path.join(dirpath, name)
            a = node_of(full)
            with open(full, encoding="utf-8") as f:
                text = f.read()
            for spec, line, shown in ts_imports(text):
                if not spec.startswith("."):
                    continue
                b = node_of(_ts_resolve(full, spec))
                if b is None or b == a or b not in nodes:
                    continue
                edges.setdefault((a, b), (os.path.relpath(full, repo), line, shown))
    return ("ui/src/", nodes, edges, len(folders))


# ---------------------------------------------------------------------------------------------
# Cycles


def components(nodes, edges):
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    succ = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(set(nodes) | {x for e in edges for x in e}):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest_cycle(start, comp, edges):
    """A shortest cycle from start back to it, inside comp: [start, …, start]."""
    inside = set(comp)
    succ = defaultdict(list)
    for a, b in sorted(edges):
        if a in inside and b in inside:
            succ[a].append(b)
    prev = {}
    queue = deque([start])
    seen = set()
    while queue:
        v = queue.popleft()
        for w in succ[v]:
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if v != start else [start, start]
            if w not in seen:
                seen.add(w)
                prev[w] = v
                queue.append(w)
    return [start]


def report(label, nodes, edges):
    """Lines describing each cycle of one graph; empty when it has none."""
    lines = []
    for comp in components(nodes, edges):
        cycle = shortest_cycle(comp[0], comp, edges)
        lines.append(f"{label}: " + " → ".join(cycle))
        for n in comp:
            lines.append(f"    {n}: {nodes.get(n, '?')}")
        for (a, b), (file, line, shown) in sorted(edges.items()):
            if a in comp and b in comp:
                lines.append(f"    {a} → {b}: {file}:{line}: {shown}")
    return lines


def main(argv):
    repo = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    rust = rust_graphs(repo)
    for label, nodes, edges in rust:
        out += report(label, nodes, edges)
    ui = ui_graph(repo)
    ui_folders = 0
    if ui is not None:
        label, nodes, edges, ui_folders = ui
        out += report(label, nodes, edges)
    if out:
        print("check-cycles: module cycles (each folder's modules must form a DAG):", file=sys.stderr)
        for line in out:
            print(line, file=sys.stderr)
        return 1
    print(f"no module cycles ({len(rust)} Rust folders, {ui_folders} UI folders checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
