// Writes the context-lookup golden vectors by asking the real Node SDK (a dev dependency), offline:
//   node scripts/sdk-vectors.mjs test/golden/context-lookups.json && npx biome format --write test/golden/context-lookups.json

import { writeFileSync } from 'node:fs';
import { initialize } from 'unleash-client';

const cidr = (values, inverted = false) => ({
  contextName: 'remoteAddress',
  operator: 'IN_CIDR',
  values,
  inverted,
});
const cases = [];
const add = (description, flag, context) => cases.push({ description, flag, context });
const one = (name, strategy, extra = {}) => ({ name, enabled: true, strategies: [strategy], ...extra });
const def = (constraints) => ({ name: 'default', parameters: {}, constraints });

// 1. IN_CIDR with prefixed context addresses
const cidrCases = [
  [['10.0.0.5'], '10.0.0.5/8'],
  [['10.0.0.5'], '10.0.0.5'],
  [['10.0.0.5'], '10.0.0.6/8'],
  [['10.0.0.0/24'], '10.0.0.0/16'],
  [['10.0.0.0/24'], '10.0.0.7/16'],
  [['10.0.0.0/16'], '10.0.0.0/24'],
  [['10.0.0.0/16'], '10.0.1.0/24'],
  [['10.0.0.0/24'], '10.0.0.0/24'],
  [['10.0.0.0/8', 'bad'], '10.9.9.9/32'],
  [['2001:db8::1'], '2001:db8::1/64'],
  [['2001:db8::1'], '2001:0db8:0:0:0:0:0:1'],
  [['2001:db8::/64'], '2001:db8::/48'],
  [['2001:db8::/48'], '2001:db8::5/64'],
  [['2001:db8::/48'], '2001:db9::5'],
  [['10.0.0.5'], '::ffff:10.0.0.5'],
  [['::ffff:10.0.0.5'], '::ffff:10.0.0.5/96'],
  [['10.0.0.0/8'], '2001:db8::1'],
  [['2001:db8::/32'], '10.0.0.1'],
  [['10.0.0.5'], 'not-an-ip'],
];
cidrCases.forEach(([values, address], i) => {
  for (const inverted of [false, true]) {
    const name = `cidr-${i}-${inverted ? 'inv' : 'pos'}`;
    add(
      `IN_CIDR ${JSON.stringify(values)}${inverted ? ' inverted' : ''}, remoteAddress ${address}`,
      one(name, def([cidr(values, inverted)])),
      { remoteAddress: address },
    );
    add(
      `IN_CIDR ${JSON.stringify(values)}${inverted ? ' inverted' : ''}, properties.remoteAddress ${address}`,
      one(name, def([cidr(values, inverted)])),
      { properties: { remoteAddress: address } },
    );
  }
});

// 2. stickiness fields given only in properties
const ids = ['s4', 'u1', 'abc', '17'];
for (const stickiness of ['userId', 'sessionId', 'default', 'tenant']) {
  for (const rollout of ['100', '50', '0']) {
    for (const id of ids) {
      const field = stickiness === 'default' ? 'sessionId' : stickiness;
      const name = `rollout-${stickiness}-${rollout}`;
      const flag = one(name, { name: 'flexibleRollout', parameters: { rollout, stickiness, groupId: 'g' } });
      // default stickiness with nothing at the top level draws a random id: not a fixed vector
      if (stickiness !== 'default' || rollout !== '50')
        add(`flexibleRollout ${rollout} stickiness ${stickiness}, properties.${field}=${id}`, flag, {
          properties: { [field]: id },
        });
      add(`flexibleRollout ${rollout} stickiness ${stickiness}, top-level ${field}=${id}`, flag, {
        [field]: id,
      });
    }
  }
}
// gradualRolloutUserId / SessionId read only the top level
for (const [name, field] of [
  ['gradualRolloutUserId', 'userId'],
  ['gradualRolloutSessionId', 'sessionId'],
]) {
  const flag = one(`${name}-100`, { name, parameters: { percentage: '100', groupId: 'g' } });
  add(`${name} 100, properties.${field} only`, flag, { properties: { [field]: 'x1' } });
  add(`${name} 100, top-level ${field}`, flag, { [field]: 'x1' });
}
// userWithId and remoteAddress strategies read only the top level
add(
  'userWithId, properties.userId only',
  one('uwi', { name: 'userWithId', parameters: { userIds: 'u1,u2' } }),
  { properties: { userId: 'u1' } },
);
add(
  'remoteAddress strategy, properties.remoteAddress only',
  one('ra', { name: 'remoteAddress', parameters: { IPs: '10.0.0.5' } }),
  { properties: { remoteAddress: '10.0.0.5' } },
);

