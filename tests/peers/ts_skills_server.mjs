// A skills server built on the TypeScript SDK v2's Skills extension (`ext/skills`), in both eras:
// two skills, one with a nested reference file, one with a binary asset. The SDK computes each
// file's digest and size and declares the extension (with directoryRead) itself.
// Setup: beside the node_modules of ts_v2_server.mjs (@modelcontextprotocol/server@2.4.0).
// Run: node ts_skills_server.mjs
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';

const files = memorySkillFiles({
    'code-review/SKILL.md':
        '---\nname: code-review\ndescription: Review a pull request for correctness and style.\nlicense: MIT\nmetadata:\n  author: sonde\n---\n# Code review\n\nRead the diff first, then see references/CHECKLIST.md.\n',
    'code-review/references/CHECKLIST.md': '- tests pass\n- names are clear\n',
    'hello/SKILL.md': '---\nname: hello\ndescription: Say hello.\n---\nSay hello, caf\u00e9.\n',
    'hello/assets/dot.bin': new Uint8Array([0, 1, 2, 255]),
});
const skills = await SkillsExtension.load(files);

function factory() {
    const mcp = new McpServer({ name: 'peers-ts-skills', version: '0.0.1' }, { capabilities: { resources: {} } });
    skills.attach(mcp);
    return mcp;
}
serveStdio(factory, {});
