import { getModuleFacts, isAnalysed } from '../src/analysis/door.js';
import { getWiring, mentionsMcp } from '../src/analysis/wiring.js';
import { createRule } from '../src/util/create-rule.js';

export type Options = [];
export type MessageId = 'sharedServer' | 'sharedTransport' | 'reusedStatelessTransport' | 'perConnectionHook' | 'lastCallerTransport';

const FIX = 'Create one server (and transport) per session; keep the per-session map only for routing.';

export default createRule<Options, MessageId>({
  name: 'no-shared-server-connection',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow wiring one MCP server or transport to every HTTP/SSE session',
      recommended: 'recommended',
    },
    messages: {
      sharedServer:
        '`{{server}}` outlives the request but is connected to a new transport in the {{route}}: the protocol object holds one transport at a time, so replies, progress, logs and elicitation requests go to whichever client connected last. ' +
        FIX,
      sharedTransport:
        '`{{transport}}` is one binding for every connection: the {{route}} replaces it with each new transport and the {{reader}} hands every message to whichever client connected last. ' +
        FIX,
      reusedStatelessTransport:
        'The stateless transport `{{transport}}` (no session id) is created once and handed every request by the {{route}}, so concurrent requests share one transport and one server. Create a new server and transport per request and close them when the response ends; ' +
        'for sessions, create one server (and transport) per session and keep the per-session map only for routing.',
      lastCallerTransport:
        '`{{transport}}` is one hand-written transport for every request: the {{route}} calls its `{{method}}()`, which keeps this request\'s `{{field}}` here, and `send()` answers on whatever `{{field}}` holds, so a reply goes to whichever session spoke last. ' +
        FIX,
      perConnectionHook:
        'The {{route}} changes {{what}} on every connection, so each new session redirects (or stacks) a process-wide hook onto its own server and every other session\'s output goes with it. Install process-wide hooks once at start-up; ' +
        FIX,
    },
    schema: [],
  },
  create(context) {
    if (!isAnalysed(context, 'wiring')) return {};
    return {
      'Program:exit'() {
        const facts = getModuleFacts(context);
        // A module whose text names no server, transport or registration was not indexed: it wires nothing. One that
        // never mentions MCP wires some other server.
        if (!facts.indexed || !mentionsMcp(context.sourceCode.text)) return;
        const wiring = getWiring(facts);
        for (const f of wiring.findings()) {
          switch (f.kind) {
            case 'sharedServer':
              context.report({ node: f.node, messageId: 'sharedServer', data: { server: f.server, route: f.route.label } });
              break;
            case 'sharedTransport':
              context.report({ node: f.node, messageId: 'sharedTransport', data: { transport: f.transport, route: f.route.label, reader: f.reader.label } });
              break;
            case 'reusedStatelessTransport':
              context.report({ node: f.node, messageId: 'reusedStatelessTransport', data: { transport: f.transport, route: f.route.label } });
              break;
            case 'lastCallerTransport':
              context.report({ node: f.node, messageId: 'lastCallerTransport', data: { transport: f.transport, route: f.route.label, method: f.method, field: f.field } });
              break;
            case 'perConnectionHook':
              context.report({ node: f.node, messageId: 'perConnectionHook', data: { what: f.what, route: f.route.label } });
              break;
          }
        }
      },
    };
  },
});
