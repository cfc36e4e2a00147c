import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/platform/db/database.js';
import { migrate } from '../src/platform/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}

/** Migrates one template per run; each test file then starts from a copy of it (fast, isolated). */
export default async function setup(project: TestProject) {
  // The project's name is its engine (see vitest.config.ts); its env only reaches the test workers.
  if (project.name === 'postgres') return setupPostgres(project);
  return setupPglite(project);
}

async function setupPglite(project: TestProject) {
  const database = await openDatabase({});
  await migrate(database);
  const dump = await database.dump!();
  await database.close();
  const dir = join(process.cwd(), '.tmp');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `pglite-template-${process.pid}.tar.gz`);
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return async () => {
    await rm(file, { force: true });
  };
}

async function setupPostgres(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL!;
  const template = `flagship_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const database = await openDatabase({ url: withDatabase(url, template), poolSize: 1 });
  await migrate(database);
  await database.close();
  project.provide('postgresTemplate', template);
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