// 3. variants: strategy variants and flag variants with explicit or default stickiness
const variants = (stickiness) => [
  { name: 'a', weight: 333, weightType: 'variable', stickiness, payload: { type: 'string', value: 'A' } },
  { name: 'b', weight: 333, weightType: 'variable', stickiness },
  { name: 'c', weight: 334, weightType: 'variable', stickiness },
];
for (const stickiness of ['userId', 'sessionId', 'default', 'tenant']) {
  for (const id of ['s1', 's2', 's3', 's4', 's5', 'u9']) {
    const field = stickiness === 'default' ? 'userId' : stickiness;
    const sflag = one(`svar-${stickiness}`, {
      name: 'flexibleRollout',
      parameters: { rollout: '100', stickiness: 'default', groupId: 'gv' },
      variants: variants(stickiness),
    });
    add(`strategy variants stickiness ${stickiness}, properties.${field}=${id}`, sflag, {
      userId: 'fixed',
      properties: { [field]: id },
    });
    const fflag = {
      name: `fvar-${stickiness}`,
      enabled: true,
      strategies: [{ name: 'default', parameters: {} }],
      variants: variants(stickiness),
    };
    if (stickiness !== 'default')
      add(`flag variants stickiness ${stickiness}, properties.${field}=${id}`, fflag, {
        properties: { [field]: id },
      });
    else
      add(`flag variants stickiness default, top-level ${field}=${id}`, fflag, {
        [field]: id,
        properties: { sessionId: 'ignored' },
      });
  }
}
// 4. a dependent flag inherits the parent's properties-only stickiness
const parent = one('parent-s', {
  name: 'flexibleRollout',
  parameters: { rollout: '100', stickiness: 'sessionId', groupId: 'g' },
});
const child = {
  name: 'child-s',
  enabled: true,
  strategies: [{ name: 'default', parameters: {} }],
  dependencies: [{ feature: 'parent-s' }],
};
add('child of a sessionId-sticky parent, properties.sessionId only', [parent, child], {
  properties: { sessionId: 's4' },
});
add('child of a sessionId-sticky parent, no sessionId', [parent, child], {});

const out = [];
for (const c of cases) {
  const features = Array.isArray(c.flag) ? c.flag : [c.flag];
  const target = features.at(-1).name;
  const client = initialize({
    url: 'http://127.0.0.1:9/api/',
    appName: 'vectors',
    disableMetrics: true,
    refreshInterval: 0,
    bootstrap: { data: features },
    storageProvider: undefined,
  });
  client.on('error', () => {});
  await new Promise((r) => client.once('ready', r));
  const ctx = { appName: 'a', ...c.context };
  const variant = client.getVariant(target, ctx);
  out.push({
    description: c.description,
    state: { features },
    flag: target,
    context: c.context,
    expected: { isEnabled: client.isEnabled(target, ctx), variant: variant.name },
  });
  client.destroy();
}
writeFileSync(
  process.argv[2],
  JSON.stringify(
    {
      _comment:
        'Context lookups (IN_CIDR with prefixed addresses, stickiness and variant fields given only in properties, IPv6, inverted, dependencies) as the Node SDK unleash-client 6.12 answers them; made by scripts/sdk-vectors.mjs. appName "a" is added to every context.',
      cases: out,
    },
    null,
    1,
  ),
);
console.log(out.length, 'cases');
