// The demo's MCP server (src/demo/server.ts) as a process of its own, over stdio: what `npm start` puts behind a proxy.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createDemoServer } from './server.js';

await createDemoServer().connect(new StdioServerTransport());
