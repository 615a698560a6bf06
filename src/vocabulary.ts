// The project's vocabulary: the names by which MCP servers spell a caller's scope, a teardown tool, a command argument
// and the properties that hold a handler. One list each, shared by the lint's settings and rules and by the probe.
// No imports: the probe reads this without loading ESLint, TypeScript or the analysis.

/** Default names of the argument through which a caller passes its scope (settings['mcp-stateless'].scopeArguments). */
export const DEFAULT_SCOPE_ARGUMENTS: readonly string[] = ['workspace', 'runId', 'run_id', 'scope', 'workspaceId', 'workspace_id'];

/** Argument names a probe treats as the caller's scope (a looser match than the lint's exact list). */
export const SCOPE_ARGUMENT_PATTERN = /^(workspace|workspace_?id|workspace_?name|run_?id|scope|sandbox)$/i;

/**
 * Names of arguments that say where the call's files go without being the configured scope argument (`workFolder`,
 * `outputDir`, `downloadsDir`, `cwd`, `saveTo`, `outputPath`): a missing one that falls back to a shared directory (the
 * server's home, working directory or temp dir) is the same hazard as a missing scope.
 */
export const DIRECTORY_ARGUMENT_PATTERN =
  /^(?:work(?:ing)?_?(?:folder|dir(?:ectory)?|space|tree|path)|(?:output|out|downloads?|save|saved|target|dest(?:ination)?|base|root|data|project|repo(?:sitory)?|run|temp|tmp|cache|scratch|upload|export|home|sandbox|screenshots?|images?|logs?|reports?|files?)_?(?:dir(?:ectory)?|folder|path|root|location)|cwd|(?:dir(?:ectory)?|folder)(?:_?(?:path|name))?|output(?:_?file)?|out_?file|save_?(?:to|as)|destination)$/i;

/**
 * Names of arguments or context fields that say whose data a call touches (`tenantId`, `orgId`, `teamId`): a missing
 * one that falls back to a constant (`'default-tenant'`) puts every caller without one in the same slot.
 */
export const TENANT_ARGUMENT_PATTERN = /^(?:tenant|org(?:anization)?|team|customer)_?id$|^tenant$/i;

/**
 * Names of arguments that carry the caller's own credential (`apiKey`, `token`, `accessToken`): a missing one that falls
 * back to the server's (an environment variable, a configured key) lets a caller that brings none act as the operator.
 */
export const CREDENTIAL_ARGUMENT_PATTERN = /^(?:(?:api|access|auth|bearer|session|personal_?access|github|openai|user)_?(?:key|token)|token|credentials?|password|secret|client_?secret|private_?key)$/i;

/** Either kind: the names a scope may go by besides the configured scope arguments. */
export const SCOPE_LIKE_PATTERN = new RegExp(`${DIRECTORY_ARGUMENT_PATTERN.source}|${TENANT_ARGUMENT_PATTERN.source}`, 'i');

/** Tool names that tear a scope down (require-teardown-tool's default `teardownPattern`, and the probe's). */
export const DEFAULT_TEARDOWN_PATTERN = '(teardown|tear_down|cleanup|clean_up|delete[-_]?workspace|remove[-_]?workspace|destroy[-_]?workspace|delete[-_]?run|purge)';

/** Argument names that carry a shell command (a command runner's tool). */
export const COMMAND_ARGUMENT_PATTERN = /^(command|cmd|cmdline|command_?line|shell_?command|shell|script|bash|sh)$/i;

/** Property and method names that hold the function serving a call in tool objects and classes. */
export const DEFAULT_HANDLER_PROPERTIES: readonly string[] = ['handler', 'execute', 'call', 'run', 'handle', 'callback', 'logic', 'invoke', 'cb', 'fn'];
