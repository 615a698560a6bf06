// The one door from ESLint into the analysis (as typescript-eslint's `getParserServices`): rules reach the module model
// and the server model only through these getters. Caches are WeakMaps keyed by the AST root (per file) and by the
// TypeScript program (per server), so they are collected with what they describe and safe under `--concurrency` and any
// file order.
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type * as ts from 'typescript';
import { AnalysisBudgetExceeded } from './budget.js';
import { cachedPer } from './cache.js';
import { ModuleModel, NO_LINKS } from './model.js';
import { mayRegisterHandlers } from './discovery.js';
import { ModuleFacts, type TraversalStep } from './module.js';
import { parserConversionOf, type ParserConversion } from './estree.js';
import { serverModelOf, type ServerModel } from './server.js';
import { mentionsMcp } from './wiring.js';
import { readSettings, settingsKey, type McpSettings } from './settings.js';

export type AnyContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** The fixed message when whole-server analysis is asked for and the file has no TypeScript program. */
export const TYPE_INFO_MISSING =
  "mcp-stateless: whole-server analysis (settings['mcp-stateless'].crossFile, set by the recommended-type-checked config) needs type information: use the typescript-eslint parser with languageOptions.parserOptions.projectService: true";

const NOT_TYPESCRIPT_ESLINT = " (this file's parser is not typescript-eslint's: set languageOptions.parser to typescript-eslint's parser for it, or lint it with the recommended config)";

/**
 * Text of a module that may build, connect or route an MCP server or transport (what the wiring rule looks at): it names
 * a server, a transport or a builder, and it mentions MCP (the wiring rule leaves other servers' wiring alone).
 */
const MAY_WIRE = /McpServer|\bServer\b|FastMCP|Transport|createMcpHandler|mcp-handler|\bserve\(/;
const mayWire = (text: string): boolean => mentionsMcp(text) && MAY_WIRE.test(text);

const modules = new WeakMap<TSESTree.Program, Map<string, ModuleModel | AnalysisBudgetExceeded>>();
const textRelevance = new WeakMap<TSESTree.Program, Map<string, boolean>>();

/** The settings of this lint, checked (one clear line on bad input). */
export function getSettings(context: AnyContext): McpSettings {
  return readSettings(context.settings as Record<string, unknown>);
}

/**
 * The server model (whole-server analysis) of the program this file belongs to: built once per TypeScript program and
 * settings. Null when whole-server analysis is off; throws `TYPE_INFO_MISSING` when it is on and there is no program
 * (unless `allowMissing`, which returns null instead).
 */
export function getServerModel(context: AnyContext, options: { allowMissing?: boolean } = {}): ServerModel | null {
  const settings = getSettings(context);
  if (!settings.crossFile) return null;
  const program = context.sourceCode.parserServices?.program as ts.Program | null | undefined;
  if (!program) {
    if (options.allowMissing) return null;
    const parser = (context as unknown as { languageOptions?: { parser?: { meta?: { name?: string } } } }).languageOptions?.parser?.meta?.name;
    throw new Error(TYPE_INFO_MISSING + (parser && !parser.includes('typescript-eslint') ? NOT_TYPESCRIPT_ESLINT : ''));
  }
  const { sourceCode } = context;
  return serverModelOf(program, settings, typescriptEslintConversion(context), { fileName: context.filename, text: sourceCode.text, ast: sourceCode.ast });
}

/** How typescript-eslint's parser converts this lint's files, when it is the parser (null for any other parser). */
function typescriptEslintConversion(context: AnyContext): ParserConversion | null {
  const languageOptions = (context as unknown as { languageOptions?: { parser?: unknown; parserOptions?: Record<string, unknown> } }).languageOptions;
  return parserConversionOf(languageOptions?.parser, languageOptions?.parserOptions);
}

/**
 * Whether the text of this module may register a handler or build, connect or route a server (a cheap superset test,
 * once per file and settings). Without whole-server analysis nothing else brings a module into the analysis.
 */
function textMayServeOrWire(context: AnyContext, settings: McpSettings, key: string): boolean {
  const text = context.sourceCode.text;
  return cachedPer(textRelevance, context.sourceCode.ast, key, () => mayRegisterHandlers(text, settings) || mayWire(text));
}

/**
 * Whether this module is analysed at all: its text may register a handler or wire a server, or (with whole-server
 * analysis) another module may reach into it. A module that is not has no handler code and no wiring, so every rule
 * that asks about those can return no listeners from `create` (most files of a server, at no cost beyond this test).
 */
export function isAnalysed(context: AnyContext): boolean {
  let settings: McpSettings;
  try {
    settings = getSettings(context);
  } catch {
    // Bad settings are reported where they always were, by the model's getter in the rule's listener (one clean line;
    // ESLint wraps errors thrown while a rule is created in a banner of its own).
    return true;
  }
  // With whole-server analysis, other modules decide (their calls into this one): the model is asked.
  if (settings.crossFile) return true;
  return textMayServeOrWire(context, settings, settingsKey(settings));
}

/**
 * The model of the file being linted. The first rule that asks builds it; every other rule on the same file gets the
 * same object. With whole-server analysis, a module the server model already analysed (and whose text is the text
 * being linted) is handed over as it is, so each file is indexed once; any other file is analysed from ESLint's AST with
 * what the server model knows about it.
 */
export function getModuleModel(context: AnyContext): ModuleModel {
  const sourceCode = context.sourceCode;
  const ast = sourceCode.ast;
  const settings = getSettings(context);
  const key = settingsKey(settings);
  let perAst = modules.get(ast);
  if (!perAst) {
    perAst = new Map();
    modules.set(ast, perAst);
  }
  let model = perAst.get(key);
  if (model instanceof AnalysisBudgetExceeded) throw model;
  if (!model) {
    try {
      const server = getServerModel(context);
      model = server?.modelFor(context.filename, sourceCode.text) ?? undefined;
      if (!model) {
        const links = server ? server.linksFor(context.filename) : NO_LINKS;
        // Most files of a server serve no call and wire no server: their text says so, and they are not indexed.
        const relevant = links.roots.length > 0 || textMayServeOrWire(context, settings, key);
        // ESLint (9 and 10) has already computed, and keeps, its traversal of the file: the index reads it.
        const traverse = (sourceCode as unknown as { traverse?: () => Iterable<TraversalStep> }).traverse;
        const steps = relevant && typeof traverse === 'function' ? traverse.call(sourceCode) : undefined;
        const facts = new ModuleFacts(ast, sourceCode.scopeManager!, sourceCode.visitorKeys as Record<string, readonly string[]>, settings, context.filename, { index: relevant, steps });
        model = new ModuleModel(facts, links);
      }
    } catch (e) {
      // Past the step budget while building: every rule on this file stops at once, nobody rebuilds it.
      if (e instanceof AnalysisBudgetExceeded) perAst.set(key, e);
      throw e;
    }
    perAst.set(key, model);
  }
  return model;
}

export type { ModuleModel, ServerModel };
export type { Scope, Variable } from './module.js';
