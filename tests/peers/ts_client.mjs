// A real client for Sonde's tests: the TypeScript SDK v2 client (@modelcontextprotocol/client
// 2.4.0) launching a stdio server or reaching one by URL, listing its tools and calling one, then
// printing what it received as one JSON line. Mode: `auto` (discover, fall back to initialize)
// or `legacy`.
//   node ts_client.mjs MODE TOOL ARGS_JSON -- COMMAND [ARG...]
//   node ts_client.mjs MODE TOOL ARGS_JSON --url URL      (Streamable HTTP)
// ESM ignores NODE_PATH: it runs from beside its node_modules (make peers copies it there).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [mode, tool, argsJson] = process.argv.slice(2, 5);
const client = new Client({ name: 'ts-client', version: '2.4.0' }, { versionNegotiation: { mode } });
if (process.argv[5] === '--url') {
    await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[6])));
} else {
    const command = process.argv.slice(process.argv.indexOf('--') + 1);
    await client.connect(new StdioClientTransport({ command: command[0], args: command.slice(1) }));
}
const tools = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
console.log(JSON.stringify({
    protocolVersion: client.getNegotiatedProtocolVersion(),
    tools: tools.tools.map(t => t.name),
    result,
}));
await client.close();
