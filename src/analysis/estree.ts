// Converting a program's TypeScript source files to ESTree for the server model, once per file for the model and
// typescript-eslint's parser together.
//
// The server model needs every module of the server before the first file's rules report, so it converts the program's
// source files itself; typescript-eslint's parser then converts each file again when ESLint lints it. A TypeScript
// source file is immutable and the conversion is a function of it and a handful of settings, so the model converts with
// the settings the parser will ask for (node maps included) and keeps the result for that source-file object;
// typescript-eslint's converter, when asked for that very object with those very settings, hands it over once instead
// of converting again. Tokens and comments, which only ESLint needs, are made at the hand-over (by the converter's own
// functions, as it would have made them): a file the lint never reaches (the rest of the server in a pre-commit run of
// one file, the files not opened in the editor) costs the model no more than before. Any other question (another source file: a new program after an edit, another text; other
// settings; a second parse) is the converter's own. Nothing else in typescript-eslint's parse changes: it still finds
// the program, builds its services and analyses scopes itself.
//
// The hand-over needs typescript-estree 8, whose converter module is a CommonJS module with a replaceable export.
// When it is not, or when the parser ESLint uses loads another copy of typescript-estree, the parser simply converts as
// it always did: the lint is the same, only slower.
import type { TSESTree } from '@typescript-eslint/utils';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as ts from 'typescript';

/** The converter's settings that change what it produces (typescript-estree's parse settings, in part). */
interface ConverterSettings {
  allowInvalidAST: boolean;
  comment: boolean;
  errorOnUnknownASTType: boolean;
  loc: boolean;
  range: boolean;
  suppressDeprecatedPropertyWarnings: boolean;
  tokens: unknown[] | null;
}

interface Conversion {
  estree: TSESTree.Program;
  astMaps: unknown;
}

type Converter = (sf: ts.SourceFile, settings: ConverterSettings, preserveNodeMaps: boolean) => Conversion;

/** How typescript-eslint's parser will convert (read from ESLint's parser options, defaults as typescript-estree's). */
export interface ParserConversion {
  allowInvalidAST: boolean;
  errorOnUnknownASTType: boolean;
  suppressDeprecatedPropertyWarnings: boolean;
  preserveNodeMaps: boolean;
}

/**
 * How typescript-eslint's parser will convert this lint's files, from ESLint's parser and parser options: null unless
 * the parser is the copy of typescript-eslint's parser whose typescript-estree the hand-over reaches (any other
 * parser, or another copy, converts by itself).
 */
export function parserConversionOf(parser: unknown, parserOptions: Record<string, unknown> | undefined): ParserConversion | null {
  const parse = (parser as { parseForESLint?: unknown } | null | undefined)?.parseForESLint;
  if (typeof parse !== 'function') return null;
  if (ownParseForESLint() !== parse) return null;
  const o = parserOptions ?? {};
  return {
    allowInvalidAST: o.allowInvalidAST === true,
    errorOnUnknownASTType: o.errorOnUnknownASTType === true,
    suppressDeprecatedPropertyWarnings: typeof o.suppressDeprecatedPropertyWarnings === 'boolean' ? o.suppressDeprecatedPropertyWarnings : process.env.NODE_ENV !== 'test',
    preserveNodeMaps: o.preserveNodeMaps !== false,
  };
}

/** The settings that change the tree itself (tokens and comments are added at the hand-over). */
function keyOf(s: ConverterSettings, preserveNodeMaps: boolean): string {
  return [s.allowInvalidAST, s.errorOnUnknownASTType, s.loc, s.range, s.suppressDeprecatedPropertyWarnings, preserveNodeMaps].map(Number).join('');
}

type Extra = (sf: ts.SourceFile) => unknown[];

interface Shared {
  /** typescript-estree's own converter. */
  convert: Converter;
  /** Conversions made here and not yet handed over, per source file (each is handed over at most once). */
  pending: WeakMap<ts.SourceFile, { key: string; conversion: Conversion }>;
}

// Per module instance (so per ESLint worker thread); undefined until first asked, null when the hand-over is not
// possible with the typescript-estree installed.
let shared: Shared | null | undefined;
let plainConverter: Converter | null | undefined;

const require = createRequire(import.meta.url);

// The `parseForESLint` of the typescript-eslint parser we resolve (null when there is none), resolved once: a
// `require` resolves its path on every call, and this is asked by every rule on every file of a type-checked lint.
let ownParse: unknown;
function ownParseForESLint(): unknown {
  if (ownParse === undefined) {
    try {
      ownParse = (require('@typescript-eslint/parser') as { parseForESLint?: unknown }).parseForESLint ?? null;
    } catch {
      ownParse = null;
    }
  }
  return ownParse;
}

