// One MCP server in several builds, on the TypeScript SDK v2 (as ts_v2_server.mjs), for the
// checks that must never pass a broken build (replay, test, diff); the same builds as
// py_versions_server.py:
//   node ts_versions_server.mjs VERSION
//   1.0                     add, divide, echo, get_time (a timestamp), get_weather (read-only);
//                           resources notes://readme and config://units; resources.subscribe
//   1.2-added               1.0 with a tool `convert` listed before the others
//   2.0-removed             1.0 without divide
//   2.1-renamed             1.0 with divide renamed div (the same schema and words)
//   2.2-resource-removed    1.0 without notes://readme
//   2.3-description         1.0 with divide's description changed
//   2.4-subscribe-withdrawn 1.0 without resources.subscribe
//   2.5-annotation-flip     1.0 with get_weather no longer read-only
// NODE_PATH does not work for ESM: run it from (or copy it into) the folder holding node_modules.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const KNOWN = ['1.0', '1.2-added', '2.0-removed', '2.1-renamed', '2.2-resource-removed', '2.3-description',
    '2.4-subscribe-withdrawn', '2.5-annotation-flip'];
const version = process.argv[2] ?? '1.0';
if (!KNOWN.includes(version)) {
    console.error(`ts_versions_server.mjs: unknown build ${JSON.stringify(version)}; one of ${KNOWN.join(', ')}`);
    process.exit(2);
}
const text = t => ({ content: [{ type: 'text', text: t }] });

function factory() {
    const subscribe = version !== '2.4-subscribe-withdrawn';
    const server = new McpServer({ name: 'calc', version },
        { capabilities: { tools: {}, resources: subscribe ? { subscribe: true } : {} } });
    const two = z.object({ a: z.number(), b: z.number() });
    if (version === '1.2-added') {
        server.registerTool('convert', { description: 'Convert a value to another unit.',
            inputSchema: z.object({ value: z.number(), unit: z.string() }) },
        async ({ value, unit }) => text(`${value} ${unit}`));
    }
    server.registerTool('add', { description: 'Add two numbers.', inputSchema: two },
        async ({ a, b }) => text(String(a + b)));
    if (version !== '2.0-removed') {
        const description = version === '2.3-description' ? 'Divide a by b, as a float.' : 'Divide a by b.';
        server.registerTool(version === '2.1-renamed' ? 'div' : 'divide', { description, inputSchema: two },
            async ({ a, b }) => text(String(a / b)));
    }
    server.registerTool('echo', { description: 'Say the text back.', inputSchema: z.object({ text: z.string() }) },
        async ({ text: said }) => text(said));
    server.registerTool('get_time', { description: 'The time now, in UTC.' },
        async () => text(`It is ${new Date().toISOString()}`));
    server.registerTool('get_weather', { description: 'The weather in a city.',
        inputSchema: z.object({ city: z.string() }),
        annotations: { readOnlyHint: version !== '2.5-annotation-flip' } },
    async ({ city }) => text(`Sunny in ${city}`));
    if (version !== '2.2-resource-removed') {
        server.registerResource('readme', 'notes://readme', { mimeType: 'text/plain', description: 'The read-me notes.' },
            async uri => ({ contents: [{ uri: uri.href, text: 'Read me first.' }] }));
    }
    server.registerResource('units', 'config://units', { mimeType: 'text/plain', description: 'The units in use.' },
        async uri => ({ contents: [{ uri: uri.href, text: 'metric' }] }));
    return server;
}

serveStdio(factory, {});
