/**
 * The structure test's format-literal rule: a wire format's name written as a string outside a
 * `wire/` folder is a switch on the format (or a copy of the list) that belongs in the format's
 * folder or the registry. A format literal is a string the type checker types as a format: one
 * passed where a `WireFormat` goes, compared with one (`===`, `case`), or a union type spelling
 * the list again. The same word in another role — the `gemini` agent, an SDK's provider id `'openai'`,
 * a public `api: 'chat' | 'responses'` option — is not a format, and is not counted.
 */
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

/** The format names, as `core/model/wire-format.ts` lists them. */
const WIRE_FORMAT_NAMES = ['anthropic', 'openai', 'responses', 'gemini'];

/**
 * Where format names may be written: a `wire/` folder — the core's (`core/wire/<format>/`) or, for
 * a format's piece that needs node, one under the package that owns it (`testing/wire/<format>/`,
 * `agent/wire/<format>/`) — and the list itself, `core/model/wire-format.ts`.
 */
const FORMAT_HOME = /(^|\/)wire\/|^core\/model\/wire-format\.ts$/;

/** The program of the project's `tsconfig.json`, whose checker types the literals. */
export function projectProgram(tsconfig: string): ts.Program {
  const config = ts.readConfigFile(tsconfig, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(resolve(tsconfig)));
  return ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
}

/** True for a type that holds every format name: `WireFormat`, or a union that includes it. */
function isFormatType(type: ts.Type | undefined): boolean {
  if (type === undefined) return false;
  const members = type.isUnion() ? type.types : [type];
  const names = new Set(members.filter((member) => member.isStringLiteral()).map((member) => member.value));
  return WIRE_FORMAT_NAMES.every((name) => names.has(name));
}

/** The declared (not narrowed) type of an expression a literal is compared with. */
function declaredType(checker: ts.TypeChecker, expression: ts.Expression): ts.Type {
  const named = ts.isPropertyAccessExpression(expression) ? expression.name : expression;
  const symbol = checker.getSymbolAtLocation(named);
  return symbol ? checker.getTypeOfSymbol(symbol) : checker.getTypeAtLocation(expression);
}

const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** The type a literal is read as: what it is compared with, the union it is part of, or its slot. */
function formatTypeOf(checker: ts.TypeChecker, node: ts.StringLiteralLike): boolean {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && EQUALITY.has(parent.operatorToken.kind)) {
    const other = parent.left === node ? parent.right : parent.left;
    return isFormatType(declaredType(checker, other));
  }
  if (ts.isCaseClause(parent)) return isFormatType(declaredType(checker, parent.parent.parent.expression));
  if (ts.isLiteralTypeNode(parent)) {
    const union = ts.isUnionTypeNode(parent.parent) ? parent.parent : parent;
    return isFormatType(checker.getTypeFromTypeNode(union));
  }
  return isFormatType(checker.getContextualType(node));
}

/** The lines (1-based) where `file` writes a format name as a string the checker types as a format. */
export function formatLiteralLines(file: ts.SourceFile, checker: ts.TypeChecker): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && WIRE_FORMAT_NAMES.includes(node.text) && formatTypeOf(checker, node))
      lines.push(file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return lines;
}

/** True for a file the rule reads: source outside the formats' folders, not a test. */
export function readsFormatLiterals(name: string): boolean {
  if (FORMAT_HOME.test(name)) return false;
  return !/\.test(-utils)?\.tsx?$/.test(name) && !name.includes('__fixtures__/');
}
