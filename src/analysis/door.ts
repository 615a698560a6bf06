// The one door from ESLint into the analysis (as typescript-eslint's `getParserServices`): rules reach the module model
// and the server model only through these getters. Caches are WeakMaps keyed by the AST root (per file) and by the
// TypeScript program (per server), so they are collected with what they describe and safe under `--concurrency` and any
// file order.
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type * as ts from 'typescript';
import path from 'node:path';
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
const moduleFacts = new WeakMap<TSESTree.Program, Map<string, ModuleFacts | AnalysisBudgetExceeded>>();
const textRelevance = new WeakMap<TSESTree.Program, Map<string, TextRelevance>>();

/** What a module's text shows it may do: serve calls (register a handler), only wire a server, or neither. */
type TextRelevance = 'serves' | 'wires' | 'none';

/** Which question a rule asks of a module: about the code that serves calls, or about how servers are wired. */
export type Question = 'handlers' | 'wiring';

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
 * What the text of this module may do (a cheap superset test, once per file and settings): register a handler, or else
 * build, connect or route a server. Without whole-server analysis nothing else brings a module into the analysis.
 */
function textRelevanceOf(context: AnyContext, settings: McpSettings, key: string): TextRelevance {
  const text = context.sourceCode.text;
  return cachedPer(textRelevance, context.sourceCode.ast, key, () =>
    mayRegisterHandlers(text, settings) ? 'serves' : mayWire(text) ? 'wires' : 'none',
  );
}

/**
 * Whether this module is analysed at all for a rule's question: for handler code, its text may register a handler; for
 * wiring, it may also build, connect or route a server; with whole-server analysis, another module may reach into it
 * (always yes). A module that is not has nothing to say to the question, so the rule returns no listeners from `create`
 * (most files of a server, at no cost beyond this test). Without whole-server analysis a module whose text registers
 * nothing serves no call: every handler rule would find nothing in it.
 */
export function isAnalysed(context: AnyContext, question: Question = 'handlers'): boolean {
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
  const relevance = textRelevanceOf(context, settings, settingsKey(settings));
  return question === 'wiring' ? relevance !== 'none' : relevance === 'serves';
}

/**
 * The per-module facts of the file being linted (its index, scopes and settings), without the handler analysis: what
 * the wiring rule needs. Shared with the module model when a rule asks for that too.
 */
export function getModuleFacts(context: AnyContext): ModuleFacts {
  const settings = getSettings(context);
  // With whole-server analysis the facts come with the model the server model hands over (each file indexed once).
  if (settings.crossFile) return getModuleModel(context).facts;
  return localFacts(context, settings, settingsKey(settings), false);
}

/**
 * Listeners that build this file's index during ESLint's own traversal, for the first rule created for the file whose
 * question the file's text may answer (null for every other rule, and with whole-server analysis, where the server
 * model may hand over facts it already built). The facts are cached at once; the rules read them at `Program:exit`.
 */
export function indexListeners(context: AnyContext): Record<string, (node: TSESTree.Node) => void> | null {
  let settings: McpSettings;
  try {
    settings = getSettings(context);
  } catch {
    return null;
  }
  const sourceCode = context.sourceCode;
  // Not a JavaScript or TypeScript file (a rule that also reads JSON), or whole-server analysis: today's way.
  if (settings.crossFile || !sourceCode.scopeManager) return null;
  const key = settingsKey(settings);
  const ast = sourceCode.ast;
  const perAst = perProgram(moduleFacts, ast);
  if (perAst.has(key) || textRelevanceOf(context, settings, key) === 'none') return null;
  const facts = new ModuleFacts(ast, sourceCode.scopeManager!, sourceCode.visitorKeys as Record<string, readonly string[]>, settings, context.filename, { during: 'traversal' });
  perAst.set(key, facts);
  return facts.traversalListeners();
}

/** The per-settings entries a cache keeps for one file's AST. */
function perProgram<V>(cache: WeakMap<TSESTree.Program, Map<string, V>>, ast: TSESTree.Program): Map<string, V> {
  let perAst = cache.get(ast);
  if (!perAst) {
    perAst = new Map();
    cache.set(ast, perAst);
  }
  return perAst;
}

/** The facts of this file built from ESLint's AST (cached per AST and settings). */
function localFacts(context: AnyContext, settings: McpSettings, key: string, reachedFromElsewhere: boolean): ModuleFacts {
  const sourceCode = context.sourceCode;
  const ast = sourceCode.ast;
  const perAst = perProgram(moduleFacts, ast);
  let facts = perAst.get(key);
  if (facts instanceof AnalysisBudgetExceeded) throw facts;
  if (!facts) {
    // Most files of a server serve no call and wire no server: their text says so, and they are not indexed.
    const relevant = reachedFromElsewhere || textRelevanceOf(context, settings, key) !== 'none';
    // ESLint (9 and 10) has already computed, and keeps, its traversal of the file: the index reads it.
    const traverse = (sourceCode as unknown as { traverse?: () => Iterable<TraversalStep> }).traverse;
    const steps = relevant && typeof traverse === 'function' ? traverse.call(sourceCode) : undefined;
    try {
      facts = new ModuleFacts(ast, sourceCode.scopeManager!, sourceCode.visitorKeys as Record<string, readonly string[]>, settings, context.filename, { index: relevant, steps });
    } catch (e) {
      if (e instanceof AnalysisBudgetExceeded) perAst.set(key, e);
      throw e;
    }
    perAst.set(key, facts);
  }
  return facts;
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
  const perAst = perProgram(modules, ast);
  let model = perAst.get(key);
  if (model instanceof AnalysisBudgetExceeded) throw model;
  if (!model) {
    try {
      const server = getServerModel(context);
      model = server?.modelFor(context.filename, sourceCode.text) ?? undefined;
      if (!model) {
        const links = server ? server.linksFor(context.filename) : NO_LINKS;
        model = new ModuleModel(localFacts(context, settings, key, links.roots.length > 0), links);
      }
    } catch (e) {
      // Past this file's step budget while building: every rule on this file stops at once, nobody rebuilds it. Another
      // module's budget is not this file's: the server model leaves that module out, and the next question rebuilds.
      if (e instanceof AnalysisBudgetExceeded && path.resolve(e.fileName) === path.resolve(context.filename)) perAst.set(key, e);
      throw e;
    }
    perAst.set(key, model);
  }
  return model;
}

export type { ModuleModel, ServerModel };
export type { Scope, Variable } from './module.js';
