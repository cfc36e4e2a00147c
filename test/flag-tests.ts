import { afterAll, beforeAll } from 'vitest';
import { api } from './api.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * What the flags slice's test files share: an app on a fresh database for the file (started before
 * its tests, closed after them) and the small helpers they all use. Call it once at the top level.
 */
export function flagTests() {
  const kit = {
    t: undefined as unknown as TestApp,
    a: undefined as unknown as ReturnType<typeof api>,
    /** Headers that send no credential. */
    NO_AUTH: { authorization: undefined },
    /** Raw SQL, to set up what the API cannot or to prove what a request left behind. */
    sql: (text: string, params: unknown[] = []) => kit.t.database.session((run) => run(text, params)),
    send: (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers = {}) =>
      kit.t.request({ method, url, ...(payload && { payload }), headers }),
    post: (url: string, payload?: object, headers = {}) => kit.send('POST', url, payload, headers),
    flagUrl: (name: string, project = 'default') => `/api/admin/projects/${project}/features/${name}`,
    /** The types of the flag's events, newest first. */
    eventTypes: async (name: string) => (await kit.a.flagEvents(name)).events.map((e) => e.type),
    /** A new flag in `default` with a unique name; returns the name. */
    newFlag: async (body: Record<string, unknown> = {}) => {
      const name = uniqueName();
      await kit.a.createFlag('default', { name, ...body });
      return name;
    },
  };
  beforeAll(async () => {
    kit.t = await startTestApp();
    kit.a = api(kit.t);
  });
  afterAll(() => kit.t.close());
  return kit;
}
