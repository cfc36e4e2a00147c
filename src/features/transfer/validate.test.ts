import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { transfer } from '../../../test/transfer.js';

/**
 * POST /api/admin/features-batch/validate: one fixture per rule. Each fixture is also sent to
 * import, which must refuse it with 400 and exactly the errors validation lists, changing nothing.
 */
let t: TestApp;
let x: ReturnType<typeof transfer>;
let segmentId: number;
beforeAll(async () => {
  t = await startTestApp();
  x = transfer(t);
  const must = async (method: string, url: string, body?: unknown) => {
    const res = await t.send(method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url} ${res.statusCode}: ${res.body}`);
    return res;
  };
  await must('POST', '/api/admin/strategies', { name: 'my-custom', parameters: [] });
  await must('POST', '/api/admin/context', {
    name: 'plan',
    legalValues: [{ value: 'free' }, { value: 'pro' }],
  });
  await must('POST', '/api/admin/projects', { id: 'elsewhere', name: 'Elsewhere' });
  await must('POST', '/api/admin/context', { name: 'region', project: 'elsewhere' });
  await must('POST', '/api/admin/projects/elsewhere/features', { name: 'other-flag' });
  await must('POST', '/api/admin/projects/elsewhere/features', { name: 'other-parent' });
  await must('POST', '/api/admin/projects', {
    id: 'named',
    name: 'Named',
    featureNaming: { pattern: 'team-[a-z]+', example: 'team-abc' },
  });
  await must('POST', '/api/admin/projects', { id: 'limited', name: 'Limited', featureLimit: 2 });
  await must('POST', '/api/admin/projects/limited/features', { name: 'limited-one' });
  await must('POST', '/api/admin/projects/default/features', { name: 'existing-flag' });
  await must('POST', '/api/admin/projects/default/features', { name: 'archived-flag' });
  await must('DELETE', '/api/admin/projects/default/features/archived-flag');
  await must('POST', '/api/admin/projects/default/features', { name: 'has-parent' });
  await must('POST', '/api/admin/projects/default/features/has-parent/dependencies', {
    feature: 'existing-flag',
  });
  segmentId = (await must('POST', '/api/admin/segments', { name: 'seg-global', constraints: [] })).json().id;
  await must('POST', '/api/admin/segments', { name: 'seg-elsewhere', project: 'elsewhere', constraints: [] });
});
afterAll(() => t.close());

type Data = Record<string, unknown>;
const doc = (data: Data): Data => ({
  features: [],
  featureStrategies: [],
  featureEnvironments: [],
  contextFields: [],
  featureTags: [],
  segments: [],
  tagTypes: [],
  dependencies: [],
  links: [],
  ...data,
});
const flag = (name: string, extra: Data = {}) => ({ name, type: 'release', project: 'default', ...extra });
const strategy = (featureName: string, extra: Data = {}) => ({
  name: 'default',
  featureName,
  parameters: {},
  constraints: [],
  segments: [],
  ...extra,
});

interface Fixture {
  rule: string;
  data: Data;
  project?: string;
  errors: { message: string | RegExp; affectedItems: string[] }[];
}

const FIXTURES: Fixture[] = [
  {
    rule: 'unknown strategy type',
    data: doc({ features: [flag('a1')], featureStrategies: [strategy('a1', { name: 'no-such-strategy' })] }),
    errors: [
      {
        message: 'We detected the following custom strategy that needs to be created first:',
        affectedItems: ['no-such-strategy'],
      },
    ],
  },
  {
    rule: 'context field whose legal values do not include the imported ones',
    data: doc({
      contextFields: [{ name: 'plan', legalValues: [{ value: 'free' }, { value: 'enterprise' }] }],
    }),
    errors: [
      {
        message:
          'We detected the following context fields that do not have matching legal values with the imported ones:',
        affectedItems: ['plan'],
      },
    ],
  },
  {
    rule: 'context field of another project',
    data: doc({ contextFields: [{ name: 'region' }] }),
    errors: [
      {
        message: 'We detected the following context fields that belong to a project other than default:',
        affectedItems: ['region'],
      },
    ],
  },
  {
    rule: 'flag that lives in another project',
    data: doc({ features: [flag('other-flag')] }),
    errors: [
      {
        message:
          'You cannot import a feature that already exist in other projects. You already have the following features defined outside of project default:',
        affectedItems: ['other-flag (in project elsewhere)'],
      },
    ],
  },
  {
    rule: 'duplicate flag names',
    data: doc({ features: [flag('dup'), flag('dup'), flag('single')] }),
    errors: [
      {
        message: 'We detected the following features are duplicate in your import data:',
        affectedItems: ['dup'],
      },
    ],
  },
  {
    rule: "the project's naming pattern",
    project: 'named',
    data: doc({ features: [flag('team-ok'), flag('zzz-bad'), flag('bad-too')] }),
    errors: [
      {
        message: `The following new features do not match the project's naming pattern "^team-[a-z]+$". Example: "team-abc".`,
        affectedItems: ['bad-too', 'zzz-bad'],
      },
    ],
  },
  {
    rule: "the project's flag limit",
    project: 'limited',
    data: doc({ features: [flag('limited-one'), flag('limited-two'), flag('limited-three')] }),
    errors: [
      {
        message:
          'We detected you want to create 2 new features to a project that already has 1 existing features, exceeding the maximum limit of 2.',
        affectedItems: [],
      },
    ],
  },
  {
    rule: 'segment that does not exist (or belongs to another project)',
    data: doc({
      features: [flag('s1')],
      featureStrategies: [strategy('s1', { segments: [7, 8, 9] })],
      segments: [
        { id: 7, name: 'no-such-segment' },
        { id: 8, name: 'seg-elsewhere' },
        { id: 9, name: 'seg-global' },
      ],
    }),
    errors: [
      {
        message: 'We detected the following segments that need to be created first:',
        affectedItems: ['no-such-segment', 'seg-elsewhere'],
      },
    ],
  },
  {
    rule: 'dependency parent that is neither imported nor existing',
    data: doc({
      features: [flag('d1')],
      dependencies: [{ feature: 'd1', dependencies: [{ feature: 'no-such-parent', enabled: true }] }],
    }),
    errors: [
      {
        message:
          'We detected the following parent features of dependencies that are neither imported nor exist:',
        affectedItems: ['no-such-parent'],
      },
    ],
  },
  {
    rule: 'a document that is not an export: entries for flags it does not list',
    data: doc({
      features: [flag('n1')],
      featureStrategies: [strategy('ghost')],
      featureEnvironments: [{ featureName: 'ghost2', enabled: true, variants: [] }, { enabled: true }],
      featureTags: [{ featureName: 'ghost3', tagType: 'simple', tagValue: 'xx' }],
      dependencies: [{ feature: 'ghost4', dependencies: [{ feature: 'n1' }] }],
      links: [{ feature: 'ghost5', links: [] }],
    }),
    errors: [
      {
        message: 'The following entries name features that are not in the features list:',
        affectedItems: [
          'featureStrategies[0]: ghost',
          'featureEnvironments[0]: ghost2',
          'featureEnvironments[1]: no featureName',
          'featureTags[0]: ghost3',
          'dependencies[0]: ghost4',
          'links[0]: ghost5',
        ],
      },
    ],
  },
  {
    rule: 'segment id the segments list does not name',
    data: doc({ features: [flag('u1')], featureStrategies: [strategy('u1', { segments: [42] })] }),
    errors: [
      {
        message: 'The following strategies name segment ids that the segments list does not have:',
        affectedItems: ['featureStrategies[0] (u1, default): segment id 42'],
      },
    ],
  },
  {
    rule: 'strategy with an invalid constraint',
    data: doc({
      features: [flag('c1')],
      featureStrategies: [
        strategy('c1', {
          constraints: [
            { contextName: 'userId', operator: 'IN', values: [] },
            { contextName: 'version', operator: 'SEMVER_EQ', value: 'v1' },
            { contextName: 'x', operator: 'LIKE', values: ['a'] },
          ],
        }),
      ],
    }),
    errors: [
      {
        message: 'The following strategies have invalid constraints:',
        affectedItems: [
          'featureStrategies[0] (c1, default): The IN operator needs a non-empty `values` list.',
          'featureStrategies[0] (c1, default): The SEMVER_EQ value "v1" must be a valid semantic version, e.g. 1.2.3 (no leading v).',
          expect.stringMatching(
            /^featureStrategies\[0\] \(c1, default\): The `\/body\/data\/featureStrategies\/0\/constraints\/2\/operator` property must be one of NOT_IN, IN, .* You sent "LIKE"\.$/,
          ),
        ],
      },
    ],
  },
  {
    rule: 'invalid variants (weights, names, payloads)',
    data: doc({
      features: [flag('v1')],
      featureStrategies: [
        strategy('v1', {
          variants: [
            { name: 'a', weight: 600, weightType: 'fix', stickiness: 'default' },
            { name: 'b', weight: 600, weightType: 'fix', stickiness: 'default' },
          ],
        }),
      ],
      featureEnvironments: [
        {
          featureName: 'v1',
          enabled: false,
          variants: [
            { name: 'x', weight: 500, payload: { type: 'json', value: '{nope' } },
            { name: 'x', weight: 500 },
          ],
        },
      ],
    }),
    errors: [
      {
        message: 'The following variants are invalid:',
        affectedItems: [
          'featureStrategies[0] (v1, default): There must be at least one "variable" variant.',
          'featureStrategies[0] (v1, default): The fixed weights total 1200, more than 1000 (100%).',
          'featureEnvironments[0] (v1): The variant name "x" is used twice.',
          'featureEnvironments[0] (v1): variant "x": a json payload must be valid JSON',
        ],
      },
    ],
  },
  {
    rule: 'tag of a tag type that neither exists nor is in tagTypes',
    data: doc({
      features: [flag('t1')],
      featureTags: [{ featureName: 't1', tagType: 'no-such-type', tagValue: 'vv' }],
    }),
    errors: [
      {
        message: 'The following tag types are used by tags but neither exist nor are in tagTypes:',
        affectedItems: ['no-such-type'],
      },
    ],
  },
  {
    rule: 'tag value that is not 2-50 characters',
    data: doc({
      features: [flag('t2')],
      featureTags: [{ featureName: 't2', tagType: 'simple', tagValue: ' x ' }],
    }),
    errors: [
      {
        message: 'The following tags have a value that is not 2-50 characters long:',
        affectedItems: ['t2: simple: x '],
      },
    ],
  },
  {
    rule: 'parent that is archived or of another project',
    data: doc({
      features: [flag('p1')],
      dependencies: [
        { feature: 'p1', dependencies: [{ feature: 'archived-flag' }, { feature: 'other-parent' }] },
      ],
    }),
    errors: [
      {
        message:
          'The following parent features are not active features of project default and are not imported:',
        affectedItems: ['archived-flag', 'other-parent'],
      },
    ],
  },
  {
    rule: 'dependencies the one-level rule forbids',
    data: doc({
      features: [flag('q1'), flag('q2'), flag('q3')],
      dependencies: [
        { feature: 'q1', dependencies: [{ feature: 'q1' }] },
        { feature: 'q2', dependencies: [{ feature: 'q3', enabled: false, variants: ['a'] }] },
        { feature: 'q3', dependencies: [{ feature: 'has-parent' }] },
      ],
    }),
    errors: [
      {
        message: 'The following dependencies are not allowed:',
        affectedItems: [
          'q1 → q1: a flag cannot depend on itself',
          'q2 → q3: variants need the parent to be enabled',
          'q2 → q3: a flag cannot both have a parent and be one',
          'q3 → has-parent: a flag cannot both have a parent and be one',
        ],
      },
    ],
  },
  {
    rule: 'links that are not http(s) URLs, more than 10 links on a flag',
    data: doc({
      features: [flag('l1'), flag('l2')],
      links: [
        {
          feature: 'l1',
          links: [
            { url: 'javascript:alert(1)' },
            { url: 'example.com/ok', title: 'fine' },
            { url: 'ftp://x' },
          ],
        },
        {
          feature: 'l2',
          links: Array.from({ length: 11 }, (_, i) => ({ url: `https://example.com/${i}` })),
        },
      ],
    }),
    errors: [
      {
        message: 'The following links are not http or https URLs:',
        affectedItems: ['l1: javascript:alert(1)', 'l1: ftp://x'],
      },
      { message: 'The following features would have more than 10 links:', affectedItems: ['l2'] },
    ],
  },
];

