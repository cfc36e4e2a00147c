import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness.js';

/**
 * The query builder's types (`src/platform/db/schema.ts`) against the migrated database: every
 * table `DB` names exists, with exactly the columns its interface lists, nullable where the type
 * admits `null`, of a TypeScript type that fits the column's. A column renamed or retyped in a
 * migration and not in schema.ts (or the reverse) fails here instead of at run time.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface DeclaredColumn {
  type: string;
  nullable: boolean;
}

/** The tables of `DB` with their columns and declared types, read from the source. */
function declaredTables(): Map<string, Map<string, DeclaredColumn>> {
  const path = 'src/platform/db/schema.ts';
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const aliases = new Map<string, ts.TypeNode>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type);
  });
  // `Timestamp` and the like: their first type argument is what a read gives.
  const expand = (text: string) => {
    const alias = /^(\w+)(<.*>)?$/.exec(text)?.[1];
    const target = alias && aliases.get(alias);
    return target ? target.getText(source) : text;
  };
  const tables = new Map<string, Map<string, DeclaredColumn>>();
  for (const member of interfaces.get('DB')?.members ?? []) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    const table = (member.name as ts.Identifier).text;
    const columns = new Map<string, DeclaredColumn>();
    for (const column of interfaces.get(member.type.getText(source))?.members ?? []) {
      if (!ts.isPropertySignature(column) || !column.type) continue;
      const written = column.type.getText(source);
      // Json<T> and JsonDefault<T> name the jsonb columns; other aliases are expanded.
      const type = /^(Json|JsonDefault)</.test(written) ? written : expand(written);
      columns.set((column.name as ts.Identifier).text, { type, nullable: /\bnull\b/.test(type) });
    }
    tables.set(table, columns);
  }
  return tables;
}

/** Which TypeScript types may stand for a read of each PostgreSQL type. */
const FITS: Record<string, RegExp> = {
  text: /\bstring\b|'/,
  'character varying': /\bstring\b|'/,
  integer: /\bnumber\b/,
  smallint: /\bnumber\b/,
  bigint: /\bnumber\b|\bstring\b/,
  boolean: /\bboolean\b/,
  jsonb: /^(Json|JsonDefault)<|\bunknown\b/,
  json: /^(Json|JsonDefault)<|\bunknown\b/,
  'timestamp with time zone': /\bDate\b/,
  bytea: /\bUint8Array\b|\bBuffer\b/,
  ARRAY: /\[\]|Array</,
  uuid: /\bstring\b/,
  'double precision': /\bnumber\b/,
  xid8: /\bstring\b/,
};

describe('schema.ts and the database', () => {
  it('agree on every table, column, nullability and type the query builder uses', async () => {
    const rows = (await t.database.session((run) =>
      run(
        `SELECT table_name, column_name, is_nullable, data_type FROM information_schema.columns
         WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
      ),
    )) as { table_name: string; column_name: string; is_nullable: 'YES' | 'NO'; data_type: string }[];
    const actual = new Map<string, typeof rows>();
    for (const row of rows) actual.set(row.table_name, [...(actual.get(row.table_name) ?? []), row]);

    const declared = declaredTables();
    expect(declared.size).toBeGreaterThan(30);
    const problems: string[] = [];
    for (const [table, columns] of declared) {
      const inDatabase = actual.get(table);
      if (!inDatabase) {
        problems.push(`${table}: no such table`);
        continue;
      }
      for (const name of columns.keys()) {
        if (!inDatabase.some((c) => c.column_name === name))
          problems.push(`${table}.${name}: no such column`);
      }
      for (const column of inDatabase) {
        const mine = columns.get(column.column_name);
        const where = `${table}.${column.column_name}`;
        if (!mine) {
          problems.push(`${where}: not declared in schema.ts`);
          continue;
        }
        if (mine.nullable !== (column.is_nullable === 'YES'))
          problems.push(
            `${where}: ${column.is_nullable === 'YES' ? 'nullable' : 'NOT NULL'}, declared ${mine.type}`,
          );
        const fits = FITS[column.data_type];
        if (!fits) problems.push(`${where}: no rule for ${column.data_type}`);
        else if (!fits.test(mine.type)) problems.push(`${where}: ${column.data_type}, declared ${mine.type}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
