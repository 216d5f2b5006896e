"""Tests of check-cycles.py on small made-up repositories.

Run: python3 scripts/test_check_cycles.py -q   (or python3 -m unittest, from scripts/)
Each test writes a tree into a temporary folder, so the check cannot pass for want of input: a
cycle that must be found is found, and what must be ignored is ignored beside it.
"""

import importlib.util
import io
import os
import tempfile
import textwrap
import unittest
from contextlib import redirect_stderr, redirect_stdout

_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-cycles.py")
_spec = importlib.util.spec_from_file_location("check_cycles", _SCRIPT)
check_cycles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_cycles)


class Tree:
    """A temporary repository: write(path, text), then run() the check on it."""

    def __init__(self, test):
        self.dir = tempfile.TemporaryDirectory()
        test.addCleanup(self.dir.cleanup)
        self.root = self.dir.name

    def write(self, path, text=""):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))

    def run(self):
        """(exit code, stdout, stderr) of the check."""
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = check_cycles.main(["check-cycles.py", self.root])
        return code, out.getvalue(), err.getvalue()


class RustCycles(unittest.TestCase):
    def test_two_modules_naming_each_other_are_a_cycle(self):
        """The plainest cycle: a `use` one way, an inline path in code the other."""
        t = Tree(self)
        t.write("src/lib.rs", "mod a;\nmod b;\n")
        t.write("src/a.rs", "use crate::b::Thing;\npub fn f() {}\n")
        t.write("src/b.rs", "pub struct Thing;\nfn g() { crate::a::f() }\n")
        code, out, err = t.run()
        self.assertEqual(code, 1)
        self.assertEqual(out, "")
        self.assertIn("src/lib.rs: a → b → a", err)
        self.assertIn("a: src/a.rs", err)
        self.assertIn("b → a: src/b.rs:2: crate::a::f", err)

    def test_a_cycle_through_three_modules_is_found_through_use_trees(self):
        """a → b → c → a, each edge written another way: a use tree, a nested tree, a path."""
        t = Tree(self)
        t.write("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n")
        t.write("src/a.rs", "use crate::{d, b::{self, B}};\n")
        t.write("src/b.rs", "use crate::{c::C as Renamed};\npub struct B;\n")
        t.write("src/c.rs", "pub struct C;\nfn f() -> u8 { crate::a::helper::<u8>() }\n")
        t.write("src/d.rs", "")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("src/lib.rs: a → b → c → a", err)
        self.assertNotIn("d:", err)  # d is not in the cycle

    def test_super_paths_make_a_cycle_inside_a_folder(self):
        """Two files of one folder module (mod.rs) naming each other through `super::`."""
        t = Tree(self)
        t.write("crates/tool/src/main.rs", "mod outer;\nfn main() {}\n")
        t.write("crates/tool/src/outer/mod.rs", "mod x;\nmod y;\n")
        t.write("crates/tool/src/outer/x.rs", "use super::y::Y;\npub fn f() {}\n")
        t.write("crates/tool/src/outer/y.rs", "pub struct Y;\nfn g() { super::x::f(); }\n")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("crates/tool/src/outer/: x → y → x", err)

    def test_a_name_reexported_by_the_parent_counts_for_the_module_defining_it(self):
        """`use super::Thing`, where the parent has `pub use q::Thing`, names q."""
        t = Tree(self)
        t.write("src-tauri/src/lib.rs", "mod m;\n")
        t.write("src-tauri/src/m.rs", "mod p;\nmod q;\npub use q::Thing;\n")
        t.write("src-tauri/src/m/p.rs", "use super::Thing;\npub fn f() {}\n")
        t.write("src-tauri/src/m/q.rs", "pub struct Thing;\nfn g() { super::p::f() }\n")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("src-tauri/src/m/: p → q → p", err)

    def test_a_macro_call_names_the_module_defining_the_macro(self):
        t = Tree(self)
        t.write("src/main.rs", "#[macro_use]\nmod out;\nmod run;\nfn main() {}\n")
        t.write("src/out.rs", "macro_rules! say { () => { $crate::out::line() }; }\npub fn line() {}\n"
                "fn f() { crate::run::go() }\n")
        t.write("src/run.rs", "pub fn go() { say!(); }\n")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("out → run → out", err)
        self.assertIn("run → out: src/run.rs:1: say!", err)

    def test_test_code_comments_and_strings_are_ignored(self):
        """b names a only in tests, comments and strings: a → b alone is no cycle."""
        t = Tree(self)
        t.write("src/lib.rs", "mod a;\nmod b;\n")
        t.write("src/a.rs", "use crate::b;\npub fn f() {}\n")
        t.write(
            "src/b.rs",
            """\
            //! Unlike crate::a::f, this is /* crate::a::f /* nested */ */ alone.
            const WORDS: &str = "crate::a::f";
            const RAW: &str = r#"super::a::f "quoted""#;
            const C: char = '"'; // a quote in a char literal opens no string
            fn lifetimes<'a>(x: &'a str) -> &'a str { x }

            #[cfg(test)]
            use crate::a::f;

            #[cfg(test)]
            mod tests {
                use super::super::a;
                #[test]
                fn calls() { crate::a::f(); a::f(); }
            }

            #[cfg(test)]
            mod helper;

            #[cfg(test)]
            fn only_in_tests() { crate::a::f() }

            mod tests {
                use crate::a::f;
            }

            pub fn after() {}
            """,
        )
        t.write("src/b/helper.rs", "use crate::a::f;\n")
        t.write("tests/it.rs", "use demo::a;\n")
        code, out, err = t.run()
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out, "no module cycles (1 Rust folders, 0 UI folders checked)\n")

    def test_a_generic_function_named_like_a_module_is_not_that_module(self):
        """`crate::commands::<R>()` calls the root's function, not the commands module."""
        t = Tree(self)
        t.write("src/lib.rs", "pub mod bindings;\npub mod commands;\npub fn commands<R>() {}\n")
        t.write("src/bindings.rs", "fn f() { crate::commands::<u8>(); }\n")
        t.write("src/commands.rs", "use crate::bindings;\n")
        code, _, _ = t.run()
        self.assertEqual(code, 0)

    def test_a_folder_module_counts_as_one_node(self):
        """x.rs with x/ is one node: a reference into x/ from y is an edge y → x."""
        t = Tree(self)
        t.write("src/lib.rs", "mod x;\nmod y;\n")
        t.write("src/x.rs", "mod inner;\n")
        t.write("src/x/inner.rs", "use crate::y::Y;\npub fn f() {}\n")
        t.write("src/y.rs", "pub struct Y;\nfn g() { crate::x::inner::f() }\n")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("src/lib.rs: x → y → x", err)
        self.assertIn("x → y: src/x/inner.rs:1: use crate::y::Y", err)


