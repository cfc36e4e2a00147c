/**
 * A deterministic configuration (seeded PRNG) in the client-API shape, fed to both our engine and
 * unleash-client: flags with three strategies (flexibleRollout, default, userWithId), two
 * constraints each (IN, STR_*, NUM_*, SEMVER_*, DATE_*), a segment on the first strategy, strategy
 * and flag variants; and contexts with userId, sessionId and the properties the constraints read.
 */
import type {
  ConstraintInput,
  FlagInput,
  SegmentInput,
  SnapshotInput,
  StrategyInput,
} from '../../src/evaluation/index.js';

/** mulberry32, the PRNG of test/sdk-agreement.test.ts. */
export function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY = 86_400_000;

export function generateConfiguration(flags: number, segments: number, seed = 20261122): SnapshotInput {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  // Dates at least 30 days from now, so both engines (which read the clock separately) agree.
  const date = () => {
    const offset = (30 + int(3000)) * DAY * (rand() < 0.5 ? -1 : 1);
    return new Date(Date.now() + offset).toISOString();
  };
  const users = () => Array.from({ length: 1 + int(20) }, () => `u${int(10_000)}`);
  const constraint = (): ConstraintInput => {
    const inverted = rand() < 0.15;
    switch (int(9)) {
      case 0:
        return { contextName: 'userId', operator: 'IN', values: users(), inverted };
      case 1:
        return { contextName: 'region', operator: pick(['IN', 'NOT_IN']), values: ['eu', 'us'], inverted };
      case 2:
        return {
          contextName: 'userId',
          operator: pick(['STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS']),
          values: [String(int(10)), `u${int(10)}`],
          caseInsensitive: rand() < 0.5,
          inverted,
        };
      case 3:
      case 4:
        return {
          contextName: 'num',
          operator: pick(['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE']),
          value: String(int(100)),
          inverted,
        };
      case 5:
      case 6:
        return {
          contextName: 'version',
          operator: pick(['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_GTE', 'SEMVER_LT', 'SEMVER_LTE']),
          value: `${int(4)}.${int(10)}.${int(10)}`,
          inverted,
        };
      default:
        return {
          contextName: 'currentTime',
          operator: pick(['DATE_AFTER', 'DATE_BEFORE']),
          value: date(),
          inverted,
        };
    }
  };
  const strategyVariants = (flag: string) =>
    rand() < 0.5
      ? [
          {
            name: 'blue',
            weight: 500,
            weightType: 'variable',
            stickiness: 'default',
            payload: { type: 'string', value: `${flag}-blue` },
          },
          { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
        ]
      : [];
  const segmentList: SegmentInput[] = Array.from({ length: segments }, (_, i) => ({
    id: i + 1,
    name: `seg-${i + 1}`,
    constraints: [
      rand() < 0.5
        ? { contextName: 'userId', operator: 'NOT_IN', values: users(), inverted: false }
        : { contextName: 'num', operator: 'NUM_GTE', value: String(int(30)), inverted: false },
    ],
  }));
  const features: FlagInput[] = Array.from({ length: flags }, (_, i) => {
    const name = `engine-flag-${i}`;
    const enabled = rand() < 0.9;
    const strategies: StrategyInput[] = [
      {
        name: 'flexibleRollout',
        parameters: {
          rollout: String(int(101)),
          stickiness: pick(['default', 'userId', 'sessionId']),
          groupId: name,
        },
        constraints: [constraint(), constraint()],
        segments: [1 + int(segments)],
        variants: strategyVariants(name),
      },
      {
        name: 'userWithId',
        parameters: { userIds: users().join(', ') },
        constraints: [constraint(), constraint()],
        segments: [],
        variants: strategyVariants(name),
      },
      {
        name: 'default',
        parameters: {},
        constraints: [constraint(), constraint()],
        segments: [],
        variants: [],
      },
    ];
    return {
      name,
      type: 'release',
      project: 'default',
      description: null,
      enabled,
      stale: false,
      impressionData: false,
      strategies,
      variants: [
        {
          name: 'on',
          weight: 700,
          weightType: 'variable',
          stickiness: 'default',
          payload: { type: 'json', value: '{"k":1}' },
          overrides: [{ contextName: 'userId', values: ['u7', 'u42'] }],
        },
        { name: 'off', weight: 300, weightType: 'variable', stickiness: 'default' },
      ],
      dependencies: [],
    };
  });
  return { features, segments: segmentList };
}

/** What both engines accept as a context. */
export type BenchContext = {
  userId: string;
  sessionId: string;
  properties: Record<string, string>;
};

/** Contexts with a userId (so no evaluation draws a random number) and the constrained fields. */
export function generateContexts(count: number, seed = 42): BenchContext[] {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  return Array.from({ length: count }, (_, i) => ({
    userId: `u${i}`,
    sessionId: `s${int(1_000_000)}`,
    properties: {
      region: ['eu', 'us', 'apac'][int(3)] as string,
      num: String(int(100)),
      version: `${int(4)}.${int(10)}.${int(10)}`,
    },
  }));
}
