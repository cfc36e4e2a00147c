import { describe, expect, it } from 'vitest';
import { measureJson } from './json-measure.js';
import { applyJsonPatch, PatchError, type PatchOperation } from './json-patch.js';

const doc = () => [
  { name: 'a', weight: 1 },
  { name: 'b', weight: 2 },
];

describe('applyJsonPatch (RFC 6902)', () => {
  it.each<[string, unknown, PatchOperation[], unknown]>([
    [
      'add at an index',
      doc(),
      [{ op: 'add', path: '/1', value: { name: 'x' } }],
      [{ name: 'a', weight: 1 }, { name: 'x' }, { name: 'b', weight: 2 }],
    ],
    ['add at the end with -', [1], [{ op: 'add', path: '/-', value: 2 }], [1, 2]],
    ['add at index = length', [1], [{ op: 'add', path: '/1', value: 2 }], [1, 2]],
    ['add an object key', { a: 1 }, [{ op: 'add', path: '/b', value: 2 }], { a: 1, b: 2 }],
    ['add replaces an existing key', { a: 1 }, [{ op: 'add', path: '/a', value: 3 }], { a: 3 }],
    ['add the whole document', [1], [{ op: 'add', path: '', value: [9] }], [9]],
    ['remove an element', doc(), [{ op: 'remove', path: '/0' }], [{ name: 'b', weight: 2 }]],
    ['remove a key', doc(), [{ op: 'remove', path: '/0/weight' }], [{ name: 'a' }, { name: 'b', weight: 2 }]],
    [
      'replace a nested value',
      doc(),
      [{ op: 'replace', path: '/1/weight', value: 7 }],
      [
        { name: 'a', weight: 1 },
        { name: 'b', weight: 7 },
      ],
    ],
    ['replace the whole document', [1], [{ op: 'replace', path: '', value: [] }], []],
    ['move an element', [1, 2, 3], [{ op: 'move', from: '/0', path: '/2' }], [2, 3, 1]],
    ['move a key', { a: 1 }, [{ op: 'move', from: '/a', path: '/b' }], { b: 1 }],
    ['copy an element', [{ n: 1 }], [{ op: 'copy', from: '/0', path: '/-' }], [{ n: 1 }, { n: 1 }]],
    [
      'test then replace',
      [1],
      [
        { op: 'test', path: '/0', value: 1 },
        { op: 'replace', path: '/0', value: 2 },
      ],
      [2],
    ],
    [
      'escaped pointer tokens',
      { 'a/b': 1, 'c~d': 2 },
      [
        { op: 'remove', path: '/a~1b' },
        { op: 'replace', path: '/c~0d', value: 3 },
      ],
      { 'c~d': 3 },
    ],
    [
      '__proto__ is a plain key',
      {},
      [{ op: 'add', path: '/__proto__', value: { polluted: true } }],
      JSON.parse('{"__proto__":{"polluted":true}}'),
    ],
  ])('%s', (_label, input, patch, expected) => {
    expect(applyJsonPatch(input, patch)).toEqual(expected);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves the input unchanged and copies values', () => {
    const input = doc();
    const value = { name: 'v' };
    const out = applyJsonPatch(input, [{ op: 'add', path: '/-', value }]) as unknown[];
    expect(input).toEqual(doc());
    value.name = 'changed';
    expect(out[2]).toEqual({ name: 'v' });
  });

  it.each<[string, unknown, PatchOperation[], number]>([
    ['remove a missing index', [1], [{ op: 'remove', path: '/5' }], 0],
    ['replace a missing key', { a: 1 }, [{ op: 'replace', path: '/b', value: 1 }], 0],
    ['add beyond the end', [1], [{ op: 'add', path: '/3', value: 1 }], 0],
    ['a leading-zero index', [1, 2], [{ op: 'remove', path: '/01' }], 0],
    ['a pointer without /', [1], [{ op: 'remove', path: '0' }], 0],
    [
      'a failing test',
      [1],
      [
        { op: 'add', path: '/-', value: 2 },
        { op: 'test', path: '/0', value: 2 },
      ],
      1,
    ],
    ['move into itself', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 0],
    ['copy without from', [1], [{ op: 'copy', path: '/0' } as PatchOperation], 0],
    ['remove the root', [1], [{ op: 'remove', path: '' }], 0],
    ['add below a scalar', [1], [{ op: 'add', path: '/0/x', value: 1 }], 0],
  ])('refuses %s, naming the operation', (_label, input, patch, index) => {
    let error: unknown;
    try {
      applyJsonPatch(input, patch);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).index).toBe(index);
  });
});

