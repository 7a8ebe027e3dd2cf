#!/usr/bin/env node
// Checks the layering of src/: reads every import of every .ts file (static,
// `export … from`, `import type`, dynamic `import()`), then fails on
//  - an import from a lower layer to a higher one, or between two groups of
//    the same layer (e.g. backends/lan -> backends/local), and
//  - any import cycle between files.
// Usage: node scripts/check-layers.mjs [srcDir]   (exit 1 and a list when broken)
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The layers, lowest first. A file belongs to the group whose directory
 * (relative to src/) is the longest prefix of its path; `index` is
 * src/index.ts. A group may import its own files and any group of a lower
 * layer, nothing else. A group inside another group (`backends/local/lock`
 * inside `backends/local`) is private to it: below the layer of its parent,
 * only the parent's own groups may import it.
 */
export const LAYERS = [
  ['model', 'errors'],
  ['events'],
  ['codec'],
  ['operators'],
  ['discovery'],
  ['relay'],
  ['backends'],
  // The local backend's artifact modules, one per thing on disk, below the
  // publisher and the watch that coordinate them (private to backends/local);
  // under them all, the native addon their system calls go through.
  ['backends/local/addon'],
  ['backends/local/names', 'backends/local/safe-fs'],
  ['backends/local/lock', 'backends/local/notify'],
  ['backends/local/segment', 'backends/local/block', 'backends/local/journal'],
  ['backends/memory', 'backends/local', 'backends/lan', 'backends/etcd'],
  ['bridge', 'testing'],
  ['cli'],
  ['index'],
];

const rankOf = new Map(LAYERS.flatMap((groups, rank) => groups.map((group) => [group, rank])));
const groupsByLength = [...rankOf.keys()].sort((a, b) => b.length - a.length);

function groupOf(path) {
  if (path === 'index.ts') return 'index';
  return groupsByLength.find((group) => group !== 'index' && path.startsWith(`${group}/`));
}

/** The group that contains `group` (its longest proper prefix that is a group), if any. */
function parentOf(group) {
  return groupsByLength.find((other) => other !== group && group.startsWith(`${other}/`));
}

function listFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
    .map((path) => path.split('\\').join('/'));
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(srcDir, file) {
  // Comments can quote imports (JSDoc examples): drop them first.
  const text = readFileSync(join(srcDir, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (specifier === undefined || !specifier.startsWith('.')) continue;
    const target = relative(srcDir, resolve(srcDir, dirname(file), specifier))
      .split('\\')
      .join('/');
    found.push(target.replace(/\.js$/, '.ts'));
  }
  return found;
}

/** Strongly connected components of more than one file (or a file importing itself): the import cycles. */
function cyclesOf(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (node) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indices.get(next)));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return cycles;
}

/**
 * @param {string} srcDir
 * @returns {{ problems: string[], files: number, imports: number }}
 */
export function checkLayers(srcDir) {
  const problems = [];
  const graph = new Map();
  let imports = 0;
  for (const file of listFiles(srcDir)) {
    const targets = importsOf(srcDir, file);
    graph.set(file, targets);
    imports += targets.length;
    const from = groupOf(file);
    if (from === undefined) {
      problems.push(`${file}: in no layer (add its directory to LAYERS in scripts/check-layers.mjs)`);
      continue;
    }
    for (const target of targets) {
      if (target.startsWith('..')) continue; // outside src/ (package.json)
      const to = groupOf(target);
      if (to === undefined || to === from) continue;
      if (rankOf.get(to) >= rankOf.get(from)) {
        const why = rankOf.get(to) === rankOf.get(from) ? 'a peer group of the same layer' : 'a higher layer';
        problems.push(`${file} (${from}) imports ${target} (${to}): ${why}`);
        continue;
      }
      const parent = parentOf(to);
      if (
        parent !== undefined &&
        from !== parent &&
        !from.startsWith(`${parent}/`) &&
        rankOf.get(from) <= rankOf.get(parent)
      ) {
        problems.push(`${file} (${from}) imports ${target} (${to}): private to ${parent}`);
      }
    }
  }
  for (const cycle of cyclesOf(graph)) problems.push(`import cycle: ${cycle.join(' <-> ')}`);
  return { problems, files: graph.size, imports };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('check-layers.mjs')) {
  const srcDir = resolve(process.argv[2] ?? 'src');
  const { problems, files, imports } = checkLayers(srcDir);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s) in ${relative(process.cwd(), srcDir) || '.'}:`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exit(1);
  }
  console.log(`check-layers: ${files} files, ${imports} relative imports: no upward import, no cycle`);
}
