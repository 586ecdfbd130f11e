// The hand-written declarations (src/index.d.ts, src/agents.d.ts) against the
// code: every value they declare is exported by the module, every value the
// module exports is declared, and each declared class has the methods its
// declaration names, no more and no fewer. `tsc` (npm run typecheck) checks
// that the declarations hang together and describe the calls of
// test/types.check.ts; this checks that they describe what is there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

const MODULES = [
  ['src/index.d.ts', '../src/index.js'],
  ['src/agents.d.ts', '../src/agents.js'],
];

const program = ts.createProgram(
  MODULES.map(([declarations]) => fileURLToPath(new URL(`../${declarations}`, import.meta.url))),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true },
);
const checker = program.getTypeChecker();

/** The values (not types) a declaration file exports: {name: symbol}. */
function declaredValues(declarations) {
  const source = program.getSourceFile(fileURLToPath(new URL(`../${declarations}`, import.meta.url)));
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source));
  const values = {};
  for (const symbol of exported) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (target.flags & ts.SymbolFlags.Value) values[symbol.name] = target;
  }
  return values;
}

/** The methods an instance of a declared class has, its base classes' included (Error has none). */
function declaredMethods(classSymbol) {
  const instance = checker.getDeclaredTypeOfSymbol(classSymbol);
  return checker
    .getPropertiesOfType(instance)
    .filter((property) => property.flags & ts.SymbolFlags.Method)
    .map((property) => property.name)
    .sort();
}

/** The methods the class's prototype chain defines, up to (not including) Error or Object. */
function implementedMethods(implementation) {
  const names = new Set();
  for (let prototype = implementation.prototype; prototype && prototype !== Error.prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      if (name !== 'constructor' && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names].sort();
}

for (const [declarations, module] of MODULES) {
  test(`${declarations} declares exactly what ${module.slice(3)} exports`, async () => {
    const implementation = await import(module);
    const declared = declaredValues(declarations);
    assert.deepEqual(Object.keys(declared).sort(), Object.keys(implementation).sort());
    for (const [name, symbol] of Object.entries(declared)) {
      const value = implementation[name];
      if (symbol.flags & ts.SymbolFlags.Class) {
        assert.equal(typeof value, 'function', `${name} is declared a class`);
        assert.deepEqual(declaredMethods(symbol), implementedMethods(value), `the methods of ${name}`);
      } else if (symbol.flags & ts.SymbolFlags.Function) {
        assert.equal(typeof value, 'function', `${name} is declared a function`);
      } else {
        const type = checker.getTypeOfSymbol(symbol);
        // A declared `string` constant is a string; `typeof tool` (approvalTool) is a function.
        const expected = type.getCallSignatures().length > 0 ? 'function' : checker.typeToString(type);
        assert.equal(typeof value, expected, `${name} is declared ${checker.typeToString(type)}`);
      }
    }
  });
}

test('the execution refusals are declared as the subclasses of HistoryHubError they are', async () => {
  const implementation = await import('../src/index.js');
  const declared = declaredValues('src/index.d.ts');
  for (const name of ['ExecutionRefusedError', 'NotApprovedError', 'ArgumentsMismatchError', 'AlreadyExecutedError']) {
    const declaredBase = checker.getBaseTypes(checker.getDeclaredTypeOfSymbol(declared[name]))[0].symbol.name;
    const implementedBase = Object.getPrototypeOf(implementation[name]).name;
    assert.equal(declaredBase, implementedBase, name);
  }
});
