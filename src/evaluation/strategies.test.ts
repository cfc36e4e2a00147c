import { describe, expect, it } from 'vitest';
import { prepareContext } from './context.js';
import { compileRule } from './strategies.js';
import type { EvaluationContext } from './types.js';

type Row = [
  name: string,
  parameters: Record<string, string>,
  context: EvaluationContext,
  random: number,
  expected: boolean | 'unknown',
];

// docs/evaluation.md §5; `random` is the injected draw in [0, 1) (ADR 0002).
const rows: Row[] = [
  ['userWithId', { userIds: '1, 2 ,3' }, { userId: '2' }, 0, true],
  ['userWithId', { userIds: ' 1,2' }, { userId: '1' }, 0, false],
  ['userWithId', { userIds: '' }, { userId: '' }, 0, false],
  ['gradualRolloutRandom', { percentage: '50' }, {}, 0.49, true],
  ['gradualRolloutRandom', { percentage: '50' }, {}, 0.5, false],
  ['gradualRolloutRandom', { percentage: '0' }, {}, 0, false],
  ['gradualRolloutUserId', { percentage: '100', groupId: 'g' }, { sessionId: 's' }, 0, false],
  ['flexibleRollout', { rollout: '100', stickiness: 'userId' }, { sessionId: 's' }, 0, false],
  ['flexibleRollout', { rollout: '100', stickiness: 'default' }, {}, 0, true],
  ['flexibleRollout', { rollout: 'abc', stickiness: 'default' }, { userId: '1' }, 0, false],
  ['remoteAddress', { IPs: '10.0.0.0/8, 192.168.1.1' }, { remoteAddress: '10.9.9.9' }, 0, true],
  ['remoteAddress', { IPs: 'bad, 192.168.1.1' }, { remoteAddress: '192.168.1.1' }, 0, true],
  ['remoteAddress', { IPs: '::1' }, { remoteAddress: '::1' }, 0, true],
  ['remoteAddress', { IPs: '::/0' }, { remoteAddress: '::1' }, 0, false],
  ['remoteAddress', { IPs: '10.0.0.0/8' }, {}, 0, false],
  ['applicationHostname', { hostNames: 'localhost' }, {}, 0, 'unknown'],
  ['myCustomStrategy', {}, {}, 0, 'unknown'],
  ['toString', {}, {}, 0, 'unknown'],
];

describe('built-in strategies (docs/evaluation.md §5)', () => {
  it.each(rows)('%s %j with %j (random %s) → %s', (name, parameters, context, random, expected) => {
    const rule = compileRule(name, parameters);
    const view = prepareContext(context, { now: new Date(0), random: () => random });
    expect(rule === 'unknown' ? rule : rule(view)).toBe(expected);
  });
});
