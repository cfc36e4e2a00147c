import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export async function environmentExists(db: Kysely<DB>, name: string): Promise<boolean> {
  const row = await db.selectFrom('environments').select('name').where('name', '=', name).executeTakeFirst();
  return row !== undefined;
}

/** Adds the environment to the project; false when it was already there. */
export async function addProjectEnvironment(
  db: Kysely<DB>,
  projectId: string,
  environment: string,
  defaultStrategy: unknown,
): Promise<boolean> {
  const row = await db
    .insertInto('project_environments')
    .values({
      project_id: projectId,
      environment_name: environment,
      default_strategy: defaultStrategy === undefined ? null : JSON.stringify(defaultStrategy),
    })
    .onConflict((oc) => oc.columns(['project_id', 'environment_name']).doNothing())
    .returning('project_id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Locks the rows of every flag of the project (archived ones included), in name order: a change
 * to the project's environments touches the flags' environment rows, and every write to a flag
 * locks the flag's row before its other rows (the lock order, see lockFlag in the flag-rows slice).
 */
export async function lockProjectFlags(db: Kysely<DB>, projectId: string): Promise<void> {
  await db
    .selectFrom('features')
    .select('name')
    .where('project', '=', projectId)
    .orderBy('name')
    .forUpdate()
    .execute();
}

/** A disabled row in the environment for every flag of the project, archived ones included. */
export async function connectFlags(db: Kysely<DB>, projectId: string, environment: string): Promise<void> {
  await sql`INSERT INTO feature_environments (feature_name, environment)
    SELECT name, ${environment} FROM features WHERE project = ${projectId}
    ON CONFLICT DO NOTHING`.execute(db);
}

/** Removes the environment from the project with its flag rows (their strategies cascade), flags locked first. */
export async function removeProjectEnvironment(
  db: Kysely<DB>,
  projectId: string,
  environment: string,
): Promise<boolean> {
  const removed = await db
    .deleteFrom('project_environments')
    .where('project_id', '=', projectId)
    .where('environment_name', '=', environment)
    .returning('project_id')
    .executeTakeFirst();
  if (!removed) return false;
  await lockProjectFlags(db, projectId);
  await sql`DELETE FROM feature_environments
    WHERE environment = ${environment}
      AND feature_name IN (SELECT name FROM features WHERE project = ${projectId})`.execute(db);
  return true;
}

export async function countProjectEnvironments(db: Kysely<DB>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('project_environments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The project environment row, locked; undefined when the environment is not in the project. */
export async function lockProjectEnvironment(db: Kysely<DB>, projectId: string, environment: string) {
  return db
    .selectFrom('project_environments')
    .select('default_strategy')
    .where('project_id', '=', projectId)
    .where('environment_name', '=', environment)
    .forUpdate()
    .executeTakeFirst();
}

export async function setDefaultStrategy(
  db: Kysely<DB>,
  projectId: string,
  environment: string,
  strategy: unknown,
): Promise<void> {
  await db
    .updateTable('project_environments')
    .set({ default_strategy: JSON.stringify(strategy) })
    .where('project_id', '=', projectId)
    .where('environment_name', '=', environment)
    .execute();
}
