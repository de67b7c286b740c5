/**
 * What the folders of src/ are, from architecture.json (the one list, also read by
 * .dependency-cruiser.cjs): the floors it names, and every other folder an area.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPOSITORY } from './depcruise.js';

export interface Layout {
  readonly floors: Readonly<
    Record<string, { readonly role: string; readonly imports: readonly string[] }>
  >;
  readonly areas: { readonly imports: readonly string[]; readonly serviceAreas: readonly string[] };
  readonly entryPoints: readonly string[];
}

export const LAYOUT = JSON.parse(
  readFileSync(path.join(REPOSITORY, 'architecture.json'), 'utf8'),
) as Layout;

/** The folders directly under `root/src`. */
function foldersIn(root: string): string[] {
  return readdirSync(path.join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The areas of the tree at `root`: its folders under src/ that are not floors. */
export function areasIn(root: string): string[] {
  return foldersIn(root).filter((folder) => !(folder in LAYOUT.floors));
}

/** A folder name in PascalCase, as in its area's factory: account-lifecycle → AccountLifecycle. */
export const pascal = (folder: string) =>
  folder.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());

/** The file and function an area's folder must have: `<area>-area.ts` and `create<Area>Area`, or the service's for a one-service area. */
export function factoryOf(area: string): { readonly file: string; readonly name: string } {
  return LAYOUT.areas.serviceAreas.includes(area)
    ? { file: `src/${area}/${area}-service.ts`, name: `create${pascal(area)}Service` }
    : { file: `src/${area}/${area}-area.ts`, name: `create${pascal(area)}Area` };
}

/** The names a module exports (declarations, `export { … }` lists), read with the TypeScript parser. */
function exportedNames(file: string): Set<string> {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.ES2022,
    false,
  );
  const names = new Set<string>();
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && exported(statement))
      names.add(statement.name.text);
    if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
    }
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) names.add(element.name.text);
    }
  }
  return names;
}

/**
 * What does not fit architecture.json in the tree at `root`: a folder under src/ that is no floor
 * and has no area factory, a floor or a one-service area that does not exist, a one-service area
 * that is also a floor.
 */
export function layoutProblems(root: string): string[] {
  const folders = foldersIn(root);
  const problems: string[] = [];
  for (const area of areasIn(root)) {
    const { file, name } = factoryOf(area);
    const exists = existsSync(path.join(root, file));
    if (!exists || !exportedNames(path.join(root, file)).has(name)) {
      problems.push(
        `src/${area} is neither a floor in architecture.json nor an area: ${exists ? `${file} does not export ${name}` : `there is no ${file} exporting ${name}`}`,
      );
    }
  }
  for (const floor of Object.keys(LAYOUT.floors))
    if (!folders.includes(floor))
      problems.push(`floor ${floor} (architecture.json) has no folder src/${floor}`);
  for (const area of LAYOUT.areas.serviceAreas) {
    if (area in LAYOUT.floors)
      problems.push(`${area} is both a floor and a one-service area in architecture.json`);
    else if (!folders.includes(area))
      problems.push(`one-service area ${area} (architecture.json) has no folder src/${area}`);
  }
  return problems;
}

/** architecture.json's `imports` as the doc's table says them. */
const importsText = (imports: readonly string[]) =>
  imports.includes('*') ? 'anything' : imports.length > 0 ? imports.join(', ') : 'nothing';

/** The folders of src/ at `root` as `<folder>: <kind>; imports <what it may import>` (and a floor's role), sorted: what the doc's table must say. */
export function expectedTable(root: string): string[] {
  return [
    ...Object.entries(LAYOUT.floors).map(
      ([floor, { role, imports }]) => `${floor}: floor; imports ${importsText(imports)} — ${role}`,
    ),
    ...areasIn(root).map(
      (area) =>
        `${area}: ${LAYOUT.areas.serviceAreas.includes(area) ? 'service area' : 'area'}; imports ${importsText(['areas', ...LAYOUT.areas.imports])}`,
    ),
  ].sort();
}

export const TABLE_START = '<!-- areas:start';
export const TABLE_END = '<!-- areas:end -->';

/**
 * The rows of the table between the markers in `markdown`, in the form of `expectedTable`: a
 * row is "| `src/<folder>` | <kind> | <may import> | <what it is> |"; what it is counts for floors only.
 */
export function documentedTable(markdown: string): string[] {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END, start);
  if (start < 0 || end < 0)
    throw new Error(`no table between ${TABLE_START} … --> and ${TABLE_END}`);
  return markdown
    .slice(start, end)
    .split('\n')
    .flatMap((line) => {
      const row =
        /^\|\s*`src\/([^`/]+)\/?`\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*(.*?)\s*\|\s*$/.exec(line);
      if (!row) return [];
      const [, folder, kind, imports, role] = row;
      return [`${folder}: ${kind}; imports ${imports}${kind === 'floor' ? ` — ${role}` : ''}`];
    })
    .sort();
}
