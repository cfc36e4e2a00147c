import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const validate = (body: unknown) => t.send('POST', '/api/admin/constraints/validate', body);

describe('POST /api/admin/constraints/validate', () => {
  it('answers 204 for constraints strategies would accept', async () => {
    for (const body of [
      { contextName: 'userId', operator: 'IN', values: ['a', 'b'] },
      { contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.2.3' },
      {
        contextName: 'currentTime',
        operator: 'DATE_AFTER',
        value: '2026-01-01T00:00:00.000Z',
        inverted: true,
      },
      { contextName: 'notDefinedAnywhere', operator: 'NUM_LT', value: '10' },
    ]) {
      const res = await validate(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(204);
      expect(res.body).toBe('');
    }
  });

  it('answers 400 naming the problem for constraints strategies would refuse', async () => {
    const cases: [unknown, string][] = [
      [{ contextName: 'userId', operator: 'IN', values: [] }, '/body/values'],
      [{ contextName: 'appVersion', operator: 'SEMVER_GT', value: 'one' }, '/body/value'],
      [{ contextName: 'x', operator: 'NUM_EQ', value: 'ten' }, '/body/value'],
      [{ contextName: 'x', operator: 'LIKE', values: ['a'] }, '/body/operator'],
      [{ operator: 'IN', values: ['a'] }, '/body/contextName'],
    ];
    for (const [body, path] of cases) {
      const res = await validate(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
      expect(JSON.stringify(res.json().details), JSON.stringify(body)).toContain(path);
    }
  });
});
