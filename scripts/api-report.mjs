// The API report (`npm run api:report`): for each subpath in package.json `exports`, every export's
// name, kind and signature as the TypeScript checker sees them, written to `api/<subpath>.api.md`.
// `src/api-report.test.ts` regenerates the reports in memory and compares them to the checked-in
// files, so a change to the public surface shows up in review as a diff of these files.
//
//   node scripts/api-report.mjs          write api/*.api.md
//   node scripts/api-report.mjs --check  exit 1 when a checked-in report differs
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repositoryRoot = fileURLToPath(new URL('../', import.meta.url));
export const API_FOLDER = path.join(repositoryRoot, 'api');

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** Source text of a declaration's node, without comments, on one line. */
function print(node) {
  return printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile()).replace(/\s*\n\s*/g, ' ');
}

/** `<T extends object>` when the declaration has type parameters. */
function typeParameters(declaration) {
  const parameters = declaration?.typeParameters;
  return parameters?.length ? `<${parameters.map(print).join(', ')}>` : '';
}

// The checker writes `import("/abs/path").Name` for types it cannot name from the entry; the path is
// the machine's, so it is dropped to keep the report the same everywhere.
const withoutImportPaths = (text) => text.replace(/import\("[^"]*"\)\./g, '');

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

/** The published packages: the core (`packages/core`) and those beside it; the lab at the root is private. */
const PACKAGE_FOLDERS = ['core', 'redis', 'testing', 'proxy'];

/** The `rootDir` of a package's build: where the source of its `dist/` lies. */
function buildRootDir(folder) {
  const configPath = path.join(repositoryRoot, 'packages', folder, 'tsconfig.build.json');
  return ts.readConfigFile(configPath, ts.sys.readFile).config.compilerOptions.rootDir;
}

/**
 * Each subpath of each published package, with its source entry: `agent-compact` →
 * `agent-compact.api.md`, `agent-compact/tokenizer` → `tokenizer.api.md`, `@agent-compact/redis`
 * → `redis.api.md`, `@agent-compact/proxy/otel` → `proxy-otel.api.md`.
 */
export function subpaths() {
  return PACKAGE_FOLDERS.flatMap((folder) => {
    const manifest = JSON.parse(
      readFileSync(path.join(repositoryRoot, 'packages', folder, 'package.json'), 'utf8'),
    );
    const core = folder === 'core';
    const sourceRoot = path.resolve(repositoryRoot, 'packages', folder, buildRootDir(folder));
    return Object.entries(manifest.exports)
      .filter(([key]) => key !== './package.json')
      .map(([key, target]) => {
        const sub = key === '.' ? '' : key.slice(2);
        const stem = core ? sub || manifest.name : [folder, sub].filter(Boolean).join('-');
        return {
          specifier: sub ? `${manifest.name}/${sub}` : manifest.name,
          file: `${stem.replaceAll('/', '-')}.api.md`,
          entry: path.join(sourceRoot, target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
        };
      });
  });
}

function kindOf(symbol) {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.Module) return 'namespace';
  return 'unknown';
}

/** `  name?: type;` for each property, `  name(args): result;` for each method. */
function members(checker, type, location) {
  return checker
    .getPropertiesOfType(type)
    .map((property) => {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const modifiers = declaration ? ts.getCombinedModifierFlags(declaration) : 0;
      if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return undefined;
      if (property.name.startsWith('#')) return undefined;
      const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
      const readonly = modifiers & ts.ModifierFlags.Readonly ? 'readonly ' : '';
      const propertyType = checker.getTypeOfSymbolAtLocation(property, declaration ?? location);
      return `  ${readonly}${property.name}${optional}: ${checker.typeToString(propertyType, location, FORMAT)};`;
    })
    .filter((line) => line !== undefined);
}

function describeExport(checker, exported, location) {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const kind = kindOf(symbol);
  const name = exported.name;
  // A name that is both a value and a type (a const and its type) reports both.
  const lines = [];
  if (kind === 'class') {
    const declaration = symbol.valueDeclaration ?? symbol.declarations[0];
    const staticType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    const constructors = staticType
      .getConstructSignatures()
      .map(
        (signature) =>
          `  constructor${checker.signatureToString(signature, location).replace(/:[^:]*$/, '')};`,
      );
    // Only the class's own statics (not those it inherits from Error, which differ by @types/node).
    const ownStatics = new Set(
      [...(symbol.exports?.values() ?? [])]
        .filter(
          (item) =>
            item.flags & (ts.SymbolFlags.Property | ts.SymbolFlags.Method) && item.name !== 'prototype',
        )
        .map((item) => item.name),
    );
    const statics = members(checker, staticType, location)
      .filter((line) => ownStatics.has(line.trim().split(/[?:]/)[0]))
      .map((line) => `  static ${line.trimStart()}`);
    const instance = members(checker, checker.getDeclaredTypeOfSymbol(symbol), location);
    lines.push(
      `class ${name}${typeParameters(declaration)} {`,
      ...constructors,
      ...statics,
      ...instance,
      '}',
    );
  } else if (kind === 'interface') {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const callable = type
      .getCallSignatures()
      .map((signature) => `  ${checker.signatureToString(signature, location)};`);
    lines.push(
      `interface ${name}${typeParameters(symbol.declarations[0])} {`,
      ...callable,
      ...members(checker, type, location),
      '}',
    );
  } else if (kind === 'type') {
    const declaration = symbol.declarations[0];
    const text = declaration.type
      ? print(declaration.type)
      : checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), location, FORMAT);
    lines.push(`type ${name}${typeParameters(declaration)} = ${text};`);
  } else if (kind === 'function') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, symbol.valueDeclaration ?? location);
    for (const signature of type.getCallSignatures()) {
      lines.push(
        `function ${name}${checker.signatureToString(signature, location, FORMAT & ~ts.TypeFormatFlags.WriteArrowStyleSignature)};`,
      );
    }
  } else {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0] ?? location;
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    lines.push(`${kind} ${name}: ${checker.typeToString(type, location, FORMAT)};`);
    if (symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) {
      lines.push(
        `type ${name} = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), location, FORMAT)};`,
      );
    }
  }
  const isValue = Boolean(symbol.flags & ts.SymbolFlags.Value);
  return { name, kind, isValue, text: withoutImportPaths(lines.join('\n')) };
}

