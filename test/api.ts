import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './harness.js';

/** A typed driver for setting up state through the HTTP API, as a user would. */
export function api(t: TestApp) {
  const json = (res: LightMyRequestResponse) => res.json() as Record<string, unknown>;
  return {
    createFlag: async (project: string, body: Record<string, unknown>) => {
      const res = await t.request({
        method: 'POST',
        url: `/api/admin/projects/${project}/features`,
        payload: body,
      });
      if (res.statusCode !== 200) throw new Error(`createFlag ${res.statusCode}: ${res.body}`);
      return json(res);
    },
    updateFlag: (project: string, name: string, body: Record<string, unknown>) =>
      t.request({ method: 'PUT', url: `/api/admin/projects/${project}/features/${name}`, payload: body }),
    getFlag: (project: string, name: string) =>
      t.request({ method: 'GET', url: `/api/admin/projects/${project}/features/${name}` }),
    flagEvents: async (name: string) => {
      const res = await t.request({ method: 'GET', url: `/api/admin/events/${encodeURIComponent(name)}` });
      return res.json() as {
        events: { type: string; data: unknown; preData: unknown }[];
        totalEvents: number;
      };
    },
    /** The newest event of a type, as stored (data, pre_data, feature_name, project, ...). */
    lastEvent: async (type: string) =>
      (
        await t.database.session((run) =>
          run('SELECT * FROM events WHERE type = $1 ORDER BY id DESC LIMIT 1', [type]),
        )
      )[0],
    /** Raw SQL counts, to prove a rejected request left nothing behind. */
    count: async (table: string, where = 'true', params: unknown[] = []) => {
      const rows = await t.database.session((run) =>
        run(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params),
      );
      return Number(rows[0]?.n);
    },
  };
}