class UiCycles(unittest.TestCase):
    def setUp(self):
        self.t = Tree(self)
        self.t.write("ui/src/main.tsx", 'import { App } from "./App";\n')
        self.t.write("ui/src/App.tsx", 'import { Panel } from "./panels/Panel";\nexport const App = 1;\n')
        self.t.write("ui/src/ipc/index.ts", "export type Entry = { id: number };\nexport const x = 1;\n")

    def test_two_folders_importing_each_other_are_a_cycle(self):
        t = self.t
        t.write("ui/src/panels/Panel.tsx", 'import {\n  Problems,\n} from "../components/Problems";\n')
        t.write("ui/src/components/Problems.tsx", 'import { helper } from "../panels/helper";\n')
        t.write("ui/src/panels/helper.ts", "export const helper = 1;\n")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("ui/src/: components/ → panels/ → components/", err)
        self.assertIn("panels/ → components/: ui/src/panels/Panel.tsx:1:", err)

    def test_type_only_and_test_imports_are_ignored(self):
        """Types are erased and tests are not the app: neither makes components/ need panels/."""
        t = self.t
        t.write("ui/src/panels/Panel.tsx", 'import { Problems } from "../components/Problems";\n')
        t.write(
            "ui/src/components/Problems.tsx",
            """\
            import type { Kind } from "../panels/kinds";
            import { type Kind as K, type Other } from "../panels/kinds";
            export type { Kind } from "../panels/kinds";
            import { backend, type Entry } from "../ipc";
            // import { Panel } from "../panels/Panel";
            const s = 'import { Panel } from "../panels/Panel"';
            const r = /"/;
            export const Problems = 1;
            """,
        )
        t.write("ui/src/components/Problems.test.tsx", 'import { Panel } from "../panels/Panel";\n')
        t.write("ui/src/panels/kinds.ts", "export type Kind = 1;\nexport type Other = 2;\n")
        code, out, err = t.run()
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out, "no module cycles (0 Rust folders, 3 UI folders checked)\n")

    def test_a_value_beside_a_type_in_one_import_counts(self):
        t = self.t
        t.write("ui/src/panels/Panel.tsx", 'import { Problems } from "../components/Problems";\n')
        t.write("ui/src/components/Problems.tsx", 'import { type Kind, helper } from "../panels/helper";\n')
        t.write("ui/src/panels/helper.ts", "export const helper = 1;\nexport type Kind = 1;\n")
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("components/ → panels/ → components/", err)

    def test_a_top_level_file_belongs_to_the_folder_it_is_named_after(self):
        """panels.tsx beside panels/ is panels/: its import of components/ closes a cycle."""
        t = self.t
        t.write("ui/src/panels.tsx", 'export * from "./components/Tools";\n')
        t.write("ui/src/panels/Panel.tsx", "export const Panel = 1;\n")
        t.write("ui/src/components/Tools.tsx", 'import { Panel } from "../panels/Panel";\n')
        code, _, err = t.run()
        self.assertEqual(code, 1)
        self.assertIn("components/ → panels/ → components/", err)
        self.assertIn("panels/: ui/src/panels/ + ui/src/panels.tsx", err)


if __name__ == "__main__":
    unittest.main()
