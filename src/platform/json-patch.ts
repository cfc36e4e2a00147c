import { isDeepStrictEqual } from 'node:util';

/** One RFC 6902 operation as sent on the wire. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

/** A patch that cannot be applied; `index` is the failing operation's position in the patch. */
export class PatchError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

type Container = Record<string, unknown> | unknown[];

/** RFC 6901: "" is the whole document; "/a/0" is key a, then index 0; ~1 is "/", ~0 is "~". */
function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new Error(`"${pointer}" is not a JSON Pointer (it must start with "/")`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

function arrayIndex(array: unknown[], token: string, allowEnd: boolean): number {
  if (allowEnd && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`"${token}" is not an array index`);
  const index = Number(token);
  if (index > array.length || (!allowEnd && index === array.length)) {
    throw new Error(`index ${index} is out of bounds`);
  }
  return index;
}

function getChild(parent: unknown, token: string): unknown {
  if (Array.isArray(parent)) return parent[arrayIndex(parent, token, false)];
  if (isContainer(parent) && Object.hasOwn(parent, token)) return (parent as Record<string, unknown>)[token];
  throw new Error(`"${token}" does not exist`);
}

function resolve(doc: unknown, tokens: string[]): unknown {
  return tokens.reduce(getChild, doc);
}

/** Own data property: a key such as "__proto__" becomes a plain key, never the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function add(doc: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = resolve(doc, tokens.slice(0, -1));
  const last = tokens.at(-1) as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else if (isContainer(parent)) setKey(parent as Record<string, unknown>, last, value);
  else throw new Error('the parent of the target is not an object or array');
  return doc;
}

function remove(doc: unknown, tokens: string[]): unknown {
  if (tokens.length === 0) throw new Error('cannot remove the whole document');
  const parent = resolve(doc, tokens.slice(0, -1));
  const last = tokens.at(-1) as string;
  getChild(parent, last);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false), 1);
  else delete (parent as Record<string, unknown>)[last];
  return doc;
}

function applyOne(doc: unknown, op: PatchOperation): unknown {
  // RFC 6902, section 4: add, replace and test carry a "value" member (null is a value, absent is not).
  if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && !('value' in op)) {
    throw new Error(`"${op.op}" needs a "value"`);
  }
  const path = parsePointer(op.path);
  switch (op.op) {
    case 'add':
      return add(doc, path, structuredClone(op.value));
    case 'remove':
      return remove(doc, path);
    case 'replace':
      if (path.length === 0) return structuredClone(op.value);
      return add(remove(doc, path), path, structuredClone(op.value));
    case 'copy':
    case 'move': {
      if (op.from === undefined) throw new Error(`"${op.op}" needs "from"`);
      const from = parsePointer(op.from);
      const value = structuredClone(resolve(doc, from));
      if (op.op === 'copy') return add(doc, path, value);
      if (op.path.startsWith(`${op.from}/`)) throw new Error('cannot move a value into itself');
      return add(remove(doc, from), path, value);
    }
    case 'test':
      if (!isDeepStrictEqual(resolve(doc, path), op.value)) throw new Error('the test failed');
      return doc;
    default:
      throw new Error(`unknown operation "${String((op as { op: unknown }).op)}"`);
  }
}

/**
 * Applies an RFC 6902 JSON Patch to a copy of `document` and returns the result; the input is
 * never changed. All or nothing: the first failing operation throws a PatchError.
 */
export function applyJsonPatch(document: unknown, patch: PatchOperation[]): unknown {
  let doc = structuredClone(document);
  patch.forEach((op, index) => {
    try {
      doc = applyOne(doc, op);
    } catch (error) {
      throw new PatchError(index, `Operation ${index} (${op.op} ${op.path}): ${(error as Error).message}`);
    }
  });
  return doc;
}
