import { createHash, randomUUID } from 'node:crypto';
import type { TestApp } from './harness.js';

/**
 * Direct configuration writes for tests of readers (playground, client API) that must not depend
 * on the configuration endpoints under test elsewhere. Each write appends an event, as every real
 * change does, so snapshots see a new revision.
 */
export function configSql(t: TestApp) {
  const run = (text: string, params: unknown[]) => t.database.session((exec) => exec(text, params));
  const touch = (flag: string) =>
    run(`INSERT INTO events (type, created_by, feature_name) VALUES ('feature-updated', 'test', $1)`, [flag]);
  return {
    enable: async (flag: string, environment: string, enabled = true) => {
      await run('UPDATE feature_environments SET enabled = $3 WHERE feature_name = $1 AND environment = $2', [
        flag,
        environment,
        enabled,
      ]);
      await touch(flag);
    },
    addStrategy: async (
      flag: string,
      environment: string,
      strategy: {
        name: string;
        parameters?: Record<string, string>;
        constraints?: unknown[];
        variants?: unknown[];
        segments?: number[];
        disabled?: boolean;
        sortOrder?: number;
      },
    ) => {
      const id = randomUUID();
      await run(
        `INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, parameters, constraints, variants, disabled, sort_order)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          id,
          flag,
          environment,
          strategy.name,
          JSON.stringify(strategy.parameters ?? {}),
          JSON.stringify(strategy.constraints ?? []),
          JSON.stringify(strategy.variants ?? []),
          strategy.disabled ?? false,
          strategy.sortOrder ?? 0,
        ],
      );
      for (const segment of strategy.segments ?? []) {
        await run('INSERT INTO feature_strategy_segment (feature_strategy_id, segment_id) VALUES ($1, $2)', [
          id,
          segment,
        ]);
      }
      await touch(flag);
      return id;
    },
    addSegment: async (name: string, constraints: unknown[]) => {
      const rows = await run('INSERT INTO segments (name, constraints) VALUES ($1, $2) RETURNING id', [
        name,
        JSON.stringify(constraints),
      ]);
      const id = Number(rows[0]?.id);
      // The event the segments slice records for a new segment (no flag is touched).
      await run(`INSERT INTO events (type, created_by, data) VALUES ('segment-created', 'test', $1)`, [
        JSON.stringify({ id, name, constraints }),
      ]);
      return id;
    },
    setVariants: async (flag: string, environment: string, variants: unknown[]) => {
      await run(
        'UPDATE feature_environments SET variants = $3 WHERE feature_name = $1 AND environment = $2',
        [flag, environment, JSON.stringify(variants)],
      );
      await touch(flag);
    },
    /** A client/frontend token with the given scope; returns its secret. */
    addToken: async (type: 'client' | 'frontend', projects: string[], environment: string) => {
      const secret = `${projects.length === 1 ? projects[0] : '[]'}:${environment}.${randomUUID().replaceAll('-', '')}`;
      await run(
        `INSERT INTO api_tokens (secret_hash, token_name, type, environment, projects, display_prefix)
         VALUES ($1, $2, $3, $4, $5, 'test')`,
        [createHash('sha256').update(secret).digest('hex'), `${type}-token`, type, environment, projects],
      );
      return secret;
    },
    addDependency: async (child: string, parent: string, enabled = true, variants?: string[]) => {
      await run(
        'INSERT INTO feature_dependencies (parent, child, enabled, variants) VALUES ($1, $2, $3, $4)',
        [parent, child, enabled, variants ? JSON.stringify(variants) : null],
      );
      await touch(child);
    },
  };
}
