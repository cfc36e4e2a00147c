import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { consumeEventIds, heldSession } from '../../../test/held-transaction.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { testConfig } from '../../config.js';
import { type DeliveryOptions, deliverPending, startDeliveryWorker } from './index.js';

// The receivers below listen on 127.0.0.1, which outgoing requests may reach only when allowed.
const ALLOW_LOCAL = { OUTGOING_ALLOWED_HOSTS: '127.0.0.1' };

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp({ config: ALLOW_LOCAL });
  a = api(t);
});
afterAll(() => t.close());

const deps = () => ({ database: t.database, config: testConfig(ALLOW_LOCAL), now: () => new Date() });
const deliver = (options: DeliveryOptions = {}) => deliverPending(deps(), options);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on a free port; `answer` gives the status of the nth request, or 'hang'. */
async function receiver(answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const status = answer(received.length);
      if (status === 'hang') hanging.push(res);
      else res.writeHead(status).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function createAddon(body: Record<string, unknown>): Promise<number> {
  const res = await t.send('POST', '/api/admin/addons', { enabled: true, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

async function deliveries(id: number, query = '') {
  const res = await t.send('GET', `/api/admin/addons/${id}/events${query}`);
  expect(res.statusCode).toBe(200);
  return res.json().integrationEvents as {
    id: string;
    integrationId: number;
    state: string;
    stateDetails: string;
    event: { type: string; featureName: string | null; project: string | null; environment: string | null };
    details: Record<string, unknown>;
  }[];
}

async function until(check: () => Promise<boolean> | boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const toggle = (project: string, flag: string, env: string) =>
  t.send('POST', `/api/admin/projects/${project}/features/${flag}/environments/${env}/on`);

describe('delivery to integrations', () => {
  it('posts the event to a webhook with its headers after a flag change, and records the success', async () => {
    const hook = await receiver();
    const id = await createAddon({
      provider: 'webhook',
      parameters: {
        url: hook.url,
        authorization: 'Bearer s3cret',
        customHeaders: '{"X-Api-Key": "k3y", "X-Team": "checkout"}',
      },
      events: ['feature-created'],
    });
    const name = uniqueName('hooked');
    await a.createFlag('default', { name });
    expect(hook.received).toHaveLength(0); // nothing is sent inside the change
    expect(await deliver()).toMatchObject({ attempted: 1 });

    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer s3cret',
      'x-api-key': 'k3y',
      'x-team': 'checkout',
    });
    const body = JSON.parse(request?.body ?? '');
    expect(body).toMatchObject({
      id: expect.any(Number),
      type: 'feature-created',
      createdBy: 'admin',
      featureName: name,
      project: 'default',
      data: { name },
    });
    const log = await deliveries(id);
    expect(log).toEqual([
      expect.objectContaining({
        integrationId: id,
        state: 'success',
        stateDetails: 'Webhook request was successful with status code: 200.',
        event: expect.objectContaining({ type: 'feature-created', featureName: name }),
      }),
    ]);
    expect(JSON.stringify(log)).not.toContain('s3cret');
    // Delivered once: the next round has nothing to send.
    expect(await deliver()).toMatchObject({ attempted: 0 });
    expect(hook.received).toHaveLength(1);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('renders a body template with the configured content type', async () => {
    const hook = await receiver();
    const id = await createAddon({
      provider: 'webhook',
      parameters: {
        url: hook.url,
        contentType: 'text/plain',
        bodyTemplate: '{{event.type}} of {{event.featureName}} by {{event.createdBy}}',
      },
      events: ['feature-created'],
    });
    const name = uniqueName('templated');
    await a.createFlag('default', { name });
    await deliver();
    expect(hook.received.map((r) => [r.headers['content-type'], r.body])).toEqual([
      ['text/plain', `feature-created of ${name} by admin`],
    ]);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('retries a failed delivery with backoff; the failure, then the success show in /events', async () => {
    const hook = await receiver((n) => (n === 1 ? 500 : 200));
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created'],
    });
    const name = uniqueName('retried');
    await a.createFlag('default', { name });

    const options = { backoffMs: 200 };
    await deliver(options);
    expect(hook.received).toHaveLength(1);
    const [failed] = await deliveries(id);
    expect(failed).toMatchObject({ state: 'failed' });
    expect(failed?.stateDetails).toContain('Webhook request failed with status code: 500.');
    expect(failed?.stateDetails).toContain('Attempt 1 of 5; retrying in 200 ms.');
    // Not due yet: no second request before the backoff.
    await deliver(options);
    expect(hook.received).toHaveLength(1);

    await new Promise((r) => setTimeout(r, 250));
    await deliver(options);
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]?.body).toBe(hook.received[0]?.body);
    const log = await deliveries(id);
    expect(log.map((d) => d.state)).toEqual(['success', 'failed']);
    expect(Number(log[0]?.id)).toBeGreaterThan(Number(log[1]?.id));
    // Paging as Unleash: limit and offset.
    expect((await deliveries(id, '?limit=1&offset=1')).map((d) => d.state)).toEqual(['failed']);
    expect((await t.send('GET', `/api/admin/addons/${id}/events?limit=x`)).statusCode).toBe(400);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('gives up after the last attempt', async () => {
    const hook = await receiver(() => 503);
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created'],
    });
    await a.createFlag('default', { name: uniqueName('doomed') });
    const options = { backoffMs: 1, maxAttempts: 2 };
    await deliver(options);
    await new Promise((r) => setTimeout(r, 10));
    await deliver(options);
    await new Promise((r) => setTimeout(r, 10));
    expect(await deliver(options)).toMatchObject({ attempted: 0 });
    expect(hook.received).toHaveLength(2);
    const log = await deliveries(id);
    expect(log.map((d) => d.state)).toEqual(['failed', 'failed']);
    expect(log[0]?.stateDetails).toBe('Webhook request failed with status code: 503.');
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('a receiver that is down or hangs neither slows nor fails the flag change', async () => {
    const hanging = await receiver(() => 'hang');
    const closed = await receiver();
    await closed.close(); // its port now refuses connections
    const slow = await createAddon({
      provider: 'webhook',
      parameters: { url: hanging.url },
      events: ['feature-created'],
    });
    const down = await createAddon({
      provider: 'webhook',
      parameters: { url: closed.url },
      events: ['feature-created'],
    });
    const stop = startDeliveryWorker(deps(), 20, { error: () => {} }, { timeoutMs: 1500, backoffMs: 60_000 });
    try {
      await a.createFlag('default', { name: uniqueName('first') });
      await until(() => hanging.received.length === 1); // a delivery is now in flight
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const name = uniqueName('unblocked');
        const res = await t.send('POST', '/api/admin/projects/default/features', { name });
        expect(res.statusCode).toBe(200);
        expect(performance.now() - started).toBeLessThan(1000);
        expect((await a.getFlag('default', name)).statusCode).toBe(200);
      }
      await until(async () => (await deliveries(down)).length > 0);
      expect((await deliveries(down))[0]).toMatchObject({ state: 'failed' });
      expect((await deliveries(down))[0]?.stateDetails).toContain('Webhook request failed with error: ');
      await until(async () => (await deliveries(slow)).length > 0);
      expect((await deliveries(slow))[0]?.stateDetails).toContain('no answer within 1500 ms');

      // Stopping (shutdown) does not wait for a hanging request: it is aborted and given back.
      const sent = hanging.received.length;
      await a.createFlag('default', { name: uniqueName('last') });
      await until(() => hanging.received.length > sent);
      const stopping = performance.now();
      await stop();
      expect(performance.now() - stopping).toBeLessThan(1000);
      expect(
        await a.count('addon_deliveries', 'addon_id = $1 AND claimed_until IS NULL', [slow]),
      ).toBeGreaterThan(0);
    } finally {
      await stop();
      await hanging.close();
    }
    await t.send('DELETE', `/api/admin/addons/${slow}`);
    await t.send('DELETE', `/api/admin/addons/${down}`);
  });

  it('sends only the event types, projects and environments the addon subscribes to', async () => {
    const hook = await receiver();
    const project = uniqueName('proj');
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-environment-enabled'],
      projects: [project],
      environments: ['production'],
    });
    const mine = uniqueName('mine');
    const other = uniqueName('other');
    await a.createFlag(project, { name: mine });
    await a.createFlag('default', { name: other });
    for (const [p, f] of [
      [project, mine],
      ['default', other],
    ] as const) {
      for (const env of ['development', 'production']) expect((await toggle(p, f, env)).statusCode).toBe(200);
    }
    await deliver();
    const sent = hook.received.map((r) => JSON.parse(r.body));
    expect(sent.map((e) => [e.type, e.featureName, e.project, e.environment])).toEqual([
      ['feature-environment-enabled', mine, project, 'production'],
    ]);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('posts a Slack message with the channel, username and emoji', async () => {
    const slack = await receiver();
    const id = await createAddon({
      provider: 'slack',
      parameters: { url: slack.url, defaultChannel: 'releases', username: 'Flags', emojiIcon: ':rocket:' },
      events: ['feature-created'],
    });
    const name = uniqueName('chatty');
    await a.createFlag('default', { name });
    await deliver();
    expect(slack.received).toHaveLength(1);
    const body = JSON.parse(slack.received[0]?.body ?? '');
    expect(body).toMatchObject({ channel: '#releases', username: 'Flags', icon_emoji: ':rocket:' });
    expect(body.text).toMatch(
      new RegExp(
        `^\\*admin\\* created a new feature flag <http[^|]+/projects/default/features/${name}\\|${name}> in project \\*default\\*\\.$`,
      ),
    );
    const [record] = await deliveries(id);
    expect(record).toMatchObject({
      state: 'success',
      details: { message: body.text, channels: ['releases'] },
    });
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await slack.close();
  });

  it('posts one Slack message per `slack` tag of the flag', async () => {
    const slack = await receiver();
    expect((await t.send('POST', '/api/admin/tag-types', { name: 'slack' })).statusCode).toBe(201);
    const id = await createAddon({
      provider: 'slack',
      parameters: { url: slack.url, defaultChannel: 'general' },
      events: ['feature-environment-enabled'],
    });
    const name = uniqueName('tagged');
    await a.createFlag('default', { name });
    for (const value of ['team-a', 'team-b'])
      expect(
        (await t.send('POST', `/api/admin/features/${name}/tags`, { type: 'slack', value })).statusCode,
      ).toBe(201);
    expect((await toggle('default', name, 'production')).statusCode).toBe(200);
    await deliver();
    const bodies = slack.received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.channel).sort()).toEqual(['#team-a', '#team-b']);
    expect(bodies[0]).toMatchObject({ username: 'Unleash', icon_emoji: ':unleash:' });
    expect(bodies[0].text).toContain('enabled <');
    expect(bodies[0].text).toContain('in the *production* environment in project *default*.');
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await slack.close();
  });

  it('does not retry a refusal (4xx other than 429)', async () => {
    const hook = await receiver(() => 404);
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created'],
    });
    await a.createFlag('default', { name: uniqueName('refused') });
    await deliver({ backoffMs: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(await deliver({ backoffMs: 1 })).toMatchObject({ attempted: 0 });
    expect((await deliveries(id)).map((d) => [d.state, d.stateDetails])).toEqual([
      ['failed', 'Webhook request failed with status code: 404.'],
    ]);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('delivers an event that commits after a later one was read (an id below the cursor)', async () => {
    const hook = await receiver();
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created'],
    });
    // A transaction that took its event id first and commits last, as concurrent writers do.
    const [reserved] = await t.database.session((run) =>
      run(`SELECT nextval(pg_get_serial_sequence('events', 'id'))::int AS id`),
    );
    const later = uniqueName('later');
    await a.createFlag('default', { name: later });
    await deliver();
    expect(hook.received.map((r) => JSON.parse(r.body).featureName)).toEqual([later]);
    await t.database.session((run) =>
      run(
        `INSERT INTO events (id, type, created_by, created_by_user_id, feature_name, project, data)
         OVERRIDING SYSTEM VALUE VALUES ($1, 'feature-created', 'admin', -42, 'late-flag', 'default', '{"name":"late-flag"}')`,
        [reserved?.id],
      ),
    );
    await deliver();
    expect(hook.received.map((r) => JSON.parse(r.body).featureName)).toEqual([later, 'late-flag']);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it.runIf(process.env.TEST_ENGINE === 'postgres')(
    'delivers an event whose transaction was open at a round, 2,500 ids below the cursor',
    async () => {
      const hook = await receiver();
      const id = await createAddon({
        provider: 'webhook',
        parameters: { url: hook.url },
        events: ['feature-created'],
      });
      // Its id is taken first; rolled-back transactions then take 2,500 (more than the ids kept as
      // gaps), and a later event is delivered before it commits.
      const held = await heldSession(t);
      await held.query('BEGIN');
      await held.query(
        `INSERT INTO events (type, created_by, created_by_user_id, feature_name, project, data)
         VALUES ('feature-created', 'admin', -42, 'held-flag', 'default', '{"name":"held-flag"}')`,
      );
      await consumeEventIds(t, 2_500);
      const later = uniqueName('later');
      await a.createFlag('default', { name: later });
      await deliver();
      expect(hook.received.map((r) => JSON.parse(r.body).featureName)).toEqual([later]);
      await held.query('COMMIT');
      await held.end();
      await deliver();
      expect(hook.received.map((r) => JSON.parse(r.body).featureName)).toEqual([later, 'held-flag']);
      await t.send('DELETE', `/api/admin/addons/${id}`);
      await hook.close();
    },
  );

  it('delivers once when two instances run rounds at the same time', async () => {
    const hook = await receiver();
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created'],
    });
    for (let i = 0; i < 6; i++) await a.createFlag('default', { name: uniqueName('twice') });
    for (let round = 0; round < 3; round++) await Promise.all([deliver(), deliver()]);
    expect(hook.received).toHaveLength(6);
    expect(new Set(hook.received.map((r) => JSON.parse(r.body).id)).size).toBe(6);
    expect(await deliveries(id)).toHaveLength(6);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });
});

describe('what deliveries may reach and carry', () => {
  const refusedDetails = /^Webhook request refused by policy: .*OUTGOING_ALLOWED_HOSTS/;

  it('refuses, without network detail and without retrying, a target the delivery setting does not allow', async () => {
    const hook = await receiver();
    const port = new URL(hook.url).port;
    // Saved while allowed (a name resolving to 127.0.0.1, and the address itself); delivered by
    // an instance whose setting allows neither, as after a DNS change or a narrowed setting.
    const byName = await createAddon({
      provider: 'webhook',
      parameters: { url: `http://localhost:${port}/hook` },
      events: ['feature-created'],
    });
    const byAddress = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created'],
    });
    await a.createFlag('default', { name: uniqueName('internal') });
    const strict = () => ({ database: t.database, config: testConfig(), now: () => new Date() });
    expect(await deliverPending(strict(), { backoffMs: 1 })).toMatchObject({ attempted: 2 });
    await new Promise((r) => setTimeout(r, 10));
    expect(await deliverPending(strict(), { backoffMs: 1 })).toMatchObject({ attempted: 0 });
    expect(hook.received).toHaveLength(0);
    for (const id of [byName, byAddress]) {
      const log = await deliveries(id);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ state: 'failed', details: { responses: ['refused by policy'] } });
      expect(log[0]?.stateDetails).toMatch(refusedDetails);
      expect(JSON.stringify(log)).not.toMatch(/ECONN|status code|127\.0\.0\.1|localhost/);
      await t.send('DELETE', `/api/admin/addons/${id}`);
    }
    await hook.close();
  });

  it('delivers only events its creator and its last updater may both read, as of delivery', async () => {
    const hook = await receiver();
    const editorUser = await createUser(t, 'Editor');
    const editor = asUser(await login(t, editorUser.username));
    const adminUser = await createUser(t, 'Admin');
    const admin = asUser(await login(t, adminUser.username));
    const create = async (as: Record<string, string | undefined>, events: string[]) => {
      const res = await t.send(
        'POST',
        '/api/admin/addons',
        { provider: 'webhook', enabled: true, parameters: { url: hook.url }, events },
        as,
      );
      expect(res.statusCode, res.body).toBe(200);
      return res.json().id as number;
    };
    // An Editor's addon whose events list an Admin then widened to user-created.
    const editors = await create(editor, ['feature-created']);
    const widened = await t.send(
      'PUT',
      `/api/admin/addons/${editors}`,
      {
        provider: 'webhook',
        enabled: true,
        parameters: { url: '*****' },
        events: ['feature-created', 'user-created'],
      },
      admin,
    );
    expect(widened.statusCode).toBe(200);
    // An Admin's addon: user-created is delivered while its creator is an Admin.
    const admins = await create(admin, ['user-created']);
    const sent = () => hook.received.map((r) => JSON.parse(r.body) as { type: string; data: unknown });
    const newUser = await createUser(t, 'Viewer');
    await a.createFlag('default', { name: uniqueName('seen') });
    await deliver();
    expect(
      sent()
        .map((e) => e.type)
        .sort(),
    ).toEqual(['feature-created', 'user-created']);
    expect(JSON.stringify(sent().find((e) => e.type === 'user-created'))).toContain(newUser.username);

    // The Admin's log shows user-created to an Admin, but not to an Editor (who may update it).
    expect((await deliveries(admins)).map((d) => d.event.type)).toEqual(['user-created']);
    const editorsView = await t.send('GET', `/api/admin/addons/${admins}/events`, undefined, editor);
    expect(editorsView.statusCode).toBe(200);
    expect(editorsView.json().integrationEvents).toEqual([]);

    // Demoted (another Admin remains): the addon no longer carries what its creator may no longer read.
    await createUser(t, 'Admin');
    const demoted = await t.send('PUT', `/api/admin/user-admin/${adminUser.id}`, { rootRole: 'Editor' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    const count = hook.received.length;
    await createUser(t, 'Viewer');
    await a.createFlag('default', { name: uniqueName('after') });
    await deliver();
    expect(
      sent()
        .slice(count)
        .map((e) => e.type),
    ).toEqual(['feature-created']);
    for (const id of [editors, admins]) await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });

  it('an addon saved before its owners were recorded delivers only flag events', async () => {
    const hook = await receiver();
    const id = await createAddon({
      provider: 'webhook',
      parameters: { url: hook.url },
      events: ['feature-created', 'user-created'],
    });
    await t.database.session((run) =>
      run('UPDATE addons SET created_by_user_id = NULL, updated_by_user_id = NULL WHERE id = $1', [id]),
    );
    const name = uniqueName('legacy');
    await createUser(t, 'Viewer');
    await a.createFlag('default', { name });
    await deliver();
    expect(hook.received.map((r) => JSON.parse(r.body).type)).toEqual(['feature-created']);
    await t.send('DELETE', `/api/admin/addons/${id}`);
    await hook.close();
  });
});

describe('the delivery worker of the app', () => {
  it('runs when ADDON_DELIVERY_SECONDS is set, and stops with the app', async () => {
    const app = await startTestApp({ config: { ...ALLOW_LOCAL, ADDON_DELIVERY_SECONDS: 0.05 } });
    const hook = await receiver();
    try {
      const res = await app.send('POST', '/api/admin/addons', {
        provider: 'webhook',
        enabled: true,
        parameters: { url: hook.url },
        events: ['feature-created'],
      });
      expect(res.statusCode).toBe(200);
      const name = uniqueName('worked');
      expect((await app.send('POST', '/api/admin/projects/default/features', { name })).statusCode).toBe(200);
      await until(() => hook.received.length === 1);
      expect(JSON.parse(hook.received[0]?.body ?? '')).toMatchObject({
        type: 'feature-created',
        featureName: name,
      });
    } finally {
      await app.close();
      await hook.close();
    }
  });
});
