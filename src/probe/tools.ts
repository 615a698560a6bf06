import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ProbeError } from './errors.js';

/**
 * The default command for a command-runner tool. Each caller writes its marker to three places a
 * shared server must keep apart — the working directory, $HOME and $TMPDIR — waits long enough for
 * the other caller to do the same, and reads all three back. A server that shares any of the three
 * between callers shows the other caller's marker; a clean one shows only the caller's own.
 * The two files outside the working directory are removed afterwards.
 */
export const DEFAULT_COMMAND =
  'echo {marker} > probe-marker.txt; ' +
  'echo {marker} > "$HOME/.mcp-stateless-probe"; ' +
  'echo {marker} > "${TMPDIR:-/tmp}/mcp-stateless-probe"; ' +
  'sleep 0.2; ' +
  'cat probe-marker.txt "$HOME/.mcp-stateless-probe" "${TMPDIR:-/tmp}/mcp-stateless-probe"; ' +
  'rm -f "$HOME/.mcp-stateless-probe" "${TMPDIR:-/tmp}/mcp-stateless-probe"';

const COMMAND_ARG = /^(command|cmd|cmdline|command_?line|shell_?command|shell|script|bash|sh)$/i;
const WORKSPACE_ARG = /^(workspace|workspace_?id|workspace_?name|run_?id|scope|sandbox)$/i;
const TEARDOWN_NAME = /teardown|clean_?up|delete_?workspace/i;

interface JsonSchemaProperty {
  type?: string | string[];
}

function properties(tool: Tool): Record<string, JsonSchemaProperty> {
  const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
  const out: Record<string, JsonSchemaProperty> = {};
  for (const [name, schema] of Object.entries(props)) {
    out[name] = schema && typeof schema === 'object' ? (schema as JsonSchemaProperty) : {};
  }
  return out;
}

