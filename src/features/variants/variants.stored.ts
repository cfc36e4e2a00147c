import type { WeightedVariant } from './variants.weights.js';

/** The variant fields any input carries: the variant routes, strategy variants, import documents. */
export interface VariantFields extends WeightedVariant {
  stickiness?: string;
  payload?: { type: string; value: string };
  overrides?: { contextName: string; values: string[] }[];
}

/** A variant as it is stored, typed after its input (payload types may be an enum there). */
export interface StoredVariantOf<V extends VariantFields> {
  name: string;
  weight: number;
  weightType: NonNullable<V['weightType']> | 'variable';
  stickiness: string;
  payload?: { type: NonNullable<V['payload']>['type']; value: string };
  overrides?: { contextName: string; values: string[] }[];
}

/**
 * A variant as stored, wherever it comes from: the known fields only (a payload's or an
 * override's extra keys are dropped, so they never reach the snapshot or the playground), with
 * the defaults weightType `variable` and stickiness `default`. Overrides are kept only where the
 * list takes them (`withOverrides`: flag environments; strategy variants have none).
 */
export function storedVariant<V extends VariantFields>(v: V, withOverrides: boolean): StoredVariantOf<V> {
  const stored: StoredVariantOf<V> = {
    name: v.name,
    weight: v.weight,
    weightType: v.weightType ?? 'variable',
    stickiness: v.stickiness ?? 'default',
  };
  if (v.payload) stored.payload = { type: v.payload.type, value: v.payload.value };
  if (withOverrides && v.overrides) {
    stored.overrides = v.overrides.map((o) => ({ contextName: o.contextName, values: o.values }));
  }
  return stored;
}
