/**
 * The architecture's layers as lint rules (no import plugin is installed, so the project keeps its own):
 *
 * - `layers/no-import-cycle`: no module reaches itself again through the modules it imports at run time.
 *   Type-only imports are erased by the compiler and load nothing, so they do not count.
 * - `layers/boundaries`: what a layer may import, by the imported file's path in the project (relative
 *   imports, `export … from` and dynamic `import()` alike); see eslint.config.js for the layers.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const projectRoot = dirname(new URL(import.meta.url).pathname);

/** The project file a relative specifier names (`./x.js` is `./x.ts` in the sources), or null. */
function resolveRelative(fromFile, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`];
  candidates.push(join(base, 'index.ts'));
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const parsed = new Map();

/** The files a module imports at run time (type-only imports left out), parsed once per lint run and change. */
function runtimeImports(file) {
  const modified = statSync(file).mtimeMs;
  const known = parsed.get(file);
  if (known && known.modified === modified) return known.imports;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const imports = [];
  for (const statement of source.statements) {
    let specifier = null;
    if (ts.isImportDeclaration(statement) && !isTypeOnlyImport(statement.importClause)) {
      specifier = statement.moduleSpecifier.text;
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      specifier = statement.moduleSpecifier.text;
    }
    const target = specifier && resolveRelative(file, specifier);
    if (target) imports.push(target);
  }
  parsed.set(file, { modified, imports });
  return imports;
}

function isTypeOnlyImport(clause) {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((element) => element.isTypeOnly)
  );
}

/** A path of imports from `start` back to `file`, or null. */
function pathBack(start, file) {
  const seen = new Set();
  const walk = (current, trail) => {
    if (current === file) return trail;
    if (seen.has(current)) return null;
    seen.add(current);
    for (const next of runtimeImports(current)) {
      const found = walk(next, [...trail, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [start]);
}

const isTypeOnlyNode = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.type === 'ImportDeclaration' &&
    node.specifiers.length > 0 &&
    node.specifiers.every((specifier) => specifier.importKind === 'type'));

/** Every import of a file: the node to report on, its specifier, and whether it is type-only. */
function onImports(report) {
  const visit = (node) => {
    if (node.source && typeof node.source.value === 'string') {
      report(node, node.source.value, isTypeOnlyNode(node), node.type === 'ImportExpression');
    }
  };
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: visit,
  };
}

const shortPath = (file) => relative(projectRoot, file);

const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbids import cycles between modules (run-time imports).' },
    schema: [],
    messages: { cycle: 'Import cycle: {{cycle}}.' },
  },
  create(context) {
    const file = context.filename;
    return onImports((node, specifier, typeOnly, dynamic) => {
      if (typeOnly || dynamic) return;
      const target = resolveRelative(file, specifier);
      if (!target) return;
      const cycle = pathBack(target, file);
      if (cycle) {
        context.report({
          node,
          messageId: 'cycle',
          data: { cycle: [file, ...cycle].map(shortPath).join(' -> ') },
        });
      }
    });
  },
};

/**
 * Options: `{ layer, allow?, deny?, allowPackages?, typesFrom? }`. `allow` / `deny` are regular expressions on
 * the imported file's project path (`src/...`); with `allow`, anything else in the project is refused.
 * `allowPackages: false` refuses every package and Node module. `typesFrom` lists paths a type-only import may
 * name beyond `allow` (types load nothing).
 */
const boundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps each layer to the imports it may use.' },
    schema: [
      {
        type: 'object',
        properties: {
          layer: { type: 'string' },
          allow: { type: 'array', items: { type: 'string' } },
          deny: { type: 'array', items: { type: 'string' } },
          typesFrom: { type: 'array', items: { type: 'string' } },
          allowPackages: { type: 'boolean' },
        },
        required: ['layer'],
        additionalProperties: false,
      },
    ],
    messages: {
      refused: '{{layer}} may not import {{target}}.',
    },
  },
  create(context) {
    const options = context.options[0];
    const allow = options.allow?.map((pattern) => new RegExp(pattern));
    const deny = (options.deny ?? []).map((pattern) => new RegExp(pattern));
    const typesFrom = (options.typesFrom ?? []).map((pattern) => new RegExp(pattern));
    const file = context.filename;
    return onImports((node, specifier, typeOnly) => {
      const refuse = (target) =>
        context.report({ node, messageId: 'refused', data: { layer: options.layer, target } });
      if (!specifier.startsWith('.')) {
        if (options.allowPackages === false) refuse(specifier);
        return;
      }
      const resolved = resolveRelative(file, specifier);
      const target = resolved ? shortPath(resolved) : shortPath(resolve(dirname(file), specifier));
      if (deny.some((pattern) => pattern.test(target))) return refuse(target);
      if (!allow || allow.some((pattern) => pattern.test(target))) return;
      if (typeOnly && typesFrom.some((pattern) => pattern.test(target))) return;
      refuse(target);
    });
  },
};

export const layersPlugin = { rules: { 'no-import-cycle': noImportCycle, boundaries } };
