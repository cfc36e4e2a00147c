import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { type TObject, type TSchema, Type } from 'typebox';
import { WorkSlices } from '../yielding.js';

type Serialize = (data: unknown) => string;

/** Items per call of an array's serializer: a few milliseconds of work at most. */
const ITEMS_PER_CALL = 256;

/** fast-json-stringify, as Fastify builds a route's response serializer (no shared schemas needed). */
const compile = (schema: TSchema): Serialize =>
  SerializerSelector()({}, {})({ schema } as never) as unknown as Serialize;

interface Part {
  key: string;
  /** `"key":` */
  prefix: string;
  whole: Serialize;
  /** The array's items' serializer, for an array property. */
  items?: Serialize;
}

/**
 * The JSON of a large answer of an object schema whose bulk is in array properties (an export of
 * thousands of flags), made the way the route's own serializer makes it (fast-json-stringify:
 * properties in schema order, only those the schema lists, absent ones left out) but an array a
 * few hundred items at a time, yielding to the event loop between slices (platform/yielding.ts),
 * so other requests are served while it is built. Send the text with `sendSerialized`.
 */
export function jsonInSlices<T extends TObject>(schema: T): (value: unknown) => Promise<string> {
  let parts: Part[] | undefined;
  const build = (): Part[] =>
    Object.entries(schema.properties as Record<string, TSchema>).map(([key, property]) => {
      const { type, items } = property as { type?: unknown; items?: TSchema };
      return {
        key,
        prefix: `${JSON.stringify(key)}:`,
        whole: compile(property),
        ...(type === 'array' && items !== undefined && { items: compile(Type.Array(items)) }),
      };
    });
  return async (value) => {
    parts ??= build();
    const record = value as Record<string, unknown>;
    const slices = new WorkSlices();
    const out: string[] = [];
    for (const part of parts) {
      const v = record[part.key];
      if (v === undefined) continue;
      out.push(out.length === 0 ? `{${part.prefix}` : `,${part.prefix}`);
      if (!part.items || !Array.isArray(v) || v.length <= ITEMS_PER_CALL) {
        out.push(part.whole(v));
        continue;
      }
      for (let i = 0; i < v.length; i += ITEMS_PER_CALL) {
        // Each call gives `[…]`: its items go between the one pair of brackets of the whole array.
        const slice = part.items(v.slice(i, i + ITEMS_PER_CALL));
        out.push(i === 0 ? slice.slice(0, -1) : `,${slice.slice(1, -1)}`);
        const pause = slices.pause(ITEMS_PER_CALL);
        if (pause) await pause;
      }
      out.push(']');
    }
    return out.length === 0 ? '{}' : `${out.join('')}}`;
  };
}