function required(tool: Tool): string[] {
  const req = (tool.inputSchema as { required?: unknown }).required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

function acceptsString(schema: JsonSchemaProperty): boolean {
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes('string') : schema.type === 'string';
}

/** The string argument of `tool` that looks like a shell command, if any. */
export function commandArgument(tool: Tool): string | undefined {
  return Object.entries(properties(tool)).find(([name, schema]) => COMMAND_ARG.test(name) && acceptsString(schema))?.[0];
}

/** The string argument of `tool` that scopes a call to a workspace / run, if any. */
export function workspaceArgument(tool: Tool): string | undefined {
  return Object.entries(properties(tool)).find(([name, schema]) => WORKSPACE_ARG.test(name) && acceptsString(schema))?.[0];
}

function toolList(tools: Tool[]): string {
  return tools.length === 0 ? '(none)' : tools.map((t) => t.name).join(', ');
}

export function selectTool(tools: Tool[], name: string | undefined): { tool: Tool; selectedBy: 'option' | 'auto' } {
  if (tools.length === 0) throw new ProbeError('the server lists no tools');
  if (name !== undefined) {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new ProbeError(`the server does not list a tool named "${name}"; it lists: ${toolList(tools)}`);
    return { tool, selectedBy: 'option' };
  }
  const candidates = tools.filter((t) => commandArgument(t) !== undefined);
  if (candidates.length === 1) return { tool: candidates[0] as Tool, selectedBy: 'auto' };
  const why =
    candidates.length === 0
      ? 'no tool has a command-like string argument'
      : `${candidates.length} tools have a command-like argument (${toolList(candidates)})`;
  throw new ProbeError(`cannot pick the tool to probe: ${why}; pass --tool NAME (tools: ${toolList(tools)})`);
}

/** Parse an arguments template given as JSON text or an object. */
export function parseTemplate(template: string | Record<string, unknown>, what: string): Record<string, unknown> {
  let value: unknown = template;
  if (typeof template === 'string') {
    try {
      value = JSON.parse(template);
    } catch (error) {
      throw new ProbeError(`${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ProbeError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function containsPlaceholder(value: unknown, placeholder: string): boolean {
  if (typeof value === 'string') return value.includes(placeholder);
  if (Array.isArray(value)) return value.some((v) => containsPlaceholder(v, placeholder));
  if (value && typeof value === 'object') return Object.values(value).some((v) => containsPlaceholder(v, placeholder));
  return false;
}

export interface ArgsPlan {
  template: Record<string, unknown>;
  commandArgument?: string;
  workspaceArgument?: string;
  warnings: string[];
}

/** The arguments template for the probed tool: the user's, or a default for a command runner. */
export function planArguments(tool: Tool, userTemplate: string | Record<string, unknown> | undefined): ArgsPlan {
  const warnings: string[] = [];
  const cmd = commandArgument(tool);
  const ws = workspaceArgument(tool);
  let template: Record<string, unknown>;
  if (userTemplate !== undefined) {
    template = parseTemplate(userTemplate, '--args');
    if (!containsPlaceholder(template, '{marker}')) {
      throw new ProbeError('the --args template has no {marker} placeholder; without it no call can carry its marker');
    }
  } else {
    if (!cmd) {
      throw new ProbeError(`tool "${tool.name}" has no command-like argument, so there is no default; pass --args with a {marker} placeholder`);
    }
    template = { [cmd]: DEFAULT_COMMAND };
    if (ws) template[ws] = '{workspace}';
    const missing = required(tool).filter((r) => !(r in template));
    if (missing.length > 0) {
      throw new ProbeError(`tool "${tool.name}" requires ${missing.join(', ')}, which the default arguments do not fill; pass --args`);
    }
  }
  if (!containsPlaceholder(template, '{workspace}')) {
    warnings.push(
      ws
        ? `the arguments do not pass {workspace} although "${tool.name}" takes "${ws}"; every call shares one scope`
        : `"${tool.name}" takes no workspace argument; every caller shares whatever scope the server picks`,
    );
  }
  return { template, commandArgument: cmd, workspaceArgument: ws, warnings };
}

export interface Substitutions {
  marker?: string;
  workspace: string;
  session: string;
  round?: number;
}

/** Replace `{marker}`, `{workspace}`, `{session}` and `{round}` in every string of `template`. */
export function fillTemplate(template: unknown, values: Substitutions): unknown {
  if (typeof template === 'string') {
    return template.replace(/\{(marker|workspace|session|round)\}/g, (whole, key: string) => {
      const value = values[key as keyof Substitutions];
      return value === undefined ? whole : String(value);
    });
  }
  if (Array.isArray(template)) return template.map((v) => fillTemplate(v, values));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, values)]));
  }
  return template;
}

/** The teardown tool: named by the user, or the first whose name says teardown/cleanup/delete_workspace. */
export function selectTeardown(tools: Tool[], name: string | false | undefined, probed: Tool): Tool | null {
  if (name === false) return null;
  if (name !== undefined) {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new ProbeError(`the server does not list a teardown tool named "${name}"; it lists: ${toolList(tools)}`);
    return tool;
  }
  const matches = tools.filter((t) => t !== probed && TEARDOWN_NAME.test(t.name));
  return matches.find((t) => workspaceArgument(t) !== undefined) ?? matches[0] ?? null;
}

/** Arguments template for the teardown tool; a string when it cannot be built (the reason). */
export function planTeardownArguments(
  tool: Tool,
  userTemplate: string | Record<string, unknown> | undefined,
  probedPlan: ArgsPlan,
): Record<string, unknown> | string {
  if (userTemplate !== undefined) return parseTemplate(userTemplate, '--teardown-args');
  const template: Record<string, unknown> = {};
  const ws = workspaceArgument(tool);
  if (ws) template[ws] = '{workspace}';
  // The probed tool's key that carries {workspace}, if the teardown tool takes the same key.
  const props = properties(tool);
  for (const [key, value] of Object.entries(probedPlan.template)) {
    if (typeof value === 'string' && value.includes('{workspace}') && key in props) template[key] = value;
  }
  const missing = required(tool).filter((r) => !(r in template));
  if (missing.length > 0) return `teardown tool "${tool.name}" requires ${missing.join(', ')}; pass --teardown-args`;
  return template;
}