/** The checker's view of each subpath's exports, sorted by name. */
export function collectExports() {
  const entries = subpaths();
  const configPath = path.join(repositoryRoot, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} },
  );
  const program = ts.createProgram({
    rootNames: entries.map((entry) => entry.entry),
    options: config.options,
  });
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const source = program.getSourceFile(entry.entry);
    if (!source) throw new Error(`api-report: ${entry.entry} (${entry.specifier}) not found`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    const exports = (moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [])
      .map((exported) => describeExport(checker, exported, source))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { ...entry, exports };
  });
}

function render({ specifier, exports }) {
  const values = exports.filter((item) => item.isValue).length;
  return [
    `# API report: \`${specifier}\``,
    '',
    `Generated by \`npm run api:report\` with the TypeScript checker; do not edit by hand.`,
    `${exports.length} exports: ${values} values, ${exports.length - values} types only.`,
    '',
    '```ts',
    ...exports.map((item) => item.text),
    '```',
    '',
  ].join('\n');
}

/** Each report file's name and its content as generated now. */
export function buildApiReports() {
  return collectExports().map((entry) => ({
    file: entry.file,
    specifier: entry.specifier,
    content: render(entry),
  }));
}

function main() {
  const reports = buildApiReports();
  if (process.argv.includes('--check')) {
    const stale = reports.filter(
      ({ file, content }) =>
        !existsSync(path.join(API_FOLDER, file)) ||
        readFileSync(path.join(API_FOLDER, file), 'utf8') !== content,
    );
    for (const { file } of stale) console.error(`api/${file} is out of date; run npm run api:report`);
    process.exit(stale.length ? 1 : 0);
  }
  mkdirSync(API_FOLDER, { recursive: true });
  const expected = new Set(reports.map((report) => report.file));
  for (const file of readdirSync(API_FOLDER)) {
    if (file.endsWith('.api.md') && !expected.has(file)) rmSync(path.join(API_FOLDER, file));
  }
  for (const { file, content } of reports) writeFileSync(path.join(API_FOLDER, file), content);
  console.log(`wrote ${reports.length} reports to api/`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
