/**
 * Finds `new X(...)` in an area's files where X is declared in another area, with the
 * TypeScript compiler's own symbol resolution (aliases and re-exports followed).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { areasIn } from './layout.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** `<file>: new <Class> (<its area>)` for each construction of another area's class under `root/src` (the areas: architecture.json). */
export function foreignConstructions(root: string): string[] {
  const src = path.join(root, 'src');
  const areas = areasIn(root);
  const areaOf = (file: string): string | undefined => {
    const [top, ...rest] = path.relative(src, file).split(path.sep);
    return rest.length > 0 && top !== undefined && areas.includes(top) ? top : undefined;
  };
  const files = areas.flatMap((area) => sourceFiles(path.join(src, area)));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const sourceFile of program.getSourceFiles()) {
    const area = areaOf(sourceFile.fileName);
    if (!area) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node)) {
        let symbol = checker.getSymbolAtLocation(node.expression);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias)
          symbol = checker.getAliasedSymbol(symbol);
        const declaredIn = symbol?.declarations?.[0]?.getSourceFile().fileName;
        const owner = declaredIn === undefined ? undefined : areaOf(declaredIn);
        if (owner && owner !== area)
          found.push(`${path.relative(root, sourceFile.fileName)}: new ${symbol?.name} (${owner})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return found;
}
