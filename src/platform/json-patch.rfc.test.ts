import { describe, expect, it } from 'vitest';
import { applyJsonPatch, PatchError, type PatchOperation } from './json-patch.js';

const doc = { a: 1, b: { c: [1, 2, 3] }, 'x/y': 'slash', 't~': 'tilde' };

describe('applyJsonPatch (RFC 6902)', () => {
  it.each<[string, PatchOperation[], unknown]>([
    ['add a member', [{ op: 'add', path: '/d', value: 4 }], { ...doc, d: 4 }],
    ['add replaces a member', [{ op: 'add', path: '/a', value: 9 }], { ...doc, a: 9 }],
    ['add into an array', [{ op: 'add', path: '/b/c/1', value: 9 }], { ...doc, b: { c: [1, 9, 2, 3] } }],
    ['append with -', [{ op: 'add', path: '/b/c/-', value: 4 }], { ...doc, b: { c: [1, 2, 3, 4] } }],
    ['remove a member', [{ op: 'remove', path: '/a' }], { b: doc.b, 'x/y': 'slash', 't~': 'tilde' }],
    ['remove from an array', [{ op: 'remove', path: '/b/c/0' }], { ...doc, b: { c: [2, 3] } }],
    ['replace', [{ op: 'replace', path: '/b/c/2', value: 'z' }], { ...doc, b: { c: [1, 2, 'z'] } }],
    [
      'escaped tokens',
      [
        { op: 'replace', path: '/x~1y', value: 1 },
        { op: 'remove', path: '/t~0' },
      ],
      { a: 1, b: doc.b, 'x/y': 1 },
    ],
    [
      'move',
      [{ op: 'move', from: '/a', path: '/b/a' }],
      { b: { c: [1, 2, 3], a: 1 }, 'x/y': 'slash', 't~': 'tilde' },
    ],
    ['copy', [{ op: 'copy', from: '/b/c', path: '/e' }], { ...doc, e: [1, 2, 3] }],
    [
      'test then replace',
      [
        { op: 'test', path: '/b', value: { c: [1, 2, 3] } },
        { op: 'replace', path: '/a', value: 2 },
      ],
      { ...doc, a: 2 },
    ],
    ['replace the root', [{ op: 'replace', path: '', value: { z: 1 } }], { z: 1 }],
  ])('%s', (_label, ops, expected) => {
    expect(applyJsonPatch(doc, ops)).toEqual(expected);
  });

  it.each<[string, PatchOperation[], number]>([
    ['failing test', [{ op: 'test', path: '/a', value: 2 }], 0],
    ['replace of a missing member', [{ op: 'replace', path: '/nope', value: 1 }], 0],
    [
      'remove of a missing member',
      [
        { op: 'add', path: '/n', value: 1 },
        { op: 'remove', path: '/nope' },
      ],
      1,
    ],
    ['array index out of bounds', [{ op: 'add', path: '/b/c/9', value: 1 }], 0],
    ['non-numeric array index', [{ op: 'remove', path: '/b/c/x' }], 0],
    ['missing parent', [{ op: 'add', path: '/q/r', value: 1 }], 0],
    ['pointer without a slash', [{ op: 'add', path: 'a', value: 1 }], 0],
    ['add without a value', [{ op: 'add', path: '/a' }], 0],
    ['move without from', [{ op: 'move', path: '/a' }], 0],
    ['move into its own child', [{ op: 'move', from: '/b', path: '/b/x' }], 0],
  ])('refuses %s, naming the operation, and leaves the input untouched', (_label, ops, index) => {
    const before = structuredClone(doc);
    let caught: unknown;
    try {
      applyJsonPatch(doc, ops);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PatchError);
    expect((caught as PatchError).index).toBe(index);
    expect(doc).toEqual(before);
  });
});