/** A value `levels` containers deep: {a: {a: … {} }}. */
const nested = (levels: number) => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};

const refusal = (input: unknown, patch: PatchOperation[], limits?: Parameters<typeof applyJsonPatch>[2]) => {
  try {
    applyJsonPatch(input, patch, limits);
  } catch (error) {
    if (error instanceof PatchError) return error;
    throw error;
  }
  throw new Error('the patch was applied');
};

describe('applyJsonPatch bounds', () => {
  const doubling = (count: number): PatchOperation[] =>
    Array.from({ length: count }, (_, i) => ({ op: 'copy', from: '', path: `/k${i}` }));

  it('refuses a doubling copy once the copies pass maxSize, long before the 40th operation', () => {
    const error = refusal({ name: 'x'.repeat(100) }, doubling(40));
    // 110 characters doubled: past 1 MiB after about 13 copies.
    expect(error.index).toBeLessThan(16);
    expect(error.message).toMatch(/more than 1048576 characters/);
  });

  it('refuses 1,000 copies of the document into one key, each a level deeper, at the depth bound', () => {
    const ops = Array.from({ length: 1000 }, (): PatchOperation => ({ op: 'copy', from: '', path: '/next' }));
    const error = refusal({ name: 'x' }, ops);
    expect(error.index).toBe(63);
    expect(error.message).toMatch(/deeper than 64 levels/);
  });

  it('counts what every insertion adds against maxSize, removals giving no credit', () => {
    const limits = { maxSize: 100, maxDepth: 64 };
    expect(applyJsonPatch({}, [{ op: 'add', path: '/a', value: 'x'.repeat(90) }], limits)).toEqual({
      a: 'x'.repeat(90),
    });
    const cycle: PatchOperation[] = [
      { op: 'add', path: '/a', value: 'x'.repeat(40) },
      { op: 'remove', path: '/a' },
    ];
    expect(refusal({}, [...cycle, ...cycle, ...cycle], limits).index).toBe(4);
    expect(refusal({}, [{ op: 'replace', path: '', value: ['y'.repeat(100)] }], limits).index).toBe(0);
  });

  it('reorders by move without charging, so a long list can be shuffled', () => {
    const list = Array.from({ length: 100 }, (_, i) => ({ name: `v${i}`, payload: 'p'.repeat(50) }));
    const moves: PatchOperation[] = Array.from({ length: 1000 }, () => ({
      op: 'move',
      from: '/0',
      path: '/99',
    }));
    const out = applyJsonPatch(list, moves, { maxSize: 100, maxDepth: 64 }) as typeof list;
    expect(out.map((v) => v.name)).toEqual(list.map((v) => v.name));
  });

  it('refuses a value that would land deeper than maxDepth', () => {
    expect(applyJsonPatch({ a: {} }, [{ op: 'add', path: '/a/b', value: nested(62) }])).toBeTruthy();
    expect(refusal({ a: {} }, [{ op: 'add', path: '/a/b', value: nested(63) }]).message).toMatch(
      /deeper than 64 levels/,
    );
  });

  it('refuses a copy of the document into its own deepest point (depth doubling)', () => {
    // {a: {}} is 2 levels; each copy of "" below the innermost {} doubles that: 4, 8, … 128.
    const ops: PatchOperation[] = [];
    for (let depth = 2; depth <= 64; depth *= 2) ops.push({ op: 'copy', from: '', path: '/a'.repeat(depth) });
    const error = refusal({ a: {} }, ops);
    expect(error.index).toBe(5);
    expect(error.message).toMatch(/deeper than 64 levels/);
    expect(measureJson(applyJsonPatch({ a: {} }, ops.slice(0, 5))).depth).toBe(64);
  });

  it('refuses a move to a place that would nest the value too deep', () => {
    const input = { deep: nested(40), x: nested(40) };
    const path = `/deep${'/a'.repeat(38)}/x`;
    expect(refusal(input, [{ op: 'move', from: '/x', path }]).message).toMatch(/deeper than 64/);
  });
});