describe('validate: one fixture per error rule, and import refuses each the same way', () => {
  it.each(FIXTURES)('$rule', async (fixture) => {
    const body = { project: fixture.project ?? 'default', environment: 'development', data: fixture.data };
    const res = await x.validate(body);
    expect(res.statusCode).toBe(200);
    expect(res.json().errors).toEqual(fixture.errors);

    const before = await x.snapshot();
    const events = await x.lastEventId();
    const refused = await x.import(body);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ name: 'ValidationError', details: res.json().errors });
    expect(await x.lastEventId()).toBe(events);
    expect(await x.snapshot()).toEqual(before);
  });
});

describe('validate: warnings', () => {
  it('custom strategy types, archived flags, flags that will be overwritten; links are no warning', async () => {
    const res = await x.validate({
      project: 'default',
      environment: 'development',
      data: doc({
        features: [
          // Listed as overwritten only because the import changes it (its description).
          flag('existing-flag', { description: 'changed by the import' }),
          flag('archived-flag'),
          flag('gone', { archived: true }),
          flag('brand-new'),
        ],
        featureStrategies: [strategy('brand-new', { name: 'my-custom' })],
        links: [{ feature: 'brand-new', links: [{ url: 'https://example.com' }] }],
      }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      errors: [],
      warnings: [
        {
          message:
            'The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:',
          affectedItems: ['my-custom'],
        },
        {
          message:
            'The following features will not be imported as they are currently archived. To import them, please unarchive them first:',
          affectedItems: ['archived-flag'],
        },
        {
          message: 'The following features are archived in the import data and will not be imported:',
          affectedItems: ['gone'],
        },
        {
          message: 'The following features already exist in this project and will be overwritten:',
          affectedItems: ['existing-flag'],
        },
      ],
      permissions: [],
    });
  });
});

describe('validate: permissions the caller lacks', () => {
  const everything = () =>
    doc({
      features: [flag('existing-flag'), flag('perm-new')],
      featureStrategies: [strategy('perm-new', { segments: [1] })],
      segments: [{ id: 1, name: 'seg-global' }],
      featureEnvironments: [
        { featureName: 'perm-new', enabled: true, variants: [{ name: 'v', weight: 1000 }] },
      ],
      contextFields: [{ name: 'perm-field' }],
      featureTags: [{ featureName: 'perm-new', tagType: 'perm-type', tagValue: 'vv' }],
      tagTypes: [{ name: 'perm-type' }],
      dependencies: [{ feature: 'perm-new', dependencies: [{ feature: 'existing-flag' }] }],
    });

  it('a Viewer lacks every permission the import needs, by display name; import answers 403', async () => {
    const viewer = await createUser(t, 'Viewer');
    const headers = asUser(await login(t, viewer.username));
    const body = { project: 'default', environment: 'development', data: everything() };
    const res = await x.validate(body, headers);
    expect(res.json()).toMatchObject({
      errors: [],
      warnings: [
        {
          message: 'The following features already exist in this project and will be overwritten:',
          affectedItems: ['existing-flag'],
        },
      ],
      permissions: [
        {
          message: 'We detected you are missing the following permissions:',
          affectedItems: [
            'Update feature flags',
            'Create feature flags',
            'Create tag types',
            'Create context fields',
            'Create activation strategies',
            'Enable/disable flags in environments',
            'Update variants',
            'Update feature dependencies',
          ],
        },
      ],
    });
    const events = await x.lastEventId();
    const refused = await x.import(body, headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().name).toBe('NoAccessError');
    expect(refused.json().message).toContain('Update feature flags');
    expect(await x.lastEventId()).toBe(events);
  });

  it('an Editor may import into default, but lacks the flag permissions in another project', async () => {
    const editor = await createUser(t, 'Editor');
    const headers = asUser(await login(t, editor.username));
    const inDefault = await x.validate(
      { project: 'default', environment: 'development', data: everything() },
      headers,
    );
    expect(inDefault.json().permissions).toEqual([]);
    const elsewhere = await x.validate(
      { project: 'elsewhere', environment: 'development', data: doc({ features: [flag('ed-new')] }) },
      headers,
    );
    expect(elsewhere.json().permissions).toEqual([
      {
        message: 'We detected you are missing the following permissions:',
        affectedItems: ['Update feature flags', 'Create feature flags'],
      },
    ]);
  });

  it('an admin API token lacks nothing', async () => {
    const res = await x.validate({ project: 'default', environment: 'development', data: everything() });
    expect(res.json().permissions).toEqual([]);
  });
});

describe('validate: requests', () => {
  it('changes nothing and records nothing', async () => {
    const before = await x.snapshot();
    const events = await x.lastEventId();
    const res = await x.validate({
      project: 'default',
      environment: 'development',
      data: doc({
        features: [flag('val-only')],
        featureStrategies: [strategy('val-only')],
        contextFields: [{ name: 'val-field' }],
        tagTypes: [{ name: 'val-type' }],
        featureTags: [{ featureName: 'val-only', tagType: 'val-type', tagValue: 'vv' }],
      }),
    });
    expect(res.json().errors).toEqual([]);
    expect(await x.lastEventId()).toBe(events);
    expect(await x.snapshot()).toEqual(before);
    expect((await api(t).getFlag('default', 'val-only')).statusCode).toBe(404);
  });

  it('takes YAML (application/yaml) as well as JSON', async () => {
    const body = {
      project: 'default',
      environment: 'development',
      data: doc({
        features: [flag('yaml-flag')],
        featureStrategies: [strategy('yaml-flag', { name: 'nope' })],
      }),
    };
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/features-batch/validate',
      payload: stringify(body),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors).toEqual([
      {
        message: 'We detected the following custom strategy that needs to be created first:',
        affectedItems: ['nope'],
      },
    ]);
    const broken = await t.request({
      method: 'POST',
      url: '/api/admin/features-batch/validate',
      payload: 'project: [unclosed',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().message).toMatch(/^The body is not a valid YAML document/);
  });

  it('404 for an unknown project or an environment the project does not have', async () => {
    const data = doc({ features: [flag('nf')] });
    const project = await x.validate({ project: 'no-such-project', environment: 'development', data });
    expect(project.statusCode).toBe(404);
    expect(project.json().name).toBe('NotFoundError');
    const environment = await x.validate({ project: 'default', environment: 'no-such-env', data });
    expect(environment.statusCode).toBe(404);
    expect(environment.json().message).toContain('no-such-env');
  });

  it('400 for a body that is not an import: each failing field by path', async () => {
    const res = await x.validate({
      project: 'default',
      environment: 'development',
      data: { features: [{ name: 'bad name' }], featureStrategies: [{ featureName: 'x' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(
      res
        .json()
        .details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['/body/data/featureStrategies/0/name', '/body/data/features/0/name', '/body/data/tagTypes']);
    const noData = await x.validate({ project: 'default', environment: 'development' });
    expect(noData.json().details).toEqual([
      { path: '/body/data', message: 'The `/body/data` property is required.' },
    ]);
  });

  it('uses the segment the target has of that name (different ids in the two instances)', async () => {
    const res = await x.validate({
      project: 'default',
      environment: 'development',
      data: doc({
        features: [flag('seg-user')],
        featureStrategies: [strategy('seg-user', { segments: [segmentId + 1000] })],
        segments: [{ id: segmentId + 1000, name: 'seg-global' }],
      }),
    });
    expect(res.json()).toMatchObject({ errors: [], warnings: [], permissions: [] });
  });
});

describe('body limit', () => {
  it('413 above IMPORT_BODY_LIMIT, naming the limit and the variable', async () => {
    const small = await startTestApp({ config: { IMPORT_BODY_LIMIT: 2048 } });
    try {
      const data = doc({ features: Array.from({ length: 100 }, (_, i) => flag(`big-${i}`)) });
      for (const path of ['validate', 'import']) {
        const res = await small.send('POST', `/api/admin/features-batch/${path}`, {
          project: 'default',
          environment: 'development',
          data,
        });
        expect(res.statusCode).toBe(413);
        expect(res.json()).toMatchObject({
          name: 'PayloadTooLargeError',
          message:
            'The request body is larger than the limit of 2048 bytes (0.0 MiB) for this endpoint; the environment variable IMPORT_BODY_LIMIT raises it.',
        });
      }
      // The import limit is not the global one: a body above BODY_LIMIT but below it is read.
      const large = await startTestApp({ config: { BODY_LIMIT: 1024, IMPORT_BODY_LIMIT: 1_048_576 } });
      try {
        const res = await large.send('POST', '/api/admin/features-batch/validate', {
          project: 'default',
          environment: 'development',
          data,
        });
        expect(res.statusCode).toBe(200);
        const exported = await large.send('POST', '/api/admin/features-batch/export', {
          environment: 'development',
          features: Array.from({ length: 100 }, (_, i) => `some-long-flag-name-${i}`),
        });
        expect(exported.statusCode).toBe(413);
        expect(exported.json().message).toContain('the environment variable BODY_LIMIT raises it');
      } finally {
        await large.close();
      }
    } finally {
      await small.close();
    }
  });
});
