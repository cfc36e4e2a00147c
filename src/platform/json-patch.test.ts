import { describe, expect, it } from 'vitest';
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
