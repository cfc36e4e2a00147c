/**
 * RFC 6902 JSON Patch, our own implementation rather than a library such as fast-json-patch: it is
 * small, checked against the RFC's examples (json-patch.rfc.test.ts), writes `__proto__` as a plain
 * key, and bounds the work a patch can do (below); fast-json-patch bounds nothing (the doubling
 * `copy` of issue 43 would need the same wrapper) and has had no release since 2022.
 *
 * The bounds (PatchLimits): each value a patch inserts (`add` and `replace` values, what `copy`
 * takes from the document, what `move` takes to a deeper place) is measured before it is cloned or
 * placed; their sum may not pass `maxSize`, and each must land no deeper than `maxDepth`. So 1,000
 * doubling copies are refused after about log2(maxSize / document size) operations, having cloned
 * less than maxSize, and the result is at most the input plus maxSize, and no deeper than maxDepth
 * (or the input). Removals give no credit, so nothing removed needs measuring. The schemas cap a
 * patch at 1,000 operations; within these bounds each costs its path's length plus an array shift,
 * so that count needs no lower cap.
 */
import { isDeepStrictEqual } from 'node:util';
import { MAX_JSON_DEPTH, measureJson } from './json-measure.js';

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

export interface PatchLimits {
  /**
   * How much JSON (characters, see measureJson) a patch may insert in all. The callers pass
   * BODY_LIMIT: a PUT of the same flag, strategy or variant list is a body of at most that much,
   * so a patch that grows its document by more makes nothing the API could otherwise hold.
   */
  maxSize: number;
  /** How deep an inserted value may land (MAX_JSON_DEPTH, the bound on request bodies). */
  maxDepth: number;
}

/** The defaults, for what a caller does not give: BODY_LIMIT's default (1 MiB) and the body depth bound. */
export const DEFAULT_PATCH_LIMITS: PatchLimits = { maxSize: 1_048_576, maxDepth: MAX_JSON_DEPTH };

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

/** What is left of a patch's insertion budget; `charge` refuses a value before it is cloned or placed. */
class Budget {
  private left: number;
  constructor(private readonly limits: PatchLimits) {
    this.left = limits.maxSize;
  }

  charge(value: unknown, at: string[]) {
    const room = this.limits.maxDepth - at.length;
    const measured = measureJson(value, { maxSize: this.left, maxDepth: Math.max(room, 0) });
    if (measured.depth > room) {
      throw new Error(`the value would be nested deeper than ${this.limits.maxDepth} levels`);
    }
    if (measured.over) {
      throw new Error(
        `the patch would insert more than ${this.limits.maxSize} characters of JSON (values added, replaced, copied or moved)`,
      );
    }
    this.left -= measured.size;
  }
}

function applyOne(doc: unknown, op: PatchOperation, budget: Budget): unknown {
  // RFC 6902, section 4: add, replace and test carry a "value" member (null is a value, absent is not).
  if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && !('value' in op)) {
    throw new Error(`"${op.op}" needs a "value"`);
  }
  const path = parsePointer(op.path);
  switch (op.op) {
    case 'add':
      budget.charge(op.value, path);
      return add(doc, path, structuredClone(op.value));
    case 'remove':
      return remove(doc, path);
    case 'replace':
      budget.charge(op.value, path);
      if (path.length === 0) return structuredClone(op.value);
      return add(remove(doc, path), path, structuredClone(op.value));
    case 'copy':
    case 'move': {
      if (op.from === undefined) throw new Error(`"${op.op}" needs "from"`);
      const from = parsePointer(op.from);
      const value = resolve(doc, from);
      if (op.op === 'copy') {
        budget.charge(value, path);
        return add(doc, path, structuredClone(value));
      }
      if (op.path.startsWith(`${op.from}/`)) throw new Error('cannot move a value into itself');
      // A move neither clones nor grows the document; only one to a deeper place can nest it deeper.
      if (path.length > from.length) budget.charge(value, path);
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
 * never changed. All or nothing: the first failing operation, or the first to pass a bound of
 * `limits`, throws a PatchError.
 */
export function applyJsonPatch(
  document: unknown,
  patch: PatchOperation[],
  limits: Partial<PatchLimits> = {},
): unknown {
  let doc = structuredClone(document);
  const budget = new Budget({ ...DEFAULT_PATCH_LIMITS, ...limits });
  patch.forEach((op, index) => {
    try {
      doc = applyOne(doc, op, budget);
    } catch (error) {
      throw new PatchError(index, `Operation ${index} (${op.op} ${op.path}): ${(error as Error).message}`);
    }
  });
  return doc;
}