function share(): Shared | null {
  if (shared !== undefined) return shared;
  shared = null;
  try {
    // The copy of typescript-estree that typescript-eslint's parser loads.
    const parserRequire = createRequire(require.resolve('@typescript-eslint/parser'));
    // The settings below are what the converter of typescript-estree 8 reads; another major may read more.
    const { version } = parserRequire('@typescript-eslint/typescript-estree/package.json') as { version: string };
    if (!version.startsWith('8.')) return null;
    const dist = path.dirname(parserRequire.resolve('@typescript-eslint/typescript-estree'));
    const mod = parserRequire(path.join(dist, 'ast-converter.js')) as { astConverter?: unknown };
    // The functions the converter makes tokens and comments with.
    const { convertTokens } = parserRequire(path.join(dist, 'node-utils.js')) as { convertTokens?: Extra };
    const { convertComments } = parserRequire(path.join(dist, 'convert-comments.js')) as { convertComments?: Extra };
    const desc = Object.getOwnPropertyDescriptor(mod, 'astConverter');
    if (!desc || !desc.writable || typeof desc.value !== 'function' || typeof convertTokens !== 'function' || typeof convertComments !== 'function') return null;
    const convert = desc.value as Converter;
    const pending: Shared['pending'] = new WeakMap();
    mod.astConverter = function astConverter(sf: ts.SourceFile, settings: ConverterSettings, preserveNodeMaps: boolean): Conversion {
      const hit = pending.get(sf);
      if (hit) {
        pending.delete(sf);
        if (hit.key === keyOf(settings, preserveNodeMaps)) {
          // In the converter's order: the tree, then its tokens, then its comments.
          const estree = hit.conversion.estree as unknown as { tokens?: unknown[]; comments?: unknown[] };
          if (settings.tokens) estree.tokens = convertTokens(sf);
          if (settings.comment) estree.comments = convertComments(sf);
          return hit.conversion;
        }
      }
      return convert(sf, settings, preserveNodeMaps);
    };
    shared = { convert, pending };
  } catch {
    shared = null;
  }
  return shared;
}

function converter(): Converter | null {
  if (plainConverter === undefined) {
    try {
      plainConverter = (require('@typescript-eslint/typescript-estree/use-at-your-own-risk') as { astConverter?: Converter }).astConverter ?? null;
    } catch {
      plainConverter = null;
    }
  }
  return plainConverter;
}

type Estree = typeof import('@typescript-eslint/typescript-estree');
let estreeApi: Estree | undefined;

/**
 * The ESTree of a program's source file, with parent pointers. With `parser` (how typescript-eslint's parser will
 * convert the file when ESLint lints it), the conversion is made with those settings and handed over to the parser.
 */
export function toEstree(sf: ts.SourceFile, fileName: string, parser: ParserConversion | null): TSESTree.Program {
  // typescript-estree loads TypeScript, which a plain-JavaScript lint must never need: loaded on first use.
  estreeApi ??= require('@typescript-eslint/typescript-estree') as Estree;
  const { parse, simpleTraverse } = estreeApi;
  let ast: TSESTree.Program;
  // The converter needs the source file's parent pointers (programs made by typescript-eslint have them; a program
  // made with plain `ts.createProgram` does not).
  const hasParents = sf.statements.length === 0 || sf.statements[0].parent === sf;
  const s = parser && hasParents ? share() : null;
  if (s && parser) {
    const settings: ConverterSettings = { allowInvalidAST: parser.allowInvalidAST, comment: false, errorOnUnknownASTType: parser.errorOnUnknownASTType, loc: true, range: true, suppressDeprecatedPropertyWarnings: parser.suppressDeprecatedPropertyWarnings, tokens: null };
    const conversion = s.convert(sf, settings, parser.preserveNodeMaps);
    s.pending.set(sf, { key: keyOf(settings, parser.preserveNodeMaps), conversion });
    ast = conversion.estree;
  } else {
    const convert = hasParents ? converter() : null;
    if (convert) {
      ast = convert(sf, { allowInvalidAST: false, errorOnUnknownASTType: false, suppressDeprecatedPropertyWarnings: true, range: true, loc: true, tokens: null, comment: false }, false).estree;
    } else {
      ast = parse(sf.text, { range: true, loc: true, jsx: /\.[jt]sx$/.test(fileName), comment: false });
    }
  }
  simpleTraverse(ast, { enter() {} }, true);
  return ast;
}
