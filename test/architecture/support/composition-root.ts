/**
 * The composition root's checks (docs/architecture.md, "Wiring"), read from each file's syntax
 * tree under `<root>/src/app` with TypeScript's parser: functions longer than MAX_LINES, and late
 * patches (`LateBound`, a listener or binding attached to a built part, a closure over a constant
 * declared further down the same block).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The longest function src/app may have (docs/architecture.md, "Wiring"). */
export const MAX_LINES = 80;
/** Method names that attach something to an object after it was built. */
const PATCHING_METHODS = new Set(['bind', 'addListener', 'onEnded', 'on', 'once', 'subscribe']);

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFilesUnder(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

function parsedAppFiles(root: string): ts.SourceFile[] {
  return sourceFilesUnder(path.join(root, 'src', 'app')).map((file) =>
    ts.createSourceFile(
      path.relative(root, file),
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.ES2022,
      true,
    ),
  );
}

/** `<file>:<line> …` strings by file, then line. */
const byPlace = (a: string, b: string) => {
  const [fileA = '', lineA = ''] = a.split(/[: ]/);
  const [fileB = '', lineB = ''] = b.split(/[: ]/);
  return fileA.localeCompare(fileB) || Number(lineA) - Number(lineB);
};
const lineOf = (file: ts.SourceFile, position: number) =>
  file.getLineAndCharacterOfPosition(position).line + 1;

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** `<file>:<line> <name>: <n> lines` for each function, method or arrow function longer than `max` lines. */
export function longFunctions(root: string, max: number): string[] {
  const found: string[] = [];
  for (const file of parsedAppFiles(root)) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = lineOf(file, node.getStart(file));
        const lines = lineOf(file, node.getEnd()) - first + 1;
        if (lines > max)
          found.push(`${file.fileName}:${first} ${functionName(node)}: ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

/** The names of the constants and variables declared directly in a block, with where each is declared. */
function declaredIn(block: ts.Block | ts.SourceFile): Map<string, number> {
  const names = new Map<string, number>();
  for (const statement of block.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const add = (name: ts.BindingName): void => {
        if (ts.isIdentifier(name)) names.set(name.text, name.getStart());
        else
          for (const element of name.elements)
            if (!ts.isOmittedExpression(element)) add(element.name);
      };
      add(declaration.name);
    }
  }
  return names;
}

/** An identifier that names a variable (not a property of something, nor a key in an object literal). */
function isVariableUse(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (
    (ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  return !ts.isTypeReferenceNode(parent) && !ts.isQualifiedName(parent);
}

/** `<file>:<line> <what>` for each late patch under `root/src/app`. */
export function latePatches(root: string): string[] {
  const found: string[] = [];
  for (const file of parsedAppFiles(root)) {
    const report = (node: ts.Node, what: string) =>
      found.push(`${file.fileName}:${lineOf(file, node.getStart(file))} ${what}`);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && node.text === 'LateBound') report(node, 'LateBound');
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        PATCHING_METHODS.has(node.expression.name.text)
      ) {
        report(node, `${node.expression.getText(file)}(…)`);
      }
      if (ts.isBlock(node) || ts.isSourceFile(node)) findForwardReferences(node, file, report);
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found.sort(byPlace);
}

/** Closures in `block` that use a constant or variable the same block declares further down. */
function findForwardReferences(
  block: ts.Block | ts.SourceFile,
  file: ts.SourceFile,
  report: (node: ts.Node, what: string) => void,
): void {
  const declared = declaredIn(block);
  if (declared.size === 0) return;
  const visit = (node: ts.Node, inClosure: boolean): void => {
    if (ts.isIdentifier(node) && inClosure && isVariableUse(node)) {
      const at = declared.get(node.text);
      if (at !== undefined && at > node.getStart(file))
        report(node, `forward reference to ${node.text}`);
    }
    // A nested block has its own declarations (checked on its own); its closures still see ours.
    ts.forEachChild(node, (child) => visit(child, inClosure || ts.isFunctionLike(node)));
  };
  for (const statement of block.statements) visit(statement, false);
}
